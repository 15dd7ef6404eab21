"""Rendered fragments of the live pages, cached per tournament version.

Phones poll the fragments every few seconds; right after a result hundreds ask for the
new version at once. What a fragment shows comes from the read model (tournaments.pages);
this module only renders it, caches it keyed by the tournament's one version number, and
warms it after each committed write (`changed`, called by services.writing). A fragment is rendered once per version and query (single-flight
across gunicorn workers when the cache is Redis), and after each write the busiest ones
are rendered in the background before phones ask (`warm`).
"""

from __future__ import annotations

import gzip
import logging
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.template.loader import render_to_string

from tournaments.models import Tournament
from tournaments.pages import public as pages

log = logging.getLogger(__name__)
RENDER_WAIT_SECONDS = 2.0
FRAGMENT_SECONDS = 300


def fragment_key(t: Tournament, partial: str, query: str, subject: str = "") -> str:
    """The cache key of one fragment: tournament version, template, whose page, query.

    `subject` names what the page is about beyond its query (a player's page).
    created_at guards against a deleted event's pk being reused with the same version.
    """
    return (
        f"partial:{t.pk}:{t.created_at.timestamp()}:{t.version}:{partial}:"
        f"{quote(subject, safe='')}:{quote(query, safe='=&')}"
    )


def render(t: Tournament, partial: str, query: str, context: dict[str, Any]) -> str:
    return render_to_string(partial, {"tournament": t, "query_string": query, **context})


def render_once(key: str, render_fragment: Callable[[], str]) -> str:
    """The cached fragment; only one request renders it when a change invalidates it."""
    html = cache.get(key)
    if html is not None:
        return html
    if cache.add(key + ":rendering", 1, timeout=10):
        try:
            html = render_fragment()
            cache.set(key, html, FRAGMENT_SECONDS)
        finally:
            cache.delete(key + ":rendering")
        return html
    deadline = time.monotonic() + RENDER_WAIT_SECONDS
    while time.monotonic() < deadline:
        time.sleep(0.02)
        html = cache.get(key)
        if html is not None:
            return html
    return render_fragment()  # the renderer died or is very slow: do it here


def fragment(
    t: Tournament, partial: str, query: str, subject: str, build: Callable[[], dict[str, Any]]
) -> str:
    """A page's fragment as HTML: rendered from what `build` (a read-model function)
    returns, once per version, subject and query, then served from the cache."""
    key = fragment_key(t, partial, query, subject)
    return render_once(key, lambda: render(t, partial, query, build()))


def fragment_gz(
    t: Tournament, partial: str, query: str, subject: str, build: Callable[[], dict[str, Any]]
) -> bytes:
    """The same fragment gzip-compressed, itself cached: phones fetch only this copy."""
    key = fragment_key(t, partial, query, subject) + ":gz"
    body = cache.get(key)
    if body is None:
        html = fragment(t, partial, query, subject, build)
        body = gzip.compress(html.encode(), compresslevel=6, mtime=0)
        cache.set(key, body, FRAGMENT_SECONDS)
    return body


def _busiest(t: Tournament) -> list[tuple[str, str, Callable[[], dict[str, Any]]]]:
    return [
        ("scoring/_standings.html", "", lambda: pages.standings(t)),
        ("tournaments/_pairings.html", "", lambda: pages.pairings(t, {})),
        ("tournaments/_pairings.html", "by=name", lambda: pages.pairings(t, {"by": "name"})),
        ("tournaments/_event_home.html", "", lambda: pages.event_home(t)),
    ]


def warm_now(tournament_id: int) -> None:
    """Render the busiest fragments of the tournament's current version."""
    t = Tournament.objects.filter(pk=tournament_id).first()
    if t is None:
        return
    for partial, query, build in _busiest(t):
        fragment_gz(t, partial, query, "", build)


def changed(tournament_id: int) -> None:
    """A write to the tournament committed: warm the new version's fragments in the
    background, before the phones ask. Never raises: the write is saved whatever happens
    here, and a cold cache only costs the first phone a render."""
    if not settings.LIVE_PREWARM:
        return

    def run() -> None:
        try:
            warm_now(tournament_id)
        except Exception:  # a cache warm-up must never break anything
            log.exception("warming live pages of tournament %s failed", tournament_id)
        finally:
            connection.close()

    try:
        threading.Thread(target=run, name=f"warm-{tournament_id}", daemon=True).start()
    except Exception:  # pragma: no cover - out of threads: the pages render on demand
        log.exception("could not start warming tournament %s", tournament_id)
