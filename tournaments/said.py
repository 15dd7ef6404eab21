"""A message of a pure core (tournaments.rules, tournaments.parsing) that the page can say
in the reader's language (issue 29).

The cores import nothing from Django, so they cannot translate; they build a `Said`: the
English text as before (a str, so callers, logs and tests read it unchanged) that also
keeps its template and values. The shell says it with `tournaments.labels.spoken`. The
templates are marked with `gettext_noop` below, which makemessages finds by its name.
"""

from __future__ import annotations

from typing import Any


def gettext_noop(message: str) -> str:
    """Marks `message` for the catalogues; the translation happens in the shell."""
    return message


class Said(str):
    """`template % values` in English, keeping both."""

    template: str
    values: dict[str, Any]

    def __new__(cls, template: str, **values: Any) -> Said:
        said = super().__new__(cls, template % values if values else template)
        said.template = template
        said.values = values
        return said
