"""A machine-speed yardstick every benchmark prints first, so figures compare across machines.

The workload is fixed and plain Python (no numpy, nothing from the app): 8,192 players x
15 rounds of two-player best-of-three results, generated once with a fixed seed (not
timed), then ONE straightforward float pass over them computing every player's match-win
% and game-win % (both floored at 0.33) and the averages of their opponents' (OMW%,
OGW%), as the Magic Tournament Rules define them. Players are string ids in dicts, as a
first honest implementation would have them; no Fractions, no tricks either way.

The figure is the best of 5 timed passes after one warm-up, in ms, with the cyclic
garbage collector paused during each pass (collected before it) so the figure does not
depend on thresholds the caller set. A target "median <= 0.3x calibration" then reads
the same on a fast laptop and a slow CI runner.

Run alone: .venv/bin/python bench/calibration.py
"""

from __future__ import annotations

import gc
import os
import random
import time

PLAYERS = 8192
ROUNDS = 15
SEED = 20240610
RUNS = 5
ENV = "BENCH_CALIBRATION_MS"
DESCRIPTION = f"plain-Python float MW%/GW%/OMW%/OGW% pass, {PLAYERS:,} players x {ROUNDS} rounds"

# Best-of-three outcomes (games won by each player, drawn games) and their weights.
OUTCOMES = (((2, 0, 0), 40), ((2, 1, 0), 40), ((1, 1, 1), 4), ((0, 0, 3), 3), ((1, 0, 0), 3))

Match = tuple[str, str, int, int, int]  # player a, player b, games a, games b, drawn games

_cached: float | None = None


def make_rounds(
    players: int = PLAYERS, rounds: int = ROUNDS, seed: int = SEED
) -> list[list[Match]]:
    """Random pairings each round (an even field: no byes) with weighted results."""
    rng = random.Random(seed)
    ids = [f"p{i}" for i in range(1, players + 1)]
    population = [o for o, _ in OUTCOMES]
    weights = [w for _, w in OUTCOMES]
    result: list[list[Match]] = []
    for _ in range(rounds):
        order = list(ids)
        rng.shuffle(order)
        matches: list[Match] = []
        for a, b in zip(order[::2], order[1::2], strict=True):
            wa, wb, draws = rng.choices(population, weights)[0]
            if rng.random() < 0.5:
                wa, wb = wb, wa
            matches.append((a, b, wa, wb, draws))
        result.append(matches)
    return result


def tiebreakers(rounds: list[list[Match]]) -> dict[str, tuple[float, float, float, float]]:
    """One float pass: player id -> (MW%, GW%, OMW%, OGW%)."""
    match_points: dict[str, int] = {}
    matches_played: dict[str, int] = {}
    game_points: dict[str, int] = {}
    games_played: dict[str, int] = {}
    opponents: dict[str, list[str]] = {}
    for matches in rounds:
        for a, b, wa, wb, draws in matches:
            games = wa + wb + draws
            if wa > wb:
                pa, pb = 3, 0
            elif wb > wa:
                pa, pb = 0, 3
            else:
                pa = pb = 1
            for p, q, mp, gw in ((a, b, pa, wa), (b, a, pb, wb)):
                match_points[p] = match_points.get(p, 0) + mp
                matches_played[p] = matches_played.get(p, 0) + 1
                game_points[p] = game_points.get(p, 0) + 3 * gw + draws
                games_played[p] = games_played.get(p, 0) + games
                opponents.setdefault(p, []).append(q)
    mw: dict[str, float] = {}
    gw_: dict[str, float] = {}
    for p, played in matches_played.items():
        mw[p] = max(0.33, match_points[p] / (3 * played))
        games = games_played[p]
        gw_[p] = max(0.33, game_points[p] / (3 * games)) if games else 0.33
    result: dict[str, tuple[float, float, float, float]] = {}
    for p, opps in opponents.items():
        omw = sum(mw[q] for q in opps) / len(opps)
        ogw = sum(gw_[q] for q in opps) / len(opps)
        result[p] = (mw[p], gw_[p], omw, ogw)
    return result


def measure(runs: int = RUNS) -> float:
    """Best of `runs` timed passes after one warm-up, in ms (generation not timed)."""
    rounds = make_rounds()
    expected = tiebreakers(rounds)  # warm-up
    assert len(expected) == PLAYERS
    best = float("inf")
    enabled = gc.isenabled()
    try:
        for _ in range(runs):
            gc.collect()
            gc.disable()
            start = time.perf_counter()
            got = tiebreakers(rounds)
            elapsed = (time.perf_counter() - start) * 1000
            gc.enable()
            assert got == expected
            best = min(best, elapsed)
            del got
    finally:
        if enabled:
            gc.enable()
        else:
            gc.disable()
    return best


def calibration_ms() -> float:
    """The figure for this process: from BENCH_CALIBRATION_MS if `run.py` passed it on,
    else measured once and cached."""
    global _cached
    if _cached is None:
        raw = os.environ.get(ENV, "")
        try:
            _cached = float(raw) if raw else None
        except ValueError:
            _cached = None
        if _cached is None or _cached <= 0:
            _cached = measure()
    return _cached


def print_calibration() -> float:
    ms = calibration_ms()
    print(f"calibration: {ms:.1f} ms ({DESCRIPTION})", flush=True)
    return ms


def ratio_line(label: str, measured_ms: float, factor: float) -> str:
    """`target: <label> median <= 0.30x calibration = 49.6 ms -> 38.2 ms OK`."""
    limit = factor * calibration_ms()
    verdict = "OK" if measured_ms <= limit else "MISSED"
    return (
        f"target: {label}median <= {factor:.2f}x calibration = {limit:.1f} ms -> "
        f"{measured_ms:.1f} ms ({measured_ms / calibration_ms():.2f}x) {verdict}"
    )


if __name__ == "__main__":
    os.environ.pop(ENV, None)
    print_calibration()
