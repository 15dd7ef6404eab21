"""Every screen beyond the public pages in each shipped language on a phone (390 x 844,
Chromium): the organizer's, the judges', the printed sheets, a player's private page, the
registration form and the login. Each speaks the language (its <html lang>, and a word of
its own in that language) and never scrolls sideways (issue 29)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from tournaments.services import import_document
from tournaments.services import registration as reg

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
LANGUAGES = [code for code, _name in settings.LANGUAGES]
# The organizer's menu word for the players' screen, per language: proof the team's pages
# are translated, not only the public ones.
PLAYERS = {
    "en": "Players",
    "fr": "Joueurs",
    "de": "Spieler",
    "es": "Jugadores",
    "it": "Giocatori",
    "pt": "Jogadores",
    "ja": "プレイヤー",
}


@pytest.fixture
def event(small_doc: dict, owner: Any) -> Any:
    doc = copy.deepcopy(small_doc)
    doc["rounds"].append(
        {"number": 3, "matches": [
            {"table": 1, "players": ["p1", "p3"]},
            {"table": 2, "players": ["p4", "p7"]},
            {"table": 3, "players": ["p5"], "bye": True},
        ]}
    )  # fmt: skip
    t = import_document(doc)
    t.owner = owner
    t.deck_format = "modern"  # the judges' decklist screen is there only with decklists
    t.save(update_fields=["owner", "deck_format"])
    return t


def phone_in(browser: Any, live_server: Any, language: str, session: str | None) -> Any:
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, locale=language
    )
    context.set_default_timeout(10_000)
    if session:
        context.add_cookies([{"name": "sessionid", "value": session, "url": live_server.url}])
    page = context.new_page()
    page.base_url = live_server.url  # type: ignore[attr-defined]
    return page


def overflowing(page: Any) -> str:
    """What sticks out to the right of the screen, if anything: the page's widest element
    that is not inside a scrolling box of its own (wide tables scroll in their box)."""
    return page.evaluate(
        """() => {
        if (document.documentElement.scrollWidth <= window.innerWidth) return "";
        let worst = "";
        let right = window.innerWidth;
        for (const el of document.body.querySelectorAll("*")) {
          const r = el.getBoundingClientRect();
          if (r.right > right + 1) { right = r.right; worst = el.outerHTML.slice(0, 120); }
        }
        return worst || "the page";
      }"""
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_teams_and_the_players_screens_speak_the_language_without_sideways_scroll(
    browser: Any, live_server: Any, event: Any, owner: Any, language: str
) -> None:
    client = Client()
    client.force_login(owner)
    slug = event.slug
    token = reg.issue_link(player=event.players.get(external_id="p1"))
    team = [
        "/manage/",
        f"/t/{slug}/manage/",
        f"/t/{slug}/manage/rounds/3/",
        f"/t/{slug}/manage/players/",
        f"/t/{slug}/manage/standings/",
        f"/t/{slug}/manage/registration/",
        f"/t/{slug}/manage/staff/",
        f"/t/{slug}/manage/seating/",
        f"/t/{slug}/manage/decklists/",
        f"/t/{slug}/manage/audit/",
        f"/t/{slug}/manage/share/",
        f"/t/{slug}/judge/",
        f"/t/{slug}/judge/tables/",
        f"/t/{slug}/judge/deck-checks/",
        f"/t/{slug}/judge/penalties/",
        f"/t/{slug}/judge/decklists/",
        f"/t/{slug}/manage/print/",
    ]
    players = [f"/p/{token}/", f"/t/{slug}/register/", "/accounts/login/"]
    organizer = phone_in(browser, live_server, language, client.cookies["sessionid"].value)
    phone = phone_in(browser, live_server, language, None)
    try:
        for page, urls in ((organizer, team), (phone, players)):
            for url in urls:
                response = page.goto(page.base_url + url)
                assert response is not None and response.status == 200, url
                assert page.evaluate("document.documentElement.lang") == language, url
                assert overflowing(page) == "", (language, url, overflowing(page))
        organizer.goto(f"{organizer.base_url}/t/{slug}/manage/")
        assert organizer.locator("nav").get_by_text(PLAYERS[language], exact=True).count() >= 1
        # On the organizer's laptop the event's menu stays one line in every language.
        laptop = browser.new_context(viewport={"width": 1366, "height": 768}, locale=language)
        laptop.add_cookies(
            [{"name": "sessionid", "value": client.cookies["sessionid"].value,
              "url": live_server.url}]
        )  # fmt: skip
        screen = laptop.new_page()
        screen.goto(f"{live_server.url}/t/{slug}/manage/")
        lines = screen.evaluate(
            """() => { const links = [...document.querySelectorAll("nav.event a")];
                return new Set(links.map(a => Math.round(a.getBoundingClientRect().top))).size; }"""
        )
        assert lines == 1, (language, lines)
        laptop.close()
    finally:
        organizer.context.close()
        phone.context.close()
