"""Benchmark: 1,000 players report their own results and their opponents confirm (issue 14).

Run: .venv/bin/python bench/bench_reports.py [--players 1000] [--window 90]
     .venv/bin/python bench/bench_reports.py --closed 32   (throughput: 32 clients back to back)

On PostgreSQL (database swiss_bench_reports on postgres://postgres@127.0.0.1:5432,
dropped and created afresh) and Redis as the shared cache (127.0.0.1:6379 db 15), with
gunicorn as the README's production command runs it (4 uvicorn workers, the pages in
WEB_THREADS threads each; DEBUG off, SECRET_KEY set, collectstatic done) over plain HTTP
(SECURE_SSL_REDIRECT=0, SECURE_COOKIES=0). BEHIND_PROXY=1 and each phone sends its
own X-Forwarded-For, as the TLS proxy would: phones have their own addresses.

1. An event of N players with round 1 paired (N/2 tables, no result), a private link for
   each player (services.registration.issue_link when present, else tokens.py directly);
2. in random table order, one player of each table (chosen at random) GETs their report
   panel (HTMX) and POSTs the report with the panel's CSRF token and stamp; a few seconds
   later (1-5 s: the opponent reads it on their phone) the opponent GETs theirs and POSTs
   Confirm. The tables finish at random moments spread evenly over `--window` seconds
   (the issue's load: 1,000 players within 2 minutes), each table on its own client, so
   a slow answer never delays the next table's arrival: the times measured are what a
   phone waits at that load. (`--closed K` instead runs K clients back to back, each
   starting its next table the moment the last one is done: a throughput test, whose
   latencies are mostly the queue those K clients make, K / throughput.)
3. printed: the calibration (bench/calibration.py), reports offered vs completed, HTTP
   errors, lost reports (a match whose stored result is not the one reported), p50/p95
   of a report POST against 1x calibration and of a confirm POST, the wall time against
   2 minutes, and whether the stored standings equal a full recompute.

Exit code non-zero on an error, a lost report or standings that differ.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from calibration import calibration_ms, print_calibration, ratio_line  # noqa: E402

PG = "postgres://postgres@127.0.0.1:5432/"
DB = "swiss_bench_reports"
RESULTS = [(2, 0, 0), (2, 1, 0), (1, 2, 0), (0, 2, 0), (1, 1, 1)]
LIMIT_S = 120
HIDDEN = re.compile(r'name="(csrfmiddlewaretoken|match|seen)" value="([^"]*)"')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def environment() -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": PG + DB,
        "DEBUG": "0",
        "SECRET_KEY": "bench-reports-" + "x" * 50,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "SECURE_COOKIES": "0",
        "BEHIND_PROXY": "1",
        "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/15"),
    }


def fresh_database(env: dict[str, str]) -> None:
    import psycopg

    with psycopg.connect(PG + "postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB}")
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([*manage, "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)


def make_event(players: int) -> tuple[Any, list[tuple[int, list[tuple[int, str]]]]]:
    """The event, and per table (match pk, [(player pk, token) in seat order])."""
    from tournaments.models import Match, Player
    from tournaments.services import import_document
    from tournaments.tokens import new_token, token_hash

    t = import_document(
        {
            "format": "swiss-tournament/1",
            "name": "Bench Reports",
            "system": "mtr",
            "best_of": 3,
            "seed": 14,
            "players": [{"id": f"p{k}", "name": f"Player {k}"} for k in range(1, players + 1)],
            "rounds": [
                {
                    "number": 1,
                    "phase": 1,
                    "matches": [
                        {"table": k, "players": [f"p{2 * k - 1}", f"p{2 * k}"]}
                        for k in range(1, players // 2 + 1)
                    ],
                }
            ],
        }
    )
    tokens: dict[int, str] = {}
    try:
        from tournaments.services.registration import issue_link

        for p in Player.objects.filter(tournament=t):
            tokens[p.pk] = issue_link(player=p)
    except ImportError:  # before registration landed: the hash written directly
        for p in Player.objects.filter(tournament=t):
            tokens[p.pk] = new_token()
            Player.objects.filter(pk=p.pk).update(token_hash=token_hash(tokens[p.pk]))
    tables = []
    for m in Match.objects.filter(round__tournament=t).prefetch_related("seats"):
        seats = sorted(m.seats.all(), key=lambda s: s.position)
        tables.append((m.pk, [(s.player_id, tokens[s.player_id]) for s in seats]))
    return t, tables


class Phone:
    """One player's phone: its own cookies and address."""

    def __init__(self, port: int, address: str) -> None:
        self.port, self.address, self.cookies = port, address, ""

    def request(self, method: str, path: str, body: str = "") -> tuple[int, str, float]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"HX-Request": "true", "X-Forwarded-For": self.address, "Cookie": self.cookies}
        if body:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        start = time.perf_counter()
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        text = response.read().decode()
        elapsed = (time.perf_counter() - start) * 1000
        for value in response.headers.get_all("Set-Cookie") or []:
            if value.startswith("csrftoken="):
                self.cookies = value.split(";", 1)[0]
        conn.close()
        return response.status, text, elapsed

    def post_form(self, token: str, action: str, extra: dict[str, str]) -> tuple[int, float]:
        from urllib.parse import urlencode

        status, page, _ = self.request("GET", f"/p/{token}/report/panel/")
        if status != 200:
            return status, 0.0
        fields = dict(HIDDEN.findall(page))
        status, _, ms = self.request(
            "POST", f"/p/{token}/{action}/", urlencode({**fields, **extra})
        )
        return status, ms


def percentile(sorted_ms: list[float], q: float) -> float:
    if not sorted_ms:
        return 0.0
    if q == 0.5:
        return statistics.median(sorted_ms)
    return sorted_ms[int(q * (len(sorted_ms) - 1))]


def run(players: int, window: float, closed: int, workers: int = 4, threads: int = 8) -> int:
    env = environment()
    os.environ.update(env)
    fresh_database(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")
    import django

    django.setup()
    from django.core.cache import cache

    cache.clear()  # the bench's own Redis database: nothing of an earlier run
    t, tables = make_event(players)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "tournaments.asgi:application", "--worker-class",
         "uvicorn_worker.UvicornWorker", "--workers", str(workers), "--bind",
         f"127.0.0.1:{port}", "--log-level", "warning"],
        cwd=ROOT, env={**env, "WEB_THREADS": str(threads)},
    )  # fmt: skip
    try:
        for _ in range(100):
            try:
                if Phone(port, "10.0.0.1").request("GET", "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.2)
        rng = random.Random(14)
        plan = []
        for k, (pk, seats) in enumerate(tables):
            first = rng.randrange(2)
            plan.append((pk, seats, first, RESULTS[k % len(RESULTS)]))
        rng.shuffle(plan)
        # When each table finishes (open load) and how long its opponent takes to confirm.
        starts = sorted(rng.uniform(0, window) for _ in plan)
        thinks = [rng.uniform(1, 5) for _ in plan]
        report_ms: list[float] = []
        confirm_ms: list[float] = []
        late: list[float] = []
        errors: list[str] = []

        def table(item: tuple[int, list[tuple[int, str]], int, tuple[int, int, int]],
                  think: float, at: float | None = None) -> None:  # fmt: skip
            if at is not None:  # how late the client started: the open load held if small
                late.append((time.perf_counter() - start - at) * 1000)
            pk, seats, first, (mine, theirs, draws) = item
            (_pa, ta), (_pb, tb) = seats[first], seats[1 - first]
            reporter = Phone(port, f"10.{pk % 250}.{pk // 250 % 250}.1")
            status, ms = reporter.post_form(
                ta, "report", {"wins_mine": str(mine), "wins_theirs": str(theirs),
                               "draws": str(draws)}
            )  # fmt: skip
            if status != 200:
                errors.append(f"match {pk}: report answered {status}")
                return
            report_ms.append(ms)
            if not closed:
                time.sleep(think)
            opponent = Phone(port, f"10.{pk % 250}.{pk // 250 % 250}.2")
            status, ms = opponent.post_form(tb, "confirm", {})
            if status != 200:
                errors.append(f"match {pk}: confirm answered {status}")
                return
            confirm_ms.append(ms)

        start = time.perf_counter()
        if closed:
            with ThreadPoolExecutor(closed) as pool:
                list(pool.map(table, plan, thinks))
        else:
            # A client per table in flight (a few dozen at once): an arrival never waits
            # for an earlier table's answer.
            with ThreadPoolExecutor(256) as pool:
                futures = []
                for item, at, think in zip(plan, starts, thinks, strict=True):
                    delay = start + at - time.perf_counter()
                    if delay > 0:
                        time.sleep(delay)
                    futures.append(pool.submit(table, item, think, at))
            for item, future in zip(plan, futures, strict=True):
                if future.exception() is not None:
                    errors.append(f"match {item[0]}: {future.exception()!r}")
        wall = time.perf_counter() - start
    finally:
        server.terminate()
        server.wait(timeout=30)

    from bench_organizer import standings_equal_full_recompute
    from django.db import connection

    from tournaments.models import Match, Seat

    connection.close()
    stored: dict[int, list[int | None]] = {}
    reported = {
        pk: (done, draws)
        for pk, done, draws in Match.objects.filter(round__tournament=t).values_list(
            "pk", "reported", "draws"
        )
    }
    for match_id, won in (
        Seat.objects.filter(match__round__tournament=t)
        .order_by("match_id", "position")
        .values_list("match_id", "games_won")
    ):
        stored.setdefault(match_id, []).append(won)
    lost = 0
    for pk, _seats, first, (mine, theirs, draws) in plan:
        want = [mine, theirs] if first == 0 else [theirs, mine]
        if reported[pk] != (True, draws) or stored[pk] != want:
            lost += 1
    equal, detail = standings_equal_full_recompute(t)
    report_ms.sort()
    confirm_ms.sort()
    p50, p95 = percentile(report_ms, 0.5), percentile(report_ms, 0.95)
    load = f"{closed} clients back to back" if closed else (
        f"open load: tables finishing evenly over {window:.0f} s, confirmed 1-5 s later; "
        f"dispatch late by at most {max(late or [0]):.0f} ms"
    )  # fmt: skip
    print(f"players {players}, tables {len(tables)}, gunicorn {workers} uvicorn workers x "
          f"{threads} page threads, Redis; {load}")  # fmt: skip
    print(f"reports offered {len(plan)}, completed {len(report_ms)}, confirmed "
          f"{sum(done for done, _ in reported.values())}; errors {len(errors)}, lost reports {lost}")  # fmt: skip
    for e in errors[:5]:
        print("  error:", e)
    print(f"report POST p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {max(report_ms or [0]):.1f} ms")
    print(f"confirm POST p50 {percentile(confirm_ms, 0.5):.1f} ms, "
          f"p95 {percentile(confirm_ms, 0.95):.1f} ms, max {max(confirm_ms or [0]):.1f} ms")  # fmt: skip
    print(ratio_line("report POST p95 ", p95, 1.0).replace("median ", ""))
    verdict = "OK" if wall <= LIMIT_S else "MISSED"
    print(f"target: every report and confirmation within {LIMIT_S} s -> {wall:.1f} s {verdict}")
    print(f"stored standings equal a full recompute: {'yes' if equal else 'NO'} ({detail})")
    return 0 if (not errors and not lost and equal) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--window", type=float, default=90.0, help="seconds the tables finish over")
    parser.add_argument("--closed", type=int, default=0, metavar="K",
                        help="K clients back to back instead of the open load")  # fmt: skip
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers (README: 4)")
    parser.add_argument("--threads", type=int, default=8, help="WEB_THREADS (README: 8)")
    args = parser.parse_args()
    print_calibration()
    print(f"calibration {calibration_ms():.1f} ms")
    sys.exit(run(args.players, args.window, args.closed, args.workers, args.threads))
