"""Server-sent events: an open page is told when what it shows changed, instead of polling.

Polling does not scale to a hall of phones: 2,000 phones with two pages each, polling
every 3 s, offer 1,333 requests a second to answer "nothing changed" (bench/bench_phones.py).
Instead each live page opens one stream (`/t/<slug>/live/`, EventSource in live.js) and
fetches its fragment only when told, with its ETag, so an unchanged fragment still costs
only a 304.

One `Hub` per process looks, every CHECK_SECONDS, at the version of each event that has
open streams (one query for all of them: a write from any process is seen) and at the
record in the cache. When a version moves, the hub has the record refreshed and the
shared fragments rendered (live.warm_soon, one process of the pool per version): that
work belongs to the processes that serve the phones, never to the writer's. Then:
- a player's own page and their standings around them ("tracked" pages) are told when
  the version tournaments.live recorded for that player's page moved (live.refresh): a
  result reaches the two players' phones at once (their "own" record moved), and the
  pages whose ranks or opponents' rows moved at most every PLAYER_EVERY_SECONDS or
  NEAR_EVERY_SECONDS (each result moves hundreds of ranks);
- shared pages (whole standings, pairings, the event home) are told after any write, at
  most once every SHARED_EVERY_SECONDS;
- when no record is kept (LIVE_PREWARM off: development and tests) every open page is
  told after each write, and its ETag decides whether anything is sent;
- judges' screens (`?floor=1`) are told at once when the event's unresolved judge calls
  move (a new call, a claim, a hand-up, a resolution), and so is the page of each player
  at a table whose call moved ("player"). A call bumps no version (services.calls: every
  public page would refetch), so the hub reads the calls themselves, in the database,
  where a call made through any process is seen: one small query per look while a
  judges' screen is open here, one every CALLS_EVERY_SECONDS for players' pages alone.
  No cache is involved: a cache per process (the venue mode) or a failing Redis changes
  nothing for them.

The stream itself is a generator: asynchronous under ASGI, a thread per stream under the
development server. A WSGI server with a few threads must not give them to streams:
there the view answers 204, which tells EventSource not to reconnect, and live.js polls.

In production (tournaments/asgi.py, gunicorn's uvicorn worker) `asgi_streams` answers the
streams on the event loop itself, without Django's request cycle: thousands of idle
streams cost a queue each, and the pages run as plain WSGI in a fixed pool of threads.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import math
import queue
import re
import threading
import time
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Iterator,
    Mapping,
    MutableMapping,
)
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.models import Q
from django.http.request import split_domain_port, validate_host

from tournaments import clientaddress, live
from tournaments.live import TRACKED, page_version_key, record_base
from tournaments.models import JudgeCall, Report, Seat, Tournament
from tournaments.pages.calls import OPEN_STATES

log = logging.getLogger(__name__)

# Ten looks a second: the pages due in a while are told a few per look (`_budget`), and a
# phone server's threads answer 8 refreshes at once far sooner than the 40 that twice a
# second brought (bench_phones: phones' p50 65 -> 21 ms); a version is seen and its reads
# warmed before many phones ask. A look costs one small query and one cache read.
CHECK_SECONDS = 0.1
# A result shows on an open pairings page within 5 s (issue 13); the whole standings
# table is 40 kB compressed at 2,048 players, so not more often than this.
SHARED_EVERY_SECONDS = 4.0
NEAR_EVERY_SECONDS = 30.0
# A player's page also shows their rank and their opponents' results, which move with
# results at other tables (hundreds of players' ranks after each): told at most this
# often for those, at once when their own match changed (the "own" record, live.digests).
PLAYER_EVERY_SECONDS = 30.0
KEEPALIVE_SECONDS = 20.0  # below the idle timeouts of common proxies (nginx: 60 s)
STREAM_SECONDS = 600.0  # then EventSource reconnects: streams do not live forever
RETRY_MS = 3000  # EventSource's reconnection delay, sent to it
# How often each tracked page may be told at most, in seconds.
EVERY: dict[str, float] = {"player": PLAYER_EVERY_SECONDS, "near": NEAR_EVERY_SECONDS}
# The records a tracked page watches besides its own, each telling it at once.
URGENT: dict[str, str] = {"player": "own"}
# A judges' screen's stream (?floor=1): told "floor" when the unresolved calls move.
FLOOR = "floor"
# Without a judges' screen open in this process, players' pages learn of their table's
# call from a look this often (seconds): a query a second, not ten, for a hall of phones.
CALLS_EVERY_SECONDS = 1.0

Deliver = Callable[[list[str]], None]


@dataclass(eq=False)
class Subscription:
    base: str  # tournaments.live.record_base of the event
    pages: tuple[tuple[str, str], ...]  # (page, player id) tracked; empty: a shared page
    deliver: Deliver
    last: dict[tuple[str, str], object] = field(default_factory=dict)
    told: dict[str, float] = field(default_factory=dict)  # page -> when last told
    due: set[str] = field(default_factory=set)  # changed, waiting for its EVERY
    urgent: set[str] = field(default_factory=set)  # changed: told without waiting
    ready: bool = False  # `last` read once: from then on a move is a change
    at: str = ""  # the version the page showed when it opened its stream, if it said
    keys: dict[tuple[str, str], str] = field(default_factory=dict)  # watched -> cache key
    floor: bool = False  # a judges' screen: told when the event's judge calls move


@dataclass
class _EventState:
    ready: bool = False  # looked at once: from then on a move is a change
    seen: object = None  # the version live.refresh last recorded
    version: int | None = None  # the tournament's, as the database says
    warmed: int | None = None  # the last version this hub asked live.warm_soon for
    figures: int | None = None  # the last version it asked "What do I need?" for
    shared_due: bool = False
    shared_at: float = 0.0
    fresh: list[Subscription] = field(default_factory=list)  # players' pages not looked at yet
    # The unresolved judge calls as last read (call -> round, table, state, judge); None
    # before the first look, which tells no one.
    calls: dict[int, tuple[Any, ...]] | None = None
    calls_at: float = -1e9
    # The players' reports of open matches as last read (match -> round, table, state,
    # claims); None before the first look.
    reports: dict[int, tuple[Any, ...]] | None = None


class Hub:
    """The streams of one process, and the one thread that watches the cache for them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscriptions: dict[int, Subscription] = {}
        # The same, by event, and of those the players' pages: kept as streams come and
        # go, since every look (ten a second) reads them.
        self._by_event: dict[str, dict[int, Subscription]] = {}
        self._tracked: dict[str, dict[int, Subscription]] = {}
        self._floor: dict[str, dict[int, Subscription]] = {}  # judges' screens, by event
        self._events: dict[str, _EventState] = {}
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None
        # What a version seen moving starts (tests stand in for it).
        self.warm: Callable[[str, int, str], None] = live.warm_soon

    def subscribe(
        self, base: str, pages: tuple[tuple[str, str], ...], deliver: Deliver, at: str = ""
    ) -> int:
        with self._lock:
            token = next(self._ids)
            floor = any(page == FLOOR for page, _ in pages)
            pages = tuple(p for p in pages if p[0] != FLOOR)
            sub = Subscription(base, pages, deliver, at=at, floor=floor)
            sub.keys = {p: page_version_key(base, *p) for p in _watched(sub)}
            self._subscriptions[token] = sub
            self._by_event.setdefault(base, {})[token] = sub
            state = self._events.setdefault(base, _EventState())
            if pages:
                self._tracked.setdefault(base, {})[token] = sub
                state.fresh.append(sub)
            if floor:
                self._floor.setdefault(base, {})[token] = sub
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="live-hub", daemon=True)
                self._thread.start()
            return token

    def unsubscribe(self, token: int) -> None:
        with self._lock:
            gone = self._subscriptions.pop(token, None)
            if gone is None:
                return
            self._tracked.get(gone.base, {}).pop(token, None)
            self._floor.get(gone.base, {}).pop(token, None)
            of_event = self._by_event.get(gone.base, {})
            of_event.pop(token, None)
            if not of_event:
                self._by_event.pop(gone.base, None)
                self._tracked.pop(gone.base, None)
                self._floor.pop(gone.base, None)
                self._events.pop(gone.base, None)

    def count(self) -> int:
        return len(self._subscriptions)

    def _run(self) -> None:
        failing_since = 0.0
        while True:
            time.sleep(CHECK_SECONDS)
            try:
                self.tick()
                connection.close_if_unusable_or_obsolete()
                failing_since = 0.0
            except Exception:  # the database or cache is away: pages keep their copy
                connection.close()  # the next look connects afresh
                if time.monotonic() - failing_since > 60:  # said once a minute, not at every look
                    failing_since = time.monotonic()
                    log.exception("live hub: checking for changes failed")

    def tick(self, now: float | None = None) -> None:
        """One look at the versions and records of every event with open streams; tell
        whom it concerns."""
        now = time.monotonic() if now is None else now
        with self._lock:
            by_event = {base: list(subs.values()) for base, subs in self._by_event.items()}
            tracked = {base: list(self._tracked.get(base, {}).values()) for base in by_event}
            floors = {base: list(self._floor.get(base, {}).values()) for base in by_event}
            states = {base: self._events.setdefault(base, _EventState()) for base in by_event}
            fresh = {base: state.fresh for base, state in states.items()}
            for state in states.values():
                state.fresh = []
        if not by_event:
            return
        # Writes are seen in the database, their source of truth, whichever process made
        # them: one small query for every event followed here.
        versions = _versions([live.base_event(base) for base in by_event])
        self._look_at_calls(tracked, floors, states, now)
        for base, subs in by_event.items():
            found = versions.get(live.base_event(base))
            if found is not None:
                version, figures = found
                if figures and version != states[base].figures:
                    # "What do I need?" runs where the phones are served, never in the
                    # writer's process (scoring.outlooks): one process of a pool per version.
                    states[base].figures = version
                    self.warm(base, version, "outlook")
                self._tick_event(base, subs, tracked[base], fresh[base], states[base], version, now)

    def _look_at_calls(
        self,
        tracked: dict[str, list[Subscription]],
        floors: dict[str, list[Subscription]],
        states: dict[str, _EventState],
        now: float,
    ) -> None:
        """Tell judges' screens, and the pages of the players at each table concerned,
        that the event's unresolved calls moved (see the module's docstring)."""
        due = [
            base
            for base in floors
            if floors[base]
            or (tracked[base] and now - states[base].calls_at >= CALLS_EVERY_SECONDS)
        ]
        if not due:
            return
        found = _open_calls([live.base_event(base) for base in due])
        # Players' reports of matches still open move no version either (services.reports):
        # the players at such a table are told here that their opponent reported.
        with_players = [base for base in due if tracked[base]]
        pending = _open_reports([live.base_event(base) for base in with_players])
        for base in due:
            state, event = states[base], live.base_event(base)
            calls = found.get(event, {})
            before, state.calls, state.calls_at = state.calls, calls, now
            moved: set[tuple[Any, Any]] = set()
            if before is not None and before != calls:
                for sub in floors[base]:
                    _tell(sub, [FLOOR])
                moved |= _moved_tables(before, calls)
            if base in with_players:
                reports = pending.get(event, {})
                if state.reports is not None:
                    moved |= _moved_tables(state.reports, reports)
                state.reports = reports
            if moved and tracked[base]:
                seated = _players_at(event, moved)
                for sub in tracked[base]:
                    if any(page == "player" and pid in seated for page, pid in sub.pages):
                        sub.urgent.add("player")

    def _tick_event(
        self,
        base: str,
        subs: list[Subscription],
        tracked: list[Subscription],
        fresh: list[Subscription],
        state: _EventState,
        version: int,
        now: float,
    ) -> None:
        seen = cache.get(f"{base}:seen")
        if settings.LIVE_PREWARM and version != state.warmed:
            state.warmed = version  # asked once per version; the claim picks one process
            # Only what this process's open pages use: what players' pages read once per
            # version here and the per-player record for players' pages, the shared
            # fragments for the shared ones (others render on demand).
            if tracked:
                self.warm(base, version, "pages")
            if tracked and (seen is None or seen < version):
                self.warm(base, version, "record")
            if any(not s.pages and not s.floor for s in subs):  # a shared page is open
                self.warm(base, version, "fragments")
        # After a refresh every tracked page is looked at; otherwise only new streams',
        # whose starting point is read once (a hall of phones joins over minutes).
        look = tracked if seen != state.seen else fresh
        if look:
            versions = cache.get_many(list({key for s in look for key in s.keys.values()}))
            for sub in look:
                for page, pid in sub.pages:
                    recorded = versions.get(sub.keys[(page, pid)])
                    if sub.ready and recorded != sub.last.get((page, pid)):
                        sub.due.add(page)
                    elif (
                        not sub.ready
                        and sub.at
                        and recorded is not None
                        and f"{recorded}" != sub.at
                    ):
                        sub.urgent.add(page)  # it changed between the page load and the stream
                    sub.last[(page, pid)] = recorded
                    if page in URGENT:
                        key = (URGENT[page], pid)
                        recorded = versions.get(sub.keys[key])
                        if sub.ready and recorded != sub.last.get(key):
                            sub.urgent.add(page)
                        sub.last[key] = recorded
                if not sub.ready:  # the page was just loaded: as good as told
                    sub.told.update((page, now) for page, _ in sub.pages)
                sub.ready = True
        if version != state.version and state.ready:
            state.shared_due = True
            if seen is None:  # no record kept: every open page asks, its ETag answers
                for sub in tracked:
                    sub.urgent.update(page for page, _ in sub.pages)
        state.seen, state.version, state.ready = seen, version, True
        waiting: list[tuple[float, int, Subscription, set[str]]] = []
        for k, sub in enumerate(tracked):
            if not sub.due and not sub.urgent:
                continue  # most pages, most looks: nothing changed for them
            ripe = {p for p in sub.due if now - sub.told.get(p, -1e9) >= EVERY.get(p, 0.0)}
            if sub.urgent:
                _tell_now(sub, ripe | sub.urgent, now)
            elif ripe:
                waiting.append((min(sub.told.get(p, -1e9) for p in ripe), k, sub, ripe))
        # The pages told only "in a while" are told a steady few per look (`_budget`),
        # longest waiting first, never all at once: pages that became due together (a hall of phones that
        # joined in the same second, or any pause of this thread) would otherwise keep
        # coming back together every PLAYER_EVERY_SECONDS, and their refreshes queue up.
        waiting.sort(key=lambda item: item[:2])
        for _told, _k, sub, ripe in waiting[: _budget(len(tracked))]:
            _tell_now(sub, ripe, now)
        if state.shared_due and now - state.shared_at >= SHARED_EVERY_SECONDS:
            state.shared_due, state.shared_at = False, now
            for sub in subs:
                if not sub.pages and not sub.floor:
                    _tell(sub, ["shared"])


def _budget(tracked: int) -> int:
    """How many pages waiting for their turn one look may tell: a little over the steady
    rate of `tracked` pages each told every PLAYER_EVERY_SECONDS. Pages that fell due
    together are spread over most of a period (at twice the rate they came back in a
    clump of a quarter period, every period); a backlog still clears, since no page is
    told more often than that."""
    steady = tracked * CHECK_SECONDS / min(EVERY.values())
    return max(8, math.ceil(1.2 * steady))


def _tell_now(sub: Subscription, pages: set[str], now: float) -> None:
    sub.due.difference_update(pages)
    sub.urgent.difference_update(pages)
    sub.told.update((p, now) for p in pages)
    _tell(sub, sorted(pages))


def _versions(pks: list[int]) -> dict[int, tuple[int, bool]]:
    """Each event's version, and whether it may have "What do I need?" figures (a top cut
    and a plan: scoring.outlooks.applies), in one query."""
    rows = Tournament.objects.filter(pk__in=pks).values_list(
        "pk", "version", "top_cut", "planned_rounds"
    )
    return {pk: (version, bool(cut and plan)) for pk, version, cut, plan in rows}


def _moved_tables(
    before: Mapping[int, tuple[Any, ...]], after: Mapping[int, tuple[Any, ...]]
) -> set[tuple[Any, Any]]:
    """The (round, table) of every row (call or report) that came, went or changed; each
    row starts with its round and table."""
    return {
        (row[0], row[1])
        for pk in before.keys() | after.keys()
        if before.get(pk) != after.get(pk)
        for row in (after.get(pk) or before[pk],)
    }


def _open_calls(pks: list[int]) -> dict[int, dict[int, tuple[Any, ...]]]:
    """Each event's unresolved judge calls: call -> (round, table, state, judge). One
    query on the calls' (event, state) index; a few dozen rows at most."""
    out: dict[int, dict[int, tuple[Any, ...]]] = {pk: {} for pk in pks}
    rows = JudgeCall.objects.filter(tournament_id__in=pks, state__in=OPEN_STATES).values_list(
        "tournament_id", "pk", "round_number", "table", "state", "judge_id"
    )
    for event, pk, *row in rows:
        out[event][pk] = tuple(row)
    return out


def _open_reports(pks: list[int]) -> dict[int, dict[int, tuple[Any, ...]]]:
    """Each event's players' reports of matches without a result yet: match -> (round,
    table, state, claim, counter claim). Reports of open matches only: a few hundred
    rows at most, through the matches' (round, reported) index."""
    out: dict[int, dict[int, tuple[Any, ...]]] = {pk: {} for pk in pks}
    if not pks:
        return out
    rows = Report.objects.filter(
        match__round__tournament_id__in=pks, match__reported=False
    ).values_list(
        "match__round__tournament_id", "match_id", "state", "match__round__number",
        "match__table", "wins_a", "wins_b", "draws", "counter_wins_a", "counter_wins_b",
    )  # fmt: skip
    for event, match, state, number, table, *claims in rows:
        out[event][match] = (number, table, state, *claims)
    return out


def _players_at(event: int, tables: set[tuple[int | None, int | None]]) -> set[str]:
    """The ids of the players seated at these (round, table)s of the event."""
    where = Q()
    for number, table in tables:
        if number is not None and table is not None:
            where |= Q(round__number=number, match__table=table)
    if not where:
        return set()
    return set(
        Seat.objects.filter(where, round__tournament_id=event).values_list(
            "player__external_id", flat=True
        )
    )


def _watched(sub: Subscription) -> list[tuple[str, str]]:
    return [*sub.pages, *((URGENT[page], pid) for page, pid in sub.pages if page in URGENT)]


def _tell(sub: Subscription, pages: list[str]) -> None:
    try:
        sub.deliver(pages)
    except Exception:  # a stream whose loop has gone: it unsubscribes when it ends
        log.debug("live hub: a stream could not be told", exc_info=True)


hub = Hub()


def following(params: Mapping[str, str]) -> tuple[tuple[tuple[str, str], ...], str]:
    """What a stream's query asks to follow: the tracked pages (?player=<id> or
    ?near=<id>; none for a shared page), a judges' screen's calls (?floor=1) and ?at=,
    the version the page shows."""
    pages = tuple((page, params[page][:200]) for page in TRACKED if params.get(page))
    if params.get(FLOOR):  # a judges' screen
        pages += ((FLOOR, ""),)
    return pages, params.get("at", "")[:20]


# Both ways of answering a stream (the development server's view, `asgi_streams`).
STREAM_HEADERS = {
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-store",
    "X-Accel-Buffering": "no",  # nginx: pass each event on at once
}


def _message(pages: list[str]) -> str:
    return "".join(f"event: {page}\ndata: {page}\n\n" for page in pages)


OPENING = f"retry: {RETRY_MS}\n: open\n\n"


def events(
    base: str, pages: tuple[tuple[str, str], ...], at: str = "", seconds: float = STREAM_SECONDS
) -> Iterator[str]:
    """The stream for a thread-per-connection server (the development server, tests)."""
    inbox: queue.SimpleQueue[list[str]] = queue.SimpleQueue()
    token = hub.subscribe(base, pages, inbox.put, at)
    try:
        yield OPENING
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                told = inbox.get(timeout=min(KEEPALIVE_SECONDS, left))
            except queue.Empty:
                yield ": keepalive\n\n"
                continue
            yield _message(told)
    finally:
        hub.unsubscribe(token)


async def aevents(
    base: str, pages: tuple[tuple[str, str], ...], at: str = "", seconds: float = STREAM_SECONDS
) -> AsyncIterator[str]:
    """The stream under ASGI: an idle stream costs a queue, not a thread."""
    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[list[str]] = asyncio.Queue()

    def deliver(told: list[str]) -> None:
        loop.call_soon_threadsafe(inbox.put_nowait, told)

    token = hub.subscribe(base, pages, deliver, at)
    try:
        yield OPENING
        deadline = loop.time() + seconds
        while (left := deadline - loop.time()) > 0:
            try:
                told = await asyncio.wait_for(inbox.get(), min(KEEPALIVE_SECONDS, left))
            except TimeoutError:
                yield ": keepalive\n\n"
                continue
            yield _message(told)
    finally:
        hub.unsubscribe(token)


# --- under ASGI: the streams answered on the event loop, before Django ----------------

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
STREAM_PATH = re.compile(r"/t/([-a-zA-Z0-9_]+)/live/")  # tournaments/urls.py: live_events


def event_base(slug: str) -> str | None:
    """The event's live key (live.record_base), or None when there is no such event."""
    t = Tournament.objects.filter(slug=slug).only("pk", "created_at").order_by().first()
    return None if t is None else record_base(t)


# Open files a process keeps for everything but streams: its database and cache
# connections, the pages' own connections, static files, logs.
RESERVED_FILES = 512


def stream_limit(files: int) -> int:
    """The streams a process holds at most, given its open-file limit (issue 24 item 6):
    one client's 2,000 streams under the usual 1,024 once made every page, /healthz too,
    answer 500. Past it a new stream is refused and the page polls (static/js/live.js),
    so the pages keep their files."""
    return max(files - RESERVED_FILES, 0)


def open_files_limit() -> int:
    """The process's open-file limit, raised to the hard limit first: the usual soft limit
    of 1,024 is a default, not a decision (the README says how to raise the hard one)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        wanted = 1 << 20 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return soft


@dataclass
class StreamCount:
    """Streams open in this process, in all and per client address."""

    limit: int
    per_address: int
    proxies: int = 0
    total: int = 0
    by_address: collections.Counter[str] = field(default_factory=collections.Counter)

    def admit(self, address: str) -> bool:
        """Past the process's limit nobody is admitted; past half of it, not an address
        already holding `per_address`. A venue's NAT puts 2,000 phones (4,000 streams)
        behind one address: while the process has room they all stream (bench_phones),
        and only when it fills does the address holding the most give way first."""
        if self.total >= self.limit:
            return False
        if self.by_address[address] >= self.per_address and self.total >= self.limit // 2:
            return False
        self.total += 1
        self.by_address[address] += 1
        return True

    def release(self, address: str) -> None:
        self.total -= 1
        self.by_address[address] -= 1
        if not self.by_address[address]:
            del self.by_address[address]


# Refused streams come back after this (live.js reopens a closed stream after a while).
REFUSED_RETRY_SECONDS = 60


def asgi_streams(
    pages_app: ASGIApp, executor: Any = None, counts: StreamCount | None = None
) -> ASGIApp:
    """An ASGI app answering /t/<slug>/live/ itself and passing everything else on."""
    if counts is None:
        counts = StreamCount(
            limit=min(settings.STREAMS_PER_PROCESS, stream_limit(open_files_limit())),
            per_address=settings.STREAMS_PER_ADDRESS,
            proxies=settings.TRUSTED_PROXIES,
        )
    app_counts = counts

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        match = STREAM_PATH.fullmatch(scope.get("path", "")) if scope["type"] == "http" else None
        if match is None or scope.get("method") not in ("GET", "HEAD"):
            await pages_app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        host, _port = split_domain_port(headers.get(b"host", b"").decode("latin-1"))
        if not validate_host(host, settings.ALLOWED_HOSTS):
            await pages_app(scope, receive, send)  # Django answers 400, as for any page
            return
        loop = asyncio.get_running_loop()
        try:
            # In the pages' threads: their kept database connections, no new one.
            base = await loop.run_in_executor(executor, event_base, match[1])
        except Exception:  # the database is away: Django answers (503), as for a page
            log.exception("live stream: looking up event %r failed", match[1])
            base = None
        if base is None:
            await pages_app(scope, receive, send)  # Django's 404 page
            return
        address = clientaddress.of_scope(scope, proxies=app_counts.proxies)
        if not app_counts.admit(address):
            await send(
                {
                    "type": "http.response.start",
                    "status": 503,
                    "headers": [
                        (b"content-type", b"text/plain; charset=utf-8"),
                        (b"cache-control", b"no-store"),
                        (b"retry-after", str(REFUSED_RETRY_SECONDS).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": STREAM_REFUSED.encode()})
            return
        try:
            await _stream(scope, receive, send, base)
        finally:
            app_counts.release(address)

    app.counts = app_counts  # type: ignore[attr-defined]  # for tests and /healthz
    return app


STREAM_REFUSED = "Too many live streams: this page refreshes every few seconds instead.\n"


async def _stream(scope: Scope, receive: Receive, send: Send, base: str) -> None:
    params = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(k.lower().encode(), v.encode()) for k, v in STREAM_HEADERS.items()],
        }
    )
    if scope["method"] == "HEAD":
        await send({"type": "http.response.body", "body": b""})
        return
    body = aevents(base, *following(params), STREAM_SECONDS)

    async def relay() -> None:
        async for chunk in body:
            await send({"type": "http.response.body", "body": chunk.encode(), "more_body": True})

    async def gone() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    relaying, watching = asyncio.ensure_future(relay()), asyncio.ensure_future(gone())
    try:
        await asyncio.wait({relaying, watching}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (relaying, watching):
            task.cancel()
        await asyncio.gather(relaying, watching, return_exceptions=True)
        await body.aclose()
    if relaying.done() and not relaying.cancelled() and relaying.exception() is None:
        await send({"type": "http.response.body", "body": b""})
