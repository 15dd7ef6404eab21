"""Public pages for phones: plain, HTMX partial, and 304 while nothing changed."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.test import Client

from tournaments import services
from tournaments.interchange import import_document
from tournaments.models import Match, Round

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


def test_the_player_page_lists_every_round_and_explains_the_tiebreakers(
    client: Client, event: Any
) -> None:
    html = client.get(f"/t/{event.slug}/players/p1/").content.decode()
    assert "Ben Ito" in html and "Gil Ray" in html and "Cleo Park" in html
    assert "How the tiebreakers are computed" in html
    assert "OMW%" in html


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
