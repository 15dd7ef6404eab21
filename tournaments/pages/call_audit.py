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

from tournaments.pages.audit_parts import Context, Mention, Part, Record, Unknown

VERBS = {
    "claimed": "claimed by",
    "released": "released by",
    "head": "handed to the head judge by",
    "resolved": "resolved by",
}


def _place(r: Record, a: Mapping[str, Any], ctx: Context) -> str:
    number = int(r.round if r.round is not None else a["round"])
    table = r.table if r.table is not None else a["table"]
    if number in ctx.playoff_rounds:
        return f"Table {table}, {ctx.playoff_rounds[number]}"
    return f"Table {table}, round {number}"


def _quoted(text: Any) -> str:
    return f": '{text}'" if text else ""


def call_sentence(r: Record, ctx: Context) -> tuple[Part, ...]:
    """One AuditAction.CALL entry as a sentence (tournaments.pages.audit's renderers)."""
    a = r.after
    event = a["event"]
    place = f"{_place(r, a, ctx)}: "
    by = str(a.get("by") or r.by or "a judge")
    caller = Mention(str(a["player"]), a.get("player_id")) if a.get("player") else None
    if event == "called":
        if caller is None:
            raise Unknown(event)
        return (place, caller, f" called a judge{_quoted(a.get('note'))}")
    if event == "opened":
        return (f"{place}{by} opened a call{_quoted(a.get('note'))}",)
    if event not in VERBS:
        raise Unknown(event)
    said = _quoted(a.get("resolution")) if event == "resolved" else ""
    whose: tuple[Part, ...] = (caller, "'s call") if caller is not None else ("the call",)
    return (place, *whose, f" {VERBS[event]} {by}{said}")
