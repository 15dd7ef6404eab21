"""Small reads shared by several screens. The round predicates services check too live in
tournaments.domain; they are importable from here as well."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.utils import timezone

from tournaments.domain import current_round as current_round
from tournaments.domain import last_round as last_round
from tournaments.domain import missing_results as missing_results
from tournaments.domain import round_label as round_label
from tournaments.models import Round, Tournament

T = TypeVar("T")

POLL_SECONDS = 3  # issue 4: phones show a change within 5 s


_VERSION_MEMO: dict[tuple[str, int, float, int], Any] = {}
_VERSION_MEMO_SIZE = 16  # a few events x a few versions; a 8,192-row table is ~4 MB
_UNKNOWN = object()
# One computation per key at a time: after a write a page server's threads all ask for
# the new version at once, and each computing it would multiply the work by the threads.
_COMPUTING: dict[tuple[str, int, float, int], threading.Lock] = {}
_COMPUTING_LOCK = threading.Lock()


def per_version(tournament: Tournament, name: str, compute: Callable[[], T]) -> T:
    """`compute()`, remembered in this process for the tournament's version: for what
    every phone's page reads after a write and is the same for all of them. Every write
    moves the version (services.writing), so a version's answer never changes; the
    creation time guards against a deleted event's pk being reused."""
    t = tournament
    key = (name, t.pk, t.created_at.timestamp(), t.version)
    found = _VERSION_MEMO.get(key, _UNKNOWN)
    if found is not _UNKNOWN:
        return found  # type: ignore[no-any-return]
    with _COMPUTING_LOCK:
        lock = _COMPUTING.setdefault(key, threading.Lock())
    with lock:
        found = _VERSION_MEMO.get(key, _UNKNOWN)  # computed while this thread waited
        if found is _UNKNOWN:
            found = compute()
            with _COMPUTING_LOCK:
                # The oldest first (a dict keeps its order): older versions go before the
                # one just read. (Clearing them all threw away the current version's other
                # reads too, which the next phone then read again.)
                for old in list(_VERSION_MEMO)[
                    : max(0, len(_VERSION_MEMO) - _VERSION_MEMO_SIZE + 1)
                ]:
                    del _VERSION_MEMO[old]
                _VERSION_MEMO[key] = found
    with _COMPUTING_LOCK:
        _COMPUTING.pop(key, None)
    return found  # type: ignore[no-any-return]


def clock_remaining(round_: Round, now: datetime | None = None) -> timedelta | None:
    """Time left on the round clock (negative when over time), None if never started."""
    if round_.clock_paused_remaining is not None:
        return round_.clock_paused_remaining
    if round_.clock_ends_at is None:
        return None
    return round_.clock_ends_at - (now or timezone.now())


def clock_state(round_: Round | None) -> dict[str, Any] | None:
    """What a page needs to show the round clock (phones count down from ends_at)."""
    if round_ is None:
        return None
    remaining = clock_remaining(round_)
    if remaining is None:
        return None
    return {
        "ends_at": round_.clock_ends_at.isoformat() if round_.clock_ends_at else None,
        "paused": round_.clock_paused_remaining is not None,
        "remaining": int(remaining.total_seconds()),
    }
