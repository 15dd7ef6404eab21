"""The shared cache, optional at run time: when Redis is down, pages render without it.

Everything the app keeps in the cache can be rebuilt (rendered fragments, the record of
changed matches, login counters), so a failing cache must cost time, never a page: each
call that fails answers as a miss, and the failure is logged at most once a minute per
process, not once per request.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from django.utils.functional import cached_property

log = logging.getLogger(__name__)
LOG_EVERY_SECONDS = 60
T = TypeVar("T")


class _State:
    lock = threading.Lock()
    last_logged = 0.0
    last_failure = 0.0
    failures = 0


def cache_state() -> str:
    """ "ok", or how long ago the cache last failed (for /healthz)."""
    if not _State.last_failure:
        return "ok"
    ago = time.monotonic() - _State.last_failure
    return (
        "ok"
        if ago > LOG_EVERY_SECONDS
        else f"failing ({_State.failures} errors, last {ago:.0f} s ago)"
    )


def _soft(default: Callable[[], T], call: Callable[[], T]) -> T:
    try:
        return call()
    except Exception as exc:  # any client error: connection refused, timeout, protocol
        now = time.monotonic()
        with _State.lock:
            _State.failures += 1
            _State.last_failure = now
            due = now - _State.last_logged >= LOG_EVERY_SECONDS
            if due:
                _State.last_logged = now
        if due:
            log.warning("shared cache unavailable, pages render without it: %s", exc)
        return default()


# One client (and so one connection pool) per process and server. Django keeps a cache
# object per context, not per thread, and under ASGI (a2wsgi) every request runs in a
# context of its own: each request then built its own pool and opened a new connection
# (TCP and the client's handshake), 15 % of a phone server's time under load.
_CLIENTS: dict[tuple[Any, ...], RedisCacheClient] = {}
_CLIENTS_LOCK = threading.Lock()


class _KeptClient(RedisCacheClient):
    """Django's client builds a `redis.Redis` for every command (copying its table of
    some 170 reply parsers each time): a fifth of a millisecond per cache call, several
    calls per page. One per pool serves every thread (redis-py clients are thread-safe)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._kept: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        pool = self._get_connection_pool(write)
        client = self._kept.get(id(pool))
        if client is None:
            client = self._kept[id(pool)] = self._client(connection_pool=pool)
        return client


class SoftRedisCache(RedisCache):
    """Django's Redis cache whose failures read as misses (see the module docstring)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        options = params.setdefault("OPTIONS", {})
        # Fail fast: a phone must not wait on a dead cache server.
        options.setdefault("socket_connect_timeout", 0.25)
        options.setdefault("socket_timeout", 0.5)
        super().__init__(server, params)
        self._class = _KeptClient

    @cached_property
    def _cache(self) -> RedisCacheClient:
        key = (tuple(self._servers), repr(sorted(self._options.items())))
        with _CLIENTS_LOCK:
            client = _CLIENTS.get(key)
            if client is None:
                client = _CLIENTS[key] = self._class(self._servers, **self._options)
        return client

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return _soft(
            lambda: default, lambda: super(SoftRedisCache, self).get(key, default, version)
        )

    def get_many(self, keys: Any, version: Any = None) -> dict[Any, Any]:
        return _soft(dict, lambda: super(SoftRedisCache, self).get_many(keys, version))

    def set(self, *args: Any, **kwargs: Any) -> None:
        _soft(lambda: None, lambda: super(SoftRedisCache, self).set(*args, **kwargs))

    def set_many(self, *args: Any, **kwargs: Any) -> list[Any]:
        return _soft(list, lambda: super(SoftRedisCache, self).set_many(*args, **kwargs))

    def add(self, *args: Any, **kwargs: Any) -> bool:
        # True: "nobody else is rendering this", so the caller renders it itself.
        return _soft(lambda: True, lambda: super(SoftRedisCache, self).add(*args, **kwargs))

    def delete(self, *args: Any, **kwargs: Any) -> bool:
        return _soft(lambda: False, lambda: super(SoftRedisCache, self).delete(*args, **kwargs))

    def incr(self, *args: Any, **kwargs: Any) -> int:
        def missing() -> int:
            raise ValueError("cache unavailable")  # what incr raises on a missing key

        return _soft(missing, lambda: super(SoftRedisCache, self).incr(*args, **kwargs))

    def touch(self, *args: Any, **kwargs: Any) -> bool:
        return _soft(lambda: False, lambda: super(SoftRedisCache, self).touch(*args, **kwargs))

    def has_key(self, *args: Any, **kwargs: Any) -> bool:
        return _soft(lambda: False, lambda: super(SoftRedisCache, self).has_key(*args, **kwargs))
