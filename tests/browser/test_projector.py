"""The projector on real screen sizes: every row shown over the pages, none cut.

Pages turn every ?interval=ms here (12 s on a real screen). Each look at the page is one
`evaluate`, so the page number and the rows it reports belong to the same page.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import ARTIFACTS
from tests.helpers import paired_doc
from tournaments import services
from tournaments.models import Match, Tournament
from tournaments.services import import_document

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = {"1080p": (1920, 1080), "4k": (3840, 2160)}

# One look at the screen: the pager, the rows shown and whether each fits, and the
# largest font size of any visible text against the names'.
LOOK = """() => {
  const vw = window.innerWidth, vh = window.innerHeight;
  const pager = document.querySelector('[data-proj-pager]');
  const rows = [...document.querySelectorAll('#projector .proj-board .proj-list .proj-row')];
  const cut = [];
  for (const row of rows) {
    const r = row.getBoundingClientRect(), col = row.closest('.proj-col').getBoundingClientRect();
    const name = row.querySelector('.proj-name');
    if (r.top < 0 || r.left < 0 || r.bottom > vh + 0.01 || r.right > vw + 0.01
        || r.bottom > col.bottom + 0.01 || r.right > col.right + 0.01
        || name.scrollWidth > name.clientWidth + 1 || r.height < 1) cut.push(name.textContent);
  }
  let biggest = 0, biggestText = '';
  for (const el of document.body.querySelectorAll('*')) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden') continue;
    const size = parseFloat(style.fontSize);
    if (size > biggest) { biggest = size; biggestText = el.textContent.trim(); }
  }
  const names = rows.map(r => r.querySelector('.proj-name').textContent);
  return {
    pager: pager.hidden ? '' : pager.innerText.trim(),
    names,
    cut,
    nameSize: names.length ? parseFloat(getComputedStyle(rows[0].querySelector('.proj-name')).fontSize) : 0,
    biggest, biggestText,
    columns: document.querySelectorAll('#projector .proj-col').length,
    scrolls: document.documentElement.scrollHeight > vh || document.documentElement.scrollWidth > vw,
  };
}"""


@pytest.fixture
def big_event() -> Tournament:
    t = import_document(paired_doc(301))  # 150 tables and a bye
    services.start_clock(round=t.rounds.get(number=1), minutes=50)
    return t


def screen(browser: Any, width: int, height: int) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


@pytest.fixture(params=list(SCREENS), ids=list(SCREENS))
def projector_page(request: Any, browser: Any, live_server: Any) -> Iterator[Any]:
    width, height = SCREENS[request.param]
    for page in screen(browser, width, height):
        page.base_url = live_server.url
        page.screen_name = request.param
        yield page


def all_pages(page: Any, slug: str) -> dict[int, dict[str, Any]]:
    """Every page the projector turns through, by number, each seen whole."""
    page.goto(f"{page.base_url}/t/{slug}/projector/?interval=400")
    page.locator("[data-proj-pager]:not([hidden])").wait_for()
    seen: dict[int, dict[str, Any]] = {}
    total = None
    for _ in range(200):
        look = page.evaluate(LOOK)
        number, _, of = look["pager"].removeprefix("Page ").partition(" of ")
        total = int(of)
        seen.setdefault(int(number), look)
        if len(seen) == total:
            break
        page.wait_for_timeout(150)
    return seen


def test_every_player_is_shown_over_the_pages_with_no_row_cut(
    projector_page: Any, big_event: Tournament
) -> None:
    page = projector_page
    seen = all_pages(page, big_event.slug)
    total = len(seen)
    assert total >= 2 and sorted(seen) == list(range(1, total + 1))
    shown = [name for number in sorted(seen) for name in seen[number]["names"]]
    expected = sorted(big_event.players.values_list("name", flat=True), key=str.casefold)
    assert shown == expected  # every row once, in alphabetical order across the pages
    for number, look in seen.items():
        assert look["pager"] == f"Page {number} of {total}"
        assert look["cut"] == [], f"page {number}: rows cut {look['cut'][:5]}"
        assert not look["scrolls"]
        assert look["columns"] >= 2 or number == total  # several columns on a wide screen
        assert look["nameSize"] >= look["biggest"], look["biggestText"]
    # Every page but the last fills all the columns the screen has.
    assert {seen[n]["columns"] for n in range(1, total)} == {seen[1]["columns"]}
    assert seen[total]["columns"] <= seen[1]["columns"]
    page.goto(f"{page.base_url}/t/{big_event.slug}/projector/")
    page.screenshot(path=str(ARTIFACTS / f"projector-{page.screen_name}.png"))


def test_the_clock_round_and_qr_code_are_on_the_screen(
    projector_page: Any, big_event: Tournament
) -> None:
    page = projector_page
    page.goto(f"{page.base_url}/t/{big_event.slug}/projector/")
    assert page.inner_text(".proj-round") == "Round 1 pairings"
    clock = page.locator(".proj-clock .clock-time")
    assert clock.inner_text().startswith(("50:", "49:"))
    qr = page.locator(".proj-qr img")
    assert qr.evaluate("img => img.complete && img.naturalWidth > 0")
    box = qr.bounding_box()
    viewport = page.viewport_size
    assert box["x"] + box["width"] <= viewport["width"]
    assert box["y"] + box["height"] <= viewport["height"]
    names = page.locator(".proj-board .proj-name").first.bounding_box()
    assert names["y"] > box["y"] + box["height"] - 1  # the QR code covers no row


def test_a_live_update_keeps_the_page_being_shown(
    browser: Any, live_server: Any, big_event: Tournament
) -> None:
    for page in screen(browser, *SCREENS["1080p"]):
        # Pages turn by hand here (arrow keys) so that only the update can change them.
        page.goto(f"{live_server.url}/t/{big_event.slug}/projector/?interval=600000")
        pager = page.locator("[data-proj-pager]")
        pager.wait_for()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        assert pager.inner_text().startswith("Page 3 of ")
        shown = page.evaluate(LOOK)["names"]
        version = page.locator("#projector").get_attribute("data-version")
        match = Match.objects.filter(round__tournament=big_event).order_by("table").first()
        services.record_result(match=match, wins=(2, 0), draws=0)
        page.locator(f'#projector:not([data-version="{version}"])').wait_for(timeout=8_000)
        assert pager.inner_text().startswith("Page 3 of ")
        assert page.evaluate(LOOK)["names"] == shown


def test_the_last_result_of_the_round_turns_the_screen_to_the_standings_from_page_1(
    browser: Any, live_server: Any
) -> None:
    doc = paired_doc(201, played=True)
    last = doc["rounds"][0]["matches"][0]
    del last["wins"], last["draws"]  # table 1 is still playing
    t = import_document(doc)
    for page in screen(browser, *SCREENS["1080p"]):
        page.goto(f"{live_server.url}/t/{t.slug}/projector/?interval=600000")
        pager = page.locator("[data-proj-pager]")
        pager.wait_for()
        page.keyboard.press("ArrowRight")
        assert pager.inner_text().startswith("Page 2 of ")
        match = Match.objects.get(round__tournament=t, table=1)
        services.record_result(match=match, wins=(2, 0), draws=0)
        page.locator('#projector[data-screen="standings-1"]').wait_for(timeout=8_000)
        assert page.inner_text(".proj-round") == "Standings after round 1"
        assert pager.inner_text().startswith("Page 1 of ")
        assert page.evaluate(LOOK)["cut"] == []


def test_standings_after_the_round_are_shown_whole_over_the_pages(
    browser: Any, live_server: Any
) -> None:
    t = import_document(paired_doc(301, played=True))
    for page in screen(browser, *SCREENS["1080p"]):
        page.base_url = live_server.url
        seen = all_pages(page, t.slug)
        assert page.inner_text(".proj-round") == "Standings after round 1"
        shown = [name for number in sorted(seen) for name in seen[number]["names"]]
        standings = t.standings.order_by("position").values_list("player__name", flat=True)
        assert shown == list(standings)
        for number, look in seen.items():
            assert look["pager"] == f"Page {number} of {len(seen)}"
            assert look["cut"] == [] and not look["scrolls"]
            assert look["nameSize"] >= look["biggest"], look["biggestText"]
        page.goto(f"{page.base_url}/t/{t.slug}/projector/")
        page.screenshot(path=str(ARTIFACTS / "projector-standings-1080p.png"))


def test_without_javascript_every_row_is_on_the_page_in_columns(
    browser: Any, live_server: Any, big_event: Tournament
) -> None:
    context = browser.new_context(
        viewport={"width": 1920, "height": 1080}, java_script_enabled=False
    )
    page = context.new_page()
    page.goto(f"{live_server.url}/t/{big_event.slug}/projector/")
    names = page.locator(".proj-list .proj-name").all_inner_texts()
    assert len(names) == 301 and names == sorted(names, key=str.casefold)
    lefts = {round(b["x"]) for b in page.locator(".proj-list .proj-row").evaluate_all(
        "rows => rows.map(r => { const b = r.getBoundingClientRect(); return {x: b.x}; })"
    )}  # fmt: skip
    assert len(lefts) >= 2  # in columns, the page scrolling down
    assert not page.locator("[data-proj-pager]").is_visible()
    page.screenshot(path=str(ARTIFACTS / "projector-no-js-1080p.png"))
    context.close()
