"""The organizer's seating screen (/t/<slug>/manage/seating/): fixed seats, pairing
restrictions and the Rules Enforcement Level, each action as a plain POST and with
HTMX, its refusals, and who may use it."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tournaments import services
from tournaments.models import (
    AuditEntry,
    Enforcement,
    FixedSeat,
    PairingRestriction,
    StaffRole,
    Tournament,
)
from tournaments.services.fixed_seats import fix_seat
from tournaments.services.restrictions import restrict_pairing, set_enforcement

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def t(owner: Any) -> Tournament:
    t = services.create_tournament(name="Seating Open", owner=owner, seed=9)
    services.register_players(
        tournament=t,
        names=["Ana Souza", "Ben Ito", "Cleo Park", "Dev Rao", "Anabel Lund", "Finn Moe"],
    )
    return t


def url(name: str, t: Tournament) -> str:
    return reverse(name, args=[t.slug])


def pk_of(t: Tournament, name: str) -> int:
    return t.players.get(name=name).pk


# --- The screen ---------------------------------------------------------------------------


def test_the_screen_lists_fixed_seats_restrictions_and_the_level(oc: Client, t: Tournament) -> None:
    fix_seat(tournament=t, player=t.players.get(name="Ben Ito"), table=12, reason="stream")
    restrict_pairing(
        tournament=t,
        player_a=t.players.get(name="Ana Souza"),
        player_b=t.players.get(name="Dev Rao"),
        reason="siblings",
    )
    page = oc.get(url("manage_seating", t))
    assert page.status_code == 200
    html = page.content.decode()
    assert "<h1>Seating Open</h1>" in html
    assert "Ben Ito" in html and ">12<" in html and "stream" in html
    assert "Ana Souza and Dev Rao" in html and "siblings" in html
    assert "Rules Enforcement Level: Regular (casual)" in html
    assert 'name="player_a"' in html


def test_the_screen_for_htmx_is_the_panel_alone(oc: Client, t: Tournament) -> None:
    html = oc.get(url("manage_seating", t), **HX).content.decode()
    assert html.lstrip().startswith('<section id="seating-panel"')
    assert "<h1>" not in html


def test_at_a_competitive_event_the_restriction_form_is_replaced_by_the_reason(
    oc: Client, t: Tournament
) -> None:
    set_enforcement(tournament=t, enforcement=Enforcement.COMPETITIVE)
    html = oc.get(url("manage_seating", t)).content.decode()
    assert 'name="player_a"' not in html
    assert "Pairing restrictions are for casual events (Regular enforcement) only" in html
    assert "only to fix an error" in html


# --- Fixed seats --------------------------------------------------------------------------


def test_fixing_a_seat_by_name_redirects_to_the_screen_with_a_message(
    oc: Client, t: Tournament
) -> None:
    response = oc.post(
        url("manage_seating_fix", t), {"player": "ben ito", "table": "7", "reason": "wheelchair"}
    )
    assert response.status_code == 302
    assert response["Location"] == url("manage_seating", t)
    seat = FixedSeat.objects.get(tournament=t)
    assert (seat.player.name, seat.table, seat.reason) == ("Ben Ito", 7, "wheelchair")
    page = oc.get(response["Location"]).content.decode()
    assert "Ben Ito is fixed to table 7." in page


def test_fixing_a_seat_by_id_with_htmx_answers_the_panel(oc: Client, t: Tournament) -> None:
    ext = t.players.get(name="Cleo Park").external_id
    response = oc.post(url("manage_seating_fix", t), {"player": ext, "table": "3"}, **HX)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="seating-panel"')
    assert "Cleo Park is fixed to table 3." in html
    assert FixedSeat.objects.get(tournament=t).table == 3


@pytest.mark.parametrize("hx", [False, True])
@pytest.mark.parametrize(
    ("data", "message", "field"),
    [
        (
            {"player": "Nobody Here", "table": "3"},
            "No player called “Nobody Here” in this event.",
            "fix-player-error",
        ),
        (
            {"player": "Ana", "table": "3"},
            "“Ana” fits 2 players: Ana Souza (id",
            "fix-player-error",
        ),
        ({"player": "", "table": "3"}, "Give a player&#x27;s name or id.", "fix-player-error"),
        (
            {"player": "Ben Ito", "table": "zero"},
            "A table number is a whole number from 1 to 100,000.",
            "fix-table-error",
        ),
        (
            {"player": "Ben Ito", "table": "4"},
            "Table 4 is fixed for Finn Moe already",
            "fix-table-error",
        ),
    ],
)
def test_a_refused_fixed_seat_names_the_problem_beside_its_field_keeping_the_input(
    oc: Client, t: Tournament, hx: bool, data: dict[str, str], message: str, field: str
) -> None:
    fix_seat(tournament=t, player=t.players.get(name="Finn Moe"), table=4)
    response = oc.post(url("manage_seating_fix", t), data, **(HX if hx else {}))
    assert response.status_code == 422
    html = response.content.decode()
    assert message in html
    assert f'id="{field}"' in html
    assert f'aria-describedby="{field}"' in html
    assert f'value="{data["player"]}"' in html  # what was typed stays
    assert ("<h1>" in html) is not hx
    assert FixedSeat.objects.filter(tournament=t).count() == 1


@pytest.mark.parametrize("hx", [False, True])
def test_removing_a_fixed_seat(oc: Client, t: Tournament, hx: bool) -> None:
    fix_seat(tournament=t, player=t.players.get(name="Ben Ito"), table=5)
    response = oc.post(
        url("manage_seating_unfix", t), {"player": str(pk_of(t, "Ben Ito"))}, **(HX if hx else {})
    )
    assert response.status_code == (200 if hx else 302)
    assert not FixedSeat.objects.exists()
    if hx:
        assert "Ben Ito is seated like everyone else again." in response.content.decode()


@pytest.mark.parametrize("hx", [False, True])
def test_removing_a_seat_nobody_has_is_refused(oc: Client, t: Tournament, hx: bool) -> None:
    for value in ("", "abc", str(pk_of(t, "Ben Ito"))):
        response = oc.post(url("manage_seating_unfix", t), {"player": value}, **(HX if hx else {}))
        assert response.status_code == 422
        html = response.content.decode()
        assert (
            "Pick the fixed seat to remove from the list." in html
            or "Ben Ito has no fixed seat." in html
        )


# --- Restrictions -------------------------------------------------------------------------


def test_restricting_two_players_plain_redirects(oc: Client, t: Tournament) -> None:
    response = oc.post(
        url("manage_seating_restrict", t),
        {"player_a": "Ben Ito", "player_b": "Cleo Park", "reason": "teammates"},
    )
    assert response.status_code == 302
    row = PairingRestriction.objects.get(tournament=t)
    assert {row.player_a.name, row.player_b.name} == {"Ben Ito", "Cleo Park"}
    assert (
        "Ben Ito and Cleo Park will not be paired." in oc.get(response["Location"]).content.decode()
    )


def test_restricting_two_players_with_htmx_answers_the_panel(oc: Client, t: Tournament) -> None:
    response = oc.post(
        url("manage_seating_restrict", t), {"player_a": "Ben Ito", "player_b": "Cleo Park"}, **HX
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "Ben Ito and Cleo Park will not be paired." in html
    assert "Ben Ito and Cleo Park</td>" in html


@pytest.mark.parametrize("hx", [False, True])
@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"player_a": "Ben Ito", "player_b": "ben ito"},
            "Choose two different players: Ben Ito was given twice.",
        ),
        ({"player_a": "Ben Ito", "player_b": "Zed"}, "No player called “Zed” in this event."),
        (
            {"player_a": "Ana Souza", "player_b": "Dev Rao"},
            "Ana Souza and Dev Rao are kept apart already.",
        ),
    ],
)
def test_a_refused_restriction_says_why(
    oc: Client, t: Tournament, hx: bool, data: dict[str, str], message: str
) -> None:
    restrict_pairing(
        tournament=t,
        player_a=t.players.get(name="Ana Souza"),
        player_b=t.players.get(name="Dev Rao"),
    )
    response = oc.post(url("manage_seating_restrict", t), data, **(HX if hx else {}))
    assert response.status_code == 422
    html = response.content.decode()
    assert message in html
    assert f'value="{data["player_a"]}"' in html
    assert PairingRestriction.objects.count() == 1


@pytest.mark.parametrize("hx", [False, True])
def test_a_restriction_posted_at_a_competitive_event_is_refused_with_the_reason(
    oc: Client, t: Tournament, hx: bool
) -> None:
    set_enforcement(tournament=t, enforcement=Enforcement.COMPETITIVE)
    response = oc.post(
        url("manage_seating_restrict", t),
        {"player_a": "Ben Ito", "player_b": "Cleo Park"},
        **(HX if hx else {}),
    )
    assert response.status_code == 422
    assert "only to fix an error" in response.content.decode()
    assert not PairingRestriction.objects.exists()


@pytest.mark.parametrize("hx", [False, True])
def test_lifting_a_restriction(oc: Client, t: Tournament, hx: bool) -> None:
    row = restrict_pairing(
        tournament=t,
        player_a=t.players.get(name="Ana Souza"),
        player_b=t.players.get(name="Dev Rao"),
    )
    response = oc.post(
        url("manage_seating_lift", t), {"restriction": str(row.pk)}, **(HX if hx else {})
    )
    assert response.status_code == (200 if hx else 302)
    assert not PairingRestriction.objects.exists()
    again = oc.post(
        url("manage_seating_lift", t), {"restriction": str(row.pk)}, **(HX if hx else {})
    )
    assert again.status_code == 422
    assert "Pick the restriction to lift from the list." in again.content.decode()


# --- The enforcement level ----------------------------------------------------------------


@pytest.mark.parametrize("hx", [False, True])
def test_changing_the_level(oc: Client, t: Tournament, hx: bool) -> None:
    response = oc.post(
        url("manage_enforcement", t), {"enforcement": "professional"}, **(HX if hx else {})
    )
    assert response.status_code == (200 if hx else 302)
    assert Tournament.objects.get(pk=t.pk).enforcement == Enforcement.PROFESSIONAL
    html = response.content.decode() if hx else oc.get(response["Location"]).content.decode()
    assert "The Rules Enforcement Level is Professional." in html
    assert 'name="player_a"' not in html


@pytest.mark.parametrize("hx", [False, True])
def test_going_competitive_with_restrictions_is_refused_naming_them(
    oc: Client, t: Tournament, hx: bool
) -> None:
    restrict_pairing(
        tournament=t,
        player_a=t.players.get(name="Ana Souza"),
        player_b=t.players.get(name="Dev Rao"),
    )
    response = oc.post(
        url("manage_enforcement", t), {"enforcement": "competitive"}, **(HX if hx else {})
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "Lift the pairing restrictions first (Ana Souza and Dev Rao)" in html
    assert 'id="enforcement-error"' in html
    assert Tournament.objects.get(pk=t.pk).enforcement == Enforcement.REGULAR


def test_an_unknown_level_is_refused(oc: Client, t: Tournament) -> None:
    response = oc.post(url("manage_enforcement", t), {"enforcement": "strict"})
    assert response.status_code == 422
    assert "&#x27;strict&#x27; is not an enforcement level" in response.content.decode()


def test_the_create_form_sets_the_level(oc: Client) -> None:
    form = oc.get(reverse("manage_dashboard")).content.decode()
    assert 'name="enforcement"' in form
    oc.post(
        reverse("manage_create"),
        {
            "name": "Comp Open",
            "system": "mtr",
            "best_of": "3",
            "top_cut": "0",
            "enforcement": "competitive",
        },
    )
    assert Tournament.objects.get(name="Comp Open").enforcement == Enforcement.COMPETITIVE
    # A form without the field (sent before it existed) makes a casual event.
    oc.post(
        reverse("manage_create"),
        {"name": "Club Open", "system": "mtr", "best_of": "3", "top_cut": "0"},
    )
    assert Tournament.objects.get(name="Club Open").enforcement == Enforcement.REGULAR


# --- Who may use it -----------------------------------------------------------------------

ENDPOINTS: dict[str, tuple[str, dict[str, str]]] = {
    "manage_seating": ("get", {}),
    "manage_seating_fix": ("post", {"player": "Ben Ito", "table": "8"}),
    "manage_seating_unfix": ("post", {}),  # the fixed player's pk, filled in below
    "manage_seating_restrict": ("post", {"player_a": "Ben Ito", "player_b": "Cleo Park"}),
    "manage_seating_lift": ("post", {}),  # the restriction's pk, filled in below
    "manage_enforcement": ("post", {"enforcement": "regular"}),
}
ROLES = ["owner", "scorekeeper", "head_judge", "floor_judge", "stranger", "anonymous"]


@pytest.fixture
def team(django_user_model: Any, owner: Any, t: Tournament) -> dict[str, Any]:
    people: dict[str, Any] = {"owner": owner, "anonymous": None}
    for role in StaffRole:
        user = django_user_model.objects.create_user(role.value)
        services.add_staff(tournament=t, username=user.username, role=role, by=owner)
        people[role.value] = user
    people["stranger"] = django_user_model.objects.create_user("stranger")
    return people


@pytest.mark.parametrize("name", list(ENDPOINTS))
@pytest.mark.parametrize("role", ROLES)
def test_only_the_organizer_and_scorekeepers_use_the_seating_screen(
    team: dict[str, Any], t: Tournament, name: str, role: str
) -> None:
    fixed = fix_seat(tournament=t, player=t.players.get(name="Dev Rao"), table=20)
    row = restrict_pairing(
        tournament=t,
        player_a=t.players.get(name="Ana Souza"),
        player_b=t.players.get(name="Finn Moe"),
    )
    method, data = ENDPOINTS[name]
    data = {**data, "player": str(fixed.player_id)} if name == "manage_seating_unfix" else data
    data = {**data, "restriction": str(row.pk)} if name == "manage_seating_lift" else data
    client = Client()
    if team[role] is not None:
        client.force_login(team[role])
    entries = AuditEntry.objects.count()
    response = getattr(client, method)(url(name, t), data)
    if role in ("owner", "scorekeeper"):
        assert response.status_code in (200, 302), response.content[:300]
        if name not in ("manage_seating", "manage_enforcement"):
            assert AuditEntry.objects.count() == entries + 1
    elif role == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))
        assert AuditEntry.objects.count() == entries
    else:
        assert response.status_code == 403
        assert AuditEntry.objects.count() == entries
    # Nobody but the organizer and scorekeepers changed anything.
    if role not in ("owner", "scorekeeper"):
        assert FixedSeat.objects.get(tournament=t).table == 20
        assert PairingRestriction.objects.filter(tournament=t).count() == 1


@pytest.mark.parametrize("name", [n for n, (m, _) in ENDPOINTS.items() if m == "post"])
def test_every_action_refuses_a_get(oc: Client, t: Tournament, name: str) -> None:
    assert oc.get(url(name, t)).status_code == 405
