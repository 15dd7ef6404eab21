"""A table's own time (issue 27): the round clock's end plus the minutes judges added to
that table (time extensions, deck checks). Every screen that shows a table's end, and the
phones' countdowns, read it from here, so that they never disagree.

Pure: the standard library only, no clock read (`now` is passed in), so the rules are
testable without Django and the same for every caller.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

ZERO = timedelta(0)
# Minutes a judge adds to a table at a time: a ruling's time, never a second round.
EXTENSION_MINUTES = (1, 60)


@dataclass(frozen=True, slots=True)
class TableTime:
    """One table's time at one moment.

    `ends_at`: when the table's time is up while the round clock runs (None while it is
    paused: then nothing ends until it resumes). `remaining`: the time left at that
    moment, negative once over; while paused, the round's frozen remainder plus the
    table's extension."""

    extension: int  # minutes added to this table
    ends_at: datetime | None
    remaining: timedelta
    paused: bool

    @property
    def over(self) -> bool:
        return self.remaining < ZERO


def table_time(
    *,
    clock_ends_at: datetime | None,
    clock_paused_remaining: timedelta | None,
    extension_minutes: int = 0,
    now: datetime,
) -> TableTime | None:
    """The table's time from its round's clock fields (models.Round) and the sum of its
    extensions; None while the round clock has never been started."""
    extra = timedelta(minutes=extension_minutes)
    if clock_paused_remaining is not None:
        return TableTime(extension_minutes, None, clock_paused_remaining + extra, True)
    if clock_ends_at is None:
        return None
    ends = clock_ends_at + extra
    return TableTime(extension_minutes, ends, ends - now, False)


def round_over(
    *, clock_ends_at: datetime | None, clock_paused_remaining: timedelta | None, now: datetime
) -> bool:
    """The round clock itself has run out (its own end, no table's extension)."""
    found = table_time(
        clock_ends_at=clock_ends_at, clock_paused_remaining=clock_paused_remaining, now=now
    )
    return found is not None and found.over


def minutes_taken(started: datetime, finished: datetime) -> int:
    """A deck check's length as the table's extension: whole minutes rounded up, at
    least one (a check of 4 min 10 s gives the players 5 minutes back)."""
    seconds = max((finished - started).total_seconds(), 0.0)
    whole, part = divmod(seconds, 60)
    return max(1, int(whole) + (1 if part > 0 else 0))
