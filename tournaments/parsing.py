"""Numbers from URLs and forms: ASCII digits only.

`str.isdigit()` is true for "²" and other Unicode digits that int() refuses or reads
differently, so every number a request carries goes through here (the views answer 404
or 422 when it is None).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tournaments.messages import gettext_noop, template

MAX_DIGITS = 9  # no id, round or minute count here needs more


def ascii_int(value: object, *, maximum: int = 10**MAX_DIGITS - 1) -> int | None:
    """The whole number `value` spells in ASCII digits, or None."""
    if not isinstance(value, str) or not 0 < len(value) <= MAX_DIGITS:
        return None
    if not (value.isascii() and value.isdigit()):
        return None
    number = int(value)
    return number if number <= maximum else None


# --- The round screen's quick entry: "12 2-1", "12 d", "12 2-0-1" ------------------------

QUICK_ENTRY_HELP = template(
    "quick.help",
    gettext_noop(
        'Type a table and its result: "12 2-1" (games won by the first player, then the '
        'second), "12 2-0-1" (then drawn games), "12 d" (a draw), "12 dl" (a double loss) '
        'or "12 clear".'
    ),
)
EMPTY = template("quick.empty", gettext_noop("Type a table number and a result, e.g. 12 2-1."))
NO_RESULT = template(
    "quick.no_result",
    gettext_noop("Table %(table)s: add its result after a space, e.g. %(table)s 2-1."),
)
NOT_AN_ENTRY = template(
    "quick.not_an_entry", gettext_noop('"%(text)s" is not a table and a result. %(help)s')
)
TABLE_ZERO = template("quick.table_zero", gettext_noop("Tables are numbered from 1."))
NOT_A_RESULT = template(
    "quick.not_a_result", gettext_noop('Table %(table)s: "%(text)s" is not a result. %(help)s')
)
_QUICK = re.compile(r"^\s*(?:t(?:able)?\s*)?(\d{1,6})\s*[:,]?\s+(.+?)\s*$", re.ASCII | re.I)
_SCORE = re.compile(r"^(\d{1,2})\s*[-:/ ]\s*(\d{1,2})(?:\s*[-:/ ]\s*(\d{1,2}))?$", re.ASCII)
DRAW_WORDS = {"d", "draw", "id"}
DOUBLE_LOSS_WORDS = {"dl", "double loss", "double-loss"}
CLEAR_WORDS = {"clear", "c", "x", "-"}


@dataclass(frozen=True)
class QuickEntry:
    """A parsed quick entry: the table and what to record there."""

    table: int
    wins: tuple[int, int] | None  # None: the result is cleared
    draws: int = 0
    double_loss: bool = False
    draw: bool = False  # "d": the rules' draw for the match's best-of (rules.DRAW_RESULTS)


class QuickEntryError(ValueError):
    """What is wrong with a quick entry, in words for the organizer."""


def parse_quick_entry(text: str) -> QuickEntry:
    """Read "12 2-1" as table 12, 2 games to 1; raise QuickEntryError naming the problem."""
    text = text.strip()
    if not text:
        raise QuickEntryError(EMPTY())
    m = _QUICK.match(text)
    if m is None:
        if ascii_int(text) is not None:
            raise QuickEntryError(NO_RESULT(table=int(text)))
        raise QuickEntryError(NOT_AN_ENTRY(text=text, help=QUICK_ENTRY_HELP()))
    table, rest = int(m[1]), " ".join(m[2].lower().split())
    if table == 0:
        raise QuickEntryError(TABLE_ZERO())
    if rest in DRAW_WORDS:
        return QuickEntry(table, (0, 0), draw=True)
    if rest in DOUBLE_LOSS_WORDS:
        return QuickEntry(table, (0, 0), double_loss=True)
    if rest in CLEAR_WORDS:
        return QuickEntry(table, None)
    s = _SCORE.match(rest)
    if s is None:
        raise QuickEntryError(NOT_A_RESULT(table=table, text=m[2], help=QUICK_ENTRY_HELP()))
    return QuickEntry(table, (int(s[1]), int(s[2])), int(s[3] or 0))
