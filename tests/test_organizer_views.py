"""The organizer's screens through Django's test client: plain requests, HTMX requests,
permissions, and bad input that must be refused with a message (never a 500)."""

from __future__ import annotations

import json
import re
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from scoring.services import standings_document
from tournaments import services
from tournaments.models import (
    AuditEntry,
    Match,
    MatchKind,
    Player,
    Round,
    Status,
    System,
    Tournament,
)
from tournaments.pages.common import current_round

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def event(owner: User) -> Tournament:
    t = services.create_tournament(name="Friday Modern", owner=owner, seed=7, top_cut=4)
    services.register_players(tournament=t, names=[f"Player {i}" for i in range(1, 9)])
    return t


@pytest.fixture
def paired(event: Tournament) -> Tournament:
    services.pair_next_round(tournament=event)
    return event


def url(t: Tournament, tail: str = "") -> str:
    return f"/t/{t.slug}/manage/{tail}"


def first_match(t: Tournament, number: int = 1) -> Match:
    return Match.objects.filter(round__tournament=t, round__number=number).order_by("table")[0]


def fresh(t: Tournament) -> Tournament:
    return Tournament.objects.get(pk=t.pk)


def play_round(t: Tournament, wins: tuple[int, int] = (2, 0)) -> None:
    for m in Match.objects.filter(round=current_round(t), kind=MatchKind.PLAYED, reported=False):
        services.record_result(match=m, wins=wins)


def html(response: Any) -> str:
    return response.content.decode()


def oob(page: str, element_id: str) -> bool:
    """The partial carries this panel as an out-of-band swap."""
    return re.search(rf'<[a-z]+ id="{element_id}"[^>]*hx-swap-oob="true"', page) is not None


# --- Permissions ---------------------------------------------------------------------------


@pytest.mark.parametrize("tail", ["", "rounds/1/"])
def test_an_anonymous_visitor_is_sent_to_the_login_page(
    client: Client, paired: Tournament, tail: str
) -> None:
    response = client.get(url(paired, tail))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_the_dashboard_needs_a_login(client: Client) -> None:
    response = client.get("/manage/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_an_anonymous_post_changes_nothing(client: Client, event: Tournament) -> None:
    response = client.post(url(event, "pair/"))
    assert response.status_code in (302, 403)
    assert not Round.objects.filter(tournament=event).exists()


@pytest.mark.parametrize("tail", ["", "rounds/1/"])
def test_another_logged_in_user_gets_403_on_a_screen(
    client: Client, paired: Tournament, django_user_model: type[User], tail: str
) -> None:
    client.force_login(django_user_model.objects.create_user("mallory"))
    assert client.get(url(paired, tail)).status_code == 403


def test_another_logged_in_user_gets_403_on_an_action_and_nothing_changes(
    client: Client, paired: Tournament, django_user_model: type[User]
) -> None:
    client.force_login(django_user_model.objects.create_user("mallory"))
    m = first_match(paired)
    assert client.post(url(paired, f"matches/{m.pk}/result/"), {"result": "2-0"}).status_code == 403
    assert client.post(url(paired, "players/add/"), {"name": "Eve"}).status_code == 403
    m.refresh_from_db()
    assert not m.reported and paired.players.count() == 8


def test_the_owner_can_open_the_event_screen(oc: Client, paired: Tournament) -> None:
    assert oc.get(url(paired)).status_code == 200


def test_a_staff_member_can_manage_the_tournament(
    client: Client, paired: Tournament, django_user_model: type[User]
) -> None:
    helper = django_user_model.objects.create_user("judge")
    paired.staff.add(helper)
    client.force_login(helper)
    assert client.get(url(paired)).status_code == 200
    m = first_match(paired)
    assert client.post(url(paired, f"matches/{m.pk}/result/"), {"result": "2-1"}).status_code == 302
    m.refresh_from_db()
    assert m.reported


def test_a_superuser_can_manage_any_tournament(
    client: Client, paired: Tournament, django_user_model: type[User]
) -> None:
    client.force_login(django_user_model.objects.create_superuser("root", password=None))
    assert client.get(url(paired)).status_code == 200


def test_a_get_on_an_action_is_not_allowed(oc: Client, event: Tournament) -> None:
    assert oc.get(url(event, "pair/")).status_code == 405


def test_a_match_of_another_tournament_is_a_404(
    oc: Client, paired: Tournament, owner: User
) -> None:
    other = services.create_tournament(name="Other", owner=owner)
    m = first_match(paired)
    assert oc.post(url(other, f"matches/{m.pk}/result/"), {"result": "2-0"}).status_code == 404


# --- Dashboard and create ------------------------------------------------------------------------


def test_the_dashboard_lists_my_tournaments_and_the_create_form(
    oc: Client, event: Tournament
) -> None:
    response = oc.get("/manage/")
    page = html(response)
    assert response.status_code == 200 and "<html" in page
    assert "Friday Modern" in page and "Create the tournament" in page and "227-409" in page


def test_the_dashboard_for_htmx_is_the_partial(oc: Client, event: Tournament) -> None:
    page = html(oc.get("/manage/", **HX))
    assert "<html" not in page and 'id="dashboard"' in page and "Friday Modern" in page


def test_the_dashboard_does_not_list_other_peoples_tournaments(
    oc: Client, django_user_model: type[User]
) -> None:
    stranger = django_user_model.objects.create_user("stranger")
    services.create_tournament(name="Somebody Else's Cup", owner=stranger)
    assert "Somebody Else" not in html(oc.get("/manage/"))


def test_creating_a_tournament_makes_me_its_owner_and_opens_its_screen(
    oc: Client, owner: User
) -> None:
    data = {
        "name": "Sunday Pauper",
        "system": "mtr",
        "best_of": "1",
        "planned_rounds": "4",
        "top_cut": "8",
    }
    response = oc.post("/manage/create/", data)
    t = Tournament.objects.get(name="Sunday Pauper")
    assert response.status_code == 302 and response["Location"] == url(t)
    assert (t.owner, t.best_of, t.planned_rounds, t.top_cut, t.system) == (owner, 1, 4, 8, "mtr")


def test_creating_a_tournament_with_htmx_redirects_the_browser(oc: Client) -> None:
    data = {"name": "League Night", "system": "league", "best_of": "3", "top_cut": "0"}
    response = oc.post("/manage/create/", data, **HX)
    t = Tournament.objects.get(name="League Night")
    assert response.status_code == 200 and response["HX-Redirect"] == url(t)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "", "system": "mtr", "best_of": "3", "top_cut": "0"}, "This field is required"),
        ({"name": "X", "system": "mtr", "best_of": "2", "top_cut": "0"}, "Select a valid choice"),
        ({"name": "X", "system": "chess", "best_of": "3", "top_cut": "0"}, "Select a valid choice"),
        ({"name": "X", "system": "mtr", "best_of": "3", "top_cut": "3"}, "Select a valid choice"),
        (
            {"name": "X", "system": "mtr", "best_of": "3", "top_cut": "0", "planned_rounds": "x"},
            "Enter a whole number",
        ),
    ],
)
def test_a_bad_creation_form_is_refused_with_a_message(
    oc: Client, data: dict[str, str], message: str
) -> None:
    for extra in ({}, HX):
        response = oc.post("/manage/create/", data, **extra)
        assert response.status_code == 422 and message in html(response)
    assert not Tournament.objects.exists()


# --- The event screen ---------------------------------------------------------------------------------


def test_the_event_screen_shows_players_rounds_and_standings(
    oc: Client, paired: Tournament
) -> None:
    page = html(oc.get(url(paired)))
    assert "<html" in page
    for panel in (
        'id="players-panel"',
        'id="rounds-panel"',
        'id="standings-panel"',
        'id="missing"',
    ):
        assert panel in page
    assert "4</strong> results still missing" in page
    assert "Player 1" in page and 'scope="row"' in page and "Table" in page
    assert "suggested for 8 players: 3" in page


def test_the_event_screen_for_htmx_is_the_board_partial(oc: Client, paired: Tournament) -> None:
    page = html(oc.get(url(paired), **HX))
    assert "<html" not in page and page.lstrip().startswith('<div id="board"')


def test_a_past_round_can_be_opened_and_says_later_rounds_exist(
    oc: Client, paired: Tournament
) -> None:
    play_round(paired)
    services.pair_next_round(tournament=paired)
    page = html(oc.get(url(paired, "rounds/1/")))
    assert "<html" in page and "Round 1" in page and "already paired after this one" in page
    partial = html(oc.get(url(paired, "rounds/1/"), **HX))
    assert "<html" not in partial and partial.lstrip().startswith('<section id="rounds-panel"')


def test_an_unknown_round_is_a_404(oc: Client, paired: Tournament) -> None:
    assert oc.get(url(paired, "rounds/9/")).status_code == 404


# --- Players -------------------------------------------------------------------------------------------


def test_adding_one_player_redirects_back_to_the_screen(oc: Client, event: Tournament) -> None:
    response = oc.post(url(event, "players/add/"), {"name": "  Zed Quinn "})
    assert response.status_code == 302 and response["Location"].startswith(url(event))
    assert event.players.filter(name="Zed Quinn").exists()


def test_adding_one_player_with_htmx_returns_the_players_panel_and_the_standings(
    oc: Client, event: Tournament
) -> None:
    page = html(oc.post(url(event, "players/add/"), {"name": "Zed Quinn"}, **HX))
    assert "<html" not in page and page.lstrip().startswith('<section id="players-panel"')
    assert oob(page, "standings-panel") and oob(page, "round-actions")
    assert "Zed Quinn" in page


def test_a_player_added_during_the_event_is_a_late_entry(oc: Client, paired: Tournament) -> None:
    play_round(paired)
    page = html(oc.post(url(paired, "players/add/"), {"name": "Late Larry"}, **HX))
    assert "late entry" in page
    assert (
        next(r for r in standings_document(paired)["standings"] if r["name"] == "Late Larry")[
            "points"
        ]
        == 0
    )


def test_pasting_a_list_adds_one_player_per_non_empty_line(oc: Client, owner: User) -> None:
    t = services.create_tournament(name="Paste", owner=owner)
    response = oc.post(url(t, "players/paste/"), {"names": "Ann\n\n  Bob  \r\nCy\n"})
    assert response.status_code == 302
    assert list(t.players.values_list("name", flat=True)) == ["Ann", "Bob", "Cy"]
    page = html(oc.post(url(t, "players/paste/"), {"names": "Dee\nEve"}, **HX))
    assert "Added 2 players" in page and t.players.count() == 5


@pytest.mark.parametrize("extra", [{}, HX])
def test_an_empty_paste_or_name_is_refused_with_a_message(
    oc: Client, event: Tournament, extra: dict[str, str]
) -> None:
    response = oc.post(url(event, "players/paste/"), {"names": " \n \n"}, **extra)
    assert response.status_code == 422 and "Give at least one player name" in html(response)
    response = oc.post(url(event, "players/add/"), {"name": "   "}, **extra)
    assert response.status_code == 422 and "required" in html(response)
    response = oc.post(url(event, "players/add/"), {"name": "x" * 201}, **extra)
    assert response.status_code == 422 and "at most 200 characters" in html(response)
    assert event.players.count() == 8


@pytest.mark.parametrize("extra", [{}, HX])
def test_renaming_a_player(oc: Client, event: Tournament, extra: dict[str, str]) -> None:
    p = event.players.first()
    assert p is not None
    response = oc.post(url(event, f"players/{p.pk}/rename/"), {"name": "Ana Souza"}, **extra)
    assert response.status_code == (200 if extra else 302)
    p.refresh_from_db()
    assert p.name == "Ana Souza"
    response = oc.post(url(event, f"players/{p.pk}/rename/"), {"name": ""}, **extra)
    assert response.status_code == 422
    p.refresh_from_db()
    assert p.name == "Ana Souza"


@pytest.mark.parametrize("extra", [{}, HX])
def test_dropping_and_readmitting_a_player(
    oc: Client, paired: Tournament, extra: dict[str, str]
) -> None:
    play_round(paired)
    p = paired.players.first()
    assert p is not None
    response = oc.post(url(paired, f"players/{p.pk}/drop/"), **extra)
    assert response.status_code == (200 if extra else 302)
    p.refresh_from_db()
    assert p.dropped_after_round == 1
    if extra:
        assert "Dropped after round 1" in html(response) and "(dropped)" in html(response)
    oc.post(url(paired, f"players/{p.pk}/readmit/"), **extra)
    p.refresh_from_db()
    assert p.dropped_after_round is None


def test_a_player_of_another_tournament_is_a_404(
    oc: Client, event: Tournament, owner: User
) -> None:
    other = services.create_tournament(name="Other", owner=owner)
    p = event.players.first()
    assert p is not None
    assert oc.post(url(other, f"players/{p.pk}/drop/")).status_code == 404


# --- Pair and undo ------------------------------------------------------------------------------------


def test_pairing_round_one_with_a_plain_post(oc: Client, event: Tournament) -> None:
    response = oc.post(url(event, "pair/"))
    assert response.status_code == 302 and response["Location"] == url(event)
    assert fresh(event).status == Status.RUNNING
    page = html(oc.get(url(event)))
    assert "Round 1 is paired" in page and page.count('class="open"') == 4


def test_pairing_with_htmx_returns_the_board(oc: Client, event: Tournament) -> None:
    response = oc.post(url(event, "pair/"), **HX)
    page = html(response)
    assert response.status_code == 200 and page.lstrip().startswith('<div id="board"')
    assert "Round 1 is paired" in page and "Undo the pairing of round 1" in page
    # The standings panel is the phones' cached fragment, which polls for itself.
    assert 'id="standings-panel"' in page and 'hx-get="/t/' in page


@pytest.mark.parametrize("extra", [{}, HX])
def test_pairing_while_results_are_missing_is_refused_with_the_count(
    oc: Client, paired: Tournament, extra: dict[str, str]
) -> None:
    response = oc.post(url(paired, "pair/"), **extra)
    assert response.status_code == 422
    assert "Round 1 still has 4 result(s) missing" in html(response)
    assert paired.rounds.count() == 1


@pytest.mark.parametrize("extra", [{}, HX])
def test_undoing_a_pairing_without_results(
    oc: Client, paired: Tournament, extra: dict[str, str]
) -> None:
    response = oc.post(url(paired, "undo/"), **extra)
    assert response.status_code == (200 if extra else 302)
    assert not paired.rounds.exists() and fresh(paired).status == Status.REGISTRATION


@pytest.mark.parametrize("extra", [{}, HX])
def test_undo_is_refused_once_a_result_is_in(
    oc: Client, paired: Tournament, extra: dict[str, str]
) -> None:
    services.record_result(match=first_match(paired), wins=(2, 0))
    response = oc.post(url(paired, "undo/"), **extra)
    assert response.status_code == 422 and "already has results" in html(response)
    assert paired.rounds.count() == 1


# --- Results ------------------------------------------------------------------------------------------


def test_a_one_click_result_with_a_plain_post_redirects_to_the_round(
    oc: Client, paired: Tournament
) -> None:
    m = first_match(paired)
    response = oc.post(url(paired, f"matches/{m.pk}/result/"), {"result": "2-1"})
    assert response.status_code == 302 and response["Location"] == url(
        paired, f"rounds/1/#match-{m.pk}"
    )
    a, b = m.seats.order_by("position")
    assert (a.games_won, b.games_won) == (2, 1)


def test_a_one_click_result_with_htmx_returns_its_row_and_the_missing_count_only(
    oc: Client, paired: Tournament
) -> None:
    m = first_match(paired)
    response = oc.post(url(paired, f"matches/{m.pk}/result/"), {"result": "2-0"}, **HX)
    page = html(response)
    assert response.status_code == 200 and "<html" not in page
    assert page.lstrip().startswith(f'<tr id="match-{m.pk}" class="done"')
    assert '<span id="missing"' in page and "3</strong> results still missing" in page
    assert 'hx-swap-oob="true"' in page
    # Neither the board nor the standings ride along: the standings panel refreshes
    # itself from its cached fragment.
    assert 'id="standings-panel"' not in page and 'id="round-actions"' not in page
    assert len(response.content) < 5_000
    winner = m.seats.get(position=0).player
    assert (
        next(r for r in standings_document(paired)["standings"] if r["name"] == winner.name)[
            "points"
        ]
        == 3
    )


@pytest.mark.parametrize(
    ("data", "wins", "draws", "kind"),
    [
        ({"result": "0-0-3"}, (0, 0), 3, MatchKind.PLAYED),
        ({"result": "1-1"}, (1, 1), 0, MatchKind.PLAYED),
        ({"wins_a": "1", "wins_b": "0", "draws": "1"}, (1, 0), 1, MatchKind.PLAYED),
        ({"action": "double_loss"}, (0, 0), 0, MatchKind.DOUBLE_LOSS),
    ],
)
def test_the_small_form_enters_the_less_common_results(
    oc: Client,
    paired: Tournament,
    data: dict[str, str],
    wins: tuple[int, int],
    draws: int,
    kind: str,
) -> None:
    m = first_match(paired)
    assert oc.post(url(paired, f"matches/{m.pk}/result/"), data, **HX).status_code == 200
    m.refresh_from_db()
    a, b = m.seats.order_by("position")
    assert (a.games_won, b.games_won, m.draws, m.kind, m.reported) == (*wins, draws, kind, True)


def test_clear_removes_a_result(oc: Client, paired: Tournament) -> None:
    m = first_match(paired)
    services.record_result(match=m, wins=(2, 0))
    oc.post(url(paired, f"matches/{m.pk}/result/"), {"action": "clear"}, **HX)
    m.refresh_from_db()
    assert not m.reported


@pytest.mark.parametrize("extra", [{}, HX])
@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"result": "3-0"}, "nobody wins more than 2 games"),
        ({"wins_a": "3", "wins_b": "0"}, "nobody wins more than 2 games"),
        ({"wins_a": "-1", "wins_b": "2"}, "Game counts cannot be negative"),
        ({"wins_a": "2", "wins_b": "0", "draws": "-2"}, "Game counts cannot be negative"),
        ({"wins_a": "two", "wins_b": "0"}, "Enter a whole number of games"),
        ({"result": "2-x"}, "A result looks like 2-1 or 0-0-3"),
        ({"wins_a": "2"}, "Give the games won by both players"),
        ({"result": "2-2"}, "Both players cannot win"),
        ({"action": "explode"}, "Select a valid choice"),
    ],
)
def test_a_result_that_cannot_be_is_refused_beside_the_table_and_nothing_changes(
    oc: Client, paired: Tournament, data: dict[str, str], message: str, extra: dict[str, str]
) -> None:
    m = first_match(paired)
    version = fresh(paired).version
    response = oc.post(url(paired, f"matches/{m.pk}/result/"), data, **extra)
    page = html(response)
    assert response.status_code == 422
    assert message in page and 'role="alert"' in page
    assert "refused" in page
    # The match's own form comes back with the message in it and what was typed kept.
    assert f'<tr id="match-{m.pk}" class="edit refused"' in page
    for field in ("wins_a", "wins_b", "draws"):
        if field in data:
            assert f'name="{field}"' in page and f'value="{data[field]}"' in page
    if extra:
        assert "<html" not in page
    m.refresh_from_db()
    assert not m.reported and fresh(paired).version == version


def test_a_bye_has_no_result_to_enter(oc: Client, owner: User) -> None:
    t = services.create_tournament(name="Odd", owner=owner, seed=3)
    services.register_players(tournament=t, names=["A", "B", "C"])
    services.pair_next_round(tournament=t)
    bye = Match.objects.get(round__tournament=t, kind=MatchKind.BYE)
    response = oc.post(url(t, f"matches/{bye.pk}/result/"), {"result": "2-0"}, **HX)
    assert response.status_code == 422 and "Byes and losses" in html(response)


def test_best_of_one_offers_one_click_1_0_0_1_and_draw(oc: Client, owner: User) -> None:
    t = services.create_tournament(name="Bo1", owner=owner, best_of=1, seed=5)
    services.register_players(tournament=t, names=["A", "B"])
    services.pair_next_round(tournament=t)
    m = first_match(t)
    page = html(oc.get(url(t, f"matches/{m.pk}/")))
    for value in ('value="1-0"', 'value="0-1"', 'value="0-0-1"'):
        assert value in page
    assert 'value="2-1"' not in page
    assert oc.post(url(t, f"matches/{m.pk}/result/"), {"result": "2-0"}).status_code == 422


def test_correcting_a_past_result_says_later_rounds_were_paired_on_the_old_standings(
    oc: Client, paired: Tournament
) -> None:
    play_round(paired)
    services.pair_next_round(tournament=paired)
    m = first_match(paired, 1)
    page = html(oc.post(url(paired, f"matches/{m.pk}/result/"), {"result": "0-2"}, **HX))
    assert "Round 2 was already paired on the old standings" in page
    winner = m.seats.get(position=1).player
    assert (
        next(r for r in standings_document(paired)["standings"] if r["name"] == winner.name)[
            "points"
        ]
        == 3
    )
    response = oc.post(url(paired, f"matches/{m.pk}/result/"), {"result": "2-0"}, follow=True)
    assert "Round 2 was already paired on the old standings" in html(response)


# --- Day-2 cut, top cut, bracket, finish ----------------------------------------------------------


@pytest.mark.parametrize("extra", [{}, HX])
def test_a_day_two_cut_by_match_points(
    oc: Client, paired: Tournament, extra: dict[str, str]
) -> None:
    play_round(paired)
    response = oc.post(url(paired, "cut/"), {"mode": "points", "value": "3"}, **extra)
    assert response.status_code == (200 if extra else 302)
    t = fresh(paired)
    assert t.phase == 2 and t.players.filter(made_phase=2).count() == 4


def test_a_day_two_cut_by_top_n(oc: Client, paired: Tournament) -> None:
    play_round(paired)
    oc.post(url(paired, "cut/"), {"mode": "top", "value": "6"})
    assert fresh(paired).players.filter(made_phase=2).count() == 6


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"mode": "points", "value": "-1"}, "Enter 0 or more"),
        ({"mode": "top", "value": "many"}, "Enter a whole number"),
        ({"mode": "top", "value": "1"}, "At least two players must make the cut"),
        ({"mode": "points", "value": "99"}, "Fewer than two players"),
    ],
)
def test_a_bad_cut_is_refused_with_a_message(
    oc: Client, paired: Tournament, data: dict[str, str], message: str
) -> None:
    play_round(paired)
    response = oc.post(url(paired, "cut/"), data, **HX)
    assert response.status_code == 422 and message in html(response)
    assert fresh(paired).phase == 1


def run_swiss(t: Tournament, rounds: int = 3) -> None:
    play_round(t, (2, 1))
    for _ in range(rounds - 1):
        services.pair_next_round(tournament=t)
        play_round(t, (2, 1))
    assert t.rounds.count() == rounds


@pytest.mark.parametrize("extra", [{}, HX])
def test_top_cut_bracket_and_finish_through_the_screens(
    oc: Client, paired: Tournament, extra: dict[str, str]
) -> None:
    run_swiss(paired)
    response = oc.post(url(paired, "top-cut/"), {"size": "4"}, **extra)
    assert response.status_code == (200 if extra else 302)
    assert fresh(paired).status == Status.TOP_CUT
    page = html(oc.get(url(paired)))
    assert 'id="bracket-panel"' in page and "Semifinals" in page
    semis = Match.objects.filter(round__tournament=paired, round__playoff=True)
    for m in semis:
        response = oc.post(url(paired, f"matches/{m.pk}/result/"), {"result": "1-2"}, **extra)
        assert response.status_code == (200 if extra else 302)
        if extra:
            assert html(response).lstrip().startswith('<section id="bracket-panel"')
    assert oc.post(url(paired, "pair/"), **extra).status_code == (200 if extra else 302)
    final = Match.objects.get(round__tournament=paired, round__playoff=True, round__number=5)
    oc.post(url(paired, f"matches/{final.pk}/result/"), {"result": "2-0"}, **extra)
    response = oc.post(url(paired, "finish/"), {"confirm": "yes"}, **extra)
    assert response.status_code == (200 if extra else 302)
    assert fresh(paired).status == Status.FINISHED
    page = html(oc.get(url(paired)))
    assert "Final standings" in page and "Final" in page
    champion = final.seats.get(position=0).player.name
    assert standings_document(paired)["standings"][0]["name"] == champion


def test_a_playoff_match_needs_a_winner(oc: Client, paired: Tournament) -> None:
    run_swiss(paired)
    services.start_top_cut(tournament=paired, size=4)
    m = Match.objects.filter(round__tournament=paired, round__playoff=True).first()
    assert m is not None
    response = oc.post(url(paired, f"matches/{m.pk}/result/"), {"result": "1-1"}, **HX)
    assert response.status_code == 422 and "A playoff match needs a winner" in html(response)
    response = oc.post(url(paired, f"matches/{m.pk}/result/"), {"action": "double_loss"})
    assert response.status_code == 422 and "A playoff match needs a winner" in html(response)


@pytest.mark.parametrize("extra", [{}, HX])
def test_finishing_too_early_is_refused(
    oc: Client, paired: Tournament, extra: dict[str, str]
) -> None:
    response = oc.post(url(paired, "finish/"), {"confirm": "yes"}, **extra)
    assert response.status_code == 422 and "Some results are still missing" in html(response)


def test_a_top_cut_bigger_than_the_field_is_refused(oc: Client, owner: User) -> None:
    t = services.create_tournament(name="Tiny", owner=owner, seed=1)
    services.register_players(tournament=t, names=["A", "B", "C", "D"])
    services.pair_next_round(tournament=t)
    play_round(t)
    response = oc.post(url(t, "top-cut/"), {"size": "8"}, **HX)
    assert response.status_code == 422 and "A top 8 needs 8 players" in html(response)
    response = oc.post(url(t, "top-cut/"), {"size": "5"}, **HX)
    assert response.status_code == 422 and "Select a valid choice" in html(response)


# --- League ------------------------------------------------------------------------------------------------


@pytest.fixture
def league(owner: User) -> Tournament:
    t = services.create_tournament(name="Board Night", owner=owner, system=System.LEAGUE, seed=11)
    services.register_players(tournament=t, names=[f"Gamer {i}" for i in range(1, 9)])
    services.pair_next_round(tournament=t)
    return t


def game_data(
    m: Match, places: list[int], scores: list[str], absent: tuple[int, ...] = ()
) -> dict[str, str]:
    data: dict[str, str] = {"action": "save"}
    for k, seat in enumerate(m.seats.order_by("position")):
        data[f"place_{seat.pk}"] = str(places[k]) if k < len(places) else ""
        data[f"score_{seat.pk}"] = scores[k] if k < len(scores) else ""
        if k in absent:
            data[f"absent_{seat.pk}"] = "on"
    return data


def test_the_league_screen_has_places_and_scores_per_table(oc: Client, league: Tournament) -> None:
    page = html(oc.get(url(league)))
    assert "Table 1" in page and "Table 2" in page and 'name="place_' in page and "absent" in page


@pytest.mark.parametrize("extra", [{}, HX])
def test_entering_a_league_table_with_shared_places(
    oc: Client, league: Tournament, extra: dict[str, str]
) -> None:
    m = first_match(league)
    data = game_data(m, [1, 1, 3, 4], ["40", "40", "31.5", "20"])
    response = oc.post(url(league, f"matches/{m.pk}/game/"), data, **extra)
    assert response.status_code == (200 if extra else 302)
    if extra:
        assert html(response).lstrip().startswith(f'<section id="match-{m.pk}" class="game done')
    m.refresh_from_db()
    assert m.reported
    assert list(m.seats.order_by("position").values_list("place", flat=True)) == [1, 1, 3, 4]


def test_a_league_table_with_an_absent_player(oc: Client, league: Tournament) -> None:
    m = first_match(league)
    data = game_data(m, [1, 2, 3], ["10", "8", "5"], absent=(3,))
    response = oc.post(url(league, f"matches/{m.pk}/game/"), data, **HX)
    assert response.status_code == 200
    assert m.seats.get(position=3).absent


@pytest.mark.parametrize(
    ("places", "scores", "message"),
    [
        ([1, 2, 3, 7], ["4", "3", "2", "1"], "Place 7 does not fit a table of 4"),
        ([1, 2, 3, 0], ["4", "3", "2", "1"], "Places start at 1"),
        ([1, 2, 3, 4], ["4", "3", "lots", "1"], "A score is a number"),
        ([1, 2, 3], ["4", "3", "2"], "Give a place and a score for"),
    ],
)
def test_a_league_table_that_cannot_be_is_refused(
    oc: Client, league: Tournament, places: list[int], scores: list[str], message: str
) -> None:
    m = first_match(league)
    response = oc.post(url(league, f"matches/{m.pk}/game/"), game_data(m, places, scores), **HX)
    assert response.status_code == 422 and message in html(response)
    m.refresh_from_db()
    assert not m.reported


# --- manage.py pair ------------------------------------------------------------------------------------------


def test_the_pair_command_prints_the_round_as_json(owner: User) -> None:
    t = services.create_tournament(name="Cmd", owner=owner, seed=2)
    services.register_players(tournament=t, names=["A", "B", "C"])
    out = StringIO()
    call_command("pair", t.slug, stdout=out)
    doc = json.loads(out.getvalue())
    assert doc["round"] == 1
    assert [len(m["players"]) for m in doc["matches"]] == [2, 1]
    assert doc["matches"][1]["bye"] is True and doc["matches"][1]["table"] == 2
    ids = {p for m in doc["matches"] for p in m["players"]}
    assert ids == set(Player.objects.filter(tournament=t).values_list("external_id", flat=True))


def test_the_pair_command_refuses_with_the_services_message(owner: User) -> None:
    t = services.create_tournament(name="Cmd", owner=owner, seed=2)
    services.register_players(tournament=t, names=["A", "B"])
    call_command("pair", t.slug, stdout=StringIO())
    with pytest.raises(CommandError, match="Round 1 still has 1 result"):
        call_command("pair", t.slug, stdout=StringIO())
    with pytest.raises(CommandError, match="no tournament"):
        call_command("pair", "nope", stdout=StringIO())


# --- Pod and finished events ------------------------------------------------------------------------


def test_a_pod_is_paired_all_at_once_and_the_screen_opens_the_first_round_with_missing_results(
    oc: Client, owner: User
) -> None:
    t = services.create_tournament(name="Draft Pod", owner=owner, system=System.POD, seed=9)
    services.register_players(tournament=t, names=["A", "B", "C", "D", "E"])
    page = html(oc.post(url(t, "pair/"), **HX))
    assert "Round 1 is paired" in page and t.rounds.count() == 5
    assert "Pair the round robin" not in page
    for m in Match.objects.filter(round__tournament=t, round__number=1, kind=MatchKind.PLAYED):
        services.record_result(match=m, wins=(1, 0))
    page = html(oc.get(url(t)))
    assert "<h3>Round 2" in page and "8</strong> results still missing" in page


def test_a_finished_event_shows_results_without_entry_buttons(
    oc: Client, paired: Tournament
) -> None:
    play_round(paired)
    services.finish(tournament=paired)
    page = html(oc.get(url(paired)))
    assert "Final standings" in page and 'name="result"' not in page and "pair-button" not in page


def test_a_league_round_can_give_agreed_byes_worth_two_points(oc: Client, owner: User) -> None:
    t = services.create_tournament(name="Board League", system=System.LEAGUE, owner=owner, seed=2)
    services.register_players(tournament=t, names=[f"L{i}" for i in range(1, 9)])
    resting = t.players.order_by("id")[0]
    response = oc.post(url(t, "pair/"), {"agreed_bye": [str(resting.pk)]})
    assert response.status_code == 302
    round_ = Round.objects.get(tournament=t, number=1)
    bye = round_.matches.get(kind=MatchKind.BYE)
    assert list(bye.seats.values_list("player_id", flat=True)) == [resting.pk]
    assert sorted(round_.matches.filter(kind=MatchKind.GAME).values_list("table", flat=True)) == [
        1,
        2,
    ]
    sizes = sorted(m.seats.count() for m in round_.matches.filter(kind=MatchKind.GAME))
    assert sizes == [3, 4]
    row = next(r for r in standings_document(t)["standings"] if r["id"] == resting.external_id)
    assert row["points"] == 2  # shared/spec/scoring.md: an agreed bye scores 2


def test_agreed_byes_are_refused_outside_a_league(oc: Client, event: Tournament) -> None:
    p = event.players.first()
    response = oc.post(url(event, "pair/"), {"agreed_bye": [str(p.pk)]})
    assert response.status_code == 422 and "league rounds only" in html(response)


def test_the_last_result_of_a_round_brings_the_pair_button_with_it(
    oc: Client, paired: Tournament
) -> None:
    open_matches = list(
        Match.objects.filter(round__tournament=paired, kind=MatchKind.PLAYED, reported=False)
    )
    for m in open_matches[:-1]:
        oc.post(url(paired, f"matches/{m.pk}/result/"), {"result": "2-1"}, **HX)
    last = open_matches[-1]
    page = html(oc.post(url(paired, f"matches/{last.pk}/result/"), {"result": "0-2"}, **HX))
    assert page.lstrip().startswith(f'<tr id="match-{last.pk}"')
    assert '<section id="round-actions"' in page and 'id="pair-button"' in page
    assert "All results are in" in page and "Pair round 2" in page


def test_a_correction_in_an_earlier_round_warns_that_later_pairings_stay(
    oc: Client, paired: Tournament
) -> None:
    for m in Match.objects.filter(round__tournament=paired, kind=MatchKind.PLAYED):
        services.record_result(match=m, wins=(2, 0))
    services.pair_next_round(tournament=paired)
    first = Match.objects.filter(round__tournament=paired, round__number=1).first()
    assert first is not None
    page = html(oc.post(url(paired, f"matches/{first.pk}/result/"), {"result": "0-2"}, **HX))
    assert "Round 2 was already paired on the old standings" in page


def primary_button(page: str) -> str:
    """The id of the one primary action button on the event screen."""
    for tag in re.findall(r"<button[^>]*>", page):
        found = re.search(r'id="([a-z-]+)"', tag)
        if 'class="primary"' in tag and found and found.group(1).endswith("-button"):
            return found.group(1)
    return ""


@pytest.mark.parametrize(("top_cut", "expected"), [(4, "top-cut-button"), (0, "finish-button")])
def test_after_the_planned_rounds_the_next_step_offered_is_the_cut_or_finishing(
    oc: Client, paired: Tournament, top_cut: int, expected: str
) -> None:
    services.update_plan(tournament=paired, planned_rounds=3, top_cut=top_cut)
    run_swiss(paired)
    page = html(oc.get(url(paired)))
    assert primary_button(page) == expected
    assert "Pair round 4 (beyond the 3 planned)" in page
    if top_cut:
        assert "<details open>" in page and "Start the top cut" in page


def test_before_the_planned_rounds_end_pairing_stays_the_next_step(
    oc: Client, paired: Tournament
) -> None:
    services.update_plan(tournament=paired, planned_rounds=3, top_cut=4)
    play_round(paired)
    assert primary_button(html(oc.get(url(paired)))) == "pair-button"


def play_top_four(t: Tournament) -> Player:
    """Swiss, then a top 4 played to its final; returns the champion."""
    run_swiss(t)
    services.start_top_cut(tournament=t, size=4)
    for m in Match.objects.filter(round__tournament=t, round__playoff=True):
        services.record_result(match=m, wins=(2, 0))
    services.pair_next_round(tournament=t)
    final = Match.objects.filter(round__tournament=t, round__playoff=True).order_by("-id")[0]
    services.record_result(match=final, wins=(0, 2))
    return final.seats.get(position=1).player


def test_playoff_rounds_are_named_and_the_champion_is_shown_everywhere(
    oc: Client, client: Client, paired: Tournament
) -> None:
    champion = play_top_four(paired)
    slug = paired.slug
    assert "Final" in html(client.get(f"/t/{slug}/pairings/"))
    assert "Semifinals" in html(client.get(f"/t/{slug}/pairings/?round=4"))
    for page in (
        html(oc.get(url(paired))),
        html(client.get(f"/t/{slug}/bracket/")),
        html(client.get(f"/t/{slug}/")),
    ):
        assert "Champion: " in page and champion.name in page
    bracket = html(client.get(f"/t/{slug}/bracket/"))
    assert bracket.count("<li value=") == 4  # the final placings, 1 to 4


@pytest.mark.parametrize("extra", [{}, HX])
def test_finishing_asks_for_confirmation_first(
    oc: Client, paired: Tournament, extra: dict[str, str]
) -> None:
    play_top_four(paired)
    response = oc.post(url(paired, "finish/"), **extra)
    assert response.status_code == 200 and "Yes, finish the tournament" in html(response)
    assert fresh(paired).status == Status.TOP_CUT
    response = oc.post(url(paired, "finish/"), {"confirm": "yes"}, **extra)
    assert fresh(paired).status == Status.FINISHED
    page = html(oc.get(url(paired)))
    assert 'hx-confirm="Finish the tournament?' not in page  # finished: no finish button
    assert 'id="reopen-button"' in page


@pytest.mark.parametrize("extra", [{}, HX])
def test_a_player_entered_twice_is_removed_before_round_one_and_audited(
    oc: Client, event: Tournament, extra: dict[str, str]
) -> None:
    services.register_players(tournament=event, names=["Zed Twice"], allow_duplicates=True)
    extra_player = Player.objects.get(tournament=event, name="Zed Twice")
    page = html(oc.get(url(event)))
    assert f"/players/{extra_player.pk}/remove/" in page
    response = oc.post(url(event, f"players/{extra_player.pk}/remove/"), **extra)
    assert response.status_code == (200 if extra else 302)
    assert not Player.objects.filter(pk=extra_player.pk).exists()
    assert AuditEntry.objects.filter(tournament=event, action="remove").count() == 1


def test_a_paired_player_cannot_be_removed_only_dropped(oc: Client, paired: Tournament) -> None:
    player = Player.objects.filter(tournament=paired).first()
    assert player is not None
    assert f"/players/{player.pk}/remove/" not in html(oc.get(url(paired)))
    response = oc.post(url(paired, f"players/{player.pk}/remove/"), **HX)
    assert response.status_code == 422 and "drop them instead" in html(response)
    assert Player.objects.filter(pk=player.pk).exists()


@pytest.mark.parametrize("extra", [{}, HX])
def test_a_name_already_registered_asks_before_adding_it_again(
    oc: Client, event: Tournament, extra: dict[str, str]
) -> None:
    response = oc.post(url(event, "players/add/"), {"name": "player 3"}, **extra)
    assert response.status_code == 422 and "Already registered: player 3" in html(response)
    assert 'id="add-anyway"' in html(response)
    assert Player.objects.filter(tournament=event).count() == 8
    response = oc.post(
        url(event, "players/add/"), {"name": "player 3", "allow_duplicates": "yes"}, **extra
    )
    assert response.status_code == (200 if extra else 302)
    assert Player.objects.filter(tournament=event).count() == 9


def test_a_pasted_list_with_a_name_twice_is_refused_until_confirmed(
    oc: Client, event: Tournament
) -> None:
    response = oc.post(url(event, "players/paste/"), {"names": "Ann\nBob\nann"}, **HX)
    assert response.status_code == 422 and "Already registered: ann" in html(response)
    response = oc.post(
        url(event, "players/paste/"), {"names": "Ann\nBob\nann", "allow_duplicates": "yes"}, **HX
    )
    assert response.status_code == 200
    assert Player.objects.filter(tournament=event).count() == 11


def test_a_late_entry_into_a_fully_paired_round_robin_is_refused_saying_why(
    oc: Client, owner: User
) -> None:
    pod = services.create_tournament(name="Pod", system="pod", owner=owner, seed=1)
    services.register_players(tournament=pod, names=[f"Drafter {k}" for k in range(1, 8)])
    services.pair_next_round(tournament=pod)
    response = oc.post(url(pod, "players/add/"), {"name": "Latecomer"}, **HX)
    assert response.status_code == 422 and "would never be paired" in html(response)
    assert not Player.objects.filter(tournament=pod, name="Latecomer").exists()
