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

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tournaments.models import DeckFormat
from tournaments.pages.audit_parts import Context, Mention, Part, Record, Unknown, said


def _cards(a: dict[str, Any]) -> str:
    main, side = int(a["main"]), int(a["side"])
    # English says "cards" whatever the count; other languages pick their form.
    if side:
        return ngettext("%(main)s + %(side)s cards", "%(main)s + %(side)s cards", main + side) % {
            "main": main,
            "side": side,
        }
    return ngettext("%(main)s cards", "%(main)s cards", main) % {"main": main}


def _verdict(a: dict[str, Any]) -> str:
    if a.get("legal"):
        return _("legal")
    n = int(a.get("problems") or 0)
    return ngettext("%(count)s problem", "%(count)s problems", n) % {"count": n}


def _diff(before: Any, after: dict[str, Any]) -> str:
    """ "+1 Negate, -1 Duress (side)": what a judge's change did, card by card."""
    if not isinstance(before, dict) or "main_list" not in after:
        return ""
    changes: list[str] = []
    for side, listed in ((False, "main_list"), (True, "side_list")):
        old: dict[str, int] = {}
        for count, name in before.get(listed) or []:
            old[str(name)] = old.get(str(name), 0) + int(count)
        new: dict[str, int] = {}
        for count, name in after.get(listed) or []:
            new[str(name)] = new.get(str(name), 0) + int(count)
        for name in sorted(set(old) | set(new)):
            delta = new.get(name, 0) - old.get(name, 0)
            if delta:
                change = f"{delta:+d} {name}"
                changes.append(_("%(change)s (side)") % {"change": change} if side else change)
    if not changes:
        return ""
    shown = ", ".join(changes[:8])
    if len(changes) > 8:
        return _("%(changes)s and %(count)s more") % {"changes": shown, "count": len(changes) - 8}
    return shown


def _rules(a: dict[str, Any], ctx: Context) -> str:
    """ "Decklists: Modern, deadline 2026-05-02 10:00 (3 lists checked again)"."""
    label = _(DeckFormat(a["format"]).label) if a["format"] else _("no decklists")
    if a.get("deadline"):
        when = datetime.fromisoformat(str(a["deadline"])).astimezone(ctx.tz)
        text = _("Decklists: %(format)s, deadline %(when)s") % {
            "format": label,
            "when": f"{when:%Y-%m-%d %H:%M}",
        }
    elif a["format"]:
        text = _("Decklists: %(format)s, until round 1 is paired") % {"format": label}
    else:
        text = _("Decklists: %(format)s") % {"format": label}
    again = int(a.get("rechecked") or 0)
    if not again:
        return text
    return ngettext(
        "%(rules)s (%(count)s list checked again)",
        "%(rules)s (%(count)s lists checked again)",
        again,
    ) % {"rules": text, "count": again}


def decklist_sentence(r: Record, ctx: Context) -> tuple[Part, ...]:
    """ "Ana Souza registered a decklist (60 + 15 cards, legal)"; "A judge changed Ana
    Souza's registered decklist: +1 Negate (side), -1 Duress (side)"; "Decklists: Modern,
    deadline 2026-05-02 10:00"; "The top cut's decklists published"."""
    a = r.after
    event = a["event"]
    if event == "rules":
        return (_rules(a, ctx),)
    if event == "publish":
        return (
            _("The top cut's decklists published")
            if a["published"]
            else _("The decklists made private again"),
        )
    name, ext = r.players[0]
    facts = {"player": Mention(name, ext), "cards": _cards(a), "verdict": _verdict(a)}
    if event == "submitted":
        if a.get("replaced"):
            return said(_("%(player)s updated their decklist (%(cards)s, %(verdict)s)"), **facts)
        return said(_("%(player)s registered a decklist (%(cards)s, %(verdict)s)"), **facts)
    if event == "entered":
        return said(_("Decklist entered for %(player)s (%(cards)s, %(verdict)s)"), **facts)
    if event == "changed":
        diff = _diff(r.before, a)
        if diff:
            return said(
                _(
                    "A judge changed %(player)s's registered decklist: %(changes)s "
                    "(%(cards)s, %(verdict)s)"
                ),
                **facts,
                changes=diff,
            )
        return said(
            _("A judge changed %(player)s's registered decklist (%(cards)s, %(verdict)s)"),
            **facts,
        )
    raise Unknown(event)
