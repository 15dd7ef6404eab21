"""Benchmark: "what do I need?" for every player before the last round (issue 15).

Run: .venv/bin/python bench/bench_outlook.py [--players 2048] [--rounds 11] [--cut 8]
     [--simulations 2000] [--runs 3] [--rounds-after 0]

The event is bench_engine's Swiss-like generator (drops, byes, draws, no-shows) cut
before its last round: that round is paired and none of its results is in. Times
scoring.engine.outlook.compute_outlook (every eligible player's certain answers and
chances after a win, a draw and a loss, every table's draw) over `--runs` runs and
prints the median beside the calibration figure. Target (issue 15): 2,048 players,
2,000 simulations, <= 10 s on a 2-core machine whose calibration is about 165 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from scoring.engine.outlook import Certain, ChanceEstimate, compute_outlook  # noqa: E402
from scoring.engine.records import PLAYED, EventRecord, MatchRecord, RoundRecord  # noqa: E402

TARGET_S = 10.0
TARGET_CALIBRATION_MS = 165.0


def before_last_round(players: int, rounds: int, seed: int = 1) -> EventRecord:
    from bench_engine import make_event

    event = make_event(players, rounds, seed=seed)
    last = event.rounds[-1]
    opened = RoundRecord(
        last.number,
        tuple(
            MatchRecord(kind=PLAYED, players=m.players) if m.kind == PLAYED else m
            for m in last.matches
        ),
        last.phase,
    )
    return EventRecord(
        event.system, event.players, (*event.rounds[:-1], opened), event.best_of, event.seed
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=2048)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--rounds-after", type=int, default=0)
    parser.add_argument("--cut", type=int, default=8)
    parser.add_argument("--simulations", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from calibration import print_calibration

    calibration = print_calibration()
    # Cut before round `rounds - rounds_after`: that round is the current one.
    event = before_last_round(args.players, args.rounds - args.rounds_after)
    timings: list[float] = []
    cpu: list[float] = []
    for run in range(args.runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        outlook = compute_outlook(
            event,
            rounds_after=args.rounds_after,
            cut=args.cut,
            rng=random.Random(run),
            simulations=args.simulations,
        )
        timings.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    players = outlook.players
    sure_in = sum(p.certain == "in" for p in players)
    sure_out = sum(p.certain == "out" for p in players)
    figures = sum(isinstance(c, ChanceEstimate) for p in players for c in p.chance_after.values())
    both_in = sum(t.draw_puts_both_in for t in outlook.tables)
    proven = sum(isinstance(c, Certain) for p in players for c in p.chance_after.values())
    print(
        f"outlook {args.players} players, round {outlook.round} of {args.rounds} "
        f"({args.rounds_after} after), top {args.cut}, {args.simulations} simulations: "
        f"{len(players)} active, {sure_in} in / {sure_out} out whatever happens, "
        f"{len(players) - sure_in - sure_out} simulated; {proven} proven and {figures} "
        f"simulated figures; {both_in} tables where a draw puts both in; "
        f"margin of error {outlook.margin_of_error:.1%}"
    )
    median = statistics.median(timings)
    print(
        f"time: median {median:.2f} s, best {min(timings):.2f} s "
        f"(best CPU {min(cpu):.2f} s) over {args.runs} runs"
    )
    limit = TARGET_S * calibration / TARGET_CALIBRATION_MS
    verdict = "OK" if median <= limit else "MISSED"
    print(
        f"target: <= {TARGET_S:.0f} s on a {TARGET_CALIBRATION_MS:.0f} ms machine, "
        f"scaled: <= {limit:.1f} s -> {median:.2f} s {verdict}"
    )


if __name__ == "__main__":
    main()
