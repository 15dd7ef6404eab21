"""The fast Swiss path (mtr_fast.py) gives exactly the reference's standings (mtr.py).

The reference is written straight from shared/spec/scoring.md s.1, 2 and 2b in exact
Fractions; `compute_standings` runs the fast path. Here the two must agree row for row
(ids, ranks, points, records, every tiebreaker as the same Fraction) on generated events
that use everything the spec describes, and on every real event in ../shared/data/real.
"""

from __future__ import annotations

import ast
import random
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scoring.engine
from scoring.engine import compute_standings
from scoring.engine.document import event_from_document
from scoring.engine.mtr import SWISS_SYSTEMS
from scoring.engine.records import (
    BYE,
    DOUBLE_LOSS,
    LOSS,
    PLAYED,
    EventRecord,
    MatchRecord,
    PlayerRecord,
    RoundRecord,
    Standings,
)
from tests.conftest import REAL_EVENTS, load_shared

# Best-of-three and best-of-one results (wins a, wins b, drawn games): clean wins, time
# running out with games level or one game up, intentional draws (0-0-3) and 0-0-0.
RESULTS = [
    (2, 0, 0), (2, 1, 0), (0, 2, 0), (1, 2, 0), (2, 0, 1), (1, 1, 1), (1, 0, 0), (0, 1, 2),
    (1, 0, 1), (0, 0, 3), (0, 0, 0), (1, 1, 0),
]  # fmt: skip


def played(a: str, b: str, rng: random.Random) -> MatchRecord:
    wa, wb, drawn = rng.choice(RESULTS)
    return MatchRecord(kind=PLAYED, players=(a, b), wins=(wa, wb), draws=drawn)


def swiss_round(
    number: int, phase: int, pool: list[str], rng: random.Random, *, reported: bool
) -> RoundRecord:
    """One round over `pool` (already shuffled): every kind of Swiss result."""
    matches: list[MatchRecord] = []
    if len(pool) % 2:
        # The odd one out: a bye, or now and then a loss with no opponent.
        kind = BYE if rng.random() < 0.8 else LOSS
        matches.append(MatchRecord(kind=kind, players=(pool.pop(),)))
    if len(pool) >= 4 and rng.random() < 0.2:
        # A no-show after pairing: a loss with no opponent, and a bye for the partner.
        matches.append(MatchRecord(kind=LOSS, players=(pool.pop(),)))
        matches.append(MatchRecord(kind=BYE, players=(pool.pop(),)))
    for a, b in zip(pool[::2], pool[1::2], strict=True):
        roll = rng.random()
        if not reported or roll < 0.08:
            matches.append(MatchRecord(kind=PLAYED, players=(a, b)))  # no result yet
        elif roll < 0.14:
            matches.append(MatchRecord(kind=DOUBLE_LOSS, players=(a, b), wins=(0, 0)))
        else:
            matches.append(played(a, b, rng))
    rng.shuffle(matches)
    return RoundRecord(number=number, matches=tuple(matches), phase=phase)


def playoff_rounds(first: int, phase: int, top: list[str], rng: random.Random) -> list[RoundRecord]:
    """A single-elimination bracket over `top`, possibly unfinished, with the odd bye,
    a drawn match (nobody goes through) or an unreported one."""
    rounds: list[RoundRecord] = []
    alive = list(top)
    number = first
    while len(alive) >= 2 and rng.random() < 0.9:
        matches: list[MatchRecord] = []
        through: list[str] = []
        if len(alive) % 2:
            matches.append(MatchRecord(kind=BYE, players=(alive[-1],)))
            through.append(alive.pop())
        for a, b in zip(alive[::2], alive[1::2], strict=True):
            roll = rng.random()
            if roll < 0.1:
                matches.append(MatchRecord(kind=PLAYED, players=(a, b)))
            elif roll < 0.15:
                matches.append(MatchRecord(kind=PLAYED, players=(a, b), wins=(1, 1), draws=1))
            else:
                wins = rng.choice([(2, 0), (2, 1), (1, 2), (0, 2)])
                matches.append(MatchRecord(kind=PLAYED, players=(a, b), wins=wins))
                through.append(a if wins[0] > wins[1] else b)
        rounds.append(RoundRecord(number, tuple(matches), phase=phase, playoff=True))
        alive = through
        number += 1
    return rounds


@st.composite
def swiss_events(draw: st.DrawFn) -> EventRecord:
    """Swiss events with byes, draws, double losses, no-opponent losses, drops recorded
    on the player and silent ones, late entries, players who never play, ids seated but
    never registered, up to three phases with cuts (phase numbers not always
    consecutive), rounds with some or no results, playoffs, any system and best_of."""
    size = draw(st.integers(0, 14))
    count = draw(st.integers(0, 7))
    rng = random.Random(draw(st.integers(0, 2**32)))
    ids = [f"p{k}" for k in range(size)]
    cuts = set(draw(st.lists(st.integers(2, max(2, count)), max_size=2, unique=True)))
    late = set(rng.sample(ids, k=min(len(ids), rng.randint(0, 2))))  # enter in round 2
    strangers = [f"x{k}" for k in range(draw(st.integers(0, 2)))]  # seated, not registered
    ghosts = [f"g{k}" for k in range(draw(st.integers(0, 2)))]  # registered, never seated
    dropped: dict[str, int] = {}
    active = [p for p in ids if p not in late] + strangers
    rounds: list[RoundRecord] = []
    phase = 1
    for number in range(1, count + 1):
        if number == 2:
            active += sorted(late)
        if number in cuts:
            phase += rng.choice([1, 1, 2])
            rng.shuffle(active)
            active = active[: max(2, len(active) // 2)]
        for player in list(active):
            if rng.random() < 0.07:  # drops after the previous round, recorded
                active.remove(player)
                dropped[player] = number - 1
        pool = [p for p in active if rng.random() > 0.08]  # missed the round, silently
        rng.shuffle(pool)
        # The last round may be only partly reported, or not at all.
        reported = number < count or rng.random() < 0.8
        rounds.append(swiss_round(number, phase, pool, rng, reported=reported))
    if draw(st.booleans()) and len(active) >= 2:
        top = rng.sample(active, k=min(len(active), rng.choice([2, 3, 4, 8])))
        rounds += playoff_rounds(count + 1, phase, top, rng)
    if draw(st.booleans()):
        rng.shuffle(rounds)  # the order rounds are listed in must not matter
    return EventRecord(
        system=draw(st.sampled_from(sorted(SWISS_SYSTEMS))),  # type: ignore[arg-type]
        players=tuple(PlayerRecord(id=p, dropped_after_round=dropped.get(p)) for p in ids + ghosts),
        rounds=tuple(rounds),
        best_of=draw(st.sampled_from([1, 3])),
        seed=draw(st.integers(0, 2**32)),
    )


def assert_identical(fast: Standings, reference: Standings) -> None:
    assert fast == reference
    # Equal is not quite identical: 3 == Fraction(3). The rows must hold the same types
    # and the same keys in the same order.
    assert [
        (type(r.points), [(k, type(v)) for k, v in r.tiebreakers.items()]) for r in fast.rows
    ] == [
        (type(r.points), [(k, type(v)) for k, v in r.tiebreakers.items()]) for r in reference.rows
    ]


@settings(max_examples=250, deadline=None)
@given(swiss_events(), st.none() | st.integers(0, 9))
def test_reference_and_fast_path_agree_on_generated_swiss_events(
    event: EventRecord, after_round: int | None
) -> None:
    assert_identical(
        compute_standings(event, after_round),
        compute_standings(event, after_round, reference=True),
    )


@settings(max_examples=60, deadline=None)
@given(swiss_events())
def test_reference_and_fast_path_agree_after_every_round(event: EventRecord) -> None:
    for after_round in sorted({r.number for r in event.rounds}):
        assert_identical(
            compute_standings(event, after_round),
            compute_standings(event, after_round, reference=True),
        )


def real_event(path: Path) -> EventRecord:
    return event_from_document(load_shared(f"data/real/{path.name}"))


def test_there_are_real_events_to_compare_on() -> None:
    assert len(REAL_EVENTS) >= 10
    assert all(real_event(p).system in SWISS_SYSTEMS for p in REAL_EVENTS)


@pytest.mark.parametrize("path", REAL_EVENTS, ids=lambda p: p.stem)
def test_reference_and_fast_path_agree_on_every_real_event_under_every_swiss_system(
    path: Path,
) -> None:
    event = real_event(path)
    for system in sorted(SWISS_SYSTEMS):
        variant = replace(event, system=system)  # type: ignore[arg-type]
        assert_identical(compute_standings(variant), compute_standings(variant, reference=True))


@pytest.mark.parametrize("path", REAL_EVENTS, ids=lambda p: p.stem)
def test_reference_and_fast_path_agree_on_every_real_event_after_every_round(path: Path) -> None:
    event = real_event(path)
    for after_round in sorted({r.number for r in event.rounds}):
        assert_identical(
            compute_standings(event, after_round),
            compute_standings(event, after_round, reference=True),
        )


# --- what the engine package may not do -------------------------------------------------

ENGINE = Path(scoring.engine.__file__).parent


def test_no_engine_module_switches_the_garbage_collector() -> None:
    """The process-wide GC is the application's to tune (once, at start-up); an engine
    that paused it would race with every other thread of the process."""
    for module in sorted(ENGINE.glob("*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in node.names
        } | {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert "gc" not in imported, module.name
