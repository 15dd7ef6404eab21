"""The audit log's sentence for a PENALTY entry (services.penalties), for
pages.audit's renderers: `penalty_sentence(record, context)`.

Its own module so that the penalty screens' read model (pages.penalties) does not depend
on the audit log's, and the audit log can take this one function in.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from tournaments.infractions import (
    DISQUALIFICATION,
    GAME_LOSS,
    INFRACTIONS,
    MATCH_LOSS,
    WARNING,
    infraction_name,
)
from tournaments.pages.audit_parts import Context, Mention, Part, Record, Unknown, said
from tournaments.pages.penalties import penalty_name


def _received(kind: str) -> str:
    """ "%(player)s received a Warning for %(infraction)s": one sentence per penalty (the
    article, and in other languages the verb, depend on it)."""
    if kind == WARNING:
        return _("%(player)s received a Warning for %(infraction)s")
    if kind == GAME_LOSS:
        return _("%(player)s received a Game Loss for %(infraction)s")
    if kind == MATCH_LOSS:
        return _("%(player)s received a Match Loss for %(infraction)s")
    return _("%(player)s received a %(penalty)s for %(infraction)s")


def _where(r: Record, ctx: Context) -> str:
    """ "Table 4, round 3: " ("Final, table 1: " in the top cut), "" without a table."""
    if r.round is None or r.table is None:
        return ""
    number, table = int(r.round), int(r.table)
    named = ctx.playoff_rounds.get(number)
    if named:
        return _("%(round)s, table %(table)s: ") % {"round": named, "table": table}
    return _("Table %(table)s, round %(round)s: ") % {"table": table, "round": number}


def penalty_sentence(r: Record, ctx: Context) -> tuple[Part, ...]:
    """services.penalties: round and table (None without a match), the player; after
    {"event": "issued" | "withdrawn", "infraction", "infraction_name", "penalty",
    "section", "note", "result" (a conceded match, as the player reads it)}."""
    a = r.after
    name, ext = r.players[0]
    who = Mention(name, ext)
    kind = penalty_name(a["penalty"])
    key = str(a["infraction"])
    # The name as the IPG table has it now, in the reader's language; else as stored.
    what = (
        _(infraction_name(key))
        if key in INFRACTIONS
        else str(a.get("infraction_name") or infraction_name(key))
    )
    where = _where(r, ctx)
    if a["event"] == "withdrawn":
        sentence = (
            _("%(penalty)s for %(player)s withdrawn (%(infraction)s) (its result cleared)")
            if a.get("result_cleared")
            else _("%(penalty)s for %(player)s withdrawn (%(infraction)s)")
        )
        return tuple(
            p
            for p in (where, *said(sentence, penalty=kind, player=who, infraction=what))
            if p != ""
        )
    if a["event"] != "issued":
        raise Unknown(a["event"])
    if a.get("section"):
        what = _("%(infraction)s (IPG %(section)s)") % {
            "infraction": what,
            "section": a["section"],
        }
    if a["penalty"] == DISQUALIFICATION:
        sentence = _("%(player)s disqualified for %(infraction)s")
    else:
        sentence = _received(a["penalty"])
    parts: tuple[Part, ...] = (where, *said(sentence, player=who, penalty=kind, infraction=what))
    if a.get("result"):
        parts += (_("; the match conceded %(result)s") % {"result": a["result"]},)
    if a.get("note"):
        parts += (f" — “{a['note']}”",)
    return tuple(p for p in parts if p != "")
