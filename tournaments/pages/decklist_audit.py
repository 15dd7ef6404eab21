"""The audit log's sentence for a DECKLIST entry (services.decklists), for pages.audit's
renderers: `decklist_sentence(record, context)`. It reads the entry's players and its
`after` (and `before` for a judge's change):

- {"event": "submitted" | "entered" | "changed", "main", "side", "legal", "problems",
  "replaced"} (and for "entered"/"changed" "main_list", "side_list"), the player named;
  before (a judge's change): the same "main", "side" (counts), "main_list" and
  "side_list" of the list replaced;
- {"event": "rules", "format", "deadline", "rechecked"};
- {"event": "publish", "published"}.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tournaments.models import DeckFormat
from tournaments.pages.audit_parts import Context, Mention, Part, Record, Unknown


def _cards(a: dict[str, Any]) -> str:
    main, side = int(a["main"]), int(a["side"])
    return f"{main} + {side} cards" if side else f"{main} cards"


def _verdict(a: dict[str, Any]) -> str:
    if a.get("legal"):
        return "legal"
    n = int(a.get("problems") or 0)
    return f"{n} problem{'s' if n != 1 else ''}"


def _diff(before: Any, after: dict[str, Any]) -> str:
    """ "; +1 Negate, -1 Duress (side)": what a judge's change did, card by card."""
    if not isinstance(before, dict) or "main_list" not in after:
        return ""
    changes: list[str] = []
    for section, listed in (("", "main_list"), (" (side)", "side_list")):
        old: dict[str, int] = {}
        for count, name in before.get(listed) or []:
            old[str(name)] = old.get(str(name), 0) + int(count)
        new: dict[str, int] = {}
        for count, name in after.get(listed) or []:
            new[str(name)] = new.get(str(name), 0) + int(count)
        for name in sorted(set(old) | set(new)):
            delta = new.get(name, 0) - old.get(name, 0)
            if delta:
                changes.append(f"{delta:+d} {name}{section}")
    if not changes:
        return ""
    shown = ", ".join(changes[:8]) + (f" and {len(changes) - 8} more" if len(changes) > 8 else "")
    return f": {shown}"


def decklist_sentence(r: Record, ctx: Context) -> tuple[Part, ...]:
    """ "Ana Souza registered a decklist (60 + 15 cards, legal)"; "A judge changed Ana
    Souza's registered decklist: +1 Negate (side), -1 Duress (side)"; "Decklists: Modern,
    deadline 2026-05-02 10:00"; "The top cut's decklists published"."""
    a = r.after
    event = a["event"]
    if event == "rules":
        label = DeckFormat(a["format"]).label if a["format"] else "no decklists"
        if a.get("deadline"):
            when = datetime.fromisoformat(str(a["deadline"])).astimezone(ctx.tz)
            deadline = f", deadline {when:%Y-%m-%d %H:%M}"
        else:
            deadline = ", until round 1 is paired" if a["format"] else ""
        again = int(a.get("rechecked") or 0)
        tail = f" ({again} list{'s' if again != 1 else ''} checked again)" if again else ""
        return (f"Decklists: {label}{deadline}{tail}",)
    if event == "publish":
        return (
            "The top cut's decklists published"
            if a["published"]
            else "The decklists made private again",
        )
    name, ext = r.players[0]
    who = Mention(name, ext)
    facts = f" ({_cards(a)}, {_verdict(a)})"
    if event == "submitted":
        verb = "updated their decklist" if a.get("replaced") else "registered a decklist"
        return (who, f" {verb}{facts}")
    if event == "entered":
        return ("Decklist entered for ", who, facts)
    if event == "changed":
        return ("A judge changed ", who, f"'s registered decklist{_diff(r.before, a)}{facts}")
    raise Unknown(event)
