"""Table numbers with fixed seats (tournaments.pairing.table_numbers): pure rules."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.pairing.table_numbers import number_tables


def test_without_fixed_seats_tables_are_numbered_one_up_byes_last() -> None:
    assert number_tables([["a", "b"], ["c", "d"]], 1, {}) == [1, 2, 3]


def test_a_fixed_player_plays_at_their_table_and_the_others_fill_the_rest() -> None:
    tables = [["a", "b"], ["c", "d"], ["e", "f"], ["g", "h"]]
    assert number_tables(tables, 0, {"e": 2}) == [1, 3, 2, 4]


def test_a_stream_table_beyond_the_matches_leaves_no_hole_among_the_others() -> None:
    tables = [[f"p{2 * k}", f"p{2 * k + 1}"] for k in range(8)]  # 16 players
    numbers = number_tables(tables, 0, {"p5": 100})
    assert numbers[2] == 100
    assert sorted(numbers) == [1, 2, 3, 4, 5, 6, 7, 100]


def test_two_fixed_players_paired_together_play_at_the_lower_table() -> None:
    tables = [["a", "b"], ["c", "d"], ["e", "f"]]
    numbers = number_tables(tables, 0, {"b": 7, "a": 3})
    assert numbers[0] == 3
    # Table 7 is free this round; the other matches take the lowest free numbers.
    assert numbers[1:] == [1, 2]
    # Whoever sits first, the same table.
    assert number_tables([["b", "a"], ["c", "d"], ["e", "f"]], 0, {"b": 7, "a": 3})[0] == 3


def test_a_freed_fixed_table_is_used_by_another_match() -> None:
    # d's table 2 is free (d is at a's table 1): the next match in order takes it.
    numbers = number_tables([["a", "d"], ["b", "c"], ["e", "f"]], 0, {"a": 1, "d": 2})
    assert numbers == [1, 2, 3]


def test_a_bye_never_takes_a_fixed_table() -> None:
    # Nine players: four matches and a bye; the bye would be table 5, someone's fixed
    # table, so it is 6. The fixed player on a bye does not bring the bye to their table.
    tables = [["a", "b"], ["c", "d"], ["e", "f"], ["g", "h"]]
    assert number_tables(tables, 1, {"x": 5}) == [1, 2, 3, 4, 6]
    assert number_tables(tables, 1, {"i": 2}) == [1, 2, 3, 4, 5]
    assert number_tables(tables, 1, {"a": 5}) == [5, 1, 2, 3, 4]
    assert number_tables(tables, 1, {"a": 4, "i": 5}) == [4, 1, 2, 3, 6]


def test_a_league_table_of_four_with_two_fixed_players_takes_the_lower_table() -> None:
    assert number_tables([["a", "b", "c", "d"], ["e", "f", "g"]], 0, {"c": 9, "d": 4}) == [4, 1]


@st.composite
def rounds(draw: st.DrawFn) -> tuple[list[list[int]], int, dict[int, int]]:
    players = draw(st.integers(0, 40))
    byes = draw(st.integers(0, min(players, 2)))
    playing = players - byes
    tables = [[2 * k, 2 * k + 1] for k in range(playing // 2)]
    everyone = list(range(players + 5))  # some fixed players do not play (dropped)
    chosen = draw(st.lists(st.sampled_from(everyone), unique=True, max_size=8))
    numbers = draw(
        st.lists(st.integers(1, 60), unique=True, min_size=len(chosen), max_size=len(chosen))
    )
    return tables, byes, dict(zip(chosen, numbers, strict=True))


@settings(deadline=None)
@given(case=rounds())
def test_every_table_number_is_distinct_fixed_seats_hold_and_no_bye_takes_one(
    case: tuple[list[list[int]], int, dict[int, int]],
) -> None:
    tables, byes, fixed = case
    numbers = number_tables(tables, byes, fixed)
    assert len(numbers) == len(tables) + byes
    assert len(set(numbers)) == len(numbers)
    assert all(n >= 1 for n in numbers)
    for table, number in zip(tables, numbers, strict=False):
        mine = [fixed[p] for p in table if p in fixed]
        if mine:
            assert number == min(mine)
    assert not set(numbers[len(tables) :]) & set(fixed.values())
    # The unfixed matches fill from table 1 without holes, around the fixed matches.
    held = {n for t, n in zip(tables, numbers, strict=False) if any(p in fixed for p in t)}
    unfixed = [n for t, n in zip(tables, numbers, strict=False) if not any(p in fixed for p in t)]
    expected = [n for n in range(1, len(tables) + len(held) + 1) if n not in held]
    assert unfixed == expected[: len(unfixed)]
    # Same input, same numbers.
    assert number_tables(tables, byes, fixed) == numbers
