"""Each public page and a player's private page in each shipped language on a phone
(390 x 844, Chromium): the page speaks the language and never scrolls sideways; the
switcher at its foot changes the language without JavaScript (issue 29)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.conf import settings

from tournaments.services import import_document
from tournaments.services import registration as reg

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
LANGUAGES = [code for code, _name in settings.LANGUAGES]
# A word of each page's heading or navigation, per language: proof the page is translated.
STANDINGS = {
    "en": "Standings",
    "fr": "Classement",
    "de": "Rangliste",
    "es": "Clasificación",
    "it": "Classifica",
    "pt": "Classificação",
    "ja": "順位",
}


@pytest.fixture
def event(small_doc: dict) -> Any:
    doc = copy.deepcopy(small_doc)
    doc["rounds"].append(
        {"number": 3, "matches": [
            {"table": 1, "players": ["p1", "p3"]},
            {"table": 2, "players": ["p4", "p7"]},
            {"table": 3, "players": ["p5"], "bye": True},
        ]}
    )  # fmt: skip
    return import_document(doc)


def phone_in(browser: Any, live_server: Any, language: str) -> Any:
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, locale=language
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.base_url = live_server.url  # type: ignore[attr-defined]
    return page


def no_sideways_scroll(page: Any) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_page_speaks_the_language_without_sideways_scroll_on_a_phone(
    browser: Any, live_server: Any, event: Any, language: str
) -> None:
    page = phone_in(browser, live_server, language)
    try:
        slug = event.slug
        token = reg.issue_link(player=event.players.get(external_id="p1"))
        urls = [
            f"/t/{slug}/",
            f"/t/{slug}/standings/",
            f"/t/{slug}/standings/?me=p1",
            f"/t/{slug}/pairings/",
            f"/t/{slug}/pairings/?by=name",
            f"/t/{slug}/players/p1/",
            f"/t/{slug}/tiebreakers/p1/",
            f"/t/{slug}/bracket/",
            f"/p/{token}/",
        ]
        for url in urls:
            response = page.goto(page.base_url + url)
            assert response is not None and response.status == 200, url
            assert page.evaluate("document.documentElement.lang") == language, url
            assert no_sideways_scroll(page), (language, url)
        page.goto(f"{page.base_url}/t/{slug}/standings/")
        assert page.locator("h1").inner_text() == STANDINGS[language]
    finally:
        page.context.close()


def test_the_switcher_changes_the_language_without_javascript(
    browser: Any, live_server: Any, event: Any
) -> None:
    context = browser.new_context(viewport=PHONE, java_script_enabled=False, locale="en-US")
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/t/{event.slug}/standings/")
        assert page.locator("h1").inner_text() == "Standings"
        page.select_option("footer select[name=language]", "ja")
        page.click("footer button[type=submit]")
        page.wait_for_url(f"**/t/{event.slug}/standings/")
        assert page.locator("h1").inner_text() == "順位"
        assert no_sideways_scroll(page)
    finally:
        context.close()
