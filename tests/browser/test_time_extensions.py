"""A floor judge adds 5 minutes to a table from their phone (issue 27); both players'
private pages, open on their phones (390 x 844), then show their table's own end, and
their clocks count down to it: 5 minutes after the round's end. The other tables' players
keep the round's end.

Screenshots go to test-artifacts/time-extension-*.png.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.browser.conftest import ARTIFACTS
from tournaments import services
from tournaments.models import Match, Round, Seat, StaffRole
from tournaments.pages.floor import hm
from tournaments.services.clock import start_clock
from tournaments.services.registration import issue_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}


def logged_in_context(browser: Any, live_server: Any, user: User, **options: Any) -> Any:
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    context = browser.new_context(**options)
    context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session.session_key,
          "url": live_server.url}]
    )  # fmt: skip
    return context


def seconds_left(phone: Any) -> int:
    """What the phone's countdown shows now, in seconds ("54:58" -> 3298)."""
    text = phone.locator("#private-status .clock-time").inner_text().strip()
    minutes, seconds = text.lstrip("-").split(":")[-2:]
    return int(minutes) * 60 + int(seconds)


def test_a_judge_adds_five_minutes_and_both_players_clocks_count_to_their_tables_end(
    browser: Any, live_server: Any, django_user_model: type[User]
) -> None:
    from playwright.sync_api import expect

    owner = django_user_model.objects.create_user("td")
    t = services.create_tournament(name="Floor Open", owner=owner, seed=5)
    services.register_players(
        tournament=t,
        names=["Ana Lopez", "Ben Ortiz", "Cleo Park", "Dev Rao", "Eva Lund", "Finn Moe"],
    )
    round_ = services.pair_next_round(tournament=t)
    start_clock(round=round_, minutes=50, by=owner)
    judge = django_user_model.objects.create_user("floor")
    services.add_staff(tournament=t, username="floor", role=StaffRole.FLOOR_JUDGE, by=owner)
    match = Match.objects.get(round=round_, table=2)
    seated = [s.player for s in Seat.objects.filter(match=match).select_related("player")]
    elsewhere = Seat.objects.filter(round=round_, match__table=1).select_related("player")[0]
    round_ends: datetime = Round.objects.get(pk=round_.pk).clock_ends_at
    table_ends = round_ends + timedelta(minutes=5)

    phones = []
    for player in [*seated, elsewhere.player]:
        context = browser.new_context(**PHONE)
        context.set_default_timeout(15_000)
        phone = context.new_page()
        phone.goto(f"{live_server.url}/p/{issue_link(player=player)}/")
        expect(phone.locator("#private-status [data-clock-ends]")).to_have_attribute(
            "data-clock-ends", round_ends.isoformat()
        )
        phones.append(phone)
    before = [seconds_left(p) for p in phones]
    assert all(49 * 60 < s <= 50 * 60 for s in before), before

    desk = logged_in_context(browser, live_server, judge, **PHONE)
    floor = desk.new_page()
    floor.goto(f"{live_server.url}/t/{t.slug}/judge/tables/")
    floor.get_by_label("Table").fill("2")
    floor.get_by_role("button", name="+5 min").click()
    expect(floor.locator("#floor-notice")).to_contain_text(
        f"Table 2: +5 min, ends {hm(table_ends)}."
    )
    expect(floor.locator("#extended-tables")).to_contain_text("Table 2")
    assert floor.evaluate("document.documentElement.scrollWidth") <= 390
    floor.screenshot(path=str(Path(ARTIFACTS) / "time-extension-judge.png"))

    # The players' pages refresh themselves (live sections): no reload.
    for k, phone in enumerate(phones[:2]):
        clock = phone.locator("#private-status [data-clock-ends]")
        expect(clock).to_have_attribute("data-clock-ends", table_ends.isoformat(), timeout=20_000)
        expect(phone.locator("#private-status .clock-extension")).to_have_text(
            "+5 min for this table"
        )
        expect(phone.locator("#private-status .clock-extension")).to_be_in_viewport()
        left = seconds_left(phone)
        assert 54 * 60 < left <= 55 * 60, left  # counting to the table's end, not the round's
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        phone.screenshot(path=str(Path(ARTIFACTS) / f"time-extension-player-{k + 1}.png"))
    other = phones[2]
    other.wait_for_timeout(1000)
    other.reload()
    expect(other.locator("#private-status [data-clock-ends]")).to_have_attribute(
        "data-clock-ends", round_ends.isoformat()
    )
    assert other.locator(".clock-extension").count() == 0
    assert seconds_left(other) <= 50 * 60

    # Without JavaScript the page says the table's end as a time of day.
    plain = browser.new_context(**PHONE, java_script_enabled=False)
    page = plain.new_page()
    page.goto(f"{live_server.url}/p/{issue_link(player=seated[0])}/")
    clock = page.locator("#private-status .clock")
    expect(clock).to_contain_text(f"Table ends {hm(table_ends)}")
    plain.close()
    desk.close()
    for phone in phones:
        phone.context.close()
