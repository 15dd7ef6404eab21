"""Fixed-window rate limits for anonymous writes (players' registration, check-in and
reports), shared by every worker: in Django's cache when it is Redis, else (the venue
mode: several gunicorn workers, no Redis) in a small SQLite file every worker opens.

Players' writes are limited by their private link, by event and, only as a wide ceiling,
by address (issue 24 item 7): a venue's Wi-Fi puts a thousand phones behind one NAT
address, so a per-address limit tight enough to stop one script refused real players.

`first_refused([...])` counts one request against each limit in turn and answers the
first one it is over, which says what to tell the player (which limit, how long to wait).
The counters are optional here as everywhere: when they fail the request is let through,
because refusing every player at the venue while Redis restarts would be worse than a
minute without a limit.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils.translation import ngettext, pgettext, pgettext_lazy

from tournaments import clientaddress

log = logging.getLogger(__name__)

# --- The figures (issue 24 item 7) ---------------------------------------------------------
# Sized for a venue of VENUE_PLAYERS phones behind one NAT address, as measured there:
# registration at 33 a minute, every player checking in within a minute, and 1,300 writes
# in the minute a round ends (500 tables: a report and a confirmation each, and 30 % more
# for corrections, disputes and drops, or 1.3 writes a player).
VENUE_PLAYERS = 1000
MINUTE = 60

# Per private link: a player taps check-in once and writes a few times a round (report,
# perhaps a correction, a drop); twenty a minute is far above that and stops a script
# hammering one match or one link.
TOKEN_LIMIT = 20

# Per event, from its player count: each player checks in once (twice for a double tap)
# and writes 1.3 times in a round's last minute, so an event of 2,000 never reaches
# 2 or 3 writes a player in one minute; the floor keeps a small event's few players
# clear of it. It caps what a script holding many of an event's links can write.
CHECK_IN_EVENT_PER_PLAYER = 2
REPORT_EVENT_PER_PLAYER = 3
EVENT_FLOOR = 100

# Registration has no link yet: per event, a sign-up rush far beyond the venue's 33 a
# minute (2,000 players in under 4 minutes) passes; per address, the venue's 1,000 in
# two and a half minutes. A script from one address still registers at most this many
# a minute, where the organizer sees them and can close registration.
REGISTER_EVENT_LIMIT = 600
REGISTER_ADDRESS_LIMIT = 400

# Per address, a wide ceiling only: the venue's thousand checking in within one minute
# and its 1,300 writes in one minute, each with half again to spare. What it stops is one
# machine writing for many events at once.
CHECK_IN_ADDRESS_LIMIT = VENUE_PLAYERS * 3 // 2
REPORT_ADDRESS_LIMIT = VENUE_PLAYERS * 2


# The refusals' words (Refused.message), marked for the catalogues and translated at use:
# what was refused, and whose count was over.
WRITES = (
    pgettext_lazy("too many", "reports and drops"),
    pgettext_lazy("too many", "check-ins"),
    pgettext_lazy("too many", "registrations"),
    pgettext_lazy("too many", "decklists"),
    pgettext_lazy("too many", "judge calls"),
)
SOURCES = (
    pgettext_lazy("too many", "for this event"),
    pgettext_lazy("too many", "from this link"),
    pgettext_lazy("too many", "from this network address"),
)


@dataclass(frozen=True)
class Limit:
    """At most `limit` requests under `key` in each window of `window_s` seconds; `who`
    names the limit to the player ("from this link")."""

    key: str
    limit: int
    who: str
    window_s: int = MINUTE
    # The real limit when it depends on the event's size: read only once the count passes
    # `limit` (the floor), so that a write under the floor costs no query for the size.
    sized: Callable[[], int] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Refused:
    """The limit a request was over, and when its window ends."""

    limit: Limit
    retry_after_s: int

    def message(self, what: str) -> str:
        """`what` is the plural of the write refused ("reports"), one of WRITES; in the
        reader's language."""
        wait = self.retry_after_s
        values = {
            "what": pgettext("too many", what),
            "who": pgettext("too many", self.limit.who),
            "limit": self.limit.limit,
            "window": self.limit.window_s,
            "wait": wait,
        }
        if self.limit.window_s == MINUTE:
            text = ngettext(
                "Too many %(what)s %(who)s (at most %(limit)s a minute): wait %(wait)s"
                " second, then try again.",
                "Too many %(what)s %(who)s (at most %(limit)s a minute): wait %(wait)s"
                " seconds, then try again.",
                wait,
            )
        else:
            text = ngettext(
                "Too many %(what)s %(who)s (at most %(limit)s in %(window)s s): wait"
                " %(wait)s second, then try again.",
                "Too many %(what)s %(who)s (at most %(limit)s in %(window)s s): wait"
                " %(wait)s seconds, then try again.",
                wait,
            )
        return text % values

    def headers(self, response: HttpResponse) -> HttpResponse:
        response["Retry-After"] = str(self.retry_after_s)
        return response


def _now() -> float:
    return time.time()


def event_limit(players: int, per_player: int) -> int:
    return max(EVENT_FLOOR, per_player * players)


def registration_limits(request: HttpRequest, *, event_id: int) -> list[Limit]:
    return [
        Limit(f"register-event:{event_id}", REGISTER_EVENT_LIMIT, "for this event"),
        Limit(
            f"register-address:{clientaddress.of_request(request)}",
            REGISTER_ADDRESS_LIMIT,
            "from this network address",
        ),
    ]


def _event(key: str, players: int | Callable[[], int], per_player: int) -> Limit:
    """The event's limit; `players` may be a function, counted only when needed."""
    if callable(players):
        count = players
        return Limit(
            key, EVENT_FLOOR, "for this event", sized=lambda: event_limit(count(), per_player)
        )
    return Limit(key, event_limit(players, per_player), "for this event")


def check_in_limits(
    request: HttpRequest, *, token_hash: str, event_id: int, players: int | Callable[[], int]
) -> list[Limit]:
    return [
        Limit(f"check-in-token:{token_hash}", TOKEN_LIMIT, "from this link"),
        _event(f"check-in-event:{event_id}", players, CHECK_IN_EVENT_PER_PLAYER),
        Limit(
            f"check-in-address:{clientaddress.of_request(request)}",
            CHECK_IN_ADDRESS_LIMIT,
            "from this network address",
        ),
    ]


def report_limits(
    request: HttpRequest, *, token_hash: str, event_id: int, players: int | Callable[[], int]
) -> list[Limit]:
    return [
        Limit(f"report-token:{token_hash}", TOKEN_LIMIT, "from this link"),
        _event(f"report-event:{event_id}", players, REPORT_EVENT_PER_PLAYER),
        Limit(
            f"report-address:{clientaddress.of_request(request)}",
            REPORT_ADDRESS_LIMIT,
            "from this network address",
        ),
    ]


def first_refused(limits: Iterable[Limit], *, address: str = "") -> Refused | None:
    """Count one request against each limit, narrowest first, and answer the first one
    it is over. Counting stops there: a link hammered past its own limit does not use up
    the event's and the address's budgets, which real players share."""
    for limit in limits:
        count = _count(limit)
        if count is not None and count > limit.limit and limit.sized is not None:
            limit = dataclasses.replace(limit, limit=max(limit.limit, limit.sized()), sized=None)
        if count is not None and count > limit.limit:
            window = limit.window_s
            refused = Refused(limit, max(1, math.ceil(window - _now() % window)))
            if count == limit.limit + 1:  # once a window, not once a refused request
                log.warning(
                    "rate limit: %s over %d in %d s (client %s)",
                    limit.key.partition(":")[0],
                    limit.limit,
                    window,
                    address or "?",
                )
            return refused
    return None


def _count(limit: Limit) -> int | None:
    """This window's count after this request; None when it could not be counted."""
    window = limit.window_s
    bucket = int(_now() // window)
    name = f"ratelimit:{limit.key}:{window}:{bucket}"
    path = getattr(settings, "RATELIMIT_FILE", "")
    if path:
        try:
            return _file_counter(path).incr(name, expires=(bucket + 1) * window)
        except (OSError, sqlite3.Error) as exc:
            log.warning("rate limit not counted: %s failed (%s)", path, exc)
            return None
    try:
        # add() creates the counter only if absent, so two workers never both reset it.
        if cache.add(name, 1, timeout=window + 1):
            return 1
        return int(cache.incr(name))
    except ValueError:  # expired between add() and incr(): this request starts a window
        cache.set(name, 1, timeout=window + 1)
        return 1
    except Exception:  # the cache is down: let the request through (see the docstring)
        log.warning("rate limit not counted: the cache failed")
        return None


# --- Counters shared by processes without Redis (issue 24 item 12) -------------------------


class FileCounter:
    """Counters in one SQLite file that every process opens (the venue mode's workers).

    Each count is one atomic UPSERT, so two workers counting at once never lose one: a
    FileBasedCache or Django's DatabaseCache increment by reading then writing, and the
    latter would also queue on the event database's single write lock, which results
    wait for. The file is apart from that database, its table made on first use (no
    migration, nothing for `manage.py venue` to prepare), and durability is off: a
    counter lost with a power cut is a minute without a limit.
    """

    PRUNE_EVERY_S = 60

    def __init__(self, path: str | Path, *, timeout_s: float = 2.0) -> None:
        self.path = Path(path)
        self.timeout_s = timeout_s
        self._local = threading.local()
        self._pruned_at = 0.0

    def _connection(self) -> sqlite3.Connection:
        # One connection per thread (ASGI pages run in threads) and per process (a fork
        # must not share its parent's).
        pid = os.getpid()
        if getattr(self._local, "pid", None) != pid:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            if not self.path.exists():
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
            con = sqlite3.connect(self.path, timeout=self.timeout_s, isolation_level=None)
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=OFF")
            con.execute(
                "CREATE TABLE IF NOT EXISTS hits (name TEXT PRIMARY KEY,"
                " count INTEGER NOT NULL, expires REAL NOT NULL) WITHOUT ROWID"
            )
            self._local.pid, self._local.con = pid, con
        con: sqlite3.Connection = self._local.con
        return con

    def incr(self, name: str, *, expires: float) -> int:
        """Add one to `name`'s count (kept until `expires`, a Unix time); the new count."""
        con = self._connection()
        row = con.execute(
            "INSERT INTO hits (name, count, expires) VALUES (?, 1, ?)"
            " ON CONFLICT (name) DO UPDATE SET count = count + 1 RETURNING count",
            (name, expires),
        ).fetchone()
        now = _now()
        if now - self._pruned_at > self.PRUNE_EVERY_S:
            self._pruned_at = now
            con.execute("DELETE FROM hits WHERE expires < ?", (now,))
        return int(row[0])


_counters: dict[str, FileCounter] = {}
_counters_lock = threading.Lock()


def _file_counter(path: str) -> FileCounter:
    with _counters_lock:
        if path not in _counters:
            _counters[path] = FileCounter(path)
        return _counters[path]
