"""Both players report the same match at once while the organizer enters it: real threads
and connections, so PostgreSQL only (skipped on SQLite, as tests/test_concurrency.py
explains). The organizer's entry wins whatever the order; nothing is lost or doubled."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from scoring.models import Standing
from tests.test_concurrency import (
    event_with_open_round,
    full_recompute,
    require_postgres,
    run_threads,
    stored_standings,
)
from tournaments import services
from tournaments.models import Match, Report, ReportState
from tournaments.services import reports
from tournaments.services.writing import ServiceError

ROUNDS_OF_RACES = 8


@pytest.mark.postgres
def test_both_players_report_while_the_organizer_enters_and_the_organizer_wins(
    transactional_db: None,
) -> None:
    require_postgres()
    t = event_with_open_round(2 * ROUNDS_OF_RACES, name="Report Race")
    organizer = get_user_model().objects.create_user("alice")
    matches = list(
        Match.objects.filter(round__tournament=t).select_related("round").order_by("table")
    )
    refusals: list[str] = []
    for match in matches:
        a, b = [s.player for s in match.seats.select_related("player").order_by("position")]

        def first(a: Any = a, match: Match = match) -> None:
            try:
                reports.report(player=a, match=match.pk, wins_mine=2, wins_theirs=1)
            except ServiceError as exc:  # the organizer was faster: refused, not lost
                refusals.append(str(exc))

        def second(b: Any = b, match: Match = match) -> None:
            try:
                reports.report(player=b, match=match.pk, wins_mine=1, wins_theirs=2)
            except ServiceError as exc:
                refusals.append(str(exc))

        def organizer_entry(match: Match = match) -> None:
            services.record_result(match=match, wins=(0, 2), by=organizer)

        errors = run_threads([first, second, organizer_entry])
        assert errors == []
        match.refresh_from_db()
        # Whatever the order, the organizer's entry is the stored result.
        seats = list(match.seats.order_by("position").values_list("games_won", flat=True))
        assert match.reported and seats == [0, 2]
        report = Report.objects.filter(match=match).first()
        if report is not None:
            # A report made before the organizer's entry is overridden by it; one after it
            # was refused and never stored.
            assert report.state == ReportState.OVERRIDDEN
    assert all("already in" in r for r in refusals)
    assert Standing.objects.filter(tournament=t).count() == 2 * ROUNDS_OF_RACES
    assert stored_standings(t) == full_recompute(t)
