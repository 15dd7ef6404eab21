"""The engine's entry point: `compute_standings(event, after_round=None) -> Standings`."""

from __future__ import annotations

from . import league, mtr, mtr_fast, pod
from .mtr import SWISS_SYSTEMS
from .records import EventRecord, RoundRecord, StandingRow, Standings

__all__ = ["SWISS_SYSTEMS", "compute_standings", "rounds_with_results"]


def rounds_with_results(event: EventRecord, after_round: int | None = None) -> list[RoundRecord]:
    """The rounds that count for standings after `after_round` (all rounds when None).

    Rounds numbered after `after_round` are ignored entirely, and so is every match without
    a result yet: it is not a round played. A round left with no result at all is dropped.
    """
    kept: list[RoundRecord] = []
    for round_ in event.rounds:
        if after_round is not None and round_.number > after_round:
            continue
        if any(match.has_result for match in round_.matches):
            kept.append(round_)
    return kept


def compute_standings(
    event: EventRecord, after_round: int | None = None, *, reference: bool = False
) -> Standings:
    """Standings rows in final rank order (shared/spec/scoring.md).

    `after_round`: standings as they stood after that round; later rounds are ignored.
    `Standings.after_round` is the last round number with any result (None if none).
    `reference`: Swiss systems are computed by the readable reference (mtr.py) instead
    of the fast path (mtr_fast.py); the result is the same, only much slower. For tests
    and benchmarks that compare the two.
    """
    rounds = rounds_with_results(event, after_round)
    rows: list[StandingRow]
    if event.system in SWISS_SYSTEMS:
        rows = (mtr if reference else mtr_fast).compute(event, rounds)
    elif event.system == "pod":
        rows = pod.compute(event, rounds)
    elif event.system == "league":
        rows = league.compute(event, rounds)
    else:
        raise ValueError(f"unknown scoring system: {event.system!r}")
    last = max((r.number for r in rounds), default=None)
    return Standings(system=event.system, after_round=last, rows=tuple(rows))
