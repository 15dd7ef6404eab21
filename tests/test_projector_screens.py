"""The projector on big screens and during the top cut (issue 26 items 4 and 5).

The server does not page: projector.js measures the rows against the screen (the
browser tests, tests/browser/test_projector_4k.py, count the pages at 1080p and 4K).
What is checked here is the contract the script and the style sheet keep with the page:
the text size each screen gets, names that are never split inside a word, and the
bracket the projector draws during the top cut, in full and as an HTMX partial.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tests.conftest import PROJECT_ROOT
from tournaments import services
from tournaments.models import Match, Tournament
from tournaments.pages.projector import projector
from tournaments.services import import_document

pytestmark = pytest.mark.django_db

CSS = PROJECT_ROOT / "static" / "css" / "projector.css"
JS = PROJECT_ROOT / "static" / "js" / "projector.js"


def name_size(width: float, height: float, css: Path = CSS) -> float:
    """The names' size in px on a width x height screen, from projector.css's formula
    (`clamp(lo, min(A vh + B px, C vw + D px), hi)`)."""
    text = css.read_text()
    found = re.search(
        r"--name-base:\s*calc\(clamp\((\d+)px,\s*min\(([\d.]+)vh \+ ([\d.]+)px,\s*"
        r"([\d.]+)vw \+ ([\d.]+)px\),\s*(\d+)px\)",
        text,
    )
    assert found, "projector.css: --name-base is not the formula this test reads"
    lo, a, b, c, d, hi = (float(x) for x in found.groups())
    return max(lo, min(hi, min(a * height / 100 + b, c * width / 100 + d)))


@pytest.fixture
def cut(small_doc: dict[str, Any]) -> Tournament:
    """small_doc's two rounds, then a top 4: the semifinals paired, table 1 decided."""
    t = import_document(copy.deepcopy(small_doc))
    services.start_top_cut(tournament=t, size=4)
    first = Match.objects.filter(round__tournament=t, round__playoff=True).order_by("table")[0]
    services.record_result(match=first, wins=(2, 1), draws=0)
    return Tournament.objects.get(pk=t.pk)


def test_a_4k_screen_gets_text_under_twice_the_size_of_1080p_so_it_shows_more_rows() -> None:
    at_1080p, at_4k = name_size(1920, 1080), name_size(3840, 2160)
    assert 27 <= at_1080p <= 30  # as before: read from the back of a hall on a projector
    assert at_4k <= 1.3 * at_1080p  # was 2x: the 1080p page scaled up
    # Rows a page go with the square of the screen over the text: over twice as many.
    assert (2 * at_1080p / at_4k) ** 2 >= 2.3


def test_names_wrap_at_spaces_or_end_in_an_ellipsis_never_inside_a_word() -> None:
    css = CSS.read_text()
    assert "anywhere" not in css and "break-all" not in css
    rule = re.search(r"^\.proj-name \{([^}]*)\}", css, re.MULTILINE)
    assert rule and "text-overflow: ellipsis" in rule.group(1)
    assert "overflow-wrap: normal" in rule.group(1)


def test_a_short_list_is_made_larger_to_fill_the_screen_and_the_text_size_is_the_screens() -> None:
    js = JS.read_text()
    # The script scales the board's text (--proj-scale) and the screen's (+/-, kept).
    assert "--proj-scale" in js and "function enlarge(" in js
    assert "--text-scale" in js and "localStorage" in js
    css = CSS.read_text()
    assert "var(--proj-scale, 1)" in css and "var(--text-scale, 1)" in css


def test_during_the_top_cut_the_projector_shows_the_bracket_with_tables_and_seeds(
    cut: Tournament,
) -> None:
    data = projector(cut)
    assert data["mode"] == "bracket" and data["bracket_games"] == 2
    labels = [label for label, _games in data["bracket"]]
    assert [str(label) for label in labels] == ["Semifinals", "Final"]
    semis = data["bracket"][0][1]
    assert [g["match"].table for g in semis] == [1, 2]
    assert [g["seeds"] for g in semis] == [[1, 4], [2, 3]]
    assert semis[0]["winner"] is not None and semis[1]["winner"] is None
    # The final, not paired yet, is drawn empty: the winners of tables 1 and 2 meet.
    assert data["bracket"][1][1] == [{"pending": (1, 2)}]
    assert data["rows_html"] == ""


def test_the_bracket_page_names_each_games_table_seeds_and_players(
    client: Client, cut: Tournament
) -> None:
    response = client.get(f"/t/{cut.slug}/projector/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" in html and 'class="proj-bracket" data-games="2"' in html
    assert "Top 4 · Semifinals" in html
    assert html.count('<div class="proj-bgame">') == 2
    assert "Table <strong>1</strong>" in html and "Table <strong>2</strong>" in html
    assert html.count('<span class="sr-only">seed </span>') == 4
    assert "Winner of table 1" in html and "Winner of table 2" in html
    assert 'class="proj-winner"' in html and 'class="proj-out"' in html
    names = services_names(cut)
    for name in names:
        assert f'<span class="proj-bname">{name}</span>' in html
    assert "data-proj-rows" not in html  # nothing for projector.js to page


def test_an_htmx_poll_during_the_top_cut_gets_the_bracket_fragment(
    client: Client, cut: Tournament
) -> None:
    response = client.get(f"/t/{cut.slug}/projector/", HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html and html.lstrip().startswith('<section id="projector"')
    assert 'data-screen="bracket-' in html
    assert "Table <strong>1</strong>" in html and "Winner of table 2" in html


def services_names(t: Tournament) -> list[str]:
    """The four players of the cut, as seated."""
    return list(
        Match.objects.filter(round__tournament=t, round__playoff=True)
        .order_by("table")
        .values_list("seats__player__name", flat=True)
    )
