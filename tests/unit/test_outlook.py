"""The "what do I need?" core (scoring/engine/outlook.py, issue 15)."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Iterator, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.engine import outlook as outlook_module
from scoring.engine.api import compute_standings
from scoring.engine.document import event_from_document
from scoring.engine.outlook import (
    Certain,
    ChanceEstimate,
    Outlook,
    PlayerOutlook,
    compute_outlook,
    margin_of_error,
    simulation_for_tests,
)
from scoring.engine.records import (
    BYE,
    LOSS,
    PLAYED,
    EventRecord,
    MatchRecord,
    PlayerRecord,
    RoundRecord,
)
from tests.conftest import SHARED

# --- building events ----------------------------------------------------------------------


def event_with_points(
    points: dict[str, int], pairs: Sequence[tuple[str, str]], played: int
) -> EventRecord:
    """`played` rounds of byes (3 points) and no-opponent losses giving each player the
    points asked for, then a current round with `pairs` paired and no result yet."""
    rounds = []
    for number in range(1, played + 1):
        matches = tuple(
            MatchRecord(kind=BYE if points[p] // 3 >= number else LOSS, players=(p,))
            for p in points
        )
        rounds.append(RoundRecord(number, matches))
    current = tuple(MatchRecord(kind=PLAYED, players=pair) for pair in pairs)
    rounds.append(RoundRecord(played + 1, current))
    return EventRecord(
        system="mtr", players=tuple(PlayerRecord(p) for p in points), rounds=tuple(rounds)
    )


RESULT_SCORES = (((2, 0), 0), ((2, 1), 0), ((1, 2), 0), ((0, 2), 0), ((1, 1), 1), ((0, 0), 3))


def swiss_event(
    rng: random.Random,
    players: int,
    played: int,
    *,
    entered: int = 0,
    drops: int = 0,
    system: str = "mtr",
) -> EventRecord:
    """`played` Swiss-like rounds (paired top-down by points), then a paired current round
    with `entered` results already in; `drops` players dropped before it."""
    ids = [f"p{i:02}" for i in range(players)]
    points = dict.fromkeys(ids, 0)
    rounds: list[RoundRecord] = []
    dropped: dict[str, int] = {}
    for number in range(1, played + 2):
        if number == played + 1:
            for p in rng.sample(ids, drops):
                dropped[p] = played
        active = [p for p in ids if p not in dropped]
        active.sort(key=lambda p: (points[p], rng.random()), reverse=True)
        matches: list[MatchRecord] = []
        if len(active) % 2:
            bye = active.pop()
            matches.append(MatchRecord(kind=BYE, players=(bye,)))
            points[bye] += 3
        for a, b in zip(active[::2], active[1::2], strict=True):
            if number == played + 1 and len(matches) >= entered:
                matches.append(MatchRecord(kind=PLAYED, players=(a, b)))
                continue
            wins, draws = rng.choice(RESULT_SCORES)
            matches.append(MatchRecord(kind=PLAYED, players=(a, b), wins=wins, draws=draws))
            points[a] += 3 if wins[0] > wins[1] else 1 if wins[0] == wins[1] else 0
            points[b] += 3 if wins[1] > wins[0] else 1 if wins[0] == wins[1] else 0
        rounds.append(RoundRecord(number, tuple(matches)))
    return EventRecord(
        system=system,  # type: ignore[arg-type]
        players=tuple(PlayerRecord(p, dropped.get(p)) for p in ids),
        rounds=tuple(rounds),
        seed=rng.randrange(1000),
    )


def eligible_cut(event: EventRecord, cut: int) -> frozenset[str]:
    """The reference: the first `cut` eligible players of compute_standings."""
    seated = {p for m in current_round(event).matches for p in m.players}
    dropped = {p.id for p in event.players if p.dropped_after_round is not None}
    rows = compute_standings(event).rows
    return frozenset(
        [r.player for r in rows if r.player in seated and r.player not in dropped][:cut]
    )


def current_round(event: EventRecord) -> RoundRecord:
    return max((r for r in event.rounds if not r.playoff), key=lambda r: (r.phase, r.number))


def outcomes(event: EventRecord) -> Iterator[tuple[EventRecord, dict[str, str]]]:
    """Every completion of the current round: the event and each seated player's result."""
    current = current_round(event)
    open_ = [i for i, m in enumerate(current.matches) if not m.has_result]
    choices = (((2, 1), 0, "win", "loss"), ((1, 1), 1, "draw", "draw"), ((0, 2), 0, "loss", "win"))
    for combo in itertools.product(choices, repeat=len(open_)):
        matches = list(current.matches)
        result: dict[str, str] = {}
        for i, (wins, draws, first, second) in zip(open_, combo, strict=True):
            a, b = matches[i].players
            matches[i] = MatchRecord(kind=PLAYED, players=(a, b), wins=wins, draws=draws)
            result[a], result[b] = first, second
        rounds = tuple(
            RoundRecord(r.number, tuple(matches), r.phase) if r is current else r
            for r in event.rounds
        )
        yield EventRecord(event.system, event.players, rounds, event.best_of, event.seed), result


def by_player(outlook: Outlook) -> dict[str, PlayerOutlook]:
    return {p.player: p for p in outlook.players}


def verdicts(player: PlayerOutlook) -> dict[str, object]:
    return {
        r: c.verdict if isinstance(c, Certain) else "chance" for r, c in player.chance_after.items()
    }


# --- hand-made events -----------------------------------------------------------------------


def test_a_sixteen_player_last_round_is_worked_out_by_hand() -> None:
    # Before the last round (4 rounds played), top 8:
    #   table 1: A1 12 - A2 12; tables 2-4: B 9 - B 9; tables 5-8: C 6 - C 6.
    # A (12): even with a loss, at most A2 (15) and one player per B table (12) reach
    #   12 points: 4 < 8, so both A are in whatever happens.
    # B (9) after a loss: A1, A2, two per other B table (10-10 draws), the opponent (12)
    #   and one winner per C table (9): 2 + 4 + 1 + 4 = 11 >= 8, not safe. After a draw
    #   (10): A1, A2, two per other B table and the opponent (10): 7 < 8, safe. So every B
    #   needs a draw, and a draw at a B table puts both in.
    # C (6) after a draw (7): 8 players are surely above (two A, and every B table gives
    #   12+9 or 10+10), so out; after a win (9) neither safe (11 can reach 9) nor out
    #   (only 2 A + 3 B are surely above 9): a chance.
    points = {"A1": 12, "A2": 12}
    points.update({f"B{i}": 9 for i in range(1, 7)})
    points.update({f"C{i}": 6 for i in range(1, 9)})
    pairs = [("A1", "A2"), ("B1", "B2"), ("B3", "B4"), ("B5", "B6")]
    pairs += [("C1", "C2"), ("C3", "C4"), ("C5", "C6"), ("C7", "C8")]
    event = event_with_points(points, pairs, played=4)
    outlook = compute_outlook(event, rounds_after=0, cut=8, rng=random.Random(1), simulations=200)
    players = by_player(outlook)
    for a in ("A1", "A2"):
        assert players[a].certain == "in" and players[a].needs is None
    for i in range(1, 7):
        b = players[f"B{i}"]
        assert (b.certain, b.needs) == (None, "draw")
        assert verdicts(b) == {"win": "in", "draw": "in", "loss": "chance"}
    for i in range(1, 9):
        c = players[f"C{i}"]
        assert (c.certain, c.needs) == (None, None)
        assert verdicts(c) == {"win": "chance", "draw": "out", "loss": "out"}
    draws = {t.players: t.draw_puts_both_in for t in outlook.tables}
    assert draws == {pair: pair[0][0] in "AB" for pair in pairs}


def test_a_sixteen_player_event_two_rounds_from_the_end_is_worked_out_by_hand() -> None:
    # Three rounds played, round 4 paired, one more round to come (pairings unknown), top 8:
    #   table 1: A1 9 - A2 9; tables 2-4: B 6 - B 6; tables 5-7: C 3 - C 3; table 8: D 0 - D 0.
    # A after a loss, losing the last round too (9): A2 and both players of every B table
    #   (12 and 9) and one C per table (9) can reach 9: 1 + 6 + 3 = 10 >= 8, not safe.
    #   After a draw (10): A2, and both players of a B table only through a draw (7 + 3
    #   each): 1 + 6 = 7 < 8, safe whatever the last round does. So A needs a draw.
    # B after a win (9, then a loss): A1, A2, two per other B table, the opponent (6 + 3)
    #   and one C per table: 10, not safe; nobody is surely above a B either: a chance.
    # D after two wins (6): surely above are the two A and one player per B table (9):
    #   5 < 8, so not out (ties at 6 go to tiebreakers): a chance, however slim. After a
    #   draw (at most 4) or a loss (at most 3) both players of every B table (7+ each)
    #   and the two A are surely above: 8, out.
    points = {"A1": 9, "A2": 9}
    points.update({f"B{i}": 6 for i in range(1, 7)})
    points.update({f"C{i}": 3 for i in range(1, 7)})
    points.update({"D1": 0, "D2": 0})
    pairs = [("A1", "A2"), ("B1", "B2"), ("B3", "B4"), ("B5", "B6")]
    pairs += [("C1", "C2"), ("C3", "C4"), ("C5", "C6"), ("D1", "D2")]
    event = event_with_points(points, pairs, played=3)
    outlook = compute_outlook(event, rounds_after=1, cut=8, rng=random.Random(2), simulations=300)
    players = by_player(outlook)
    for a in ("A1", "A2"):
        assert (players[a].certain, players[a].needs) == (None, "draw")
        assert verdicts(players[a]) == {"win": "in", "draw": "in", "loss": "chance"}
    for other in [f"B{i}" for i in range(1, 7)] + ["D1", "D2"]:
        assert (players[other].certain, players[other].needs) == (None, None)
    for b in [f"B{i}" for i in range(1, 7)]:
        assert set(verdicts(players[b]).values()) == {"chance"}
    for d in ("D1", "D2"):
        assert verdicts(players[d]) == {"win": "chance", "draw": "out", "loss": "out"}
    assert [t.draw_puts_both_in for t in outlook.tables] == [True] + [False] * 7
    # A player who wins twice from 9 points (15) is in, so the chance after a win is 1.
    win = players["A1"].chance_after["win"]
    assert win == Certain("in")
    # Sanity of the figures: a D player rarely makes it, an A player after a loss often.
    d = players["D1"].chance_after["win"]
    a_loss = players["A1"].chance_after["loss"]
    assert isinstance(d, ChanceEstimate) and isinstance(a_loss, ChanceEstimate)
    assert d.probability < a_loss.probability


# --- exhaustive checks ------------------------------------------------------------------------


def check_against_every_outcome(event: EventRecord, cut: int, outlook: Outlook) -> int:
    """Every proven answer holds in every completion of the last round; and, with no
    round to follow, the answers are exact on points alone (worst / best tiebreakers)."""
    seated = {p for m in current_round(event).matches for p in m.players}
    dropped = {p.id for p in event.players if p.dropped_after_round is not None}
    eligible = seated - dropped
    players = by_player(outlook)
    assert set(players) == eligible
    reachable: dict[tuple[str, str], dict[str, bool]] = {}
    checked = 0
    for completed, result in outcomes(event):
        cut_set = eligible_cut(completed, cut)
        rows = {r.player: r.points for r in compute_standings(completed).rows}
        for name, player in players.items():
            mine = result.get(name) or player.result
            inside = name in cut_set
            checked += 1
            if player.certain == "in":
                assert inside, (name, result)
            if player.certain == "out":
                assert not inside, (name, result)
            if player.needs == "draw" and mine in ("win", "draw"):
                assert inside, (name, result)
            if player.needs == "win" and mine == "win":
                assert inside, (name, result)
            verdict = player.chance_after[mine]  # type: ignore[index]
            if isinstance(verdict, Certain):
                assert inside == (verdict.verdict == "in"), (name, result)
            # Points alone: could worst (best) tiebreakers keep the player out (put in)?
            others = [rows[q] for q in eligible if q != name]
            worst_out = sum(x >= rows[name] for x in others) >= cut
            best_in = sum(x > rows[name] for x in others) < cut
            seen = reachable.setdefault((name, mine), {"worst_out": False, "best_in": False})  # type: ignore[arg-type]
            seen["worst_out"] |= worst_out
            seen["best_in"] |= best_in
    for (name, mine), seen in reachable.items():
        verdict = players[name].chance_after[mine]  # type: ignore[index]
        assert (verdict == Certain("in")) == (not seen["worst_out"]), name
        assert (verdict == Certain("out")) == (not seen["best_in"]), name
    return checked


def test_every_certain_answer_holds_in_every_outcome_of_a_tiny_event() -> None:
    # 8 players, top 4, the last of 3 rounds: all 3^4 = 81 completions.
    event = swiss_event(random.Random(7), 8, 2)
    outlook = compute_outlook(event, rounds_after=0, cut=4, rng=random.Random(3), simulations=100)
    assert any(p.certain or p.needs for p in outlook.players)
    assert check_against_every_outcome(event, 4, outlook) == 81 * 8


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    players=st.integers(5, 10),
    played=st.integers(1, 3),
    entered=st.integers(0, 2),
    drops=st.integers(0, 1),
    cut=st.integers(1, 4),
    system=st.sampled_from(["mtr", "dci", "melee"]),
)
def test_certain_answers_hold_in_every_outcome_of_generated_events(
    seed: int, players: int, played: int, entered: int, drops: int, cut: int, system: str
) -> None:
    event = swiss_event(
        random.Random(seed), players, played, entered=entered, drops=drops, system=system
    )
    outlook = compute_outlook(
        event, rounds_after=0, cut=cut, rng=random.Random(seed), simulations=50
    )
    check_against_every_outcome(event, cut, outlook)


# --- the simulations equal the reference engine ------------------------------------------------


def check_runs(event: EventRecord, rounds_after: int, cut: int, runs: int, seed: int = 5) -> None:
    outlook, sim = simulation_for_tests(
        event, rounds_after=rounds_after, cut=cut, rng=random.Random(seed), simulations=runs
    )
    assert sim is not None
    players = by_player(outlook)
    for run in range(runs):
        completed = sim.event_of(run)
        reference = eligible_cut(completed, cut)
        assert sim.cut_of(run) == reference, run
        for name, player in players.items():
            if player.certain is not None:
                assert (name in reference) == (player.certain == "in"), (run, name)
    if rounds_after:
        return
    uncertain = {p: i for i, p in enumerate(sim.s.ids[u] for u in sim.uncertain)}
    for t in range(min(len(sim.tables), 6)):
        for k in range(3):
            forced = sim.forced_inside(t, k)
            for run in range(min(runs, 4)):
                reference = eligible_cut(sim.event_of(run, force=(t, k)), cut)
                for name, i in uncertain.items():
                    if i in forced:
                        assert bool(forced[i][run]) == (name in reference), (t, k, run, name)


def test_simulated_standings_equal_the_reference_engine_in_the_last_round() -> None:
    check_runs(swiss_event(random.Random(11), 96, 5, entered=10, drops=3), 0, 8, 12)


def test_simulated_standings_equal_the_reference_engine_with_later_rounds() -> None:
    check_runs(swiss_event(random.Random(12), 41, 3, entered=4, drops=2), 1, 8, 8)
    check_runs(swiss_event(random.Random(13), 30, 2, drops=1, system="melee"), 2, 4, 6)


def test_simulated_standings_equal_the_reference_engine_on_a_real_event_before_its_last_round() -> (
    None
):
    # 1,086 players, two phases: cut back to the last Swiss round, its results removed.
    path = SHARED / "data" / "real" / "melee-438329.json"
    document = json.loads(path.read_text())
    document["system"] = "melee"
    full = event_from_document(document)
    swiss = [r for r in full.rounds if not r.playoff]
    last = max(swiss, key=lambda r: (r.phase, r.number))
    opened = RoundRecord(
        last.number,
        tuple(MatchRecord(PLAYED, m.players) if m.kind == PLAYED else m for m in last.matches),
        last.phase,
    )
    event = EventRecord(
        full.system,
        full.players,
        tuple(opened if r is last else r for r in swiss),
        full.best_of,
        full.seed,
    )
    check_runs(event, 0, 8, 6)
    # And the proven answers hold for what really happened.
    real = EventRecord(full.system, full.players, tuple(swiss), full.best_of, full.seed)
    actual = eligible_cut(real, 8)
    outlook = compute_outlook(event, rounds_after=0, cut=8, rng=random.Random(1), simulations=100)
    for player in outlook.players:
        if player.certain is not None:
            assert (player.player in actual) == (player.certain == "in"), player.player


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    players=st.integers(6, 24),
    played=st.integers(1, 4),
    rounds_after=st.integers(0, 2),
    cut=st.sampled_from([2, 4, 8]),
)
def test_simulated_runs_equal_the_reference_on_generated_events(
    seed: int, players: int, played: int, rounds_after: int, cut: int
) -> None:
    event = swiss_event(random.Random(seed), players, played, entered=1, drops=1)
    outlook, sim = simulation_for_tests(
        event, rounds_after=rounds_after, cut=cut, rng=random.Random(seed), simulations=4
    )
    if sim is not None:
        check_runs(event, rounds_after, cut, 4, seed)
    else:
        assert all(p.certain for p in outlook.players)


# --- reproducibility and the margin of error ---------------------------------------------------


def test_the_same_seed_gives_the_same_outlook_and_another_seed_other_figures() -> None:
    event = swiss_event(random.Random(21), 64, 4, entered=6)
    first = compute_outlook(event, rounds_after=1, cut=8, rng=random.Random(99), simulations=300)
    again = compute_outlook(event, rounds_after=1, cut=8, rng=random.Random(99), simulations=300)
    other = compute_outlook(event, rounds_after=1, cut=8, rng=random.Random(100), simulations=300)
    assert first == again
    assert first.seed != other.seed and first.players != other.players
    last = swiss_event(random.Random(22), 64, 5)
    assert compute_outlook(
        last, rounds_after=0, cut=8, rng=random.Random(5), simulations=200
    ) == compute_outlook(last, rounds_after=0, cut=8, rng=random.Random(5), simulations=200)


def test_the_margin_of_error_is_the_worst_case_95_percent_interval_and_holds() -> None:
    assert margin_of_error(2000) == 1.96 * math.sqrt(0.25 / 2000)
    assert ChanceEstimate(30, 100).margin == 1.96 * math.sqrt(0.3 * 0.7 / 100)
    event = swiss_event(random.Random(31), 128, 5, entered=8)
    small = compute_outlook(event, rounds_after=0, cut=8, rng=random.Random(1), simulations=400)
    large = compute_outlook(event, rounds_after=0, cut=8, rng=random.Random(2), simulations=8000)
    assert small.margin_of_error == margin_of_error(400)
    # Every figure from 400 runs lies within its margin of the 8,000-run figure (with the
    # latter's own margin), bar the 1 in 20 that a 95 % interval may miss.
    figures = misses = 0
    for a, b in zip(small.players, large.players, strict=True):
        for r, chance in a.chance_after.items():
            other = b.chance_after[r]
            if isinstance(chance, ChanceEstimate):
                assert isinstance(other, ChanceEstimate) and chance.runs == 400
                figures += 1
                gap = abs(chance.probability - other.probability)
                misses += gap > margin_of_error(400) + margin_of_error(8000)
            else:
                assert chance == other
    assert figures >= 10
    assert misses <= max(1, figures // 20)


def test_keys_too_wide_for_int64_fall_back_to_exact_python_ints_with_the_same_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Long events (about 20 rounds) make OMW% x L x M exceed 62 bits; force that path.
    event = swiss_event(random.Random(11), 96, 5, entered=10, drops=3)
    narrow = compute_outlook(event, rounds_after=0, cut=8, rng=random.Random(1), simulations=300)
    real_bits = outlook_module._bits
    monkeypatch.setattr(outlook_module, "_bits", lambda v: 60 if v > 10**5 else real_bits(v))
    wide = compute_outlook(event, rounds_after=0, cut=8, rng=random.Random(1), simulations=300)
    assert wide == narrow
    check_runs(event, 0, 8, 6)
    check_runs(swiss_event(random.Random(12), 41, 3, entered=4, drops=2), 1, 8, 6)
