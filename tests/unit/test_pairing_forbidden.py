"""Swiss pairing under pairing restrictions (a casual event's "do not pair these two").

A forbidden pair is a level above every other in the cost (`RestrictedCost`): the
engine pairs one only when every pairing of the field does, and then as few as
possible. Oracles as in test_pairing_swiss.py: an exhaustive search over every perfect
matching (up to 12 players, written here independently of the engine, the forbidden
level included) and the whole-field exact matching for larger fields.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.test_pairing_swiss import arbitrary_fields, simulate
from tournaments.pairing.swiss import (
    Pairing,
    PairingCost,
    RestrictedCost,
    SwissPlayer,
    cost,
    lower_bound,
    pair_swiss,
    pair_swiss_exact,
    restricted_cost,
)

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

Pairs = list[tuple[str, str]]


@st.composite
def restrictions(draw: st.DrawFn, players: Sequence[SwissPlayer], most: int = 4) -> Pairs:
    """A few pairs of the field's players (possibly none), and now and then a pair
    naming a player who is not in it (dropped): the engine ignores that one."""
    ids = [p.id for p in players]
    out: Pairs = []
    if len(ids) >= 2:
        for _ in range(draw(st.integers(0, most))):
            a, b = draw(st.lists(st.sampled_from(ids), min_size=2, max_size=2, unique=True))
            out.append((a, b))
    if draw(st.booleans()):
        out.append((ids[0], "dropped-player") if ids else ("x", "y"))
    return out


@st.composite
def restricted_fields(
    draw: st.DrawFn, min_size: int = 1, max_size: int = 12
) -> tuple[list[SwissPlayer], Pairs]:
    players = draw(arbitrary_fields(min_size=min_size, max_size=max_size))
    return players, draw(restrictions(players))


@st.composite
def restricted_simulated(
    draw: st.DrawFn, min_size: int, max_size: int
) -> tuple[list[SwissPlayer], Pairs]:
    n = draw(st.integers(min_size, max_size))
    rounds = draw(st.integers(0, max(0, min(n - 2, 8))))
    players = simulate(n, rounds, random.Random(draw(st.integers(0, 2**32))))
    return players, draw(restrictions(players, most=6))


def exhaustive_best(players: Sequence[SwissPlayer], forbidden: Pairs) -> RestrictedCost:
    """Minimum (restricted, cost) over every pairing, independently of the engine."""
    n = len(players)
    times = [[Counter(p.opponents)[q.id] for q in players] for p in players]
    apart = {frozenset(pair) for pair in forbidden}

    def pair(i: int, j: int) -> tuple[int, ...]:
        met = max(times[i][j], times[j][i])
        d = players[i].points - players[j].points
        kept = int(frozenset((players[i].id, players[j].id)) in apart)
        return (kept, met, 0, 0, d * d, int(d != 0))

    def add(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(x + y for x, y in zip(a, b, strict=True))

    @cache
    def best(mask: int) -> tuple[int, ...]:
        if mask == 0:
            return (0, 0, 0, 0, 0, 0)
        i = (mask & -mask).bit_length() - 1
        rest = mask & ~(1 << i)
        return min(add(pair(i, j), best(rest & ~(1 << j))) for j in range(n) if rest >> j & 1)

    full = (1 << n) - 1
    if n % 2 == 0:
        found = best(full)
    else:
        found = min(
            add((0, 0, int(players[b].had_bye), players[b].points, 0, 0), best(full & ~(1 << b)))
            for b in range(n)
        )
    return RestrictedCost(found[0], PairingCost(*found[1:]))


def met_pairs(pairing: Pairing) -> set[frozenset[str]]:
    return {frozenset(t) for t in pairing.tables}


def assert_valid(players: Sequence[SwissPlayer], pairing: Pairing) -> None:
    seated = [p for table in pairing.tables for p in table]
    if pairing.bye is not None:
        seated.append(pairing.bye)
    assert sorted(seated) == sorted(p.id for p in players)


# --- Against the exhaustive oracle ----------------------------------------------------------


@SETTINGS
@given(case=restricted_fields(max_size=12), seed=st.integers(0, 2**32))
def test_the_cost_under_restrictions_equals_the_exhaustive_optimum(
    case: tuple[list[SwissPlayer], Pairs], seed: int
) -> None:
    players, forbidden = case
    pairing = pair_swiss(players, random.Random(seed), forbidden)
    assert_valid(players, pairing)
    assert restricted_cost(players, pairing, forbidden) == exhaustive_best(players, forbidden)


@SETTINGS
@given(case=restricted_fields(max_size=12), seed=st.integers(0, 2**32))
def test_a_restricted_pair_never_meets_when_some_pairing_keeps_every_one_apart(
    case: tuple[list[SwissPlayer], Pairs], seed: int
) -> None:
    players, forbidden = case
    if exhaustive_best(players, forbidden).restricted:
        return  # every pairing of this field pairs a restricted pair: the next test
    met = met_pairs(pair_swiss(players, random.Random(seed), forbidden))
    assert not met & {frozenset(pair) for pair in forbidden}


@SETTINGS
@given(case=restricted_fields(max_size=12), seed=st.integers(0, 2**32))
def test_the_exact_solver_is_optimal_under_restrictions_too(
    case: tuple[list[SwissPlayer], Pairs], seed: int
) -> None:
    players, forbidden = case
    pairing = pair_swiss_exact(players, random.Random(seed), forbidden)
    assert restricted_cost(players, pairing, forbidden) == exhaustive_best(players, forbidden)


# --- Larger realistic fields against the whole-field matching -------------------------------


@SETTINGS
@given(case=restricted_simulated(2, 40), seed=st.integers(0, 2**32))
def test_on_realistic_fields_the_engine_matches_the_whole_field_matching(
    case: tuple[list[SwissPlayer], Pairs], seed: int
) -> None:
    players, forbidden = case
    achieved = restricted_cost(
        players, pair_swiss(players, random.Random(seed), forbidden), forbidden
    )
    oracle = restricted_cost(
        players, pair_swiss_exact(players, random.Random(seed), forbidden), forbidden
    )
    assert achieved == oracle
    if oracle.restricted == 0 and oracle.cost.rematches == 0:
        # The fast path's own certificate: a bound over the pairings meeting no blocked pair.
        bound = lower_bound(players, forbidden)
        assert bound <= achieved.cost


# --- Small cases, by hand -------------------------------------------------------------------


def test_without_restrictions_the_pairing_is_the_same_as_before() -> None:
    players = simulate(30, 4, random.Random(5))
    for seed in range(20):
        plain = pair_swiss(players, random.Random(seed))
        assert pair_swiss(players, random.Random(seed), ()) == plain
        # A restriction naming nobody in the field changes nothing either.
        assert pair_swiss(players, random.Random(seed), [("gone", "p1")]) == plain


def test_two_leaders_kept_apart_each_meet_the_next_best_player() -> None:
    # Two players on 9 points, two on 6: the leaders would meet; restricted, each floats.
    players = [
        SwissPlayer("ana", 9),
        SwissPlayer("ben", 9),
        SwissPlayer("cy", 6),
        SwissPlayer("di", 6),
    ]
    for seed in range(20):
        pairing = pair_swiss(players, random.Random(seed), [("ben", "ana")])
        assert frozenset(("ana", "ben")) not in met_pairs(pairing)
        assert cost(players, pairing).squared_diff == 18


def test_a_restriction_outranks_a_rematch() -> None:
    # Ana met Cy and Di already; her only other possible opponent is Ben, restricted.
    players = [
        SwissPlayer("ana", 3, ("cy", "di")),
        SwissPlayer("ben", 3),
        SwissPlayer("cy", 3, ("ana",)),
        SwissPlayer("di", 3, ("ana",)),
    ]
    pairing = pair_swiss(players, random.Random(1), [("ana", "ben")])
    result = restricted_cost(players, pairing, [("ana", "ben")])
    assert result.restricted == 0
    assert result.cost.rematches == 1


def test_when_every_pairing_meets_a_restricted_pair_the_fewest_are_paired() -> None:
    # Two players, restricted: they must still play (the least bad pairing).
    two = [SwissPlayer("ana"), SwissPlayer("ben")]
    assert pair_swiss(two, random.Random(3), [("ana", "ben")]).tables in (
        (("ana", "ben"),),
        (("ben", "ana"),),
    )
    # Four players, Ana restricted with everyone else and Ben with Cy: one meeting of a
    # restricted pair is unavoidable (Ana's), and it is the only one.
    four = [SwissPlayer(x) for x in ("ana", "ben", "cy", "di")]
    forbidden = [("ana", "ben"), ("ana", "cy"), ("ana", "di"), ("ben", "cy")]
    for seed in range(20):
        pairing = pair_swiss(four, random.Random(seed), forbidden)
        assert restricted_cost(four, pairing, forbidden).restricted == 1
        assert frozenset(("ben", "cy")) not in met_pairs(pairing)


def test_a_restricted_pairing_is_reproducible_from_the_seed() -> None:
    players = simulate(64, 5, random.Random(11))
    ids = [p.id for p in players]
    forbidden = [(ids[0], ids[1]), (ids[2], ids[3]), (ids[10], ids[40])]
    first = pair_swiss(players, random.Random(99), forbidden)
    assert first == pair_swiss(players, random.Random(99), forbidden)
    assert not met_pairs(first) & {frozenset(p) for p in forbidden}


def test_a_late_round_of_a_big_event_keeps_restricted_teammates_apart_at_the_bound() -> None:
    players = simulate(256, 6, random.Random(8))
    by_points = sorted(players, key=lambda p: -p.points)
    # Teammates on the same points, at the top and in the middle: the likeliest to meet.
    forbidden = [(by_points[0].id, by_points[1].id), (by_points[100].id, by_points[101].id)]
    pairing = pair_swiss(players, random.Random(4), forbidden)
    result = restricted_cost(players, pairing, forbidden)
    assert result.restricted == 0
    assert result.cost.rematches == 0
    bound = lower_bound(players, forbidden)
    assert result.cost == bound
