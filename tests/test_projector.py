"""The projector (/t/<slug>/projector/): what it shows, in full and as an HTMX partial.

How rows are paged on a real screen is measured in a browser: tests/browser/test_projector.py.
"""

from __future__ import annotations

import copy

import pytest
from django.test import Client

from tests.helpers import paired_doc
from tournaments import services
from tournaments.models import Match, Round, Tournament
from tournaments.pages.projector import PAGE_TURN_MS, projector
from tournaments.rules import RoundName
from tournaments.services import import_document

pytestmark = pytest.mark.django_db


@pytest.fixture
def event(small_doc: dict) -> Tournament:
    """small_doc with round 3 in progress: one result in, one to come, a bye."""
    doc = copy.deepcopy(small_doc)
    doc["rounds"].append(
        {"number": 3, "matches": [
            {"table": 1, "players": ["p1", "p3"], "wins": [2, 0], "draws": 0},
            {"table": 2, "players": ["p4", "p7"]},
            {"table": 3, "players": ["p5"], "bye": True},
        ]}
    )  # fmt: skip
    return import_document(doc)


def test_an_open_round_shows_every_seated_player_by_name_with_table_and_opponent(
    event: Tournament,
) -> None:
    data = projector(event)
    assert data["mode"] == "pairings" and data["round_label"] == RoundName(3)
    assert [(r.name, r.table, r.opponent) for r in data["pairings"]] == [
        ("Ana Souza", 1, "Cleo Park"),
        ("Cleo Park", 1, "Ana Souza"),
        ("Dev Rao", 2, "Gil Ray"),
        ("Eva Lund", 3, "bye"),
        ("Gil Ray", 2, "Dev Rao"),
    ]


def test_the_page_lists_every_row_once_in_alphabetical_order_with_the_round_and_qr_code(
    client: Client, event: Tournament
) -> None:
    response = client.get(f"/t/{event.slug}/projector/")
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('<li class="proj-row">') == 5
    names = ["Ana Souza", "Cleo Park", "Dev Rao", "Eva Lund", "Gil Ray"]
    positions = [html.index(f'<span class="proj-name">{n}</span>') for n in names]
    assert positions == sorted(positions)
    assert "Round 3 pairings" in html
    assert f'src="/t/{event.slug}/qr.svg"' in html
    assert 'data-turn-ms="12000"' in html and PAGE_TURN_MS == 12000
    assert "js/projector.js" in html and "css/projector.css" in html


def test_an_htmx_poll_gets_the_fragment_that_polls_itself_without_the_page_around_it(
    client: Client, event: Tournament
) -> None:
    response = client.get(f"/t/{event.slug}/projector/", HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html and 'id="projector"' in html
    assert f'hx-get="/t/{event.slug}/projector/"' in html and 'hx-swap="outerHTML"' in html
    assert html.count('<li class="proj-row">') == 5
    assert "qr.svg" not in html  # the image stays on the page, fetched once


def test_the_round_clock_shows_while_the_round_runs(client: Client, event: Tournament) -> None:
    services.start_clock(round=Round.objects.get(tournament=event, number=3), minutes=50)
    html = client.get(f"/t/{event.slug}/projector/", HTTP_HX_REQUEST="true").content.decode()
    assert 'class="proj-clock"' in html and "data-clock-ends=" in html


def test_standings_replace_the_pairings_once_every_result_is_in(
    client: Client, event: Tournament
) -> None:
    match = Match.objects.get(round__tournament=event, round__number=3, table=2)
    services.record_result(match=match, wins=(2, 1), draws=0)
    data = projector(event)
    assert data["mode"] == "standings" and data["clock"] is None
    assert data["pairings"] == [] and len(data["standings"]) == 7
    assert [r.rank for r in data["standings"]] == sorted(r.rank for r in data["standings"])
    html = client.get(f"/t/{event.slug}/projector/").content.decode()
    assert "Standings after round 3" in html and "proj-standings" in html
    assert html.count('<span class="proj-name">') == 7 + 1  # seven players and the heading


def test_before_round_1_the_projector_lists_the_players_registered_by_name(
    client: Client,
) -> None:
    doc = paired_doc(12)
    doc["rounds"] = []
    t = import_document(doc)
    data = projector(t)
    assert data["mode"] == "players" and data["players"] == sorted(data["players"])
    assert len(data["players"]) == 12
    html = client.get(f"/t/{t.slug}/projector/").content.decode()
    assert "12 players registered · waiting for round 1" in html
    assert html.count('<li class="proj-row">') == 12


def test_a_poll_after_a_result_gets_new_data_and_an_unchanged_one_gets_304(
    client: Client, event: Tournament
) -> None:
    url = f"/t/{event.slug}/projector/"
    first = client.get(url, HTTP_HX_REQUEST="true")
    again = client.get(url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    services.record_result(
        match=Match.objects.get(round__tournament=event, round__number=3, table=2),
        wins=(2, 1),
        draws=0,
    )
    changed = client.get(url, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and "proj-standings" in changed.content.decode()


def test_names_are_escaped_on_the_projector(client: Client) -> None:
    doc = paired_doc(4)
    doc["players"][0]["name"] = "<script>alert(1)</script>"
    t = import_document(doc)
    html = client.get(f"/t/{t.slug}/projector/").content.decode()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_an_interval_in_the_query_string_is_left_to_the_browser_and_never_an_error(
    client: Client, event: Tournament
) -> None:
    for interval in ["500", "abc", "-1", "9" * 40]:
        assert client.get(f"/t/{event.slug}/projector/?interval={interval}").status_code == 200


def test_an_unknown_event_has_no_projector(client: Client) -> None:
    assert client.get("/t/no-such-event/projector/").status_code == 404


def test_a_300_player_round_is_sent_whole_for_the_screen_to_page(client: Client) -> None:
    t = import_document(paired_doc(301))
    html = client.get(f"/t/{t.slug}/projector/", HTTP_HX_REQUEST="true").content.decode()
    assert html.count('<li class="proj-row">') == 301
    assert "bye" in html
