"""Decklists' read model (issue 28): the player's own section, the organizer's screen,
a judge's deck-check view, the published lists (page and JSON) and the exports.

Plain data from stored rows. Nothing here shows a list to the public unless the organizer
published the lists, and then only the top cut's (domain.decklist_top_cut).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import dateformat
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from tournaments.decklists import messages as decklist_messages
from tournaments.decklists.check import deck_check_order
from tournaments.decklists.parse import card_key
from tournaments.decklists.types import CardLookup, Line
from tournaments.domain import decklist_top_cut, decklists_locked
from tournaments.labels import spoken
from tournaments.messages import Message
from tournaments.models import Card, DeckFormat, Decklist, Entry, Player, Tournament
from tournaments.pages.event import display_names


def _zone(t: Tournament) -> ZoneInfo:
    return ZoneInfo(t.time_zone or settings.TIME_ZONE)


def _when(t: Tournament, at: datetime | None) -> str:
    """A time as the event's people read it: "Sat 2 May, 10:00 (Europe/Paris)"."""
    if at is None:
        return ""
    local = at.astimezone(_zone(t))
    # A format each language orders its own way, with Django's day and month names in
    # the reader's language.
    shown = dateformat.format(
        local, pgettext("a date and time as Django formats it", "D j M Y, H:i")
    )
    return f"{shown} ({t.time_zone or settings.TIME_ZONE})"


def deadline_input(t: Tournament) -> str:
    """The deadline as a datetime-local field shows it, in the event's time zone."""
    if t.decklist_deadline is None:
        return ""
    return f"{t.decklist_deadline.astimezone(_zone(t)):%Y-%m-%dT%H:%M}"


def parse_deadline(t: Tournament, value: str) -> datetime | None:
    """A datetime-local field's value ("2026-05-02T10:00"), read in the event's time zone;
    "" is None (round 1's pairing). ValueError for anything else."""
    value = value.strip()
    if not value:
        return None
    naive = datetime.fromisoformat(value)
    if naive.tzinfo is not None:
        raise ValueError(value)
    return naive.replace(tzinfo=_zone(t))


def deadline_text(t: Tournament) -> str:
    """ "until Sat 2 May 2026, 10:00 (Europe/Paris)", or "until round 1 is paired"."""
    if t.decklist_deadline is not None:
        return _("until %(when)s") % {"when": _when(t, t.decklist_deadline)}
    return _("until round 1 is paired")


def stored_problem(stored: Any) -> Message:
    """A stored problem (Decklist.problems: a Message's data) as its Message. Anything
    else (data a newer version wrote, a code no template has) is said as it is stored,
    so that a page never fails on it."""
    if isinstance(stored, Mapping):
        try:
            message = Message.from_data(stored)
            message.english()  # every code known, every placeholder given
        except (LookupError, KeyError, TypeError, ValueError):
            return decklist_messages.STORED_TEXT(text=str(dict(stored)))
        return message
    return decklist_messages.STORED_TEXT(text=str(stored))


def shown_problem(stored: Any) -> str:
    """A stored problem in the reader's language (the active one)."""
    return spoken(stored_problem(stored))


def shown_problems(problems: list[Any]) -> list[str]:
    return [shown_problem(p) for p in problems]


def english_problems(problems: list[Any]) -> list[str]:
    """The stored problems in English, as the organizer's export writes them."""
    return [stored_problem(p).english() for p in problems]


def cards_loaded() -> bool:
    return Card.objects.exists()


def format_label(t: Tournament) -> str:
    return _(DeckFormat(t.deck_format).label) if t.deck_format else ""


def counted(cards: list[list[Any]]) -> int:
    return sum(int(c) for c, _ in cards)


# --- The player's own section --------------------------------------------------------------


def private_panel(player: Player) -> dict[str, Any]:
    """The player's decklist section: the format, the deadline, their registered list
    (legal, or its problems, each naming its line), and whether they may still edit."""
    t = player.tournament
    row = Decklist.objects.filter(player=player).first()
    return {
        "format": format_label(t),
        "locked": decklists_locked(t),
        "deadline": deadline_text(t),
        "names_checked": cards_loaded(),
        "decklist": row,
        "problems": shown_problems(row.problems) if row else [],
        "main_count": counted(row.main) if row else 0,
        "side_count": counted(row.side) if row else 0,
        "text": row.text if row else "",
    }


# --- The organizer's screen ------------------------------------------------------------------


@dataclass
class Entrant:
    pk: int
    ext: str
    name: str
    state: str  # "none", "illegal", "legal"
    problems: list[str] = field(default_factory=list)
    main: int = 0
    side: int = 0
    updated: str = ""
    by_judge: bool = False


def entrants(t: Tournament) -> list[Entrant]:
    """Every player still in the event (accepted, not dropped), by name, with their list's
    state."""
    names = display_names(t)
    rows = {d.player_id: d for d in Decklist.objects.filter(player__tournament=t)}
    out: list[Entrant] = []
    players = Player.objects.filter(
        tournament=t, entry=Entry.ACCEPTED, dropped_after_round__isnull=True
    ).values_list("pk", "external_id", "name")
    for pk, ext, name in players:
        row = rows.get(pk)
        shown = names.get(ext, name)
        if row is None:
            out.append(Entrant(pk, ext, shown, "none"))
            continue
        out.append(
            Entrant(
                pk,
                ext,
                shown,
                "legal" if row.legal else "illegal",
                shown_problems(row.problems),
                counted(row.main),
                counted(row.side),
                _when(t, row.updated_at),
                row.updated_by_id is not None,
            )
        )
    out.sort(key=lambda e: (e.name.casefold(), e.pk))
    return out


def manage_screen(t: Tournament, **extra: Any) -> dict[str, Any]:
    """The organizer's screen: the rules, who has no list or an illegal one (after the
    deadline each is a Decklist Problem to settle, IPG 3.4), the counts, publishing."""
    listed = entrants(t) if t.deck_format else []
    missing = [e for e in listed if e.state == "none"]
    illegal = [e for e in listed if e.state == "illegal"]
    locked = decklists_locked(t) if t.deck_format else False
    published = (
        [display_names(t).get(p.external_id, p.name) for p in decklist_top_cut(t)]
        if t.decklists_published
        else []
    )
    return {
        "tournament": t,
        "formats": [(v, label) for v, label in DeckFormat.choices],
        "format": format_label(t),
        "deadline": deadline_text(t),
        "deadline_value": deadline_input(t),
        "zone": t.time_zone or settings.TIME_ZONE,
        "locked": locked,
        "names_checked": cards_loaded(),
        "entrants": listed,
        "missing": missing,
        "illegal": illegal,
        "legal_count": len(listed) - len(missing) - len(illegal),
        "published_names": published,
        **extra,
    }


# --- A judge's deck check ----------------------------------------------------------------------


def _lines(cards: list[list[Any]], section: str) -> list[Line]:
    """The section's lines, a card named on several lines counted once (a deck check
    counts cards, not lines)."""
    merged: dict[str, Line] = {}
    for k, (c, n) in enumerate(cards, start=1):
        key = card_key(str(n))
        seen = merged.get(key)
        count = int(c) + (seen.count if seen is not None else 0)
        number = seen.number if seen is not None else k
        merged[key] = Line(number=number, count=count, name=str(n), section=section)  # type: ignore[arg-type]
    return list(merged.values())


def _grouped(
    cards: list[list[Any]], section: str, lookup: CardLookup | None
) -> list[dict[str, Any]]:
    return [
        {"type": _(kind), "count": sum(x.count for x in lines), "lines": lines}
        for kind, lines in deck_check_order(_lines(cards, section), lookup)
    ]


def deck_check(player: Player, lookup: CardLookup | None, **extra: Any) -> dict[str, Any]:
    """The player's registered list as a deck check reads it: main deck, then sideboard,
    each by card type, then name, with the counts."""
    t = player.tournament
    row = Decklist.objects.filter(player=player).first()
    names = display_names(t)
    return {
        "tournament": t,
        "player": player,
        "player_name": names.get(player.external_id, player.name),
        "decklist": row,
        "problems": shown_problems(row.problems) if row else [],
        "main": _grouped(row.main, "main", lookup) if row else [],
        "side": _grouped(row.side, "side", lookup) if row else [],
        "main_count": counted(row.main) if row else 0,
        "side_count": counted(row.side) if row else 0,
        "updated": _when(t, row.updated_at) if row else "",
        "locked": decklists_locked(t),
        "deadline": deadline_text(t),
        "format": format_label(t),
        "text": row.text if row else "",
        **extra,
    }


# --- Published lists -----------------------------------------------------------------------


def _published(t: Tournament) -> list[tuple[Player, Decklist | None]]:
    if not t.decklists_published:
        return []
    chosen = decklist_top_cut(t)
    rows = {d.player_id: d for d in Decklist.objects.filter(player__in=chosen)}
    return [(p, rows.get(p.pk)) for p in chosen]


def public_lists(t: Tournament) -> dict[str, Any]:
    """The public Decklists page: nothing before the organizer publishes; then the top
    cut's lists, in standings order."""
    names = display_names(t)
    return {
        "published": t.decklists_published,
        "format": format_label(t),
        "lists": [
            {
                "ext": p.external_id,
                "name": names.get(p.external_id, p.name),
                "main": row.main if row else [],
                "side": row.side if row else [],
                "main_count": counted(row.main) if row else 0,
                "side_count": counted(row.side) if row else 0,
                "registered": row is not None,
            }
            for p, row in _published(t)
        ],
    }


def published_ids(t: Tournament) -> set[str]:
    """The external ids of the players whose list is public (none before publishing)."""
    return {p.external_id for p, row in _published(t) if row is not None}


def _card_lines(cards: list[list[Any]]) -> list[dict[str, Any]]:
    return [{"count": int(c), "name": str(n)} for c, n in cards]


def public_json(t: Tournament) -> dict[str, Any]:
    """/t/<slug>/decklists.json: the published lists (an empty list before)."""
    page = public_lists(t)
    return {
        "event": t.name,
        "format": t.deck_format or None,
        "published": page["published"],
        "decklists": [
            {
                "player": x["ext"],
                "name": x["name"],
                "main": _card_lines(x["main"]),
                "sideboard": _card_lines(x["side"]),
            }
            for x in page["lists"]
            if x["registered"]
        ],
    }


# --- The organizer's exports -----------------------------------------------------------------


def _all(t: Tournament) -> list[tuple[Player, Decklist]]:
    rows = Decklist.objects.filter(player__tournament=t).select_related("player")
    found = [(d.player, d) for d in rows]
    names = display_names(t)
    found.sort(key=lambda x: (names.get(x[0].external_id, x[0].name).casefold(), x[0].pk))
    return found


def export_json(t: Tournament) -> dict[str, Any]:
    """Every registered list, with what the checks found."""
    names = display_names(t)
    return {
        "event": t.name,
        "slug": t.slug,
        "format": t.deck_format or None,
        "deadline": t.decklist_deadline.isoformat() if t.decklist_deadline else None,
        "published": t.decklists_published,
        "decklists": [
            {
                "player": p.external_id,
                "name": names.get(p.external_id, p.name),
                "main": _card_lines(d.main),
                "sideboard": _card_lines(d.side),
                "legal": d.legal,
                "names_checked": d.names_checked,
                "problems": english_problems(d.problems),
                "submitted_at": d.submitted_at.isoformat(),
                "updated_at": d.updated_at.isoformat(),
                "text": d.text,
            }
            for p, d in _all(t)
        ],
    }


def export_text(t: Tournament) -> str:
    """Every registered list as text, one block per player (the form players paste)."""
    names = display_names(t)
    blocks: list[str] = []
    for p, d in _all(t):
        head = f"// {names.get(p.external_id, p.name)} ({p.external_id})"
        head += " · legal" if d.legal else f" · {len(d.problems)} problem(s)"
        lines = [head, *(f"{c} {n}" for c, n in d.main)]
        if d.side:
            lines += ["", "Sideboard", *(f"{c} {n}" for c, n in d.side)]
        blocks.append("\n".join(lines))
    return "\n\n\n".join(blocks) + ("\n" if blocks else "")
