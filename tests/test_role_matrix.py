"""Every endpoint of an event's team, walked for every role (issue 27): the organizer
(owner), a scorekeeper, a head judge, a floor judge, a logged-in stranger and an
anonymous visitor. Each endpoint is classed below; a new endpoint nobody classed fails
`test_every_team_endpoint_is_classed`, so none ships without its row in this matrix.

Allowed: anything but 403 and the login redirect (the action may still refuse the empty
form, 422, or find no such object, 404). Refused: 403, and nothing written."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from tournaments import services
from tournaments.models import AuditEntry, Match, MatchKind, Tournament

pytestmark = pytest.mark.django_db

ROLES = ["owner", "scorekeeper", "head_judge", "floor_judge", "stranger", "anonymous"]
OWNER = frozenset({"owner"})
MANAGERS = frozenset({"owner", "scorekeeper"})
FLOOR = frozenset({"owner", "scorekeeper", "head_judge", "floor_judge"})
HEAD = frozenset({"owner", "head_judge"})

# URL name -> who may use it (with the method the walk sends: GET for screens, POST for
# actions). Public pages and players' own links (by token) are not a team's endpoints.
CLASSES: dict[str, frozenset[str]] = {
    # The round and match screens and result entry: the whole floor team (issue 27).
    **dict.fromkeys(
        ["manage_round", "manage_quick", "manage_jump", "manage_match", "manage_match_row",
         "manage_result", "manage_game"],
        FLOOR,
    ),
    # Penalties (issue 27): the floor; a disqualification is the head judge's (the
    # service refuses it to others, tests/test_penalties_views.py).
    **dict.fromkeys(
        ["judge_penalties", "judge_penalty_issue", "judge_penalty_withdraw", "print_penalties"],
        FLOOR,
    ),
    # Time extensions and deck checks (issue 27): the floor.
    **dict.fromkeys(
        ["judge_tables", "judge_extend", "judge_remove_extension", "judge_deck_checks",
         "judge_deck_check_start", "judge_deck_check_finish"],
        FLOOR,
    ),
    # A player's decklist as a deck check reads it, and a judge's change (issue 28): the
    # floor. The decklist screen, its rules, publishing and exports: the managers (default).
    **dict.fromkeys(["judge_decklists", "judge_decklist", "judge_decklist_edit"], FLOOR),
    # Fixed seats, pairing restrictions and the enforcement level are the organizer's
    # (the manager default): manage_seating and its actions.
    # Judge calls (issue 27): the floor; a call handed up is the head judge's to take
    # (the service refuses others, tests/test_judge_calls.py).
    **dict.fromkeys(
        ["judge_floor", "judge_open_call", "judge_claim_call", "judge_release_call",
         "judge_hand_call", "judge_resolve_call", "judge_push"],
        FLOOR,
    ),
    # Only the owner decides who is staff and takes back "finish".
    **dict.fromkeys(["manage_reopen", "staff_account_create", "staff_account_link"], OWNER),
}  # fmt: skip
POST_ONLY_OWNER = {"manage_staff"}  # the screen is the managers'; changing it the owner's
TEAM_PREFIXES = ("t/<slug:slug>/manage/", "t/<slug:slug>/judge/", "accounts/staff/<slug:slug>/")


def routes() -> list[tuple[str, URLPattern]]:
    out: list[tuple[str, URLPattern]] = []

    def walk(patterns: list[Any], prefix: str) -> None:
        for p in patterns:
            route = prefix + str(p.pattern)
            if isinstance(p, URLResolver):
                walk(p.url_patterns, route)
            elif isinstance(p, URLPattern) and p.name:
                out.append((route, p))

    walk(get_resolver().url_patterns, "")
    return [(r, p) for r, p in out if r.startswith(TEAM_PREFIXES)]


def allowed(name: str, method: str) -> frozenset[str]:
    if name in POST_ONLY_OWNER and method == "POST":
        return OWNER
    return CLASSES.get(name, MANAGERS)


def is_action(pattern: URLPattern) -> bool:
    """Whether the view takes POST only (Django's require_POST answers GET with 405)."""
    view = pattern.callback
    while view is not None:
        closure = getattr(view, "__closure__", None) or ()
        for cell in closure:
            value = cell.cell_contents
            if isinstance(value, list) and value in (["POST"], ["post"]):
                return True
        view = getattr(view, "__wrapped__", None)
    return False


@pytest.fixture
def world(django_user_model: Any) -> dict[str, Any]:
    owner = django_user_model.objects.create_user("owner")
    t = services.create_tournament(name="Role Matrix Open", owner=owner, seed=5)
    people: dict[str, Any] = {"t": t, "owner": owner}
    for role in ("scorekeeper", "head_judge", "floor_judge"):
        user = django_user_model.objects.create_user(role)
        services.add_staff(tournament=t, username=role, role=role, by=owner)
        people[role] = user
    people["stranger"] = django_user_model.objects.create_user("stranger")
    services.register_players(tournament=t, names=[f"P{i}" for i in range(1, 9)])
    services.pair_next_round(tournament=t)
    return people


def fill(route: str, world: dict[str, Any]) -> str:
    t: Tournament = world["t"]
    match = Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED).first()
    player = t.players.order_by("id").first()
    assert match is not None and player is not None
    staff_pk = world["floor_judge"].pk

    def value(found: re.Match[str]) -> str:
        kind, name = found.group(1), found.group(2)
        if name == "slug":
            return t.slug
        if name == "number":
            return "1"
        if "players/" in route or "player" in name:
            return str(player.pk)
        if "staff" in route:
            return str(staff_pk)
        if kind == "int":
            return str(match.pk)
        return "x"

    return "/" + re.sub(r"<(?:(\w+):)?(\w+)>", value, route)


CASES = [(route, p.name) for route, p in routes()]


def test_every_team_endpoint_is_classed() -> None:
    """The walk finds the organizer's, the floor's and the staff screen's endpoints; an
    endpoint outside CLASSES is a manager's (the default): this lists what is not."""
    names = {p.name for _, p in routes()}
    assert {"manage_pair", "manage_result", "manage_staff", "print_index"} <= names
    assert set(CLASSES) <= names, set(CLASSES) - names


@pytest.mark.parametrize(("route", "name"), CASES)
def test_each_role_may_use_only_its_endpoints(world: dict[str, Any], route: str, name: str) -> None:
    """One event per endpoint, walked by the refused roles first (nothing they send may
    change it), then by the allowed ones."""
    pattern = next(p for r, p in routes() if r == route)
    method = "POST" if is_action(pattern) else "GET"
    path = fill(route, world)
    t: Tournament = world["t"]
    permitted = allowed(name, method)
    order = sorted(ROLES, key=lambda role: role in permitted)
    for role in order:
        if role == "anonymous" and route.startswith("accounts/staff/"):
            continue
        client = Client()
        if role != "anonymous":
            client.force_login(world[role])
        before = AuditEntry.objects.filter(tournament=t).count()
        response = client.post(path, {}) if method == "POST" else client.get(path)
        if role == "anonymous":
            assert response.status_code == 302, response.status_code
            assert response["Location"].startswith("/accounts/login/")
        elif role in permitted:
            assert response.status_code != 403, f"{role} refused {method} {path}"
        else:
            assert response.status_code == 403, f"{role} got {response.status_code} on {path}"
        if role not in permitted:
            assert AuditEntry.objects.filter(tournament=t).count() == before, (role, path)
