"""Fixed-window rate limits for anonymous writes (players' registration, their private
pages), counted in Django's cache so that every worker shares them when it is Redis.

`hit("register:203.0.113.9", limit=10, window_s=60)` counts one request and says whether
it is still within the limit. The cache is optional here as everywhere: when it fails the
request is let through, because refusing every player at the venue while Redis restarts
would be worse than a minute without a limit.
"""

from __future__ import annotations

import logging
import time

from django.core.cache import cache
from django.http import HttpRequest

from tournaments import clientaddress

log = logging.getLogger(__name__)

# A registration form typed by hand takes more than 6 s; ten a minute from one address
# still lets a club register its members from one shared laptop or a venue's NAT.
REGISTER_LIMIT = 10
REGISTER_WINDOW_S = 60
TOO_MANY = "Too many attempts from this address: wait a minute, then try again."


def _now() -> float:
    return time.time()


def hit(key: str, *, limit: int, window_s: int) -> bool:
    """Count one request under `key`; True while at most `limit` fell in this window."""
    bucket = int(_now() // window_s)
    name = f"ratelimit:{key}:{window_s}:{bucket}"
    try:
        # add() creates the counter only if absent, so two workers never both reset it.
        if cache.add(name, 1, timeout=window_s + 1):
            return limit >= 1
        count = cache.incr(name)
    except ValueError:  # expired between add() and incr(): this request starts a window
        cache.set(name, 1, timeout=window_s + 1)
        return limit >= 1
    except Exception:  # the cache is down: let the request through (see the docstring)
        log.warning("rate limit not counted: the cache failed")
        return True
    return bool(count is not None and count <= limit)


def client_address(request: HttpRequest) -> str:
    """The address a limit is counted per (tournaments/clientaddress.py)."""
    return clientaddress.of_request(request)
