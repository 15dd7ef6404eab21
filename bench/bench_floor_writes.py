"""Benchmark: the floor's writes over HTTP (issue 27), as a judge's phone sends them.

Run: .venv/bin/python bench/bench_floor_writes.py [--players 2048] [--posts N]

The event of bench_organizer (9 complete Swiss rounds, round 10 paired without results,
names as long as real ones), on a fresh temporary SQLite file, its round clock running.
Through Django's test Client, the whole middleware stack, DEBUG off, HTTPS, CSRF enforced
and a real session of a floor judge (a staff member with that role):

1. GET the judges' tables screen once (warm), take the CSRF token;
2. POST "+5 min" to N different open tables (default 40) with `HX-Request: true`, as the
   quick form sends it: an extension is a write like a result (the lock, the audit entry,
   the version), so its target is a result's: median <= 0.30x calibration;
3. POST a deck check's start then its finish at 10 more tables (HX), the same target;
4. POST a penalty (a Warning for Slow Play) to a player of each extended table (HX), the
   same target.

Per POST: wall time around the client call (ms), with the database connection closed
before it as in production; bytes as sent; SQL queries. A missed target prints MISSED
(exit code 0); an HTTP error or a write that was not stored exits non-zero.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_organizer import (  # noqa: E402
    CSRF_RE,
    ROUND,
    BenchError,
    check,
    import_event,
    kb,
    pct,
    setup_environment,
    timed,
    wire_bytes,
    with_real_length_names,
)
from calibration import ENV as CALIBRATION_ENV  # noqa: E402
from calibration import calibration_ms, print_calibration, ratio_line  # noqa: E402

TARGET_FACTOR = 0.30  # x calibration, for the median: a result's (issue 10)
CHECKS = 10


def figures(label: str, times: list[float], sizes: list[int], counts: list[int]) -> None:
    print(
        f"  {label}: first {times[0]:.1f} ms, then median {statistics.median(times[1:]):.1f} / "
        f"p95 {pct(times[1:], 0.95):.1f} / max {max(times[1:]):.1f} ms; "
        f"largest {kb(max(sizes))}, most queries {max(counts)}",
        flush=True,
    )
    print("  " + ratio_line(f"{label} ", statistics.median(times[1:]), TARGET_FACTOR), flush=True)


def run(players: int, posts: int) -> None:
    from bench_result_entry import document
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    from tournaments.models import DeckCheck, Match, Penalty, Round, Seat, TimeExtension
    from tournaments.services.clock import start_clock
    from tournaments.services.staff import add_staff

    call_command("migrate", verbosity=0)
    users = get_user_model().objects
    owner = users.create_user("bench-organizer", password=None)
    judge = users.create_user("bench-judge", password=None)
    t0 = time.perf_counter()
    tournament = import_event(with_real_length_names(document(players, ROUND - 1)), owner)
    imported = time.perf_counter() - t0
    add_staff(tournament=tournament, username=judge.username, role="floor_judge", by=owner)
    start_clock(round=Round.objects.get(tournament=tournament, number=ROUND), minutes=50, by=owner)
    tables = list(
        Match.objects.filter(
            round__tournament=tournament, round__number=ROUND, kind="played", reported=False
        )
        .order_by("table")
        .values_list("table", flat=True)[: posts + CHECKS]
    )
    if len(tables) < posts + CHECKS:
        raise BenchError(f"only {len(tables)} open tables in round {ROUND}")
    print(
        f"{players:,} players, round {ROUND} paired ({players // 2:,} tables); "
        f"imported in {imported:.1f} s",
        flush=True,
    )

    client = Client(enforce_csrf_checks=True)
    client.force_login(judge)
    origin = "https://testserver"
    screen = reverse("judge_tables", args=[tournament.slug])
    response, ms, queries = timed(client, "get", screen)
    check(response, f"GET {screen}")
    print(f"  tables screen: {ms:.1f} ms, {kb(wire_bytes(response))}, {queries} queries")
    token = CSRF_RE.search(response.content.decode())
    if token is None:
        raise BenchError(f"GET {screen}: no csrfmiddlewaretoken")
    hx = {"HX-Request": "true", "Origin": origin, "Referer": origin + screen}

    times: list[float] = []
    sizes: list[int] = []
    counts: list[int] = []
    extend = reverse("judge_extend", args=[tournament.slug])
    for number in tables[:posts]:
        data = {"csrfmiddlewaretoken": token.group(1), "table": str(number), "quick": "5"}
        response, ms, queries = timed(client, "post", extend, data=data, headers=hx)
        check(response, f"POST {extend} table {number}")
        times.append(ms)
        sizes.append(wire_bytes(response))
        counts.append(queries)
    stored = TimeExtension.objects.filter(match__round__tournament=tournament).count()
    if stored != posts:
        raise BenchError(f"{stored} extensions stored, {posts} posted")
    figures("+5 min", times, sizes, counts)

    times, sizes, counts = [], [], []
    start = reverse("judge_deck_check_start", args=[tournament.slug])
    for number in tables[posts:]:
        data = {"csrfmiddlewaretoken": token.group(1), "table": str(number)}
        response, ms, queries = timed(client, "post", start, data=data, headers=hx)
        check(response, f"POST {start} table {number}")
        check_ = DeckCheck.objects.get(match__round__tournament=tournament, match__table=number)
        finish = reverse("judge_deck_check_finish", args=[tournament.slug, check_.pk])
        data = {"csrfmiddlewaretoken": token.group(1), "note": ""}
        response, ms2, queries2 = timed(client, "post", finish, data=data, headers=hx)
        check(response, f"POST {finish}")
        times += [ms, ms2]
        sizes += [wire_bytes(response)]
        counts += [queries, queries2]
    figures("deck check start/finish", times, sizes, counts)

    # 4. A penalty, as the judges' penalties screen sends it: a Warning for Slow Play to a
    # player of each extended table (a write like a result: the same target).
    times, sizes, counts = [], [], []
    issue = reverse("judge_penalty_issue", args=[tournament.slug])
    penalized = list(
        Seat.objects.filter(match__round__tournament=tournament, match__round__number=ROUND)
        .filter(match__table__in=tables[:posts], position=0)
        .values_list("player_id", flat=True)
    )
    for player in penalized:
        data = {
            "csrfmiddlewaretoken": token.group(1),
            "player": str(player),
            "infraction": "slow_play",
            "penalty": "warning",
            "note": "",
        }
        response, ms, queries = timed(client, "post", issue, data=data, headers=hx)
        check(response, f"POST {issue} player {player}")
        times.append(ms)
        sizes.append(wire_bytes(response))
        counts.append(queries)
    stored = Penalty.objects.filter(tournament=tournament).count()
    if stored != len(penalized):
        raise BenchError(f"{stored} penalties stored, {len(penalized)} posted")
    figures("penalty (warning)", times, sizes, counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2048)
    parser.add_argument("--posts", type=int, default=40)
    args = parser.parse_args()
    print_calibration()
    os.environ[CALIBRATION_ENV] = repr(calibration_ms())
    # DEBUG off serves static URLs from the manifest: build it, as a deploy does.
    env = {**os.environ, "DEBUG": "0", "SECRET_KEY": "bench-only"}
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                   cwd=ROOT, check=True, env=env)  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        setup_environment(tmp)
        import django

        django.setup()
        try:
            run(args.players, args.posts)
        except BenchError as exc:
            print(f"bench_floor_writes: FAILED: {exc}", flush=True)
            sys.exit(1)


if __name__ == "__main__":
    main()
