"""A dispute from both sides in real browsers (issue 25 item 3): Ivo reports 2-1 on his
phone, Dev answers "Report this instead" 2-0 on his; each phone (390x844) shows both
results side by side, its own player's games first; the organizer's round screen (1080p)
shows both in table order and enters Dev's with one click, which both phones then show."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.browser.test_two_phones import logged_in_context
from tests.helpers import paired_doc
from tournaments import services
from tournaments.models import Match, Player
from tournaments.tokens import new_token, token_hash

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
DESK = {"viewport": {"width": 1920, "height": 1080}}


def link(player: Player) -> str:
    token = new_token()
    Player.objects.filter(pk=player.pk).update(token_hash=token_hash(token))
    return token


def claims(phone: Any) -> list[str]:
    """The panel's claims as read on screen: "You 2-0", "Ivo Ng 1-2"."""
    boxes = phone.locator("#report-panel dl.claims > div")
    return [
        f"{box.locator('dt').inner_text()} {box.locator('dd').first.inner_text()}"
        for box in boxes.all()
    ]


def side_by_side(phone: Any) -> None:
    """Both claims on one line, inside the phone's width."""
    first, second = (b.bounding_box() for b in phone.locator("#report-panel dl.claims > div").all())
    assert first is not None and second is not None
    assert abs(first["y"] - second["y"]) < 1 and first["x"] < second["x"]
    assert second["x"] + second["width"] <= 390
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390


def test_both_players_and_the_organizer_see_both_claims(
    browser: Any, live_server: Any, django_user_model: type[User], artifacts: Any
) -> None:
    from playwright.sync_api import expect

    owner = django_user_model.objects.create_user("td")
    t = services.import_document(
        paired_doc(4, "Dispute Night", names=["Ivo Ng", "Dev Rao", "Ana Lopez", "Ben Ortiz"]),
        owner=owner,
    )
    match = Match.objects.get(round__tournament=t, table=1)
    urls = {
        who: f"{live_server.url}/p/{link(t.players.get(external_id=pid))}/"
        for who, pid in (("ivo", "p1"), ("dev", "p2"))
    }
    phones: dict[str, Any] = {}
    for who in urls:
        context = browser.new_context(**PHONE)
        context.set_default_timeout(10_000)
        phones[who] = context.new_page()
    ivo, dev = phones["ivo"], phones["dev"]

    # Idle phones leave their (polling) pages: see tests/browser/test_two_phones.py.
    ivo.goto(urls["ivo"])
    ivo.get_by_label("Games I won").select_option("2")
    ivo.get_by_label("Games Dev Rao won").select_option("1")
    ivo.get_by_role("button", name="Report").click()
    expect(ivo.locator("#report-panel")).to_contain_text("Waiting for Dev Rao to confirm")
    ivo.goto("about:blank")

    dev.goto(urls["dev"])
    expect(dev.locator("#report-panel")).to_contain_text("Ivo Ng reported: you lost 1-2")
    dev.get_by_label("Games I won").select_option("2")
    dev.get_by_label("Games Ivo Ng won").select_option("0")
    dev.get_by_role("button", name="Report this instead").click()
    expect(dev.locator("#report-panel")).to_contain_text("You and Ivo Ng reported different")
    assert claims(dev) == ["You 2-0", "Ivo Ng 1-2"]
    side_by_side(dev)
    dev.locator("#report-panel").scroll_into_view_if_needed()
    dev.screenshot(path=str(artifacts / "dispute-dev-phone.png"))
    dev.goto("about:blank")

    ivo.goto(urls["ivo"])
    expect(ivo.locator("#report-panel")).to_contain_text("You and Dev Rao reported different")
    assert claims(ivo) == ["You 2-1", "Dev Rao 0-2"]
    side_by_side(ivo)
    expect(ivo.get_by_role("button", name="Take Dev Rao's result (you lost 0-2)")).to_be_visible()
    ivo.locator("#report-panel").scroll_into_view_if_needed()
    ivo.screenshot(path=str(artifacts / "dispute-ivo-phone.png"))
    ivo.goto("about:blank")

    laptop = logged_in_context(browser, live_server, owner, **DESK)
    laptop.set_default_timeout(10_000)
    desk = laptop.new_page()
    desk.goto(f"{live_server.url}/t/{t.slug}/manage/rounds/1/")
    row = desk.locator(f"#match-{match.pk}")
    expect(row).to_contain_text("disputed: Ivo Ng's 2-1 or Dev Rao's 0-2")
    panel = desk.locator("#reports-panel")
    expect(panel).to_contain_text("Table order, Ivo Ng first")
    desk.screenshot(path=str(artifacts / "dispute-round-screen.png"))
    # The match's own form offers both too; the panel's button enters Dev's.
    row.get_by_role("link", name="Edit").click()
    expect(desk.locator(f"#match-{match.pk}")).to_contain_text("The players disagree")
    desk.screenshot(path=str(artifacts / "dispute-settle-form.png"))
    expect(
        desk.get_by_role("button", name="Table 1: enter Ivo Ng's report, Ivo Ng 2-1 Dev Rao")
    ).to_have_count(2)
    panel.get_by_role("button", name="Table 1: enter Dev Rao's report, Ivo Ng 0-2 Dev Rao").click()
    expect(desk.locator(f"#match-{match.pk}")).to_contain_text("0-2")
    expect(desk.locator(f"#match-{match.pk}")).not_to_contain_text("disputed")
    expect(desk.locator("#reports-panel")).to_have_count(0)
    laptop.close()

    dev.goto(urls["dev"])
    expect(dev.locator("#report-panel")).to_contain_text("Result: you won 2-0")
    ivo.goto(urls["ivo"])
    expect(ivo.locator("#report-panel")).to_contain_text("Result: you lost 0-2")
    for phone in phones.values():
        phone.context.close()
