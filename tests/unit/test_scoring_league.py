"""Engine tests for `league` (shared/spec/scoring.md s.4)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from scoring.engine import compute_standings
from scoring.engine.document import event_from_document
from scoring.engine.league import table_points
from scoring.engine.records import StandingRow, Standings

F = Fraction


def league(rounds: list[list[dict[str, Any]]], players: tuple[str, ...] = ()) -> Standings:
    seen: dict[str, None] = dict.fromkeys(players)
    for matches in rounds:
        for match in matches:
            seen.update(dict.fromkeys(match["players"]))
            seen.update(dict.fromkeys(match.get("absent", ())))
    document = {
        "format": "swiss-tournament/1",
        "system": "league",
        "players": [{"id": p} for p in seen],
        "rounds": [{"number": n, "matches": ms} for n, ms in enumerate(rounds, start=1)],
    }
    return compute_standings(event_from_document(document))


def table(order: str, scores: tuple[int, ...] | None = None, **extra: Any) -> dict[str, Any]:
    """A game whose finishing order is the letters of `order` (1st first)."""
    players = list(order)
    return {
        "players": players,
        "places": list(range(1, len(players) + 1)),
        "scores": list(scores or [10 * (len(players) - k) for k in range(len(players))]),
        **extra,
    }


def row(result: Standings, player: str) -> StandingRow:
    return next(r for r in result.rows if r.player == player)


def test_placement_points_for_five_four_and_three_players() -> None:
    assert table_points((1, 2, 3, 4, 5))[0] == [12, 8, 5, 3, 2]
    assert table_points((1, 2, 3, 4))[0] == [11, 7, 4, 2]
    assert table_points((1, 2, 3))[0] == [10, 6, 2]


def test_first_and_third_in_two_four_player_games_is_fifteen_points() -> None:
    result = league([[table("abcd")], [table("cdae")]])
    assert row(result, "a").points == 15


def test_two_second_places_is_fourteen_points() -> None:
    result = league([[table("abdc")], [table("cbde")]])
    assert row(result, "b").points == 14


def test_points_vs_game_average_of_140_120_100_80() -> None:
    result = league([[table("abcd", (140, 120, 100, 80))]])
    values = [row(result, p).tiebreakers["vs_average"] for p in "abcd"]
    assert values == [F(300, 11), F(100, 11), F(-100, 11), F(-300, 11)]
    assert [round(float(v), 2) for v in values] == [27.27, 9.09, -9.09, -27.27]
    assert row(result, "a").tiebreakers["raw_total"] == 140


def test_a_table_with_mean_zero_contributes_zero() -> None:
    result = league([[table("abc", (0, 0, 0))]])
    assert all(r.tiebreakers["vs_average"] == 0 for r in result.rows)


def test_shared_places_share_the_mean_of_the_points_they_span() -> None:
    game = {"players": ["a", "b", "c", "d"], "places": [1, 1, 3, 4], "scores": [9, 9, 5, 1]}
    result = league([[game]])
    assert row(result, "a").points == row(result, "b").points == 9  # (11 + 7) / 2
    assert row(result, "a").tiebreakers["places"] == (1, 0, 0, 0, 0)
    # ... and tied on every key they share the rank (1, 1, 3, 4).
    assert [r.rank for r in result.rows] == [1, 1, 3, 4]


def test_shared_place_points_can_be_fractions() -> None:
    game = {"players": ["a", "b", "c", "d", "e"], "places": [1, 2, 2, 2, 5], "scores": [1] * 5}
    assert row(league([[game]]), "b").points == F(16, 3)  # (8 + 5 + 3) / 3


def test_an_absent_player_scores_nothing_and_shrinks_the_table() -> None:
    game = table("abc", (30, 20, 10), absent=["d"])
    result = league([[game]])
    assert [row(result, p).points for p in "abcd"] == [10, 6, 2, 0]
    assert row(result, "d").played == 0
    assert row(result, "a").tiebreakers["vs_average"] == 50  # mean of the three: 20


def test_an_agreed_bye_scores_two_points() -> None:
    result = league([[table("abcd"), {"players": ["e"], "bye": True}]])
    e = row(result, "e")
    assert (e.points, e.played, e.wins) == (2, 1, 0)
    assert e.tiebreakers["places"] == (0, 0, 0, 0, 0)


def test_order_uses_first_places_before_the_game_average() -> None:
    # a: 1st (11) + 4th (2) = 13; b: 2nd (7) + 2nd of three (6) = 13, far better scores.
    result = league([[table("abcd")], [table("cdea"), table("fbg", (10, 900, 5))]])
    a, b = row(result, "a"), row(result, "b")
    assert a.points == b.points == 13
    assert b.tiebreakers["vs_average"] > a.tiebreakers["vs_average"]
    assert (a.tiebreakers["places"], b.tiebreakers["places"]) == ((1, 0, 0, 1, 0), (0, 2, 0, 0, 0))
    assert a.rank < b.rank


def test_most_recently_ahead_breaks_a_tie_on_every_other_key() -> None:
    # Round 1: a 1st, b 2nd; round 2: b 1st, a 2nd, same scores: level on keys 1-4.
    result = league([[table("abcd")], [table("bacd")]])
    a, b = row(result, "a"), row(result, "b")
    assert (a.points, a.tiebreakers) == (b.points, b.tiebreakers)
    assert (a.rank, b.rank) == (1, 2)  # a was ahead after round 1


def test_players_never_apart_share_the_rank() -> None:
    game = {"players": ["a", "b", "c", "d"], "places": [1, 1, 3, 4], "scores": [5, 5, 3, 1]}
    result = league([[game], [game]])
    assert [r.rank for r in result.rows] == [1, 1, 3, 4]


def test_league_wins_are_first_places_and_after_round_rewinds() -> None:
    rounds = [[table("abcd")], [table("bacd")], [table("abcd")]]
    result = league(rounds)
    a = row(result, "a")
    assert (a.wins, a.losses, a.draws, a.played) == (2, 1, 0, 3)
    assert result.after_round == 3
    document = {
        "format": "swiss-tournament/1",
        "system": "league",
        "players": [{"id": p} for p in "abcd"],
        "rounds": [{"number": n, "matches": ms} for n, ms in enumerate(rounds, start=1)],
    }
    early = compute_standings(event_from_document(document), after_round=1)
    assert early.after_round == 1
    assert row(early, "a").points == 11
