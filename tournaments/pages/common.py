"""Small reads shared by several screens (and by the services that must check them)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.db.models import Exists, OuterRef
from django.utils import timezone

from tournaments.models import Match, MatchKind, Round, Tournament
from tournaments.rules import playoff_name

T = TypeVar("T")

POLL_SECONDS = 3  # issue 4: phones show a change within 5 s


def last_round(tournament: Tournament) -> Round | None:
    """The round paired last, whether or not it has started (what the next pairing, an
    undo or a cut follows)."""
    return tournament.rounds.order_by("-number").first()


def current_round(tournament: Tournament) -> Round | None:
    """The round being played: the first round with a match not yet played, counting
    from the last round that has an entered result; the last round once all are played.

    A round-robin pod is paired all at once (services/rounds.py), so the last round is
    not the one being played until the end (issue 13). Counting from the last round with
    a result keeps a Swiss event whose earlier round has a gap (an import, as recorded)
    on its latest round once that round has a result. Byes and no-opponent losses are entered by pairing, not played:
    they neither start a round nor leave it open. Whenever this round has no result
    missing it is the last round, so a caller that refuses while `missing_results` is
    non-zero gets the last round either way.
    """
    entered = Match.objects.filter(
        round=OuterRef("pk"),
        kind__in=[MatchKind.PLAYED, MatchKind.GAME, MatchKind.DOUBLE_LOSS],
        reported=True,
    )
    open_ = Match.objects.filter(
        round=OuterRef("pk"), kind__in=[MatchKind.PLAYED, MatchKind.GAME], reported=False
    )
    rounds = list(
        tournament.rounds.order_by("number").annotate(
            started=Exists(entered), unplayed=Exists(open_)
        )
    )
    if not rounds:
        return None
    last_started = max((i for i, r in enumerate(rounds) if r.started), default=0)
    return next((r for r in rounds[last_started:] if r.unplayed), rounds[-1])


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


def missing_results(round_: Round) -> int:
    return round_.matches.filter(
        kind__in=[MatchKind.PLAYED, MatchKind.GAME], reported=False
    ).count()


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


def round_label(round_: Round | None) -> str:
    """ "Round 4", or for the top cut its name: "Quarterfinals", "Semifinals", "Final"."""
    if round_ is None:
        return ""
    if round_.playoff:
        return playoff_name(round_.matches.count())
    return f"Round {round_.number}"
