"""A player's private page is their home (issue 25 item 2) and says chances in plain words
(item 6): what it shows at each stage of an event, plain and for htmx; its live sections
and their ETags; a simulated figure never worded as a proven one.

The first screen on a phone is tested in tests/browser/test_private_home.py.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.test import Client

from scoring import outlooks
from scoring.models import Standing
from tests.helpers import play_swiss, play_to_top_cut_round
from tournaments import live, services
from tournaments.models import Entry, Match, MatchKind, Player, Seat, Tournament
from tournaments.pages.bracket import placings
from tournaments.services import registration as reg
from tournaments.services.registration import issue_link

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
STATUS = {**HX, "HTTP_HX_TARGET": "private-status"}
OUTLOOK = {**HX, "HTTP_HX_TARGET": "private-outlook"}
BOTH = pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])


def club(players: int = 16) -> Tournament:
    t = services.create_tournament(name="Club Night", seed=7, top_cut=8, planned_rounds=3)
    services.register_players(tournament=t, names=[f"Player {k:02}" for k in range(players)])
    return t


def loser_of(t: Tournament, playoff_round: int) -> Player:
    """The loser of the first match of the top cut's `playoff_round` (1: quarterfinals)."""
    numbers = sorted(
        set(
            Match.objects.filter(round__tournament=t, round__playoff=True).values_list(
                "round__number", flat=True
            )
        )
    )
    match = (
        Match.objects.filter(round__tournament=t, round__number=numbers[playoff_round - 1])
        .order_by("table")
        .first()
    )
    assert match is not None
    return match.seats.order_by("games_won").first().player  # type: ignore[union-attr]


def text(response: Any) -> str:
    """The response's words, tags and spaces collapsed."""
    html = response.content.decode()
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace(" ,", ",")


def home(client: Client, token: str, headers: dict[str, str]) -> str:
    response = client.get(f"/p/{token}/", **headers)
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"
    assert ("<html" in response.content.decode()) is not bool(headers)
    return text(response)


# --- Item 2: what the home shows --------------------------------------------------------------


@BOTH
def test_the_home_shows_round_table_opponent_record_points_and_rank(
    client: Client, headers: dict[str, str]
) -> None:
    t = club()
    play_swiss(t, 1)
    services.pair_next_round(tournament=t)
    seat = (
        Seat.objects.filter(
            match__round__number=2, match__round__tournament=t, match__kind=MatchKind.PLAYED
        )
        .select_related("player", "match")
        .order_by("match__table", "position")
        .first()
    )
    assert seat is not None
    me = seat.player
    opponent = Seat.objects.filter(match=seat.match).exclude(player=me).get().player
    standing = Standing.objects.get(player=me)
    page = home(client, issue_link(player=me), headers)
    record = f"{standing.wins}-{standing.losses}-{standing.draws}"
    expected = (
        f"Round 2 Table {seat.match.table} vs {opponent.name} "
        f"Record {record} · {int(standing.points)} points"
    )
    assert expected in page, page
    assert f"rank {standing.rank} of 16" in page
    assert (
        f'href="/t/{t.slug}/players/{me.external_id}/"'
        in client.get(f"/p/{issue_link(player=me)}/", **headers).content.decode()
    )


@BOTH
def test_before_any_result_the_home_gives_no_rank_from_a_tie_of_everyone(
    client: Client, headers: dict[str, str]
) -> None:
    t = club()
    services.pair_next_round(tournament=t)
    me = Player.objects.filter(tournament=t).order_by("pk").last()
    page = home(client, issue_link(player=me), headers)
    assert "Round 1 Table" in page
    assert "Record 0-0-0 · 0 points · no rank before your first result" in page
    assert "rank 1" not in page and " of 16" not in page


@BOTH
def test_the_entry_header_says_the_entry_is_accepted_never_you_are_in(
    client: Client, owner: Any, headers: dict[str, str]
) -> None:
    t = services.create_tournament(name="Open Modern", owner=owner, seed=5)
    reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=True, check_in=False, by=owner
    )
    ana, token = reg.register_self(tournament=t, name="Ana Lopez")
    assert "waits for the organizer" in home(client, token, headers)
    reg.accept_entry(player=ana, by=owner)
    page = home(client, token, headers)
    assert "Entry accepted" in page and "You are in" not in page


@BOTH
@pytest.mark.parametrize(
    ("stage", "words"),
    [
        (1, "Eliminated in the quarterfinal (5th-8th)"),
        (2, "Eliminated in the semifinal (3rd-4th)"),
        (3, "Eliminated in the final (2nd)"),
    ],
    ids=["quarterfinal", "semifinal", "final"],
)
def test_a_player_out_of_the_top_cut_reads_the_round_and_the_places_it_gives(
    client: Client, headers: dict[str, str], stage: int, words: str
) -> None:
    t = club()
    play_to_top_cut_round(t, stage)
    if stage < 3:
        services.pair_next_round(tournament=t)  # the next round is on: they have no table
    page = home(client, issue_link(player=loser_of(t, stage)), headers)
    assert words in page and "Swiss record" in page
    assert "Champion" not in page


@BOTH
def test_the_champion_reads_champion_and_once_finished_everyone_their_final_place(
    client: Client, headers: dict[str, str]
) -> None:
    t = club()
    play_to_top_cut_round(t, 3)
    order = placings(t)
    champion = Player.objects.get(tournament=t, external_id=order[0]["id"])
    seventh = Player.objects.get(tournament=t, external_id=order[6]["id"])
    twelfth = Player.objects.get(tournament=t, standing__rank=12)
    tokens = {p.pk: issue_link(player=p) for p in (champion, seventh, twelfth)}
    assert "Final Champion" in home(client, tokens[champion.pk], headers)
    services.finish(tournament=t)
    assert "Champion" in home(client, tokens[champion.pk], headers)
    seventh_page = home(client, tokens[seventh.pk], headers)
    assert "Finished 7th of 16" in seventh_page and "out in the quarterfinal" in seventh_page
    assert "Finished 12th of 16" in home(client, tokens[twelfth.pk], headers)


def test_the_report_form_comes_before_what_do_i_need_and_the_drop_comes_last(
    client: Client,
) -> None:
    t = club()
    play_swiss(t, 2)
    services.pair_next_round(tournament=t)
    outlooks.compute_now(tournament_id=t.pk)
    me = Seat.objects.filter(match__round__number=3, match__round__tournament=t).first().player  # type: ignore[union-attr]
    for headers in ({}, HX):
        html = client.get(f"/p/{issue_link(player=me)}/", **headers).content.decode()
        ids = [
            "private-status",
            "report-panel",
            "private-outlook",
            "private-link-title",
            "drop-panel",
        ]
        at = [html.index(f'id="{name}"') for name in ids]
        assert at == sorted(at), ids
        assert 'class="report-form"' in html[at[1] : at[2]]
        assert "What do I need?" in html[at[2] : at[3]]


# --- Item 2: the live sections and what their ETags cover ------------------------------------


def test_each_live_section_answers_alone_for_htmx_and_a_pending_entry_gets_the_card(
    client: Client, owner: Any
) -> None:
    t = club(4)
    services.pair_next_round(tournament=t)
    me = Player.objects.filter(tournament=t).first()
    token = issue_link(player=me)
    status = client.get(f"/p/{token}/", **STATUS)
    assert status.content.decode().startswith('<section id="private-status"')
    assert f'data-live="/t/{t.slug}/live/?player={me.external_id}' in status.content.decode()
    assert status["ETag"] and status["Cache-Control"] == "private, no-store"
    needs = client.get(f"/p/{token}/", **OUTLOOK)
    assert needs.content.decode().startswith('<section id="private-outlook"')
    again = client.get(f"/p/{token}/", **STATUS, HTTP_IF_NONE_MATCH=status["ETag"])
    assert again.status_code == 304 and again["ETag"] == status["ETag"]
    # Any other target (the page's Refresh link: the whole card) gets the card.
    card = client.get(f"/p/{token}/", **HX, HTTP_HX_TARGET="private-card")
    assert card.content.decode().lstrip().startswith('<section id="private-card"')
    Player.objects.filter(pk=me.pk).update(entry=Entry.PENDING)
    pending = client.get(f"/p/{token}/", **STATUS)
    assert pending.content.decode().lstrip().startswith('<section id="private-card"')
    assert 'id="private-status"' not in pending.content.decode()


def test_a_rank_moved_by_another_tables_result_moves_the_section_its_etag_and_its_stream(
    client: Client, settings: Any
) -> None:
    """The section follows the player's public page's stream (`player:<id>`, the digest
    pages.public.player_depends): another table's result that moves the player's rank
    must move that digest, so the phone is told, and the section, its ETag and the
    version it names (?at=) with it."""
    settings.LIVE_PREWARM = True
    t = club()
    play_swiss(t, 1)
    services.pair_next_round(tournament=t)
    me = (
        Seat.objects.filter(match__round__number=2, match__round__tournament=t)
        .order_by("-match__table")
        .first()
        .player
    )  # type: ignore[union-attr]
    token = issue_link(player=me)
    live.warm_now(t.pk)
    before = client.get(f"/p/{token}/", **STATUS)
    digest = live.digests(Tournament.objects.get(pk=t.pk))
    rank = Standing.objects.get(player=me).rank
    mine = Seat.objects.get(player=me, match__round__number=2).match_id
    others = Match.objects.filter(round__tournament=t, round__number=2, kind=MatchKind.PLAYED)
    for match in others.exclude(pk=mine).order_by("table"):
        services.record_result(match=match, wins=(2, 0))
        if Standing.objects.get(player=me).rank != rank:
            break
    else:
        pytest.fail("no other table's result moved this player's rank")
    live.warm_now(t.pk)
    now = live.digests(Tournament.objects.get(pk=t.pk))
    pid = me.external_id
    assert now[f"own:{pid}"] == digest[f"own:{pid}"]  # not their match: no urgent word
    assert now[f"player:{pid}"] != digest[f"player:{pid}"]  # but their stream is told
    after = client.get(f"/p/{token}/", **STATUS, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    new_rank = Standing.objects.get(player=me).rank
    assert f"rank <strong data-rank>{new_rank}</strong>" in after.content.decode()
    version = live.subject_version(Tournament.objects.get(pk=t.pk), "player", pid)
    assert f"&amp;at={version}" in after.content.decode()
    assert f"&amp;at={version}" not in before.content.decode()


# --- Item 6: plain words for chances ----------------------------------------------------------


def test_a_figure_every_simulation_agreed_on_reads_as_simulated_never_as_certain() -> None:
    assert outlooks.chance_text({"hits": 199, "runs": 199}) == (
        "very likely (199 of 199 simulated finishes)"
    )
    assert outlooks.chance_text({"hits": 0, "runs": 1200}) == (
        "very unlikely (0 of 1,200 simulated finishes)"
    )
    # Only a proof says "for sure"; a figure with hits in between keeps its margin.
    assert outlooks.chance_text("in") == "in for sure"
    assert outlooks.chance_text("out") == "out for sure"
    answer = {
        "certain": None,
        "needs": None,
        "result": None,
        "chance_after": {
            "win": "in",
            "draw": {"hits": 199, "runs": 199},
            "loss": {"hits": 124, "runs": 200},
        },
        "chance": {"hits": 190, "runs": 200},
    }
    words = outlooks.answer_words(answer, cut=8, after=0)
    texts = [c["text"] for c in words["chances"]]
    assert texts[0] == "in for sure"
    assert texts[1] == "very likely (199 of 199 simulated finishes)"
    assert texts[2].startswith("62 % (± ")
    assert not any("in all" in t or ("for sure" in t and t != "in for sure") for t in texts)


def card(answer: dict[str, Any], **header: Any) -> str:
    outlook = {
        "state": "ready", "round": 3, "cut": 8, "rounds_after": 0, "simulations": 200,
        "model": "MODEL: each game a coin toss.", "has_data": True, "computing": False,
        "updating": False, "poll": None, "answer": outlooks.answer_words(answer, cut=8, after=0),
        **header,
    }  # fmt: skip
    html = render_to_string("tournaments/_outlook.html", {"outlook": outlook})
    return re.sub(r"\s+", " ", html)


def test_what_do_i_need_says_its_answer_in_two_lines_and_keeps_the_model_behind_a_disclosure() -> (
    None
):
    chances = {
        "certain": None, "needs": "win", "result": None,
        "chance_after": {"win": "in", "draw": {"hits": 30, "runs": 200}, "loss": {"hits": 0, "runs": 200}},
        "chance": {"hits": 120, "runs": 200},
    }  # fmt: skip
    html = card(chances)
    folded = html[html.index("<details") : html.index("</details>")]
    shown = html.replace(folded, "")
    assert "A win puts you in the top 8 whatever the other tables do" in shown
    assert "Chance of the top 8 after a win: in for sure, draw: 15 % (± " in shown
    assert "loss: very unlikely (0 of 200 simulated finishes)" in shown
    assert "MODEL" not in shown and "MODEL" in folded
    assert "From 200 simulations" in folded and "<summary" in folded
    assert "Simulated chances, not certainties" in folded
    proven = {"certain": "in", "needs": None, "result": None, "chance_after": {}, "chance": "in"}
    html = card(proven)
    folded = html[html.index("<details") : html.index("</details>")]
    assert "In the top 8 whatever happens" in html.replace(folded, "")
    assert "No simulation needed" in folded and "double loss" in folded


def test_the_private_page_never_says_in_all_n_simulations(client: Client) -> None:
    t = club()
    play_swiss(t, 2)
    services.pair_next_round(tournament=t)
    row = outlooks.compute_now(tournament_id=t.pk)
    assert row is not None
    for player in Player.objects.filter(tournament=t):
        page = home(client, issue_link(player=player), {})
        assert "What do I need?" in page
        assert not re.search(r"in (all|none of) [\d,]+ simulations", page)
