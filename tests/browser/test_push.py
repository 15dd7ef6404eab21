"""Notifications with Web Push (issue 29) in Chromium, on a 390 x 844 phone.

What Debian's headless chromium can and cannot do here: it registers the service worker
and grants the notification permission, but PushManager.subscribe is refused ("AbortError:
Registration failed - permission denied": the build has no push service of its own, no
Google keys). So:
- the real subscribe is tried, and the page must show the browser's refusal, with
  nothing stored and "Notify me" still offered;
- the rest of the flow runs with the browser's PushManager stood in for by a script
  (subscribe/getSubscription/unsubscribe) whose subscription is a real P-256 key pair
  held by the test, pointing at the fake push service: the page posts it, the server
  keeps it, a report by the opponent is sent by the sender, the fake service receives it
  encrypted and the test decrypts it with that key; then "Stop notifications".
Not tested in a browser: a real push service's delivery and the worker's showing of the
notification and its click (the browser never receives a push here).
Screenshots go to test-artifacts/push-*.png.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.push_service import Browser, FakePushService, fake_push_service
from tournaments import services, vapid, webpush
from tournaments.models import Match, MatchKind, Player, PushSubscription, Tournament
from tournaments.services import reports
from tournaments.services.registration import issue_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@pytest.fixture(autouse=True)
def server_keys(settings: Any) -> Iterator[vapid.VapidKeys]:
    keys = vapid.from_environment({"VAPID_PRIVATE_KEY": vapid.new_private_key()})
    assert keys is not None
    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY = keys.private_key, keys.public_key
    settings.PUSH_LOCAL_ENDPOINTS = True
    vapid.server_keys.cache_clear()
    webpush.forget_vapid_headers()
    yield keys
    vapid.server_keys.cache_clear()


@pytest.fixture
def service() -> Iterator[FakePushService]:
    with fake_push_service() as fake:
        yield fake


def seated(owner: User) -> tuple[Tournament, Match, Player, Player, str]:
    t = services.create_tournament(name="Saturday Modern Open", owner=owner, seed=11)
    services.register_players(tournament=t, names=["Ana Souza", "Ben Ito", "Cleo Park", "Dev Rao"])
    services.pair_next_round(tournament=t, by=owner)
    match = Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED).order_by("table")[0]
    a, b = (s.player for s in match.seats.select_related("player").order_by("position"))
    return t, match, a, b, issue_link(player=a, by=owner)


def no_overflow(page: Any) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_the_real_subscribe_is_refused_by_this_chromium_and_the_page_says_so(
    browser: Any, live_server: Any, django_user_model: type[User], artifacts: Path
) -> None:
    from playwright.sync_api import expect

    _t, _match, _a, _b, token = seated(django_user_model.objects.create_user("td"))
    context = browser.new_context(permissions=["notifications"], **PHONE)
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(f"{live_server.url}/p/{token}/")
    optin = page.locator("#push-optin")
    expect(optin.locator("[data-push-state]")).to_have_text("This device is not notified.")
    expect(optin.get_by_role("button", name="Notify me")).to_be_visible()
    expect(optin.get_by_role("button", name="Stop notifications", exact=True)).to_be_hidden()

    optin.get_by_role("button", name="Notify me").click()
    refused = page.locator("[data-push-refused]")
    expect(refused).to_be_visible()
    expect(refused).to_contain_text("This browser could not subscribe to notifications:")
    expect(refused).to_contain_text("Registration failed")  # the browser's own words
    expect(page.locator("[data-push-fallback]")).to_contain_text("beeps and vibrates")
    # The worker is registered for the private page's own scope, from the site's root.
    worker = page.evaluate(
        """async (scope) => {
          const reg = await navigator.serviceWorker.getRegistration(scope);
          const w = reg && (reg.active || reg.waiting || reg.installing);
          return reg ? [new URL(reg.scope).pathname, new URL(w.scriptURL).pathname] : null;
        }""",
        f"/p/{token}/",
    )
    assert worker == [f"/p/{token}/", "/push-sw.js"]
    assert PushSubscription.objects.count() == 0
    expect(page.get_by_role("button", name="Notify me")).to_be_visible()
    assert no_overflow(page)
    page.screenshot(path=str(artifacts / "push-refused.png"), full_page=True)
    context.close()


STAND_IN = """
(() => {
  const held = %s;
  let current = null;
  window.__pushKey = null;
  PushManager.prototype.subscribe = function (options) {
    const key = new Uint8Array(options.applicationServerKey);
    window.__pushKey = btoa(String.fromCharCode.apply(null, key))
      .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
    current = {
      endpoint: held.endpoint,
      toJSON: () => held,
      unsubscribe: () => { current = null; return Promise.resolve(true); },
    };
    return Promise.resolve(current);
  };
  PushManager.prototype.getSubscription = function () { return Promise.resolve(current); };
})();
"""


def test_a_player_opts_in_is_told_of_the_opponents_report_then_opts_out(
    browser: Any,
    live_server: Any,
    django_user_model: type[User],
    service: FakePushService,
    server_keys: vapid.VapidKeys,
    artifacts: Path,
) -> None:
    from playwright.sync_api import expect

    _t, match, ana, ben, token = seated(django_user_model.objects.create_user("td"))
    phone = Browser()  # the key pair the browser would hold
    context = browser.new_context(permissions=["notifications"], **PHONE)
    context.set_default_timeout(10_000)
    context.add_init_script(STAND_IN % json.dumps(phone.subscription(service.endpoint("ana"))))
    page = context.new_page()
    page.goto(f"{live_server.url}/p/{token}/")
    optin = page.locator("#push-optin")
    optin.get_by_role("button", name="Notify me").click()

    expect(page.locator("[data-push-notice]")).to_have_text("Notifications are on for this device.")
    expect(page.locator("[data-push-state]")).to_have_text("This device is notified.")
    expect(page.get_by_role("button", name="Stop notifications", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Notify me")).to_be_hidden()
    assert page.evaluate("window.__pushKey") == server_keys.public_key
    expect(page.locator("[data-push-fallback]")).to_be_hidden()  # no need: it is notified
    stored = PushSubscription.objects.get()
    assert (stored.player_id, stored.p256dh, stored.auth) == (ana.pk, phone.p256dh, phone.auth)
    assert no_overflow(page)
    page.screenshot(path=str(artifacts / "push-on.png"), full_page=True)

    reports.report(player=ben, match=match, wins_mine=2, wins_theirs=1)
    assert webpush.send_due().sent == 1
    told = phone.decrypt(service.delivered()[0].body)
    assert told["title"] == f"Table {match.table}: your opponent reported"
    assert told["body"].startswith(f"{ben.name} reported 1-2 from your side")

    page.get_by_role("button", name="Stop notifications", exact=True).click()
    expect(page.locator("[data-push-notice]")).to_have_text("Notifications are off on this device.")
    expect(page.get_by_role("button", name="Notify me")).to_be_visible()
    assert PushSubscription.objects.count() == 0
    context.close()


def test_a_judge_opts_in_on_the_judges_screen_and_hears_of_a_new_call(
    browser: Any,
    live_server: Any,
    django_user_model: type[User],
    service: FakePushService,
    settings: Any,
) -> None:
    from playwright.sync_api import expect

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    owner = django_user_model.objects.create_user("td")
    t, match, ana, _ben, _token = seated(owner)
    django_user_model.objects.create_user("judge1", password="floor-judge-42")
    services.add_staff(tournament=t, username="judge1", role="floor_judge", by=owner)
    phone = Browser()
    context = browser.new_context(permissions=["notifications"], **PHONE)
    context.set_default_timeout(10_000)
    context.add_init_script(STAND_IN % json.dumps(phone.subscription(service.endpoint("j1"))))
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/?next=/t/{t.slug}/judge/")
    page.fill("input[name=username]", "judge1")
    page.fill("input[name=password]", "floor-judge-42")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#push-optin")).to_contain_text("for every new judge call")
    page.get_by_role("button", name="Notify me").click()
    expect(page.locator("[data-push-notice]")).to_have_text("Notifications are on for this device.")
    assert PushSubscription.objects.get().user.username == "judge1"

    from tournaments.services import calls

    calls.call_judge(player=ana, note="Misdeal")
    assert webpush.send_due().sent == 1
    told = phone.decrypt(service.delivered()[0].body)
    assert told["title"] == f"Judge call: table {match.table}"
    assert told["body"] == "Round 1. Misdeal"
    context.close()


def test_over_plain_http_at_a_venue_the_page_says_why_and_offers_no_button(
    browser: Any, live_server: Any, django_user_model: type[User], settings: Any
) -> None:
    from playwright.sync_api import expect

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "venue.test"]
    _t, _match, _a, _b, token = seated(django_user_model.objects.create_user("td"))
    port = live_server.url.rsplit(":", 1)[1]
    # A name that is not this machine's: the page is plain HTTP to the browser, as a
    # phone on the venue's Wi-Fi sees the laptop (not a secure context).
    venue = browser.browser_type.launch(
        executable_path=CHROMIUM,
        args=[*CHROMIUM_ARGS, "--host-resolver-rules=MAP venue.test 127.0.0.1"],
    )
    try:
        page = venue.new_context(**PHONE).new_page()
        page.goto(f"http://venue.test:{port}/p/{token}/")
        assert page.evaluate("window.isSecureContext") is False
        reason = page.locator("[data-push-reason]")
        expect(reason).to_contain_text("only on a secure (HTTPS) connection")
        expect(page.locator("[data-push-fallback]")).to_contain_text("beeps and vibrates")
        assert page.get_by_role("button", name="Notify me").count() == 0
        assert no_overflow(page)
    finally:
        venue.close()
