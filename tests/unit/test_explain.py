"""scoring.engine.explain: the terms behind a player's tiebreakers (the player page).

The spec's worked examples, term by term, and a property: on generated events the
explanation's totals are exactly compute_standings' tiebreakers for every player, and
its terms recombine (mean or sum) to those totals.
"""

from __future__ import annotations

import ast
import json
import random
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.engine import compute_standings
from scoring.engine import explain as explain_module
from scoring.engine.document import event_from_document
from scoring.engine.explain import Explanation, LeagueTerm, OpponentTerm, PodTerm, explain
from scoring.engine.mtr import rules_for
from scoring.engine.records import (
    BYE,
    DOUBLE_LOSS,
    GAME,
    LOSS,
    PLAYED,
    EventRecord,
    MatchRecord,
    PlayerRecord,
    RoundRecord,
    StandingRow,
)
from tests.conftest import SHARED
from tests.unit.test_scoring_mtr import build, bye, event, m, omw_rounds, record_rounds

F = Fraction
FLOOR = F(33, 100)


def explained(ev: EventRecord, player: str) -> Explanation:
    found = explain(ev, player)
    assert found is not None
    return found


def row_of(ev: EventRecord, player: str) -> StandingRow:
    return next(r for r in compute_standings(ev).rows if r.player == player)


def mean(values: list[Fraction]) -> Fraction:
    return sum(values, F(0)) / len(values)


def pod_terms(found: Explanation) -> list[PodTerm]:
    terms = [t for t in found.terms if isinstance(t, PodTerm)]
    assert len(terms) == len(found.terms)
    return terms


def league_terms(found: Explanation) -> list[LeagueTerm]:
    terms = [t for t in found.terms if isinstance(t, LeagueTerm)]
    assert len(terms) == len(found.terms)
    return terms


# --- mtr / dci / melee: the worked examples of scoring.md s.1-2b ---------------------


def omw_example(*, first_round_bye: bool) -> EventRecord:
    return event(omw_rounds(first_round_bye=first_round_bye))


def test_omw_worked_example_lists_each_opponents_floored_mw_and_their_exact_mean() -> None:
    found = explained(omw_example(first_round_bye=False), "x")
    assert [t.opponent for t in found.terms] == [f"o{n}" for n in range(1, 9)]
    assert [t.mw for t in found.terms if isinstance(t, OpponentTerm)] == [
        F(12, 24), F(21, 24), FLOOR, F(10, 21), F(18, 24), F(16, 24), F(13, 24), F(19, 24),
    ]  # fmt: skip
    assert found.totals["omw"] == F(20711, 33600)
    assert found.columns == ("omw", "ogw")
    assert (found.after_round, found.phase, found.frozen) == (8, 1, False)


def test_a_round_one_bye_is_not_a_term_of_the_omw_worked_example() -> None:
    found = explained(omw_example(first_round_bye=True), "x")
    assert [t.round for t in found.terms] == list(range(2, 9))
    assert found.totals["omw"] == F(18611, 29400)


def probe_term(wins: int, losses: int, draws: int, *, bye_round: bool = False) -> OpponentTerm:
    """The one term of a probe that met `y` once, `y` having that record."""
    entries = [(1, m("y", "probe", 2, 0))]
    skip = [1]
    if bye_round:
        entries.append((2, bye("y")))
        skip.append(2)
        wins -= 1
    entries += record_rounds("y", wins - 1, losses, draws, skip=skip)
    (term,) = explained(event(build(entries)), "probe").terms
    assert isinstance(term, OpponentTerm)
    return term


def test_mw_worked_examples_appear_as_the_opponents_term() -> None:
    assert probe_term(5, 2, 1).mw == F(16, 24)
    assert probe_term(1, 3, 0).mw == FLOOR  # 3/12 = 0.25, raised to the floor
    assert probe_term(3, 2, 0, bye_round=True).mw == F(9, 15)


def test_gw_terms_are_floored_even_under_dci_while_the_players_own_gw_is_not() -> None:
    rounds = [[m("p", f"x{k}", *score)] for k, score in enumerate(((1, 2), (1, 2), (0, 2), (1, 2)))]
    dci = event(rounds, "dci")
    assert explained(dci, "p").totals["gw"] == F(9, 33)
    (term,) = explained(dci, "x0").terms
    assert isinstance(term, OpponentTerm) and term.gw == FLOOR
    assert explained(event(rounds, "melee"), "x0").terms[0] == OpponentTerm(
        1, "p", F(1, 3), F(1, 3)
    )


def test_double_loss_opponents_are_terms_and_a_no_opponent_loss_is_not() -> None:
    rounds = [
        [{"players": ["a", "b"], "wins": [0, 0], "result": "double_loss"}],
        [{"players": ["a"], "loss": True}, m("b", "c", 2, 0)],
    ]
    found = explained(event(rounds), "a")
    assert [(t.round, t.opponent) for t in found.terms] == [(1, "b")]
    (term,) = found.terms
    assert isinstance(term, OpponentTerm)
    assert term.mw == F(3, 6) and term.gw == F(6, 6)  # b: a loss and a 2-0 win


def test_a_player_who_met_nobody_gets_the_presets_fixed_value_and_no_terms() -> None:
    rounds = [[bye("a"), m("b", "c", 2, 0)]]
    assert explained(event(rounds), "a").terms == ()
    assert explained(event(rounds), "a").totals["omw"] == FLOOR
    assert explained(event(rounds, "melee"), "a").totals["ogw"] == F(3333, 10000)


def test_playoffs_and_unreported_matches_are_not_terms() -> None:
    rounds = [
        [m("a", "b", 2, 0), m("c", "d", 2, 1)],
        [m("a", "c", 2, 1), {"players": ["b", "d"]}],
        [m("a", "c", 0, 2)],
    ]
    ev = event(rounds, playoffs=(3,))
    found = explained(ev, "a")
    assert [(t.round, t.opponent) for t in found.terms] == [(1, "b"), (2, "c")]
    assert found.after_round == 2
    assert found.totals == row_of(ev, "a").tiebreakers


def cut_event() -> EventRecord:
    """Day 1 (rounds 1-2) for four players, Day 2 (round 3) for the top two only."""
    return event(
        [
            [m("a", "b", 2, 0), m("c", "d", 2, 0)],
            [m("a", "c", 2, 1), m("b", "d", 2, 1)],
            [m("a", "c", 0, 2)],
        ],
        phases={3: 2},
    )


def test_a_player_cut_after_day_one_is_explained_with_opponents_values_as_of_day_one() -> None:
    ev = cut_event()
    found = explained(ev, "b")
    assert (found.after_round, found.phase, found.frozen) == (2, 1, True)
    # b met a (2-0 on Day 1, 2-1 after Day 2) and d (0-2): a's MW% as it stood then.
    assert [(t.opponent, t.mw) for t in found.terms] == [("a", F(1)), ("d", FLOOR)]
    assert found.totals["omw"] == mean([F(1), FLOOR]) == row_of(ev, "b").tiebreakers["omw"]


def test_a_player_who_made_day_two_uses_the_final_values() -> None:
    found = explained(cut_event(), "c")
    assert (found.after_round, found.phase, found.frozen) == (3, 2, False)
    assert [(t.round, t.opponent, t.mw) for t in found.terms] == [
        (1, "d", FLOOR),
        (2, "a", F(6, 9)),
        (3, "a", F(6, 9)),
    ]


def test_a_day_two_drop_is_not_frozen_but_a_day_one_drop_is_frozen_at_the_end_of_day_one() -> None:
    ev = event(
        [
            [m("a", "b", 2, 0), m("c", "d", 2, 0), m("e", "f", 2, 0)],
            [m("a", "c", 2, 0), m("b", "e", 2, 0)],  # d and f dropped after round 1
            [m("a", "c", 2, 0), {"players": ["b"], "bye": True}],
            [m("a", "b", 2, 0)],  # c dropped after round 3, in Day 2
        ],
        phases={3: 2, 4: 2},
    )
    early = explained(ev, "d")
    assert (early.after_round, early.frozen) == (2, True)  # the end of Day 1, not round 1
    late = explained(ev, "c")
    assert (late.after_round, late.frozen) == (4, False)
    for player in "abcdef":
        assert explained(ev, player).totals == row_of(ev, player).tiebreakers


def test_an_unknown_player_has_no_explanation() -> None:
    assert explain(cut_event(), "nobody") is None


# --- pod: the 7-player vector of scoring.md s.3 ---------------------------------------


def pod7() -> EventRecord:
    return event_from_document(json.loads((SHARED / "data" / "pod-7.json").read_text()))


def wins_adding(found: Explanation) -> list[tuple[str | None, Fraction]]:
    return [(t.opponent, t.wr) for t in pod_terms(found) if t.outcome in ("win", "bye")]


def test_pod_seven_derek_win_resistance_is_andy_4_tino_5_mariano_2_and_the_bye_0() -> None:
    found = explained(pod7(), "derek")
    assert sorted(wins_adding(found), key=str) == sorted(
        [("andy", 4), ("tino", 5), ("mariano", 2), (None, 0)], key=str
    )
    assert found.totals["wr"] == 11
    assert all(t.wr == 0 for t in pod_terms(found) if t.outcome == "loss")


def test_pod_seven_andy_twelve_and_bernie_nine() -> None:
    andy, bernie = explained(pod7(), "andy"), explained(pod7(), "bernie")
    assert sorted(wins_adding(andy), key=str) == sorted(
        [(None, 0), ("scott", 6), ("bernie", 4), ("mariano", 2)], key=str
    )
    assert sorted(wins_adding(bernie), key=str) == sorted(
        [("mariano", 2), ("derek", 4), (None, 0), ("jorge", 3)], key=str
    )
    assert (andy.totals["wr"], bernie.totals["wr"]) == (12, 9)


def test_a_complete_round_robin_skips_both_opponent_win_percentages() -> None:
    ev = pod7()
    for r in compute_standings(ev).rows:
        found = explained(ev, r.player)
        assert found.skipped == ("owp", "oowp") and found.columns == ("wr", "wrr")
        assert all(t.win_pct is None and t.owp is None for t in pod_terms(found))
        assert found.totals == r.tiebreakers


def test_pod_opponents_win_percentage_terms_are_floored_at_0_33() -> None:
    game = {"wins": [1, 0], "draws": 0}
    ev = event(
        [
            [{"players": ["a", "b"], **game}, {"players": ["c", "d"], **game}],
            [{"players": ["a", "c"], **game}, {"players": ["b", "d"], **game}],
        ],
        "pod",
    )
    b = explained(ev, "b")
    assert [(t.opponent, t.win_pct) for t in pod_terms(b)] == [("a", 1), ("d", FLOOR)]
    assert b.totals["owp"] == 1 + FLOOR
    # Step 4: each opponent's own step-2 value.
    a = explained(ev, "a")
    assert [t.owp for t in pod_terms(a)] == [b.totals["owp"], explained(ev, "c").totals["owp"]]


def test_a_pod_draw_adds_a_third_of_the_opponents_win_count() -> None:
    ev = event(
        [
            [{"players": ["a", "b"], "wins": [0, 0], "draws": 1}, {"players": ["c"], "bye": True}],
            [{"players": ["c", "a"], "wins": [1, 0], "draws": 0}],
        ],
        "pod",
    )
    # a: a draw and a loss, so a win count of 1/3; b drew with a.
    assert [(t.outcome, t.wr) for t in pod_terms(explained(ev, "b"))] == [("draw", F(1, 9))]
    # c beat a: a's win count (1/3); a's win % 1/6 counts as 0.33; a's own opponents'
    # win % is b's 1/3 + c's 1; a's win resistance is a third of b's win count.
    assert explained(ev, "c").terms == (
        PodTerm(1, None, "bye", None, F(0), None, F(0)),
        PodTerm(2, "a", "win", F(33, 100), F(1, 3), F(4, 3), F(1, 9)),
    )


# --- league: scoring.md s.4 -------------------------------------------------------------


def test_league_140_120_100_80_table_gives_plus_27_27_for_the_winner() -> None:
    game = {"players": list("abcd"), "places": [1, 2, 3, 4], "scores": [140, 120, 100, 80]}
    ev = event([[game]], "league")
    (term,) = explained(ev, "a").terms
    assert term == LeagueTerm(1, "game", F(11), 4, 1, F(140), F(110), F(300, 11))
    assert round(float(F(300, 11)), 2) == 27.27
    assert [league_terms(explained(ev, p))[0].vs_average for p in "bcd"] == [
        F(100, 11), F(-100, 11), F(-300, 11),
    ]  # fmt: skip


def test_league_terms_cover_games_shared_places_byes_and_absences() -> None:
    rounds = [
        [{"players": list("abcd"), "places": [1, 1, 3, 4], "scores": [9, 9, 5, 1]}],
        [
            {"players": list("abc"), "places": [3, 2, 1], "scores": [0, 0, 0], "absent": ["e"]},
            {"players": ["d"], "bye": True},
        ],
    ]
    ev = event(rounds, "league")
    a = league_terms(explained(ev, "a"))
    assert [(t.kind, t.points, t.place) for t in a] == [
        ("game", F(9), 1),  # (11 + 7) / 2
        ("game", F(2), 3),
    ]
    assert a[1].vs_average == 0  # a table whose mean is 0
    assert [t.kind for t in league_terms(explained(ev, "d"))] == ["game", "bye"]
    assert explained(ev, "e").terms == (LeagueTerm(2, "absent", F(0)),)
    for r in compute_standings(ev).rows:
        found = explained(ev, r.player)
        assert (found.points, found.totals) == (r.points, r.tiebreakers)


# --- property: totals are the engine's, terms recombine to them ------------------------

RESULTS = [(2, 0, 0), (2, 1, 0), (0, 2, 0), (1, 2, 0), (1, 1, 1), (0, 0, 3), (0, 0, 0), (2, 0, 1)]


@st.composite
def swiss_events(draw: st.DrawFn) -> EventRecord:
    """As test_scoring_properties.swiss_events, plus explicit drops (recorded on the
    player), up to two cuts, a phase that may have no result yet, and playoffs."""
    size = draw(st.integers(2, 12))
    rounds = draw(st.integers(1, 6))
    rng = random.Random(draw(st.integers(0, 2**32)))
    ids = [f"p{k}" for k in range(size)]
    cuts = sorted(draw(st.lists(st.integers(2, rounds + 1), max_size=2, unique=True)))
    dropped: dict[str, int] = {}
    records = []
    active = list(ids)
    phase = 1
    for number in range(1, rounds + 1):
        if number in cuts:
            phase += 1
            active = active[: max(2, len(active) // 2)]
        for p in list(active):
            if len(active) > 2 and rng.random() < 0.08:  # drops after the previous round
                active.remove(p)
                dropped[p] = number - 1
        pool = [p for p in active if rng.random() > 0.1]  # no-shows
        rng.shuffle(pool)
        matches: list[MatchRecord] = []
        while len(pool) >= 2:
            a, b = pool.pop(), pool.pop()
            roll = rng.random()
            if roll < 0.06:
                matches.append(MatchRecord(kind=DOUBLE_LOSS, players=(a, b), wins=(0, 0)))
            elif roll < 0.12:
                matches.append(MatchRecord(kind=PLAYED, players=(a, b)))  # no result yet
            else:
                wa, wb, drawn = rng.choice(RESULTS)
                matches.append(MatchRecord(kind=PLAYED, players=(a, b), wins=(wa, wb), draws=drawn))
        if pool:
            kind = BYE if rng.random() < 0.8 else LOSS
            matches.append(MatchRecord(kind=kind, players=(pool.pop(),)))
        records.append(RoundRecord(number=number, matches=tuple(matches), phase=phase))
    if draw(st.booleans()) and len(active) >= 2:  # a top-2/top-4 playoff round
        top = active[: 4 if len(active) >= 4 else 2]
        matches = [
            MatchRecord(kind=PLAYED, players=(top[k], top[k + 1]), wins=(2, rng.randint(0, 1)))
            for k in range(0, len(top) - 1, 2)
        ]
        records.append(
            RoundRecord(number=rounds + 1, matches=tuple(matches), phase=phase, playoff=True)
        )
    return EventRecord(
        system=draw(st.sampled_from(["mtr", "dci", "melee"])),
        players=tuple(PlayerRecord(id=p, dropped_after_round=dropped.get(p)) for p in ids),
        rounds=tuple(records),
        best_of=draw(st.sampled_from([1, 3])),
        seed=draw(st.integers(0, 2**32)),
    )


@st.composite
def pod_events(draw: st.DrawFn) -> EventRecord:
    """Pods of 3-8: a full round robin (circle method) or random pairings, with draws,
    double losses, byes, no-opponent losses, unreported games and a playoff."""
    size = draw(st.integers(3, 8))
    rng = random.Random(draw(st.integers(0, 2**32)))
    ids = [f"p{k}" for k in range(size)]
    seats: list[str | None] = [*ids, None] if size % 2 else list(ids)
    if draw(st.booleans()):  # every player meets every other once
        schedule = []
        for _ in range(len(seats) - 1):
            half = len(seats) // 2
            schedule.append([(seats[k], seats[-1 - k]) for k in range(half)])
            seats = [seats[0], seats[-1], *seats[1:-1]]
    else:
        schedule = []
        for _ in range(draw(st.integers(1, size))):
            order = list(seats)
            rng.shuffle(order)
            schedule.append([(order[k], order[k + 1]) for k in range(0, len(order) - 1, 2)])
    records = []
    for number, pairs in enumerate(schedule, start=1):
        matches = []
        for a, b in pairs:
            if a is None or b is None:
                only = a or b
                assert only is not None
                kind = BYE if rng.random() < 0.85 else LOSS
                matches.append(MatchRecord(kind=kind, players=(only,)))
                continue
            roll = rng.random()
            if roll < 0.05:
                matches.append(MatchRecord(kind=DOUBLE_LOSS, players=(a, b), wins=(0, 0)))
            elif roll < 0.1:
                matches.append(MatchRecord(kind=PLAYED, players=(a, b)))
            else:
                wins = rng.choice([(1, 0), (0, 1), (0, 0), (2, 1)])
                matches.append(MatchRecord(kind=PLAYED, players=(a, b), wins=wins))
        records.append(RoundRecord(number=number, matches=tuple(matches)))
    if draw(st.booleans()):
        final = MatchRecord(kind=PLAYED, players=(ids[0], ids[1]), wins=(1, 0))
        records.append(RoundRecord(number=len(records) + 1, matches=(final,), playoff=True))
    return EventRecord(
        system="pod",
        players=tuple(PlayerRecord(id=p) for p in ids),
        rounds=tuple(records),
        best_of=1,
        seed=draw(st.integers(0, 2**32)),
    )


@st.composite
def league_events(draw: st.DrawFn) -> EventRecord:
    """Leagues of 3-11: tables of 3-5 with shared places, absences, byes, tables whose
    mean is 0, fractional scores and unreported games."""
    size = draw(st.integers(3, 11))
    rng = random.Random(draw(st.integers(0, 2**32)))
    ids = [f"p{k}" for k in range(size)]
    records = []
    for number in range(1, draw(st.integers(1, 4)) + 1):
        pool = list(ids)
        rng.shuffle(pool)
        matches = []
        while len(pool) >= 3:
            table = [pool.pop() for _ in range(min(len(pool), rng.choice([3, 4, 5])))]
            if len(pool) in (1, 2) and len(table) < 5:
                table.append(pool.pop())
            absent = tuple(table[3:4]) if len(table) > 3 and rng.random() < 0.2 else ()
            present = tuple(p for p in table if p not in absent)
            if rng.random() < 0.1:
                matches.append(MatchRecord(kind=GAME, players=present, absent=absent))
                continue
            places = tuple(rng.randint(1, len(present)) for _ in present)
            blank = rng.random() < 0.1  # everyone scored 0: a table mean of 0
            scores = tuple(
                F(0) if blank else F(rng.randint(0, 400), rng.choice([1, 2, 4])) for _ in present
            )
            matches.append(
                MatchRecord(kind=GAME, players=present, places=places, scores=scores, absent=absent)
            )
        matches += [MatchRecord(kind=BYE, players=(p,)) for p in pool]
        records.append(RoundRecord(number=number, matches=tuple(matches)))
    return EventRecord(
        system="league",
        players=tuple(PlayerRecord(id=p) for p in ids),
        rounds=tuple(records),
        seed=draw(st.integers(0, 2**32)),
    )


def assert_terms_recombine(ev: EventRecord, found: Explanation) -> None:
    zero = F(0)
    totals = found.totals
    if ev.system == "pod":
        terms = pod_terms(found)
        assert sum((t.wr for t in terms), zero) == totals["wr"]
        assert sum((t.wrr for t in terms), zero) == totals["wrr"]
        if found.skipped:
            assert totals["owp"] is None and totals["oowp"] is None
        else:
            with_opponent = [t for t in terms if t.opponent is not None]
            assert sum((t.win_pct or zero for t in with_opponent), zero) == totals["owp"]
            assert sum((t.owp or zero for t in with_opponent), zero) == totals["oowp"]
    elif ev.system == "league":
        games = league_terms(found)
        assert sum((t.points for t in games), zero) == found.points
        assert sum((t.vs_average or zero for t in games), zero) == totals["vs_average"]
        assert sum((t.score or zero for t in games), zero) == totals["raw_total"]
        places = totals["places"]
        assert isinstance(places, tuple)
        for k, count in enumerate(places, start=1):
            assert count == sum(1 for t in games if t.place == k)
    else:
        swiss = [t for t in found.terms if isinstance(t, OpponentTerm)]
        if swiss:
            assert mean([t.mw for t in swiss]) == totals["omw"]
            assert mean([t.gw for t in swiss]) == totals["ogw"]
        else:
            assert totals["omw"] == totals["ogw"] == rules_for(ev).no_opponent


def check_every_player(ev: EventRecord) -> None:
    rows = compute_standings(ev).rows
    last = max((r.phase for r in ev.rounds if not r.playoff and any(
        m.has_result for m in r.matches)), default=0)  # fmt: skip
    for r in rows:
        found = explained(ev, r.player)
        assert found.totals == r.tiebreakers, r.player
        assert found.points == r.points, r.player
        assert_terms_recombine(ev, found)
        if ev.system in ("mtr", "dci", "melee"):
            # Frozen exactly when the player played no round of the last phase.
            assert found.frozen == (found.phase is not None and found.phase < last)
            assert all(isinstance(t, OpponentTerm) for t in found.terms)
            assert all(t.round <= (found.after_round or 0) for t in found.terms)


@settings(max_examples=150, deadline=None)
@given(swiss_events())
def test_swiss_explanations_total_to_the_engines_tiebreakers_for_every_player(
    ev: EventRecord,
) -> None:
    check_every_player(ev)


@settings(max_examples=60, deadline=None)
@given(swiss_events())
def test_swiss_explanations_ignore_the_order_of_matches_and_rounds(ev: EventRecord) -> None:
    rounds = [replace(r, matches=r.matches[::-1]) for r in reversed(ev.rounds)]
    shuffled = replace(ev, rounds=tuple(rounds), players=ev.players[::-1])
    for p in ev.players:
        a, b = explained(ev, p.id), explained(shuffled, p.id)
        assert (a.totals, a.after_round, a.frozen) == (b.totals, b.after_round, b.frozen)
        assert sorted(map(repr, a.terms)) == sorted(map(repr, b.terms))


@settings(max_examples=100, deadline=None)
@given(pod_events())
def test_pod_explanations_total_to_the_engines_tiebreakers_for_every_player(
    ev: EventRecord,
) -> None:
    check_every_player(ev)


@settings(max_examples=100, deadline=None)
@given(league_events())
def test_league_explanations_total_to_the_engines_tiebreakers_for_every_player(
    ev: EventRecord,
) -> None:
    check_every_player(ev)


# --- explain reads the engines through their public names only -------------------------


def test_explain_uses_no_private_name_of_another_module() -> None:
    """A private name is free to change with its module's implementation (the packed
    fields of the fast Swiss path, say); explain.py must keep working when it does."""
    tree = ast.parse(Path(explain_module.__file__).read_text(encoding="utf-8"))
    modules = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module is None
        for alias in node.names
    }
    assert {"league", "mtr", "pod"} <= modules
    private = [
        f"{node.value.id}.{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in modules
        and node.attr.startswith("_")
    ]
    private += [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.name.startswith("_")
    ]
    assert private == []
