"""Small reads shared by several screens (and by the services that must check them)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from tournaments.models import MatchKind, Round, Tournament
from tournaments.rules import playoff_name

POLL_SECONDS = 3  # issue 4: phones show a change within 5 s


def current_round(tournament: Tournament) -> Round | None:
    return tournament.rounds.order_by("-number").first()


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
