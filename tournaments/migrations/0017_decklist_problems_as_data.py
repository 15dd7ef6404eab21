"""Decklist problems as data (issue 36): each stored problem becomes a message's data.

Until now Decklist.problems held English sentences, and the pages read each back into its
template with regular expressions to translate it, so a card name holding another
template's words was read as that template. From here a problem is stored as
{"code": ..., "params": {...}} (tournaments.messages.Message.data), a problem about a line
being the "decklist.line" message whose "problem" parameter is the nested message's data.

This converts what is stored, once. It is the only code allowed to read English back, so
the reading is frozen here (the templates and the regular expressions as they were when
the sentences were written), not imported: later changes to the catalogue must not change
what this migration did. A sentence no template makes (a refusal stored by a recheck, or
text an older version wrote) is kept whole as "decklist.stored_text", shown as written.
Every conversion is checked: the message it makes must say exactly the stored sentence in
English, else the sentence is kept whole.

Backwards, each message is said in English again with the frozen templates.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import migrations

STORED_TEXT = "decklist.stored_text"

# code: (English forms, the parameter holding the count of a counting template). The
# first thirty are what the checker wrote as sentences, in the order the old reader tried
# them (the most specific first); the last three were added with this migration.
TEMPLATES: dict[str, tuple[tuple[str, ...], str]] = {
    "decklist.line": (("line %(line)s: %(problem)s",), ""),
    "decklist.dek_file": (("in the .dek file: %(problem)s",), ""),
    "decklist.not_a_card_hint": (("'%(name)s' is not a card; did you mean %(suggestion)s?",), ""),
    "decklist.not_a_card": (("'%(name)s' is not a card",), ""),
    "decklist.banned": (("%(name)s is banned in %(format)s",), ""),
    "decklist.restricted": (
        ("%(name)s is restricted in %(format)s: at most 1 copy, the list has %(count)s",),
        "",
    ),
    "decklist.not_legal": (("%(name)s is not legal in %(format)s",), ""),
    "decklist.too_many_copies": (
        (
            "%(count)s copy of %(name)s (main deck and sideboard): at most %(most)s allowed",
            "%(count)s copies of %(name)s (main deck and sideboard): at most %(most)s allowed",
        ),
        "count",
    ),
    "decklist.main_too_small": (
        (
            "the main deck has %(count)s card: at least %(least)s are needed",
            "the main deck has %(count)s cards: at least %(least)s are needed",
        ),
        "count",
    ),
    "decklist.side_too_big": (
        (
            "the sideboard has %(count)s card: at most %(most)s are allowed",
            "the sideboard has %(count)s cards: at most %(most)s are allowed",
        ),
        "count",
    ),
    "decklist.count_digits": (("the count %(count)s must be written with the digits 0-9",), ""),
    "decklist.count_too_big": (("a count of %(count)s is more than %(most)s",), ""),
    "decklist.count_zero": (("a count of 0: leave the card out instead",), ""),
    "decklist.count_unreadable": (("the count cannot be read",), ""),
    "decklist.no_name": (("the line has a count but no card name",), ""),
    "decklist.no_count": (("%(text)s has no count: write it as '1 %(name)s'",), ""),
    "decklist.name_too_long": (("a card name is at most %(most)s characters",), ""),
    "decklist.list_unreadable": (("the list could not be read (%(error)s)",), ""),
    "decklist.list_not_text": (("the list is not text",), ""),
    "decklist.too_many_lines": (("the list has more than %(most)s lines",), ""),
    "decklist.dek_unreadable": (("the .dek file could not be read (%(error)s)",), ""),
    "decklist.dek_not_text": (("the .dek file is not text",), ""),
    "decklist.dek_no_name": (("a card without a name",), ""),
    "decklist.dek_no_quantity": (("%(name)s has no quantity",), ""),
    "decklist.dek_quantity": (("the quantity %(quantity)s of %(name)s is not a number",), ""),
    "decklist.dek_quantity_unreadable": (("the quantity cannot be read",), ""),
    "decklist.dek_too_many": (("the .dek file has more than %(most)s cards",), ""),
    "decklist.dek_entities": (
        ("the .dek file declares a DOCTYPE or entities: not accepted",),
        "",
    ),
    "decklist.dek_not_xml": (
        ("the .dek file is not well-formed XML (line %(line)s): %(error)s",),
        "",
    ),
    "decklist.dek_not_dek": (("the file is not an MTGO .dek file (no <Deck>)",), ""),
    # Added with this migration: never stored as sentences, only said backwards.
    "decklist.list_empty": (
        ("The list is empty: paste your list, or choose a .txt or .dek file.",),
        "",
    ),
    "decklist.list_too_long": (
        (
            "The list is longer than %(most)s kB: a decklist is at most 250 lines. "
            "Paste only the list.",
        ),
        "",
    ),
    "decklist.dek_no_cards": (("it holds no cards",), ""),
}
READ = list(TEMPLATES)[:30]

# The placeholders holding another problem (read in turn), and those holding a number.
NESTED = frozenset({"problem"})
NUMBERS = frozenset({"line", "most", "least"})
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


_PATTERNS = [(code, _pattern(form)) for code in READ for form in TEMPLATES[code][0]]


def _own(data: dict[str, Any]) -> int:
    """How many characters of the sentence `data` says are the templates' own words (its
    own and its nested messages'), not the values put in them."""
    size = len(english(data))
    for value in data["params"].values():
        size -= len(english(value)) - _own(value) if isinstance(value, dict) else len(str(value))
    return size


def english(data: Any) -> str:
    """A problem's data said in English, with the templates above."""
    if not isinstance(data, dict) or "code" not in data:
        return str(data)
    params = {
        k: english(v) if isinstance(v, dict) and "code" in v else v
        for k, v in dict(data.get("params") or {}).items()
    }
    if data["code"] == STORED_TEXT:
        return str(params.get("text", ""))
    forms, count = TEMPLATES[data["code"]]
    form = forms[0] if len(forms) == 1 or int(params[count]) == 1 else forms[1]
    return form % params if params else form


def _candidates(text: str) -> list[dict[str, Any]]:
    """Every reading of `text` as one template's sentence, the one whose own words cover
    the most of it first, then in READ's order. (The old reader took the first in READ's
    order, which read "line 2: 'Bolt is banned in Modern' has no count: ..." as a ban.)"""
    found: list[tuple[int, int, dict[str, Any]]] = []
    for order, (code, pattern) in enumerate(_PATTERNS):
        match = pattern.fullmatch(text)
        if match is None:
            continue
        params: dict[str, Any] = dict(match.groupdict())
        count = TEMPLATES[code][1]
        if count and not params[count].isdigit():
            continue
        for key in params:
            value = params[key]
            if key in NESTED:
                params[key] = read(value)
            elif (key in NUMBERS or key == "count") and value.isascii() and value.isdigit():
                # The checker's numbers were numbers (a quoted count the player wrote, "'4x'",
                # keeps its quotes and stays text).
                params[key] = int(value)
        data = {"code": code, "params": params}
        if english(data) == text:  # else not a reading: it would not say the same
            found.append((-_own(data), order, data))
    found.sort(key=lambda x: (x[0], x[1]))
    return [data for _, _, data in found]


def read(text: str) -> dict[str, Any]:
    """A stored sentence as a message's data: the best reading that says it again
    exactly, else the sentence kept whole."""
    found = _candidates(text)
    return found[0] if found else {"code": STORED_TEXT, "params": {"text": text}}


def forwards(apps: Any, schema_editor: Any) -> None:
    Decklist = apps.get_model("tournaments", "Decklist")
    changed = []
    for row in Decklist.objects.only("id", "problems").iterator():
        problems = [p if isinstance(p, dict) else read(str(p)) for p in row.problems or []]
        if problems != row.problems:
            row.problems = problems
            changed.append(row)
    Decklist.objects.bulk_update(changed, ["problems"], batch_size=500)


def backwards(apps: Any, schema_editor: Any) -> None:
    Decklist = apps.get_model("tournaments", "Decklist")
    changed = []
    for row in Decklist.objects.only("id", "problems").iterator():
        problems = [english(p) for p in row.problems or []]
        if problems != row.problems:
            row.problems = problems
            changed.append(row)
    Decklist.objects.bulk_update(changed, ["problems"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0016_merge_0014_push_0015_language"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
