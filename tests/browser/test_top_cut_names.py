"""A top 8 walked to its final on the organizer's screens at 1080p (issue 26 item 4): each
screen names the round being played (Quarterfinals, Semifinals, Final), a playoff round's
own address opens it, and the final standings carry the finishes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from tournaments import services
from tournaments.models import Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Ten players, three Swiss rounds (the first seat wins 2-1): a top 8 leaves two out.
SWISS = [
    "p1-p2 p3-p4 p5-p6 p7-p8 p9-p10",
    "p1-p3 p5-p7 p9-p2 p4-p6 p8-p10",
    "p1-p5 p3-p9 p2-p4 p6-p8 p7-p10",
]


def swiss_done(owner: User) -> Tournament:
    doc = {
        "format": "swiss-tournament/1", "name": "Cut Names", "system": "mtr",
        "best_of": 3, "seed": 5,
        "players": [{"id": f"p{i}", "name": f"Player {i}"} for i in range(1, 11)],
        "rounds": [
            {"number": number, "matches": [
                {"table": table, "players": pair.split("-"), "wins": [2, 1], "draws": 0}
                for table, pair in enumerate(line.split(), start=1)
            ]}
            for number, line in enumerate(SWISS, start=1)
        ],
    }  # fmt: skip
    return services.import_document(doc, owner=owner)


def test_an_organizer_walks_a_top_8_to_its_final_and_every_screen_names_the_round(
    page: Any, live_server: Any, settings: Any, django_user_model: type[User], artifacts: Path
) -> None:
    from playwright.sync_api import expect

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    owner = django_user_model.objects.create_user("td", password="judge-me-42")
    t = swiss_done(owner)
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(f"{live_server.url}/accounts/login/?next=/t/{t.slug}/manage/")
    page.get_by_label("Username").fill("td")
    page.get_by_label("Password").fill("judge-me-42")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/manage/$"))

    page.locator("#round-actions summary", has_text="Start the top cut").click()
    page.locator('#round-actions select[name="size"]').select_option("8")
    page.locator("#top-cut-button").click()
    expect(page.locator("#board .notice")).to_have_text("The top 8 is paired.")

    stages = [("Quarterfinals", 4, "round 3"), ("Semifinals", 2, "the Quarterfinals")]
    stages.append(("Final", 1, "the Semifinals"))
    for k, (name, matches, after) in enumerate(stages):
        # The event screen names the round being played everywhere it names one.
        expect(page.locator("#clock-title")).to_have_text(f"Round clock · {name}")
        expect(page.locator("#undo-button")).to_have_text(f"Undo the pairing of the {name}")
        expect(page.locator("#playing-label")).to_have_text(f"· {name}")
        expect(page.locator("#standings-top > p.meta").first).to_contain_text(f"After {after}")
        expect(page.locator("#bracket-panel .cut-match.open")).to_have_count(matches)
        if name == "Final":
            # The final's own address: the bracket under the round's name, results there.
            page.goto(f"{live_server.url}/t/{t.slug}/manage/rounds/6/")
            expect(page.locator("h1")).to_contain_text("Cut Names · Final")
            expect(page).to_have_title(re.compile(r"^Final · Cut Names"))
            page.screenshot(path=str(artifacts / "top-cut-names-final-round.png"))
        for left in range(matches, 0, -1):
            # Upsets until the final: the finishes then differ from the Swiss order.
            value = "2-1" if name == "Final" else "1-2"
            open_match = page.locator("#bracket-panel .cut-match.open").first
            open_match.locator(f'button[value="{value}"]').click()
            expect(page.locator("#bracket-panel .cut-match.open")).to_have_count(left - 1)
        if name == "Final":
            page.goto(f"{live_server.url}/t/{t.slug}/manage/")
            break
        page.locator("#pair-button").click()
        verb = "is" if stages[k + 1][0] == "Final" else "are"
        expect(page.locator("#board .notice")).to_have_text(
            f"The {stages[k + 1][0]} {verb} paired."
        )
        page.screenshot(path=str(artifacts / f"top-cut-names-{stages[k + 1][0].lower()}.png"))

    # The final is decided: the standings carry the finishes, the top cut first.
    expect(page.locator("#standings-top > p.meta").first).to_contain_text("After the Final")
    expect(page.locator("#standings-top th.finish")).to_have_text("Finish")
    finishes = page.locator("#standings-top tbody td.finish").all_inner_texts()
    assert finishes[:8] == ["1st", "2nd", "3rd-4th", "3rd-4th", *["5th-8th"] * 4]
    assert finishes[8:] == ["", ""]
    page.once("dialog", lambda dialog: dialog.accept())  # "Finish the tournament?"
    page.locator("#finish-button").click()
    expect(page.locator("#event-meta")).to_contain_text("Finished")
    page.goto(f"{live_server.url}/t/{t.slug}/manage/standings/")
    expect(page.locator("#standings-list-title")).to_contain_text("Final standings after the Final")
    expect(page.locator("#standings-list tbody tr").first.locator("td.finish")).to_have_text("1st")
    page.screenshot(path=str(artifacts / "top-cut-names-final-standings.png"), full_page=True)
    assert "round 6" not in page.locator("body").inner_text().lower()
