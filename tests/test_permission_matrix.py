"""Every write endpoint of a tournament, walked for its owner, its staff, another
logged-in user and an anonymous visitor: only the first two may change anything."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import URLPattern

from tournaments import services
from tournaments.models import AuditEntry, Match, MatchKind, Tournament
from tournaments.urls_organizer import urlpatterns
from tournaments.urls_print import urlpatterns as print_urlpatterns

pytestmark = pytest.mark.django_db

# What each endpoint is sent: enough for the action to go through for an organizer.
POSTS: dict[str, dict[str, str]] = {
    "manage_add_player": {"name": "Late Larry"},
    "manage_paste_players": {"names": "Pat\nQuinn"},
    "manage_rename_player": {"name": "Renamed"},
    "manage_result": {"result": "2-0"},
    "manage_quick": {"entry": "1 2-0"},
    "manage_game": {},
    "manage_cut": {"mode": "top", "value": "4"},
    "manage_top_cut": {"size": "4"},
    "manage_clock": {"action": "start", "minutes": "50"},
    "manage_plan": {"planned_rounds": "4", "top_cut": "0"},
    "manage_staff": {"username": "someone"},
    "manage_language": {"language": "fr"},
}
READ_ONLY = {
    "manage_event", "manage_round", "manage_share", "manage_audit", "manage_backup",
    "manage_jump", "manage_match", "manage_match_row", "manage_top_tables",
    "manage_players", "manage_standings", "manage_standings_top",
}  # fmt: skip
# The print views (GET only, under manage/print/); this event is no draft pod, so its pod
# seating answers "nothing to print" (404) once the permission check has let one in.
PRINTS = {p.name for p in print_urlpatterns if isinstance(p, URLPattern)}
READ_ONLY |= PRINTS
NOT_FOUND_FOR_MANAGERS = {"print_pod_seating"}
ROLES = ["owner", "staff", "stranger", "anonymous"]


def endpoints() -> list[URLPattern]:
    return [p for p in [*urlpatterns, *print_urlpatterns] if isinstance(p, URLPattern)]


@pytest.fixture
def world(django_user_model: type[User]) -> dict[str, Any]:
    owner = django_user_model.objects.create_user("owner")
    staff = django_user_model.objects.create_user("staff")
    stranger = django_user_model.objects.create_user("stranger")
    django_user_model.objects.create_user("someone")
    t = services.create_tournament(name="Matrix Open", owner=owner, seed=5)
    t.staff.add(staff)
    services.register_players(tournament=t, names=[f"P{i}" for i in range(1, 9)])
    services.pair_next_round(tournament=t)
    return {"t": t, "owner": owner, "staff": staff, "stranger": stranger}


def path_for(pattern: URLPattern, world: dict[str, Any]) -> str:
    t: Tournament = world["t"]
    kwargs: dict[str, Any] = {}
    route = str(pattern.pattern)
    if "<int:number>" in route:
        kwargs["number"] = 1
    if "<int:pk>" in route:
        if "players/" in route:
            kwargs["pk"] = t.players.order_by("id").first().pk  # type: ignore[union-attr]
        else:
            kwargs["pk"] = (
                Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED).first().pk
            )  # type: ignore[union-attr]
    route = route.replace("<int:number>", str(kwargs.get("number", ""))).replace(
        "<int:pk>", str(kwargs.get("pk", ""))
    )
    prefix = "manage/print/" if pattern.name in PRINTS else "manage/"
    return f"/t/{t.slug}/{prefix}{route}"


def state(t: Tournament) -> tuple[Any, ...]:
    fresh = Tournament.objects.get(pk=t.pk)
    return (fresh.version, fresh.status, AuditEntry.objects.filter(tournament=t).count())


CASES = [(p.name, role) for p in endpoints() for role in ROLES]


def test_the_matrix_covers_every_endpoint() -> None:
    names = {p.name for p in endpoints()}
    assert names == set(POSTS) | READ_ONLY | {
        "manage_drop_player", "manage_readmit_player", "manage_remove_player", "manage_pair",
        "manage_undo",
        "manage_finish", "manage_reopen",
    }  # fmt: skip
    assert len(CASES) == 4 * len(names)


@pytest.mark.parametrize(("name", "role"), CASES)
def test_only_owner_and_staff_may_use_an_organizer_endpoint(
    client: Client, world: dict[str, Any], name: str, role: str
) -> None:
    pattern = next(p for p in endpoints() if p.name == name)
    path = path_for(pattern, world)
    if role != "anonymous":
        client.force_login(world[role])
    before = state(world["t"])
    response = client.get(path) if name in READ_ONLY else client.post(path, POSTS.get(name, {}))
    if role == "anonymous":
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
        assert state(world["t"]) == before
    elif role == "stranger" or (role == "staff" and name in ("manage_staff", "manage_reopen")):
        # Staff run the event but only the owner decides who is staff and takes back
        # "finish".
        assert response.status_code == 403
        assert state(world["t"]) == before
    elif name in NOT_FOUND_FOR_MANAGERS:
        assert response.status_code == 404
    else:
        assert response.status_code in (200, 302, 422), response.status_code
