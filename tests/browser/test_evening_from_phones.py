"""Issue 35 in chromium: an evening whose players register from their own phones.

A new organizer logs in, creates the event on its form and opens registration; each
player registers from a phone (a browser context of its own, 390 x 844) and lands on
their private page; with approval on the organizer accepts them at the desk, with
check-in on half check in from their phones and the desk checks in the rest; a walk-in
may be added on the event screen. Then the organizer clicks "Pair round 1" (before the
fix: HTTP 500), enters round 1 on the round screen's quick entry, adds a late player,
pairs and enters round 2, and pairs round 3. Every screen with JavaScript on (htmx
swaps) and off (plain forms that post and redirect): tests/test_evening_variants.py
posts the same forms without a browser.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User

from tournaments.models import Player

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
LAPTOP = {"viewport": {"width": 1400, "height": 1000}}
NAMES = [
    "Ana Lopez", "Ben Ortiz", "Cleo Park", "Dev Rao", "Eva Stone",
    "Finn Hale", "Gil Moss", "Hana Ito", "Ivo Ng",
]  # fmt: skip
WALK_IN = "Walt Inman"
LATE = "Lara Tardy"
# (players, check-in, approval, walk-in)
# Two of tests/test_evening_variants.py's 32 variants (which run every one through the same
# forms without a browser, on SQLite and PostgreSQL): the ones that failed at the first
# pair click, a walk-in after the self-registrations, with check-in and approval off and
# JavaScript on, then on and off with JavaScript off. A browser evening costs about half
# a minute here (a context per phone), too much for all 64.
VARIANTS = [(4, False, False, True, True), (5, True, True, True, False)]  # fmt: skip
VARIANT_IDS = [
    f"{n}-players-check-in-{'on' if c else 'off'}-approval-{'on' if a else 'off'}"
    f"-{'walk-in' if w else 'no-walk-in'}-{'javascript' if js else 'no-javascript'}"
    for n, c, a, w, js in VARIANTS
]


class ServerErrors:
    """Every answer of 500 or more any page received: an htmx request that fails swaps
    nothing, so the page alone would only show a timeout."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def watch(self, page: Any) -> Any:
        page.on("response", lambda r: self.seen.append(f"{r.status} {r.request.method} {r.url}") if r.status >= 500 else None)  # fmt: skip
        return page

    def check(self) -> None:
        assert self.seen == [], self.seen


@pytest.fixture
def contexts(browser: Any) -> Iterator[list[Any]]:
    """The contexts a test opens (the organizer without JavaScript, the phones), closed
    at its end whatever happened."""
    opened: list[Any] = []
    yield opened
    for context in opened:
        context.close()


def no_qr_codes(page: Any) -> Any:
    # The QR codes (the desk's, each private page's) are drawn on each request and cost
    # this 2-core machine more than the page around them; no step here scans one.
    page.route("**/qr.svg", lambda route: route.abort())
    return page


def new_page(browser: Any, contexts: list[Any], *, javascript: bool, **options: Any) -> Any:
    context = browser.new_context(java_script_enabled=javascript, **options)
    context.set_default_timeout(10_000)
    contexts.append(context)
    return no_qr_codes(context.new_page())


def leave(page: Any, *, javascript: bool) -> None:
    """An idle page with JavaScript polls, so it leaves: the live server shares one
    in-memory SQLite connection between its threads, where two requests at once can meet
    a lock. Without JavaScript nothing polls and the page may stay."""
    if javascript:
        page.goto("about:blank")


def log_in(page: Any, base: str, next_url: str) -> None:
    # A plain form: the same with JavaScript on or off.
    page.goto(f"{base}/accounts/login/?next={next_url}")
    page.get_by_label("Username").fill("td")
    page.get_by_label("Password").fill("judge-me-42")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"**{next_url}")


def pair(page: Any, errors: ServerErrors, number: int, seated: int) -> None:
    """Click "Pair round N" on the event screen: the new round's tables are shown, whether
    htmx swapped the board in or the form posted and came back to the screen."""
    from playwright.sync_api import expect

    page.get_by_role("button", name=re.compile(rf"^Pair round {number}\b")).click()
    panel = page.locator("#rounds-panel")
    expect(panel.locator("h3")).to_contain_text(f"Round {number}")
    errors.check()
    expect(page.locator("main .error")).to_have_count(0)
    expect(panel.locator("table.pairings tbody tr")).to_have_count((seated + 1) // 2)
    expect(page.locator("#missing")).to_contain_text(f"{seated // 2} result")


def enter_results(page: Any, base: str, slug: str, number: int, seated: int) -> None:
    """Every open table of the round through the round screen's quick entry ("12 2-1"
    then Enter), each result counted down by the screen before the next is typed."""
    from playwright.sync_api import expect

    page.goto(f"{base}/t/{slug}/manage/rounds/{number}/")
    tables = page.locator("table.pairings tbody tr.open th").all_inner_texts()
    assert len(tables) == seated // 2, tables  # a bye is no open table
    for i, table in enumerate(tables):
        page.locator("#quick-entry").fill(f"{table} {('2-1', '2-0', '0-2')[i % 3]}")
        page.locator("#quick-entry").press("Enter")
        left = len(tables) - i - 1
        missing = page.locator("#missing")
        if left:
            expect(missing).to_have_text(re.compile(rf"^\s*{left} results? still missing"))
        else:
            expect(missing).to_have_text("All results are in")
    expect(page.locator("table.pairings tbody tr.open")).to_have_count(0)


@pytest.mark.parametrize(
    ("players", "check_in", "approval", "walk_in", "javascript"), VARIANTS, ids=VARIANT_IDS
)
def test_an_evening_of_phone_registrations_pairs_three_rounds_in_the_browser(
    request: pytest.FixtureRequest,
    browser: Any,
    live_server: Any,
    contexts: list[Any],
    settings: Any,
    django_user_model: type[User],
    players: int,
    check_in: bool,
    approval: bool,
    walk_in: bool,
    javascript: bool,
) -> None:
    from playwright.sync_api import expect

    # As the other browser tests: a fast hasher, or two hashes a test cost seconds here.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_user("td", password="judge-me-42")
    base = live_server.url
    errors = ServerErrors()
    if javascript:
        # conftest's: serves htmx if its path is missing
        org = no_qr_codes(request.getfixturevalue("page"))
    else:
        org = new_page(browser, contexts, javascript=False, **LAPTOP)
    errors.watch(org)

    log_in(org, base, "/manage/")
    org.locator("#id_name").fill("Thursday Phones")
    org.locator("#id_system").select_option("mtr")
    org.locator("#id_best_of").select_option("3")
    org.locator("#id_top_cut").select_option("0")
    org.get_by_role("button", name="Create the tournament").click()
    org.wait_for_url(re.compile(r"/t/[\w-]+/manage/$"))
    slug = org.url.rstrip("/").split("/")[-2]

    desk = f"{base}/t/{slug}/manage/registration/"
    org.goto(desk)
    org.get_by_label("Players register from the link").check()
    org.get_by_label("Approve each entry").set_checked(approval)
    org.get_by_label("Players check in before round 1").set_checked(check_in)
    org.get_by_role("button", name="Save").click()
    expect(org.locator("main")).to_contain_text("Registration settings saved.")
    leave(org, javascript=javascript)

    names = NAMES[:players]
    phones: dict[str, Any] = {}
    links: dict[str, str] = {}
    for name in names:
        phone = errors.watch(new_page(browser, contexts, javascript=javascript, **PHONE))
        phone.goto(f"{base}/t/{slug}/register/")
        phone.get_by_label("Your name").fill(name)
        phone.get_by_role("button", name="Register").click()
        phone.wait_for_url("**/p/**")
        expect(phone.locator("h1")).to_have_text(name)
        links[name] = phone.url
        leave(phone, javascript=javascript)
        phones[name] = phone
    errors.check()

    if approval:
        org.goto(desk)
        expect(org.locator("#pending-title")).to_have_text(f"Waiting for approval ({players})")
        # One entry on its own button (a formaction without JavaScript), then the rest.
        org.get_by_role("button", name=f"Accept {names[0]}", exact=True).click()
        expect(org.locator("#pending-title")).to_have_text(f"Waiting for approval ({players - 1})")
        org.locator("#accept-all").click()
        expect(org.locator("#pending-title")).to_have_text("Waiting for approval (0)")
        leave(org, javascript=javascript)

    if walk_in:
        org.goto(f"{base}/t/{slug}/manage/")
        add = org.locator("#players-panel form.add-player")
        add.get_by_placeholder("Player name").fill(WALK_IN)
        add.get_by_role("button", name="Add player").click()
        expect(org.locator("main")).to_contain_text(f"Added {WALK_IN}.")
        leave(org, javascript=javascript)

    entrants = players + walk_in
    if check_in:
        # Half from their phones, the rest (and the walk-in) at the desk.
        for name in names[::2]:
            phone = phones[name]
            phone.goto(links[name])
            phone.locator("#check-in").get_by_role("button", name="Check in").click()
            expect(phone.locator("#check-in")).to_contain_text("You are checked in.")
            leave(phone, javascript=javascript)
        org.goto(desk)
        at_desk = org.locator("#registration-panel").get_by_role(
            "button", name="Check in", exact=True
        )
        for left in range(at_desk.count() - 1, -1, -1):
            at_desk.first.click()
            expect(at_desk).to_have_count(left)
        expect(org.locator("#checkin-title")).to_contain_text(f"(0; {entrants} checked in)")
    errors.check()

    org.goto(f"{base}/t/{slug}/manage/")
    pair(org, errors, 1, entrants)
    enter_results(org, base, slug, 1, entrants)

    org.goto(f"{base}/t/{slug}/manage/")
    add = org.locator("#players-panel form.add-player")
    add.get_by_placeholder("Player name").fill(LATE)
    add.get_by_role("button", name="Add a late entry").click()
    expect(org.locator("main")).to_contain_text(f"Added {LATE} (late entry")
    pair(org, errors, 2, entrants + 1)
    # Seated from round 2: a row of round 2's tables names the late player.
    expect(org.locator("#rounds-panel table.pairings tbody")).to_contain_text(LATE)
    enter_results(org, base, slug, 2, entrants + 1)

    org.goto(f"{base}/t/{slug}/manage/")
    pair(org, errors, 3, entrants + 1)
    expect(org.locator("#rounds-panel table.pairings tbody")).to_contain_text(LATE)
    leave(org, javascript=javascript)
    errors.check()

    late = Player.objects.get(tournament__slug=slug, name=LATE)
    assert sorted(late.seats.values_list("round__number", flat=True)) == [2, 3]
    for number, seated in ((1, entrants), (2, entrants + 1), (3, entrants + 1)):
        assert Player.objects.filter(
            tournament__slug=slug, seats__round__number=number
        ).count() == seated  # fmt: skip
