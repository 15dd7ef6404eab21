"""The top cut reads as a top cut (issue 26 item 4).

During the playoffs the organizer's screens name the round as the bracket does
(Quarterfinals, Semifinals, Final), never "playoff round 6" or "round 6";
/manage/rounds/N/ of a playoff round opens that round's screen. Once the playoffs decide
them, the standings (public page, the organizer's standings screen, the event screen's
leaders, print, projector, CSV and JSON) carry each player's finish (1st, 2nd, 3rd-4th,
5th-8th) above the Swiss order, and whether they dropped; the phones' standings' ETag
moves when a finish does.
"""

from __future__ import annotations

import csv
import io
import json
import re
from html import unescape
from html.parser import HTMLParser
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from tests.helpers import fresh, stored_standings, swiss_doc
from tournaments import live, services
from tournaments.models import Match, Player, Tournament

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
BOTH = pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])

QUARTERFINALS, SEMIFINALS, FINAL = 4, 5, 6  # the playoff rounds after three Swiss rounds
STAGES = pytest.mark.parametrize(
    ("name", "number"),
    [("Quarterfinals", QUARTERFINALS), ("Semifinals", SEMIFINALS), ("Final", FINAL)],
)
# Ten players, three Swiss rounds (the first seat wins 2-1): a top 8 leaves two out.
SWISS = [
    "p1-p2 p3-p4 p5-p6 p7-p8 p9-p10",
    "p1-p3 p5-p7 p9-p2 p4-p6 p8-p10",
    "p1-p5 p3-p9 p2-p4 p6-p8 p7-p10",
]


@pytest.fixture
def cut(owner: User) -> Tournament:
    """Ten players, three Swiss rounds, the top 8 paired: four quarterfinals to play."""
    doc = swiss_doc("Cut Names", SWISS, players=10, seed=5)
    t = services.import_document(doc, owner=owner)
    services.start_top_cut(tournament=t, size=8, by=owner)
    return fresh(t)


def seats(t: Tournament, number: int, table: int = 1) -> list[Player]:
    """The players of a match (first seat first)."""
    match = Match.objects.get(round__tournament=t, round__number=number, table=table)
    return [s.player for s in match.seats.select_related("player").order_by("position")]


def decide(t: Tournament, number: int, *, first_wins: bool) -> None:
    for m in Match.objects.filter(round__tournament=t, round__number=number, reported=False):
        services.record_result(match=m, wins=(2, 1) if first_wins else (1, 2))


def play(t: Tournament, number: int) -> None:
    """One playoff round as the tests play it: upsets, so that finishes and the Swiss
    order differ. The quarterfinals' top seed drops (conceding); the other low seeds win
    there and in the semifinals; the final goes to its first seat."""
    if number == QUARTERFINALS:
        services.drop_player(player=seats(t, QUARTERFINALS)[0])
    decide(t, number, first_wins=number == FINAL)


def reach(t: Tournament, number: int) -> Tournament:
    """The playoffs paired up to round `number`, its matches without results."""
    for earlier in range(QUARTERFINALS, number):
        play(t, earlier)
        services.pair_next_round(tournament=t)
    return fresh(t)


def finished(t: Tournament, owner: User) -> Tournament:
    """The whole top cut played and the event finished."""
    t = reach(t, FINAL)
    play(t, FINAL)
    services.finish(tournament=t, by=owner)
    return fresh(t)


def text(response: Any) -> str:
    """A page's words, tags dropped and spaces collapsed."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", response.content.decode(), flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def manage(t: Tournament, name: str = "manage_event", *args: Any) -> str:
    return reverse(name, args=[t.slug, *args])


class Rows(HTMLParser):
    """The cells' text of each row of a page's table bodies."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.body = False
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag == "tbody":
            self.body = True
        elif tag == "tr" and self.body:
            self.rows.append([])
        elif tag in ("td", "th") and self.body and self.rows:
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "tbody":
            self.body = False
        elif tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def table_rows(html: str) -> list[list[str]]:
    parser = Rows()
    parser.feed(html)
    return [row for row in parser.rows if row]


def expected_finishes(t: Tournament) -> list[tuple[str, str]]:
    """(finish, name) of the top 8 as the bracket played decides them, best first; those
    knocked out together by their Swiss seed (the bracket's first round: seed 1 meets 8,
    4 meets 5, 2 meets 7, 3 meets 6)."""
    seeds = {}
    for table, pair in enumerate(((1, 8), (4, 5), (2, 7), (3, 6)), start=1):
        for player, seed in zip(seats(t, QUARTERFINALS, table), pair, strict=True):
            seeds[player.name] = seed
    winner, finalist = (p.name for p in seats(t, FINAL))  # the final's first seat won

    def losers(number: int, tables: int) -> list[str]:
        # The quarterfinals' top seed conceded; every other match there and in the
        # semifinals went to its second seat.
        out = [seats(t, number, k)[0].name for k in range(1, tables + 1)]
        return sorted(out, key=seeds.__getitem__)

    return [
        ("1st", winner),
        ("2nd", finalist),
        *(("3rd-4th", name) for name in losers(SEMIFINALS, 2)),
        *(("5th-8th", name) for name in losers(QUARTERFINALS, 4)),
    ]


# --- Item 4: the organizer's screens name the playoff round -----------------------------


@STAGES
@BOTH
def test_the_event_screen_names_the_playoff_round_being_played(
    oc: Client, cut: Tournament, name: str, number: int, headers: dict[str, str]
) -> None:
    t = reach(cut, number)
    page = text(oc.get(manage(t), **headers))
    assert f"Round clock · {name}" in page
    assert f"Undo the pairing of the {name}" in page
    assert f"· {name} ·" in page  # the status line
    assert f"round {number}" not in page.lower()
    after = {QUARTERFINALS: "round 3", SEMIFINALS: "the Quarterfinals", FINAL: "the Semifinals"}
    assert f"After {after[number]} · 10 players" in page


@BOTH
def test_pairing_the_next_playoff_round_says_which_it_is(
    oc: Client, cut: Tournament, headers: dict[str, str]
) -> None:
    play(cut, QUARTERFINALS)
    page = text(oc.get(manage(cut), **headers))
    assert "Pair the Semifinals" in page
    response = oc.post(manage(cut, "manage_pair"), follow=True, **headers)
    assert "The Semifinals are paired." in text(response)
    play(cut, SEMIFINALS)
    assert "Pair the Final" in text(oc.get(manage(cut), **headers))
    response = oc.post(manage(cut, "manage_pair"), follow=True, **headers)
    page = text(response)
    assert "The Final is paired." in page and "Playoff round" not in page


@BOTH
def test_undoing_a_playoff_pairing_names_the_round(
    oc: Client, cut: Tournament, headers: dict[str, str]
) -> None:
    t = reach(cut, FINAL)
    response = oc.post(manage(t, "manage_undo"), follow=True, **headers)
    assert "The pairing of the Final is undone." in text(response)
    assert "Undo the pairing of the Semifinals" not in text(response)  # it has results


@BOTH
def test_a_refusal_to_pair_names_the_playoff_round_missing_results(
    oc: Client, cut: Tournament, headers: dict[str, str]
) -> None:
    # Two browser tabs: the pair button of one, sent after the other paired.
    t = reach(cut, SEMIFINALS)
    response = oc.post(manage(t, "manage_pair"), **headers)
    assert response.status_code == 422
    assert "The Semifinals still have 2 result(s) missing" in text(response)


@STAGES
@BOTH
def test_the_standings_screen_says_which_playoff_round_it_follows(
    oc: Client, cut: Tournament, name: str, number: int, headers: dict[str, str]
) -> None:
    t = reach(cut, number)
    play(t, number)
    page = text(oc.get(manage(t, "manage_standings"), **headers))
    assert f"Standings after the {name} · 10 players" in page


@BOTH
def test_the_round_clock_names_the_playoff_round(
    oc: Client, cut: Tournament, headers: dict[str, str]
) -> None:
    t = reach(cut, SEMIFINALS)
    response = oc.post(
        manage(t, "manage_clock"), {"action": "start", "minutes": "50"}, follow=True, **headers
    )
    page = text(response)
    assert "Round clock · Semifinals" in page and "round 5" not in page.lower()


@STAGES
@BOTH
def test_a_playoff_rounds_address_opens_its_screen_under_its_name(
    oc: Client, cut: Tournament, name: str, number: int, headers: dict[str, str]
) -> None:
    t = reach(cut, number)
    response = oc.get(manage(t, "manage_round", number), **headers)
    assert response.status_code == 200
    html = response.content.decode()
    if headers:
        assert html.startswith('<section id="bracket-panel"')  # the panel htmx swaps in
    else:
        assert f"<title>{name} · Cut Names</title>" in html
        assert f"Cut Names · {name}" in text(response)
    # Its results are entered there: one-click buttons on each of its open matches.
    assert f'id="playoff-{number}" aria-label="{name}" aria-current="true"' in html
    matches = {QUARTERFINALS: 4, SEMIFINALS: 2, FINAL: 1}[number]
    assert html.count(f'aria-label="{name} ') == 4 * matches  # 2-0, 2-1, 1-2, 0-2 each
    # A Swiss round keeps its round screen; a round not paired is still not found.
    assert oc.get(manage(t, "manage_round", 3), **headers).status_code == 200
    assert oc.get(manage(t, "manage_round", number + 1), **headers).status_code == 404


def test_a_playoff_matchs_screen_names_its_round_and_leads_back_to_it(
    oc: Client, cut: Tournament
) -> None:
    t = reach(cut, FINAL)
    final = Match.objects.get(round__tournament=t, round__number=FINAL)
    response = oc.get(manage(t, "manage_match", final.pk))
    page = text(response)
    assert "Table 1, Final" in page and "round 6" not in page.lower()
    back = manage(t, "manage_round", FINAL)
    assert f'href="{back}#match-{final.pk}"' in response.content.decode()
    assert oc.get(back).status_code == 200


@BOTH
def test_the_players_screen_says_a_player_dropped_after_the_quarterfinals(
    oc: Client, cut: Tournament, headers: dict[str, str]
) -> None:
    dropped = seats(cut, QUARTERFINALS)[0]
    t = reach(cut, SEMIFINALS)
    page = text(oc.get(manage(t, "manage_players"), **headers))
    assert "Dropped after the Quarterfinals" in page and "Dropped after round" not in page
    assert Player.objects.get(pk=dropped.pk).dropped_after_round == QUARTERFINALS


# --- Final standings: the finish above the Swiss order, and the drop ---------------------


def finish_rows(html: str) -> list[tuple[str, str]]:
    """(finish, name) of each standings row: rank, finish, then the player's cell."""
    return [(row[1], row[2].removesuffix(" (dropped)")) for row in table_rows(html)]


@BOTH
def test_the_public_standings_rank_the_top_cut_by_finish_with_the_drop_flagged(
    client: Client, cut: Tournament, owner: User, headers: dict[str, str]
) -> None:
    t = finished(cut, owner)
    html = client.get(f"/t/{t.slug}/standings/", **headers).content.decode()
    assert ">Finish</th>" in html
    rows = finish_rows(html)
    assert rows[:8] == expected_finishes(t)
    assert [finish for finish, _name in rows[8:]] == ["", ""]  # outside the cut
    assert "After the Final · 10 players" in unescape(re.sub(r"<[^>]+>", "", html))
    dropped = seats(t, QUARTERFINALS)[0].name
    assert f"{dropped}</a> <small>(dropped)</small>" in html


@BOTH
def test_the_organizers_standings_screen_and_event_screen_rank_the_top_cut_by_finish(
    oc: Client, cut: Tournament, owner: User, headers: dict[str, str]
) -> None:
    t = finished(cut, owner)
    expected = expected_finishes(t)
    screen = oc.get(manage(t, "manage_standings"), **headers).content.decode()
    assert finish_rows(screen)[:8] == expected
    assert "Final standings after the Final" in text(oc.get(manage(t, "manage_standings")))
    board = oc.get(manage(t), **headers).content.decode()
    top = board[board.index('id="standings-top"') :]
    assert ">Finish</th>" in top
    assert finish_rows(top[: top.index("</table>")])[:8] == expected


def test_the_printed_standings_rank_the_top_cut_by_finish(
    oc: Client, cut: Tournament, owner: User
) -> None:
    t = finished(cut, owner)
    html = oc.get(reverse("print_standings", args=[t.slug])).content.decode()
    sheet = html[html.index('id="print-standings"') :]
    assert finish_rows(sheet)[:8] == expected_finishes(t)
    assert "After the Final" in text(oc.get(reverse("print_standings", args=[t.slug])))


def test_the_projectors_standings_carry_the_finish_and_the_drop(
    client: Client, cut: Tournament, owner: User
) -> None:
    t = finished(cut, owner)
    html = client.get(f"/t/{t.slug}/projector/").content.decode()
    row = r'<li class="proj-row[^"]*"><span class="proj-rank">\d+</span><span class="proj-name">'
    names = re.findall(row + r'(.*?)</span><span class="proj-points">', html)
    shown = [re.sub(r" <small.*", "", n) for n in names]
    finishes = [m.group(1) if (m := re.search(r'proj-finish">([^<]+)<', n)) else "" for n in names]
    assert len(names) == 10
    assert list(zip(finishes, shown, strict=True))[:8] == expected_finishes(t)
    dropped = seats(t, QUARTERFINALS)[0].name
    assert f"{dropped} <small" in html and "(dropped)" in html
    assert "Standings after the Final" in text(client.get(f"/t/{t.slug}/projector/"))


def test_the_standings_csv_has_finish_and_dropped_columns(
    client: Client, cut: Tournament, owner: User
) -> None:
    t = finished(cut, owner)
    body = client.get(f"/t/{t.slug}/standings.csv").content.decode()
    rows = list(csv.DictReader(io.StringIO(body)))
    assert body.splitlines()[0].startswith("rank,id,name,points")  # the old columns stay
    assert body.splitlines()[0].endswith(",finish,dropped")
    assert [(r["finish"], r["name"]) for r in rows[:8]] == expected_finishes(t)
    assert [r["finish"] for r in rows[8:]] == ["", ""]
    dropped = seats(t, QUARTERFINALS)[0].external_id
    assert {r["id"] for r in rows if r["dropped"] == "yes"} == {dropped}
    assert {r["dropped"] for r in rows} == {"yes", "no"}


def test_the_standings_json_has_finish_and_dropped_fields(
    client: Client, cut: Tournament, owner: User
) -> None:
    t = finished(cut, owner)
    doc = client.get(f"/t/{t.slug}/standings.json").json()
    rows = doc["standings"]
    assert [(r["finish"], r["name"]) for r in rows[:8]] == expected_finishes(t)
    assert [r["finish"] for r in rows[8:]] == [None, None]
    dropped = seats(t, QUARTERFINALS)[0].external_id
    assert [r["id"] for r in rows if r["dropped"] is True] == [dropped]
    assert all(isinstance(r["dropped"], bool) for r in rows)
    assert {"rank", "id", "name", "points", "wins", "losses", "draws", "tiebreakers"} <= set(
        rows[0]
    )


def test_the_command_line_prints_the_same_finishes(cut: Tournament, owner: User) -> None:
    from django.core.management import call_command

    t = finished(cut, owner)
    out = io.StringIO()
    call_command("standings", t.slug, "--format", "json", stdout=out)
    assert [r["finish"] for r in json.loads(out.getvalue())["standings"][:2]] == ["1st", "2nd"]


def test_before_the_top_cut_the_exports_say_no_finish_and_no_column_shows(
    client: Client, cut: Tournament
) -> None:
    services.undo_round(tournament=cut)  # back to the Swiss rounds alone
    rows = client.get(f"/t/{cut.slug}/standings.json").json()["standings"]
    assert {r["finish"] for r in rows} == {None}
    assert ">Finish</th>" not in client.get(f"/t/{cut.slug}/standings/").content.decode()


def test_during_the_cut_the_knocked_out_carry_their_finish_and_the_rest_none_yet(
    client: Client, cut: Tournament
) -> None:
    t = reach(cut, SEMIFINALS)
    rows = client.get(f"/t/{t.slug}/standings.json").json()["standings"]
    finishes = [r["finish"] for r in rows]
    # The four still playing first (no finish yet), then the quarterfinals' losers.
    assert finishes[:8] == [None] * 4 + ["5th-8th"] * 4
    assert finishes[8:] == [None, None]


# --- The phones' standings follow a finish ----------------------------------------------


def recorded(t: Tournament) -> None:
    """What the hub (live.warm_soon) does in the background after a write: record which
    tracked pages changed (their ETags then move only with what they show)."""
    live.refresh(t.pk)


def poll(client: Client, url: str, etag: str = "") -> Any:
    return client.get(url, **HX, **({"HTTP_IF_NONE_MATCH": etag} if etag else {}))


@pytest.mark.parametrize("query", ["", "?me=p9"], ids=["whole table", "around a player"])
def test_the_standings_etag_changes_with_the_finals_result(
    client: Client, cut: Tournament, query: str
) -> None:
    t = reach(cut, FINAL)
    recorded(t)
    url = f"/t/{t.slug}/standings/{query}"
    before = poll(client, url)
    play(t, FINAL)
    recorded(t)
    after = poll(client, url, before["ETag"])
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    winner, finalist = (p.name for p in seats(t, FINAL))
    assert finish_rows(after.content.decode())[:2] == [("1st", winner), ("2nd", finalist)]


@pytest.mark.parametrize("query", ["", "?me=p9"], ids=["whole table", "around a player"])
def test_a_finish_moves_the_standings_etag_even_when_no_stored_row_moves(
    client: Client, cut: Tournament, query: str
) -> None:
    # The better seeds win: the second semifinal's loser stays where the Swiss order had
    # them, the standings stay after the Semifinals; only their finish appears.
    decide(cut, QUARTERFINALS, first_wins=True)
    services.pair_next_round(tournament=cut)
    t = fresh(cut)
    first, second = (Match.objects.get(round__tournament=t, round__number=SEMIFINALS, table=k)
                     for k in (1, 2))  # fmt: skip
    services.record_result(match=first, wins=(2, 0))
    recorded(t)
    url = f"/t/{t.slug}/standings/{query}"
    before = poll(client, url)
    rows = stored_standings(t)
    services.record_result(match=second, wins=(2, 0))
    recorded(t)
    assert stored_standings(t) == rows
    after = poll(client, url, before["ETag"])
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    loser = seats(t, SEMIFINALS, 2)[1].name
    assert ("3rd-4th", loser) in finish_rows(after.content.decode())
