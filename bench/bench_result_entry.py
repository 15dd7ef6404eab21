"""Benchmark: one result entry (write + recompute + stored standings) on SQLite.

Run: .venv/bin/python bench/bench_result_entry.py [--players 2048 8192] [--round 10]

Builds an event with `round - 1` complete Swiss rounds (bench_engine's generator) plus a
paired round without results, imports it into a fresh SQLite file, then enters results
of the open round one by one through tournaments.services.record_result, as staff do.
Prints the first entry (cold: full read of every match) and the median and p95 of the
following ones (the patched snapshot path), in ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def document(players: int, played_rounds: int) -> dict[str, Any]:
    from bench_engine import make_event

    event = make_event(players, played_rounds + 1, seed=7)
    doc: dict[str, Any] = {
        "format": "swiss-tournament/1",
        "name": f"Bench {players}",
        "system": "mtr",
        "best_of": 3,
        "seed": 1,
        "players": [{"id": p.id, "name": f"Player {p.id}"} for p in event.players],
        "rounds": [],
    }
    for rnd in event.rounds:
        open_round = rnd.number == played_rounds + 1
        matches = []
        for table, m in enumerate(rnd.matches, start=1):
            entry: dict[str, Any] = {"table": table, "players": list(m.players)}
            if m.kind in ("bye", "loss"):
                entry[m.kind] = True
            elif not open_round:
                entry["wins"], entry["draws"] = list(m.wins or (0, 0)), m.draws
                if m.kind == "double_loss":
                    entry["result"] = "double_loss"
            matches.append(entry)
        doc["rounds"].append({"number": rnd.number, "phase": 1, "matches": matches})
    return doc


def run(players: int, at_round: int, entries: int) -> dict[str, float]:
    from django.core.management import call_command

    from scoring.services import forget_snapshots
    from tournaments import services
    from tournaments.models import Match, MatchKind
    from tournaments.services import import_document

    call_command("migrate", verbosity=0)
    t0 = time.perf_counter()
    tournament = import_document(document(players, at_round - 1))
    imported = time.perf_counter() - t0
    forget_snapshots()
    matches = list(
        Match.objects.filter(
            round__tournament=tournament, round__number=at_round, kind=MatchKind.PLAYED
        ).order_by("table")[:entries]
    )
    results = [((2, 0), 0), ((2, 1), 0), ((1, 2), 0), ((0, 2), 0), ((1, 1), 1)]
    times = []
    for k, match in enumerate(matches):
        wins, draws = results[k % len(results)]
        start = time.perf_counter()
        services.record_result(match=match, wins=wins, draws=draws)
        times.append((time.perf_counter() - start) * 1000)
    warm = sorted(times[1:])
    # Two gunicorn workers taking turns: each one's snapshot missed the other's write and
    # catches up from the change records instead of reading every match.
    from scoring.services import _snapshots

    more = list(
        Match.objects.filter(
            round__tournament=tournament, round__number=at_round, kind=MatchKind.PLAYED,
            reported=False,
        ).order_by("table")[:entries]
    )  # fmt: skip
    workers = [_snapshots[tournament.pk]] * 2
    alternating = []
    for k, match in enumerate(more):
        _snapshots[tournament.pk] = workers[k % 2]
        wins, draws = results[k % len(results)]
        start = time.perf_counter()
        services.record_result(match=match, wins=wins, draws=draws)
        alternating.append((time.perf_counter() - start) * 1000)
        workers[k % 2] = _snapshots[tournament.pk]
    alternating = sorted(alternating[2:])
    return {
        "alternating_ms": statistics.median(alternating),
        "import_s": imported,
        "cold_ms": times[0],
        "median_ms": statistics.median(warm),
        "p95_ms": warm[int(0.95 * (len(warm) - 1))],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, nargs="+", default=[2048, 8192])
    parser.add_argument("--round", type=int, default=10)
    parser.add_argument("--entries", type=int, default=40)
    args = parser.parse_args()
    from calibration import print_calibration

    print_calibration()
    os.environ.setdefault("DEBUG", "1")
    os.environ["DJANGO_SETTINGS_MODULE"] = "tournaments.settings"
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
        import django

        django.setup()
        for n in args.players:
            r = run(n, args.round, args.entries)
            print(
                f"result entry, {n} players at round {args.round} (SQLite): "
                f"median {r['median_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms over "
                f"{args.entries - 1} entries; first entry after start {r['cold_ms']:.0f} ms "
                f"(full read); import took {r['import_s']:.1f} s; two workers taking turns "
                f"(catching up on each other's write): median {r['alternating_ms']:.1f} ms"
            )


if __name__ == "__main__":
    main()
