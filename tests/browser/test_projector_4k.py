"""The projector at 3840x2160 and 1920x1080 (issue 26 items 4, 5 and 6), and the poster.

- melee-438329's round 1 (1,086 players) over the pages at both sizes: every row once,
  none cut, no name split inside a word, and the 4K screen needing far fewer pages (the
  figures go to test-artifacts/projector-4k-figures.json);
- 16 players' pairings fill the screen instead of a third of it;
- the bracket during the top cut, each game with its table, the games to come drawn;
- the registration poster printed to an A4 PDF (one page) and the share page printed
  without the organizer's navigation.

Screenshots go to test-artifacts/projector-4k-*.png and poster-a4.*.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.browser.conftest import ARTIFACTS
from tests.browser.test_print import log_in
from tests.conftest import load_shared
from tests.helpers import REAL, paired_doc
from tournaments import services
from tournaments.models import Tournament
from tournaments.services import import_document

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BIG = "data/real/melee-438329.json"  # 1,086 players, 14 Swiss rounds, a top 8
SCREENS = {"4k": (3840, 2160), "1080p": (1920, 1080)}

# One look at the screen. Per row shown: its name, and whether it is cut (outside its
# column or the screen). Per name: ellipsized (wider than its cell, with the style that
# draws the ellipsis), and each word laid out on one line (a word split across two lines
# has client rects on two lines). The boxes of the rows and of the board, and sizes.
LOOK = """() => {
  const vw = window.innerWidth, vh = window.innerHeight;
  const pager = document.querySelector('[data-proj-pager]');
  const rows = [...document.querySelectorAll('#projector .proj-board .proj-list .proj-row')];
  const cut = [], ellipsized = [], split = [];
  let left = Infinity, right = -Infinity, bottom = -Infinity;
  for (const row of rows) {
    const r = row.getBoundingClientRect(), col = row.closest('.proj-col').getBoundingClientRect();
    const name = row.querySelector('.proj-name');
    if (r.top < 0 || r.left < 0 || r.bottom > vh + 0.01 || r.right > vw + 0.01
        || r.bottom > col.bottom + 0.01 || r.right > col.right + 0.01 || r.height < 1) {
      cut.push(name.textContent);
    }
    if (name.scrollWidth > name.clientWidth + 1) {
      ellipsized.push([name.textContent, getComputedStyle(name).textOverflow]);
    }
    const text = name.firstChild, re = /[^\\s-]+/g;
    let m;
    while (text && (m = re.exec(text.data))) {
      const range = document.createRange();
      range.setStart(text, m.index);
      range.setEnd(text, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].map((b) => Math.round(b.top)));
      if (tops.size > 1) split.push(m[0] + ' in ' + text.data);
    }
    left = Math.min(left, r.left); right = Math.max(right, r.right); bottom = Math.max(bottom, r.bottom);
  }
  const board = document.querySelector('#projector .proj-board').getBoundingClientRect();
  const first = rows.length ? rows[0].querySelector('.proj-name') : null;
  return {
    pager: pager.hidden ? '' : pager.textContent.replace(/\\s+/g, ' ').trim(),
    names: rows.map((r) => r.querySelector('.proj-name').textContent),
    cut, ellipsized, split,
    columns: document.querySelectorAll('#projector .proj-col').length,
    per_column: [...document.querySelectorAll('#projector .proj-col')].map((c) => c.querySelectorAll('.proj-row:not(.proj-colhead)').length),
    nameSize: first ? parseFloat(getComputedStyle(first).fontSize) : 0,
    headSize: parseFloat(getComputedStyle(document.querySelector('.proj-round')).fontSize),
    rows: {left, right, bottom},
    board: {left: board.left, right: board.right, top: board.top, bottom: board.bottom},
    scrolls: document.documentElement.scrollHeight > vh || document.documentElement.scrollWidth > vw,
  };
}"""


def round_one(doc: dict[str, Any]) -> dict[str, Any]:
    """The event as it stood when round 1 was paired: every player seated, no result."""
    doc = copy.deepcopy(doc)
    first = doc["rounds"][0]
    for match in first["matches"]:
        for key in ("wins", "draws", "result"):
            match.pop(key, None)
    doc["rounds"] = [first]
    for player in doc["players"]:
        player.pop("dropped_after_round", None)
    return doc


def quarterfinals(doc: dict[str, Any]) -> dict[str, Any]:
    """The event once its top 8 was paired: the quarterfinals, no result in yet."""
    doc = copy.deepcopy(doc)
    swiss = [r for r in doc["rounds"] if not r.get("playoff")]
    quarters = next(r for r in doc["rounds"] if r.get("playoff"))
    for match in quarters["matches"]:
        for key in ("wins", "draws", "result"):
            match.pop(key, None)
    doc["rounds"] = [*swiss, quarters]
    doc.pop("event", None)
    return doc


def screen(browser: Any, live_server: Any, size: str) -> Iterator[Any]:
    width, height = SCREENS[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.base_url = live_server.url
    yield page
    context.close()


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"projector-4k-{name}.png"))


def every_page(page: Any, slug: str) -> dict[int, dict[str, Any]]:
    """Every page the projector turns through, by number, each seen whole."""
    page.goto(f"{page.base_url}/t/{slug}/projector/?interval=300")
    page.locator("[data-proj-pager]:not([hidden])").wait_for()
    seen: dict[int, dict[str, Any]] = {}
    for _ in range(400):
        look = page.evaluate(LOOK)
        number, _, of = look["pager"].removeprefix("Page ").partition(" of ")
        seen.setdefault(int(number), look)
        if len(seen) == int(of):
            break
        page.wait_for_timeout(100)
    return seen


@pytest.fixture
def round_one_of_1086(db: Any) -> Tournament:
    return import_document(round_one(load_shared(BIG)))


def test_1086_players_take_far_fewer_pages_at_4k_than_at_1080p_none_cut_or_split(
    browser: Any, live_server: Any, round_one_of_1086: Tournament
) -> None:
    t = round_one_of_1086
    expected = sorted(t.players.values_list("name", flat=True), key=str.casefold)
    figures: dict[str, dict[str, Any]] = {}
    for size in SCREENS:
        for page in screen(browser, live_server, size):
            seen = every_page(page, t.slug)
            total = len(seen)
            assert sorted(seen) == list(range(1, total + 1))
            shown = [name for number in sorted(seen) for name in seen[number]["names"]]
            assert shown == expected  # every row once, alphabetical across the pages
            for number, look in seen.items():
                assert look["pager"] == f"Page {number} of {total}"
                assert look["cut"] == [], f"{size} page {number}: {look['cut'][:5]}"
                assert look["split"] == [], f"{size} page {number}: {look['split'][:5]}"
                assert not look["scrolls"]
                # Only a word wider than any column is shortened, with an ellipsis:
                # here the two 32-character ids some players registered under.
                for name, how in look["ellipsized"]:
                    assert how == "ellipsis" and " " not in name and len(name) >= 30, name
            full = [len(seen[n]["names"]) for n in range(1, total)]
            figures[size] = {
                "pages": total,
                "rows_a_page": min(full) if full else len(seen[1]["names"]),
                "columns": seen[1]["columns"],
                "name_px": round(seen[1]["nameSize"], 1),
            }
            page.goto(f"{page.base_url}/t/{t.slug}/projector/")
            page.locator("[data-proj-pager]:not([hidden])").wait_for()
            shot(page, f"1086-{size}")
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "projector-4k-figures.json").write_text(json.dumps(figures, indent=2))
    print(figures)
    four_k, hd = figures["4k"], figures["1080p"]
    # Was 17-18 pages of ~60 rows at both sizes: the 1080p page scaled up.
    assert four_k["pages"] <= 7 and hd["pages"] <= 16
    assert four_k["rows_a_page"] >= 2.4 * hd["rows_a_page"]
    assert four_k["columns"] > hd["columns"]


@pytest.mark.parametrize("size", list(SCREENS))
def test_16_players_pairings_fill_the_screen_in_larger_type(
    browser: Any, live_server: Any, size: str
) -> None:
    t = import_document(paired_doc(16))
    for page in screen(browser, live_server, size):
        page.goto(f"{page.base_url}/t/{t.slug}/projector/")
        page.locator("[data-proj-pager]:not([hidden])").wait_for(state="attached")
        look = page.evaluate(LOOK)
        assert look["pager"] == "Page 1 of 1" and len(look["names"]) == 16
        assert look["cut"] == [] and look["split"] == [] and not look["scrolls"]
        board, rows = look["board"], look["rows"]
        width, height = board["right"] - board["left"], board["bottom"] - board["top"]
        # Across the screen (was one column of three: a third of the width), in columns
        # of even length (8 and 8) spread down it: as large as the width allows.
        assert rows["right"] - rows["left"] >= 0.95 * width
        assert rows["bottom"] - board["top"] >= 0.9 * height
        assert sorted(look["per_column"]) == [8, 8]
        assert look["nameSize"] >= 1.5 * look["headSize"]  # larger than a full page's
        shot(page, f"16-players-{size}")


@pytest.mark.parametrize("size", list(SCREENS))
def test_the_bracket_fills_the_screen_during_the_top_cut_with_each_games_table(
    browser: Any, live_server: Any, size: str
) -> None:
    t = import_document(quarterfinals(load_shared(REAL)))
    for page in screen(browser, live_server, size):
        page.goto(f"{page.base_url}/t/{t.slug}/projector/")
        assert page.inner_text(".proj-round") == "Top 8 · Quarterfinals"
        rounds = page.locator(".proj-bround")
        assert rounds.count() == 3
        assert [rounds.nth(i).locator(".proj-bgame").count() for i in range(3)] == [4, 2, 1]
        tables = page.locator(".proj-bround").first.locator(".proj-btable").all_inner_texts()
        assert tables == ["Table 1", "Table 2", "Table 3", "Table 4"]
        pending = page.locator(".proj-pending .proj-bname").all_inner_texts()
        assert pending[:4] == [f"Winner of table {n}" for n in (1, 2, 3, 4)]
        boxes = page.evaluate(
            """() => [...document.querySelectorAll('.proj-bgame')].map((g) => {
                 const b = g.getBoundingClientRect();
                 return {top: b.top, bottom: b.bottom, left: b.left, right: b.right,
                         mid: (b.top + b.bottom) / 2};
               })"""
        )
        vw, vh = SCREENS[size]
        assert all(b["top"] >= 0 and b["bottom"] <= vh and b["right"] <= vw for b in boxes)
        quarters, semis, final = boxes[:4], boxes[4:6], boxes[6]
        # Drawn as a bracket: each game level with the middle of the two it follows.
        for k, semi in enumerate(semis):
            assert abs(semi["mid"] - (quarters[2 * k]["mid"] + quarters[2 * k + 1]["mid"]) / 2) < 4
        assert abs(final["mid"] - (semis[0]["mid"] + semis[1]["mid"]) / 2) < 4
        # It fills the screen: the quarterfinals run down most of the height.
        assert quarters[-1]["bottom"] - quarters[0]["top"] >= 0.6 * vh
        clipped = page.evaluate(
            """() => [...document.querySelectorAll('.proj-bname')]
                 .filter((n) => n.scrollWidth > n.clientWidth + 1).map((n) => n.textContent)"""
        )
        assert clipped == []
        assert page.evaluate("document.documentElement.scrollHeight") <= vh
        shot(page, f"bracket-{size}")


def test_the_bracket_after_the_final_names_the_champion_with_every_result(
    browser: Any, live_server: Any
) -> None:
    t = import_document(load_shared(REAL))
    for page in screen(browser, live_server, "1080p"):
        page.goto(f"{page.base_url}/t/{t.slug}/projector/")
        assert page.inner_text(".proj-round") == "Top 8 · Final"
        assert page.locator(".proj-champion").inner_text().startswith("Champion: ")
        assert page.locator(".proj-pending").count() == 0
        assert page.locator(".proj-winner").count() == 7 and page.locator(".proj-out").count() == 7
        shot(page, "bracket-final-1080p")


@pytest.fixture
def organizer(django_user_model: type[User]) -> User:
    return django_user_model.objects.create_user("poster-owner")


def test_the_registration_poster_prints_on_one_a4_page_with_only_name_qr_and_address(
    page: Any, live_server: Any, organizer: User
) -> None:
    t = services.create_tournament(name="Thursday Club Modern", owner=organizer, seed=3)
    log_in(page, live_server, organizer)
    page.set_viewport_size({"width": 794, "height": 1123})  # A4 at 96 dpi
    page.goto(f"{live_server.url}/t/{t.slug}/manage/print/poster/")
    qr = page.locator(".poster-qr")
    assert qr.evaluate("img => img.complete && img.naturalWidth > 0")
    page.emulate_media(media="print")
    visible = page.evaluate(
        """() => [...document.body.querySelectorAll('*')]
             .filter((el) => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden'
                     && [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
             .map((el) => el.textContent.trim())"""
    )
    assert visible == ["Thursday Club Modern", f"{live_server.url}/t/{t.slug}/register/"]
    assert qr.is_visible() and qr.bounding_box()["width"] >= 400  # about 150 mm of 210
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "poster-a4.png"))
    pdf = page.pdf(prefer_css_page_size=True, print_background=False)
    (ARTIFACTS / "poster-a4.pdf").write_bytes(pdf)
    pages = re.findall(rb"/Type /Page\n", pdf)
    sizes = {
        tuple(round(float(x)) for x in m)
        for m in re.findall(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf)
    }
    assert len(pages) == 1 and sizes == {(595, 842)}


def test_the_share_page_prints_its_qr_code_without_the_organizers_navigation(
    page: Any, live_server: Any, organizer: User
) -> None:
    t = services.create_tournament(name="Thursday Club Modern", owner=organizer, seed=3)
    log_in(page, live_server, organizer)
    page.goto(f"{live_server.url}/t/{t.slug}/manage/share/")
    assert page.locator("header.site").is_visible()  # on screen, the way around stays
    page.emulate_media(media="print")
    assert not page.locator("header.site").is_visible()
    assert not page.locator("nav").first.is_visible()
    assert page.locator(".share-print img").is_visible()
    assert page.locator(".share-print h1").inner_text() == "Thursday Club Modern"


def test_plus_and_minus_set_this_screens_text_size_and_it_is_kept_on_reload(
    browser: Any, live_server: Any
) -> None:
    t = import_document(paired_doc(301))
    for page in screen(browser, live_server, "1080p"):
        page.goto(f"{page.base_url}/t/{t.slug}/projector/?interval=600000")
        page.locator("[data-proj-pager]:not([hidden])").wait_for()
        before = page.evaluate(LOOK)
        page.keyboard.press("+")
        page.keyboard.press("+")
        larger = page.evaluate(LOOK)
        assert larger["nameSize"] == pytest.approx(1.2 * before["nameSize"], rel=0.01)
        assert larger["cut"] == [] and larger["split"] == [] and not larger["scrolls"]
        assert int(larger["pager"].split()[-1]) > int(before["pager"].split()[-1])
        page.reload()
        page.locator("[data-proj-pager]:not([hidden])").wait_for()
        assert page.evaluate(LOOK)["nameSize"] == pytest.approx(larger["nameSize"], rel=0.01)
        page.keyboard.press("-")
        page.keyboard.press("-")
        assert page.evaluate(LOOK)["nameSize"] == pytest.approx(before["nameSize"], rel=0.01)
