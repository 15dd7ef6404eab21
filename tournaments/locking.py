"""The tournament row lock every write to an event takes, and how long it waits for it.

Below the services (tournaments.services.writing, .reports) and scoring.outlooks, which
stores its figures as a write of its own: one definition of the lock for all of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.db import connection

from tournaments.models import Tournament

# How long a write waits for another write to the same event before it gives up. Writes
# take tens of milliseconds; a wait this long means something is stuck, and the organizer
# should hear "busy" rather than watch a spinner. (SQLite: the connection's busy timeout
# in settings plays this part, since it has no row locks.)
LOCK_TIMEOUT_SECONDS = 5
# A player's own registration waits less (issue 24 item 8): during a flood of them, the
# ones queued for the lock are the ones an organizer's click queues behind. A player
# told "busy, try again" loses a second; the organizer closing registration would lose
# the whole queue's.
REGISTRATION_LOCK_SECONDS = 1

_wait: ContextVar[float] = ContextVar("lock_wait", default=LOCK_TIMEOUT_SECONDS)


@contextmanager
def lock_wait(seconds: float) -> Iterator[None]:
    """The writes in this block wait `seconds` for the event's lock, not
    LOCK_TIMEOUT_SECONDS (PostgreSQL)."""
    token = _wait.set(seconds)
    try:
        yield
    finally:
        _wait.reset(token)


def limit_lock_wait() -> None:
    """In this transaction, a row lock waited for longer than LOCK_TIMEOUT_SECONDS (or
    `lock_wait`'s) raises (PostgreSQL; SQLite has its busy timeout)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL lock_timeout = '{int(_wait.get() * 1000)}ms'")


def lock_tournament(pk: int, *, no_key: bool = False) -> Tournament | None:
    """The tournament row, locked until the end of the transaction (FOR UPDATE, or FOR NO
    KEY UPDATE with `no_key`); None when the event is gone."""
    limit_lock_wait()
    return Tournament.objects.select_for_update(no_key=no_key).filter(pk=pk).first()


def share_tournament(pk: int) -> Tournament | None:
    """The tournament row under FOR KEY SHARE until the end of the transaction: a write
    that changes no standing and nothing public (a player's report, a judge call) is
    serialised with the organizer's writes (FOR UPDATE) but not with the others that take
    this lock, nor with a confirmation's FOR NO KEY UPDATE (services.reports). None when
    the event is gone. SQLite has no row locks: its IMMEDIATE transactions serialise."""
    if connection.vendor != "postgresql":
        return Tournament.objects.filter(pk=pk).first()
    limit_lock_wait()
    table = Tournament._meta.db_table
    rows = list(Tournament.objects.raw(f"SELECT * FROM {table} WHERE id = %s FOR KEY SHARE", [pk]))
    return rows[0] if rows else None
