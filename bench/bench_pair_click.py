"""Benchmark: the organizer's "Pair round 10" click over HTTP, at 2,048 and 8,192 players.

Run: .venv/bin/python bench/bench_pair_click.py [--players 2048 8192] [--clicks N] [--profile]

On the database DATABASE_URL names, else the machine's PostgreSQL server (database
swiss_bench_pair, made afresh), else a temporary SQLite file; each player count in its own
process: an event with 9 complete
Swiss rounds (bench_result_entry's document, its open round left out) is imported with a
user as owner; the event is deleted again at the end.

Through Django's test Client, in-process but through the whole middleware stack, with
DEBUG off, HTTPS, CSRF enforced and a real session login of the owner, as the event
screen's button sends it (`HX-Request`, `HX-Target: board`):

1. POST the pair URL N times (default 5 at 2,048 players, 3 at 8,192), each followed by
   a POST to the undo URL (not timed). The worker's scoring snapshot is then the one the
   last write left, as after the organizer entered round 9's last result: the click
   the organizer makes;
2. once more after dropping the snapshot (`forget_snapshots`): the first click of a
   freshly started worker, for information.

Each POST starts with the database connection closed, as in production (CONN_MAX_AGE=0
opens one per request). Per POST: wall time around the client call (ms); bytes =
status line + headers + body; SQL queries on the default connection. Printed: the
calibration figure, the median of the clicks against the targets (issue 26 item 3:
<= 0.5x calibration at 2,048 players, <= 2x at 8,192), how long the pairing service
took inside them (the rest is the board the response renders: the event screen's, issue
26 item 2), and the fresh worker's click.
After the last click the stored standings are compared with a full recompute.

`--profile` prints cProfile's top functions of one more click (not timed).

A missed target prints MISSED (exit code 0); an HTTP error, a round not paired or stored
standings that differ from a full recompute exit non-zero.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_organizer import (  # noqa: E402
    CSRF_RE,
    HOST,
    BenchError,
    check,
    kb,
    standings_equal_full_recompute,
    timed,
    wire_bytes,
)
from calibration import ENV as CALIBRATION_ENV  # noqa: E402
from calibration import calibration_ms, print_calibration, ratio_line  # noqa: E402

PLAYED = 9  # complete rounds; the click pairs round 10
TARGET_FACTOR = {2048: 0.5, 8192: 2.0}  # x calibration, for the median click


def document(players: int) -> dict[str, Any]:
    from bench_result_entry import document as with_open_round

    doc = with_open_round(players, PLAYED)
    doc["rounds"] = doc["rounds"][:PLAYED]
    doc["name"] = f"Pair click {players}"
    return doc


def run(players: int, clicks: int, profile: bool) -> None:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.urls import reverse

    from scoring.services import forget_snapshots
    from tournaments import services
    from tournaments.models import Match, Tournament

    call_command("migrate", verbosity=0)
    owner, _ = get_user_model().objects.get_or_create(username="bench-pair-click")
    t0 = time.perf_counter()
    tournament = services.import_document(document(players), owner=owner)
    imported = time.perf_counter() - t0
    try:
        client = Client(enforce_csrf_checks=True)
        client.force_login(owner)
        origin = f"https://{HOST}"
        event_url = reverse("manage_event", args=[tournament.slug])
        response, _, _ = timed(client, "get", event_url)
        check(response, f"GET {event_url}")
        token = CSRF_RE.search(response.content.decode())
        if token is None:
            raise BenchError(f"GET {event_url}: no csrfmiddlewaretoken in the event screen")
        headers = {
            "HX-Request": "true",
            "HX-Target": "board",
            "HX-Current-URL": origin + event_url,
            "Origin": origin,
            "Referer": origin + event_url,
        }
        pair_url = reverse("manage_pair", args=[tournament.slug])
        undo_url = reverse("manage_undo", args=[tournament.slug])
        data = {"csrfmiddlewaretoken": token[1]}

        def click() -> tuple[float, int, int]:
            response, ms, queries = timed(client, "post", pair_url, data=data, headers=headers)
            check(response, f"POST {pair_url}")
            paired = Match.objects.filter(round__tournament=tournament, round__number=PLAYED + 1)
            if not paired.exists():
                raise BenchError(f"POST {pair_url}: answered {response.status_code}, no round")
            return ms, wire_bytes(response), queries

        def undo() -> None:
            response, _, _ = timed(client, "post", undo_url, data=data, headers=headers)
            check(response, f"POST {undo_url}")

        # How long the pairing service takes inside each click (the rest is the board
        # the response renders, the middleware and the session).
        service_times: list[float] = []
        pair = services.pair_next_round

        def timed_pair(**kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return pair(**kwargs)
            finally:
                service_times.append((time.perf_counter() - start) * 1000)

        services.pair_next_round = timed_pair
        times, sizes, counts = [], [], []
        for _ in range(clicks):
            ms, size, queries = click()
            times.append(ms)
            sizes.append(size)
            counts.append(queries)
            undo()
        in_clicks = list(service_times)
        forget_snapshots()
        cold_ms, cold_bytes, cold_queries = click()
        cold_service = service_times[-1]
        undo()
        if profile:
            profiler = cProfile.Profile()
            profiler.enable()
            click()
            profiler.disable()
            undo()
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(
                int(os.environ.get("PROFILE_LINES", "45"))
            )
            print(out.getvalue())

        click()  # the standings left by a click, against a full recompute
        equal, detail = standings_equal_full_recompute(tournament)
        median = statistics.median(times)
        factor = TARGET_FACTOR.get(players, 2.0 if players > 2048 else 0.5)
        print(
            f"pair click, {players:,} players, round {PLAYED + 1} "
            f"(test client, {connection.vendor}, DEBUG off; import took {imported:.1f} s):\n"
            f"  {clicks} clicks: median {median:.1f} ms, max {max(times):.1f} ms; "
            f"{kb(statistics.median(sizes))}; queries {min(counts)}-{max(counts)}\n"
            f"  {ratio_line('', median, factor)}\n"
            f"  of which the pairing service (services.pair_next_round): median "
            f"{statistics.median(in_clicks):.1f} ms "
            f"({statistics.median(in_clicks) / calibration_ms():.2f}x calibration); the "
            f"rest is the board the response renders\n"
            f"  for information: a fresh worker's click (no snapshot) {cold_ms:.1f} ms "
            f"(service {cold_service:.1f} ms), {kb(cold_bytes)}, {cold_queries} queries\n"
            f"  standings equal a full recompute: {'yes' if equal else 'NO'} ({detail})",
            flush=True,
        )
        if not equal:
            raise BenchError("stored standings differ from a full recompute")
    finally:
        connection.close()
        Tournament.objects.filter(pk=tournament.pk).delete()


PG_ADMIN = "postgres://postgres@127.0.0.1:5432/postgres"
PG_DATABASE = "swiss_bench_pair"


def default_database(tmp: str) -> str:
    """The target is stated on PostgreSQL (issue 26 item 3): the machine's server, in a
    database made afresh for each size's process; a temporary SQLite file without one."""
    try:
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=2) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {PG_DATABASE} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {PG_DATABASE}")
    except Exception:  # no PostgreSQL server here: say so in the figures' heading
        return f"sqlite:///{tmp}/pair_click.sqlite3"
    return f"postgres://postgres@127.0.0.1:5432/{PG_DATABASE}"


def setup_environment(tmp: str) -> None:
    os.environ.update(
        DEBUG="0", SECRET_KEY="bench-only", ALLOWED_HOSTS=HOST,
        DJANGO_SETTINGS_MODULE="tournaments.settings", LIVE_PREWARM="0",
    )  # fmt: skip
    os.environ.setdefault("DATABASE_URL", default_database(tmp))
    os.environ.pop("REDIS_URL", None)  # the per-process cache, as one worker has


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2048, 8192])
    parser.add_argument("--clicks", type=int, help="timed clicks per size (5; 3 at 8,192+)")
    parser.add_argument("--profile", action="store_true", help="cProfile one more click")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.child:
        print_calibration()
        os.environ[CALIBRATION_ENV] = repr(calibration_ms())
        # DEBUG off serves static URLs from the manifest: build it, as a deploy does.
        env = {**os.environ, "DEBUG": "0", "SECRET_KEY": "bench-only"}
        subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                       cwd=ROOT, check=True, env=env)  # fmt: skip
    if len(args.players) > 1 or not args.child:
        # One process per size: no snapshot or cache carries over between them.
        failed = 0
        for n in args.players:
            cmd = [sys.executable, __file__, "--child", "--players", str(n)]
            if args.clicks:
                cmd += ["--clicks", str(args.clicks)]
            if args.profile:
                cmd.append("--profile")
            failed |= subprocess.call(cmd, cwd=ROOT)
        sys.exit(failed)
    players = args.players[0]
    clicks = args.clicks or (3 if players >= 8192 else 5)
    with tempfile.TemporaryDirectory() as tmp:
        setup_environment(tmp)
        import django

        django.setup()
        try:
            run(players, clicks, args.profile)
        except BenchError as exc:
            print(f"bench_pair_click: FAILED: {exc}", flush=True)
            sys.exit(1)


if __name__ == "__main__":
    main()
