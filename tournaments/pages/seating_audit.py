"""The audit log's sentences for fixed seats (AuditAction.SEATING) and pairing
restrictions (AuditAction.RESTRICTION), for pages.audit's renderers: built from the
entry's stored fields only (see pages.audit.describe). A shape not known here raises
ValueError, and the entry shows its stored summary."""

from __future__ import annotations

from django.utils.translation import gettext as _

from tournaments.models import Enforcement
from tournaments.pages.audit_parts import Context, Mention, Part, Record, said


def _level(value: str) -> str:
    """A Rules Enforcement Level's name, in the reader's language."""
    return _(Enforcement(value).label)


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
        moved = was is not None and was != table
        reason = a.get("reason")
        if moved and reason:
            message = _("%(name)s fixed to table %(table)s (was table %(was)s) (%(reason)s)")
        elif moved:
            message = _("%(name)s fixed to table %(table)s (was table %(was)s)")
        elif reason:
            message = _("%(name)s fixed to table %(table)s (%(reason)s)")
        else:
            message = _("%(name)s fixed to table %(table)s")
        return said(
            message, name=who, table=table, was=int(was) if moved else "", reason=reason or ""
        )
    if a["event"] == "unfixed":
        return said(_("%(name)s no longer fixed to table %(table)s"), name=who, table=table)
    raise ValueError(a["event"])


def restriction_sentence(r: Record, ctx: Context) -> tuple[Part, ...]:
    """services.restrictions: the two players; after {"event": "restricted" | "lifted" |
    "kept_apart" | "unavoidable", "players" (their ids), "round", "reason"}; or the
    enforcement level's change: after {"event": "enforcement", "enforcement"}, before
    {"enforcement"}."""
    a = r.after
    event = a["event"]
    if event == "enforcement":
        return (
            _("Rules Enforcement Level set to %(level)s (was %(was)s)")
            % {"level": _level(a["enforcement"]), "was": _level(r.before["enforcement"])},
        )
    first, second = _two(r)
    if event == "restricted":
        if a.get("reason"):
            return said(
                _("%(a)s and %(b)s are not to be paired (%(reason)s)"),
                a=first,
                b=second,
                reason=a["reason"],
            )
        return said(_("%(a)s and %(b)s are not to be paired"), a=first, b=second)
    if event == "lifted":
        return said(_("%(a)s and %(b)s may be paired again"), a=first, b=second)
    if event == "kept_apart":
        message = _(
            "Round %(round)s: %(a)s and %(b)s kept apart as restricted (the pairing "
            "without restrictions paired them)"
        )
    elif event == "unavoidable":
        message = _(
            "Round %(round)s: %(a)s and %(b)s paired despite their restriction (no "
            "pairing of the field kept every restricted pair apart)"
        )
    else:
        raise ValueError(event)
    return said(message, round=int(a["round"]), a=first, b=second)
