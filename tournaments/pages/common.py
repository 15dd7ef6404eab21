"""Small reads shared by several screens. The round predicates services check too live in
tournaments.domain; they are importable from here as well."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db.models import Sum
from django.utils import timezone

from tournaments.domain import current_round as current_round
from tournaments.domain import last_round as last_round
from tournaments.domain import missing_results as missing_results
from tournaments.domain import round_label as round_label
from tournaments.models import Round, TimeExtension
from tournaments.tabletime import table_time

POLL_SECONDS = 3  # issue 4: phones show a change within 5 s


def clock_remaining(round_: Round, now: datetime | None = None) -> timedelta | None:
    """Time left on the round clock (negative when over time), None if never started."""
    found = table_time(
        clock_ends_at=round_.clock_ends_at,
        clock_paused_remaining=round_.clock_paused_remaining,
        now=now or timezone.now(),
    )
    return None if found is None else found.remaining


def clock_state(round_: Round | None, extension: int = 0) -> dict[str, Any] | None:
    """What a page needs to show the round clock (phones count down from ends_at); with
    `extension`, the minutes added to one table (tournaments.tabletime): that table's
    own end, which its players' phones count down to."""
    if round_ is None:
        return None
    found = table_time(
        clock_ends_at=round_.clock_ends_at,
        clock_paused_remaining=round_.clock_paused_remaining,
        extension_minutes=extension,
        now=timezone.now(),
    )
    if found is None:
        return None
    return {
        "ends_at": found.ends_at.isoformat() if found.ends_at else None,
        "ends": found.ends_at,
        "paused": found.paused,
        "remaining": int(found.remaining.total_seconds()),
        "extension": extension,
    }


def round_extensions(round_id: int) -> dict[int, int]:
    """match id -> the minutes judges added to that table of the round (time extensions
    and deck checks, issue 27); tables with none are left out. One query."""
    rows = (
        TimeExtension.objects.filter(match__round_id=round_id)
        .values("match_id")
        .annotate(total=Sum("minutes"))
        .values_list("match_id", "total")
    )
    return dict(rows)
