"""Benchmark the Swiss engine: time to pair round 8 of a large Swiss.

Rounds 1-7 are paired by the engine itself with random results (about 10 % draws,
rematches forbidden, so the field's history is realistic); round 8 is then timed and
its cost compared with the provable lower bound (`lower_bound`); meeting the bound
proves the pairing optimal.

A second, harsher scenario (40 % draws, round 12) makes the greedy miss the bound more
often, so the exact pool refinement runs at full scale; its result is then checked
against the lower bound only (a whole-field exact matching would take minutes).

The late-round scenario is issue 15's target: rounds 12-15 of a large event with 20 %
draws and 2 % of the field dropping after every round, each paired at a cost proven
optimal (equal to `lower_bound`) in <= 0.3 s on a machine whose calibration figure is
165 ms (the limit scales with this machine's figure).  The event starts big enough that
8,192 players are still active in round 15 (so every timed round pairs at least that
many); each timed round is the median of three pairings of the same field.

The last scenario times the two fields tests/unit/test_pairing_swiss.py pairs (round 8 of
1,024 players; round 15 of 1,200 registered with drops), whose wall-clock asserts (1.0 s
and 0.5 s) moved here (issue 23): a test checks that the pairing is right, this prints
how long it took against a target stated as a multiple of the calibration figure.

Run: .venv/bin/python bench/bench_pairing.py [--exact] [player counts...]
(--exact also runs the whole-field O(n^3) matching when the bound is not met: about a
minute per case at 2,048 players.)
"""

from __future__ import annotations

import gc
import random
import statistics
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


def simulate(
    n: int, rounds: int, seed: int, draw_rate: float, drop_rate: float = 0.0
) -> tuple[list[SwissPlayer], float]:
    """Play `rounds` random rounds (`drop_rate` of the field dropping after each);
    return the field before the next round and the slowest of those rounds' pairing
    times."""
    rng = random.Random(seed)
    points = {f"p{i:05d}": 0 for i in range(n)}
    opponents: dict[str, list[str]] = {pid: [] for pid in points}
    had_bye = dict.fromkeys(points, False)
    playing = list(points)
    slowest = 0.0
    for _ in range(rounds):
        field = [SwissPlayer(p, points[p], tuple(opponents[p]), had_bye[p]) for p in playing]
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
        if drop_rate:
            drops = set(rng.sample(playing, round(len(playing) * drop_rate)))
            playing = [p for p in playing if p not in drops]
    field = [SwissPlayer(p, points[p], tuple(opponents[p]), had_bye[p]) for p in playing]
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


LATE_ROUNDS = (12, 13, 14, 15)
# Issue 15: 0.3 s on a machine whose calibration figure is 165 ms, scaled to this one.
LATE_TARGET_S = 0.3
LATE_TARGET_CALIBRATION_MS = 165.0


def late_start(active: int, last_round: int, drop_rate: float) -> int:
    """Players to register so that `active` are left in `last_round` after the drops."""
    n = active
    while True:
        left = n
        for _ in range(last_round - 1):
            left -= round(left * drop_rate)
        if left >= active:
            return n
        n += 1


def simulate_late(
    active: int, seed: int, draw_rate: float = 0.2, drop_rate: float = 0.02
) -> list[tuple[int, int, float, float, tuple[int, ...], tuple[int, ...]]]:
    """Play a whole event to its last late round; for each of `LATE_ROUNDS` return
    (round, active players, median pairing time, its CPU time, achieved cost, lower
    bound).  The CPU time shows when a busy machine, not the engine, made a case slow."""
    rng = random.Random(seed)
    n = late_start(active, LATE_ROUNDS[-1], drop_rate)
    points = {f"p{i:05d}": 0 for i in range(n)}
    opponents: dict[str, list[str]] = {pid: [] for pid in points}
    had_bye = dict.fromkeys(points, False)
    playing = list(points)
    out = []
    for rnd in range(1, LATE_ROUNDS[-1] + 1):
        field = [SwissPlayer(p, points[p], tuple(opponents[p]), had_bye[p]) for p in playing]
        if rnd in LATE_ROUNDS:
            times, cpu = [], []
            for _ in range(3):
                gc.collect()  # the simulation's garbage is not this round's cost
                start, start_cpu = time.perf_counter(), time.process_time()
                pairing = pair_swiss(field, random.Random(seed * 100 + rnd))
                times.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
            achieved, bound = cost(field, pairing), lower_bound(field)
            median, median_cpu = statistics.median(times), statistics.median(cpu)
            out.append((rnd, len(field), median, median_cpu, tuple(achieved), tuple(bound)))
        else:
            pairing = pair_swiss(field, rng)
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
        drops = set(rng.sample(playing, round(len(playing) * drop_rate)))
        playing = [p for p in playing if p not in drops]
    return out


def bench_late(active: int, seeds: range) -> bool:
    """Print every late-round case against the target; True if all met it."""
    from calibration import calibration_ms

    limit = LATE_TARGET_S * calibration_ms() / LATE_TARGET_CALIBRATION_MS
    start = late_start(active, LATE_ROUNDS[-1], 0.02)
    print(
        f"{active:,} players active in round {LATE_ROUNDS[-1]} ({start:,} registered), "
        f"target <= {LATE_TARGET_S} s x calibration / {LATE_TARGET_CALIBRATION_MS:.0f} ms "
        f"= {limit:.3f} s at proven optimal cost"
    )
    times = []
    met = True
    for seed in seeds:
        for rnd, players, took, took_cpu, achieved, bound in simulate_late(active, seed):
            proven = achieved == bound
            ok = proven and took <= limit
            met &= ok
            times.append(took)
            print(
                f"  seed {seed} round {rnd}: {players:,} players paired in {took:.3f} s "
                f"(CPU {took_cpu:.3f} s), "
                f"cost {achieved} {'==' if proven else '>'} lower bound {bound}: "
                f"{'proven optimal' if proven else 'NOT proven optimal'} -> "
                f"{'OK' if ok else 'MISSED'}"
            )
    print(
        f"target: late round (12-15) of {active:,} players <= {limit:.3f} s, proven optimal: "
        f"median {statistics.median(times):.3f} s, worst {max(times):.3f} s over "
        f"{len(times)} cases -> {'OK' if met else 'MISSED'}\n"
    )
    return met


# The fields tests/unit/test_pairing_swiss.py pairs. Their former asserts (1.0 s, 0.5 s)
# are the targets, as multiples of calibration: the same limits on a machine whose
# calibration figure is 165 ms (the reference the targets above use).
UNIT_CASES = (
    # label, players registered, rounds played before the timed one, draws, drops, factor
    ("round 8 of 1,024 players, 15 % draws", 1024, 7, 0.15, 0.0, 6.0),
    ("round 15 of 1,200 registered, 20 % draws, 2 % drops", 1200, 14, 0.2, 0.02, 3.0),
)


def bench_unit_cases(seeds: range, repeats: int = 5) -> bool:
    """Time the unit tests' fields (median of `repeats` pairings per seed, the median
    over all seeds against the target); True if every case met its target."""
    from calibration import ratio_line

    met = True
    for label, n, played, draw_rate, drop_rate, factor in UNIT_CASES:
        times = []
        for seed in seeds:
            field, _ = simulate(n, played, seed, draw_rate, drop_rate)
            took = []
            for _ in range(repeats):
                gc.collect()  # the simulation's garbage is not this round's cost
                start = time.perf_counter()
                pairing = pair_swiss(field, random.Random(seed))
                took.append(time.perf_counter() - start)
            times += took
            achieved, bound = cost(field, pairing), lower_bound(field)
            proven = achieved == bound
            print(
                f"  seed {seed}: {len(field):,} players paired in "
                f"{statistics.median(took) * 1000:.1f} ms (median of {repeats}), "
                f"cost {tuple(achieved)} {'==' if proven else '>'} lower bound "
                f"{tuple(bound)}: {'proven optimal' if proven else 'NOT proven optimal'}"
            )
        line = ratio_line(f"{label} ", statistics.median(times) * 1000, factor)
        met &= line.endswith("OK")
        print(line)
    print()
    return met


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
    print("== late rounds 12-15, 20 % draws, 2 % drops per round (issue 15) ==")
    bench_late(8192, range(3))
    print("== the unit tests' fields (tests/unit/test_pairing_swiss.py) ==")
    bench_unit_cases(range(3))


if __name__ == "__main__":
    main()
