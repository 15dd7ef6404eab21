"""The organizer's print views through Django's test client: what each sheet holds, who
may print, bad rounds refused with a message, and HTMX requests answered with the partial.

Page breaks (no row cut) are checked in a real browser: tests/browser/test_print.py.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from scoring.models import Standing, StandingsState
from tournaments import services
from tournaments.models import Match, MatchKind, Player, Seat, System, Tournament
from tournaments.pairing.round_robin import round_robin_schedule
from tournaments.services.seating import round_rng

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
VIEWS = ["", "pairings/by-name/", "pairings/by-table/", "slips/", "standings/"]


def swiss(owner: User, players: int, name: str = "Friday Modern") -> Tournament:
    t = services.create_tournament(name=name, owner=owner, seed=7)
    services.register_players(
        tournament=t, names=[f"Player {i:02d}" for i in range(1, players + 1)]
    )
    return t


def play_open_round(t: Tournament) -> None:
    for m in Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED, reported=False):
        services.record_result(match=m, wins=(2, 1))


@pytest.fixture
def event(owner: User) -> Tournament:
    """Nine players: round 1 played (one bye), round 2 paired without results."""
    t = swiss(owner, 9)
    services.pair_next_round(tournament=t)
    play_open_round(t)
    services.pair_next_round(tournament=t)
    return t


def url(t: Tournament, tail: str = "") -> str:
    return f"/t/{t.slug}/manage/print/{tail}"


def text(response: Any) -> str:
    return response.content.decode()


def body_rows(page: str) -> list[str]:
    tbody = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return re.findall(r"<tr[ >].*?</tr>", tbody, re.S)


def cells(row: str) -> list[str]:
    return [
        re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)
    ]


# --- the index --------------------------------------------------------------------------


def test_the_print_index_links_every_print_view_for_the_current_round(
    oc: Client, event: Tournament
) -> None:
    page = text(oc.get(url(event)))
    assert "Round 2" in page
    for tail in ("pairings/by-name/?round=2", "pairings/by-table/?round=2", "slips/?round=2"):
        assert url(event, tail) in page
    assert url(event, "standings/") in page
    assert "pod-seating" not in page  # a Swiss event's seating is its round-1 pairings


def test_the_print_index_for_another_round_links_that_rounds_sheets(
    oc: Client, event: Tournament
) -> None:
    page = text(oc.get(url(event, "?round=1&paper=letter")))
    assert url(event, "slips/?round=1&amp;paper=letter") in page
    assert '<option value="1" selected>' in page


def test_the_print_index_before_any_round_offers_the_standings_only(
    oc: Client, owner: User
) -> None:
    t = swiss(owner, 4)
    response = oc.get(url(t))
    assert response.status_code == 200
    assert "No round is paired yet" in text(response)
    assert url(t, "standings/") in text(response) and "slips/" not in text(response)


def test_the_organizers_event_menu_links_the_print_index(oc: Client, event: Tournament) -> None:
    assert f'href="{url(event)}"' in text(oc.get(f"/t/{event.slug}/manage/"))


# --- the sheets -------------------------------------------------------------------------


def test_pairings_by_name_list_every_player_alphabetically_with_table_and_opponent(
    oc: Client, event: Tournament
) -> None:
    rows = [cells(r) for r in body_rows(text(oc.get(url(event, "pairings/by-name/"))))]
    names = [r[0] for r in rows]
    assert names == sorted(names, key=str.casefold) and len(names) == 9
    seats = Seat.objects.filter(round__tournament=event, round__number=2).select_related(
        "match", "player"
    )
    for seat in seats:
        row = next(r for r in rows if r[0] == seat.player.name)
        if seat.match.kind == MatchKind.BYE:
            assert row[1:3] == ["", "bye"]
        else:
            other = seat.match.seats.exclude(pk=seat.pk).get()
            assert row[1:3] == [str(seat.match.table), other.player.name]


def test_pairings_by_name_show_the_points_a_player_had_when_the_round_was_paired(
    oc: Client, event: Tournament
) -> None:
    first = Seat.objects.filter(
        round__number=1, round__tournament=event, match__kind=MatchKind.PLAYED, games_won=2
    ).select_related("match", "player")[0]
    winner = Seat.objects.get(round__number=2, player=first.player)
    assert winner.points_at_pairing == 3
    # A correction to round 1 after round 2 was paired moves the standings, not the sheet.
    services.record_result(match=first.match, wins=(0, 2) if first.position == 0 else (2, 0))
    assert Standing.objects.get(player=winner.player).points == 0
    page = text(oc.get(url(event, "pairings/by-name/")))
    row = next(cells(r) for r in body_rows(page) if f">{winner.player.name}<" in r)
    assert row[-1] == "3"
    assert '<th scope="col" class="num">Pts</th>' in page


def test_a_pods_pairings_by_name_have_no_points_column_and_show_the_bye(
    oc: Client, owner: User
) -> None:
    t = services.create_tournament(name="Pod", owner=owner, seed=3, system=System.POD)
    services.register_players(tournament=t, names=["Ana", "Ben", "Cleo", "Dev", "Eva"])
    services.pair_next_round(tournament=t)
    page = text(oc.get(url(t, "pairings/by-name/?round=1")))
    rows = [cells(r) for r in body_rows(page)]
    assert len(rows) == 5 and all(len(r) == 3 for r in rows)
    assert sum(r[2] == "bye" for r in rows) == 1
    assert ">Pts<" not in page


def test_pairings_by_table_list_each_table_once_with_both_players_and_the_bye(
    oc: Client, event: Tournament
) -> None:
    rows = [cells(r) for r in body_rows(text(oc.get(url(event, "pairings/by-table/?round=1"))))]
    matches = list(Match.objects.filter(round__tournament=event, round__number=1).order_by("table"))
    assert len(rows) == len(matches) == 5
    for row, match in zip(rows, matches, strict=True):
        names = [s.player.name for s in match.seats.order_by("position")]
        shown = [re.sub(r" \(\d+\)$", "", c) for c in row[1:]]  # points when paired
        if match.kind == MatchKind.BYE:
            assert row[0] == "" and shown == [names[0], "bye"]
        else:
            assert row[0] == str(match.table) and shown == names


def test_result_slips_are_one_per_played_table_with_both_names_and_lines_to_fill(
    oc: Client, event: Tournament
) -> None:
    page = text(oc.get(url(event, "slips/")))
    slips = re.findall(r'<article class="slip">(.*?)</article>', page, re.S)
    played = Match.objects.filter(round__tournament=event, round__number=2, kind=MatchKind.PLAYED)
    assert len(slips) == played.count() == 4  # the bye needs no slip
    for slip, match in zip(slips, played.order_by("table"), strict=True):
        assert f"Table {match.table}<" in slip and "Round 2" in slip
        for seat in match.seats.all():
            assert f">{seat.player.name}<" in slip
        assert "Games won" in slip and "Signature" in slip and "Drawn games" in slip
        assert slip.count('class="blank sign"') == 2


def test_a_league_tables_slip_asks_each_player_for_a_place_and_a_signature(
    oc: Client, owner: User
) -> None:
    t = services.create_tournament(name="League", owner=owner, seed=4, system=System.LEAGUE)
    services.register_players(tournament=t, names=[f"Gamer {i}" for i in range(1, 9)])
    services.pair_next_round(tournament=t)
    slips = re.findall(
        r'<article class="slip">(.*?)</article>', text(oc.get(url(t, "slips/"))), re.S
    )
    games = Match.objects.filter(round__tournament=t, kind=MatchKind.GAME)
    assert len(slips) == games.count() >= 2
    assert all("Place" in s and "Drawn games" not in s for s in slips)
    table = text(oc.get(url(t, "pairings/by-table/")))
    assert ">Players<" in table and ">Player B<" not in table


def test_print_standings_are_the_stored_rows_in_their_order(oc: Client, event: Tournament) -> None:
    stored = list(Standing.objects.filter(tournament=event).order_by("position"))
    # A stored row changed by hand shows as stored: the sheet reads, it never recomputes.
    Standing.objects.filter(pk=stored[0].pk).update(points=Decimal("42"))
    page = text(oc.get(url(event, "standings/")))
    rows = [cells(r) for r in body_rows(page)]
    assert [r[1] for r in rows] == [s.player.name for s in stored]
    assert rows[0][2] == "42"
    for label in ("OMW%", "GW%", "OGW%"):
        assert f">{label}</th>" in page
    assert f"After round {StandingsState.objects.get(tournament=event).after_round}" in page


def test_a_pods_seating_lists_its_players_in_the_round_robins_seat_order(
    oc: Client, owner: User
) -> None:
    for count in (7, 8):
        t = services.create_tournament(name=f"Pod {count}", owner=owner, seed=11, system=System.POD)
        services.register_players(tournament=t, names=[f"Drafter {i}" for i in range(count)])
        services.pair_next_round(tournament=t)
        # The schedule's own order: round_robin_schedule shuffles the ids with this rng.
        ids = list(
            Player.objects.filter(tournament=t).order_by("id").values_list("external_id", flat=True)
        )
        expected = list(ids)
        round_rng(t, 1).shuffle(expected)
        assert round_robin_schedule(ids, round_rng(t, 1))  # the same call the service made
        names = dict(Player.objects.filter(tournament=t).values_list("external_id", "name"))
        page = text(oc.get(url(t, "pod-seating/")))
        rows = [cells(r) for r in body_rows(page)]
        assert rows == [[str(k), names[pid]] for k, pid in enumerate(expected, start=1)]
        assert "the round-robin schedule was made from this order" in page
        assert url(t, "pod-seating/") in text(oc.get(url(t)))


def test_a_pods_print_index_offers_the_first_round_still_being_played(
    oc: Client, owner: User
) -> None:
    t = services.create_tournament(name="Pod", owner=owner, seed=3, system=System.POD)
    services.register_players(tournament=t, names=["Ana", "Ben", "Cleo", "Dev"])
    services.pair_next_round(tournament=t)  # the whole schedule: rounds 1 to 3
    assert "<strong>Round 1</strong>" in text(oc.get(url(t)))
    for m in Match.objects.filter(round__tournament=t, round__number=1, kind=MatchKind.PLAYED):
        services.record_result(match=m, wins=(1, 0))  # a pod plays best of 1
    assert "<strong>Round 2</strong>" in text(oc.get(url(t)))
    assert "Pod · Round 2<" in text(oc.get(url(t, "slips/")))


def test_pod_seating_of_a_swiss_event_points_to_its_round_one_pairings(
    oc: Client, event: Tournament
) -> None:
    response = oc.get(url(event, "pod-seating/"))
    assert response.status_code == 404
    assert "round-1 pairings" in text(response)


def test_names_are_escaped_on_every_sheet(oc: Client, owner: User) -> None:
    t = swiss(owner, 3)
    services.register_players(tournament=t, names=["<script>alert(1)</script>"])
    services.pair_next_round(tournament=t)
    play_open_round(t)
    for tail in VIEWS[1:]:
        page = text(oc.get(url(t, tail)))
        assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_by_name_reads_the_whole_round_in_the_same_queries_at_any_size(
    oc: Client, owner: User
) -> None:
    counts = []
    for players in (6, 40):
        t = swiss(owner, players, name=f"Size {players}")
        services.pair_next_round(tournament=t)
        with CaptureQueriesContext(connection) as queries:
            assert oc.get(url(t, "pairings/by-name/")).status_code == 200
        counts.append(len(queries.captured_queries))
        seat_reads = [q for q in queries.captured_queries if 'FROM "tournaments_seat"' in q["sql"]]
        assert len(seat_reads) == 1  # seats, players and tables in one joined query
    assert counts[0] == counts[1]


# --- paper, layout, permissions, bad input ----------------------------------------------


def test_print_pages_have_no_site_header_or_organizer_menu_and_use_the_print_css(
    oc: Client, event: Tournament
) -> None:
    for tail in VIEWS:
        page = text(oc.get(url(event, tail)))
        assert 'class="site"' not in page and 'aria-label="Organizer"' not in page
        assert "/static/css/print.css" in page and "/static/css/app.css" not in page
        assert "<style" not in page and "<script>" not in page  # the CSP allows neither


def test_the_paper_choice_sets_letter_and_falls_back_to_a4(oc: Client, event: Tournament) -> None:
    letter = text(oc.get(url(event, "slips/?paper=letter")))
    assert '<html lang="en" class="paper-letter">' in letter
    assert '<a href="?paper=letter" aria-current="true">Letter</a>' in letter
    unknown = text(oc.get(url(event, "slips/?paper=tabloid")))
    assert '<html lang="en" class="paper-a4">' in unknown


def test_the_print_button_script_is_a_static_file_of_this_site(
    oc: Client, event: Tournament
) -> None:
    from django.contrib.staticfiles import finders

    script = finders.find("js/print.js")
    assert script and "window.print()" in Path(script).read_text(encoding="utf-8")
    assert '<script src="/static/js/print.js" defer>' in text(oc.get(url(event)))


@pytest.mark.parametrize("tail", ["pairings/by-name/", "pairings/by-table/", "slips/"])
@pytest.mark.parametrize("number", ["99", "²", "abc", "-1", "0"])
def test_a_round_that_does_not_exist_is_refused_with_a_message_naming_it(
    oc: Client, event: Tournament, tail: str, number: str
) -> None:
    response = oc.get(url(event, tail), {"round": number})
    assert response.status_code == 404
    assert f"There is no round &#x27;{number}&#x27; in this event" in text(response)


@pytest.mark.parametrize("tail", ["pairings/by-name/", "pairings/by-table/", "slips/"])
def test_a_round_sheet_before_round_one_says_nothing_is_paired(
    oc: Client, owner: User, tail: str
) -> None:
    response = oc.get(url(swiss(owner, 4), tail))
    assert response.status_code == 404
    assert "No round is paired yet" in text(response)


def test_only_the_events_managers_may_print(
    client: Client, event: Tournament, django_user_model: type[User]
) -> None:
    for tail in VIEWS:
        response = client.get(url(event, tail))
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    stranger = django_user_model.objects.create_user("stranger")
    client.force_login(stranger)
    assert client.get(url(event, "pairings/by-name/")).status_code == 403
    event.staff.add(stranger)
    assert client.get(url(event, "pairings/by-name/")).status_code == 200


def test_print_views_answer_get_only(oc: Client, event: Tournament) -> None:
    assert oc.post(url(event, "slips/")).status_code == 405


# --- HTMX -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tail", "section"),
    [
        ("", "print-index"),
        ("pairings/by-name/", "print-by-name"),
        ("pairings/by-table/", "print-by-table"),
        ("slips/", "print-slips"),
        ("standings/", "print-standings"),
    ],
)
def test_an_htmx_request_gets_the_sheet_the_page_includes_without_the_page_around_it(
    oc: Client, event: Tournament, tail: str, section: str
) -> None:
    full = oc.get(url(event, tail))
    partial = oc.get(url(event, tail), **HX)
    assert full.status_code == partial.status_code == 200
    assert text(partial).lstrip().startswith(f'<section id="{section}"')
    assert "<html" not in text(partial) and 'class="toolbar"' not in text(partial)
    assert text(partial).strip() in text(full)
    assert "HX-Request" in partial["Vary"]


def test_an_htmx_request_for_the_pod_seating_gets_its_sheet(oc: Client, owner: User) -> None:
    t = services.create_tournament(name="Pod", owner=owner, seed=3, system=System.POD)
    services.register_players(tournament=t, names=["Ana", "Ben", "Cleo", "Dev"])
    services.pair_next_round(tournament=t)
    assert oc.get(url(t, "pod-seating/")).status_code == 200
    partial = oc.get(url(t, "pod-seating/"), **HX)
    assert partial.status_code == 200
    assert text(partial).lstrip().startswith('<section id="print-pod-seating"')


def test_an_htmx_request_for_a_missing_round_gets_the_message_alone(
    oc: Client, event: Tournament
) -> None:
    response = oc.get(url(event, "slips/?round=99"), **HX)
    assert response.status_code == 404
    assert "There is no round" in text(response) and "<html" not in text(response)
