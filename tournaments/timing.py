"""`Server-Timing` on every page response under ASGI: how long the server held the request
before it began to answer, its wait for a free page thread included.

Phones measure the whole trip; this header says how much of it was the server's, which
the uvicorn worker's access log does not record (bench/bench_phones.py prints both).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def server_timing(app: ASGIApp) -> ASGIApp:
    """`app`, with `Server-Timing: app;dur=<ms>` added to each HTTP response's headers."""

    async def timed(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        start = time.perf_counter()

        async def send_timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                ms = (time.perf_counter() - start) * 1000
                headers = [
                    *message.get("headers", []),
                    (b"server-timing", f"app;dur={ms:.1f}".encode()),
                ]
                message = {**message, "headers": headers}
            await send(message)

        await app(scope, receive, send_timed)

    return timed
