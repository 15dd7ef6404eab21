"""A second Alex Martin registers from a phone (390 x 844), is asked for a word that
tells them apart, and the pairings then read "Alex Martin vs Alex Martin (Lyon)"
(issue 25 item 4): with JavaScript on (htmx swaps the question in) and off."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import ARTIFACTS
from tournaments import services
from tournaments.models import Tournament
from tournaments.services import registration as reg

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def phone_page(browser: Any, live_server: Any, *, javascript: bool) -> Iterator[Any]:
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, java_script_enabled=javascript
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.base_url = live_server.url  # type: ignore[attr-defined]
    yield page
    context.close()


@pytest.fixture(params=[True, False], ids=["javascript", "no-javascript"])
def phone(request: Any, browser: Any, live_server: Any) -> Iterator[Any]:
    yield from phone_page(browser, live_server, javascript=request.param)


@pytest.fixture
def event(django_user_model: Any) -> Tournament:
    owner = django_user_model.objects.create_user("owner")
    t = services.create_tournament(name="Club Night", owner=owner, seed=5)
    t = reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=False, check_in=False, by=owner
    )
    reg.register_self(tournament=t, name="Alex Martin")
    return t


def test_a_second_alex_martin_registers_with_a_word_and_the_pairings_tell_them_apart(
    phone: Any, event: Tournament
) -> None:
    phone.goto(f"{phone.base_url}/t/{event.slug}/register/")
    assert phone.locator("input[name=suffix]").count() == 0
    phone.fill("input[name=name]", "Alex Martin")
    phone.click("#register-form button[type=submit]")
    # Not a dead end: the refusal shows beside the name and the form asks for the word.
    word = phone.locator("input[name=suffix]")
    word.wait_for(state="visible")
    assert "already registered" in phone.locator("#name-error").inner_text()
    assert word.bounding_box()["width"] <= PHONE["width"]  # type: ignore[index]
    ARTIFACTS.mkdir(exist_ok=True)
    phone.screenshot(path=str(ARTIFACTS / "phone-namesake-question.png"), full_page=True)
    word.fill("Lyon")
    phone.click("#register-form button[type=submit]")
    phone.wait_for_url("**/p/*/")
    assert phone.locator("h1").inner_text() == "Alex Martin (Lyon)"

    services.pair_next_round(tournament=event)
    phone.goto(f"{phone.base_url}/t/{event.slug}/pairings/")
    row = phone.locator("#pairings tbody tr").first
    players = row.locator("td").nth(1).inner_text()
    assert "Alex Martin" in players and "Alex Martin (Lyon)" in players
    assert players.count("Alex Martin") == 2 and " vs " in f" {players} "
    phone.screenshot(path=str(ARTIFACTS / "phone-namesake-pairings.png"), full_page=True)
