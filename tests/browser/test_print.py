"""The print views rendered to PDF by chromium (page.pdf), A4 and Letter, for a 200-player
event (several pages each): the paper is the one chosen, and no row or slip is cut at a
page break (nor at a column break on the two-column wall sheets).

How "no row cut" is verified, from the PDF itself rather than from the screen layout:
before printing, every row (and every slip) gets an empty link laid over its whole box
(an absolutely positioned <a> with inset 0). Chromium writes each link into the PDF as a
/Link annotation, one per painted fragment, with the fragment's rectangle, on the page
where it was painted. A row kept whole gives exactly one annotation; a row cut by a page
or column break is painted in two fragments and gives two. So: each row's link must
appear exactly once in the PDF (and every row must appear). The same trick on the
table's header cell shows the header painted on every page. A control run with one slip
made taller than a page (so it must be cut) proves the check does see cuts.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tournaments import services
from tournaments.models import Match, MatchKind, System, Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# PDF points (1/72 in): A4 is 210 x 297 mm, Letter 8.5 x 11 in.
PAPER_POINTS = {"a4": (595.3, 841.9), "letter": (612.0, 792.0)}
FIRST = ["Ana", "Benedikt", "Cleo", "Dev", "Eva-Maria", "Finn", "Gil", "Hana", "Ivo", "Jo"]
LAST = ["Souza", "Ito", "Park", "Rao", "Lund", "Moe", "Ray", "Kowalczyk-Nowak", "Ng", "Li",
        "Abe", "Berg", "Cruz", "Diaz", "Engel", "Fox", "Grau", "Holm", "Iqbal", "Jung"]  # fmt: skip

# Lays a link over each element matched (rows: over their first cell, which spans the
# row's height) and one over the first header cell. Returns how many rows were marked.
MARK = """([rows, header]) => {
  function mark(host, href) {
    host.style.position = "relative";
    const a = document.createElement("a");
    a.href = href;
    a.style.position = "absolute";
    a.style.inset = "0";
    host.appendChild(a);
  }
  const els = document.querySelectorAll(rows);
  els.forEach((el, i) => mark(el.tagName === "TR" ? el.firstElementChild : el,
                              "https://row.check/" + i));
  const head = header && document.querySelector(header);
  if (head) mark(head, "https://head.check/");
  return els.length;
}"""

SHEETS = [
    # (path, rows, header cell or "", at least this many pages on A4)
    ("pairings/by-name/", "tbody tr", "thead tr:last-child th", 2),
    ("pairings/by-table/", "tbody tr", "thead tr:last-child th", 1),
    ("slips/", ".slip", "", 10),
    ("standings/", "tbody tr", "thead th", 3),
]

ANNOT = re.compile(
    rb"(\d+) 0 obj\n<</Type /Annot\n/Subtype /Link\n(?:(?!endobj).)*?/Rect \[([^\]]*)\]"
    rb"(?:(?!endobj).)*?/URI \(([^)]*)\)",
    re.S,
)
PAGE = re.compile(rb"/Type /Page\n(?:(?!endobj).)*?/Annots \[([^\]]*)\]", re.S)
MEDIA = re.compile(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]")


def links(pdf: bytes) -> tuple[dict[str, list[int]], int, tuple[float, float]]:
    """Each link's URI -> the pages (0-based) it is painted on; the page count; the size."""
    on_page: dict[int, int] = {}
    pages = PAGE.findall(pdf)
    for number, refs in enumerate(pages):
        for ref in re.findall(rb"(\d+) 0 R", refs):
            on_page[int(ref)] = number
    found: dict[str, list[int]] = {}
    for obj, _rect, uri in ANNOT.findall(pdf):
        found.setdefault(uri.decode(), []).append(on_page[int(obj)])
    count = len(re.findall(rb"/Type /Page(?!s)", pdf))
    width, height = MEDIA.search(pdf).groups()  # type: ignore[union-attr]
    return found, count, (float(width), float(height))


@pytest.fixture
def big_event(django_user_model: type[User]) -> tuple[Tournament, User]:
    """200 players: round 1 played, round 2 paired (so the sheets show points too)."""
    owner = django_user_model.objects.create_user("printer")
    t = services.create_tournament(name="Regional Championship", owner=owner, seed=5)
    services.register_players(tournament=t, names=[f"{f} {last}" for f in FIRST for last in LAST])
    services.pair_next_round(tournament=t)
    for m in Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED):
        services.record_result(match=m, wins=(2, 1))
    services.pair_next_round(tournament=t)
    return t, owner


def log_in(page: Any, live_server: Any, user: User) -> None:
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )


def print_pdf(page: Any, url: str, rows: str, header: str, cut: bool = False) -> tuple[int, bytes]:
    page.goto(url)
    assert page.locator(".toolbar button[data-print]").is_visible()  # print.js ran
    if cut:  # the control: one slip taller than a page, so that it must be cut
        page.evaluate(
            """() => { document.querySelectorAll(".slip")[3].style.height = "1600px"; }"""
        )
    marked = page.evaluate(MARK, [rows, header])
    # The size comes from the page's own CSS (@page, or the named page for Letter).
    return marked, page.pdf(prefer_css_page_size=True, print_background=False)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_every_print_view_fits_its_paper_and_never_cuts_a_row_at_a_page_break(
    page: Any, live_server: Any, big_event: tuple[Tournament, User], paper: str, artifacts: Path
) -> None:
    t, owner = big_event
    log_in(page, live_server, owner)
    for path, rows, header, min_pages in SHEETS:
        url = f"{live_server.url}/t/{t.slug}/manage/print/{path}?paper={paper}"
        marked, pdf = print_pdf(page, url, rows, header)
        name = path.strip("/").replace("/", "-")
        (artifacts / f"print-{name}-{paper}.pdf").write_bytes(pdf)
        found, pages, size = links(pdf)
        expected = PAPER_POINTS[paper]
        assert abs(size[0] - expected[0]) < 1.5 and abs(size[1] - expected[1]) < 1.5, (path, size)
        assert marked >= 100 and pages >= min_pages, (path, marked, pages)
        cut = {
            uri: on for uri, on in found.items() if uri.startswith("https://row") and len(on) > 1
        }
        assert not cut, f"{path} on {paper}: rows cut across pages/columns: {cut}"
        shown = {uri for uri in found if uri.startswith("https://row")}
        assert shown == {f"https://row.check/{i}" for i in range(marked)}, path
        if header:
            # The header is painted again on every page that has rows (and every column).
            with_rows = {n for uri in shown for n in found[uri]}
            assert with_rows <= set(found["https://head.check/"]), path


def test_the_no_cut_check_sees_a_slip_that_is_cut(
    page: Any, live_server: Any, big_event: tuple[Tournament, User]
) -> None:
    t, owner = big_event
    log_in(page, live_server, owner)
    url = f"{live_server.url}/t/{t.slug}/manage/print/slips/"
    _marked, pdf = print_pdf(page, url, ".slip", "", cut=True)
    found, _pages, _size = links(pdf)
    on = found["https://row.check/3"]
    assert len(on) >= 2 and on == list(range(on[0], on[0] + len(on)))
    assert all(len(found[f"https://row.check/{i}"]) == 1 for i in (0, 1, 2, 4, 5))


def test_a_draft_pods_seating_prints_on_one_page_with_every_seat(
    page: Any, live_server: Any, django_user_model: type[User]
) -> None:
    owner = django_user_model.objects.create_user("pod-printer")
    t = services.create_tournament(name="Cube draft", owner=owner, seed=8, system=System.POD)
    services.register_players(tournament=t, names=[f"{f} {LAST[0]}" for f in FIRST[:8]])
    services.pair_next_round(tournament=t)
    log_in(page, live_server, owner)
    for paper in PAPER_POINTS:
        url = f"{live_server.url}/t/{t.slug}/manage/print/pod-seating/?paper={paper}"
        marked, pdf = print_pdf(page, url, "tbody tr", "thead th")
        found, pages, _size = links(pdf)
        assert marked == 8 and pages == 1
        assert all(found.get(f"https://row.check/{i}") == [0] for i in range(8))
        seats = page.locator("tbody tr td.seat").all_inner_texts()
        assert seats == [str(k) for k in range(1, 9)]
