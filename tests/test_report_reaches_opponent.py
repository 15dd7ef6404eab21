"""A player's report reaches their opponent's phone by itself: the report moves no version
(services.reports), so the hub looks at the open matches' reports and tells the two
players at a table whose report moved; their page's notice then says what was reported."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.helpers import Inbox
from tournaments import live, services, stream
from tournaments.models import Match, Player, Tournament
from tournaments.services import reports
from tournaments.services.registration import issue_link

pytestmark = pytest.mark.django_db


@pytest.fixture
def event(owner: Any) -> Tournament:
    t = services.create_tournament(name="Report Open", owner=owner, seed=3)
    services.register_players(tournament=t, names=["Ana", "Ben", "Cleo", "Dev"])
    services.pair_next_round(tournament=t)
    return t


def seated(t: Tournament, table: int) -> tuple[Match, list[Player]]:
    match = Match.objects.get(round__tournament=t, table=table)
    return match, [s.player for s in match.seats.select_related("player").order_by("position")]


def test_the_opponent_is_told_of_a_report_and_of_a_dispute_and_no_one_else(
    event: Tournament, hub: stream.Hub
) -> None:
    base = live.record_base(event)
    match, (first, second) = seated(event, 1)
    _other, (third, _fourth) = seated(event, 2)
    inboxes = {p.pk: Inbox() for p in (first, second, third)}
    for p in (first, second, third):
        hub.subscribe(base, (("player", p.external_id),), inboxes[p.pk])
    hub.tick(now=0)
    reports.report(player=first, match=match, wins_mine=2, wins_theirs=1)
    hub.tick(now=stream.CALLS_EVERY_SECONDS)
    assert inboxes[second.pk].take() == [["player"]]
    assert inboxes[first.pk].take() == [["player"]]
    assert inboxes[third.pk].take() == []
    hub.tick(now=2 * stream.CALLS_EVERY_SECONDS)
    assert inboxes[second.pk].take() == []  # nothing moved since
    reports.dispute(player=second, match=match)
    hub.tick(now=3 * stream.CALLS_EVERY_SECONDS)
    assert inboxes[first.pk].take() == [["player"]]
    assert inboxes[third.pk].take() == []


def test_the_notice_on_the_opponents_page_says_what_was_reported(
    event: Tournament, client: Client
) -> None:
    match, (first, second) = seated(event, 1)
    token = issue_link(player=second)
    notice = {"HX-Request": "true", "HX-Target": "private-report-notice"}
    before = client.get(f"/p/{token}/", headers=notice).content.decode()
    assert 'id="private-report-notice"' in before and "reported your match" not in before
    reports.report(player=first, match=match, wins_mine=2, wins_theirs=1)
    after = client.get(f"/p/{token}/", headers=notice).content.decode()
    assert "<html" not in after
    assert f"{first.name} reported your match: you lost 1-2." in after
    assert f'hx-get="/p/{token}/report/panel/"' in after  # "Answer it" brings the form
    page = client.get(f"/p/{token}/").content.decode()  # the whole page shows it too
    assert "reported your match: you lost 1-2" in page
    assert (
        "reported your match" not in client.get(f"/p/{issue_link(player=first)}/").content.decode()
    )  # the reporter is not told to answer their own report
