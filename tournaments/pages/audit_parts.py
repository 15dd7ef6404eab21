"""The pieces an audit sentence is made of (pages.audit renders them): an entry's stored
facts (Record), what sentences need beyond it (Context), the players they name (Mention).
Their own module so that the renderers of other pages (pages.penalty_audit, ...) build
sentences without importing the audit log's screen, which takes those renderers in."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import Any

from django.utils.translation import gettext as _


@dataclass(frozen=True)
class Mention:
    """A player named in a sentence: the page links it to the log filtered by them."""

    name: str
    ext: str | None = None  # the interchange id, when the entry stored it


Part = str | Mention
Named = tuple[str, str | None]  # a player as an entry stored them: (name then, interchange id)


@dataclass(frozen=True)
class Sentence:
    parts: tuple[Part, ...]
    # The renderer did not know the entry's shape: the sentence is its stored summary, and
    # the screen shows the stored before/after beside it.
    fallback: bool = False

    def __str__(self) -> str:
        return "".join(p if isinstance(p, str) else p.name for p in self.parts)

    @property
    def mentions(self) -> list[Mention]:
        return [p for p in self.parts if isinstance(p, Mention)]


@dataclass(frozen=True)
class Record:
    """What an audit entry stored, and who wrote it (a username, None for the system).

    `round`, `table` and `players` are what the entry is about, as the service stored them
    (AuditEntry.round and .table; its AuditPlayer rows as (name then, interchange id), in
    order). Sentences are built from them and from `before`/`after` only: the summary is
    shown as written when they do not make a sentence (tournaments.audit_legacy read the
    facts of older entries into the fields once)."""

    action: str
    summary: str
    before: Any = None
    after: Any = None
    at: datetime | None = None
    by: str | None = None
    round: int | None = None
    table: int | None = None
    players: tuple[Named, ...] = ()


@dataclass(frozen=True)
class Context:
    """What sentences need beyond the entry itself."""

    # external id -> the player's name now: for a player the entry holds by id only and
    # did not name (entries written before their players were stored)
    names: Mapping[str, str] = field(default_factory=dict)
    playoff_rounds: Mapping[int, str] = field(default_factory=dict)  # number -> its name, said
    tz: tzinfo = UTC
    with_date: bool = False  # the entries span more than one day
    with_year: bool = False


class Unknown(Exception):
    """The entry's shape is not the one this renderer knows: show its summary instead."""


def at_table(r: Record, ctx: Context) -> str:
    """ "Table 3, round 2"; in the top cut "Final, table 1"."""
    # Either stored as None: int() raises TypeError, and the entry shows its summary.
    number, table = int(r.round), int(r.table)  # type: ignore[arg-type]
    if number in ctx.playoff_rounds:
        return _("%(name)s, table %(table)s") % {"name": ctx.playoff_rounds[number], "table": table}
    return _("Table %(table)s, round %(round)s") % {"table": table, "round": number}


SLOT = re.compile(r"%\((\w+)\)s|%%")


def said(message: str, **values: Any) -> tuple[Part, ...]:
    """A translated sentence (`message`, its values as %(name)s placeholders) as parts:
    a Mention stays a part (the page links it), a tuple or list of parts is spliced in,
    anything else is text. One message per sentence, whatever order a language puts its
    players in."""
    pieces: list[Part] = []
    at = 0
    for slot in SLOT.finditer(message):
        pieces.append(message[at : slot.start()])
        at = slot.end()
        value: Any = "%" if slot.group(0) == "%%" else values[slot.group(1)]
        if isinstance(value, Mention):
            pieces.append(value)
        elif isinstance(value, tuple | list):
            pieces.extend(value)
        else:
            pieces.append(str(value))
    pieces.append(message[at:])
    # Text next to text is one part: the parts are the sentence's runs and its mentions.
    parts: list[Part] = []
    for piece in pieces:
        if isinstance(piece, str) and parts and isinstance(parts[-1], str):
            parts[-1] += piece
        elif piece != "":
            parts.append(piece)
    return tuple(parts)
