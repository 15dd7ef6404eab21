"""Request bodies read on the event loop before a page thread takes the request (issue 24
item 3): a slow client never holds one of the few page threads.

Under tournaments/asgi.py the pages run as WSGI in a fixed pool of WEB_THREADS threads
(a2wsgi). A POST body trickled a byte at a time kept its thread waiting on the socket:
24 such connections froze every page in venue mode, where no proxy buffers bodies, and
80 did it to the production command without nginx. An idle connection on the event loop
costs a coroutine, not a thread, so the body is read here, whole, and handed on only
when complete; the page thread then never waits on the network.

Chosen over gunicorn's sync-worker timeouts (the streams need the event loop) and over
requiring a buffering proxy (the venue mode has none): the same code protects both.
Bounds, each answered plainly instead of holding anything:
- a body must keep coming (IDLE_SECONDS between chunks) and arrive at MIN_BYTES_PER_S
  after a grace period, else 408;
- at most MAX_BODY_BYTES (the largest upload the app accepts, a backup, plus room for the
  form around it), else 413;
- bodies being read at once: at most PER_ADDRESS per client address (wide: a venue's NAT
  puts hundreds of phones behind one) and BUFFER_BUDGET bytes per process, else 429/503.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from tournaments import clientaddress

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# A phone on a crowded Wi-Fi sends a form of a few hundred bytes in one packet; a laptop
# uploading a 20 MB backup over a poor 2 Mbit/s link sends 250 kB/s. 10 s with nothing,
# or under 4 kB/s on average after 15 s, is a client holding the connection on purpose.
IDLE_SECONDS = 10.0
GRACE_SECONDS = 15.0
MIN_BYTES_PER_S = 4 * 1024
MAX_BODY_BYTES = 24 * 1024 * 1024  # views/event_tools.MAX_UPLOAD_BYTES (20 MB) and the form
PER_ADDRESS = 200
BUFFER_BUDGET = 256 * 1024 * 1024


class _Refused(Exception):
    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status, self.text = status, text


class _Gone(Exception):
    """The client went away while sending: nothing to answer."""


def _declared_length(scope: Scope) -> int | None:
    """Content-Length as sent; None when the body is chunked (no length given)."""
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            text = value.decode("latin-1").strip()
            if not text.isdigit():
                raise _Refused(400, "Bad request: Content-Length is not a number.")
            return int(text)
    return None


def _has_body(scope: Scope) -> bool:
    headers = scope.get("headers", ())
    return any(
        (name == b"content-length" and value.strip() not in (b"", b"0"))
        or (name == b"transfer-encoding" and b"chunked" in value.lower())
        for name, value in headers
    )


async def _answer(send: Send, status: int, text: str) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"cache-control", b"no-store"),
                (b"connection", b"close"),
                *([(b"retry-after", b"10")] if status in (429, 503) else []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": text.encode()})


class Guard:
    """The ASGI wrapper, with its counters (one per process: one event loop)."""

    def __init__(self, app: ASGIApp, *, proxies: int) -> None:
        self.app = app
        self.proxies = proxies
        self.reading: collections.Counter[str] = collections.Counter()
        self.buffered = 0  # bytes promised by the bodies being read

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _has_body(scope):
            await self.app(scope, receive, send)
            return
        address = clientaddress.of_scope(scope, proxies=self.proxies)
        promised = 0
        counted = False
        try:
            declared = _declared_length(scope)
            promised = MAX_BODY_BYTES if declared is None else declared
            if promised > MAX_BODY_BYTES:
                raise _Refused(413, _too_large())
            if self.reading[address] >= PER_ADDRESS:
                raise _Refused(429, "Too many requests being sent at once from this address.")
            if self.buffered + promised > BUFFER_BUDGET:
                raise _Refused(503, "The server is busy receiving uploads: try again shortly.")
            self.reading[address] += 1
            self.buffered += promised
            counted = True
            body = await self._read(receive, promised)
        except _Refused as refused:
            await _answer(send, refused.status, refused.text)
            return
        except _Gone:
            return
        finally:
            if counted:
                self.reading[address] -= 1
                if not self.reading[address]:
                    del self.reading[address]
                self.buffered -= promised
        await self.app(scope, _replay(body, receive), send)

    async def _read(self, receive: Receive, promised: int) -> bytes:
        loop = asyncio.get_running_loop()
        start = loop.time()
        deadline = start + GRACE_SECONDS + promised / MIN_BYTES_PER_S
        chunks: list[bytes] = []
        size = 0
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise _Refused(408, _too_slow())
            try:
                message = await asyncio.wait_for(receive(), min(IDLE_SECONDS, left))
            except TimeoutError:
                raise _Refused(408, _too_slow()) from None
            if message["type"] == "http.disconnect":
                raise _Gone
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > promised:
                raise _Refused(400, "Bad request: the body is longer than its Content-Length.")
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


def _too_slow() -> str:
    return "Request timeout: the request's body arrived too slowly. Try again."


def _too_large() -> str:
    return f"Request too large: at most {MAX_BODY_BYTES // 1024 // 1024} MB."


def _replay(body: bytes, receive: Receive) -> Receive:
    """The buffered body as one message, then the real channel (for the disconnect)."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def guarded(app: ASGIApp, *, proxies: int) -> ASGIApp:
    return Guard(app, proxies=proxies)
