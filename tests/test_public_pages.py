"""Public pages for phones: plain, HTMX partial, and 304 while nothing changed."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.test import Client

from tournaments import services
from tournaments.models import Match, Round
from tournaments.services import import_document

pytestmark = pytest.mark.django_db


@pytest.fixture
def event(small_doc: dict) -> Any:
    doc = copy.deepcopy(small_doc)
    # Round 3 in progress: one result in, one to come.
    doc["rounds"].append(
        {"number": 3, "matches": [
            {"table": 1, "players": ["p1", "p3"], "wins": [2, 0], "draws": 0},
            {"table": 2, "players": ["p4", "p7"]},
            {"table": 3, "players": ["p5"], "bye": True},
        ]}
    )  # fmt: skip
    return import_document(doc)


PAGES = [
    ("event_home", "", "event-home"),
    ("pairings", "pairings/", 'id="pairings"'),
    ("pairings by name", "pairings/?by=name", "by-name"),
    ("standings", "standings/", 'id="standings"'),
    ("player", "players/p1/", 'id="player"'),
    ("bracket", "bracket/", 'id="bracket"'),
    ("projector", "projector/", 'id="projector"'),
]


@pytest.mark.parametrize(("name", "path", "marker"), PAGES, ids=[p[0] for p in PAGES])
def test_each_public_page_renders_in_full_and_as_an_htmx_partial(
    client: Client, event: Any, name: str, path: str, marker: str
) -> None:
    url = f"/t/{event.slug}/{path}"
    full = client.get(url)
    assert full.status_code == 200
    assert "<html" in full.content.decode() and marker in full.content.decode()
    partial = client.get(url, HTTP_HX_REQUEST="true")
    assert partial.status_code == 200
    html = partial.content.decode()
    assert "<html" not in html and marker in html
    assert full["ETag"] != partial["ETag"]


@pytest.mark.parametrize(("name", "path", "marker"), PAGES, ids=[p[0] for p in PAGES])
def test_an_unchanged_page_is_answered_304_and_a_change_gives_a_new_page(
    client: Client, event: Any, name: str, path: str, marker: str
) -> None:
    url = f"/t/{event.slug}/{path}"
    first = client.get(url, HTTP_HX_REQUEST="true")
    again = client.get(url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again.content == b""
    match = Match.objects.get(round__tournament=event, round__number=3, table=2)
    services.record_result(match=match, wins=(2, 1), draws=0)
    changed = client.get(url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]


def test_pairings_show_tables_in_order_with_the_bye(client: Client, event: Any) -> None:
    html = client.get(f"/t/{event.slug}/pairings/").content.decode()
    assert html.index("Ana Souza") < html.index("Dev Rao") < html.index("Eva Lund")
    assert "bye" in html and "2-0" in html


def test_find_me_without_javascript_shows_my_table_and_opponent_in_large_type(
    client: Client, event: Any
) -> None:
    html = client.get(f"/t/{event.slug}/pairings/?by=name&q=dev").content.decode()
    assert "found-card" in html and "Table 2" in html and "Gil Ray" in html


def test_find_me_with_an_unknown_name_says_so(client: Client, event: Any) -> None:
    html = client.get(f"/t/{event.slug}/pairings/?by=name&q=zorro").content.decode()
    assert "Nobody called" in html


def test_earlier_rounds_can_be_viewed(client: Client, event: Any) -> None:
    html = client.get(f"/t/{event.slug}/pairings/?round=1").content.decode()
    assert "Round 1" in html or "round 1" in html
    assert "2-1" in html


def test_the_player_page_lists_every_round_and_links_to_the_explained_tiebreakers(
    client: Client, event: Any
) -> None:
    html = client.get(f"/t/{event.slug}/players/p1/").content.decode()
    assert "Ben Ito" in html and "Gil Ray" in html and "Cleo Park" in html
    link = f"/t/{event.slug}/tiebreakers/p1/"
    assert f'href="{link}" hx-get="{link}" hx-target="#tiebreakers"' in html
    assert 'id="tiebreakers"' in html and "How the tiebreakers are computed" not in html
    explained = client.get(link).content.decode()
    assert "How the tiebreakers are computed" in explained and "OMW%" in explained
    assert "Ben Ito" in explained and "Back to Ana Souza" in explained


def test_an_unknown_player_is_a_404(client: Client, event: Any) -> None:
    assert client.get(f"/t/{event.slug}/players/nobody/").status_code == 404


def test_the_event_home_shows_the_round_and_the_results_still_to_come(
    client: Client, event: Any
) -> None:
    html = client.get(f"/t/{event.slug}/").content.decode()
    assert "Round 3" in html and "1 result to come" in html


def test_a_running_clock_is_sent_as_its_end_time_for_the_phone_to_count_down(
    client: Client, event: Any
) -> None:
    round_ = Round.objects.get(tournament=event, number=3)
    services.start_clock(round=round_, minutes=50)
    html = client.get(f"/t/{event.slug}/", HTTP_HX_REQUEST="true").content.decode()
    assert "data-clock-ends=" in html
    services.pause_clock(round=round_)
    html = client.get(f"/t/{event.slug}/", HTTP_HX_REQUEST="true").content.decode()
    assert "Clock paused" in html and "49:5" in html


def test_the_qr_code_is_an_svg_of_the_event_home(client: Client, event: Any) -> None:
    response = client.get(f"/t/{event.slug}/qr.svg")
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    assert response.content.startswith(b'<svg xmlns="http://www.w3.org/2000/svg"')  # for <img>


def test_unknown_events_are_404_on_every_page(client: Client) -> None:
    for _, path, _ in PAGES:
        assert client.get(f"/t/nope/{path}").status_code == 404


def test_after_a_write_the_busiest_fragments_can_be_rendered_before_phones_ask(
    client: Client, event: Any, django_assert_max_num_queries: Any
) -> None:
    from tournaments import live

    event.refresh_from_db()
    live.warm_now(event.pk)
    # The standings partial now comes from the cache: only the tournament is looked up.
    with django_assert_max_num_queries(1):
        response = client.get(f"/t/{event.slug}/standings/", HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "Ana Souza" in response.content.decode()


def test_a_compressed_fragment_is_served_to_phones_that_accept_gzip(
    client: Client, event: Any
) -> None:
    import gzip

    response = client.get(
        f"/t/{event.slug}/standings/", HTTP_HX_REQUEST="true", HTTP_ACCEPT_ENCODING="gzip, br"
    )
    assert response["Content-Encoding"] == "gzip"
    assert "Ana Souza" in gzip.decompress(response.content).decode()


# --- the explanation of a player's tiebreakers (its own page) ---------------------------------


def _explain_table(html: str) -> str:
    """The explanation table of a player page (thead to tfoot)."""
    start = html.index('<table class="explain">')
    return html[start : html.index("</table>", start)]


def _two_day_doc() -> dict[str, Any]:
    """Eight players on Day 1 (rounds 1-3); p1, p2, p3 and p5 play Day 2 (rounds 4-5)."""

    def day(number: int, phase: int, *pairs: tuple[str, str, int, int]) -> dict[str, Any]:
        return {
            "number": number,
            "phase": phase,
            "matches": [
                {"table": k, "players": [a, b], "wins": [wa, wb], "draws": 0}
                for k, (a, b, wa, wb) in enumerate(pairs, start=1)
            ],
        }

    return {
        "format": "swiss-tournament/1",
        "name": "Two-day Open",
        "system": "mtr",
        "seed": 7,
        "players": [{"id": f"p{k}", "name": f"Player {k}"} for k in range(1, 9)],
        "rounds": [
            day(
                1, 1, ("p1", "p8", 2, 0), ("p2", "p7", 2, 0), ("p3", "p4", 2, 1), ("p5", "p6", 2, 0)
            ),
            day(
                2, 1, ("p1", "p5", 2, 1), ("p2", "p4", 2, 0), ("p3", "p6", 2, 0), ("p7", "p8", 2, 1)
            ),
            day(
                3, 1, ("p1", "p2", 2, 1), ("p3", "p5", 0, 2), ("p4", "p8", 2, 0), ("p6", "p7", 2, 0)
            ),
            day(4, 2, ("p1", "p3", 0, 2), ("p2", "p5", 2, 0)),
            day(5, 2, ("p1", "p5", 0, 2), ("p2", "p3", 2, 0)),
        ],
    }


def test_a_player_cut_after_day_one_sees_values_as_of_then_averaging_to_the_stored_omw(
    client: Client,
) -> None:
    from fractions import Fraction

    from scoring.engine.explain import OpponentTerm
    from scoring.models import Standing
    from scoring.services import edge, explanation
    from tournaments.models import Player

    t = import_document(_two_day_doc())
    p4 = Player.objects.get(tournament=t, external_id="p4")
    found = explanation(t, p4)
    assert found is not None and found.frozen and found.after_round == 3
    terms = [term for term in found.terms if isinstance(term, OpponentTerm)]
    stored = Standing.objects.get(player=p4).tiebreakers
    mean = sum((term.mw for term in terms), Fraction(0)) / len(terms)
    assert edge(mean) == stored["omw"]
    # p3 was 2-1 after Day 1 (6/9) and finished 3-2; the explanation uses the 6/9.
    assert (terms[0].opponent, terms[0].mw) == ("p3", Fraction(6, 9))

    html = client.get(f"/t/{t.slug}/tiebreakers/p4/").content.decode()
    assert "Values as they stood after round 3 (end of Day 1)" in html
    table = _explain_table(html)
    assert table.count("<tr>") == 1 + len(terms) + 1  # head, one per term, total
    assert "66.67%" in table and "60.00%" not in table  # p3 then, not p3 now
    omw = f"{stored['omw'] * 100:.2f}%"
    page = client.get(f"/t/{t.slug}/players/p4/").content.decode()
    assert f"<dd>{omw}</dd>" in page  # the stored value on the player's page ...
    assert f'<td class="num">{omw}</td>' in table.split("<tfoot>")[1]  # ... is the total


def test_a_player_who_made_day_two_is_explained_without_an_as_of_line(client: Client) -> None:
    t = import_document(_two_day_doc())
    html = client.get(f"/t/{t.slug}/tiebreakers/p3/").content.decode()
    assert "Values as they stood" not in html
    assert _explain_table(html).count("<tr>") == 2 + 5  # five opponents over two days


def test_the_htmx_partial_of_a_frozen_player_carries_the_explanation(client: Client) -> None:
    t = import_document(_two_day_doc())
    html = client.get(f"/t/{t.slug}/tiebreakers/p8/", HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in html and html.startswith('<section id="explanation">')
    assert "Values as they stood after round 3 (end of Day 1)" in html
    assert "<thead>" in _explain_table(html) and "<tfoot>" in _explain_table(html)


def test_a_pod_player_page_shows_what_each_game_adds_to_win_resistance(
    client: Client, pod7: dict[str, Any]
) -> None:
    t = import_document(pod7)
    html = client.get(f"/t/{t.slug}/tiebreakers/derek/").content.decode()
    table = _explain_table(html)
    assert "Win resistance" in client.get(f"/t/{t.slug}/players/derek/").content.decode()
    assert "round robin is complete" in html
    assert "Opp. win %" not in table  # skipped in a complete round robin
    # Derek beat Andy (4 wins), Tino (5), Mariano (2) and the bye (0): 11.
    for name, wr in (
        ("Andy Pettitte", "4.00"),
        ("Tino Martinez", "5.00"),
        ("Mariano Rivera", "2.00"),
    ):
        row = next(r for r in table.split("<tr>") if name in r)
        assert f'<td class="num">{wr}</td>' in row and "win" in row
    assert "<em>bye</em>" in table
    assert '<td class="num">11.00</td>' in table.split("<tfoot>")[1]


def test_a_league_player_page_shows_placement_points_for_each_game(client: Client) -> None:
    doc = {
        "format": "swiss-tournament/1",
        "name": "Board game league",
        "system": "league",
        "players": [{"id": p, "name": f"Player {p.upper()}"} for p in "abcde"],
        "rounds": [
            {"number": 1, "matches": [
                {"table": 1, "players": ["a", "b", "c", "d"], "places": [1, 2, 3, 4],
                 "scores": [140, 120, 100, 80]},
                {"table": 2, "players": ["e"], "bye": True},
            ]},
            {"number": 2, "matches": [
                {"table": 1, "players": ["c", "d", "a", "e"], "places": [1, 2, 3, 4],
                 "scores": [50, 40, 30, 20]},
                {"table": 2, "players": ["b"], "bye": True},
            ]},
        ],
    }  # fmt: skip
    t = import_document(doc)
    html = client.get(f"/t/{t.slug}/tiebreakers/a/").content.decode()
    table = _explain_table(html)
    rows = table.split("<tbody>")[1].split("</tbody>")[0].split("<tr>")[1:]
    # 1st of 4 (11 points, +27.27 on a mean of 110), then 3rd of 4 (4 points, -14.29).
    assert [c in rows[0] for c in ("1st", ">11<", "140.00", "110.00", "27.27")] == [True] * 5
    assert [c in rows[1] for c in ("3rd", ">4<", "30.00", "35.00", "-14.29")] == [True] * 5
    total = table.split("<tfoot>")[1]
    assert ">15<" in total and "1/0/1/0/0" in total and "170.00" in total and "12.99" in total
    # Another player's page of the same version, with the cache warm: their own table.
    bye = _explain_table(client.get(f"/t/{t.slug}/tiebreakers/b/").content.decode())
    assert "agreed bye" in bye


def test_two_players_pages_of_the_same_version_each_show_their_own_explanation(
    client: Client,
) -> None:
    t = import_document(_two_day_doc())
    first = client.get(f"/t/{t.slug}/tiebreakers/p4/").content.decode()
    second = client.get(f"/t/{t.slug}/tiebreakers/p3/").content.decode()
    assert "Values as they stood" in first
    assert "Values as they stood" not in second


def test_each_players_polled_partial_is_their_own_and_carries_its_own_etag(
    client: Client,
) -> None:
    t = import_document(_two_day_doc())
    pages = {}
    for pid in ("p4", "p3", "p4"):
        response = client.get(f"/t/{t.slug}/players/{pid}/", HTTP_HX_REQUEST="true")
        assert response.status_code == 200
        pages.setdefault(pid, []).append((response.content, response["ETag"]))
    (p4_body, p4_etag), (p4_again, p4_etag_again) = pages["p4"]
    ((p3_body, p3_etag),) = pages["p3"]
    assert p4_body == p4_again and p4_etag == p4_etag_again
    assert p3_body != p4_body and p3_etag != p4_etag
    assert b"/players/p3/" in p3_body and b"/players/p4/" in p4_body


@pytest.mark.parametrize(("name", "step"), [("melee-439208", 1), ("melee-438329", 7)])
def test_the_restricted_loader_explains_exactly_like_the_whole_event_on_a_real_event(
    name: str, step: int
) -> None:
    """Both events have a Day 2 cut, players who stopped early and a top 8; every `step`-th player is checked
    (all of the smaller one), each one against explain() on the whole event."""
    from scoring.engine.explain import explain
    from scoring.seats import read_neighbourhood
    from scoring.services import event_record, explanation, neighbourhood_record
    from tests.conftest import load_shared
    from tournaments.models import Player
    from tournaments.pages.event import read_seating

    t = import_document(load_shared(f"data/real/{name}.json"))
    whole = event_record(t)
    everyone = read_seating(t)  # what the phones' pages read once per version
    players = list(Player.objects.filter(tournament=t).order_by("id"))[::step]
    frozen = 0
    for player in players:
        hood = read_neighbourhood(t, player)
        assert everyone.neighbourhood(player) == hood, player.external_id
        part = neighbourhood_record(t, hood)
        assert len(part.players) < len(whole.players)
        found = explanation(t, player, hood)
        assert found == explain(whole, player.external_id), player.external_id
        assert found is not None
        frozen += found.frozen
    assert 0 < frozen < len(players)  # both frozen and Day 2 players are covered


def test_pairings_show_the_points_each_player_had_when_the_round_was_paired(
    client: Client,
) -> None:
    from tournaments import services
    from tournaments.models import Match

    t = services.create_tournament(name="Points Then", seed=4)
    services.register_players(tournament=t, names=[f"P{k}" for k in range(1, 9)])
    services.pair_next_round(tournament=t)
    for m in Match.objects.filter(round__tournament=t, round__number=1):
        services.record_result(match=m, wins=(2, 0))
    round_one = client.get(f"/t/{t.slug}/pairings/?round=1").content.decode()
    assert round_one.count("<small>(0)</small>") == 8  # paired at 0 points, results or not
    services.pair_next_round(tournament=t)
    round_two = client.get(f"/t/{t.slug}/pairings/?round=2").content.decode()
    assert round_two.count("<small>(3)</small>") == 4 and round_two.count("<small>(0)</small>") == 4


def test_an_imported_event_shows_the_points_before_each_round_in_its_pairings(
    client: Client, small_doc: dict
) -> None:
    import copy

    from tournaments.models import Seat

    t = import_document(copy.deepcopy(small_doc))
    # p1 won round 1 (2-1 over p2): round 2's pairing shows 3 points for p1, round 1's 0.
    seats = dict(
        Seat.objects.filter(round__tournament=t, player__external_id="p1").values_list(
            "round__number", "points_at_pairing"
        )
    )
    assert (seats[1], seats[2]) == (0, 3)
