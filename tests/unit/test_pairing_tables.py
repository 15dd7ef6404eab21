"""League seating at tables of 3-5, as many 4s as possible, fewest repeat meetings."""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.pairing.tables import (
    Seating,
    TablePlayer,
    repeat_meetings,
    seat_tables,
    table_sizes,
)

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture
def rng() -> random.Random:
    return random.Random(99)


@st.composite
def leagues(draw: st.DrawFn, min_size: int = 3, max_size: int = 9) -> list[TablePlayer]:
    n = draw(st.integers(min_size, max_size))
    ids = [f"p{i}" for i in range(n)]
    rng = random.Random(draw(st.integers(0, 2**32)))
    density = draw(st.sampled_from([0.0, 0.2, 0.5, 0.8]))
    met: dict[str, list[str]] = {p: [] for p in ids}
    for a, b in combinations(ids, 2):
        times = 0
        while rng.random() < density and times < 3:
            times += 1
        met[a] += [b] * times
        met[b] += [a] * times
    return [TablePlayer(p, tuple(met[p])) for p in ids]


def brute_force_best(players: Sequence[TablePlayer]) -> int:
    """Minimum over every way of filling the prescribed tables in order (each seating
    is seen several times when sizes repeat; harmless)."""
    sizes = table_sizes(len(players))

    def fill(rest: tuple[str, ...], k: int, tables: list[tuple[str, ...]]) -> int:
        if k == len(sizes):
            return repeat_meetings(players, tables)
        return min(
            fill(tuple(p for p in rest if p not in chosen), k + 1, [*tables, chosen])
            for chosen in combinations(rest, sizes[k])
        )

    return fill(tuple(p.id for p in players), 0, [])


def assert_valid(players: Sequence[TablePlayer], seating: Seating) -> None:
    seated = [p for t in seating.tables for p in t]
    assert sorted(seated) == sorted(p.id for p in players)
    assert tuple(len(t) for t in seating.tables) == table_sizes(len(players))


@pytest.mark.parametrize(
    ("n", "sizes"),
    [
        (3, (3,)),
        (4, (4,)),
        (5, (5,)),
        (6, (3, 3)),
        (7, (4, 3)),
        (8, (4, 4)),
        (9, (5, 4)),
        (10, (4, 3, 3)),
        (11, (4, 4, 3)),
        (13, (5, 4, 4)),
        (14, (4, 4, 3, 3)),
    ],
)
def test_table_sizes_use_as_many_fours_as_possible(n: int, sizes: tuple[int, ...]) -> None:
    assert table_sizes(n) == sizes


@given(n=st.integers(3, 200))
def test_table_sizes_always_seat_everyone_at_3_to_5_with_the_most_fours(n: int) -> None:
    sizes = table_sizes(n)
    assert sum(sizes) == n
    assert all(3 <= s <= 5 for s in sizes)
    most_fours = max(
        a
        for a in range(n // 4 + 1)
        for b in range(n // 3 + 1)
        if n - 4 * a - 3 * b >= 0 and (n - 4 * a - 3 * b) % 5 == 0
    )
    assert sizes.count(4) == most_fours


@pytest.mark.parametrize("n", [0, 1, 2])
def test_fewer_than_three_players_is_a_clear_value_error(n: int, rng: random.Random) -> None:
    with pytest.raises(ValueError, match="at least 3 players"):
        seat_tables([TablePlayer(f"p{i}") for i in range(n)], rng)


@SETTINGS
@given(players=leagues(max_size=9), seed=st.integers(0, 2**32))
def test_seating_is_optimal_against_brute_force_up_to_9_players(
    players: list[TablePlayer], seed: int
) -> None:
    seating = seat_tables(players, random.Random(seed))
    assert_valid(players, seating)
    assert repeat_meetings(players, seating.tables) == brute_force_best(players)


@SETTINGS
@given(players=leagues(min_size=10, max_size=80), seed=st.integers(0, 2**32))
def test_every_player_is_seated_exactly_once_in_large_leagues(
    players: list[TablePlayer], seed: int
) -> None:
    assert_valid(players, seat_tables(players, random.Random(seed)))


def test_first_round_is_random_and_reproducible() -> None:
    players = [TablePlayer(f"p{i}") for i in range(12)]
    seatings = {seat_tables(players, random.Random(s)) for s in range(10)}
    assert len(seatings) > 1
    assert seat_tables(players, random.Random(5)) == seat_tables(players, random.Random(5))


def test_a_league_of_twenty_avoids_repeats_for_several_rounds(rng: random.Random) -> None:
    # 20 players at 5 tables of 4: each round a player meets 3 new people, and there are
    # 19 others, so the first rounds can (and should) be repeat-free.
    players = [TablePlayer(f"p{i}") for i in range(20)]
    history: dict[str, list[str]] = {p.id: [] for p in players}
    for _ in range(4):
        field = [TablePlayer(pid, tuple(history[pid])) for pid in history]
        seating = seat_tables(field, rng)
        assert repeat_meetings(field, seating.tables) == 0
        for table in seating.tables:
            for a, b in combinations(table, 2):
                history[a].append(b)
                history[b].append(a)


def test_repeat_meetings_counts_multiplicity() -> None:
    players = [
        TablePlayer("a", ("b", "b", "c")),
        TablePlayer("b", ("a", "a")),
        TablePlayer("c", ("a",)),
    ]
    assert repeat_meetings(players, [("a", "b", "c")]) == 3
