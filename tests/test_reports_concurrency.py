"""Both players report the same match at once while the organizer enters it: real threads
and connections, so PostgreSQL only (skipped on SQLite, as tests/test_concurrency.py
explains). The organizer's entry wins whatever the order; nothing is lost or doubled.

And the locks behind that (services.reports' docstring): a report does not wait for a
confirmation's standings write, but does wait for the organizer's write, and a report
and a confirmation of the same match never interleave."""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from scoring.models import Standing
from tests.helpers import (
    event_with_open_round,
    full_recompute,
    require_postgres,
    run_threads,
    stored_standings,
)
from tournaments import services
from tournaments.models import Match, Player, Report, ReportState, Tournament
from tournaments.pages import reports as pages
from tournaments.services import reports
from tournaments.services.results import _seated_match, enter_result
from tournaments.services.writing import ServiceError, writing

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


def seated_players(match: Match) -> list[Player]:
    return [s.player for s in match.seats.select_related("player").order_by("position")]


def hold_a_write(t: Tournament, match: Match, *, reports_pass: bool, held: threading.Event,
                 release: threading.Event, committed: list[float]) -> None:  # fmt: skip
    """Enter `match` 0-2 in a writing block and keep it open (its lock held) until told."""
    with writing(t.pk, reports_pass=reports_pass) as w:
        found, seats = _seated_match(match.pk, w.tournament)
        enter_result(w, found, seats, wins=(0, 2))
        held.set()
        release.wait(timeout=30)
    committed.append(time.monotonic())


@pytest.mark.postgres
def test_a_report_does_not_wait_for_a_confirmations_standings_write(
    transactional_db: None,
) -> None:
    require_postgres()
    t = event_with_open_round(4, name="Report Beside Confirm")
    one, two = Match.objects.filter(round__tournament=t).order_by("table")
    held, release, committed, reported = threading.Event(), threading.Event(), [], []

    def confirmation() -> None:  # holds the lock a confirmation takes, as long as we like
        hold_a_write(t, one, reports_pass=True, held=held, release=release, committed=committed)

    def report() -> None:
        assert held.wait(timeout=30)
        a, _b = seated_players(two)
        reports.report(player=a, match=two.pk, wins_mine=2, wins_theirs=1)
        reported.append(time.monotonic())
        release.set()

    assert run_threads([confirmation, report]) == []
    # The report went through while the other match's write still held its lock.
    assert reported and committed and reported[0] < committed[0]
    assert Report.objects.get(match=two).state == ReportState.REPORTED
    assert stored_standings(t) == full_recompute(t)


def backend_pid() -> int:
    """The PostgreSQL backend of this thread's connection."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def blocked_by(waiter: int, holder: int, *, unless: threading.Event) -> bool:
    """True as soon as PostgreSQL reports backend `waiter` waiting for a lock that backend
    `holder` holds; False if `unless` is set first (the waiter got through without
    waiting). No sleep decides the outcome: the short pause only spaces the polls."""
    deadline = time.monotonic() + 30  # a hang guard only: a waiting report stays found
    with connection.cursor() as cursor:
        while not unless.is_set() and time.monotonic() < deadline:
            cursor.execute("SELECT %s = ANY(pg_blocking_pids(%s))", [holder, waiter])
            if cursor.fetchone()[0]:
                return True
            time.sleep(0.002)
    return False


@pytest.mark.postgres
def test_a_report_waits_for_the_organizers_entry_and_is_then_refused(
    transactional_db: None,
) -> None:
    require_postgres()
    t = event_with_open_round(2, name="Report Behind Organizer")
    match = Match.objects.get(round__tournament=t)
    held, release, committed = threading.Event(), threading.Event(), []
    calling, returned = threading.Event(), threading.Event()
    pids: dict[str, int] = {}
    seen: dict[str, bool] = {}
    released: list[float] = []
    refused: list[tuple[float, str]] = []

    def organizer() -> None:
        pids["organizer"] = backend_pid()
        hold_a_write(t, match, reports_pass=False, held=held, release=release, committed=committed)

    def report() -> None:
        assert held.wait(timeout=30)
        a, _b = seated_players(match)
        pids["report"] = backend_pid()
        calling.set()
        try:
            reports.report(player=a, match=match.pk, wins_mine=2, wins_theirs=1)
        except ServiceError as exc:
            refused.append((time.monotonic(), str(exc)))
        finally:
            returned.set()

    def watch() -> None:  # the organizer lets go only once the report is seen waiting
        try:
            assert calling.wait(timeout=30)
            seen["blocked"] = blocked_by(pids["report"], pids["organizer"], unless=returned)
            seen["returned_while_held"] = returned.is_set()
        finally:
            released.append(time.monotonic())
            release.set()

    assert run_threads([organizer, report, watch]) == []
    # PostgreSQL saw the report's connection wait for the organizer's lock, and the report
    # had not returned while the organizer's write held it: without the wait, the report
    # returns first and "blocked" is False.
    assert seen == {"blocked": True, "returned_while_held": False}
    # Let through, it saw the organizer's entry and was refused: nothing stored.
    assert refused and released and refused[0][0] >= released[0]
    assert "already in (0-2 from your side)" in refused[0][1]
    assert not Report.objects.filter(match=match).exists()


@pytest.mark.postgres
def test_the_reporters_correction_and_the_opponents_confirmation_never_interleave(
    transactional_db: None,
) -> None:
    require_postgres()
    t = event_with_open_round(2 * ROUNDS_OF_RACES, name="Correct Or Confirm")
    outcomes: set[str] = set()
    for match in Match.objects.filter(round__tournament=t).order_by("table"):
        a, b = seated_players(match)
        reports.report(player=a, match=match.pk, wins_mine=2, wins_theirs=1)
        seen = pages.player_panel(Player.objects.select_related("tournament").get(pk=b.pk))
        stamp = seen["stamp"]

        def correct(a: Player = a, match: Match = match) -> None:
            try:
                reports.report(player=a, match=match.pk, wins_mine=2, wins_theirs=0)
            except ServiceError as exc:  # the confirmation was first: the result is in
                assert "already in" in str(exc)

        def confirm(b: Player = b, match: Match = match, stamp: str = stamp) -> None:
            # StalePage: the correction was first, b must look again
            with contextlib.suppress(reports.StalePage):
                reports.confirm(player=b, match=match.pk, seen=stamp)

        assert run_threads([correct, confirm]) == []
        match.refresh_from_db()
        report = Report.objects.get(match=match)
        games = list(match.seats.order_by("position").values_list("games_won", flat=True))
        if match.reported:  # confirmed what b saw; the correction came too late
            assert (games, report.state, report.wins_b) == ([2, 1], ReportState.CONFIRMED, 1)
            outcomes.add("confirmed")
        else:  # corrected; b's confirmation of the old report was refused
            assert (report.state, report.wins_b) == (ReportState.REPORTED, 0)
            outcomes.add("corrected")
    assert outcomes
    assert stored_standings(t) == full_recompute(t)
