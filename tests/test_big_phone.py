"""Big events on a phone (issue 25 item 5): a search in the standings, the player's own
row marked in the standings around them, whole words in the pairings by name, tables
and seeds in the bracket. Each page plain (no JavaScript) and as its htmx partial."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.conftest import load_shared
from tournaments.models import Tournament
from tournaments.services import import_document

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
# 1,086 players, 14 Swiss rounds and a top 8 (tables and seeds in its bracket).
BIG = "data/real/melee-438329.json"


def shown_rows(html: str) -> list[str]:
    """The standings rows a browser shows: the hidden ones left out."""
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = re.findall(r"<tr[^>]*>.*?</tr>", body, re.S)
    return [row for row in rows if " hidden" not in row.split(">", 1)[0]]


def row_names(rows: list[str]) -> list[str]:
    return [re.search(r'<th scope="row"><a [^>]*>([^<]*)</a>', row)[1] for row in rows]  # type: ignore[index]


@pytest.fixture
def big() -> Tournament:
    return import_document(load_shared(BIG))


# --- (a) the standings' search ------------------------------------------------------


def test_the_standings_page_has_a_find_form_that_works_without_javascript(
    client: Client, event: Tournament
) -> None:
    html = client.get(f"/t/{event.slug}/standings/").content.decode()
    form = re.search(
        r'<form method="get" action="([^"]+)"[^>]*role="search">(.*?)</form>', html, re.S
    )
    assert form is not None and form[1] == f"/t/{event.slug}/standings/"
    assert 'name="q"' in form[2] and 'type="submit"' in form[2]
    # With JavaScript the same input filters the rows as the player types (live.js).
    assert 'id="find"' in form[2] and 'data-filter="#standings tbody tr"' in form[2]


def test_a_search_shows_only_the_matching_rows_on_the_plain_page(
    client: Client, event: Tournament
) -> None:
    response = client.get(f"/t/{event.slug}/standings/?q=lund")
    html = response.content.decode()
    assert response.status_code == 200 and "<html" in html
    assert row_names(shown_rows(html)) == ["Eva Lund"]
    assert html.count("<tr") == 1 + 7  # every row is sent: the script can widen the search
    assert '1 player matches "lund".' in html
    assert 'value="lund"' in html  # the finder keeps what was asked


def test_a_search_in_the_htmx_partial_hides_the_other_rows_and_refetches_itself(
    client: Client, event: Tournament
) -> None:
    response = client.get(f"/t/{event.slug}/standings/?q=A", **HX)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    # Case does not matter: Ana Souza, Cleo Park, Dev Rao, Eva Lund, Gil Ray.
    assert sorted(row_names(shown_rows(html))) == [
        "Ana Souza", "Cleo Park", "Dev Rao", "Eva Lund", "Gil Ray",
    ]  # fmt: skip
    assert '5 players match "A".' in html
    assert f'hx-get="/t/{event.slug}/standings/?q=A"' in html


@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "htmx"])
def test_a_search_that_finds_nobody_says_so_and_links_to_all_players(
    client: Client, event: Tournament, headers: dict[str, str]
) -> None:
    html = client.get(f"/t/{event.slug}/standings/?q=zorro", **headers).content.decode()
    assert shown_rows(html) == []
    assert 'Nobody called "zorro" in the standings.' in html
    assert f'<a href="/t/{event.slug}/standings/">All 7 players</a>' in html


@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "htmx"])
def test_a_standings_search_is_rendered_for_its_request_alone_and_kept_by_no_cache(
    client: Client, event: Tournament, headers: dict[str, str]
) -> None:
    from django.core.cache import cache

    client.get(f"/t/{event.slug}/standings/", **headers)
    before = len(cache._cache)  # type: ignore[attr-defined]
    for n in range(20):
        response = client.get(f"/t/{event.slug}/standings/?q=zorro{n}", **headers)
        assert response.status_code == 200
        assert response["Cache-Control"] == "private, no-cache"
    assert len(cache._cache) == before  # type: ignore[attr-defined]
    plain = client.get(f"/t/{event.slug}/standings/", **headers)
    assert plain["Cache-Control"].startswith("public")


def test_a_standings_search_is_sent_to_its_canonical_url(client: Client, event: Tournament) -> None:
    moved = client.get(f"/t/{event.slug}/standings/?q=%20lund%20&junk=1")
    assert moved.status_code == 301 and moved["Location"] == f"/t/{event.slug}/standings/?q=lund"


def test_a_search_beside_me_searches_the_whole_table_and_keeps_my_row_marked(
    client: Client, event: Tournament
) -> None:
    html = client.get(f"/t/{event.slug}/standings/?me=p4&q=a", **HX).content.decode()
    rows = shown_rows(html)
    assert len(rows) == 5 and "All 7 players" in html
    mine = [row for row in rows if 'aria-current="true"' in row]
    assert row_names(mine) == ["Dev Rao"]
    assert client.get(f"/t/{event.slug}/standings/?me=nobody&q=a").status_code == 404


def test_a_search_on_a_thousand_player_standings_finds_one_row(
    client: Client, big: Tournament
) -> None:
    html = client.get(f"/t/{big.slug}/standings/?q=JanPlachy").content.decode()
    assert html.count("<tr") == 1 + 1086
    assert row_names(shown_rows(html)) == ["JanPlachy"]


# --- (b) the player's own row -------------------------------------------------------


@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "htmx"])
def test_the_standings_around_me_mark_my_row_as_the_current_one(
    client: Client, event: Tournament, headers: dict[str, str]
) -> None:
    html = client.get(f"/t/{event.slug}/standings/?me=p5", **headers).content.decode()
    marked = re.findall(r'<tr class="me" aria-current="true">.*?</tr>', html, re.S)
    assert len(marked) == 1 and "Eva Lund" in marked[0]
    assert html.count('aria-current="true"') == 1
    whole = client.get(f"/t/{event.slug}/standings/", **headers).content.decode()
    assert "aria-current" not in whole and 'class="me"' not in whole
    if not headers:
        # Around me the finder searches the whole table when sent: no live filter of the
        # few rows shown, which would miss everyone else.
        assert "data-filter=" not in html and 'name="q"' in html


def test_the_own_row_has_a_visible_style() -> None:
    from tests.conftest import PROJECT_ROOT

    css = (PROJECT_ROOT / "static/css/app.css").read_text()
    rule = re.search(r"tbody tr\.me \{([^}]*)\}", css)
    assert rule is not None and "background" in rule[1] and "font-weight: 700" in rule[1]


# --- (c) names in the pairings by name ------------------------------------------------


@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "htmx"])
def test_each_name_in_the_pairings_by_name_carries_the_full_name_in_a_title(
    client: Client, playing_event: Tournament, headers: dict[str, str]
) -> None:
    html = client.get(f"/t/{playing_event.slug}/pairings/?by=name", **headers).content.decode()
    assert '<th scope="row" title="Dev Rao"><a ' in html
    assert '<td title="Gil Ray">Gil Ray</td>' in html  # Dev Rao's opponent


# --- (d) the bracket ----------------------------------------------------------------


@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "htmx"])
def test_the_phone_bracket_shows_each_matchs_table_and_each_players_seed(
    client: Client, big: Tournament, headers: dict[str, str]
) -> None:
    html = client.get(f"/t/{big.slug}/bracket/", **headers).content.decode()
    games = re.findall(r'<div class="bracket-game">(.*?)</div>', html, re.S)
    assert len(games) == 4 + 2 + 1
    seen: list[tuple[str, list[tuple[str, str]]]] = []
    for game in games:
        table = re.search(r'<p class="bracket-table">Table (\d+)</p>', game)
        assert table is not None
        seats = re.findall(
            r'<span class="seed"><span class="sr-only">seed </span>(\d+)</span>'
            r'<a class="bracket-name" [^>]*>([^<]*)</a>',
            game,
        )
        seen.append((table[1], [(name, seed) for seed, name in seats]))
    assert seen[:4] == [
        ("1", [("JanPlachy", "1"), ("quelgoblino", "8")]),
        ("2", [("Giovanni Favetta", "4"), ("Andrea Feltrin", "5")]),
        ("3", [("Dario Boniburini", "2"), ("Taddy99", "7")]),
        ("4", [("ManM23", "3"), ("MatS129", "6")]),
    ]
    # Later rounds keep each player's seed from the cut.
    assert seen[-1] == ("1", [("JanPlachy", "1"), ("Giovanni Favetta", "4")])
    assert "Final match 1, table 1" in html  # the match's label says where it is played


def test_a_bracket_match_without_a_table_says_so(client: Client, big: Tournament) -> None:
    from tournaments.models import Match

    Match.objects.filter(round__tournament=big, round__number=17).update(table=None)
    Tournament.objects.filter(pk=big.pk).update(version=big.version + 1)
    html = client.get(f"/t/{big.slug}/bracket/").content.decode()
    assert '<p class="bracket-table">Table not set</p>' in html
