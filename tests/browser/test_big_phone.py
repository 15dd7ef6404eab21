"""A 1,086-player event on a phone (390 x 844, issue 25 item 5): a search that brings a
player's row onto the first screen with JavaScript on and off, the player's own row
marked, names in the pairings by name never split inside a word, a bracket that says
where each match is played and who is seeded what.

Screenshots go to test-artifacts/big-phone-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from scoring.models import Standing
from tests.browser.conftest import ARTIFACTS
from tests.conftest import load_shared
from tournaments.models import Tournament
from tournaments.services import import_document

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
BIG = "data/real/melee-438329.json"  # 1,086 players, 14 Swiss rounds, a top 8

# Each word of each name in the pairings by name, as laid out: a word split across two
# lines has client rects on two lines. A hyphen joins two words ("Gavin-Verhey" may end a
# line after "Gavin-"). Also what the cells' style allows.
SPLIT_WORDS = """() => {
  const split = [], styles = new Set();
  const cells = document.querySelectorAll(
    "#pairings table.by-name tbody th[scope=row] a, #pairings table.by-name tbody td:nth-child(3)");
  for (const cell of cells) {
    const style = getComputedStyle(cell);
    styles.add(style.wordBreak + "/" + style.overflowWrap);
    const text = cell.firstChild;
    if (!text || text.nodeType !== Node.TEXT_NODE) continue;
    const re = /[^\\s-]+/g;
    let m;
    while ((m = re.exec(text.data))) {
      const range = document.createRange();
      range.setStart(text, m.index);
      range.setEnd(text, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (tops.size > 1) split.push(m[0] + " in " + text.data);
    }
  }
  return {split: split, styles: [...styles], cells: cells.length};
}"""


@pytest.fixture
def big() -> Tournament:
    return import_document(load_shared(BIG))


def phone_context(
    browser: Any, live_server: Any, *, javascript: bool = True, locale: str = "en-US"
) -> Any:
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, java_script_enabled=javascript,
        locale=locale,
    )  # fmt: skip
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.base_url = live_server.url  # type: ignore[attr-defined]
    return page


@pytest.fixture
def phone(browser: Any, live_server: Any) -> Iterator[Any]:
    page = phone_context(browser, live_server)
    yield page
    page.context.close()


@pytest.fixture
def plain_phone(browser: Any, live_server: Any) -> Iterator[Any]:
    page = phone_context(browser, live_server, javascript=False)
    yield page
    page.context.close()


def shot(page: Any, name: str, *, full: bool = False) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"big-phone-{name}.png"), full_page=full)


def no_sideways_scroll(page: Any) -> None:
    assert page.evaluate("document.scrollingElement.scrollWidth") == PHONE["width"]


def low_ranked(t: Tournament) -> tuple[str, str]:
    """(name, id) of the player 1,000th in the standings: 60,000 px down the whole table."""
    row = Standing.objects.select_related("player").get(tournament=t, position=1000)
    return row.player.name, row.player.external_id


def on_first_screen(locator: Any) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]


def test_typing_a_name_brings_their_row_onto_the_first_screen_of_a_thousand_players(
    phone: Any, big: Tournament
) -> None:
    name, pid = low_ranked(big)
    phone.goto(f"{phone.base_url}/t/{big.slug}/standings/")
    rows = phone.locator("#standings tbody tr:not([hidden])")
    assert rows.count() == 1086
    height = phone.evaluate("document.scrollingElement.scrollHeight")
    phone.locator("#find").press_sequentially(name.lower(), delay=10)
    row = phone.locator(f'#standings tbody tr:not([hidden]):has(a[href$="/players/{pid}/"])')
    row.wait_for()
    assert rows.count() < 5 and on_first_screen(row)
    assert phone.evaluate("document.scrollingElement.scrollHeight") < height / 20
    no_sideways_scroll(phone)
    shot(phone, "standings-search")
    # A live refresh of the table (a result elsewhere) keeps the search applied.
    phone.evaluate("document.getElementById('standings').dataset.old = '1'")
    phone.evaluate("htmx.trigger('#standings', 'live')")
    phone.locator("#standings:not([data-old])").wait_for(state="attached")
    row.wait_for()
    assert rows.count() < 5 and on_first_screen(row)


def test_without_javascript_the_search_form_finds_the_row_on_the_first_screen(
    plain_phone: Any, big: Tournament
) -> None:
    name, pid = low_ranked(big)
    plain_phone.goto(f"{plain_phone.base_url}/t/{big.slug}/standings/")
    plain_phone.fill("#find", name)
    plain_phone.press("#find", "Enter")
    plain_phone.wait_for_url("**/standings/?q=*")
    row = plain_phone.locator(f'#standings tbody tr:has(a[href$="/players/{pid}/"])')
    assert row.is_visible() and on_first_screen(row)
    assert plain_phone.locator("#standings tbody tr:visible").count() < 5
    assert "match" in plain_phone.locator("#standings [data-search]").inner_text()
    no_sideways_scroll(plain_phone)
    shot(plain_phone, "standings-search-no-js")


def test_the_standings_around_me_mark_my_row_in_colour_and_for_screen_readers(
    phone: Any, big: Tournament
) -> None:
    name, pid = low_ranked(big)
    phone.goto(f"{phone.base_url}/t/{big.slug}/standings/?me={pid}")
    mine = phone.locator('#standings tbody tr[aria-current="true"]')
    assert mine.count() == 1 and name in mine.inner_text()
    other = phone.locator("#standings tbody tr:not([aria-current]):not(.gap)").last
    look = "(el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).fontWeight]"
    assert mine.evaluate(look) != other.evaluate(look)
    assert mine.evaluate(look)[1] == "700"
    no_sideways_scroll(phone)
    shot(phone, "standings-around-me")


def test_no_name_in_the_pairings_by_name_is_split_inside_a_word(
    phone: Any, big: Tournament
) -> None:
    phone.goto(f"{phone.base_url}/t/{big.slug}/pairings/?round=1&by=name")
    assert phone.locator("#pairings tbody tr").count() == 1086
    found = phone.evaluate(SPLIT_WORDS)
    assert found["cells"] >= 2 * 1086 - 100  # names and opponents (byes have none)
    assert found["split"] == []
    assert not any(s.startswith("break-all") or "anywhere" in s for s in found["styles"])
    # A word wider than its column ends in an ellipsis; the cell's title has it whole.
    cut = phone.evaluate(
        """() => [...document.querySelectorAll("#pairings table.by-name tbody th[scope=row] a")]
          .filter((a) => a.scrollWidth > a.clientWidth)
          .map((a) => [a.textContent, a.parentElement.title,
                       getComputedStyle(a).textOverflow])"""
    )
    assert cut, "the event's longest names should need an ellipsis at 390 px"
    assert all(text == title and how == "ellipsis" for text, title, how in cut)
    no_sideways_scroll(phone)
    phone.fill("#find", "alejandr")
    shot(phone, "pairings-by-name")


def test_the_phone_bracket_shows_each_matchs_table_and_the_seeds(
    phone: Any, big: Tournament
) -> None:
    phone.goto(f"{phone.base_url}/t/{big.slug}/bracket/")
    games = phone.locator("#bracket .bracket-game")
    assert games.count() == 4 + 2 + 1
    quarter = games.first
    assert quarter.locator(".bracket-table").inner_text() == "Table 1"
    assert quarter.locator(".bracket-table").is_visible()
    seeds = quarter.locator(".seed")
    assert [seeds.nth(i).inner_text().split()[-1] for i in range(2)] == ["1", "8"]
    assert all(seeds.nth(i).is_visible() for i in range(2))
    final = games.last
    assert final.locator(".bracket-table").inner_text() == "Table 1"
    assert final.locator(".seed").all_inner_texts()[0].split()[-1] == "1"
    # Seed, name and games won stand on one line, the name never clipped.
    clipped = phone.evaluate(
        """() => [...document.querySelectorAll('#bracket .bracket-name')]
          .filter((a) => a.scrollWidth > a.clientWidth).map((a) => a.textContent)"""
    )
    assert clipped == []
    no_sideways_scroll(phone)
    quarter.scroll_into_view_if_needed()
    shot(phone, "bracket")


@pytest.mark.parametrize(("locale", "lang"), [("ja-JP", "ja"), ("de-DE", "de")])
def test_the_thousand_player_pages_in_japanese_and_german_fit_the_phone(
    browser: Any, live_server: Any, big: Tournament, locale: str, lang: str
) -> None:
    """melee-438329's 1,086 players in the two languages whose words run widest (issue
    29): the standings, the pairings by name and a low-ranked player's page speak the
    language and never scroll sideways."""
    page = phone_context(browser, live_server, locale=locale)
    try:
        _name, pid = low_ranked(big)
        for url in ("standings/", "pairings/?by=name", f"players/{pid}/"):
            page.goto(f"{page.base_url}/t/{big.slug}/{url}")
            assert page.evaluate("document.documentElement.lang") == lang, url
            no_sideways_scroll(page)
        shot(page, f"player-{lang}")
    finally:
        page.context.close()
