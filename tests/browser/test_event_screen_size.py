"""The event screen in a real browser (issue 26 item 2): its quick entry takes the focus
without scrolling the title and the event's status away, and a player dropped from the
players screen's second page is dropped in place, the page kept."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User

from tournaments import services
from tournaments.models import Match, MatchKind, Tournament
from tournaments.pages.common import current_round

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def top_cut(django_user_model: type[User]) -> Tournament:
    """60 players after three Swiss rounds, their top 8 paired: the bracket stands above
    the rounds on the event screen."""
    owner = django_user_model.objects.create_user("td")
    t = services.create_tournament(
        name="Regional Qualifier", owner=owner, seed=21, planned_rounds=3, top_cut=8
    )
    services.register_players(tournament=t, names=[f"Player {i:03d}" for i in range(1, 61)])
    for _ in range(3):
        services.pair_next_round(tournament=t)
        for m in Match.objects.filter(round=current_round(t), kind=MatchKind.PLAYED):
            services.record_result(match=m, wins=(2, 1))
    services.start_top_cut(tournament=t, size=8)
    return t


def logged_in(browser: Any, live_server: Any, width: int, height: int) -> Any:
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    user = User.objects.get(username="td")
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    context = browser.new_context(viewport={"width": width, "height": height})
    context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session.session_key,
          "url": live_server.url}]
    )  # fmt: skip
    context.set_default_timeout(10_000)
    return context


def test_the_quick_entry_takes_the_focus_with_the_title_and_status_still_on_screen(
    browser: Any, live_server: Any, top_cut: Tournament
) -> None:
    from playwright.sync_api import expect

    context = logged_in(browser, live_server, 1366, 768)
    page = context.new_page()
    page.goto(f"{live_server.url}/t/{top_cut.slug}/manage/")
    quick = page.locator("#quick-entry")
    expect(quick).to_be_focused()
    # The field is below the fold (the bracket above it): autofocus scrolled to it.
    assert quick.evaluate("el => el.getBoundingClientRect().top + window.scrollY") > 768
    assert page.evaluate("window.scrollY") == 0
    expect(page.locator("h1")).to_be_in_viewport()
    expect(page.locator("#round-actions")).to_be_in_viewport()
    page.keyboard.type("3 2-0")  # the organizer types straight away
    expect(quick).to_have_value("3 2-0")
    context.close()


def test_a_player_dropped_on_the_players_screens_second_page_stays_on_that_page(
    browser: Any, live_server: Any, top_cut: Tournament
) -> None:
    from playwright.sync_api import expect

    context = logged_in(browser, live_server, 1366, 768)
    page = context.new_page()
    page.goto(f"{live_server.url}/t/{top_cut.slug}/manage/")
    page.locator("#all-players").click()
    page.locator('.pager a[rel="next"]').click()
    expect(page).to_have_url(f"{live_server.url}/t/{top_cut.slug}/manage/players/?page=2")
    # Player 055 is in the top cut: the drop asks first, saying what it concedes.
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Drop Player 055").click()
    page.get_by_role("button", name="Yes, drop Player 055").click()  # asked in the row
    expect(page.locator("#players-panel .notice")).to_have_text("Player 055 dropped.")
    expect(page.locator("#players-panel tbody tr")).to_have_count(10)  # still page 2
    expect(page.get_by_role("button", name="Re-admit Player 055")).to_be_visible()
    page.locator("#players-q").fill("player 05")
    page.locator("#players-q").press("Enter")
    expect(page.locator("#players-panel tbody tr")).to_have_count(10)  # 050 to 059
    expect(page).to_have_url(re.compile(r"/manage/players/\?q=player(\+|%20)05$"))
    context.close()
