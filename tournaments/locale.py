"""The reader's language and the event's time zone on an event's pages (issue 29).

Django's LocaleMiddleware picks the language from the switcher's cookie, else from the
browser's Accept-Language, else settings.LANGUAGE_CODE. On an event's pages for players
(/t/<slug>/..., a private link /p/<token>/...) the last step is the event's own language
instead (Tournament.language, set by the organizer; `speaking`): a phone that asks for
nothing we ship reads the event's language, not English. The same pages show times in the event's
time zone (Tournament.time_zone), the zone its round clock and its organizer use.

Live pages are cached per event version (tournaments.live): their keys and ETags hold
the active language (translation.get_language()), and their responses vary on
Accept-Language and Cookie (tournaments.middleware.PublicCache keeps the latter for
them), so no cache hands one reader's language to another.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.utils import timezone, translation
from django.utils.translation.trans_real import (
    get_supported_language_variant,
    language_code_re,
    parse_accept_lang_header,
)
from django.views.decorators.csrf import csrf_exempt
from django.views.i18n import set_language as django_set_language

if TYPE_CHECKING:
    from tournaments.models import Tournament


def shipped(code: str) -> bool:
    """Whether `code` is one of settings.LANGUAGES."""
    return code in {c for c, _name in settings.LANGUAGES}


def _supported(code: str) -> str | None:
    try:
        return get_supported_language_variant(code)
    except LookupError:
        return None


def browser_choice(request: HttpRequest) -> str | None:
    """The language the reader asked for, by the switcher's cookie or by their browser's
    Accept-Language, when we ship it; None when they asked for nothing we ship. (The
    order LocaleMiddleware follows, without its fall-back to settings.LANGUAGE_CODE.)"""
    cookie = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
    if cookie and (found := _supported(cookie)):
        return found
    for accepted, _q in parse_accept_lang_header(request.headers.get("Accept-Language", "")):
        if accepted == "*":
            break
        if language_code_re.search(accepted) and (found := _supported(accepted)):
            return found
    return None


@contextmanager
def speaking(request: HttpRequest, t: Tournament) -> Iterator[None]:
    """Inside, an event's page speaks the event's language when the reader asked for none
    we ship (their cookie and Accept-Language come first), and shows times in the event's
    time zone. Used where the page has its event at hand (tournaments.views.public.
    live_page, tournaments.permissions.private_link, the registration form): no query of
    its own on a phone's poll. The language stays active after the block, so that
    LocaleMiddleware's Content-Language names it; the next request activates its own."""
    if t.language and shipped(t.language) and browser_choice(request) is None:
        translation.activate(t.language)
        request.LANGUAGE_CODE = t.language  # type: ignore[attr-defined]
    zone = None
    if t.time_zone:
        # A zone this machine lacks: the server's, as before.
        with contextlib.suppress(ValueError, ZoneInfoNotFoundError):
            zone = ZoneInfo(t.time_zone)
    with timezone.override(zone):
        yield


@csrf_exempt
def set_language(request: HttpRequest) -> HttpResponse:
    """Django's set_language (the switcher's POST: the language cookie, then back to the
    page), without a CSRF token: anonymous public pages carry none, so that a shared cache
    may keep them (tournaments.views.public). What a forged post could do is switch the
    reader's language; a browser's own cross-site post is refused all the same."""
    if request.headers.get("Sec-Fetch-Site") == "cross-site":
        return HttpResponseForbidden("The language is chosen from this site's own pages.")
    return django_set_language(request)
