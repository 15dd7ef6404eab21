"""The engine's entry point: `compute_standings(event, after_round=None) -> Standings`."""

from __future__ import annotations

import gc

from . import league, mtr, pod
from .records import EventRecord, RoundRecord, StandingRow, Standings

SWISS_SYSTEMS = frozenset({"mtr", "dci", "melee"})


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


def compute_standings(event: EventRecord, after_round: int | None = None) -> Standings:
    """Standings rows in final rank order (shared/spec/scoring.md).

    `after_round`: standings as they stood after that round; later rounds are ignored.
    `Standings.after_round` is the last round number with any result (None if none).
    """
    rounds = rounds_with_results(event, after_round)
    rows: list[StandingRow]
    # The cyclic garbage collector is paused while the rows are built: they are tens of
    # thousands of new, acyclic container objects (rows, dicts, Fractions), and with it on
    # a large event triggers ~40 young-generation passes plus several older-generation
    # ones over them and the event's records (~10% of the time). Nothing here creates a
    # reference cycle, and the collector's normal schedule resumes right after (the new
    # objects are scanned once, by the next young collection). Thread-safe enough: only
    # the call that paused it resumes it, and a concurrent call merely runs unpaused.
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        if event.system in SWISS_SYSTEMS:
            rows = mtr.compute(event, rounds)
        elif event.system == "pod":
            rows = pod.compute(event, rounds)
        elif event.system == "league":
            rows = league.compute(event, rounds)
        else:
            raise ValueError(f"unknown scoring system: {event.system!r}")
    finally:
        if paused:
            gc.enable()
    last = max((r.number for r in rounds), default=None)
    return Standings(system=event.system, after_round=last, rows=tuple(rows))
