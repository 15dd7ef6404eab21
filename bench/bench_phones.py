"""Benchmark: 2,000 phones following a 2,048-player event while the organizer enters results.

The production stack: gunicorn (DEBUG off, collected static files), PostgreSQL
(postgres://postgres@127.0.0.1:5432/, database swiss_bench_phones, created afresh) and
Redis as the cache (127.0.0.1:6379 db 15). Two gunicorn pools, as README's "Behind a
cache" runs them: one for the phones (at nice 10), one for the organizer's /manage/
screens, so the organizer is never queued behind the phones.

Each simulated phone belongs to a player and has two pages open, each following the
event as static/js/live.js does: the page's event stream (tournaments/stream.py) and a
conditional refresh of its live section (If-None-Match, gzip accepted, a kept-alive
connection) when the stream opens, when it names a change, and every 2 minutes anyway:
the player's own page and the standings around them (?me=). The phones' pool is ASGI
(uvicorn workers), where an idle stream costs no thread. Phones come online over WARMUP
seconds (their first full page loads, not measured), then the measured window runs.
Bytes per phone count the refreshes and the streams (events and keep-alives). An organizer client
logged in over HTTP posts a result every 2 s; the time until the two players' phones show
it is measured from the click.

Prints the calibration figure, refreshes offered vs completed per second, errors (failed
refreshes and broken streams), phone p50/p95/p99 and server-side p95, % 304, bytes per phone per minute, the organizer's POST
p95 against 1x calibration and the click-to-phone time, each target with OK/MISSED.

Run: .venv/bin/python bench/bench_phones.py [--phones 2000] [--seconds 60]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

DATABASE = "swiss_bench_phones"
PG_ADMIN = "postgres://postgres@127.0.0.1:5432/postgres"
SAFETY_S = 120.0  # static/js/live.js SAFETY_MS
RETRY_S = 3.0  # tournaments/stream.py RETRY_MS
RESULT_EVERY = 2.0
WARMUP = 60.0  # phones arrive over a minute (--ramp): 33 first page loads a second
ROUND = 10
TARGET_P95_MS = 200.0
TARGET_KB_PER_MINUTE = 60.0
TARGET_SEEN_S = 5.0
RESULT_RE = re.compile(rb'<tr data-round="(\d+)">.*?data-result="([^"]*)"', re.S)
LIVE_RE = re.compile(rb'data-live="([^"]+)"')
SERVER_TIMING_RE = re.compile(r"app;dur=([0-9.]+)")  # tournaments/timing.py
CSRF_RE = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Stats:
    latency: list[float] = field(default_factory=list)
    status: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    bytes: int = 0
    offered: int = 0
    completed: int = 0
    post_ms: list[float] = field(default_factory=list)
    post_errors: list[str] = field(default_factory=list)
    clicks: dict[str, float] = field(default_factory=dict)  # player id -> click time
    seen_s: list[float] = field(default_factory=list)
    stream_bytes: int = 0
    served: list[float] = field(default_factory=list)  # Server-Timing: the server's part
    # Players whose own page is open with its stream: a click counts for click-to-phone
    # only then (a phone that joins later shows the result in its first load).
    following: set[str] = field(default_factory=set)
    trace: list[tuple[float, float, str]] = field(default_factory=list)  # for --trace


def response_bytes(response: Any, body: bytes) -> int:
    """What crossed the network: status line, headers and the (compressed) body."""
    head = sum(len(k) + len(v) + 4 for k, v in response.raw_headers) + 17
    return head + len(body)


def shows_result(body: bytes, encoding: str) -> bool:
    html = gzip.decompress(body) if encoding == "gzip" else body
    return any(int(number) == ROUND and result for number, result in RESULT_RE.findall(html))


async def fetch(
    session: Any, base: str, path: str, state: dict[str, Any], pid: str, own_page: bool,
    measure_from: float, stats: Stats,
) -> None:  # fmt: skip
    """One htmx refresh of a live section: the fragment, conditional on its ETag."""
    headers = {"HX-Request": "true", "Accept-Encoding": "gzip"}
    if state["etag"]:
        headers["If-None-Match"] = state["etag"]
    sent = time.monotonic()
    measured = sent >= measure_from
    if measured:
        stats.offered += 1
    try:
        async with session.get(base + path, headers=headers) as r:
            body = await r.read()
            done = time.monotonic()
            if r.status not in (200, 304):
                raise RuntimeError(f"HTTP {r.status}")
            state["etag"] = r.headers.get("ETag", state["etag"])
            encoding = r.headers.get("Content-Encoding", "")
            if (
                own_page
                and r.status == 200
                and pid in stats.clicks
                and shows_result(body, encoding)
            ):
                stats.seen_s.append(done - stats.clicks.pop(pid))
            if measured:
                stats.completed += 1
                stats.latency.append((done - sent) * 1000)
                stats.status.append(r.status)
                stats.bytes += response_bytes(r, body)
                timing = SERVER_TIMING_RE.search(r.headers.get("Server-Timing", ""))
                if timing:
                    stats.served.append(float(timing[1]))
                stats.trace.append((sent - measure_from, (done - sent) * 1000, path))
    except Exception as exc:
        if measured:
            stats.errors.append(f"{path}: {exc!r}")


async def follow(
    session: Any, base: str, path: str, events: str, pid: str, own_page: bool,
    measure_from: float, until: float, stats: Stats, rng: random.Random,
) -> None:  # fmt: skip
    """One open page as live.js runs it: its full load, then its event stream; a refresh
    of the section when the stream opens and whenever it names a change, at most one in
    flight (a change told meanwhile queues one more, as htmx does), one every SAFETY_S
    regardless. A stream that fails counts as an error and reconnects after RETRY_S."""
    state: dict[str, Any] = {"etag": "", "busy": False, "again": False, "last": 0.0}
    start_at = measure_from - WARMUP + rng.random() * WARMUP
    await asyncio.sleep(max(0.0, start_at - time.monotonic()))
    try:
        async with session.get(base + path, headers={"Accept-Encoding": "gzip"}) as r:
            body = await r.read()
            state["etag"] = r.headers.get("ETag", "")
            html = gzip.decompress(body) if r.headers.get("Content-Encoding") == "gzip" else body
            named = LIVE_RE.search(html)
            if named:  # the stream the page names (with the version it shows)
                events = named[1].decode().replace("&amp;", "&")
    except Exception as exc:
        stats.errors.append(f"full {path}: {exc!r}")
    # live.js: refresh on opening unless the page named its version, and on reconnecting.
    opening = {"refresh": "at=" not in events}

    async def refresh() -> None:
        if state["busy"]:
            state["again"] = True
            return
        state["busy"] = True
        try:
            while True:
                state["again"] = False
                state["last"] = time.monotonic()
                await fetch(session, base, path, state, pid, own_page, measure_from, stats)
                if not state["again"]:
                    return
        finally:
            state["busy"] = False

    tasks: set[asyncio.Task[None]] = set()

    def later() -> None:
        task = asyncio.ensure_future(refresh())
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    async def stream() -> None:
        while time.monotonic() < until:
            try:
                async with session.get(base + events, timeout=aiohttp_timeout()) as r:
                    if r.status != 200:
                        raise RuntimeError(f"HTTP {r.status}")
                    if own_page:
                        stats.following.add(pid)
                    if opening["refresh"]:
                        later()
                    opening["refresh"] = True
                    event = ""
                    async for raw in r.content:
                        if time.monotonic() >= measure_from:
                            stats.stream_bytes += len(raw)
                        line = raw.decode().rstrip("\n")
                        if line.startswith("event:"):
                            event = line[6:].strip()
                        elif not line and event:
                            later()
                            event = ""
                        if time.monotonic() >= until:
                            return
            except Exception as exc:
                if time.monotonic() >= measure_from:
                    stats.errors.append(f"stream {events}: {exc!r}")
                await asyncio.sleep(RETRY_S)

    streaming = asyncio.ensure_future(stream())
    loop = asyncio.get_running_loop()

    # live.js's safety refresh, as one timer per page re-armed when due: a wake-up every
    # second for each of 4,000 pages cost the load generator a third of a core, which it
    # shares with the server it measures.
    def safety() -> None:
        now = time.monotonic()
        if now >= until:
            return
        if now - state["last"] >= SAFETY_S:
            later()
        loop.call_later(max(1.0, SAFETY_S - (time.monotonic() - state["last"])), safety)

    loop.call_later(SAFETY_S, safety)
    await asyncio.sleep(max(0.0, until - time.monotonic()))
    streaming.cancel()
    await asyncio.gather(streaming, *tasks, return_exceptions=True)


def aiohttp_timeout() -> Any:
    import aiohttp

    return aiohttp.ClientTimeout(total=None, sock_read=60)


async def organizer(
    base: str, session_cookie: str, slug: str, matches: list[tuple[int, list[str]]],
    measure_from: float, until: float, stats: Stats,
) -> None:  # fmt: skip
    """Staff at the laptop: one result every 2 s, posted over HTTP as the round screen does."""
    import aiohttp

    jar = aiohttp.CookieJar(unsafe=True)
    async with aiohttp.ClientSession(base_url=None, cookie_jar=jar) as http:
        jar.update_cookies({"sessionid": session_cookie})
        async with http.get(f"{base}/t/{slug}/manage/rounds/{ROUND}/") as r:
            page = await r.text()
            if r.status != 200:
                raise RuntimeError(f"round screen: HTTP {r.status}")
        token = CSRF_RE.search(page)
        if token is None:
            raise RuntimeError("round screen: no CSRF token")
        next_at = measure_from - WARMUP / 2  # results already come in while phones join
        for match_id, players in matches:
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            if time.monotonic() > until - 6:
                return  # leave the phones time to see the last one
            next_at += RESULT_EVERY
            url = f"{base}/t/{slug}/manage/matches/{match_id}/result/"
            start = time.monotonic()
            try:
                async with http.post(
                    url,
                    data={"csrfmiddlewaretoken": token[1], "result": "2-1"},
                    headers={"HX-Request": "true", "Origin": base, "Referer": base + "/"},
                ) as r:
                    await r.read()
                    if r.status != 200:
                        raise RuntimeError(f"HTTP {r.status}")
                clicked = start
                stats.post_ms.append((time.monotonic() - start) * 1000)
                for pid in players:
                    if pid in stats.following:
                        stats.clicks[pid] = clicked
            except Exception as exc:
                stats.post_errors.append(repr(exc))


async def load(
    phones_port: int, organizer_port: int, slug: str, players: list[str], phones: int,
    seconds: float, session_cookie: str, matches: list[tuple[int, list[str]]], stats: Stats,
) -> float:  # fmt: skip
    import aiohttp

    measure_from = time.monotonic() + WARMUP
    until = measure_from + seconds
    base = f"http://127.0.0.1:{phones_port}"
    connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=30)
    timeout = aiohttp.ClientTimeout(total=30)
    rng = random.Random(1)
    async with aiohttp.ClientSession(
        connector=connector, timeout=timeout, auto_decompress=False
    ) as session:
        tasks = []
        for i in range(phones):
            pid = players[i % len(players)]
            for path, events, own in (
                (f"/t/{slug}/players/{pid}/", f"/t/{slug}/live/?player={pid}", True),
                (f"/t/{slug}/standings/?me={pid}", f"/t/{slug}/live/?near={pid}", False),
            ):
                tasks.append(follow(session, base, path, events, pid, own, measure_from,
                                    until, stats, random.Random(rng.random())))  # fmt: skip
        tasks.append(
            organizer(
                f"http://127.0.0.1:{organizer_port}",
                session_cookie,
                slug,
                matches,
                measure_from,
                until,
                stats,
            )
        )
        await asyncio.gather(*tasks)
    return measure_from


def gunicorn(
    port: int, workers: int, threads: int, log: Path, *, asgi: bool = False, nice: int = 0
) -> subprocess.Popen:
    """A gunicorn pool: the phones' is ASGI (uvicorn workers: thousands of idle event
    streams), the organizer's WSGI with threads, as README's "Behind a cache" runs them."""
    if asgi:
        app, worker = (
            "tournaments.asgi:application",
            ["--worker-class", "uvicorn_worker.UvicornWorker"],
        )
    else:
        app, worker = "tournaments.wsgi:application", ["--worker-class", "gthread",
                                                        "--threads", str(threads)]  # fmt: skip
    command = [
        *(["nice", "-n", str(nice)] if nice else []),
        sys.executable, "-m", "gunicorn", app, *worker,
        "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
        "--worker-connections", "6000", "--keep-alive", "30", "--graceful-timeout", "3",
        "--backlog", "4096",
        "--access-logfile", str(log), "--access-logformat", "%(U)s %(s)s %(D)s",
    ]  # fmt: skip
    errors = log.with_suffix(".err").open("w")  # the server's own log: tracebacks
    return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=errors, env={**os.environ})  # fmt: skip


def wait_ready(port: int) -> None:
    import urllib.request

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).read()
            return
        except Exception:
            time.sleep(0.3)
    raise RuntimeError(f"gunicorn on port {port} did not start")


def fresh_database() -> None:
    import psycopg

    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DATABASE}")


def main() -> None:
    global WARMUP
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2048)
    parser.add_argument("--phones", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--ramp", type=float, default=60.0, help="seconds over which phones arrive")
    parser.add_argument("--workers", type=int, default=2, help="the phones' pool")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--trace", type=Path, help="write each refresh (sent s, ms, path) here")
    parser.add_argument("--phones-nice", type=int, default=10,
                        help="the phones' pool's CPU niceness (README: nice -n 10)")  # fmt: skip
    parser.add_argument("--cut", action="store_true",
                        help="a top 8 after round 11: 'what do I need?' is computed after "
                             "every result (issue 15), as in a real event's last rounds")  # fmt: skip
    args = parser.parse_args()
    WARMUP = args.ramp
    from calibration import calibration_ms, print_calibration

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
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.core.management import call_command
    from django.test import Client

    from tournaments import live
    from tournaments.models import Match, Player
    from tournaments.services import import_document

    call_command("migrate", verbosity=0)
    cache.clear()
    owner = get_user_model().objects.create_user("bench-organizer", password=None)
    started = time.perf_counter()
    doc = document(args.players, ROUND - 1)
    if args.cut:
        doc["event"] = {"top_cut": 8, "planned_rounds": ROUND + 1}
    t = import_document(doc, owner=owner)
    live.warm_now(t.pk)
    print(f"setup: {args.players} players imported at round {ROUND} and the live record "
          f"built in {time.perf_counter() - started:.1f} s", flush=True)  # fmt: skip
    client = Client()
    client.force_login(owner)
    session_cookie = client.cookies["sessionid"].value
    players = list(
        Player.objects.filter(tournament=t).order_by("id").values_list("external_id", flat=True)
    )
    matches = [
        (m.pk, [s.player.external_id for s in m.seats.select_related("player")])
        for m in Match.objects.filter(
            round__tournament=t, round__number=ROUND, kind="played", reported=False
        ).order_by("table")[: int((args.seconds + WARMUP) / RESULT_EVERY) + 5]
    ]
    from django.db import connections

    connections.close_all()

    logs = Path(tempfile.mkdtemp())
    phones_port, organizer_port = free_port(), free_port()
    servers = [
        gunicorn(
            phones_port,
            args.workers,
            args.threads,
            logs / "phones.log",
            asgi=True,
            nice=args.phones_nice,
        ),
        gunicorn(organizer_port, 1, 4, logs / "organizer.log"),
    ]
    stats = Stats()
    try:
        wait_ready(phones_port)
        wait_ready(organizer_port)
        load_before = os.getloadavg()[0]
        try:  # the faster event loop (uvicorn's own): the generator shares the cores
            import uvloop

            run: Any = uvloop.run
        except ImportError:
            run = asyncio.run
        run(load(phones_port, organizer_port, t.slug, players, args.phones,
                 args.seconds, session_cookie, matches, stats))  # fmt: skip
        load_after = os.getloadavg()
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    if args.trace:
        args.trace.write_text(
            "".join(f"{at:.3f} {ms:.1f} {path}\n" for at, ms, path in stats.trace)
        )
    report(args, stats, logs, calibration_ms(), load_before, load_after)


def report(
    args: Any, stats: Stats, logs: Path, calibration: float, load_before: float,
    load_after: tuple[float, float, float],
) -> None:  # fmt: skip
    def verdict(ok: bool) -> str:
        return "OK" if ok else "MISSED"

    lat, seconds = stats.latency, args.seconds
    errors = len(stats.errors)
    not_modified = sum(1 for s in stats.status if s == 304) / max(1, len(stats.status))
    per_phone_minute = (
        (stats.bytes + stats.stream_bytes) / max(1, args.phones) / (seconds / 60) / 1024
    )
    served = stats.served
    phone_p95 = pct(lat, 0.95)
    post_p95 = pct(stats.post_ms, 0.95)
    seen_p95 = pct(stats.seen_s, 0.95)
    print(
        f"phones: {args.phones} phones x 2 pages, {seconds:.0f} s measured after a "
        f"{WARMUP:.0f} s ramp; phones' pool: gunicorn {args.workers} uvicorn workers (pages "
        f"in WEB_THREADS threads each) at nice {args.phones_nice}; organizer's pool: gthread "
        f"1 x 4; load average "
        f"{load_before:.2f} before, {load_after[0]:.2f} after",
        flush=True,
    )
    print(
        f"  requests offered {stats.offered} ({stats.offered / seconds:.0f}/s), completed "
        f"{stats.completed} ({stats.completed / seconds:.0f}/s); errors {errors}; "
        f"answered 304: {not_modified:.0%}"
    )
    print(
        f"  phones saw p50 {pct(lat, 0.5):.1f} ms p95 {phone_p95:.1f} ms "
        f"p99 {pct(lat, 0.99):.1f} ms; server-side (Server-Timing) p50 {pct(served, 0.5):.1f} ms "
        f"p95 {pct(served, 0.95):.1f} ms; {per_phone_minute:.1f} kB per phone per minute"
    )
    print(
        f"  organizer: {len(stats.post_ms)} results posted, {len(stats.post_errors)} failed, "
        f"POST p50 {pct(stats.post_ms, 0.5):.1f} ms p95 {post_p95:.1f} ms "
        f"({post_p95 / calibration:.2f}x calibration); click to phone: "
        f"{len(stats.seen_s)} seen, p50 {pct(stats.seen_s, 0.5):.2f} s "
        f"p95 {seen_p95:.2f} s, {len(stats.clicks)} not seen by the end"
    )
    if stats.errors:
        print("  first error:", stats.errors[0])
        print(f"  server logs: {logs}")
    if stats.post_errors:
        print("  first organizer error:", stats.post_errors[0])
    print(f"target: 0 errors -> {errors} {verdict(errors == 0 and not stats.post_errors)}")
    print(
        f"target: completed = offered -> {stats.completed}/{stats.offered} "
        f"{verdict(stats.completed >= stats.offered)}"
    )
    print(f"target: phone p95 <= {TARGET_P95_MS:.0f} ms -> {phone_p95:.1f} ms "
          f"{verdict(phone_p95 <= TARGET_P95_MS)}")  # fmt: skip
    print(f"target: <= {TARGET_KB_PER_MINUTE:.0f} kB per phone per minute -> "
          f"{per_phone_minute:.1f} kB "
        f"{verdict(stats.completed >= 0.99 * stats.offered and per_phone_minute <= TARGET_KB_PER_MINUTE)}")  # fmt: skip
    print(f"target: organizer POST p95 <= 1.00x calibration = {calibration:.1f} ms -> "
          f"{post_p95:.1f} ms {verdict(post_p95 <= calibration)}")  # fmt: skip
    print(f"target: click to phone p95 <= {TARGET_SEEN_S:.0f} s -> {seen_p95:.2f} s "
          f"{verdict(seen_p95 <= TARGET_SEEN_S and not stats.clicks)}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
