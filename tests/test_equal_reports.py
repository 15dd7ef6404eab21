"""Two equal reports are agreement (issue 24 item 11): when both players report the same
result from pages that showed no report yet, the second report confirms the first instead
of being told its page is stale. A different result from a stale page is still refused.

The sequential tests run on any database; the race of real threads is PostgreSQL only
(as tests/test_reports_concurrency.py explains)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from scoring.models import Standing
from tests.helpers import (
    event_with_open_round,
    full_recompute,
    require_postgres,
    run_threads,
    stored_standings,
)
from tournaments.models import (
    AuditAction,
    AuditEntry,
    Match,
    Player,
    Report,
    ReportState,
    Tournament,
)
from tournaments.pages import reports as pages
from tournaments.services import reports
from tournaments.tokens import new_token, token_hash

TRIES = 40


def seated(match: Match) -> list[Player]:
    return [s.player for s in match.seats.select_related("player").order_by("position")]


def panel(player: Player) -> dict[str, Any]:
    """The player's report panel as their phone reads it now."""
    return pages.player_panel(Player.objects.select_related("tournament").get(pk=player.pk))


def games(match: Match) -> list[int | None]:
    return list(match.seats.order_by("position").values_list("games_won", flat=True))


@pytest.fixture
def table() -> tuple[Tournament, Match, Player, Player]:
    t = event_with_open_round(4, name="Equal Reports")
    match = Match.objects.get(round__tournament=t, table=1)
    a, b = seated(match)
    return t, match, a, b


@pytest.mark.django_db
def test_the_second_of_two_equal_reports_from_an_old_page_enters_the_result(
    table: tuple[Tournament, Match, Player, Player],
) -> None:
    t, match, a, b = table
    # Both phones show the match with nothing reported yet.
    seen_a, seen_b = panel(a)["stamp"], panel(b)["stamp"]
    reports.report(player=a, match=match.pk, wins_mine=2, wins_theirs=1, seen=seen_a)
    reports.report(player=b, match=match.pk, wins_mine=1, wins_theirs=2, seen=seen_b)
    match.refresh_from_db()
    assert match.reported and games(match) == [2, 1]
    report = Report.objects.get(match=match)
    assert (report.state, report.reporter_id, report.answered_by_id) == (
        ReportState.CONFIRMED,
        a.pk,
        b.pk,
    )
    for player, words in ((a, "you won 2-1"), (b, "you lost 1-2")):
        shown = panel(player)
        assert (shown["mode"], shown["result_words"], shown["result_by"]) == (
            "done",
            words,
            "confirmed by both players",
        )
    assert Standing.objects.get(player=a).wins == 1
    assert stored_standings(t) == full_recompute(t)


@pytest.mark.django_db
def test_an_equal_report_from_an_old_page_after_the_result_is_in_changes_nothing(
    table: tuple[Tournament, Match, Player, Player],
) -> None:
    t, match, a, b = table
    seen_b = panel(b)["stamp"]
    reports.report(player=a, match=match.pk, wins_mine=2, wins_theirs=1)
    reports.confirm(player=b, match=match.pk)
    version = Tournament.objects.get(pk=t.pk).version
    # b's second phone (or a retried request) still shows the match as unreported.
    reports.report(player=b, match=match.pk, wins_mine=1, wins_theirs=2, seen=seen_b)
    assert Tournament.objects.get(pk=t.pk).version == version
    assert games(Match.objects.get(pk=match.pk)) == [2, 1]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("mine", "theirs", "draws"),
    [(2, 1, 0), (2, 0, 0), (1, 1, 1)],
    ids=["the reporters-side score", "another score", "a draw"],
)
def test_a_different_report_from_an_old_page_is_still_refused(
    table: tuple[Tournament, Match, Player, Player], mine: int, theirs: int, draws: int
) -> None:
    _t, match, a, b = table
    seen_b = panel(b)["stamp"]
    reports.report(player=a, match=match.pk, wins_mine=2, wins_theirs=1)
    # (2, 1) from b's side is a's claim turned around: b says b won, a disagreement.
    with pytest.raises(reports.StalePage):
        reports.report(
            player=b, match=match.pk, wins_mine=mine, wins_theirs=theirs, draws=draws, seen=seen_b
        )
    match.refresh_from_db()
    assert not match.reported
    assert Report.objects.get(match=match).state == ReportState.REPORTED


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_the_second_phone_is_told_the_result_is_in_not_that_its_page_is_stale(
    table: tuple[Tournament, Match, Player, Player], htmx: bool
) -> None:
    _t, match, a, b = table
    token = new_token()
    Player.objects.filter(pk=b.pk).update(token_hash=token_hash(token))
    seen_b = panel(b)["stamp"]
    reports.report(player=a, match=match.pk, wins_mine=2, wins_theirs=1)
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    r = Client().post(
        f"/p/{token}/report/",
        {"match": match.pk, "seen": seen_b, "wins_mine": 1, "wins_theirs": 2, "draws": 0},
        follow=not htmx,
        **headers,
    )
    assert r.status_code == 200
    page = r.content.decode()
    assert "Your report is in." in page and "Confirmed by both players." in page
    assert reports.STALE not in page


@pytest.mark.postgres
def test_equal_reports_sent_at_the_same_moment_are_all_entered(transactional_db: None) -> None:
    require_postgres()
    t = event_with_open_round(2 * TRIES, name="Equal Report Race")
    matches = list(Match.objects.filter(round__tournament=t).order_by("table"))
    assert len(matches) == TRIES
    for match in matches:
        a, b = seated(match)
        seen = panel(a)["stamp"]  # both phones loaded the page before either reported

        def first(a: Player = a, match: Match = match, seen: str = seen) -> None:
            reports.report(player=a, match=match.pk, wins_mine=2, wins_theirs=1, seen=seen)

        def second(b: Player = b, match: Match = match, seen: str = seen) -> None:
            reports.report(player=b, match=match.pk, wins_mine=1, wins_theirs=2, seen=seen)

        assert run_threads([first, second]) == []
    entered = Match.objects.filter(round__tournament=t, reported=True).count()
    confirmed = Report.objects.filter(match__round__tournament=t, state=ReportState.CONFIRMED)
    assert (entered, confirmed.count()) == (TRIES, TRIES)
    assert all(games(m) == [2, 1] for m in matches)
    assert stored_standings(t) == full_recompute(t)


@pytest.mark.django_db
def test_the_audit_log_reads_an_equal_report_as_the_confirmation_it_is(
    table: tuple[Tournament, Match, Player, Player],
) -> None:
    t, match, a, b = table
    seen = panel(b)["stamp"]
    reports.report(player=a, match=match.pk, wins_mine=2, wins_theirs=1)
    reports.report(player=b, match=match.pk, wins_mine=1, wins_theirs=2, seen=seen)
    summaries = list(
        AuditEntry.objects.filter(tournament=t, action=AuditAction.REPORT)
        .order_by("id")
        .values_list("summary", flat=True)
    )
    assert summaries == [
        "Table 1, round 1: Player 1 reported 2-1",
        "Table 1, round 1: Player 1 reported 2-1, confirmed by Player 2",
    ]
