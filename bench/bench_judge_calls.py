"""Benchmark: how long a player's judge call takes to reach every open judges' screen
while a hall of phones follows the event (issue 27: 2 s at p95).

The production stack, as bench_phones.py runs it: the phones' pool is gunicorn's uvicorn
workers (DEBUG off), PostgreSQL (database swiss_bench_calls, created afresh) and Redis as
the cache (BENCH_REDIS_URL, default 127.0.0.1:6379 db 15; "" for a cache per worker, as
the venue mode runs). A 2,048-player event at round 10; --phones streams follow players'
pages (?player=<id>) and --judges judges' screens (?floor=1), spread over the workers.
Meanwhile the organizer enters a result every 2 s (versions move, the hub refreshes the
players' record) and players call a judge over HTTP (their private page's form, CSRF
and all), one every --every seconds, each from another table. The time measured is from
the moment the call is sent to the moment each judges' stream says "floor": the screen
then refetches its section (one request, not measured here). The phones' own refetches
are not simulated (bench_phones.py measures those): only their open streams.

Prints the calibration figure, then the calls, the p50/p95/max from call to judges'
streams against the 2 s target (OK/MISSED), and stream errors.

Run: .venv/bin/python bench/bench_judge_calls.py [--phones 2000] [--judges 10] [--calls 30]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_phones import free_port, gunicorn, pct, wait_ready  # noqa: E402

DATABASE = "swiss_bench_calls"
PG_ADMIN = "postgres://postgres@127.0.0.1:5432/postgres"
ROUND = 10
RESULT_EVERY = 2.0
TARGET_S = 2.0
CSRF_RE = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def fresh_database() -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DATABASE}")


async def follow(
    session: Any, url: str, heard: list[float] | None, errors: list[str], until: float
) -> None:
    """One open stream until `until`; `heard` gets the time of each "floor" it is told."""
    import aiohttp

    timeout = aiohttp.ClientTimeout(total=None, sock_read=60)
    while time.monotonic() < until:
        try:
            async with session.get(url, timeout=timeout) as r:
                if r.status != 200:
                    raise RuntimeError(f"HTTP {r.status}")
                async for raw in r.content:
                    if heard is not None and raw == b"event: floor\n":
                        heard.append(time.monotonic())
                    if time.monotonic() >= until:
                        return
        except Exception as exc:
            errors.append(f"{url}: {exc!r}")
            await asyncio.sleep(3)


async def caller(session: Any, base: str, token: str) -> tuple[str, str]:
    """The private page's form as a browser gets it: its CSRF token (the cookie is kept
    by the session's jar)."""
    async with session.get(f"{base}/p/{token}/") as r:
        page = await r.text()
    found = CSRF_RE.search(page)
    assert found is not None, "no form on the private page"
    return token, found[1]


async def run(args: argparse.Namespace, base: str, tokens: list[str], ids: list[str]) -> None:
    import aiohttp

    errors: list[str] = []
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as streams:
        forms = []
        for token in tokens:  # each caller with a jar of their own (their CSRF cookie)
            jar = aiohttp.CookieJar(unsafe=True)
            http = aiohttp.ClientSession(cookie_jar=jar)
            forms.append((http, *(await caller(http, base, token))))
        until = time.monotonic() + 3600
        heard: list[list[float]] = [[] for _ in range(args.judges)]
        tasks = [
            asyncio.ensure_future(
                follow(streams, f"{base}/t/{args.slug}/live/?floor=1", h, errors, until)
            )
            for h in heard
        ]
        tasks += [
            asyncio.ensure_future(
                follow(streams, f"{base}/t/{args.slug}/live/?player={ids[k % len(ids)]}", None, errors, until)
            )
            for k in range(args.phones)
        ]  # fmt: skip
        await asyncio.sleep(args.settle)
        print(f"{args.judges} judges' and {args.phones} phones' streams open", flush=True)
        delays: list[float] = []
        for http, token, csrf in forms:
            before = [len(h) for h in heard]
            sent = time.monotonic()
            async with http.post(
                f"{base}/p/{token}/call/",
                data={"csrfmiddlewaretoken": csrf, "note": "bench"},
                allow_redirects=False,
            ) as r:
                if r.status != 302:
                    errors.append(f"call: HTTP {r.status}")
            await asyncio.sleep(args.every)
            for h, n in zip(heard, before, strict=True):
                told = [at for at in h[n:] if at >= sent]
                delays.append(told[0] - sent if told else float("inf"))
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for http, _t, _c in forms:
            await http.close()
    missed = sum(1 for d in delays if d == float("inf"))
    seen = [d for d in delays if d != float("inf")]
    p95 = pct(delays, 0.95)
    print(f"calls: {len(forms)}, judges' screens told: {len(seen)} of {len(delays)}")
    print(
        f"call -> judges' stream: p50 {pct(seen, 0.5) * 1000:.0f} ms, "
        f"p95 {p95 * 1000:.0f} ms, max {max(seen, default=0) * 1000:.0f} ms "
        f"(target p95 <= {TARGET_S:.0f} s: {'OK' if p95 <= TARGET_S and not missed else 'MISSED'})"
    )
    print(f"stream errors: {len(errors)}" + (f" (first: {errors[0]})" if errors else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2048)
    parser.add_argument("--phones", type=int, default=2000)
    parser.add_argument("--judges", type=int, default=10)
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--every", type=float, default=2.5, help="seconds between calls")
    parser.add_argument("--settle", type=float, default=10.0, help="seconds for streams to open")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    from calibration import print_calibration

    print_calibration()
    os.environ.update(
        DEBUG="0", SECRET_KEY="bench-only", ALLOWED_HOSTS="127.0.0.1,testserver",
        SECURE_SSL_REDIRECT="0", SECURE_COOKIES="0", BEHIND_PROXY="0",
        DJANGO_SETTINGS_MODULE="tournaments.settings",
        DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{DATABASE}",
        REDIS_URL=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/15"),
        LIVE_PREWARM="1",
    )  # fmt: skip
    fresh_database()
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                   cwd=ROOT, check=True)  # fmt: skip
    import django

    django.setup()
    from bench_result_entry import document
    from django.core.cache import cache
    from django.core.management import call_command
    from django.db import connections

    from tournaments import live, services
    from tournaments.models import Match, Player
    from tournaments.services import import_document
    from tournaments.tokens import new_token, token_hash

    call_command("migrate", verbosity=0)
    cache.clear()
    t = import_document(document(args.players, ROUND - 1))
    live.warm_now(t.pk)
    args.slug = t.slug
    matches = list(
        Match.objects.filter(round__tournament=t, round__number=ROUND, kind="played")
        .order_by("table")
        .prefetch_related("seats__player")
    )
    callers = [m.seats.all()[0].player for m in matches[: args.calls]]
    tokens = []
    for player in callers:
        token = new_token()
        Player.objects.filter(pk=player.pk).update(token_hash=token_hash(token))
        tokens.append(token)
    results = matches[args.calls :]  # the organizer's: never a caller's table
    ids = list(Player.objects.filter(tournament=t).values_list("external_id", flat=True))
    connections.close_all()

    port = free_port()
    logs = Path(tempfile.mkdtemp())
    server = gunicorn(port, args.workers, 8, logs / "phones.log", asgi=True)
    stop = threading.Event()

    def organizer() -> None:
        for match in results:
            if stop.wait(RESULT_EVERY):
                break
            services.record_result(match=match, wins=(2, 1))
        connections.close_all()

    try:
        wait_ready(port)
        writer = threading.Thread(target=organizer, daemon=True)
        writer.start()
        asyncio.run(run(args, f"http://127.0.0.1:{port}", tokens, ids))
    finally:
        stop.set()
        server.terminate()
        server.wait(timeout=20)


if __name__ == "__main__":
    main()
