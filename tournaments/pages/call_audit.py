"""Judge calls in the audit log (issue 27): AuditAction.CALL entries as sentences.

Built from the entry's stored round and table and the facts services.calls writes in
`after` ({"event", "call", "round", "table", "note", "player", "player_id", "by",
"resolution"}), never from its summary:
    Table 12, round 3: Ana Souza called a judge: 'missed trigger'
    Table 12, round 3: Ana Souza's call claimed by judge1
    Table 12, round 3: Ana Souza's call handed to the head judge by judge1
    Table 12, round 3: Ana Souza's call resolved by head: 'warning issued'
    Table 4, round 3: judge1 opened a call: 'slow play'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _

from tournaments.pages.audit_parts import Context, Mention, Part, Record, Unknown, said

EVENTS = ("claimed", "released", "head", "resolved")


def _place(r: Record, a: Mapping[str, Any], ctx: Context) -> str:
    number = int(r.round if r.round is not None else a["round"])
    table = r.table if r.table is not None else a["table"]
    if number in ctx.playoff_rounds:
        return _("Table %(table)s, %(round)s") % {
            "table": table,
            "round": ctx.playoff_rounds[number],  # said in the reader's language
        }
    return _("Table %(table)s, round %(number)s") % {"table": table, "number": number}


def _whose_call(event: str, noted: bool, by_player: bool) -> str:
    """The sentence for a judge's action on a call, the caller's or a judge's own."""
    if by_player:
        sentences = {
            "claimed": _("%(place)s: %(player)s's call claimed by %(by)s"),
            "released": _("%(place)s: %(player)s's call released by %(by)s"),
            "head": _("%(place)s: %(player)s's call handed to the head judge by %(by)s"),
            "resolved": _("%(place)s: %(player)s's call resolved by %(by)s"),
        }
        if noted:
            return _("%(place)s: %(player)s's call resolved by %(by)s: '%(note)s'")
        return sentences[event]
    sentences = {
        "claimed": _("%(place)s: the call claimed by %(by)s"),
        "released": _("%(place)s: the call released by %(by)s"),
        "head": _("%(place)s: the call handed to the head judge by %(by)s"),
        "resolved": _("%(place)s: the call resolved by %(by)s"),
    }
    if noted:
        return _("%(place)s: the call resolved by %(by)s: '%(note)s'")
    return sentences[event]


def call_sentence(r: Record, ctx: Context) -> tuple[Part, ...]:
    """One AuditAction.CALL entry as a sentence (tournaments.pages.audit's renderers), in
    the reader's language."""
    a = r.after
    event = a["event"]
    caller = Mention(str(a["player"]), a.get("player_id")) if a.get("player") else None
    facts: dict[str, Any] = {
        "place": _place(r, a, ctx),
        "by": str(a.get("by") or r.by or _("a judge")),
        "player": caller,  # a link where the language puts the name
        "note": a.get("note") or "",
    }
    if event == "called":
        if caller is None:
            raise Unknown(event)
        if facts["note"]:
            return said(_("%(place)s: %(player)s called a judge: '%(note)s'"), **facts)
        return said(_("%(place)s: %(player)s called a judge"), **facts)
    if event == "opened":
        if facts["note"]:
            return said(_("%(place)s: %(by)s opened a call: '%(note)s'"), **facts)
        return said(_("%(place)s: %(by)s opened a call"), **facts)
    if event not in EVENTS:
        raise Unknown(event)
    noted = event == "resolved" and bool(a.get("resolution"))
    facts["note"] = a.get("resolution") or ""
    return said(_whose_call(event, noted, caller is not None), **facts)
