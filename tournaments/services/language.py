"""The event's default language (issue 29): what its pages speak to a reader whose
browser asks for no language we ship (tournaments.locale)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from tournaments.messages import gettext_noop, template
from tournaments.models import Tournament
from tournaments.services.writing import ServiceError, writing

# The refusal, said where it is shown (issue 36).
NOT_SPOKEN = template(
    "language.not_spoken",
    gettext_noop("%(language)r is not a language these pages speak: pick one of %(known)s."),
)


def set_event_language(*, tournament: Tournament, language: str, by: Any = None) -> Tournament:
    """Set the event's default language: a code of settings.LANGUAGES, or "" for English
    (the readers' browsers still choose first). No audit entry: it changes no result,
    standing or seat; the version moves so that cached pages render in it."""
    language = language.strip()
    shipped = {code for code, _name in settings.LANGUAGES}
    if language and language not in shipped:
        raise ServiceError(NOT_SPOKEN(language=language, known=", ".join(sorted(shipped))))
    with writing(tournament, by=by) as w:
        t = w.tournament
        if t.language == language:
            return t
        t.language = language
        t.save(update_fields=["language"])
        w.touched()
    return t
