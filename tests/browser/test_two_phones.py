"""Players take part from their phones (issue 14), in real browsers: four phones register
by the event's link, check in, and after pairing one table reports and confirms (the
standings change) while the other disagrees; the organizer's round screen flags that
table and the organizer's entry settles it."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from tournaments import services
from tournaments.models import Match, MatchKind, Player, Tournament
from tournaments.services.registration import set_registration

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
NAMES = ["Ana Lopez", "Ben Ortiz", "Cleo Park", "Dev Rao"]


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


def test_four_phones_register_check_in_report_confirm_and_a_dispute_is_settled(
    browser: Any, live_server: Any, django_user_model: type[User], artifacts: Any
) -> None:
    from playwright.sync_api import expect

    owner = django_user_model.objects.create_user("td")
    t = services.create_tournament(name="Thursday Draft", owner=owner, seed=5)
    set_registration(tournament=t, registration_open=True, cap=None, approval=False, check_in=True)

    # Idle phones leave their (polling) pages: the live server shares one in-memory SQLite
    # connection between its threads, where two requests at once can meet a table lock.
    phones: dict[str, Any] = {}
    links: dict[str, str] = {}
    for name in NAMES:
        context = browser.new_context(**PHONE)
        context.set_default_timeout(10_000)
        phone = context.new_page()
        # The QR code on the event screen opens this link.
        phone.goto(f"{live_server.url}/t/{t.slug}/register/")
        phone.get_by_label("Your name").fill(name)
        phone.get_by_role("button", name="Register").click()
        phone.wait_for_url("**/p/**")
        links[name] = phone.url
        phone.get_by_role("button", name="Check in").click()
        expect(phone.locator("#check-in")).to_contain_text("checked in")
        phone.goto("about:blank")
        phones[name] = phone
    assert Player.objects.filter(tournament=t, checked_in_at__isnull=False).count() == 4

    services.pair_next_round(tournament=Tournament.objects.get(pk=t.pk), by=owner)
    tables = [
        [s.player.name for s in m.seats.select_related("player").order_by("position")]
        for m in Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED).order_by("table")
    ]
    (a, b), (c, d) = tables

    # Table 1: a reports 2-1 from their side, b confirms; the standings change.
    phones[a].goto(links[a])
    phones[a].get_by_label("Games I won").select_option("2")
    phones[a].get_by_label(f"Games {b} won").select_option("1")
    phones[a].get_by_role("button", name="Report").click()
    expect(phones[a].locator("#report-panel")).to_contain_text(f"Waiting for {b} to confirm")
    phones[a].goto("about:blank")
    phones[b].goto(links[b])
    expect(phones[b].locator("#report-panel")).to_contain_text(f"{a} reported")
    phones[b].get_by_role("button", name="Confirm").click()
    expect(phones[b].locator("#report-panel")).to_contain_text("you lost 1-2")
    phones[b].goto(f"{live_server.url}/t/{t.slug}/standings/")
    first = phones[b].locator("#standings tbody tr").first
    expect(first).to_contain_text(a)
    expect(first).to_contain_text("3")
    phones[b].screenshot(path=str(artifacts / "two-phones-standings.png"))
    phones[b].goto("about:blank")

    # Table 2: c reports 2-0, d disputes: flagged on the organizer's round screen.
    phones[c].goto(links[c])
    phones[c].get_by_label("Games I won").select_option("2")
    phones[c].get_by_label(f"Games {d} won").select_option("0")
    phones[c].get_by_role("button", name="Report").click()
    expect(phones[c].locator("#report-panel")).to_contain_text(f"Waiting for {d} to confirm")
    phones[c].goto("about:blank")
    phones[d].goto(links[d])
    phones[d].get_by_role("button", name="Dispute").click()
    expect(phones[d].locator("#report-panel")).to_contain_text("disputed")
    phones[d].goto("about:blank")

    laptop = logged_in_context(browser, live_server, owner, viewport={"width": 1366, "height": 768})
    desk = laptop.new_page()
    desk.goto(f"{live_server.url}/t/{t.slug}/manage/rounds/1/")
    desk.locator("#to-check").click()
    expect(desk.locator("#rounds-panel table.compact tbody tr")).to_have_count(1)
    expect(desk.locator("#reports-panel")).to_contain_text(f"{c} reported 2-0")
    desk.screenshot(path=str(artifacts / "two-phones-to-check.png"))
    desk.locator("#quick-entry").fill("2 1-2")  # the organizer's entry wins
    desk.keyboard.press("Enter")
    expect(desk.locator("#quick-msg")).to_contain_text("Table 2")
    laptop.close()
    phones[d].goto(links[d])
    expect(phones[d].locator("#report-panel")).to_contain_text("you won 2-1")
    for phone in phones.values():
        phone.context.close()
