"""The round clock: start, pause, resume, add or take minutes (phones count down locally)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from django.utils import timezone

from tournaments.messages import gettext_noop, template
from tournaments.models import AuditAction, Round
from tournaments.rules import DEFAULT_ROUND_MINUTES, ROUND_MINUTES_RANGE
from tournaments.services.writing import ServiceError, writing

LOW, HIGH = ROUND_MINUTES_RANGE

# The refusals, said where they are shown (issue 36).
ROUND_LENGTH = template(
    "clock.round_length", gettext_noop("A round lasts between %(low)s and %(high)s minutes.")
)
NOT_RUNNING = template("clock.not_running", gettext_noop("The clock is not running."))
NOT_PAUSED = template("clock.not_paused", gettext_noop("The clock is not paused."))
ADD_RANGE = template(
    "clock.add_range",
    gettext_noop("Add between 1 and %(high)s minutes (negative to take time away)."),
)
NOT_STARTED = template("clock.not_started", gettext_noop("Start the clock first."))


@contextmanager
def _clock(round_: Round, by: Any, summary: str, after: dict[str, Any]) -> Iterator[Round]:
    """`after`: what the audit log's sentence reads ({"event", "minutes"}, pages.audit)."""
    with writing(round_.tournament_id, by=by) as w:
        r = Round.objects.get(pk=round_.pk)
        yield r
        r.save(update_fields=["clock_ends_at", "clock_paused_remaining"])
        w.touched()
        w.audit(AuditAction.CLOCK, f"Round {r.number}: {summary}", after=after, round=r.number)


def start_clock(*, round: Round, minutes: int = DEFAULT_ROUND_MINUTES, by: Any = None) -> Round:
    if not LOW <= minutes <= HIGH:
        raise ServiceError(ROUND_LENGTH(low=LOW, high=HIGH))
    started = {"event": "started", "minutes": minutes}
    with _clock(round, by, f"clock started, {minutes} minutes", started) as r:
        r.clock_ends_at = timezone.now() + timedelta(minutes=minutes)
        r.clock_paused_remaining = None
    return r


def pause_clock(*, round: Round, by: Any = None) -> Round:
    with _clock(round, by, "clock paused", {"event": "paused"}) as r:
        if r.clock_ends_at is None:
            raise ServiceError(NOT_RUNNING())
        r.clock_paused_remaining = r.clock_ends_at - timezone.now()
        r.clock_ends_at = None
    return r


def resume_clock(*, round: Round, by: Any = None) -> Round:
    with _clock(round, by, "clock resumed", {"event": "resumed"}) as r:
        if r.clock_paused_remaining is None:
            raise ServiceError(NOT_PAUSED())
        r.clock_ends_at = timezone.now() + r.clock_paused_remaining
        r.clock_paused_remaining = None
    return r


def add_clock_minutes(*, round: Round, minutes: int, by: Any = None) -> Round:
    if not -HIGH <= minutes <= HIGH or minutes == 0:
        raise ServiceError(ADD_RANGE(high=HIGH))
    moved = {"event": "moved", "minutes": minutes}
    with _clock(round, by, f"{minutes:+d} minutes", moved) as r:
        delta = timedelta(minutes=minutes)
        if r.clock_paused_remaining is not None:
            r.clock_paused_remaining += delta
        elif r.clock_ends_at is not None:
            r.clock_ends_at += delta
        else:
            raise ServiceError(NOT_STARTED())
    return r
