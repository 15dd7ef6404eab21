"""The round screen in a real browser: results entered with the keyboard alone, a refusal
shown beside what caused it with the typed input kept, the missing-only filter, and 20+
tables visible on a 1366x768 laptop."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from tournaments import services
from tournaments.models import Match, Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def big_round(django_user_model: type[User]) -> Tournament:
    owner = django_user_model.objects.create_user("td", password="judge-me-42")
    t = services.create_tournament(name="Regional Qualifier", owner=owner, seed=21)
    services.register_players(tournament=t, names=[f"Player {i:03d}" for i in range(1, 129)])
    services.pair_next_round(tournament=t)
    return t


@pytest.fixture
def laptop(browser: Any, live_server: Any, big_round: Tournament) -> Any:
    """The organizer's laptop (1366x768), logged in, on round 1's screen."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    user = User.objects.get(username="td")
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session.session_key,
          "url": live_server.url}]
    )  # fmt: skip
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(f"{live_server.url}/t/{big_round.slug}/manage/rounds/1/")
    yield page
    context.close()


def at(t: Tournament, table: int) -> Match:
    return Match.objects.get(round__tournament=t, round__number=1, table=table)


def test_results_are_entered_with_the_keyboard_alone(laptop: Any, big_round: Tournament) -> None:
    from playwright.sync_api import expect

    page = laptop
    # Read before typing: the live server writes meanwhile, and SQLite's shared-cache test
    # database refuses a read while a write holds the table.
    pk = {table: at(big_round, table).pk for table in (3, 4, 5, 6)}
    field = page.locator("#quick-entry")
    expect(field).to_be_focused()  # autofocus: the organizer types straight away
    for table, typed in ((3, "3 2-1"), (4, "4 d"), (5, "5 0-2")):
        page.keyboard.type(typed)
        page.keyboard.press("Enter")
        row = page.locator(f"#match-{pk[table]}")
        expect(row).to_have_class("done")
        expect(page.locator("#quick-entry")).to_have_value("")
        expect(page.locator("#quick-entry")).to_be_focused()
    expect(page.locator(f"#match-{pk[4]}")).to_contain_text("0-0-3")
    expect(page.locator("#missing")).to_contain_text("61 results still missing")

    # A result no best of three can have: refused beside the field, the typing kept.
    page.keyboard.type("6 3-0")
    page.keyboard.press("Enter")
    expect(page.locator("#quick-msg")).to_contain_text("Table 6:")
    expect(page.locator("#quick-entry")).to_have_value("6 3-0")
    expect(page.locator("#quick-entry")).to_be_focused()
    expect(page.locator(f"#match-{pk[6]}")).to_have_class("open")
    # Mend it from the keyboard: back over the 3, a 2, Enter.
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Delete")
    page.keyboard.type("2")
    page.keyboard.press("Enter")
    expect(page.locator(f"#match-{pk[6]}")).to_have_class("done")
    expect(page.locator("#quick-entry")).to_have_value("")
    assert [s.games_won for s in at(big_round, 6).seats.order_by("position")] == [2, 0]


def test_a_refused_result_in_a_row_shows_its_message_in_the_row_and_keeps_the_input(
    laptop: Any, big_round: Tournament
) -> None:
    from playwright.sync_api import expect

    page = laptop
    m = at(big_round, 9)
    row = page.locator(f"#match-{m.pk}")
    row.get_by_role("link", name="Edit").click()
    expect(row).to_have_class("edit")
    row.locator('input[name="wins_a"]').fill("3")
    row.locator('input[name="wins_b"]').fill("0")
    row.get_by_role("button", name="Save").click()
    expect(row.locator(".error")).to_contain_text("2 games")
    expect(row.locator('input[name="wins_a"]')).to_have_value("3")
    expect(row.locator('input[name="wins_b"]')).to_have_value("0")
    box, viewport = row.bounding_box(), page.viewport_size
    assert box is not None and 0 <= box["y"] < viewport["height"], "the message is on screen"
    row.locator('input[name="wins_a"]').fill("2")
    row.get_by_role("button", name="Save").click()
    expect(row).to_have_class("done")
    expect(row).to_contain_text("2-0")


def test_the_missing_only_filter_and_jump_to_a_table(laptop: Any, big_round: Tournament) -> None:
    from playwright.sync_api import expect

    for table in range(1, 11):
        services.record_result(match=at(big_round, table), wins=(2, 1))
    page = laptop
    page.reload()
    page.locator("#missing-only").click()
    expect(page.locator("#rounds-panel tbody tr")).to_have_count(54)
    expect(page.locator("#rounds-panel tbody tr.done")).to_have_count(0)
    assert page.url.endswith("?missing=1")

    page.locator("#jump-table").fill("40")
    page.keyboard.press("Enter")
    row = page.locator(f"#match-{at(big_round, 40).pk}")
    expect(row).to_have_class("edit")
    expect(row.locator("button").first).to_be_focused()
    page.keyboard.press("Enter")  # the first one-click result, 2-0
    expect(row).to_have_class("done")


def test_twenty_tables_or_more_are_visible_on_a_1366x768_laptop(
    laptop: Any, artifacts: Any
) -> None:
    laptop.screenshot(path=str(artifacts / "round-screen-1366x768.png"))
    visible = laptop.evaluate(
        """() => [...document.querySelectorAll('#rounds-panel tbody tr')].filter(tr => {
             const r = tr.getBoundingClientRect();
             return r.top >= 0 && r.bottom <= window.innerHeight;
           }).length"""
    )
    assert visible >= 20, visible
