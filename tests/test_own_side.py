"""Every result a player reads is from their own side: outcome word, their games first."""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tests.browser.conftest import (  # noqa: F401  (the fixtures, for the phone test)
    _pages_poll_the_live_server,
    browser,
)
from tests.conftest import REAL_EVENTS
from tournaments.interchange import parse_document
from tournaments.models import Tournament
from tournaments.rules import SideResult, result_from_side, result_text
from tournaments.services import import_document

# --- The wording itself (rules.result_from_side), on plain stand-ins -------------------


@dataclass(frozen=True)
class M:
    kind: str = "played"
    reported: bool = True
    draws: int = 0


@dataclass(frozen=True)
class S:
    games_won: int | None = None
    place: int | None = None
    absent: bool = False


def test_a_two_one_win_reads_win_2_1_for_the_winner_and_loss_1_2_for_the_loser() -> None:
    seats = [S(1), S(2)]
    assert result_from_side(M(), seats, 1).english == "win 2-1"
    # As data (issue 36): the pages say it from these fields, nothing reads the English.
    assert result_from_side(M(), seats, 1) == SideResult("win", score="2-1")
    assert result_from_side(M(), seats, 0).english == "loss 1-2"
    assert result_text(M(), seats) == "1-2"  # the seat-order text the by-table views keep


def test_a_player_who_lost_0_2_reads_loss_0_2_from_either_seat() -> None:
    assert result_from_side(M(), [S(0), S(2)], 0).english == "loss 0-2"
    assert result_from_side(M(), [S(2), S(0)], 1).english == "loss 0-2"


def test_draws_read_draw_with_the_drawn_games_last() -> None:
    assert result_from_side(M(draws=1), [S(1), S(1)], 1).english == "draw 1-1-1"
    assert result_from_side(M(draws=3), [S(0), S(0)], 0).english == "draw 0-0-3"


def test_byes_losses_double_losses_and_missing_results_have_their_own_words() -> None:
    assert result_from_side(M(kind="bye"), [S()], 0).english == "bye"
    assert result_from_side(M(kind="loss"), [S()], 0).english == "loss"
    assert result_from_side(M(kind="double_loss"), [S(0), S(0)], 1).english == "loss (double loss)"
    assert result_from_side(M(reported=False), [S(), S()], 0).english == "not reported"
    double = result_from_side(M(kind="double_loss"), [S(0), S(0)], 1)
    assert double == SideResult("loss", double_loss=True) and double.word == "loss"
    missing = result_from_side(M(reported=False), [S(), S()], 0)
    assert not missing.reported and missing.word == "not"  # the CSS class and the JSON's


def test_a_league_table_reads_the_players_place_among_those_who_played() -> None:
    seats = [S(place=2), S(place=1), S(absent=True), S(place=3)]
    assert result_from_side(M(kind="game"), seats, 0).english == "place 2 of 3"
    assert result_from_side(M(kind="game"), seats, 0) == SideResult("place", place=2, size=3)
    assert result_from_side(M(kind="game"), seats, 2).english == "absent"


# --- Every player page of every real event, against the document's games --------------


def expected_from_document(doc: dict[str, Any]) -> dict[str, dict[int, tuple[str, str]]]:
    """Per player id, per round: (own-side result, opponent's name), read from the
    document directly (not through the code under test)."""
    names = {p["id"]: p["name"] for p in doc["players"]}
    out: dict[str, dict[int, tuple[str, str]]] = {pid: {} for pid in names}
    for rnd in doc["rounds"]:
        for m in rnd["matches"]:
            players = m["players"]
            for i, pid in enumerate(players):
                opponent = names[players[1 - i]] if len(players) == 2 else ""
                if m.get("bye"):
                    text = "bye"
                elif m.get("loss"):
                    text = "loss"
                elif m.get("result") == "double_loss":
                    text = "loss (double loss)"
                elif "wins" not in m:
                    text = "not reported"
                else:
                    mine, theirs = m["wins"][i], m["wins"][1 - i]
                    word = "win" if mine > theirs else "loss" if mine < theirs else "draw"
                    draws = m.get("draws", 0)
                    text = f"{word} {mine}-{theirs}" + (f"-{draws}" if draws else "")
                out[pid][rnd["number"]] = (text, opponent)
    return out


MAX_PAGES = 300
ROW = re.compile(r'<tr data-round="(\d+)">(.*?)</tr>', re.S)
RESULT_CELL = re.compile(r'<td class="res" data-result="([^"]*)">(.*?)</td>', re.S)


def text_of(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def player_page_rows(page: str) -> dict[int, tuple[str, str, str]]:
    """Round number -> (data-result, the cell's visible text, the opponent cell's text)."""
    rounds_table = page.split("<h2>Rounds</h2>", 1)[1].split("</table>", 1)[0]
    rows = {}
    for number, row in ROW.findall(rounds_table):
        cell = RESULT_CELL.search(row)
        assert cell is not None, row
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        rows[int(number)] = (
            html.unescape(cell.group(1)),
            text_of(cell.group(2)),
            text_of(cells[2]),
        )
    return rows


def import_real(path: Path) -> tuple[dict[str, Any], Tournament]:
    doc = json.loads(path.read_text("utf-8"))
    return doc, import_document(parse_document(path.read_bytes()))


@pytest.mark.django_db
@pytest.mark.parametrize("path", REAL_EVENTS, ids=lambda p: p.stem)
def test_every_player_page_of_a_real_event_reads_each_result_from_that_players_side(
    client: Client, path: Path
) -> None:
    doc, t = import_real(path)
    expected = expected_from_document(doc)
    # Every page of every event but the 1,086-player one, where every 4th (about 50 s
    # for all of them on the 2-core machine); the by-name pairings test below reads all
    # its players in every round.
    stride = -(-len(expected) // MAX_PAGES)
    wrong = []
    for pid, rounds in list(expected.items())[::stride]:
        page = client.get(f"/t/{t.slug}/players/{pid}/")
        assert page.status_code == 200
        shown = player_page_rows(page.content.decode())
        assert sorted(shown) == sorted(rounds), f"{pid}: rounds {sorted(shown)}"
        for number, (want, opponent) in rounds.items():
            data, visible, opponent_cell = shown[number]
            if not (data == visible == want) or (opponent and opponent not in opponent_cell):
                wrong.append(
                    f"{pid} round {number}: {visible!r} vs {opponent_cell!r}, want {want!r}"
                )
    assert not wrong, f"{len(wrong)} results wrong, first: {wrong[:5]}"


BY_NAME_ROW = re.compile(
    r'<tr data-name="[^"]*" data-table="[^"]*" data-opponent="[^"]*" data-kind="[^"]*">'
    r'<th scope="row"[^>]*><a href="/t/[^/]+/players/([^"]+)/">.*?</a></th>'
    r'.*?<td class="res">(.*?)</td></tr>',
    re.S,
)


@pytest.mark.django_db
@pytest.mark.parametrize("path", REAL_EVENTS, ids=lambda p: p.stem)
def test_the_pairings_by_name_of_every_round_read_each_result_from_that_players_side(
    client: Client, path: Path
) -> None:
    from urllib.parse import unquote

    doc, t = import_real(path)
    expected = expected_from_document(doc)
    wrong = []
    for rnd in doc["rounds"]:
        number = rnd["number"]
        page = client.get(f"/t/{t.slug}/pairings/?round={number}&by=name").content.decode()
        rows = {unquote(pid): html.unescape(res) for pid, res in BY_NAME_ROW.findall(page)}
        want = {pid: r[number][0] for pid, r in expected.items() if number in r}
        assert set(rows) == set(want), f"round {number}: players differ"
        wrong += [f"{pid} round {number}: {rows[pid]!r}" for pid in want if rows[pid] != want[pid]]
    assert not wrong, f"{len(wrong)} results wrong, first: {wrong[:5]}"


@pytest.mark.django_db
def test_find_me_shows_one_card_with_my_table_opponent_and_my_own_result(
    client: Client,
) -> None:
    path = next(p for p in REAL_EVENTS if p.stem == "melee-418338")
    _doc, t = import_real(path)
    # Round 3, table 3: p4 (k4rma) beat p8 (MiguelPais) 2-1; p8 sat second.
    for name, result, opponent in (
        ("MiguelPais", "loss 1-2", "k4rma"),
        ("k4rma", "win 2-1", "MiguelPais"),
    ):
        for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
            page = client.get(
                f"/t/{t.slug}/pairings/?round=3&by=name&q={name}", **headers
            ).content.decode()
            assert page.count("found-card") == 1
            card = page.split("found-card", 1)[1].split("</div>", 1)[0]
            assert "Table 3" in card and opponent in card and result in text_of(card)
            # live.js draws its own card into #found: absent while this card is shown.
            assert 'id="found"' not in page


@pytest.mark.django_db
def test_pairings_by_name_without_a_search_leave_room_for_the_typed_find_me_card(
    client: Client,
) -> None:
    path = next(p for p in REAL_EVENTS if p.stem == "melee-418338")
    _doc, t = import_real(path)
    page = client.get(f"/t/{t.slug}/pairings/?by=name").content.decode()
    assert page.count('id="found"') == 1 and "found-card" not in page


@pytest.mark.django_db
def test_a_players_json_reads_every_round_from_their_side_on_a_real_event(
    client: Client,
) -> None:
    path = next(p for p in REAL_EVENTS if p.stem == "melee-387525")  # byes, losses, double losses
    doc, t = import_real(path)
    expected = expected_from_document(doc)
    for pid, rounds in expected.items():
        got = client.get(f"/t/{t.slug}/players/{pid}.json").json()
        assert {r["round"]: r["result"] for r in got["rounds"]} == {
            n: text for n, (text, _o) in rounds.items()
        }


# --- In a browser: live.js and the server's card never both show --------------------


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_pages_poll_the_live_server")
def test_find_me_in_a_phone_browser_shows_the_table_once_with_my_own_result(
    browser: Any,  # noqa: F811
    live_server: Any,
) -> None:
    path = next(p for p in REAL_EVENTS if p.stem == "melee-418338")
    _doc, t = import_real(path)
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    context.set_default_timeout(10_000)
    phone = context.new_page()
    try:
        phone.goto(f"{live_server.url}/t/{t.slug}/pairings/?round=3&by=name&q=MiguelPais")
        phone.wait_for_load_state("load")
        cards = phone.locator(".found-card")
        assert cards.count() == 1
        assert phone.get_by_text("Table 3", exact=True).count() == 1
        assert "loss 1-2" in cards.first.inner_text().lower()
        # Typing a new name on a page that has no server card: live.js draws one card.
        phone.goto(f"{live_server.url}/t/{t.slug}/pairings/?round=3&by=name")
        phone.fill("#find", "k4rm")
        assert phone.locator(".found-card").count() == 1
        assert "Table 3" in phone.locator(".found-card").inner_text()
    finally:
        context.close()
