"""The engine's incremental Swiss standings (mtr_fast.SwissState) equal a full compute.

After any sequence of result entries, corrections and clears (wins, draws, 0-0-3, 0-0-0,
double losses, byes turned into losses and back, a round's first result, a round's last
result cleared), on events with drops, late entries, strangers, phases and playoffs, the
state derived one change at a time gives exactly `compute_standings` of the event as it
now stands: every row, rank, Fraction and tiebreak. A change it does not keep
incrementally (a second phase or a playoff round with a result) answers None, and that
happens exactly when a state cannot be built for the new event at all.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.engine import compute_standings
from scoring.engine.mtr_fast import SwissState
from scoring.engine.records import (
    BYE,
    DOUBLE_LOSS,
    LOSS,
    PLAYED,
    EventRecord,
    MatchRecord,
    PlayerRecord,
    RoundRecord,
)
from tests.unit.test_scoring_reference import assert_identical, swiss_events

# What a result entry can make of a two-player match ...
TWO = [
    ((2, 0), 0), ((2, 1), 0), ((1, 2), 0), ((0, 2), 0), ((1, 1), 1), ((0, 0), 3), ((0, 0), 0),
    ((2, 0), 1), ((1, 0), 0), None, "double_loss",
]  # fmt: skip
# ... and of a one-player match.
ONE = [BYE, LOSS]


def edited(match: MatchRecord, choice: int) -> MatchRecord:
    if len(match.players) == 1:
        return replace(match, kind=ONE[choice % len(ONE)])  # type: ignore[arg-type]
    result = TWO[choice % len(TWO)]
    if result == "double_loss":
        return replace(match, kind=DOUBLE_LOSS, wins=(0, 0), draws=0)
    if result is None:
        return replace(match, kind=PLAYED, wins=None, draws=0)
    wins, drawn = result
    return replace(match, kind=PLAYED, wins=wins, draws=drawn)


def apply(
    event: EventRecord, edits: list[tuple[int, int]]
) -> tuple[EventRecord, list[tuple[int, MatchRecord, MatchRecord]]]:
    """The event with the picked matches edited (each at most once), and the changes as
    `SwissState.updated` takes them."""
    seats = [(i, j) for i, r in enumerate(event.rounds) for j in range(len(r.matches))]
    rounds = [list(r.matches) for r in event.rounds]
    changes = []
    done = set()
    for pick, choice in edits:
        if not seats:
            break
        i, j = seats[pick % len(seats)]
        if (i, j) in done:
            continue
        done.add((i, j))
        old = rounds[i][j]
        rounds[i][j] = edited(old, choice)
        changes.append((event.rounds[i].number, old, rounds[i][j]))
    new = replace(
        event,
        rounds=tuple(
            replace(r, matches=tuple(m)) for r, m in zip(event.rounds, rounds, strict=True)
        ),
    )
    return new, changes


def simple(event: EventRecord) -> bool:
    """Rounds with a result: Swiss rounds of one phase at most."""
    counted = [r for r in event.rounds if any(m.has_result for m in r.matches)]
    return not any(r.playoff for r in counted) and len({r.phase for r in counted}) <= 1


def check(event: EventRecord, state: SwissState | None) -> None:
    if state is None:
        # Not simple, or an id seated without being registered (never in a stored event).
        registered = {p.id for p in event.players}
        seated = {p for r in event.rounds for m in r.matches for p in m.players}
        assert not simple(event) or not seated <= registered
    else:
        assert simple(event)
        assert_identical(state.standings(), compute_standings(event))


def one_phase(event: EventRecord) -> EventRecord:
    """The event's Swiss rounds only, all in phase 1, every seated id registered: the
    case kept incrementally (and the only kind of event the app stores)."""
    rounds = tuple(replace(r, phase=1) for r in event.rounds if not r.playoff)
    registered = {p.id for p in event.players}
    seated = sorted({p for r in rounds for m in r.matches for p in m.players} - registered)
    players = event.players + tuple(PlayerRecord(id=p) for p in seated)
    return replace(event, rounds=rounds, players=players)


# Each batch: up to three matches changed by one write (a worker catching up on others').
BATCHES = st.lists(
    st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 50)), min_size=1, max_size=3),
    max_size=10,
)


@settings(max_examples=400, deadline=None)
@given(swiss_events().map(one_phase), BATCHES)
def test_a_state_updated_change_by_change_equals_a_full_compute(
    event: EventRecord, batches: list[list[tuple[int, int]]]
) -> None:
    run(event, batches)


@settings(max_examples=150, deadline=None)
@given(swiss_events(), BATCHES)
def test_with_phases_and_playoffs_the_state_steps_aside_exactly_when_it_must(
    event: EventRecord, batches: list[list[tuple[int, int]]]
) -> None:
    run(event, batches)


def run(event: EventRecord, batches: list[list[tuple[int, int]]]) -> None:
    state = SwissState.build(event)
    check(event, state)
    for edits in batches:
        new_event, changes = apply(event, edits)
        if state is None:
            state = SwissState.build(new_event)
        else:
            before = state.standings()
            derived = state.updated(changes)
            # The old state is untouched: it still stands for the old event.
            assert state.standings() == before
            if derived is not None:
                assert derived.changed is not None
                _fresh, places = derived.changed
                assert places == sorted(set(places))
                kept = set(range(len(before.rows))) - set(places)
                # Every place not reported holds the very same row object as before.
                assert all(derived.rows[p] is state.rows[p] for p in kept)
                state = derived
            else:
                state = SwissState.build(new_event)
                assert state is None, "a simple change must be kept incrementally"
        event = new_event
        check(event, state)


def event_of(rounds: list[list[MatchRecord]], *, system: str = "mtr") -> EventRecord:
    players = sorted({p for r in rounds for m in r for p in m.players})
    return EventRecord(
        system=system,  # type: ignore[arg-type]
        players=tuple(PlayerRecord(id=p) for p in players),
        rounds=tuple(RoundRecord(number=k, matches=tuple(r)) for k, r in enumerate(rounds, 1)),
        seed=5,
    )


def played(a: str, b: str, wins: tuple[int, int] | None = None, draws: int = 0) -> MatchRecord:
    return MatchRecord(kind=PLAYED, players=(a, b), wins=wins, draws=draws)


@pytest.mark.parametrize("system", ["mtr", "dci", "melee"])
def test_the_first_result_of_a_round_and_clearing_it_again(system: str) -> None:
    open_round = [played("a", "d"), played("b", "c")]
    event = event_of(
        [[played("a", "b", (2, 0)), played("c", "d", (1, 1), 1)], open_round], system=system
    )
    state = SwissState.build(event)
    assert state is not None and state.standings().after_round == 1
    entered = state.updated([(2, open_round[0], played("a", "d", (0, 0), 3))])
    assert entered is not None and entered.standings().after_round == 2
    cleared = entered.updated([(2, played("a", "d", (0, 0), 3), open_round[0])])
    assert cleared is not None
    assert_identical(cleared.standings(), state.standings())


def test_a_second_phase_or_a_playoff_result_is_not_kept_incrementally() -> None:
    day2 = played("a", "c")
    base = event_of([[played("a", "b", (2, 0)), played("c", "d", (2, 1))]])
    event = replace(base, rounds=(*base.rounds, RoundRecord(2, (day2,), phase=2)))
    state = SwissState.build(event)
    assert state is not None
    assert state.updated([(2, day2, played("a", "c", (2, 0)))]) is None
    final = played("a", "c")
    event = replace(base, rounds=(*base.rounds, RoundRecord(2, (final,), playoff=True)))
    state = SwissState.build(event)
    assert state is not None
    assert state.updated([(2, final, played("a", "c", (2, 0)))]) is None


def test_an_unknown_player_or_round_is_not_kept_incrementally() -> None:
    match = played("a", "b", (2, 0))
    state = SwissState.build(event_of([[match, played("c", "d", (2, 1))]]))
    assert state is not None
    assert state.updated([(1, match, played("a", "z", (2, 0)))]) is None
    assert state.updated([(7, match, played("a", "b", (0, 2)))]) is None


def test_non_swiss_systems_have_no_state() -> None:
    event = replace(event_of([[played("a", "b", (2, 0))]]), system="pod")
    assert SwissState.build(event) is None
