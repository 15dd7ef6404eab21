"""Decklists from paste to publishing (issue 28): a player pastes a list on a phone
(390x844) and sees it legal; a judge opens the deck-check view sorted by type; the
organizer publishes and the top cut's list shows on the event's public pages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from tournaments import services
from tournaments.models import Match, MatchKind, Player, Tournament
from tournaments.services.cards import load_cards
from tournaments.services.decklists import set_decklist_rules
from tournaments.services.registration import issue_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "cards-small.json"
LIST = """4 Goblin Guide
4 Monastery Swiftspear
4 Lightning Bolt
4 Fire // Ice
44 Mountain

Sideboard
2 Rest in Peace
"""


@pytest.fixture
def event(django_user_model: type[User]) -> dict[str, Any]:
    owner = django_user_model.objects.create_user("td")
    t = services.create_tournament(name="Modern Open", owner=owner, seed=17)
    services.register_players(tournament=t, names=["Ana Souza", "Ben Ito"])
    set_decklist_rules(tournament=t, deck_format="modern", deadline=None, by=owner)
    load_cards(path=FIXTURE)
    ana = Player.objects.get(tournament=t, name="Ana Souza")
    return {"t": t, "owner": owner, "ana": ana, "token": issue_link(player=ana)}


def logged_in(browser: Any, live_server: Any, user: User) -> Any:
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session.session_key,
          "url": live_server.url}]
    )  # fmt: skip
    context.set_default_timeout(10_000)
    return context.new_page()


def test_a_player_pastes_a_list_a_judge_checks_it_and_the_organizer_publishes_it(
    browser: Any, live_server: Any, event: dict[str, Any], artifacts: Path
) -> None:
    from playwright.sync_api import expect

    t: Tournament = event["t"]
    base = live_server.url

    # A player's phone: paste the list with a typo, see the problem, fix it, see it legal.
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    context.set_default_timeout(10_000)
    phone = context.new_page()
    phone.goto(f"{base}/p/{event['token']}/")
    panel = phone.locator("#decklist-panel")
    expect(panel).to_contain_text("No decklist registered yet.")
    phone.get_by_label("Paste your list").fill(LIST.replace("Lightning Bolt", "Lightning Blot"))
    phone.get_by_role("button", name="Register this list").click()
    expect(panel).to_contain_text("did you mean Lightning Bolt?")
    expect(panel).to_contain_text("line 3:")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.get_by_label("Paste your list").fill(LIST)
    phone.get_by_role("button", name="Register this list again").click()
    expect(panel.locator("#decklist-status")).to_contain_text("Registered: legal.")
    expect(panel).to_contain_text("60 cards in the main deck, 2 in the sideboard")
    phone.screenshot(path=str(artifacts / "decklist-phone.png"), full_page=True)
    context.close()

    # Round 1 is paired: the list is locked; a judge opens the deck check.
    services.pair_next_round(tournament=t)
    judge = logged_in(browser, live_server, event["owner"])
    judge.goto(f"{base}/t/{t.slug}/judge/decklists/{event['ana'].pk}/")
    types = judge.locator("#deck-main-title ~ h3.deck-type").all_inner_texts()
    assert [x.split(" (")[0] for x in types] == ["Creature", "Instant", "Land"]
    creatures = judge.locator("table.deck-lines").first.locator("td:nth-child(2)")
    expect(creatures).to_have_text(["Goblin Guide", "Monastery Swiftspear"])
    expect(judge.locator("#deck-main-title")).to_have_text("Main deck: 60")
    judge.emulate_media(media="print")
    expect(judge.locator("header.site")).to_be_hidden()
    expect(judge.locator("#decklist-edit")).to_be_hidden()
    judge.emulate_media(media="screen")

    # The event is played; the organizer publishes; the list is public.
    match = Match.objects.get(round__tournament=t, kind=MatchKind.PLAYED)
    services.record_result(match=match, wins=[2, 0])
    public = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    public.goto(f"{base}/t/{t.slug}/decklists/")
    expect(public.locator("#public-decklists")).to_contain_text("The decklists are not public.")
    judge.goto(f"{base}/t/{t.slug}/manage/decklists/")
    judge.get_by_role("button", name="Publish the top cut's lists").click()
    expect(judge.locator("#decklist-published")).to_contain_text("Ana Souza")
    public.goto(f"{base}/t/{t.slug}/players/{event['ana'].external_id}/")
    public.locator("#player-decklist").click()
    deck = public.locator("article.public-deck", has_text="Ana Souza")
    expect(deck).to_contain_text("4 Lightning Bolt")
    expect(deck).to_contain_text("Sideboard (2)")
