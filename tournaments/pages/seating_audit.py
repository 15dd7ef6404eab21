"""The audit log's sentences for fixed seats (AuditAction.SEATING) and pairing
restrictions (AuditAction.RESTRICTION), for pages.audit's renderers: built from the
entry's stored fields only (see pages.audit.describe). A shape not known here raises
ValueError, and the entry shows its stored summary."""

from __future__ import annotations

from typing import Any

from tournaments.models import Enforcement
from tournaments.pages.audit_parts import Context, Mention, Part, Record

LEVELS = {level.value: str(level.label) for level in Enforcement}


def _reason(value: Any) -> str:
    return f" ({value})" if value else ""


def _two(r: Record) -> tuple[Mention, Mention]:
    """The entry's two players, as it stored them (their names then)."""
    (name_a, ext_a), (name_b, ext_b) = r.players
    return Mention(name_a, ext_a), Mention(name_b, ext_b)


def fixed_seat_sentence(r: Record, ctx: Context) -> tuple[Part, ...]:
    """services.fixed_seats: table, the player; after {"event": "fixed" | "unfixed",
    "table", "reason"}; before {"table", "reason"} when the player was fixed already."""
    name, ext = r.players[0]
    who = Mention(name, ext)
    a = r.after
    table = int(a["table"])
    if a["event"] == "fixed":
        was = (r.before or {}).get("table")
        moved = f" (was table {int(was)})" if was is not None and was != table else ""
        return (who, f" fixed to table {table}{moved}{_reason(a.get('reason'))}")
    if a["event"] == "unfixed":
        return (who, f" no longer fixed to table {table}")
    raise ValueError(a["event"])


def restriction_sentence(r: Record, ctx: Context) -> tuple[Part, ...]:
    """services.restrictions: the two players; after {"event": "restricted" | "lifted" |
    "kept_apart" | "unavoidable", "players" (their ids), "round", "reason"}; or the
    enforcement level's change: after {"event": "enforcement", "enforcement"}, before
    {"enforcement"}."""
    a = r.after
    event = a["event"]
    if event == "enforcement":
        was = LEVELS[r.before["enforcement"]]
        return (f"Rules Enforcement Level set to {LEVELS[a['enforcement']]} (was {was})",)
    first, second = _two(r)
    if event == "restricted":
        return (first, " and ", second, f" are not to be paired{_reason(a.get('reason'))}")
    if event == "lifted":
        return (first, " and ", second, " may be paired again")
    head = f"Round {int(a['round'])}: "
    if event == "kept_apart":
        tail = " kept apart as restricted (the pairing without restrictions paired them)"
    elif event == "unavoidable":
        tail = (
            " paired despite their restriction (no pairing of the field kept every "
            "restricted pair apart)"
        )
    else:
        raise ValueError(event)
    return (head, first, " and ", second, tail)
