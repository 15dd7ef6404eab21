"""An 8-player event run in a real browser: log in, create, paste the players, pair and
report three Swiss rounds by clicking the result buttons, a top 4, finish."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from tournaments.models import Status, Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RESULTS = ["2-0", "2-1", "1-2", "0-2", "1-1", "2-0", "2-1", "0-0-3"]


def test_an_organizer_runs_an_eight_player_event_with_a_top_4_in_the_browser(
    page: Any, live_server: Any, settings: Any, django_user_model: type[User], artifacts: Path
) -> None:
    from playwright.sync_api import expect

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    django_user_model.objects.create_user("td", password="judge-me-42")
    htmx_calls: list[str] = []
    page.on("request", lambda r: htmx_calls.append(r.url) if r.headers.get("hx-request") else None)

    page.goto(f"{live_server.url}/accounts/login/?next=/manage/")
    page.get_by_label("Username").fill("td")
    page.get_by_label("Password").fill("judge-me-42")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/manage/")

    page.locator("#id_name").fill("Friday Night Magic")
    page.locator("#id_planned_rounds").fill("3")
    page.locator("#id_top_cut").select_option("4")
    page.get_by_role("button", name="Create the tournament").click()
    page.wait_for_url(re.compile(r"/t/[\w-]+/manage/$"))

    names = "\n".join(["Ana", "Ben", "Cleo", "Dev", "Eva", "Finn", "Gil", "Hana"])
    page.get_by_label("Player names, one a line").fill(names)
    page.get_by_role("button", name="Add these players").click()
    expect(page.locator("#players-title")).to_contain_text("8 active")

    for number in (1, 2, 3):
        page.locator("#pair-button").click()
        expect(page.locator("#rounds-panel h3")).to_contain_text(f"Round {number}")
        expect(page.locator("#missing")).to_contain_text("4 results still missing")
        for k in range(4):
            row = page.locator("#rounds-panel tr.open").first
            row_id = row.get_attribute("id")
            value = RESULTS[(number + k) % len(RESULTS)]
            row.get_by_role("link", name="Edit").click()  # the row's form opens in place
            page.locator(f'#{row_id} button[value="{value}"]').click()
            expect(page.locator(f"#{row_id}")).to_have_class(re.compile(r"\bdone\b"))
            if k < 3:
                expect(page.locator("#missing")).to_contain_text(f"{3 - k} result")
        expect(page.locator("#missing")).to_have_text("All results are in")
        expect(page.locator("#standings-panel")).to_contain_text(f"After round {number}")

    top_cut = page.locator("#round-actions details", has_text="Start the top cut")
    expect(top_cut).to_have_attribute("open", "")  # the planned rounds are played
    page.locator('#round-actions select[name="size"]').select_option("4")
    page.locator("#top-cut-button").click()
    expect(page.locator("#bracket-panel")).to_contain_text("Semifinals")

    for match in range(2):
        page.locator("#bracket-panel .cut-match.open").first.locator('button[value="2-1"]').click()
        expect(page.locator("#bracket-panel .cut-match.open")).to_have_count(1 - match)
    page.locator("#pair-button").click()
    expect(page.locator("#bracket-panel")).to_contain_text("Final")
    page.locator("#bracket-panel .cut-match.open").first.locator('button[value="2-0"]').click()
    expect(page.locator("#bracket-panel .cut-match.open")).to_have_count(0)
    page.once("dialog", lambda dialog: dialog.accept())  # "Finish the tournament?"
    page.locator("#finish-button").click()
    expect(page.locator("#standings-title")).to_have_text("Final standings")
    expect(page.locator("#event-meta")).to_contain_text("Finished")

    page.screenshot(path=str(artifacts / "organizer-8-players.png"), full_page=True)
    t = Tournament.objects.get(name="Friday Night Magic")
    assert t.status == Status.FINISHED and t.rounds.count() == 5
    assert htmx_calls, "the screens should have been driven through htmx"
