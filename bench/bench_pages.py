"""Benchmark: the public live pages of a 2,048-player event at round 10.

1. Server time of the standings page, full and HTMX partial (Django test client, the
   whole middleware stack): first render after a change, then warm; p50/p95 in ms.
2. A load run: gunicorn on 127.0.0.1 (SQLite file), N simulated phones polling the live
   pages every 3 s with If-None-Match, as htmx does through the browser cache, while a
   result is entered every few seconds. Bounded in time and count; prints requests,
   errors, 304 share and latency percentiles. Pages render on demand here: live pages
   are warmed by the servers that hold their event streams (stream.Hub), and this WSGI
   pool holds none (bench_phones.py measures the phones as they run).

Run: .venv/bin/python bench/bench_pages.py [--phones 1000] [--seconds 60] (no load run
without --phones: bench_phones.py measures the phones)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


SAMPLES = 40  # first renders after a change, per variant (12 made the p95 the maximum)


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def server_times(slug: str) -> None:
    from django.core.cache import cache
    from django.test import Client

    from tournaments import services
    from tournaments.models import Match, MatchKind

    client = Client()
    open_matches = list(
        Match.objects.filter(round__tournament__slug=slug, kind=MatchKind.PLAYED, reported=False)
    )
    for variant, headers in (("full", {}), ("partial", {"HTTP_HX_REQUEST": "true"})):
        cold, warm = [], []
        client.get(f"/t/{slug}/standings/", **headers)  # load the templates once, unmeasured
        for _ in range(SAMPLES):
            # A result changes the version: the next request renders afresh.
            services.record_result(match=open_matches.pop(), wins=(2, 1), draws=0)
            start = time.perf_counter()
            response = client.get(f"/t/{slug}/standings/", **headers)
            cold.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200
            for _ in range(8):
                start = time.perf_counter()
                client.get(f"/t/{slug}/standings/", **headers)
                warm.append((time.perf_counter() - start) * 1000)
        cache.clear()
        print(
            f"standings page ({variant}), 2048 players: after a change p50 "
            f"{statistics.median(cold):.1f} ms p95 {pct(cold, 0.95):.1f} ms; unchanged "
            f"(fragment cached) p50 {statistics.median(warm):.1f} ms p95 {pct(warm, 0.95):.1f} ms"
        )


async def loop_lag(until: float, lags: list[float]) -> None:
    """How late the generator's own event loop wakes up: its share of each latency."""
    while time.monotonic() < until:
        start = time.perf_counter()
        await asyncio.sleep(0.05)
        lags.append((time.perf_counter() - start - 0.05) * 1000)


async def phone(
    port: int, paths: list[str], until: float, stats: dict[str, list], rng: random.Random
) -> None:
    etags: dict[str, str] = {}
    await asyncio.sleep(rng.random() * 3)
    path = rng.choice(paths)  # a phone shows one page and polls it
    while time.monotonic() < until:
        if rng.random() < 0.02:
            path = rng.choice(paths)  # now and then the player opens another page
        headers = (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nHX-Request: true\r\n"
            "Accept-Encoding: gzip\r\nConnection: close\r\n"
        )
        if path in etags:
            headers += f"If-None-Match: {etags[path]}\r\n"
        start = time.perf_counter()
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write((headers + "\r\n").encode())
            await writer.drain()
            data = await asyncio.wait_for(reader.read(), timeout=10)
            writer.close()
            status = int(data.split(b" ", 2)[1])
            for line in data.split(b"\r\n\r\n", 1)[0].split(b"\r\n"):
                if line.lower().startswith(b"etag:"):
                    etags[path] = line.split(b":", 1)[1].strip().decode()
            stats["latency"].append((time.perf_counter() - start) * 1000)
            stats["status"].append(status)
            stats["bytes"].append(len(data))
        except Exception as exc:
            stats["errors"].append(repr(exc))
        await asyncio.sleep(3)


async def entering_results(slug: str, until: float) -> int:
    """Staff entering a result every 3 s, as in a real round, from another process."""
    code = (
        "import sys, django; django.setup()\n"
        "from tournaments import services\n"
        "from tournaments.models import Match, MatchKind\n"
        "for line in sys.stdin:\n"
        f"    m = Match.objects.filter(round__tournament__slug={slug!r}, kind=MatchKind.PLAYED,"
        " reported=False).first()\n"
        "    services.record_result(match=m, wins=(2, 0), draws=0)\n"
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, cwd=ROOT, stdin=asyncio.subprocess.PIPE,
        env={**os.environ, "LIVE_PREWARM": "1"},
    )  # fmt: skip
    count = 0
    assert proc.stdin is not None
    while time.monotonic() < until:
        if os.environ.get("BENCH_NO_RESULTS") is None:
            proc.stdin.write(b"enter\n")
        await proc.stdin.drain()
        count += 1
        await asyncio.sleep(3)
    proc.stdin.close()
    await proc.wait()
    return count


def load_run(slug: str, players: int, phones: int, seconds: int) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    access_log = Path(tempfile.mkdtemp()) / "access.log"
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "tournaments.wsgi:application", "--bind",
         f"127.0.0.1:{port}", "--workers", os.environ.get("BENCH_WORKERS", "4"), "--worker-class", os.environ.get("BENCH_WORKER_CLASS", "gthread"), "--threads", os.environ.get("BENCH_THREADS", "2"),
         "--backlog", "2048", "--access-logfile", str(access_log),
         "--access-logformat", "%(U)s %(s)s %(D)s"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "LIVE_PREWARM": "1"},
    )  # fmt: skip
    try:
        time.sleep(3)
        paths = [f"/t/{slug}/standings/", f"/t/{slug}/pairings/", f"/t/{slug}/",
                 f"/t/{slug}/pairings/?by=name"]  # fmt: skip
        stats: dict[str, list] = {"latency": [], "status": [], "errors": [], "bytes": []}
        lags: list[float] = []

        async def main() -> int:
            until = time.monotonic() + seconds
            rng = random.Random(1)
            # Each phone belongs to a player: the fifth page it may show is its own
            # player page, so a change costs up to one render per phone on it.
            tasks = [phone(port, [*paths, f"/t/{slug}/players/p{1 + i % players}/"], until,
                           stats, random.Random(rng.random()))
                     for i in range(phones)]  # fmt: skip
            results = await asyncio.gather(
                entering_results(slug, until), loop_lag(until, lags), *tasks
            )
            return results[0]

        entered = asyncio.run(main())
        lat, status = stats["latency"], stats["status"]
        bad = [s for s in status if s not in (200, 304)]
        print(
            f"load: {phones} phones x {seconds} s, {entered} results entered meanwhile: "
            f"{len(lat)} requests ({len(lat) / seconds:.0f}/s), "
            f"{len(stats['errors']) + len(bad)} errors, "
            f"{sum(1 for s in status if s == 304) / max(1, len(status)):.0%} answered 304, "
            f"latency p50 {pct(lat, 0.5):.1f} ms p95 {pct(lat, 0.95):.1f} ms "
            f"p99 {pct(lat, 0.99):.1f} ms; {sum(stats['bytes']) / max(1, len(lat)) / 1024:.1f} kB "
            "a response on average"
        )
        if stats["errors"]:
            print("  first error:", stats["errors"][0])
    finally:
        server.terminate()
        server.wait(timeout=10)
    # %(D)s: microseconds from reading the request to the end of the response, in gunicorn.
    served = [int(line.split()[-1]) / 1000 for line in access_log.read_text().splitlines()]
    if served:
        print(
            f"  at the server (gunicorn access log): p50 {pct(served, 0.5):.1f} ms "
            f"p95 {pct(served, 0.95):.1f} ms p99 {pct(served, 0.99):.1f} ms; the load "
            f"generator's own event-loop lag (same 2 cores): p50 {pct(lags, 0.5):.1f} ms "
            f"p95 {pct(lags, 0.95):.1f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=2048)
    # The phones' load run is bench_phones.py's (PostgreSQL, Redis, phones polling their
    # own pages on kept-alive connections); this older one runs only when asked.
    parser.add_argument("--phones", type=int, default=0)
    parser.add_argument("--seconds", type=int, default=60)
    args = parser.parse_args()
    from calibration import print_calibration

    print_calibration()
    tmp = tempfile.mkdtemp()
    os.environ.update(
        DEBUG="0", SECRET_KEY="bench-only", ALLOWED_HOSTS="127.0.0.1,testserver",
        SECURE_SSL_REDIRECT="0", DJANGO_SETTINGS_MODULE="tournaments.settings",
        DATABASE_URL=f"sqlite:///{tmp}/pages.sqlite3",
        REDIS_URL=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/15"),
        # Server times measure the render itself.
        LIVE_PREWARM="0",
    )  # fmt: skip
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                   cwd=ROOT, check=True)  # fmt: skip
    import django

    django.setup()
    from bench_result_entry import document
    from django.core.management import call_command

    from tournaments.services import import_document

    call_command("migrate", verbosity=0)
    from django.core.cache import cache

    cache.clear()
    tournament = import_document(document(args.players, 9))
    server_times(tournament.slug)
    if args.phones:
        load_run(tournament.slug, args.players, args.phones, args.seconds)


if __name__ == "__main__":
    main()
