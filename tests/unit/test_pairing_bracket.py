"""Single-elimination top cut: seeding, advancing, placings, suggested Swiss rounds."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.pairing.bracket import (
    BracketMatch,
    SeedChange,
    final_placings,
    next_round,
    seed_changes,
    seed_top_cut,
    suggested_swiss_rounds,
)

STANDINGS = [f"s{i}" for i in range(1, 11)]  # s1 is first after the Swiss


def seeds(matches: tuple[BracketMatch, ...]) -> list[tuple[int, int]]:
    return [(m.high_seed, m.low_seed) for m in matches]


def play_out(size: int, rng: random.Random) -> list[tuple[BracketMatch, ...]]:
    rounds = [seed_top_cut(STANDINGS, size)]
    while True:
        decided = tuple(m.with_winner(rng.choice([m.high, m.low])) for m in rounds[-1])
        rounds[-1] = decided
        if len(decided) == 1:
            return rounds
        rounds.append(next_round(decided))


@pytest.fixture
def rng() -> random.Random:
    return random.Random(8)


def test_top_8_is_seeded_1_8_4_5_2_7_3_6_in_bracket_order() -> None:
    matches = seed_top_cut(STANDINGS, 8)
    assert seeds(matches) == [(1, 8), (4, 5), (2, 7), (3, 6)]
    assert [(m.high, m.low) for m in matches] == [
        ("s1", "s8"),
        ("s4", "s5"),
        ("s2", "s7"),
        ("s3", "s6"),
    ]


def test_top_4_and_top_2_seeding() -> None:
    assert seeds(seed_top_cut(STANDINGS, 4)) == [(1, 4), (2, 3)]
    assert seeds(seed_top_cut(STANDINGS, 2)) == [(1, 2)]


def test_winners_of_adjacent_matches_meet_with_the_better_seed_high() -> None:
    quarters = seed_top_cut(STANDINGS, 8)
    winners = ["s8", "s4", "s2", "s6"]
    semis = next_round([m.with_winner(w) for m, w in zip(quarters, winners, strict=True)])
    assert [(m.high, m.low) for m in semis] == [("s4", "s8"), ("s2", "s6")]
    assert seeds(semis) == [(4, 8), (2, 6)]
    final = next_round([semis[0].with_winner("s8"), semis[1].with_winner("s2")])
    assert [(m.high, m.low) for m in final] == [("s2", "s8")]


def test_seeds_1_and_2_can_only_meet_in_the_final() -> None:
    quarters = seed_top_cut(STANDINGS, 8)
    semis = next_round([m.with_winner(m.high) for m in quarters])
    assert {m.high for m in semis} == {"s1", "s2"}
    assert all({m.high, m.low} != {"s1", "s2"} for m in semis)


@given(seed=st.integers(0, 2**32), size=st.sampled_from([2, 4, 8]))
def test_final_placings_rank_by_elimination_round_then_swiss_seed(seed: int, size: int) -> None:
    rounds = play_out(size, random.Random(seed))
    placings = final_placings(rounds)
    assert sorted(placings) == sorted(STANDINGS[:size])
    final = rounds[-1][0]
    assert placings[0] == final.winner
    assert placings[1] == final.loser
    if size >= 4:
        semi_losers = {m.loser for m in rounds[-2]}
        assert set(placings[2:4]) == semi_losers
        assert list(placings[2:4]) == sorted(semi_losers, key=STANDINGS.index)
    if size == 8:
        quarter_losers = {m.loser for m in rounds[0]}
        assert list(placings[4:8]) == sorted(quarter_losers, key=STANDINGS.index)


def test_with_winner_rejects_a_player_not_in_the_match() -> None:
    with pytest.raises(ValueError):
        seed_top_cut(STANDINGS, 2)[0].with_winner("s9")


def test_next_round_needs_every_winner(rng: random.Random) -> None:
    with pytest.raises(ValueError, match="winner"):
        next_round(seed_top_cut(STANDINGS, 4))


def test_the_final_has_no_next_round() -> None:
    final = seed_top_cut(STANDINGS, 2)[0].with_winner("s1")
    with pytest.raises(ValueError):
        next_round([final])


@pytest.mark.parametrize("size", [3, 6, 16])
def test_unsupported_cut_sizes_are_rejected(size: int) -> None:
    with pytest.raises(ValueError):
        seed_top_cut(STANDINGS, size)


def test_a_cut_larger_than_the_field_is_rejected() -> None:
    with pytest.raises(ValueError):
        seed_top_cut(STANDINGS[:5], 8)


@pytest.mark.parametrize(
    ("players", "rounds"),
    [
        (2, 3),
        (8, 3),
        (9, 5),
        (16, 5),
        (17, 5),
        (32, 5),
        (33, 6),
        (64, 6),
        (65, 7),
        (128, 7),
        (129, 8),
        (226, 8),
        (227, 9),
        (409, 9),
        (410, 10),
        (5000, 10),
    ],
)
def test_suggested_swiss_rounds_follow_the_magic_tournament_rules(
    players: int, rounds: int
) -> None:
    assert suggested_swiss_rounds(players) == rounds


@given(n=st.integers(2, 10_000))
def test_suggested_swiss_rounds_are_at_least_3_and_never_decrease(n: int) -> None:
    assert 3 <= suggested_swiss_rounds(n) <= suggested_swiss_rounds(n + 1)


def test_suggested_swiss_rounds_rejects_a_field_of_one() -> None:
    with pytest.raises(ValueError):
        suggested_swiss_rounds(1)


# --- Seed changes after a correction ----------------------------------------------------------


def test_a_seed_who_falls_below_the_cut_goes_out_and_the_next_player_comes_in() -> None:
    seeds = dict(enumerate(["a", "b", "c", "d"], start=1))
    changes = seed_changes(seeds, ["a", "e", "b", "c", "d"])
    assert changes == (
        SeedChange("b", 2, 3, 3),
        SeedChange("c", 3, 4, 4),
        SeedChange("d", 4, 5, None),
        SeedChange("e", None, 2, 2),
    )
    assert [c.kind for c in changes] == ["moved", "moved", "out", "in"]


def test_no_seed_changes_while_the_standings_agree_with_the_bracket() -> None:
    seeds = dict(enumerate(["a", "b"], start=1))
    assert seed_changes(seeds, ["a", "b", "c"]) == ()


def test_a_seeded_player_missing_from_the_standings_is_out_with_no_place() -> None:
    assert seed_changes({1: "a", 2: "b"}, ["a", "c"]) == (
        SeedChange("b", 2, None, None),
        SeedChange("c", None, 2, 2),
    )


def test_seed_changes_refuse_a_bracket_that_is_not_numbered_from_1() -> None:
    with pytest.raises(ValueError, match=r"1\.\.size"):
        seed_changes({1: "a", 3: "b"}, ["a", "b"])
    with pytest.raises(ValueError, match="duplicate"):
        seed_changes({1: "a", 2: "b"}, ["a", "b", "a"])


@given(data=st.data())
def test_applying_the_seed_changes_gives_exactly_the_reseeded_bracket(data: st.DataObject) -> None:
    size = data.draw(st.sampled_from([2, 4, 8]))
    pool = [f"p{i}" for i in range(size + data.draw(st.integers(0, 6)))]
    seeds = dict(enumerate(data.draw(st.permutations(pool))[:size], start=1))
    ranked = data.draw(st.permutations(pool))
    order = ranked[: data.draw(st.integers(0, len(pool)))]  # some may be no longer ranked

    changes = seed_changes(seeds, order)

    reseeded = dict(enumerate(order[:size], start=1))
    bracket = {seed: player for seed, player in seeds.items()}
    for change in changes:
        if change.seed is not None:
            assert bracket.pop(change.seed) == change.player
    for change in changes:
        if change.new_seed is not None:
            assert change.new_seed not in bracket
            bracket[change.new_seed] = change.player
    assert bracket == reseeded
    assert (changes == ()) == (reseeded == seeds)
    assert len({c.player for c in changes}) == len(changes)
    place = {player: k for k, player in enumerate(order, start=1)}
    assert all(c.place == place.get(c.player) for c in changes)
    assert all(c.seed != c.new_seed for c in changes)
    if len(order) >= size:  # a full cut: every seat lost is a seat taken
        assert sum(c.kind == "in" for c in changes) == sum(c.kind == "out" for c in changes)
