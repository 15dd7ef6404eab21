"""Rendered fragments of the live pages, and what their ETags derive from.

Phones poll the fragments every few seconds; right after a result hundreds ask at once.
What a fragment shows comes from the read model (tournaments.pages); this module renders
it, caches it, and decides when a phone's copy is still good:

- A shared fragment (standings, pairings, event home) is rendered once per tournament
  version (single-flight across gunicorn workers when the cache is Redis) and its ETag
  is a hash of the HTML: a result that leaves the fragment as it was leaves the ETag too.
- A player's own pages (their page, the standings around them) would cost a render per
  player per version just to learn that they did not change, and with a result every 2 s
  no poll ever meets the same version twice. So after each committed write the process
  that serves the event's streams (stream.Hub, which sees the version move) runs
  `refresh` through `warm_soon`, which takes the event's view of that version
  (tournaments.pages.event), digests exactly what each of those pages shows (each page
  declares it beside itself: pages.public.player_depends, near_depends) and records,
  per player and page, the version at which that digest last moved. A poll reads that version from the cache (no render, no
  extra query): its ETag and its fragment's key. When the record cannot be trusted (no
  refresh ran for the current version and none is on its way, or the cache lost it), the
  page falls back to the tournament's version: more renders, never a stale page.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import Http404, QueryDict
from django.template.loader import render_to_string
from django.utils import translation

from scoring import outlooks
from tournaments.models import Entry, Tournament
from tournaments.pages import public as pages
from tournaments.pages.event import event_view
from tournaments.parsing import ascii_int

log = logging.getLogger(__name__)
RENDER_WAIT_SECONDS = 2.0
FRAGMENT_SECONDS = 300
# The per-player record outlives any round; a lost record only costs renders.
RECORD_SECONDS = 24 * 3600
# How long a poll keeps trusting the record of an older version after a write committed:
# a refresh takes a fraction of a second; one that died is given up after this.
PENDING_SECONDS = 10
REFRESH_WAIT_SECONDS = 10.0
# A version's warm-up is claimed by one process of a pool; no hub meets it as new later.
CLAIM_SECONDS = 600
TRACKED = ("player", "near")  # the per-player pages whose versions `refresh` records
# What `warm_now` does. The record and the fragments live in the cache, shared by a pool
# (one process does them per version); "pages" is each process's own memory.
WARM_PARTS = ("pages", "record", "fragments")
POOL_PARTS = ("record", "fragments")


# --- the query a key holds: what the page reads, and nothing else (issue 24 item 1) ----
#
# A key (and an ETag) holding the whole query string let anyone store a full page per
# `?junk=N`. Each page declares the parameters it reads; the key holds those alone,
# normalised, and a request with anything else is sent to the canonical URL
# (tournaments.views.public.live_page, views.api.json_endpoint) before any render, so
# that a shared cache keyed by the URL keeps only canonical ones too.

# Longer than any name (Player.name): a search this long can only find nobody.
MAX_SEARCH = 200
MAX_PLAYER_ID = 100  # Player.external_id


@dataclass(frozen=True)
class Param:
    """A query parameter a page reads. `normal` gives its value as keys hold it ("" leaves
    it out) or raises Http404 for one the page refuses. `keyed=False`: read by the
    browser only (projector.js), never part of a key. `own`: free text whose every value
    is its own page: such a response is rendered for its request, never stored, here or
    by a shared cache (a key it entered would be a key anyone could multiply)."""

    name: str
    normal: Callable[[str], str]
    keyed: bool = True
    own: bool = False


@dataclass(frozen=True)
class Query:
    """A request's declared parameters, normalised. `text` is what keys, ETags and the
    fragments' own refetch URLs hold; `url` what the canonical URL carries; `exact`
    whether the request's query string already is that URL's (in any order)."""

    values: dict[str, str]
    text: str
    url: str
    exact: bool
    stored: bool  # the app may keep its render: no free text in `text`
    shared: bool  # a shared cache may keep the response: no free text in the URL

    def get(self, name: str) -> str:
        return self.values.get(name, "")


def _encode(pairs: list[tuple[str, str]]) -> str:
    # As the templates' `|urlencode` writes a value (quote, "/" kept), so that the URLs
    # the pages link to (`?me={{ me|urlencode }}`) are canonical as they are.
    return "&".join(f"{quote(k, safe='')}={quote(v, safe='/')}" for k, v in pairs)


def read_query(params: QueryDict, raw: str, declared: Iterable[Param]) -> Query:
    """The declared parameters of a request (`params`: its GET, `raw`: its query string),
    normalised in declared order; a repeated one counts once, by its first value, as a
    proxy reading `$arg_<name>` would. Raises Http404 for a value the page refuses."""
    declared = tuple(declared)
    pairs: list[tuple[str, str]] = []
    for param in declared:
        given = params.getlist(param.name)
        value = param.normal(given[0]) if given else ""
        if value:
            pairs.append((param.name, value))
    by_name = {p.name: p for p in declared}
    keyed = [(k, v) for k, v in pairs if by_name[k].keyed]
    url = _encode(pairs)
    # Order is free (the templates write `?round=2&by=name` and `?by=name&round=2`),
    # anything else is not: the raw query must be the canonical one's parts, as written.
    exact = sorted(raw.split("&")) == sorted(url.split("&")) if raw else not url
    own = {k for k, _v in pairs if by_name[k].own}
    return Query(
        values=dict(pairs),
        text=_encode(keyed),
        url=url,
        exact=exact,
        stored=not any(k in own for k, _v in keyed),
        shared=not own,
    )


def round_number(value: str) -> str:
    """A round as the URL gives it: ASCII digits ("007" is "7"); "" for the current."""
    if not value:
        return ""
    number = ascii_int(value)
    if number is None:
        raise Http404(f"No round {value!r}: give the round as a number.")
    return str(number)


def player_ref(value: str) -> str:
    """A player's id (`?me=`): looked up by the page, which answers 404 for no player."""
    if len(value) > MAX_PLAYER_ID or "\x00" in value:
        raise Http404("No such player")
    return value


def search(value: str) -> str:
    """Free text (`?q=`): trimmed as the page reads it, no longer than any name."""
    return value.strip()[:MAX_SEARCH].strip()


def choice(*allowed: str) -> Callable[[str], str]:
    """One of `allowed`, or left out (the page's default) for anything else."""
    return lambda value: value if value in allowed else ""


def as_given(value: str) -> str:
    return value


def fragment_key(
    t: Tournament, partial: str, query: str, subject: str = "", version: int | None = None
) -> str:
    """The cache key of one fragment: version, language, template, whose page, query.

    `subject` names what the page is about beyond its query (a player's page); `version`
    is the tournament's, or for a tracked page the one at which it last changed. The
    language is the one active for this request (tournaments.locale): each language's
    copy is its own. created_at guards against a deleted event's pk being reused with
    the same version.
    """
    return (
        f"partial:{t.pk}:{t.created_at.timestamp()}:{t.version if version is None else version}"
        f":{translation.get_language()}:{partial}:{quote(subject, safe='')}"
        f":{quote(query, safe='=&')}"
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
    t: Tournament,
    partial: str,
    query: str,
    subject: str,
    build: Callable[[], dict[str, Any]],
    version: int | None = None,
) -> str:
    """A page's fragment as HTML: rendered from what `build` (a read-model function)
    returns, once per version, subject and query, then served from the cache."""
    key = fragment_key(t, partial, query, subject, version)
    return render_once(key, lambda: render(t, partial, query, build()))


def fragment_gz(
    t: Tournament,
    partial: str,
    query: str,
    subject: str,
    build: Callable[[], dict[str, Any]],
    version: int | None = None,
) -> bytes:
    """The same fragment gzip-compressed, itself cached: phones fetch only this copy."""
    key = fragment_key(t, partial, query, subject, version) + ":gz"
    body = cache.get(key)
    if body is None:
        html = fragment(t, partial, query, subject, build, version)
        body = gzip.compress(html.encode(), compresslevel=6, mtime=0)
        cache.set(key, body, FRAGMENT_SECONDS)
    return body


# A player's own pages have one reader, each change is rendered once for that phone, and
# its ETag (the recorded version) answers every repeat with a 304 before any render: the
# shared cache bought nothing for them but six round trips a refresh (get, lock, set,
# unlock, and the same for the gzipped copy), a third of a phone server's time under
# load. They are kept for a while in this process instead: a page many phones follow
# (a player at a feature table) is still rendered once per change per process.
_OWN: OrderedDict[str, tuple[str, bytes | None]] = OrderedDict()
_OWN_SIZE = 2048
_OWN_LOCK = threading.Lock()


def own_fragment(
    t: Tournament,
    partial: str,
    query: str,
    subject: str,
    build: Callable[[], dict[str, Any]],
    version: int,
    *,
    gz: bool,
) -> str | bytes:
    """A tracked page's fragment (HTML, or gzip-compressed with `gz`), kept in this
    process (see above) instead of the shared cache."""
    key = fragment_key(t, partial, query, subject, version)
    with _OWN_LOCK:
        found = _OWN.get(key)
        if found is not None:
            _OWN.move_to_end(key)
    if found is None:
        found = (render(t, partial, query, build()), None)
    html, body = found
    if gz and body is None:
        body = gzip.compress(html.encode(), compresslevel=6, mtime=0)
        found = (html, body)
    with _OWN_LOCK:
        _OWN[key] = found
        _OWN.move_to_end(key)
        while len(_OWN) > _OWN_SIZE:
            _OWN.popitem(last=False)
    return body if gz else html  # type: ignore[return-value]


def content_tag(html: str | bytes) -> str:
    """A short hash of what a response shows: the same bytes, the same ETag."""
    data = html.encode() if isinstance(html, str) else html
    return hashlib.blake2b(data, digest_size=10).hexdigest()


def fragment_etag(
    t: Tournament, partial: str, query: str, subject: str, build: Callable[[], dict[str, Any]]
) -> str:
    """The hash of a shared fragment's HTML, computed once per version and cached, so a
    poll whose fragment did not change is answered 304 for one cache lookup."""
    key = fragment_key(t, partial, query, subject) + ":etag"
    tag = cache.get(key)
    if tag is None:
        tag = content_tag(fragment(t, partial, query, subject, build))
        cache.set(key, tag, FRAGMENT_SECONDS)
    return tag


# --- per-player pages: the version at which each last changed ------------------------


def record_base(t: Tournament) -> str:
    """The prefix of the event's live record in the cache (and of its streams' marks)."""
    return f"live:{t.pk}:{t.created_at.timestamp()}"


def page_version_key(base: str, page: str, subject: str) -> str:
    """Where `refresh` records the version at which a player's page last changed."""
    return f"{base}:pv:{page}:{quote(subject, safe='')}"


def subject_version(t: Tournament, page: str, subject: str) -> int:
    """The version at which `page` ("player" or "near") of player `subject` last changed,
    or the tournament's version when the record cannot say (see the module docstring)."""
    base = record_base(t)
    seen_key, pending_key = f"{base}:seen", f"{base}:pending"
    page_key = page_version_key(base, page, subject)
    got = cache.get_many([seen_key, pending_key, page_key])
    seen, recorded = got.get(seen_key), got.get(page_key)
    if seen is None or recorded is None:
        return t.version
    # A refresh of the current version is on its way: the record is at most one poll late.
    if seen >= t.version or got.get(pending_key):
        return recorded
    return t.version


def digests(t: Tournament) -> dict[str, bytes]:
    """What each tracked page shows, digested, from the event's view at `t.version`:
    `player:<id>` and `near:<id>` (pages.public.player_depends, near_depends: each
    beside its page, digesting exactly what it renders), and `own:<id>`, the player's
    own matches, which reach their phone at once (tournaments.stream)."""
    view = event_view(t)
    out: dict[str, bytes] = {}
    for pid, me in view.players.items():
        if me.entry != Entry.ACCEPTED:
            continue  # no page (pages.public.player answers 404)
        out[f"own:{pid}"] = pages.own_depends(t, view, me)
        out[f"player:{pid}"] = pages.player_depends(t, view, me)
        out[f"near:{pid}"] = pages.near_depends(t, view, me)
    return out


def refresh(tournament_id: int) -> None:
    """Record the version at which each tracked page last changed (module docstring).

    One refresh at a time per event (a lock in the cache), each reading the event as it
    is when it starts, so the record only moves forward.
    """
    t = Tournament.objects.filter(pk=tournament_id).first()
    if t is None:
        return
    base = record_base(t)
    lock_key = f"{base}:refreshing"
    deadline = time.monotonic() + REFRESH_WAIT_SECONDS
    while not cache.add(lock_key, 1, timeout=30):
        if time.monotonic() > deadline:
            return  # the pending mark runs out and polls fall back to the version
        time.sleep(0.02)
    try:
        t.refresh_from_db()
        try:
            now = digests(t)
        except Exception:
            # Polls must not keep trusting a record no refresh can bring up to date.
            cache.delete(f"{base}:seen")
            raise
        before = cache.get(f"{base}:digests") or {}
        moved = [key for key, value in now.items() if before.get(key) != value]
        if moved:
            cache.set_many(
                {page_version_key(base, *key.split(":", 1)): t.version for key in moved},
                RECORD_SECONDS,
            )
        cache.set(f"{base}:digests", now, RECORD_SECONDS)
        cache.set(f"{base}:seen", t.version, RECORD_SECONDS)
    finally:
        cache.delete(lock_key)


def _busiest(t: Tournament) -> list[tuple[str, str, Callable[[], dict[str, Any]]]]:
    return [
        ("scoring/_standings.html", "", lambda: pages.standings(t)),
        ("tournaments/_pairings.html", "", lambda: pages.pairings(t, {})),
        ("tournaments/_pairings.html", "by=name", lambda: pages.pairings(t, {"by": "name"})),
        ("tournaments/_event_home.html", "", lambda: pages.event_home(t)),
    ]


def warm_now(tournament_id: int, only: Iterable[str] = WARM_PARTS) -> None:
    """Before the phones ask: read what players' pages read once per version in this
    process ("pages"), refresh the per-player record ("record"), render the busiest shared
    fragments of the tournament's current version with their ETags ("fragments")."""
    parts = set(only)
    if "record" in parts:
        refresh(tournament_id)
    if not parts & {"pages", "fragments"}:
        return
    t = Tournament.objects.filter(pk=tournament_id).first()
    if t is None:
        return
    if "pages" in parts:
        event_view(t)  # read in the background, not by the first phone after a write
    if "fragments" in parts:
        # In the event's own language: the one its readers' phones most likely ask for
        # (a reader in another language costs one render of their own per version).
        with translation.override(t.language or settings.LANGUAGE_CODE):
            for partial, query, build in _busiest(t):
                fragment_gz(t, partial, query, "", build)
                fragment_etag(t, partial, query, "", build)


def base_event(base: str) -> int:
    """The event's pk from its record_base."""
    return int(base.split(":")[1])


def warm_soon(base: str, version: int, part: str) -> None:
    """The event (`base`: its record_base) moved to `version`: in the background, before
    the phones ask, one `part` of `warm_now`: "pages", "record" or "fragments"; or
    "outlook": the round's "What do I need?" figures (scoring.outlooks.request).

    Called by the processes that serve the event's streams (tournaments.stream.Hub), each
    asking only for what its open pages use; never by the writer: the organizer's process
    spends no time on the phones' pages (its result POST shared the GIL with a 200 ms
    warm-up after every result, bench_phones). With a shared cache one process of a pool
    claims each version's record and fragments; with a cache per process (no REDIS_URL:
    the venue mode) each keeps its own. "pages" is this process's own memory, read by
    every process that asks. Never raises: a cold cache only costs the first phone a render.
    """
    tournament_id = base_event(base)
    if part == "outlook":
        outlooks.request(tournament_id, version)  # claimed and run there
        return
    try:
        claim = f"{base}:warming:{part}:{version}"
        if part in POOL_PARTS and not cache.add(claim, 1, CLAIM_SECONDS):
            return  # another process of the pool has it
        if part == "record":
            # Said before the refresh starts, so that polls meanwhile trust the record.
            cache.set(f"{base}:pending", 1, PENDING_SECONDS)
    except Exception:  # the record then looks stale: polls fall back to the version
        log.exception("claiming the warm-up of tournament %s failed", tournament_id)
        return

    # One warm-up of each part at a time per event in this process: versions that come in
    # while one runs ask for one more run, which reads the event as it is then and so
    # covers them all. (A thread per write queued behind the refresh lock: at 10 player
    # reports a second the backlog of full refreshes took the CPU; bench/bench_reports.py.)
    key = (tournament_id, part)
    with _warming_lock:
        if key in _warming:
            _warming[key] = True
            return
        _warming[key] = False

    def run() -> None:
        try:
            while True:
                try:
                    warm_now(tournament_id, only=(part,))
                except Exception:  # a cache warm-up must never break anything
                    log.exception("warming live pages of tournament %s failed", tournament_id)
                with _warming_lock:
                    if not _warming.get(key):
                        _warming.pop(key, None)
                        return
                    _warming[key] = False
        finally:
            with _warming_lock:
                _warming.pop(key, None)
            connection.close()

    try:
        threading.Thread(target=run, name=f"warm-{tournament_id}-{part}", daemon=True).start()
    except Exception:  # pragma: no cover - out of threads: the pages render on demand
        with _warming_lock:
            _warming.pop(key, None)
        log.exception("could not start warming tournament %s", tournament_id)


# (event pk, part) -> another run asked for while one runs
_warming: dict[tuple[int, str], bool] = {}
_warming_lock = threading.Lock()
