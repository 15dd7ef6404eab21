"""Every screen in every shipped language (issue 29): the organizer's, the judges', the
printed sheets, the public pages and a player's own page answer 200 in the reader's
language, and none of them shows a sentence the catalogue translates in its English form:
a message marked but worded before the language was known (at import, or stored) would."""

from __future__ import annotations

import html
import re

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from tests.test_languages import LOCALE, po_entries
from tournaments.models import Match, Tournament
from tournaments.services import registration as reg

pytestmark = pytest.mark.django_db
TRANSLATED = [code for code, _name in settings.LANGUAGES if code != "en"]


def english_sentences(code: str) -> list[str]:
    """The catalogue's longer messages (four words or more, no placeholder, no markup)
    whose translation differs from the English: one of them on a page in `code` is English
    left over."""
    po = LOCALE / code / "LC_MESSAGES" / "django.po"
    return [
        e["msgid"]
        for e in po_entries(po)
        if e["msgid"]
        and "msgid_plural" not in e
        and "msgctxt" not in e
        and len(e["msgid"].split()) >= 4
        and not re.search(r"[%<{]", e["msgid"])
        and e.get("msgstr") not in ("", e["msgid"])
    ]


def text_of(body: str) -> str:
    """The page's words as a reader sees them: no tags, no scripts, entities resolved,
    runs of white space as one."""
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
    body = re.sub(r"<[^>]+>", " ", body)
    return re.sub(r"\s+", " ", html.unescape(body))


@pytest.fixture
def event(playing_event: Tournament, owner: User) -> Tournament:
    playing_event.owner = owner
    playing_event.deck_format = "modern"  # the decklist screens are there only with lists
    playing_event.save(update_fields=["owner", "deck_format"])
    return playing_event


def screens(t: Tournament) -> tuple[list[str], list[str]]:
    slug = t.slug
    match = Match.objects.filter(round__tournament=t, round__number=3, table=1).get()
    team = [
        "/manage/",
        "/manage/restore/",
        f"/t/{slug}/manage/",
        f"/t/{slug}/manage/rounds/3/",
        f"/t/{slug}/manage/rounds/3/reports/",
        f"/t/{slug}/manage/matches/{match.pk}/",
        f"/t/{slug}/manage/players/",
        f"/t/{slug}/manage/standings/",
        f"/t/{slug}/manage/registration/",
        f"/t/{slug}/manage/staff/",
        f"/t/{slug}/manage/seating/",
        f"/t/{slug}/manage/decklists/",
        f"/t/{slug}/manage/audit/",
        f"/t/{slug}/manage/share/",
        f"/t/{slug}/manage/top-tables/",
        f"/t/{slug}/manage/print/",
        f"/t/{slug}/manage/print/pairings/by-name/",
        f"/t/{slug}/manage/print/pairings/by-table/",
        f"/t/{slug}/manage/print/slips/",
        f"/t/{slug}/manage/print/standings/",
        f"/t/{slug}/judge/",
        f"/t/{slug}/judge/tables/",
        f"/t/{slug}/judge/deck-checks/",
        f"/t/{slug}/judge/penalties/",
        f"/t/{slug}/judge/penalties/print/",
        f"/t/{slug}/judge/decklists/",
    ]
    token = reg.issue_link(player=t.players.get(external_id="p1"))
    everyone = [
        "/",
        f"/t/{slug}/",
        f"/t/{slug}/standings/",
        f"/t/{slug}/pairings/",
        f"/t/{slug}/players/p1/",
        f"/t/{slug}/tiebreakers/p1/",
        f"/t/{slug}/register/",
        f"/p/{token}/",
        "/accounts/login/",
    ]
    return team, everyone


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_screen_speaks_the_readers_language_with_no_english_sentence_left(
    event: Tournament, owner: User, code: str
) -> None:
    team, everyone = screens(event)
    organizer = Client(HTTP_ACCEPT_LANGUAGE=code)
    organizer.force_login(owner)
    anonymous = Client(HTTP_ACCEPT_LANGUAGE=code)
    sentences = english_sentences(code)
    assert len(sentences) > 20
    for client, urls in ((organizer, team), (anonymous, everyone)):
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, (code, url, response.status_code)
            body = response.content.decode()
            assert f'<html lang="{code}"' in body, (code, url)
            page = text_of(body)
            left = [s for s in sentences if s in page]
            assert not left, (code, url, left[:3])


def test_the_english_sentence_check_would_see_an_english_page(
    event: Tournament, owner: User
) -> None:
    organizer = Client(HTTP_ACCEPT_LANGUAGE="en")
    organizer.force_login(owner)
    page = text_of(organizer.get(f"/t/{event.slug}/manage/").content.decode())
    assert any(s in page for s in english_sentences("fr"))


def test_the_check_reads_a_page_as_a_reader_does() -> None:
    page = "<p>Round&nbsp;3 <b>ends</b></p><script>var x = 'Round ends';</script>"
    assert text_of(page).strip() == "Round 3 ends"  # a no-break space is a space to a reader
    assert [*map(str.strip, [text_of("<a title='x'>Drop &amp; leave</a>")])] == ["Drop & leave"]


def test_the_teams_screens_show_times_in_the_events_time_zone(
    event: Tournament, owner: User
) -> None:
    """A penalty written at 03:04 UTC reads 12:04 on the judges' screen of an event in
    Tokyo, whatever zone the server runs in."""
    import datetime as dt

    from tournaments.models import Penalty
    from tournaments.services.penalties import issue_penalty

    event.time_zone = "Asia/Tokyo"
    event.save(update_fields=["time_zone"])
    penalty = issue_penalty(
        tournament=event,
        player=event.players.get(external_id="p4"),
        infraction="tardiness",
        penalty=None,
        by=owner,
    )
    at = dt.datetime(2026, 11, 28, 3, 4, tzinfo=dt.UTC)
    Penalty.objects.filter(pk=penalty.pk).update(created_at=at)
    judge = Client()
    judge.force_login(owner)
    page = text_of(judge.get(f"/t/{event.slug}/judge/penalties/").content.decode())
    assert "12:04" in page and "03:04" not in page
