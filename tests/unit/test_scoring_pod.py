"""Engine tests for `pod` (shared/spec/scoring.md s.3)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from scoring.engine import compute_standings
from scoring.engine.document import event_from_document
from scoring.engine.pod import Record, resistance
from scoring.engine.records import Standings

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
POD_7 = SHARED / "data" / "pod-7.json"
F = Fraction


@pytest.fixture
def pod7() -> Standings:
    assert POD_7.is_file(), f"missing {POD_7}"
    return compute_standings(event_from_document(json.loads(POD_7.read_text())))


def pod(rounds: list[list[dict[str, Any]]], **extra: Any) -> Standings:
    players: dict[str, None] = {}
    for matches in rounds:
        for match in matches:
            players.update(dict.fromkeys(match["players"]))
    document = {
        "format": "swiss-tournament/1",
        "system": "pod",
        "players": [{"id": p} for p in players],
        "rounds": [{"number": n, "matches": ms} for n, ms in enumerate(rounds, start=1)],
        **extra,
    }
    return compute_standings(event_from_document(document))


def game(a: str, b: str, winner: str | None) -> dict[str, Any]:
    wins = [int(winner == a), int(winner == b)]
    return {"players": [a, b], "wins": wins, "draws": 0 if winner else 1}


def test_pod_of_seven_finishes_scott_tino_andy_derek_bernie_jorge_mariano(pod7: Standings) -> None:
    assert [r.player for r in pod7.rows] == [
        "scott", "tino", "andy", "derek", "bernie", "jorge", "mariano",
    ]  # fmt: skip
    assert [r.rank for r in pod7.rows] == list(range(1, 8))


def test_pod_of_seven_records_count_the_bye_as_a_win(pod7: Standings) -> None:
    records = {r.player: (r.wins, r.losses) for r in pod7.rows}
    assert records == {
        "scott": (6, 1), "tino": (5, 2), "derek": (4, 3), "andy": (4, 3),
        "bernie": (4, 3), "jorge": (3, 4), "mariano": (2, 5),
    }  # fmt: skip
    assert {r.player: r.points for r in pod7.rows}["derek"] == 12


def test_pod_of_seven_win_resistance_is_twelve_eleven_nine(pod7: Standings) -> None:
    wr = {r.player: r.tiebreakers["wr"] for r in pod7.rows}
    assert (wr["andy"], wr["derek"], wr["bernie"]) == (12, 11, 9)


def test_complete_round_robin_skips_both_opponent_win_percentages(pod7: Standings) -> None:
    for row in pod7.rows:
        assert row.tiebreakers["owp"] is None
        assert row.tiebreakers["oowp"] is None


def test_more_win_resistance_ranks_higher_second_vector() -> None:
    # Two 6-4 players who beat each other once: A's beaten opponents had 6, 3, 4, 4, 3, 5
    # wins (25), B's 6, 4, 4, 3, 3, 4 (24). (Partial data in the spec: the resistance sum
    # itself is checked, then the ordering it implies.)
    a = Record(wins=6, losses=4, games=[(f"a{k}", 1) for k in range(6)])
    b = Record(wins=6, losses=4, games=[(f"b{k}", 1) for k in range(6)])
    counts = dict(zip([f"a{k}" for k in range(6)], map(F, (6, 3, 4, 4, 3, 5)), strict=True))
    counts |= dict(zip([f"b{k}" for k in range(6)], map(F, (6, 4, 4, 3, 3, 4)), strict=True))
    assert (resistance(a, counts), resistance(b, counts)) == (25, 24)


def test_a_draw_adds_a_third_of_the_opponents_win_count() -> None:
    record = Record(wins=1, draws=1, games=[("x", 1), ("y", 0), ("z", -1)])
    assert resistance(record, {"x": F(3), "y": F(2), "z": F(9)}) == 3 + F(2, 3)


def test_opponents_win_percentage_decides_an_unfinished_round_robin_third_vector() -> None:
    # A and B are level on record; A's opponents went 5-3, 3-5, 4-4, 3-5 (15 of 32),
    # B's 5-3, 4-4, 4-4, 3-5 (16 of 32): B ranks above A on step 2.
    records = {
        "a": [("oa1", 5, 3), ("oa2", 3, 5), ("oa3", 4, 4), ("oa4", 3, 5)],
        "b": [("ob1", 5, 3), ("ob2", 4, 4), ("ob3", 4, 4), ("ob4", 3, 5)],
    }
    rounds: dict[int, list[dict[str, Any]]] = {}
    for player, opponents in records.items():
        for number, (opponent, wins, losses) in enumerate(opponents, start=1):
            # Each opponent beats or loses to the player in round `number` (2-2 for both
            # A and B), then plays one-off fillers in other rounds to reach its record.
            beat_player = number % 2 == 1
            rounds.setdefault(number, []).append(
                game(player, opponent, opponent if beat_player else player)
            )
            rest = [1] * (wins - beat_player) + [0] * (losses - (not beat_player))
            others = [n for n in range(1, 10) if n != number]
            for n, won in zip(others, rest, strict=False):
                filler = f"{opponent}-f{n}"
                rounds.setdefault(n, []).append(game(opponent, filler, opponent if won else filler))
    result = pod([rounds[n] for n in sorted(rounds)])
    row = {r.player: r for r in result.rows}
    assert row["a"].points == row["b"].points == 6
    assert row["a"].tiebreakers["owp"] == F(15, 8)
    assert row["b"].tiebreakers["owp"] == F(16, 8)
    order = [r.player for r in result.rows]
    assert order.index("b") < order.index("a")


def test_opponents_win_percentage_raises_each_opponent_to_0_33() -> None:
    result = pod(
        [[game("a", "b", "a"), game("c", "d", "c")], [game("a", "c", "a"), game("b", "d", "b")]]
    )
    row = {r.player: r for r in result.rows}
    # a met b (1-1: 1/2) and c (1-1: 1/2); d (0-2) counts at 0.33 for c and b.
    assert row["a"].tiebreakers["owp"] == 1
    assert row["b"].tiebreakers["owp"] == 1 + F(33, 100)
    # Step 4: the sum of the opponents' step-2 values.
    assert row["a"].tiebreakers["oowp"] == row["b"].tiebreakers["owp"] + row["c"].tiebreakers["owp"]


def test_pod_draw_is_one_point_and_a_third_of_a_win() -> None:
    result = pod([[game("a", "b", None), {"players": ["c"], "bye": True}], [game("c", "a", "c")]])
    row = {r.player: r for r in result.rows}
    assert (row["a"].points, row["a"].draws) == (1, 1)
    # c beat a, whose win count is 1/3.
    assert row["c"].tiebreakers["wr"] == F(1, 3)
