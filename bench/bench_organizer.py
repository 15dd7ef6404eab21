"""Benchmark: the organizer's result POST over HTTP, as the round screen's buttons send it.

Run: .venv/bin/python bench/bench_organizer.py [--players 2048 8192] [--posts N]

Each player count runs in its own process on a fresh temporary SQLite file: an event with
9 complete Swiss rounds and round 10 paired without results (bench_result_entry's
document, imported by tournaments.interchange.import_document with a user as owner, or
by the import_tournament command if that function moved).
Through Django's test Client, in-process but through the whole middleware stack, with
DEBUG off, HTTPS, CSRF enforced and a real session login of the owner:

1. GET the round screen once (templates loaded: warm), take the form's CSRF token;
2. POST a result to N different open matches of round 10 (default 40 at 2,048 players,
   25 at 8,192), each with `HX-Request: true` and `HX-Target: match-<pk>` and the form
   fields a one-click result button sends (`csrfmiddlewaretoken`, `result` = "2-0",
   "2-1", "1-2", "0-2", "1-1-1" in turn). The worker's scoring snapshot is dropped
   after the import, so the first POST is the one a freshly started worker answers.
   Each POST starts with the database connection closed, as in production
   (CONN_MAX_AGE=0 opens one per request; the test client alone would keep it open);
3. POST 20 quick entries ("<table> 2-1", the keyboard's way in) to the next open tables;
4. GET the round screen 5 times (warm, full page) and once with ?missing=1; then the
   round screen of round 1 of the same field (every player paired: 1,024 tables at
   2,048), names as long as real ones: median time against <= 1x calibration and bytes
   per table against <= 300 (issue 12);
5. GET the organizer's event screen (the full page) once, then 5 times more (warm): the
   median against <= 1x calibration and the bytes against <= 300 kB (issue 26 item 2:
   the leaders of the standings and a count of the players, the whole lists on their own
   paged screens).

Per POST: wall time around the client call (ms); bytes = status line + headers
(cookies included) + body, uncompressed (no gzip middleware in the stack; kB = 1,024
bytes); SQL queries on the default connection (CaptureQueriesContext). Printed: the
calibration figure (bench/calibration.py), the first POST, then median / p95 / max of the
others, and the targets (issue 10): median <= 0.30x calibration at 2,048 players and
<= 0.60x at 8,192, every response <= 20 kB and <= 15 queries (first POST included).
Finally the stored standings are compared with a full recompute by the engine.

Live-page prewarming (LIVE_PREWARM) is off, so background renders do not share the GIL
with the request measured. A missed target prints MISSED (exit code 0); an HTTP error
(any non-2xx), a result that was not stored, or stored standings that differ from a full
recompute exit non-zero.
"""

from __future__ import annotations

import argparse
import os
import re
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

from calibration import ENV as CALIBRATION_ENV  # noqa: E402
from calibration import calibration_ms, print_calibration, ratio_line  # noqa: E402

ROUND = 10
RESULTS = ["2-0", "2-1", "1-2", "0-2", "1-1-1"]
TARGET_FACTOR = {2048: 0.30, 8192: 0.60}  # x calibration, for the median
TARGET_KB = 20
# Issue 12 item 1: the round screen at 1,024 tables in <= 1x calibration, <= 300 B a table.
SCREEN_FACTOR = 1.0
TARGET_BYTES_PER_TABLE = 300
SCREEN_GETS = 5
# Issue 26 item 2: the event screen at 2,048 players in <= 1x calibration and <= 300 kB.
EVENT_FACTOR = 1.0
EVENT_TARGET_KB = 300
QUICK_POSTS = 20
TARGET_QUERIES = 15
HOST = "testserver"
CSRF_RE = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


class BenchError(Exception):
    pass


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def kb(n: float) -> str:
    return f"{n / 1024:.1f} kB"


def wire_bytes(response: Any) -> int:
    """Status line + header lines (cookies included) + blank line + body, as sent."""
    status = f"HTTP/1.1 {response.status_code} {response.reason_phrase}\r\n".encode()
    headers = response.serialize_headers()
    cookies = "".join(
        f"{c.output(header='Set-Cookie:')}\r\n" for c in response.cookies.values()
    ).encode()
    return len(status) + len(headers) + 2 + len(cookies) + 2 + len(response.content)


def check(response: Any, what: str) -> None:
    if not 200 <= response.status_code < 300:
        body = response.content[:500].decode("utf-8", "replace")
        raise BenchError(f"{what}: HTTP {response.status_code}\n{body}")


def timed(client: Any, method: str, url: str, **kwargs: Any) -> tuple[Any, float, int]:
    """One request as production serves it: a new database connection, then the view."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    connection.close()
    start = time.perf_counter()
    with CaptureQueriesContext(connection) as queries:
        response = getattr(client, method)(url, secure=True, **kwargs)
    elapsed = (time.perf_counter() - start) * 1000
    return response, elapsed, len(queries.captured_queries)


def import_event(doc: dict[str, Any], owner: Any) -> Any:
    """The event, owned by `owner`, imported through the services' one write path."""
    from tournaments.services import import_document

    return import_document(doc, owner=owner)


def standings_equal_full_recompute(tournament: Any) -> tuple[bool, str]:
    from scoring.engine import compute_standings
    from scoring.models import Standing
    from scoring.services import event_record

    fresh = compute_standings(event_record(tournament))
    stored = list(
        Standing.objects.filter(tournament=tournament)
        .order_by("position")
        .values_list(
            "player__external_id", "rank", "points_exact", "wins", "losses", "draws", "played"
        )
    )
    expected = [
        (r.player, r.rank, str(r.points), r.wins, r.losses, r.draws, r.played) for r in fresh.rows
    ]
    if len(stored) != len(expected):
        return False, f"{len(stored)} stored rows, {len(expected)} computed"
    differ = [(s, e) for s, e in zip(stored, expected, strict=True) if s != e]
    if differ:
        s, e = differ[0]
        return False, f"{len(differ)} rows differ; first: stored {s}, recomputed {e}"
    return True, f"{len(stored)} rows: player, rank, points, W/L/D, played"


def run(players: int, posts: int) -> None:
    from bench_result_entry import document
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    from tournaments.models import Match

    call_command("migrate", verbosity=0)
    owner = get_user_model().objects.create_user("bench-organizer", password=None)
    t0 = time.perf_counter()
    tournament = import_event(document(players, ROUND - 1), owner)
    imported = time.perf_counter() - t0
    try:  # the first POST then finds what a freshly started worker has: no snapshot
        from scoring.services import forget_snapshots

        forget_snapshots()
    except ImportError:
        pass
    matches = list(
        Match.objects.filter(
            round__tournament=tournament, round__number=ROUND, kind="played", reported=False
        ).order_by("table")[:posts]
    )
    if len(matches) < posts:
        raise BenchError(f"only {len(matches)} open matches in round {ROUND}")

    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    origin = f"https://{HOST}"
    round_url = reverse("manage_round", args=[tournament.slug, ROUND])
    response, round_ms, round_queries = timed(client, "get", round_url)
    check(response, f"GET {round_url}")
    round_bytes = wire_bytes(response)
    token = CSRF_RE.search(response.content.decode())
    if token is None:
        raise BenchError(f"GET {round_url}: no csrfmiddlewaretoken in the round screen")

    times: list[float] = []
    sizes: list[int] = []
    counts: list[int] = []
    for k, match in enumerate(matches):
        url = reverse("manage_result", args=[tournament.slug, match.pk])
        response, ms, queries = timed(
            client,
            "post",
            url,
            data={"csrfmiddlewaretoken": token[1], "result": RESULTS[k % len(RESULTS)]},
            headers={
                "HX-Request": "true",
                "HX-Target": f"match-{match.pk}",
                "HX-Current-URL": origin + round_url,
                "Origin": origin,
                "Referer": origin + round_url,
            },
        )
        check(response, f"POST {url} result={RESULTS[k % len(RESULTS)]}")
        if not Match.objects.filter(pk=match.pk, reported=True).exists():
            raise BenchError(f"POST {url}: answered {response.status_code} but not stored")
        times.append(ms)
        sizes.append(wire_bytes(response))
        counts.append(queries)

    # The keyboard's way in: "<table> 2-1" then Enter, on the next open tables.
    quick_url = reverse("manage_quick", args=[tournament.slug, ROUND])
    quick_times: list[float] = []
    quick_sizes: list[int] = []
    open_tables = list(
        Match.objects.filter(
            round__tournament=tournament, round__number=ROUND, kind="played", reported=False
        )
        .order_by("table")
        .values_list("table", flat=True)[:QUICK_POSTS]
    )
    for k, table in enumerate(open_tables):
        entry = f"{table} {RESULTS[k % len(RESULTS)]}"
        response, ms, _ = timed(
            client,
            "post",
            quick_url,
            data={"csrfmiddlewaretoken": token[1], "entry": entry},
            headers={"HX-Request": "true", "HX-Target": "quick", "Origin": origin,
                     "Referer": origin + round_url},
        )  # fmt: skip
        check(response, f"POST {quick_url} entry={entry}")
        quick_times.append(ms)
        quick_sizes.append(wire_bytes(response))

    # The round screen as the organizer reloads it during the round (warm).
    tables = Match.objects.filter(round__tournament=tournament, round__number=ROUND).count()
    screen_times: list[float] = []
    for _ in range(SCREEN_GETS):
        response, ms, screen_queries = timed(client, "get", round_url)
        check(response, f"GET {round_url}")
        screen_times.append(ms)
    screen_bytes = wire_bytes(response)
    per_table = screen_bytes / tables
    missing_response, missing_ms, _ = timed(client, "get", round_url + "?missing=1")
    check(missing_response, f"GET {round_url}?missing=1")

    # Round 1 of the same field: every player paired (1,024 tables at 2,048 players),
    # with names as long as real ones ("Valentina Okonkwo-Hart"), not "Player p12".
    first_round = import_event(with_real_length_names(document(players, 0)), owner)
    first_url = reverse("manage_round", args=[first_round.slug, 1])
    timed(client, "get", first_url)  # its first view loads nothing new: warm anyway
    first_times: list[float] = []
    for _ in range(SCREEN_GETS):
        response, ms, first_queries = timed(client, "get", first_url)
        check(response, f"GET {first_url}")
        first_times.append(ms)
    first_tables = Match.objects.filter(round__tournament=first_round).count()
    first_bytes = wire_bytes(response)

    event_url = reverse("manage_event", args=[tournament.slug])
    response, event_ms, event_queries = timed(client, "get", event_url)
    check(response, f"GET {event_url}")
    event_bytes = wire_bytes(response)
    event_times: list[float] = []
    for _ in range(SCREEN_GETS):
        response, ms, _ = timed(client, "get", event_url)
        check(response, f"GET {event_url}")
        event_times.append(ms)
        event_bytes = max(event_bytes, wire_bytes(response))

    warm = times[1:]
    median = statistics.median(warm)
    factor = TARGET_FACTOR.get(players, 0.60 if players > 2048 else 0.30)
    print(
        f"organizer result POST, {players:,} players, round {ROUND} open "
        f"(test client, SQLite, DEBUG off; import took {imported:.1f} s):\n"
        f"  first POST (cold, no snapshot): {times[0]:.1f} ms, {kb(sizes[0])}, "
        f"{counts[0]} queries\n"
        f"  next {len(warm)} POSTs: median {median:.1f} ms, p95 {pct(warm, 0.95):.1f} ms, "
        f"max {max(warm):.1f} ms; median {kb(statistics.median(sizes[1:]))}; "
        f"queries median {statistics.median(counts[1:]):.0f}, max {max(counts[1:])}\n"
        f"  {ratio_line('', median, factor)}\n"
        f"  target: bytes <= {TARGET_KB} kB (largest of all {len(sizes)}) -> "
        f"{kb(max(sizes))} {'OK' if max(sizes) <= TARGET_KB * 1024 else 'MISSED'}\n"
        f"  target: queries <= {TARGET_QUERIES} (most of all {len(counts)}) -> "
        f"{max(counts)} {'OK' if max(counts) <= TARGET_QUERIES else 'MISSED'}\n"
        f"  for information: round screen GET (first, full page) {round_ms:.0f} ms, "
        f"{kb(round_bytes)}, {round_queries} queries",
        flush=True,
    )
    event_median = statistics.median(event_times)
    print(
        f"event screen, {players:,} players, round {ROUND} open (full page): first GET "
        f"{event_ms:.1f} ms, {event_queries} queries; warm median of {SCREEN_GETS} "
        f"{event_median:.1f} ms, max {max(event_times):.1f} ms; {kb(event_bytes)}\n"
        f"  {ratio_line('', event_median, EVENT_FACTOR)}\n"
        f"  target: bytes <= {EVENT_TARGET_KB} kB -> {kb(event_bytes)} "
        f"{'OK' if event_bytes <= EVENT_TARGET_KB * 1024 else 'MISSED'}",
        flush=True,
    )
    screen_median = statistics.median(first_times)
    per_table = first_bytes / first_tables
    print(
        f"round screen, round 1, {first_tables:,} tables, real-length names (full page, "
        f"warm, median of {SCREEN_GETS}): {screen_median:.1f} ms, {kb(first_bytes)}, "
        f"{first_queries} queries\n"
        f"  {ratio_line('', screen_median, SCREEN_FACTOR)}\n"
        f"  target: bytes per table <= {TARGET_BYTES_PER_TABLE} -> {per_table:.0f} "
        f"{'OK' if per_table <= TARGET_BYTES_PER_TABLE else 'MISSED'}",
        flush=True,
    )
    screen_median = statistics.median(screen_times)
    per_table = screen_bytes / tables
    print(
        f"round screen, {tables:,} tables (full page, warm, median of {SCREEN_GETS}): "
        f"{screen_median:.1f} ms, {kb(screen_bytes)}, {screen_queries} queries; "
        f"missing-only {missing_ms:.1f} ms, {kb(wire_bytes(missing_response))}\n"
        f"  {ratio_line('', screen_median, SCREEN_FACTOR)}\n"
        f"  target: bytes per table <= {TARGET_BYTES_PER_TABLE} -> {per_table:.0f} "
        f"{'OK' if per_table <= TARGET_BYTES_PER_TABLE else 'MISSED'}\n"
        f"  quick entry POST ({len(quick_times)}, HTMX): median "
        f"{statistics.median(quick_times):.1f} ms, p95 {pct(quick_times, 0.95):.1f} ms, "
        f"median {kb(statistics.median(quick_sizes))}",
        flush=True,
    )
    equal, detail = standings_equal_full_recompute(tournament)
    print(f"  standings equal a full recompute: {'yes' if equal else 'NO'} ({detail})")
    if not equal:
        raise BenchError("stored standings differ from a full recompute")


FIRST = ["Valentina", "Oluwaseun", "Anna-Lena", "Mateusz", "Hiroshi", "Camille", "Ben",
         "Siobhán", "Dmitri", "Priya", "José Luis", "Fatima"]  # fmt: skip
LAST = ["Okonkwo-Hart", "Nguyen", "van der Berg", "Kowalczyk", "Yamamoto", "Lefebvre",
        "O'Brien", "Rossi", "Gonzalez Ruiz", "Haddad", "Svensson", "Schmidt"]  # fmt: skip


def with_real_length_names(doc: dict[str, Any]) -> dict[str, Any]:
    for i, p in enumerate(doc["players"]):
        p["name"] = f"{FIRST[i % len(FIRST)]} {LAST[(i // len(FIRST)) % len(LAST)]} {i}"
    doc["name"] = f"{doc['name']} round 1"
    return doc


def setup_environment(tmp: str) -> None:
    os.environ.update(
        DEBUG="0", SECRET_KEY="bench-only", ALLOWED_HOSTS=HOST,
        DJANGO_SETTINGS_MODULE="tournaments.settings",
        DATABASE_URL=f"sqlite:///{tmp}/organizer.sqlite3", LIVE_PREWARM="0",
    )  # fmt: skip
    os.environ.pop("REDIS_URL", None)  # the per-process cache, as one worker has


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2048, 8192])
    parser.add_argument("--posts", type=int, help="POSTs per size (default 40; 25 at 8,192+)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.child:
        print_calibration()
        os.environ[CALIBRATION_ENV] = repr(calibration_ms())
        # DEBUG off serves static URLs from the manifest: build it, as a deploy does.
        env = {**os.environ, "DEBUG": "0", "SECRET_KEY": "bench-only"}
        subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                       cwd=ROOT, check=True, env=env)  # fmt: skip
    if len(args.players) > 1:
        # One process and one fresh database per size: nothing carries over between them.
        failed = 0
        for n in args.players:
            cmd = [sys.executable, __file__, "--child", "--players", str(n)]
            if args.posts:
                cmd += ["--posts", str(args.posts)]
            failed |= subprocess.call(cmd, cwd=ROOT)
        sys.exit(failed)
    players = args.players[0]
    posts = args.posts or (25 if players >= 8192 else 40)
    with tempfile.TemporaryDirectory() as tmp:
        setup_environment(tmp)
        import django

        django.setup()
        try:
            run(players, posts)
        except BenchError as exc:
            print(f"bench_organizer: FAILED: {exc}", flush=True)
            sys.exit(1)


if __name__ == "__main__":
    main()
