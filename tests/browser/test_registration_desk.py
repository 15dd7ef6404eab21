"""The registration desk on an organizer's laptop (1920x1080, issue 26 item 1): fourteen
entries accepted in one click, and a drop that asks first, in place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from tournaments import services
from tournaments.models import Entry, Player, Tournament
from tournaments.services import registration as reg

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_in(page: Any, base: str, next_url: str) -> None:
    page.goto(f"{base}/accounts/login/?next={next_url}")
    page.get_by_label("Username").fill("td")
    page.get_by_label("Password").fill("judge-me-42")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"**{next_url}")


def test_the_desk_accepts_fourteen_entries_in_one_click_and_a_drop_asks_first(
    page: Any, live_server: Any, settings: Any, django_user_model: type[User], artifacts: Path
) -> None:
    from playwright.sync_api import expect

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    owner = django_user_model.objects.create_user("td", password="judge-me-42")
    t = services.create_tournament(name="Club Night", owner=owner, seed=26)
    reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=True, check_in=True, by=owner
    )
    for k in range(1, 15):
        reg.register_self(tournament=t, name=f"Queued {k}")
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.set_viewport_size({"width": 1920, "height": 1080})

    desk = f"/t/{t.slug}/manage/registration/"
    log_in(page, live_server.url, desk)
    expect(page.locator("#pending-title")).to_have_text("Waiting for approval (14)")
    expect(page.locator("#checkin-title")).not_to_contain_text("Everyone")
    page.screenshot(path=str(artifacts / "registration-desk-pending-1080p.png"))
    posts.clear()
    page.locator("#accept-all").click()
    expect(page.locator("#registration-panel .notice")).to_contain_text("14 entries accepted")
    expect(page.locator("#pending-title")).to_have_text("Waiting for approval (0)")
    assert len(posts) == 1  # one request, one panel
    assert Player.objects.filter(tournament=t, entry=Entry.ACCEPTED).count() == 14
    page.screenshot(path=str(artifacts / "registration-desk-accepted-1080p.png"))

    # The players screen (more than the event screen lists): Drop asks in the row.
    page.goto(f"{live_server.url}/t/{t.slug}/manage/players/")
    queued = Player.objects.get(tournament=t, name="Queued 3")
    row = page.locator(f"#player-{queued.pk}")
    row.get_by_role("button", name="Drop Queued 3").click()
    expect(row).to_contain_text("Drop Queued 3 before round 1?")
    assert not Player.objects.get(pk=queued.pk).dropped  # asked, not done
    page.screenshot(path=str(artifacts / "organizer-drop-confirm-1080p.png"))
    page.get_by_role("button", name="Yes, drop Queued 3").click()
    expect(page.locator("#players-panel .notice")).to_contain_text("Queued 3 dropped.")
    expect(page.locator(f"#player-{queued.pk}")).to_contain_text("Dropped")
    assert Player.objects.get(pk=queued.pk).dropped
    assert dialogs == []  # no browser dialog: the confirmations are the page's own
    assert Tournament.objects.get(pk=t.pk).players.filter(entry=Entry.PENDING).count() == 0
