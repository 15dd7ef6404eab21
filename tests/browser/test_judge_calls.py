"""Judge calls (issue 27) in real browsers, on two 390 x 844 phones: a player calls a
judge from their private page; the call shows up on the judge's screen by itself (no
reload), with the visible alert; the judge claims it and the player's page names the
judge on the way; the judge resolves it and both pages say so. No page is reloaded:
a mark set in each page's window survives to the end.

(Pages poll here instead of streaming: tests/browser/conftest.py says why; the hub's
telling of judges' screens is tested in tests/test_judge_calls.py.)
Screenshots go to test-artifacts/judge-calls-*.png.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from tournaments import services
from tournaments.models import Match, MatchKind, Tournament
from tournaments.services.registration import issue_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
PASSWORD = "floor-judge-42"
# Polls every 3 s (data-poll) when there is no stream; the first may wait a whole period.
LIVE_MS = 8_000


def event(owner: User) -> tuple[Tournament, Match]:
    t = services.create_tournament(name="Saturday Modern Open", owner=owner, seed=11)
    services.register_players(
        tournament=t, names=["Ana Souza", "Bartholomew Featherstonehaugh", "Cleo Park", "Dev Rao"]
    )
    services.pair_next_round(tournament=t, by=owner)
    match = Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED).order_by("table")[1]
    return t, match


def test_a_call_from_a_players_phone_reaches_a_judges_phone_live_and_back(
    browser: Any,
    live_server: Any,
    settings: Any,
    django_user_model: type[User],
    artifacts: Path,
) -> None:
    from playwright.sync_api import expect

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    owner = django_user_model.objects.create_user("td")
    django_user_model.objects.create_user("judge1", password=PASSWORD)
    t, match = event(owner)
    services.add_staff(tournament=t, username="judge1", role="floor_judge", by=owner)
    caller = match.seats.order_by("position").first().player  # type: ignore[union-attr]
    token = issue_link(player=caller, by=owner)
    table = match.table

    judge_context = browser.new_context(**PHONE)
    judge_context.set_default_timeout(10_000)
    judge = judge_context.new_page()
    judge.goto(f"{live_server.url}/accounts/login/?next=/t/{t.slug}/judge/")
    judge.get_by_label("Username").fill("judge1")
    judge.get_by_label("Password").fill(PASSWORD)
    judge.get_by_role("button", name="Log in").click()
    judge.wait_for_url(f"**/t/{t.slug}/judge/")
    expect(judge.locator("#judge-calls")).to_contain_text("No open calls.")
    # The first touch turns the sound on (browsers allow sound only after a gesture).
    judge.locator("#call-sound").tap()
    expect(judge.locator("#call-sound")).to_have_text("Sound and vibration on")
    judge.evaluate("window.notReloaded = true")

    phone_context = browser.new_context(**PHONE)
    phone_context.set_default_timeout(10_000)
    phone = phone_context.new_page()
    phone.goto(f"{live_server.url}/p/{token}/")
    phone.evaluate("window.notReloaded = true")
    phone.get_by_label("What happened?").fill("opponent missed a trigger")
    phone.get_by_role("button", name="Call a judge").click()
    status = phone.locator("#private-call [data-call-state]")
    expect(status).to_contain_text(f"Waiting for a judge (table {table})")

    card = judge.locator(f'article.call[data-table="{table}"]')
    expect(card).to_be_visible(timeout=LIVE_MS)
    expect(card).to_contain_text("opponent missed a trigger")
    expect(card).to_contain_text(caller.name)
    expect(judge.locator("#call-alert")).to_have_text(f"New call: table {table}")
    expect(judge.locator("#call-alert")).to_be_visible()
    fits = judge.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert fits, "the judges' screen is wider than the phone"
    judge.screenshot(path=str(artifacts / "judge-calls-new.png"), full_page=True)

    card.get_by_role("button", name="Claim").click()
    expect(card).to_contain_text("You have this call")
    expect(status).to_contain_text("A judge is on the way: judge1", timeout=LIVE_MS)
    phone.screenshot(path=str(artifacts / "judge-calls-player-on-the-way.png"), full_page=True)

    card.get_by_label(f"What was done at table {table} (optional)").fill("explained the trigger")
    card.get_by_role("button", name="Resolve").click()
    expect(judge.locator("#judge-calls")).to_contain_text("No open calls.")
    expect(judge.locator(".resolved-calls")).to_contain_text(
        f"Table {table}, round 1 ({caller.name}): resolved by judge1: “explained the trigger”"
    )
    expect(phone.locator("#private-call")).to_contain_text(
        "Your table's last call: resolved by judge1.", timeout=LIVE_MS
    )
    expect(phone.get_by_role("button", name="Call a judge")).to_be_visible()
    judge.screenshot(path=str(artifacts / "judge-calls-resolved.png"), full_page=True)
    assert judge.evaluate("window.notReloaded === true")
    assert phone.evaluate("window.notReloaded === true")
    judge_context.close()
    phone_context.close()
