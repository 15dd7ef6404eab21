"""Round robin (pod) schedules by the circle method."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.pairing.round_robin import RoundRobinRound, round_robin_schedule


@pytest.fixture
def rng() -> random.Random:
    return random.Random(1234)


def meetings(schedule: tuple[RoundRobinRound, ...]) -> Counter[frozenset[str]]:
    return Counter(frozenset(pair) for rnd in schedule for pair in rnd.pairs)


@given(n=st.integers(2, 24), seed=st.integers(0, 2**32))
def test_everyone_meets_everyone_exactly_once(n: int, seed: int) -> None:
    ids = [f"p{i}" for i in range(n)]
    schedule = round_robin_schedule(ids, random.Random(seed))
    assert meetings(schedule) == Counter(frozenset(p) for p in combinations(ids, 2))
    assert len(schedule) == (n if n % 2 else n - 1)


@given(n=st.integers(2, 24), seed=st.integers(0, 2**32))
def test_double_round_robin_meets_everyone_exactly_twice_with_seats_swapped(
    n: int, seed: int
) -> None:
    ids = [f"p{i}" for i in range(n)]
    schedule = round_robin_schedule(ids, random.Random(seed), double=True)
    assert meetings(schedule) == Counter({frozenset(p): 2 for p in combinations(ids, 2)})
    half = len(schedule) // 2
    for first, second in zip(schedule[:half], schedule[half:], strict=True):
        assert second.pairs == tuple((b, a) for a, b in first.pairs)
        assert second.bye == first.bye


@given(n=st.integers(2, 24), seed=st.integers(0, 2**32))
def test_each_player_plays_at_most_once_per_round(n: int, seed: int) -> None:
    ids = [f"p{i}" for i in range(n)]
    for rnd in round_robin_schedule(ids, random.Random(seed)):
        seated = [p for pair in rnd.pairs for p in pair] + ([rnd.bye] if rnd.bye else [])
        assert sorted(seated) == sorted(ids)


@given(n=st.integers(1, 12).map(lambda k: 2 * k + 1), seed=st.integers(0, 2**32))
def test_odd_count_has_one_bye_per_round_and_each_player_gets_exactly_one(
    n: int, seed: int
) -> None:
    ids = [f"p{i}" for i in range(n)]
    schedule = round_robin_schedule(ids, random.Random(seed))
    assert all(rnd.bye is not None for rnd in schedule)
    assert Counter(rnd.bye for rnd in schedule) == Counter(ids)


def test_even_count_has_no_bye(rng: random.Random) -> None:
    assert all(rnd.bye is None for rnd in round_robin_schedule("abcdef", rng))


def test_seat_order_is_shuffled_by_the_rng() -> None:
    ids = [f"p{i}" for i in range(8)]
    first_rounds = {round_robin_schedule(ids, random.Random(s))[0] for s in range(10)}
    assert len(first_rounds) > 1
    assert round_robin_schedule(ids, random.Random(3)) == round_robin_schedule(
        ids, random.Random(3)
    )


def test_fewer_than_two_players_is_a_value_error(rng: random.Random) -> None:
    with pytest.raises(ValueError):
        round_robin_schedule(["solo"], rng)


def test_duplicate_ids_are_a_value_error(rng: random.Random) -> None:
    with pytest.raises(ValueError):
        round_robin_schedule(["a", "a", "b"], rng)
