"""Response headers every page carries, and a clear answer when the database is away."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.middleware.gzip import GZipMiddleware
from django.template.loader import render_to_string

log = logging.getLogger(__name__)

# Only our own scripts and styles (htmx is served from our static files), no inline
# script or style, nothing framed, forms post only here. img data: for the browsers'
# own form controls.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class SecurityHeaders:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response


class Compress(GZipMiddleware):
    """Django's gzip for every text response but event streams: gzip holds what it is
    given until its buffer fills, which would keep a live page's events from it."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if response.get("Content-Type", "").startswith("text/event-stream"):
            return response
        return super().process_response(request, response)


class PublicCache:
    """Lets a shared cache keep the public pages (tournaments.views.public.live_page).

    Sits outside SessionMiddleware, which adds `Vary: Cookie` whenever a page looked at
    the session (every page asks who is logged in). A response marked `public` is an
    anonymous one, the same for every anonymous reader, so that header only stops a
    proxy from sharing it; a logged-in user's page is private. Safety net: a public
    response that sets a cookie becomes private, so no cache hands one reader's cookie
    to another. A live page in the reader's language (`language_varies`) keeps
    `Vary: Cookie`: the switcher's cookie chooses it.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not response.get("Cache-Control", "").startswith("public"):
            return response
        if response.cookies:
            response["Cache-Control"] = "private, no-cache"
            return response
        if getattr(response, "language_varies", False):
            # A live page speaks the reader's language, which the language cookie may
            # choose (tournaments.locale): Vary: Cookie stays, or a shared cache would
            # hand one reader's language to the next.
            return response
        vary = [v.strip() for v in response.get("Vary", "").split(",") if v.strip()]
        kept = [v for v in vary if v.lower() != "cookie"]
        if kept != vary:
            if kept:
                response["Vary"] = ", ".join(kept)
            else:
                del response["Vary"]
        return response


class DatabaseUnavailable:
    """A database that cannot be reached answers 503 "try again", not a stack trace.

    Only connection-level failures: a refused write is the services' business, and other
    errors stay 500s (they are bugs, and are logged as such).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError) or not _unreachable(
            exception
        ):
            return None
        log.error("database unavailable: %s", exception)
        body = render_to_string("503.html", {"request": request})
        response = HttpResponse(body, status=503)
        response["Retry-After"] = "5"
        return response


def _unreachable(exc: DatabaseError) -> bool:
    text = str(exc).lower()
    return isinstance(exc, InterfaceError) or any(
        words in text
        for words in (
            "connection refused",
            "could not connect",
            "connection failed",
            "server closed the connection",
            "terminating connection",
            "connection is closed",
            "the database system is",
            "unable to open database",
            "database is locked",
        )
    )
