"""The numpy path (scoring/engine/vector.py) gives exactly the standings of mtr_fast.py and
of the reference (mtr.py), on generated events and on every real event on file, and its
order-only entry points (`rank_keys`, `rank_batch`) agree with the rows.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.engine import mtr, mtr_fast, vector
from scoring.engine.api import rounds_with_results
from scoring.engine.document import event_from_document
from scoring.engine.mtr import SWISS_SYSTEMS
from scoring.engine.records import (
    PLAYED,
    EventRecord,
    MatchRecord,
    PlayerRecord,
    RoundRecord,
    Standings,
)
from tests.conftest import REAL_EVENTS
from tests.unit import test_scoring_properties, test_scoring_reference
from tests.unit.test_scoring_reference import assert_identical


def standings(event: EventRecord, rows: list) -> Standings:
    return Standings(system=event.system, after_round=None, rows=tuple(rows))


def assert_three_agree(
    event: EventRecord, after_round: int | None = None, *, reference: bool = True
) -> None:
    """vector == mtr_fast == the reference, row for row and type for type (`reference`
    False: the slow reference is left out; test_scoring_reference.py holds it equal to
    mtr_fast)."""
    rounds = rounds_with_results(event, after_round)
    prepared = vector.prepare(event, rounds)
    ours = standings(event, vector.compute(prepared))
    assert_identical(ours, standings(event, mtr_fast.compute(event, rounds)))
    if reference:
        assert_identical(ours, standings(event, mtr.compute(event, rounds)))
    # The order-only path ranks exactly like the rows.
    order = vector.rank_keys(prepared)
    assert [prepared.ids[i] for i in order] == [row.player for row in ours.rows]


@settings(max_examples=250, deadline=None)
@given(test_scoring_reference.swiss_events(), st.none() | st.integers(0, 9))
def test_vector_path_equals_fast_path_and_reference_on_generated_swiss_events(
    event: EventRecord, after_round: int | None
) -> None:
    assert_three_agree(event, after_round)


@settings(max_examples=150, deadline=None)
@given(test_scoring_properties.swiss_events(), st.sampled_from(sorted(SWISS_SYSTEMS)))
def test_vector_path_equals_the_reference_on_two_phase_events_under_every_system(
    event: EventRecord, system: str
) -> None:
    assert_three_agree(replace(event, system=system))  # type: ignore[arg-type]


@st.composite
def extra_results(draw: st.DrawFn) -> tuple[EventRecord, list[tuple[int, int, int, int, int]]]:
    """A generated event and one more round of results among its players (byes too)."""
    event = draw(test_scoring_reference.swiss_events())
    rng = random.Random(draw(st.integers(0, 2**32)))
    prepared = vector.prepare(event, rounds_with_results(event))
    pool = list(range(len(prepared.ids)))
    rng.shuffle(pool)
    pool = pool[: rng.randint(0, len(pool))]
    matches = []
    if len(pool) % 2:
        matches.append((pool.pop(), -1, 0, 0, 0))
    for a, b in zip(pool[::2], pool[1::2], strict=True):
        wa, wb, drawn = rng.choice(test_scoring_reference.RESULTS)
        matches.append((a, b, wa, wb, drawn))
    return event, matches


def columns(matches: list[tuple[int, int, int, int, int]]) -> list[list[int]]:
    return [list(column) for column in zip(*matches, strict=True)] or [[], [], [], [], []]


@settings(max_examples=200, deadline=None)
@given(extra_results())
def test_rank_keys_with_extra_results_ranks_like_the_event_with_that_round_added(
    case: tuple[EventRecord, list[tuple[int, int, int, int, int]]],
) -> None:
    event, matches = case
    rounds = rounds_with_results(event)
    prepared = vector.prepare(event, rounds)
    a, b, wins_a, wins_b, draws = columns(matches)
    order = vector.rank_keys(prepared, a, b, wins_a, wins_b, draws)
    extended = rounds + [vector.extra_round(prepared, a, b, wins_a, wins_b, draws)] * bool(matches)
    expected = [row.player for row in mtr.compute(event, extended)]
    assert [prepared.ids[i] for i in order] == expected


@settings(max_examples=40, deadline=None)
@given(extra_results(), st.integers(1, 4), st.integers(0, 2**32))
def test_rank_batch_gives_rank_keys_for_every_simulation(
    case: tuple[EventRecord, list[tuple[int, int, int, int, int]]], sims: int, seed: int
) -> None:
    event, matches = case
    prepared = vector.prepare(event, rounds_with_results(event))
    rng = random.Random(seed)
    batch = []
    for _ in range(sims):
        results = [
            (a, b, *rng.choice(test_scoring_reference.RESULTS)) if b >= 0 else (a, b, 0, 0, 0)
            for a, b, *_ in matches
        ]
        batch.append(columns(results))
    stacked = [np.array([sim[k] for sim in batch], dtype=np.int64) for k in range(5)]
    stacked = [column.reshape(sims, len(matches)) for column in stacked]
    got = vector.rank_batch(prepared, *stacked)
    assert got.shape == (sims, len(prepared.ids))
    for row, sim in zip(got, batch, strict=True):
        assert row.tolist() == vector.rank_keys(prepared, *sim).tolist()


def long_event(players: int, rounds: int, seed: int, system: str) -> EventRecord:
    """Many rounds and varied game counts: denominators far beyond 64 bits."""
    rng = random.Random(seed)
    ids = [f"p{k}" for k in range(players)]
    records = []
    for number in range(1, rounds + 1):
        pool = [p for p in ids if rng.random() > 0.1]
        rng.shuffle(pool)
        records.append(
            test_scoring_reference.swiss_round(number, 1 + number // 15, pool, rng, reported=True)
        )
    return EventRecord(
        system=system,  # type: ignore[arg-type]
        players=tuple(PlayerRecord(id=p) for p in ids),
        rounds=tuple(records),
        seed=seed,
    )


@pytest.mark.parametrize("system", sorted(SWISS_SYSTEMS))
def test_vector_path_is_exact_when_no_float_key_is_provably_exact(system: str) -> None:
    event = long_event(40, 44, 7, system)
    rounds = rounds_with_results(event)
    prepared = vector.prepare(event, rounds)
    groups, _ = vector._phase_values(prepared)
    # Here OMW% needs more than one 32-bit limb: the order comes from near-equal floats
    # resolved exactly, not from the proven fast keys.
    assert any(values.omw.tol > 0 for _, values, _ in groups)
    assert_three_agree(event)
    for after_round in (10, 25, 38):
        assert_three_agree(event, after_round)


def test_a_result_mtr_fast_rejects_is_rejected_the_same_way() -> None:
    huge = MatchRecord(kind=PLAYED, players=("a", "b"), wins=(1 << 30, 0))
    event = EventRecord(
        system="mtr",
        players=(PlayerRecord(id="a"), PlayerRecord(id="b")),
        rounds=(RoundRecord(number=1, matches=(huge,)),),
    )
    rounds = rounds_with_results(event)
    with pytest.raises(ValueError):
        mtr_fast.compute(event, rounds)
    with pytest.raises(ValueError):
        vector.compute(vector.prepare(event, rounds))


def test_a_league_game_cannot_be_prepared_as_a_swiss_match() -> None:
    game = MatchRecord(kind="game", players=("a", "b", "c"), places=(1, 2, 3))
    event = EventRecord(
        system="mtr",
        players=(PlayerRecord(id="a"), PlayerRecord(id="b"), PlayerRecord(id="c")),
        rounds=(RoundRecord(number=1, matches=(game,)),),
    )
    with pytest.raises(ValueError, match="cannot be scored"):
        vector.prepare(event, list(event.rounds))


def test_an_event_without_players_or_rounds_has_no_rows() -> None:
    event = EventRecord(system="melee", players=(), rounds=())
    prepared = vector.prepare(event, [])
    assert vector.compute(prepared) == []
    assert vector.rank_keys(prepared).tolist() == []


# --- real events --------------------------------------------------------------------------

# melee.gg publishes 7 decimals (as tests/unit/test_scoring_real_events.py).
TOLERANCE = 1e-7


def test_there_are_real_events_for_the_vector_path() -> None:
    assert len(REAL_EVENTS) >= 10


@pytest.mark.parametrize("path", REAL_EVENTS, ids=lambda p: p.stem)
def test_vector_path_reproduces_the_published_standings_of_every_real_event(path: Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    document["system"] = "melee"
    event = event_from_document(document)
    expected_path = path.with_name(path.name.removesuffix(".json") + ".expected.json")
    published = {
        row["id"]: row for row in json.loads(expected_path.read_text(encoding="utf-8"))["standings"]
    }
    rounds = rounds_with_results(event)
    rows = vector.compute(vector.prepare(event, rounds))
    assert {row.player for row in rows} == set(published)
    for row in rows:
        ours = {"points": row.points, **row.tiebreakers}
        for key in ("points", "omw", "gw", "ogw"):
            assert abs(float(ours[key]) - published[row.player][key]) <= TOLERANCE, (
                row.player,
                key,
            )
    # Ranks: exactly mtr_fast's, which tests/unit/test_scoring_real_events.py holds to
    # melee.gg's wherever melee.gg did not break an exact tie its own way.
    assert rows == mtr_fast.compute(event, rounds)


@pytest.mark.parametrize("path", REAL_EVENTS, ids=lambda p: p.stem)
def test_vector_path_equals_the_fast_path_on_every_real_event_after_every_round_and_system(
    path: Path,
) -> None:
    event = event_from_document(json.loads(path.read_text(encoding="utf-8")))
    for system in sorted(SWISS_SYSTEMS):
        variant = replace(event, system=system)  # type: ignore[arg-type]
        assert_three_agree(variant)
        for after_round in sorted({r.number for r in event.rounds}):
            assert_three_agree(variant, after_round, reference=False)
