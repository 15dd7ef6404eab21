"""A floor judge on a phone (390x844) issues a Match Loss from the penalty screen, found
by table number; the match's result is entered and the public standings show it."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from tournaments import services
from tournaments.models import Match, Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def floor(django_user_model: type[User]) -> Tournament:
    owner = django_user_model.objects.create_user("td")
    django_user_model.objects.create_user("fiona")
    t = services.create_tournament(name="Phone Open", owner=owner, seed=17)
    services.register_players(tournament=t, names=[f"Player {i}" for i in range(1, 9)])
    services.pair_next_round(tournament=t)
    services.add_staff(tournament=t, username="fiona", role="floor_judge", by=owner)
    return t


@pytest.fixture
def phone(browser: Any, live_server: Any, floor: Tournament) -> Any:
    """The floor judge's phone, logged in."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    user = User.objects.get(username="fiona")
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session.session_key,
          "url": live_server.url}]
    )  # fmt: skip
    context.set_default_timeout(10_000)
    page = context.new_page()
    yield page
    context.close()


def test_a_judge_issues_a_match_loss_on_a_phone_and_the_standings_change(
    phone: Any, live_server: Any, browser: Any, floor: Tournament, artifacts: Any
) -> None:
    from playwright.sync_api import expect

    # Read before the browser writes: SQLite's shared test database refuses a read while
    # the live server's write holds the table.
    match = Match.objects.get(round__tournament=floor, table=3)
    loser, winner = (
        s.player.name for s in match.seats.select_related("player").order_by("position")
    )
    base = f"{live_server.url}/t/{floor.slug}"

    public = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    public.goto(f"{base}/standings/")
    winner_row = public.locator("tbody tr", has_text=winner)
    expect(winner_row).not_to_contain_text("1-0-0")

    page = phone
    page.goto(f"{base}/judge/penalties/")
    # Nothing wider than the phone: no sideways scrolling to reach a field.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.get_by_label("Table").fill("3")
    page.get_by_role("button", name="Find its players").click()
    players = page.get_by_label("Player", exact=True)
    expect(players.locator("option")).to_have_count(3)  # "Pick the player" and the two
    players.select_option(label=f"{loser} · table 3")
    page.get_by_label("Infraction").select_option("outside_assistance")
    page.get_by_label("Note").fill("A friend suggested the attack")
    button = page.get_by_role("button", name="Issue the penalty")
    box = button.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390
    button.click()
    expect(page.locator("#penalties-panel .notice")).to_contain_text(
        f"Match Loss for {loser} (Outside Assistance): table 3 entered, {loser} loses 0-2."
    )
    expect(page.locator("#penalties-panel .penalty-list li").first).to_contain_text(
        "A friend suggested the attack"
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(artifacts / "penalties-phone.png"), full_page=True)

    public.goto(f"{base}/standings/")
    expect(public.locator("tbody tr", has_text=winner)).to_contain_text("1-0-0")
    expect(public.locator("tbody tr", has_text=loser)).to_contain_text("0-1-0")
