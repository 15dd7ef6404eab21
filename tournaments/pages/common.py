"""Small reads shared by several screens. The round predicates services check too live in
tournaments.domain; they are importable from here as well."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from tournaments.domain import current_round as current_round
from tournaments.domain import last_round as last_round
from tournaments.domain import missing_results as missing_results
from tournaments.domain import round_label as round_label
from tournaments.models import Round

POLL_SECONDS = 3  # issue 4: phones show a change within 5 s


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
