"""The decklist checker's problems, as English templates with named placeholders.

Pure (no Django): each problem's text is made here from one of these templates and its
values, and stored as that English text (Decklist.problems, the exports). A page shows
it in its reader's language by reading the text back into its template and values
(`read`) and translating the template (tournaments.pages.decklists.shown_problem).

The templates are marked for makemessages by two local no-ops that xgettext knows by
name (its keywords gettext_noop, and ngettext:1,2 for the ones that count something).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Template:
    """A problem's English text with named placeholders; a counting one has its plural
    form and the placeholder holding the count."""

    singular: str
    plural: str | None = None
    count: str = ""

    def english(self, values: Mapping[str, Any]) -> str:
        if self.plural is not None and values[self.count] != 1:
            return self.plural % values
        return self.singular % values

    def forms(self) -> tuple[str, ...]:
        return (self.singular,) if self.plural is None else (self.singular, self.plural)


def gettext_noop(message: str) -> str:
    """Marks `message` for makemessages; the shell translates it when it shows it."""
    return message


def ngettext(singular: str, plural: str, count: str) -> Template:
    """Marks a counting message for makemessages (as Django's ngettext would be found):
    its two English forms, the form chosen by the placeholder `count`. Translated by the
    shell with Django's ngettext."""
    return Template(singular, plural, count)


def _t(message: str) -> Template:
    return Template(message)


# A problem about one line of the list: %(problem)s is one of the others.
LINE = _t(gettext_noop("line %(line)s: %(problem)s"))
DEK_FILE = _t(gettext_noop("in the .dek file: %(problem)s"))

# Reading the text forms.
COUNT_DIGITS = _t(gettext_noop("the count %(count)s must be written with the digits 0-9"))
COUNT_TOO_BIG = _t(gettext_noop("a count of %(count)s is more than %(most)s"))
COUNT_ZERO = _t(gettext_noop("a count of 0: leave the card out instead"))
COUNT_UNREADABLE = _t(gettext_noop("the count cannot be read"))
NO_NAME = _t(gettext_noop("the line has a count but no card name"))
NO_COUNT = _t(gettext_noop("%(text)s has no count: write it as '1 %(name)s'"))
NAME_TOO_LONG = _t(gettext_noop("a card name is at most %(most)s characters"))
LIST_UNREADABLE = _t(gettext_noop("the list could not be read (%(error)s)"))
LIST_NOT_TEXT = _t(gettext_noop("the list is not text"))
TOO_MANY_LINES = _t(gettext_noop("the list has more than %(most)s lines"))

# Reading MTGO's .dek.
DEK_UNREADABLE = _t(gettext_noop("the .dek file could not be read (%(error)s)"))
DEK_NOT_TEXT = _t(gettext_noop("the .dek file is not text"))
DEK_NO_NAME = _t(gettext_noop("a card without a name"))
DEK_NO_QUANTITY = _t(gettext_noop("%(name)s has no quantity"))
DEK_QUANTITY = _t(gettext_noop("the quantity %(quantity)s of %(name)s is not a number"))
DEK_QUANTITY_UNREADABLE = _t(gettext_noop("the quantity cannot be read"))
DEK_TOO_MANY = _t(gettext_noop("the .dek file has more than %(most)s cards"))
DEK_ENTITIES = _t(gettext_noop("the .dek file declares a DOCTYPE or entities: not accepted"))
DEK_NOT_XML = _t(gettext_noop("the .dek file is not well-formed XML (line %(line)s): %(error)s"))
DEK_NOT_DEK = _t(gettext_noop("the file is not an MTGO .dek file (no <Deck>)"))

# Checking against the format and the card data.
NOT_A_CARD = _t(gettext_noop("'%(name)s' is not a card"))
NOT_A_CARD_HINT = _t(gettext_noop("'%(name)s' is not a card; did you mean %(suggestion)s?"))
BANNED = _t(gettext_noop("%(name)s is banned in %(format)s"))
RESTRICTED = _t(
    gettext_noop("%(name)s is restricted in %(format)s: at most 1 copy, the list has %(count)s")
)
NOT_LEGAL = _t(gettext_noop("%(name)s is not legal in %(format)s"))
TOO_MANY_COPIES = ngettext(
    "%(count)s copy of %(name)s (main deck and sideboard): at most %(most)s allowed",
    "%(count)s copies of %(name)s (main deck and sideboard): at most %(most)s allowed",
    "count",
)
MAIN_TOO_SMALL = ngettext(
    "the main deck has %(count)s card: at least %(least)s are needed",
    "the main deck has %(count)s cards: at least %(least)s are needed",
    "count",
)
SIDE_TOO_BIG = ngettext(
    "the sideboard has %(count)s card: at most %(most)s are allowed",
    "the sideboard has %(count)s cards: at most %(most)s are allowed",
    "count",
)

# The placeholders that hold another problem's text (translated in turn), and those
# that hold a number.
NESTED = frozenset({"problem"})
NUMBERS = frozenset({"line", "most", "least"})

# Every template, the most specific first: a text is read back into the first that
# matches it whole.
TEMPLATES: tuple[Template, ...] = (
    LINE,
    DEK_FILE,
    NOT_A_CARD_HINT,
    NOT_A_CARD,
    BANNED,
    RESTRICTED,
    NOT_LEGAL,
    TOO_MANY_COPIES,
    MAIN_TOO_SMALL,
    SIDE_TOO_BIG,
    COUNT_DIGITS,
    COUNT_TOO_BIG,
    COUNT_ZERO,
    COUNT_UNREADABLE,
    NO_NAME,
    NO_COUNT,
    NAME_TOO_LONG,
    LIST_UNREADABLE,
    LIST_NOT_TEXT,
    TOO_MANY_LINES,
    DEK_UNREADABLE,
    DEK_NOT_TEXT,
    DEK_NO_NAME,
    DEK_NO_QUANTITY,
    DEK_QUANTITY,
    DEK_QUANTITY_UNREADABLE,
    DEK_TOO_MANY,
    DEK_ENTITIES,
    DEK_NOT_XML,
    DEK_NOT_DEK,
)

_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _pattern(form: str) -> re.Pattern[str]:
    parts: list[str] = []
    end = 0
    for found in _PLACEHOLDER.finditer(form):
        parts.append(re.escape(form[end : found.start()]))
        key = found[1]
        parts.append(rf"(?P<{key}>\d+)" if key in NUMBERS else rf"(?P<{key}>.+?)")
        end = found.end()
    parts.append(re.escape(form[end:]))
    return re.compile("".join(parts), re.DOTALL)


_PATTERNS = [(t, _pattern(form)) for t in TEMPLATES for form in t.forms()]


def problem_text(template: Template, **values: Any) -> str:
    """The problem's English text."""
    return template.english(values)


def read(text: str) -> tuple[Template, dict[str, Any]] | None:
    """The template and values `text` was made from (the counts as numbers), or None
    for a text no template makes (stored by an older version, say)."""
    for template, pattern in _PATTERNS:
        found = pattern.fullmatch(text)
        if found is None:
            continue
        values: dict[str, Any] = dict(found.groupdict())
        for key in NUMBERS & values.keys():
            values[key] = int(values[key])
        if template.count:
            if not str(values[template.count]).isdigit():
                continue
            values[template.count] = int(values[template.count])
        return template, values
    return None
