"""Benchmark the Swiss engine: time to pair round 8 of a large Swiss.

Rounds 1-7 are paired by the engine itself with random results (about 10 % draws,
rematches forbidden, so the field's history is realistic); round 8 is then timed and
its cost compared with the provable lower bound (`lower_bound`); meeting the bound
proves the pairing optimal.

A second, harsher scenario (40 % draws, round 12) makes the greedy miss the bound more
often, so the exact pool refinement runs at full scale; its result is then checked
against the lower bound only (a whole-field exact matching would take minutes).

Run: .venv/bin/python bench/bench_pairing.py [--exact] [player counts...]
(--exact also runs the whole-field O(n^3) matching when the bound is not met: about a
minute per case at 2,048 players.)
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.pairing.swiss import (
    SwissPlayer,
    cost,
    lower_bound,
    pair_swiss,
    pair_swiss_exact,
)

WIN, DRAW = 3, 1


def simulate(n: int, rounds: int, seed: int, draw_rate: float) -> tuple[list[SwissPlayer], float]:
    """Play `rounds` random rounds; return the field before the next round and the
    slowest of those rounds' pairing times."""
    rng = random.Random(seed)
    points = {f"p{i:05d}": 0 for i in range(n)}
    opponents: dict[str, list[str]] = {pid: [] for pid in points}
    had_bye = dict.fromkeys(points, False)
    slowest = 0.0
    for _ in range(rounds):
        field = [SwissPlayer(p, points[p], tuple(opponents[p]), had_bye[p]) for p in points]
        start = time.perf_counter()
        pairing = pair_swiss(field, rng)
        slowest = max(slowest, time.perf_counter() - start)
        assert cost(field, pairing).rematches == 0
        for a, b in pairing.tables:
            opponents[a].append(b)
            opponents[b].append(a)
            x = rng.random()
            if x < draw_rate:
                points[a] += DRAW
                points[b] += DRAW
            elif x < (1 + draw_rate) / 2:
                points[a] += WIN
            else:
                points[b] += WIN
        if pairing.bye is not None:
            points[pairing.bye] += WIN
            had_bye[pairing.bye] = True
    field = [SwissPlayer(p, points[p], tuple(opponents[p]), had_bye[p]) for p in points]
    return field, slowest


def bench(
    n: int, seeds: range, rounds: int = 8, draw_rate: float = 0.1, exact: bool = False
) -> None:
    worst = 0.0
    for seed in seeds:
        field, earlier = simulate(n, rounds - 1, seed, draw_rate)
        groups = len({p.points for p in field})
        start = time.perf_counter()
        pairing = pair_swiss(field, random.Random(seed))
        elapsed = time.perf_counter() - start
        worst = max(worst, elapsed)
        achieved = cost(field, pairing)
        bound = lower_bound(field)
        if achieved == bound:
            verdict = "optimal (meets bound)"
        elif exact:
            start = time.perf_counter()
            oracle = cost(field, pair_swiss_exact(field, random.Random(seed)))
            took = time.perf_counter() - start
            same = "equal: optimal" if oracle == achieved else "DIFFERENT"
            verdict = f"bound not tight; whole-field exact {tuple(oracle)} ({took:.0f} s): {same}"
        else:
            verdict = "bound not tight here (optimal by the pool refinement's proof)"
        print(
            f"{n:>6} players seed {seed}: round {rounds} paired in {elapsed:.3f} s "
            f"(rounds 1-{rounds - 1} max {earlier:.3f} s), {groups} point groups\n"
            f"        cost {tuple(achieved)} vs lower bound {tuple(bound)}: {verdict}"
        )
    print(f"{n:>6} players: worst round-{rounds} time {worst:.3f} s over {len(seeds)} seeds\n")


def main() -> None:
    from calibration import print_calibration

    print_calibration()
    exact = "--exact" in sys.argv
    sizes = [int(a) for a in sys.argv[1:] if a != "--exact"] or [2048, 8192]
    print("cost = (rematches, bye_repeat, bye_points, squared_diff, unequal_pairs)\n")
    print("== round 8, 10 % draws ==")
    for n in sizes:
        bench(n, range(3))
    print("== harsher: round 12, 40 % draws ==")
    for n in sizes:
        bench(n, range(3), rounds=12, draw_rate=0.4, exact=exact)


if __name__ == "__main__":
    main()
