"""Engine tests for `mtr`, `dci` and `melee`: every worked example of scoring.md s.1-2b,
each run on the fast path (what compute_standings runs) and on the reference (mtr.py)."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from functools import partial
from typing import Any

import pytest

from scoring.engine import compute_standings
from scoring.engine.document import event_from_document
from scoring.engine.records import EventRecord, StandingRow, Standings

F = Fraction
FLOOR = F(33, 100)


@pytest.fixture(autouse=True, params=["fast", "reference"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test of this module runs once per engine: the worked examples are the
    spec's required test vectors, for the reference as much as for the fast path."""
    if request.param == "reference":
        monkeypatch.setitem(
            globals(), "compute_standings", partial(compute_standings, reference=True)
        )
    return str(request.param)


def event(rounds: list[list[dict[str, Any]]], system: str = "mtr", **extra: Any) -> EventRecord:
    """A document's event whose players are everyone named in `rounds` (and `players`);
    `phases` / `playoffs` by round number."""
    players: dict[str, None] = dict.fromkeys(extra.pop("players", ()))
    for matches in rounds:
        for match in matches:
            players.update(dict.fromkeys(match["players"]))
            players.update(dict.fromkeys(match.get("absent", ())))
    phases = extra.pop("phases", {})
    playoffs = extra.pop("playoffs", ())
    document = {
        "format": "swiss-tournament/1",
        "system": system,
        "players": [{"id": p} for p in players],
        "rounds": [
            {
                "number": n,
                "phase": phases.get(n, 1),
                "playoff": n in playoffs,
                "matches": matches,
            }
            for n, matches in enumerate(rounds, start=1)
        ],
        **extra,
    }
    return event_from_document(document)


def standings(rounds: list[list[dict[str, Any]]], system: str = "mtr", **extra: Any) -> Standings:
    """Standings of a document whose players are everyone named in `rounds`."""
    return compute_standings(event(rounds, system, **extra))


def row(result: Standings, player: str) -> StandingRow:
    return next(r for r in result.rows if r.player == player)


def m(a: str, b: str, wa: int, wb: int, draws: int = 0) -> dict[str, Any]:
    return {"players": [a, b], "wins": [wa, wb], "draws": draws}


def bye(a: str) -> dict[str, Any]:
    return {"players": [a], "bye": True}


def record_rounds(
    player: str, wins: int, losses: int, draws: int, *, skip: Iterable[int] = ()
) -> list[tuple[int, dict[str, Any]]]:
    """(round, match) entries giving `player` that record against one-off fillers."""
    results = [(2, 0)] * wins + [(0, 2)] * losses + [(1, 1)] * draws
    numbers = [n for n in range(1, 20) if n not in set(skip)]
    return [
        (n, m(player, f"{player}-f{n}", wa, wb, 1 if wa == wb else 0))
        for n, (wa, wb) in zip(numbers, results, strict=False)
    ]


def build(entries: Iterable[tuple[int, dict[str, Any]]]) -> list[list[dict[str, Any]]]:
    by_round: dict[int, list[dict[str, Any]]] = {}
    for number, match in entries:
        by_round.setdefault(number, []).append(match)
    return [by_round.get(n, []) for n in range(1, max(by_round) + 1)]


# --- match points -------------------------------------------------------------------


def test_a_six_two_nil_record_is_eighteen_match_points() -> None:
    result = standings(build(record_rounds("p", 6, 2, 0)))
    assert row(result, "p").points == 18
    assert (row(result, "p").wins, row(result, "p").losses, row(result, "p").draws) == (6, 2, 0)


def test_a_four_two_two_record_is_fourteen_match_points() -> None:
    result = standings(build(record_rounds("p", 4, 2, 2)))
    assert row(result, "p").points == 14
    assert row(result, "p").played == 8


# --- game points and GW% -----------------------------------------------------------


@pytest.mark.parametrize(
    ("wins", "draws", "winner_gw", "loser_gw"),
    [
        ((2, 0), 0, F(6, 6), F(0, 6)),  # 2-0-0: 6 game points, opponent 0
        ((2, 1), 0, F(6, 9), F(3, 9)),  # 2-1-0: 6 game points, opponent 3
        ((2, 0), 1, F(7, 9), F(1, 9)),  # 2-0-1: 7 game points, opponent 1
    ],
)
def test_game_points_are_three_per_game_won_and_one_per_drawn_game(
    wins: tuple[int, int], draws: int, winner_gw: Fraction, loser_gw: Fraction
) -> None:
    # dci leaves the player's own GW% unfloored, so the raw game points show through.
    result = standings([[m("a", "b", *wins, draws)]], system="dci")
    assert row(result, "a").tiebreakers["gw"] == winner_gw
    assert row(result, "b").tiebreakers["gw"] == loser_gw


def test_gw_of_two_nil_two_one_one_two_two_nil_is_seventy_percent() -> None:
    rounds = [
        [m("p", "x1", 2, 0)],
        [m("p", "x2", 2, 1)],
        [m("p", "x3", 1, 2)],
        [m("p", "x4", 2, 0)],
    ]
    assert row(standings(rounds), "p").tiebreakers["gw"] == F(21, 30)


def test_gw_of_nine_game_points_in_eleven_games_is_floored_under_mtr_only() -> None:
    rounds = [
        [m("p", "x1", 1, 2)],
        [m("p", "x2", 1, 2)],
        [m("p", "x3", 0, 2)],
        [m("p", "x4", 1, 2)],
    ]
    assert row(standings(rounds, "mtr"), "p").tiebreakers["gw"] == FLOOR
    assert row(standings(rounds, "dci"), "p").tiebreakers["gw"] == F(9, 33)
    assert row(standings(rounds, "melee"), "p").tiebreakers["gw"] == F(1, 3)


def test_dci_still_floors_gw_when_it_is_an_opponents_value() -> None:
    rounds = [
        [m("p", "x1", 1, 2)],
        [m("p", "x2", 1, 2)],
        [m("p", "x3", 0, 2)],
        [m("p", "x4", 1, 2)],
    ]
    # x1 met only p, whose GW% 9/33 counts at the 0.33 floor in x1's OGW%.
    assert row(standings(rounds, "dci"), "x1").tiebreakers["ogw"] == FLOOR


# --- MW% (seen through the OMW% of a one-match opponent) ----------------------------


def mw_of(player_record: tuple[int, int, int], *, bye_round: bool = False) -> Fraction:
    """MW% of player `y` with that record, read as the OMW% of a one-round probe."""
    wins, losses, draws = player_record
    entries = [(1, m("y", "probe", 2, 0))]  # y's round-1 win against the probe
    skip = [1]
    if bye_round:
        entries.append((2, bye("y")))
        skip.append(2)
        wins -= 1
    entries += record_rounds("y", wins - 1, losses, draws, skip=skip)
    return row(standings(build(entries)), "probe").tiebreakers["omw"]


def test_mw_of_five_two_one_over_eight_rounds_is_two_thirds() -> None:
    assert mw_of((5, 2, 1)) == F(16, 24)


def test_mw_of_one_three_nil_dropped_after_four_rounds_is_floored() -> None:
    assert mw_of((1, 3, 0)) == FLOOR


def test_mw_of_three_two_nil_including_a_bye_is_sixty_percent() -> None:
    assert mw_of((3, 2, 0), bye_round=True) == F(9, 15)


# --- OMW% worked example -------------------------------------------------------------

OPPONENTS = [(4, 4, 0), (7, 1, 0), (1, 3, 1), (3, 3, 1), (6, 2, 0), (5, 2, 1), (4, 3, 1), (6, 1, 1)]


def omw_rounds(*, first_round_bye: bool) -> list[list[dict[str, Any]]]:
    """x meets the eight OPPONENTS (or has a round-1 bye instead of the first)."""
    entries: list[tuple[int, dict[str, Any]]] = []
    for number, (wins, losses, draws) in enumerate(OPPONENTS, start=1):
        opponent = f"o{number}"
        if number == 1 and first_round_bye:
            entries.append((1, bye("x")))
            continue
        # x loses every match: each opponent's record includes its win over x.
        entries.append((number, m(opponent, "x", 2, 0)))
        entries += record_rounds(opponent, wins - 1, losses, draws, skip=[number])
    return build(entries)


def omw_example(*, first_round_bye: bool) -> StandingRow:
    return row(standings(omw_rounds(first_round_bye=first_round_bye)), "x")


def test_omw_is_the_exact_mean_of_floored_opponent_mw() -> None:
    result = omw_example(first_round_bye=False)
    assert result.tiebreakers["omw"] == F(20711, 33600)
    assert round(float(result.tiebreakers["omw"]), 6) == 0.616399


def test_a_bye_is_not_an_opponent_in_omw() -> None:
    assert omw_example(first_round_bye=True).tiebreakers["omw"] == F(18611, 29400)


# --- special results ------------------------------------------------------------------


def test_bye_counts_as_a_two_nil_win_and_is_no_opponent() -> None:
    result = standings([[bye("a"), m("b", "c", 2, 1)]])
    a = row(result, "a")
    assert (a.points, a.wins, a.played) == (3, 1, 1)
    assert a.tiebreakers == {"omw": FLOOR, "gw": F(1), "ogw": FLOOR}


def test_melee_bye_in_best_of_one_is_a_one_nil_win() -> None:
    rounds = [[bye("a"), m("b", "c", 1, 0)], [m("a", "b", 0, 1), m("c", "d", 1, 0)]]
    # a: bye (1 game won) then a 0-1 loss: 3 game points over 2 games.
    assert row(standings(rounds, "melee", best_of=1), "a").tiebreakers["gw"] == F(1, 2)
    assert row(standings(rounds, "melee", best_of=3), "a").tiebreakers["gw"] == F(6, 9)


def test_melee_player_with_no_opponent_gets_the_literal_0_3333() -> None:
    result = standings([[bye("a"), m("b", "c", 2, 0)]], "melee", players=["z"])
    for player in ("a", "z"):
        assert row(result, player).tiebreakers["omw"] == F(3333, 10000)
        assert row(result, player).tiebreakers["ogw"] == F(3333, 10000)
    assert row(result, "z").tiebreakers["gw"] == F(1, 3)


def test_intentional_draw_is_three_drawn_games() -> None:
    result = standings([[m("a", "b", 0, 0, 3)]], "dci")
    a = row(result, "a")
    assert (a.points, a.draws, a.tiebreakers["gw"]) == (1, 1, F(3, 9))


def test_a_nil_nil_nil_draw_is_a_drawn_match_with_no_games() -> None:
    result = standings([[m("a", "b", 0, 0, 0)]])
    a = row(result, "a")
    assert (a.points, a.draws, a.played) == (1, 1, 1)
    assert a.tiebreakers["gw"] == FLOOR  # no games played: GW% at the floor


def test_double_loss_scores_nothing_but_keeps_each_as_the_others_opponent() -> None:
    double = {"players": ["a", "b"], "wins": [0, 0], "draws": 0, "result": "double_loss"}
    rounds = [[double, m("c", "d", 2, 0)], [m("a", "c", 2, 0), m("b", "d", 2, 0)]]
    result = standings(rounds)
    a = row(result, "a")
    assert (a.points, a.wins, a.losses, a.played) == (3, 1, 1, 2)
    # a met b (3 of 6) and c (3 of 6): OMW% 1/2.
    assert a.tiebreakers["omw"] == F(1, 2)
    assert a.tiebreakers["gw"] == F(6, 6)  # the double loss has no games


def test_loss_with_no_opponent_is_a_round_worth_nothing() -> None:
    rounds = [[{"players": ["a"], "loss": True}, m("b", "c", 2, 0)], [m("a", "b", 2, 0)]]
    a = row(standings(rounds), "a")
    assert (a.points, a.losses, a.played) == (3, 1, 2)
    assert a.tiebreakers["omw"] == F(1, 2)  # only b (3 of 6) is an opponent


def test_a_repeat_opponent_counts_twice() -> None:
    rounds = [[m("a", "b", 2, 0), m("c", "d", 2, 0)], [m("a", "c", 2, 0), m("b", "d", 2, 0)]]
    rounds.append([m("a", "b", 2, 0), m("c", "d", 0, 2)])
    # a met b twice and c once: b's MW% enters the mean twice.
    result = standings(rounds)
    b_mw = max(FLOOR, F(row(result, "b").points, 9))
    c_mw = max(FLOOR, F(row(result, "c").points, 9))
    assert row(result, "a").tiebreakers["omw"] == (2 * b_mw + c_mw) / 3


def test_late_entry_mw_uses_only_the_rounds_played() -> None:
    rounds = [[m("a", "b", 2, 0)], [m("a", "late", 0, 2), m("b", "c", 2, 0)]]
    result = standings(rounds)
    # late played one round and won it: MW% 1 (not 3/6); b went 1-1: MW% 1/2.
    assert row(result, "late").played == 1
    assert row(result, "a").tiebreakers["omw"] == (F(1, 2) + 1) / 2


def test_registered_players_who_never_played_rank_last_at_the_floors() -> None:
    result = standings([[m("a", "b", 2, 0)]], players=["zed", "amy"])
    assert {r.player for r in result.rows[-2:]} == {"zed", "amy"}
    for player in ("zed", "amy"):
        r = row(result, player)
        assert (r.points, r.played) == (0, 0)
        assert r.tiebreakers == {"omw": FLOOR, "gw": FLOOR, "ogw": FLOOR}


def test_order_is_points_then_omw_then_gw_then_ogw() -> None:
    rounds = [
        [m("a", "b", 2, 0), m("c", "d", 2, 1), m("e", "f", 2, 0), m("g", "h", 2, 0)],
        [m("a", "c", 2, 0), m("b", "d", 2, 0), m("e", "g", 2, 1), m("f", "h", 2, 0)],
    ]
    result = standings(rounds)
    keys = [
        (r.points, r.tiebreakers["omw"], r.tiebreakers["gw"], r.tiebreakers["ogw"])
        for r in result.rows
    ]
    assert keys == sorted(keys, reverse=True)
    assert [r.rank for r in result.rows] == list(range(1, 9))


def test_exact_ties_are_ordered_by_the_seeded_draw_stably() -> None:
    rounds = [[m("a", "b", 2, 0), m("c", "d", 2, 0)]]
    first = standings(rounds, seed=7)
    again = standings(rounds, seed=7)
    assert [r.player for r in first.rows] == [r.player for r in again.rows]
    # Adding an unrelated player does not reshuffle the draw among the others.
    more = standings(rounds, seed=7, players=["zz"])
    assert [r.player for r in more.rows if r.player != "zz"] == [r.player for r in first.rows]
    orders = {tuple(r.player for r in standings(rounds, seed=s).rows[:2]) for s in range(20)}
    assert orders == {("a", "c"), ("c", "a")}  # the seed does decide


# --- after_round and missing results ---------------------------------------------------


def test_after_round_ignores_later_rounds() -> None:
    rounds = [[m("a", "b", 2, 0)], [m("a", "b", 0, 2)]]
    document = {
        "format": "swiss-tournament/1",
        "system": "mtr",
        "players": [{"id": "a"}, {"id": "b"}],
        "rounds": [{"number": n, "matches": ms} for n, ms in enumerate(rounds, start=1)],
    }
    event = event_from_document(document)
    early = compute_standings(event, after_round=1)
    assert early.after_round == 1
    assert row(early, "a").points == 3
    assert compute_standings(event).after_round == 2
    assert (
        row(compute_standings(event), "a").points == 3
        and row(compute_standings(event), "b").points == 3
    )


def test_a_match_without_result_is_not_a_round_played() -> None:
    pending = {"players": ["a", "b"]}
    result = standings([[m("a", "b", 2, 0)], [pending]])
    assert result.after_round == 1
    assert row(result, "a").played == 1
    assert standings([[pending]]).after_round is None


# --- phases, drops and playoffs --------------------------------------------------------


def test_a_player_who_missed_the_cut_is_frozen_at_the_end_of_day_one() -> None:
    day1 = [
        [m("a", "b", 2, 0), m("c", "d", 2, 0)],
        [m("a", "c", 2, 0), m("b", "d", 2, 0)],
    ]
    day2 = [[m("a", "b", 0, 2)], [m("a", "b", 0, 2)]]
    result = standings(day1 + day2, phases={3: 2, 4: 2})
    # c and d did not play Day 2: their opponents' values stay as at the end of Day 1,
    # although a and b kept playing. d met c (round 1) and b (round 2).
    d = row(result, "d")
    # End of Day 1: c 1-1 (1/2), b 1-1 (1/2).
    assert d.tiebreakers["omw"] == F(1, 2)
    c = row(result, "c")
    # End of Day 1: d 0-2 (0.33), a 2-0 (1).
    assert c.tiebreakers["omw"] == (FLOOR + 1) / 2
    # Made-the-cut players rank above the frozen ones.
    assert [r.player for r in result.rows[:2]] == ["b", "a"]


def test_a_day_two_drop_uses_the_final_records_of_opponents() -> None:
    day1 = [[m("a", "b", 2, 0), m("c", "d", 2, 0)], [m("a", "c", 2, 0), m("b", "d", 2, 0)]]
    day2 = [[m("a", "b", 0, 2), m("c", "d", 2, 0)], [m("a", "c", 2, 0)]]
    result = standings(day1 + day2, phases={3: 2, 4: 2})
    # b played round 3 (Day 2) then dropped: b met a (final 3-1: 9/12) twice and d.
    b = row(result, "b")
    d_mw = max(FLOOR, F(row(result, "d").points, 3 * row(result, "d").played))
    assert b.tiebreakers["omw"] == (2 * F(9, 12) + d_mw) / 3


def test_playoff_rounds_decide_placings_but_never_count_for_points() -> None:
    swiss = [
        [m("a", "b", 2, 0), m("c", "d", 2, 0), m("e", "f", 2, 0)],
        [m("a", "c", 2, 0), m("b", "e", 2, 0), m("d", "f", 2, 0)],
    ]
    semis = [m("a", "d", 0, 2), m("c", "b", 2, 0)]
    final = [m("d", "c", 2, 1)]
    result = standings([*swiss, semis, final], playoffs={3, 4})
    assert [r.player for r in result.rows[:4]] == ["d", "c", "a", "b"]
    assert row(result, "d").points == 3  # Swiss only
    assert row(result, "d").played == 2
    assert [r.rank for r in result.rows] == list(range(1, 7))
    assert result.after_round == 4
