"""The audit log's sentence for a PENALTY entry (services.penalties), for
pages.audit's renderers: `penalty_sentence(record, context)`.

Its own module so that the penalty screens' read model (pages.penalties) does not depend
on the audit log's, and the audit log can take this one function in.
"""

from __future__ import annotations

from tournaments.infractions import DISQUALIFICATION, PENALTY_NAMES, infraction_name
from tournaments.pages.audit_parts import Context, Mention, Part, Record, Unknown


def penalty_sentence(r: Record, ctx: Context) -> tuple[Part, ...]:
    """services.penalties: round and table (None without a match), the player; after
    {"event": "issued" | "withdrawn", "infraction", "infraction_name", "penalty",
    "section", "note", "result" (a conceded match, as the player reads it)}."""
    a = r.after
    name, ext = r.players[0]
    who = Mention(name, ext)
    kind = PENALTY_NAMES[a["penalty"]]
    what = str(a.get("infraction_name") or infraction_name(str(a["infraction"])))
    section = f" (IPG {a['section']})" if a.get("section") else ""
    where = ""
    if r.round is not None and r.table is not None:
        number = int(r.round)
        named = ctx.playoff_rounds.get(number)
        where = (
            f"{named}, table {int(r.table)}: "
            if named
            else f"Table {int(r.table)}, round {number}: "
        )
    if a["event"] == "withdrawn":
        cleared = " (its result cleared)" if a.get("result_cleared") else ""
        return (f"{where}{kind} for ", who, f" withdrawn ({what}){cleared}")
    if a["event"] != "issued":
        raise Unknown(a["event"])
    if a["penalty"] == DISQUALIFICATION:
        parts: tuple[Part, ...] = (where, who, f" disqualified for {what}{section}")
    else:
        article = "an" if kind[0] in "AEIOU" else "a"
        parts = (where, who, f" received {article} {kind} for {what}{section}")
    if a.get("result"):
        parts += (f"; the match conceded {a['result']}",)
    if a.get("note"):
        parts += (f" — “{a['note']}”",)
    return tuple(p for p in parts if p != "")
