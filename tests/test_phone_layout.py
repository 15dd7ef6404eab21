"""The card at the top of a player's page (issue 13 item 3): my table, my opponent, my
result from my own side; a bye or a loss with no opponent says so; before round 1 it
waits, and with no table (dropped, out of the cut, the event over) it gives my place."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from django.test import Client

from tournaments import services
from tournaments.models import Match, MatchKind, Player, Tournament
from tournaments.pages import public
from tournaments.services import import_document

pytestmark = pytest.mark.django_db


@pytest.fixture
def event(small_doc: dict[str, Any]) -> Tournament:
    """small_doc plus round 3 being played: table 1 in (p1 beat p3 2-0), table 2 (p4 v
    p7) still playing, p5 has the bye, p6 a loss with no opponent, p2 dropped."""
    doc = copy.deepcopy(small_doc)
    doc["rounds"].append(
        {"number": 3, "matches": [
            {"table": 1, "players": ["p1", "p3"], "wins": [2, 0], "draws": 0},
            {"table": 2, "players": ["p4", "p7"]},
            {"table": 3, "players": ["p5"], "bye": True},
            {"table": 4, "players": ["p6"], "loss": True},
        ]}
    )  # fmt: skip
    return import_document(doc)


def card_of(t: Tournament, pid: str) -> dict[str, Any]:
    me = Player.objects.get(tournament=t, external_id=pid)
    return public.player(Tournament.objects.get(pk=t.pk), me)["card"]


def card_html(html: str) -> str:
    """The card's markup: from its opening tag to the </div> that closes it."""
    start = html.index('<div class="card my-card"')
    depth = 0
    for tag in re.finditer(r"<(/?)div\b", html[start:]):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return html[start : start + tag.end() + 1]
    raise AssertionError("the card is not closed")


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def test_a_player_still_playing_sees_their_table_and_opponent_and_no_result_yet(
    event: Tournament,
) -> None:
    card = card_of(event, "p7")
    assert card["state"] == "table" and str(card["label"]) == "Round 3"
    assert card["table"] == 2
    assert [o["player"].name for o in card["opponents"]] == ["Dev Rao"]
    assert card["reported"] is False and card["result"] == ""


def test_the_card_reads_the_result_from_the_second_seats_side(event: Tournament) -> None:
    assert card_of(event, "p3")["result"] == "loss 0-2"  # p1 won 2-0 in the first seat
    assert card_of(event, "p1")["result"] == "win 2-0"
    match = Match.objects.get(round__tournament=event, round__number=3, table=2)
    services.record_result(match=match, wins=(2, 1), draws=0)  # p4, first seat, wins
    loser = card_of(event, "p7")
    assert (loser["outcome"], loser["detail"], loser["table"]) == ("loss", "1-2", 2)
    assert card_of(event, "p4")["result"] == "win 2-1"


def test_a_bye_and_a_loss_with_no_opponent_say_so(event: Tournament) -> None:
    bye, loss = card_of(event, "p5"), card_of(event, "p6")
    assert bye["state"] == "bye" and bye["opponents"] == []
    assert loss["state"] == "loss"


def test_a_dropped_player_gets_their_standing_instead_of_a_table(event: Tournament) -> None:
    card = card_of(event, "p2")
    assert card["state"] == "standing" and card["final"] is False
    assert card["dropped"] == 2 and card["rank"] is not None and card["of"] == 7


def test_before_round_one_the_card_waits_for_the_pairing() -> None:
    t = services.create_tournament(name="Tonight", seed=1)
    services.register_players(tournament=t, names=["Ann", "Bob", "Cy"])
    assert card_of(t, Player.objects.get(tournament=t, name="Ann").external_id)["state"] == (
        "waiting"
    )


def test_after_the_event_the_card_gives_the_final_rank(small_doc: dict[str, Any]) -> None:
    t = import_document(copy.deepcopy(small_doc))
    services.finish(tournament=t)
    card = card_of(t, "p1")
    assert card["state"] == "standing" and card["final"] is True
    assert (card["rank"], card["of"], card["round"]) == (1, 7, None)


def finished_top_four() -> Tournament:
    t = services.create_tournament(name="Cut", seed=2, top_cut=4)
    services.register_players(tournament=t, names=[f"P{i}" for i in range(1, 9)])
    for _ in range(2):
        services.pair_next_round(tournament=t)
        for m in Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED, reported=False):
            services.record_result(match=m, wins=(2, 1))
    services.start_top_cut(tournament=t, size=4)
    for m in Match.objects.filter(round__tournament=t, round__playoff=True):
        services.record_result(match=m, wins=(2, 0))
    services.pair_next_round(tournament=t)
    final = Match.objects.filter(round__tournament=t, round__playoff=True).order_by("-id")[0]
    services.record_result(match=final, wins=(2, 0))
    services.finish(tournament=t)
    return Tournament.objects.get(pk=t.pk)


def test_after_a_top_cut_the_card_gives_the_bracket_place(client: Client) -> None:
    t = finished_top_four()
    final = Match.objects.filter(round__tournament=t, round__playoff=True).order_by("-id")[0]
    champion, finalist = (s.player for s in final.seats.order_by("position"))
    assert card_of(t, champion.external_id)["champion"] is True
    assert card_of(t, finalist.external_id)["place"] == "2nd"
    html = client.get(f"/t/{t.slug}/players/{champion.external_id}/").content.decode()
    assert "Champion" in text(card_html(html))


def test_the_player_page_shows_the_card_first_in_full_and_in_its_htmx_partial(
    client: Client, event: Tournament
) -> None:
    url = f"/t/{event.slug}/players/p7/"
    full = client.get(url)
    assert full.status_code == 200
    html = full.content.decode()
    assert "<html" in html and html.index("my-card") < html.index("<h2>Rounds</h2>")
    card = text(card_html(html))
    assert "Round 3" in card and "Table 2" in card and "Dev Rao" in card
    assert "Result not in yet" in card
    assert f'href="/t/{event.slug}/"' in html  # the event's name leads back to its home

    partial = client.get(url, HTTP_HX_REQUEST="true")
    assert partial.status_code == 200
    body = partial.content.decode()
    assert "<html" not in body and body.lstrip().startswith('<section id="player"')
    assert text(card_html(body)) == card


def test_the_card_in_the_htmx_partial_follows_a_new_result_from_the_players_side(
    client: Client, event: Tournament
) -> None:
    url = f"/t/{event.slug}/players/p7/"
    before = client.get(url, HTTP_HX_REQUEST="true")
    match = Match.objects.get(round__tournament=event, round__number=3, table=2)
    services.record_result(match=match, wins=(2, 1), draws=0)
    after = client.get(url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200
    card = card_html(after.content.decode())
    assert 'data-result="loss 1-2"' in card and "Result not in yet" not in card


def test_the_bye_card_and_the_dropped_card_render_in_plain_words(
    client: Client, event: Tournament
) -> None:
    bye = text(card_html(client.get(f"/t/{event.slug}/players/p5/").content.decode()))
    assert "Bye" in bye and "No opponent this round" in bye
    dropped = client.get(f"/t/{event.slug}/players/p2/", HTTP_HX_REQUEST="true")
    card = text(card_html(dropped.content.decode()))
    assert "Rank" in card and "of 7" in card and "dropped after round 2" in card
