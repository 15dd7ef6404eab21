""" "What do I need?": certain answers and simulated chances of the top cut (issue 15).

Pure: the standard library and numpy, nothing from Django (tests/unit/test_purity.py).

Input: a Swiss event (`mtr`, `dci`, `melee`) whose current round (the last Swiss round,
by phase then number) is paired; some of its matches may already hold results, the rest
have `wins=None`. `rounds_after` Swiss rounds are still to come after it, unpaired.

Who competes for the cut ("eligible"): every player seated in the current round who has
not dropped (`dropped_after_round is None`). The cut is the first `cut` eligible players
of the standings; a dropped player ranked above them does not take a place.

Certain answers (`certain`, `needs`, a `Certain` in `chance_after`, `draw_puts_both_in`):
on points alone, tiebreakers taken at their worst ("in": a player level on points counts
as ahead of you) or at their best ("out": a player level on points counts as behind you).
Every unfinished match of the current round may end in any result the round screen
accepts: on points a win (3-0), a draw (1-1), a loss (0-3) or a double loss (0-0, issue
23). A player's own "loss" covers both a loss and a double loss (their opponent then on
3 or on 0 more points). What the proofs assume besides (`PROOFS`): no further drops (a
drop can open a place, so "out" could become wrong; it never undoes "in"), no correction
of a result already entered, and the cut and the number of rounds still to come as given.
- With `rounds_after == 0` the answers are EXACT in that sense. The tables of the current
  round are independent, so the outcome that hurts most (helps most) is found table by
  table: "in" holds iff, in every outcome of the unfinished matches, fewer than `cut`
  other eligible players end on at least your points.
- With `rounds_after >= 1` the later pairings are unknown, so the answers are SOUND but
  possibly conservative: for "in" you are assumed to lose every later round while any
  other player may win all of theirs (3 points a round), for "out" the reverse, and the
  later rounds' pairings are not used to rule combinations out (two rivals might have
  to meet). A player may therefore get a chance where a full analysis would prove the
  answer; an answer given is never wrong (under the assumptions above).

Chances (`ChanceEstimate`): Monte Carlo, see `MODEL`; the model draws no double loss (nor
a drop, nor a correction), so a player whom only a double loss elsewhere keeps from being
proven out may show a chance of 0 in every run. Exact standings in every run: the
sort key is (points, OMW%, GW%, OGW%, seeded draw) in exact integer form, the same
order `compute_standings` gives (tests/unit/test_outlook.py materialises sampled runs
and checks them against it). Only players with no certain answer are ranked: the
certainly-in always take their places and the certainly-out never do, so the cut is
those plus the best `cut - |certainly in|` of the rest. Conditioned chances:
- `rounds_after == 0`: every run draws all tables from the model; then, for each table,
  the table is forced in turn to each of its three results while the other tables keep
  the run's results (common random numbers). Every figure therefore rests on all the
  runs, drawn exactly from "this result here, the model elsewhere".
- `rounds_after >= 1`: forcing one table would change later pairings, so a figure uses
  the runs in which that result came up (about 45 / 10 / 45 % of them); its own
  `ChanceEstimate.runs` and margin say so.
Each figure has its own 95 % margin (`chance_margin`, from its hits and runs);
`Outlook.margin_of_error` is the worst case of a figure resting on all the runs.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

import numpy as np

from tournaments.messages import Message, gettext_noop, ngettext, template

from .mtr import SWISS_SYSTEMS, SwissRules, player_ids, rules_for, swiss_rounds, tally
from .ranking import draw_key
from .records import (
    BYE,
    DOUBLE_LOSS,
    LOSS,
    PLAYED,
    EventRecord,
    MatchRecord,
    RoundRecord,
)

Result = Literal["win", "draw", "loss"]
Verdict = Literal["in", "out"]
RESULTS: tuple[Result, ...] = ("win", "draw", "loss")
_POINTS: dict[Result, int] = {"win": 3, "draw": 1, "loss": 0}

# The result model of an unplayed match (stated on the page through MODEL).
FIRST_WINS = 0.45
SECOND_WINS = 0.45
DRAW = 0.10
# 95 % intervals: 1.96 standard errors.
Z95 = 1.96

# The card's words are messages (tournaments.messages, pure): a code and its values, said
# in the reader's language by the shell and stored as data, never as English sentences
# (issue 36). The figures of the model are its parameters, taken from the constants
# above, so that the words cannot drift from what the simulations draw.
SIMULATED = template(
    "outlook.simulated",
    gettext_noop(
        "Each unfinished match: %(first)s %% first player wins, %(second)s %% second player "
        "wins, %(draw)s %% draw (double losses, drops and corrections are not simulated); "
        "game scores drawn from this event's own results (decisive and drawn matches "
        "separately). A later round is paired top-down within point groups in random "
        "order, with no rematch check and a bye for the last player; standings and "
        "tiebreakers are exact in every simulation."
    ),
)
# What a proven answer assumes (also stated on the card through `MODEL`).
PROOFS_TEMPLATE = template(
    "outlook.proofs",
    gettext_noop(
        "Proven answers (in or out whatever happens, the result a player needs, a draw that "
        "puts both in) count every result an unfinished match can still get, a double loss "
        "included, on points alone with tiebreakers at their worst; they assume no further "
        "drops, no correction of a result already entered, and the top cut and planned "
        "rounds as they are set now."
    ),
)
PROOFS: Message = PROOFS_TEMPLATE()


def _percent(p: float) -> int:
    return round(p * 100)


# The model as the card states it: the simulation's words, then what the proofs assume.
MODEL: tuple[Message, ...] = (
    SIMULATED(first=_percent(FIRST_WINS), second=_percent(SECOND_WINS), draw=_percent(DRAW)),
    PROOFS,
)

# A player's answer in one sentence (`verdict`): one message each, since word order
# differs from one language to the next.
IN_WHATEVER = template("outlook.in", gettext_noop("In the top %(cut)s whatever happens"))
OUT_WHATEVER = template("outlook.out", gettext_noop("Out of the top %(cut)s whatever happens"))
DRAW_PUTS_IN = template(
    "outlook.draw_puts_in",
    gettext_noop("A draw puts you in the top %(cut)s whatever the other tables do"),
)
DRAW_PUTS_IN_LATER = template(
    "outlook.draw_puts_in_later",
    ngettext(
        "A draw puts you in the top %(cut)s whatever the other tables do, even losing"
        " the round after",
        "A draw puts you in the top %(cut)s whatever the other tables do, even losing"
        " the %(count)s rounds after",
        "count",
    ),
)
WIN_PUTS_IN = template(
    "outlook.win_puts_in",
    gettext_noop("A win puts you in the top %(cut)s whatever the other tables do"),
)
WIN_PUTS_IN_LATER = template(
    "outlook.win_puts_in_later",
    ngettext(
        "A win puts you in the top %(cut)s whatever the other tables do, even losing"
        " the round after",
        "A win puts you in the top %(cut)s whatever the other tables do, even losing"
        " the %(count)s rounds after",
        "count",
    ),
)
RESULT_IN = template(
    "outlook.result_in", gettext_noop("Your result is in (%(result)s): the rest decides")
)
UNDECIDED = template(
    "outlook.undecided",
    gettext_noop("No result of this match alone decides the top %(cut)s"),
)


def verdict(
    *,
    certain: str | None,
    needs: str | None,
    result: object | None,
    cut: int,
    after: int,
) -> Message:
    """A player's answer (as `PlayerOutlook` or its stored JSON holds it) in one message.
    `result`: the current match's result already entered, as the caller wants it said
    (the shell hands the outcome word in the reader's language); None when not entered."""
    if certain == "in":
        return IN_WHATEVER(cut=cut)
    if certain == "out":
        return OUT_WHATEVER(cut=cut)
    if needs == "draw":
        return DRAW_PUTS_IN_LATER(cut=cut, count=after) if after else DRAW_PUTS_IN(cut=cut)
    if needs == "win":
        return WIN_PUTS_IN_LATER(cut=cut, count=after) if after else WIN_PUTS_IN(cut=cut)
    if result:
        return RESULT_IN(result=result)
    return UNDECIDED(cut=cut)


@dataclass(frozen=True, slots=True)
class Certain:
    """A proven answer: the player is in (or out) whatever else happens."""

    verdict: Verdict


@dataclass(frozen=True, slots=True)
class ChanceEstimate:
    """Made the cut in `hits` of `runs` simulations."""

    hits: int
    runs: int

    @property
    def probability(self) -> float:
        return self.hits / self.runs if self.runs else 0.0

    @property
    def margin(self) -> float:
        """95 % margin of error of this figure, from its own hits and runs (`chance_margin`)."""
        return chance_margin(self.hits, self.runs)


Chance = ChanceEstimate | Certain


@dataclass(frozen=True, slots=True)
class PlayerOutlook:
    player: str
    table: int | None  # 1-based position of the player's current match in the round
    opponent: str | None
    points: int  # match points now (a result of the current round already entered counts)
    result: Result | None  # the current match's result if already known (bye, entered)
    certain: Verdict | None
    # The lowest result of the current match that guarantees the cut (None: certain
    # already, or no result guarantees it).
    needs: Literal["win", "draw"] | None
    # One entry per result the current match can still have.
    chance_after: dict[Result, Chance]
    chance: Chance  # before the current match is decided, under the model


@dataclass(frozen=True, slots=True)
class TableOutlook:
    table: int
    players: tuple[str, str]
    draw_puts_both_in: bool  # proven
    draw_chances: tuple[Chance, Chance]


@dataclass(frozen=True, slots=True)
class Outlook:
    round: int
    rounds_after: int
    cut: int
    simulations: int
    seed: int
    # Worst case (p = 1/2, normal approximation) of a figure resting on all `simulations`
    # runs: no such figure's own margin exceeds it; one resting on fewer runs may.
    margin_of_error: float
    model: tuple[Message, ...]  # what the figures assume, as messages (`MODEL`)
    players: tuple[PlayerOutlook, ...] = field(default_factory=tuple)
    tables: tuple[TableOutlook, ...] = field(default_factory=tuple)


def margin_of_error(runs: int) -> float:
    """Worst-case 95 % margin of one figure from `runs` simulations: 1.96*sqrt(1/4n).
    It bounds `chance_margin(h, runs)` for every h (tests/unit/test_outlook.py)."""
    return Z95 * math.sqrt(0.25 / runs) if runs else 1.0


def chance_margin(hits: int, runs: int) -> float:
    """95 % margin of error of a figure resting on `runs` simulations, `hits` of them in.

    Wilson score interval, not the normal approximation: the latter gives no margin at 0
    or `runs` hits (a "<1 %" figure would look exact) and is poor on few runs, which a
    figure after a rare result may rest on. The Wilson interval is not centred on
    hits/runs, so the margin is the larger of the distances from hits/runs to its two
    ends: "hits/runs ± margin" covers the whole interval. 1.0 with no runs at all.
    """
    if runs <= 0:
        return 1.0
    p = hits / runs
    z2 = Z95 * Z95
    scale = 1 + z2 / runs
    centre = (p + z2 / (2 * runs)) / scale
    half = Z95 / scale * math.sqrt(p * (1 - p) / runs + z2 / (4 * runs * runs))
    return max(p - (centre - half), centre + half - p)


# --- The state before the current round is finished -------------------------------------


@dataclass(slots=True)
class _State:
    event: EventRecord
    rules: SwissRules
    current: RoundRecord
    rounds_after: int
    cut: int
    ids: list[str]
    index: dict[str, int]
    eligible: list[bool]
    points: list[int]  # match points now
    rounds: list[int]
    game_points: list[int]
    games: list[int]
    opponents: list[list[int]]  # with multiplicity; the pending opponent included
    pending: list[tuple[int, int, int]]  # (table, a, b) of unfinished matches
    seat: dict[int, tuple[int, int, int]]  # player -> (pending index, side 0/1, table)
    fixed: dict[int, tuple[Result, int, int | None]]  # player -> (result, table, opponent)
    decisive: list[tuple[int, int, int]]  # (winner's games, loser's games, drawn games)
    drawn: list[tuple[int, int, int]]


def _result_of(match: MatchRecord, side: int) -> Result:
    if match.kind == BYE:
        return "win"
    if match.kind in (LOSS, DOUBLE_LOSS):
        return "loss"
    wins = match.wins or (0, 0)
    mine, theirs = wins[side], wins[1 - side]
    return "win" if mine > theirs else "loss" if mine < theirs else "draw"


def _history(
    rounds: Sequence[RoundRecord], best_of: int
) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
    decisive: list[tuple[int, int, int]] = []
    drawn: list[tuple[int, int, int]] = []
    for round_ in rounds:
        for match in round_.matches:
            if match.kind != PLAYED or match.wins is None or len(match.players) != 2:
                continue
            a, b = match.wins
            if a == b:
                drawn.append((a, b, match.draws))
            else:
                decisive.append((max(a, b), min(a, b), match.draws))
    # An event with no history yet (or none of a kind) falls back on typical scores.
    need = best_of // 2 + 1
    if not decisive:
        decisive = [(need, 0, 0), (need, need - 1, 0)] if need > 1 else [(1, 0, 0)]
    if not drawn:
        drawn = [(1, 1, 1)] if best_of > 1 else [(0, 0, 1)]
    return decisive, drawn


def _state(event: EventRecord, rounds_after: int, cut: int) -> _State:
    if event.system not in SWISS_SYSTEMS:
        raise ValueError(f"the outlook needs a Swiss system, not {event.system!r}")
    if rounds_after < 0 or cut < 1:
        raise ValueError("rounds_after must be >= 0 and cut >= 1")
    rules = rules_for(event)
    if any(r.playoff for r in event.rounds):
        raise ValueError("the outlook is for the Swiss rounds, before any playoff")
    swiss = swiss_rounds(event.rounds)
    if not swiss:
        raise ValueError("no round is paired yet")
    current = swiss[-1]
    ids = player_ids(event, swiss)
    index = {p: i for i, p in enumerate(ids)}
    records = tally(ids, swiss, rules)
    dropped = {p.id for p in event.players if p.dropped_after_round is not None}
    seated = {p for m in current.matches for p in m.players}
    pending: list[tuple[int, int, int]] = []
    seat: dict[int, tuple[int, int, int]] = {}
    fixed: dict[int, tuple[Result, int, int | None]] = {}
    opponents = [[index[m.opponent] for m in records[p].opponents] for p in ids]
    for table, match in enumerate(current.matches, start=1):
        players = [index[p] for p in match.players]
        if match.kind == PLAYED and not match.has_result:
            a, b = players
            seat[a] = (len(pending), 0, table)
            seat[b] = (len(pending), 1, table)
            pending.append((table, a, b))
            opponents[a].append(b)
            opponents[b].append(a)
        elif match.has_result:
            for side, player in enumerate(players):
                other = players[1 - side] if len(players) == 2 else None
                fixed[player] = (_result_of(match, side), table, other)
        else:
            raise ValueError(f"a {match.kind!r} match cannot be scored under a Swiss system")
    decisive, drawn = _history(swiss, event.best_of)
    return _State(
        event=event,
        rules=rules,
        current=current,
        rounds_after=rounds_after,
        cut=cut,
        ids=ids,
        index=index,
        eligible=[p in seated and p not in dropped for p in ids],
        points=[records[p].match_points for p in ids],
        rounds=[records[p].rounds_played for p in ids],
        game_points=[records[p].game_points for p in ids],
        games=[records[p].games for p in ids],
        opponents=opponents,
        pending=pending,
        seat=seat,
        fixed=fixed,
        decisive=decisive,
        drawn=drawn,
    )


# --- Certain answers ---------------------------------------------------------------------

# What an unfinished table may still give, as (points of a, points of b): a wins, draw,
# b wins, and a double loss (the round screen accepts one: 0 match points to both,
# records.DOUBLE_LOSS). The simulations draw only the first three (classes 0, 1, 2).
_PROOF_OUTCOMES = ((3, 0), (1, 1), (0, 3), (0, 0))
# The points a player's opponent may get with the player's own result: after a loss, a
# win (3) or a double loss (0), the player's own points being the same (0) either way.
_OPPONENT_GETS: dict[Result, tuple[int, ...]] = {"win": (0,), "draw": (1,), "loss": (3, 0)}
_CLASS_OF: dict[tuple[int, Result], int] = {
    (0, "win"): 0,
    (0, "draw"): 1,
    (0, "loss"): 2,
    (1, "win"): 2,
    (1, "draw"): 1,
    (1, "loss"): 0,
}


class _Proof:
    """Counts behind "in whatever happens" and "out whatever happens".

    `_threats(P)`: the most eligible players who can end on >= P points (each table's
    worst outcome, every later round won). `_ahead(P)`: the fewest who must end on > P
    (each table's kindest outcome, every later round lost). A table's outcomes are those
    of `_PROOF_OUTCOMES`, a double loss included. Cached per P: an event has few
    distinct point totals.
    """

    def __init__(self, state: _State) -> None:
        self.s = state
        self.gain = 3 * state.rounds_after
        self._threat_cache: dict[int, int] = {}
        self._ahead_cache: dict[int, int] = {}

    def _table_threats(self, a: int, b: int, target: int) -> int:
        s = self.s
        return max(
            (s.eligible[a] and s.points[a] + pa + self.gain >= target)
            + (s.eligible[b] and s.points[b] + pb + self.gain >= target)
            for pa, pb in _PROOF_OUTCOMES
        )

    def _table_ahead(self, a: int, b: int, target: int) -> int:
        s = self.s
        return min(
            (s.eligible[a] and s.points[a] + pa > target)
            + (s.eligible[b] and s.points[b] + pb > target)
            for pa, pb in _PROOF_OUTCOMES
        )

    def _threats(self, target: int) -> int:
        if target not in self._threat_cache:
            s = self.s
            total = sum(self._table_threats(a, b, target) for _, a, b in s.pending)
            total += sum(
                1
                for i, ok in enumerate(s.eligible)
                if ok and i not in s.seat and s.points[i] + self.gain >= target
            )
            self._threat_cache[target] = total
        return self._threat_cache[target]

    def _ahead(self, target: int) -> int:
        if target not in self._ahead_cache:
            s = self.s
            total = sum(self._table_ahead(a, b, target) for _, a, b in s.pending)
            total += sum(
                1
                for i, ok in enumerate(s.eligible)
                if ok and i not in s.seat and s.points[i] > target
            )
            self._ahead_cache[target] = total
        return self._ahead_cache[target]

    def _after(self, player: int, result: Result) -> tuple[int, int | None, tuple[int, ...]]:
        """(player's points after `result`, current opponent, the opponent's possible
        points after it: after a loss, those of a win and of a double loss)."""
        s = self.s
        own = s.points[player]
        if player in s.seat:
            index, side, _ = s.seat[player]
            _, a, b = s.pending[index]
            opponent = b if side == 0 else a
            theirs = tuple(s.points[opponent] + gets for gets in _OPPONENT_GETS[result])
            return own + _POINTS[result], opponent, theirs
        return own, None, ()

    def surely_in(self, player: int, result: Result) -> bool:
        s = self.s
        target, opponent, theirs = self._after(player, result)
        threats = self._threats(target)
        if opponent is None:
            threats -= 1  # the player counted themselves (points + gain >= own points)
        else:
            _, a, b = s.pending[s.seat[player][0]]
            threats -= self._table_threats(a, b, target)
            # The opponent at their best (after the player's loss: a win, not a double loss).
            threats += bool(s.eligible[opponent] and max(theirs) + self.gain >= target)
        return threats < s.cut

    def surely_out(self, player: int, result: Result) -> bool:
        s = self.s
        own, opponent, theirs = self._after(player, result)
        target = own + self.gain
        ahead = self._ahead(target)
        if opponent is not None:
            _, a, b = s.pending[s.seat[player][0]]
            ahead -= self._table_ahead(a, b, target)
            # The opponent at their lowest (after the player's loss: a double loss).
            ahead += bool(s.eligible[opponent] and min(theirs) > target)
        return ahead >= s.cut


# --- Simulation ----------------------------------------------------------------------------


_Override = dict[int, tuple[np.ndarray, np.ndarray]]


def _bits(value: int) -> int:
    return max(1, int(value).bit_length())


class Simulation:
    """Runs of the rest of the event, vectorised over runs (rows) with numpy.

    Columns are the players of `cols`: every player when later rounds are simulated (the
    pairings need everyone), otherwise the uncertain players and their opponents.
    """

    def __init__(
        self,
        state: _State,
        sure_in: list[int],
        uncertain: list[int],
        slots: int,
        runs: int,
        seed: int,
    ) -> None:
        s = state
        self.s = s
        self.sure_in = sure_in
        self.runs = runs
        self.seed = seed
        self.uncertain = uncertain
        self.slots = slots
        gen = np.random.default_rng(seed)
        self.gen = gen
        rules = s.rules
        later = s.rounds_after
        if later:
            cols = list(range(len(s.ids)))
        else:
            wanted = set(uncertain)
            for u in uncertain:
                wanted.update(s.opponents[u])
            cols = sorted(wanted)
        self.cols = cols
        col = {p: c for c, p in enumerate(cols)}
        self.col = col
        n = len(cols)
        R = runs

        self.dec = np.array(s.decisive, dtype=np.int64).reshape(-1, 3)
        self.drw = np.array(s.drawn, dtype=np.int64).reshape(-1, 3)

        # The pending tables that touch a column (the others cannot change the ranking).
        tables = [i for i, (_, a, b) in enumerate(s.pending) if a in col or b in col]
        self.tables = tables
        T = len(tables)
        u = gen.random((R, T))
        self.cls = np.where(u < FIRST_WINS, 0, np.where(u < FIRST_WINS + SECOND_WINS, 2, 1))
        self.dec_i = gen.integers(0, len(self.dec), (R, T))
        self.drw_i = gen.integers(0, len(self.drw), (R, T))

        base = np.array
        self.pts = np.tile(base([s.points[p] for p in cols], dtype=np.int64), (R, 1))
        self.rnd = np.tile(base([s.rounds[p] for p in cols], dtype=np.int64), (R, 1))
        self.gp = np.tile(base([s.game_points[p] for p in cols], dtype=np.int64), (R, 1))
        self.gm = np.tile(base([s.games[p] for p in cols], dtype=np.int64), (R, 1))
        self.a_col = np.array([col.get(s.pending[t][1], -1) for t in tables], dtype=np.int64)
        self.b_col = np.array([col.get(s.pending[t][2], -1) for t in tables], dtype=np.int64)
        self._apply_current()

        # Later rounds: (runs x cols) opponent column per round, -1 for none.
        self.later: list[np.ndarray] = []
        # Per later round: seats a, b, games won by a, by b, drawn games, bye (or None).
        self.played: list[tuple[np.ndarray, ...]] = []
        max_match_games = int(max(self.dec.sum(1).max(), self.drw.sum(1).max()))
        bye_games = rules.bye_games
        if later:
            elig = np.array([c for c, p in enumerate(cols) if s.eligible[p]], dtype=np.int64)
            rows = np.arange(R)[:, None]
            for _ in range(later):
                self.later.append(self._pair_and_play(elig, rows, bye_games))

        # Exact integer keys. MW% x L is an integer for every possible record (L is a
        # multiple of 3 x rounds played and of the floors' denominators); OMW% x L x M
        # likewise (M a multiple of every possible number of opponents).
        max_rounds = max(s.rounds) + 1 + later
        L = math.lcm(
            *(3 * r for r in range(1, max_rounds + 1)),
            rules.floor.denominator,
            rules.no_opponent.denominator,
        )
        max_opponents = max((len(s.opponents[p]) for p in uncertain), default=0) + later
        M = math.lcm(*range(1, max_opponents + 1))
        self.L, self.M = L, M
        self.floor_l = int(rules.floor * L)
        # GW%: two different fractions with denominators <= D differ by >= 1/D^2, so
        # floor(x * D^2) orders them exactly (and equal ones equally).
        max_games = max(s.games) + (1 + later) * max(max_match_games, bye_games)
        D = max(3 * max_games, rules.floor.denominator, 3)
        self.K = D * D
        self.floor_k = rules.floor * self.K  # a Fraction; compared below via integers
        self.mwl = self._mw(self.pts, self.rnd)

        U = len(uncertain)
        self.u_cols = np.array([col[p] for p in uncertain], dtype=np.int64)
        # Fixed opponents (before later rounds), padded with a column that is always 0.
        width = max((len(s.opponents[p]) for p in uncertain), default=0)
        pad = np.full((U, max(width, 1)), n, dtype=np.int64)
        for i, p in enumerate(uncertain):
            for j, o in enumerate(s.opponents[p]):
                pad[i, j] = col[o]
        self.opp_pad = pad
        self.k_fixed = np.array([len(s.opponents[p]) for p in uncertain], dtype=np.int64)
        draws = sorted(
            range(U),
            key=lambda i: (draw_key(s.event.seed, s.ids[uncertain[i]]), s.ids[uncertain[i]]),
        )
        self.draw_score = np.empty(U, dtype=np.int64)
        for position, i in enumerate(draws):
            self.draw_score[i] = U - position  # larger = drawn higher
        self.d_bits = _bits(U + 1)
        self.o_bits = _bits(L * M)
        self.big = _bits(3 * max_rounds) + self.o_bits > 62
        # Which uncertain players faced column c (with multiplicity), for forced tables.
        self.faced: dict[int, list[tuple[int, int]]] = {}
        for i, p in enumerate(uncertain):
            counts: dict[int, int] = {}
            for o in s.opponents[p]:
                counts[col[o]] = counts.get(col[o], 0) + 1
            for c, k in counts.items():
                self.faced.setdefault(c, []).append((i, k))
        self.hi, self.lo = self._keys(self.pts, self.mwl, self.gp, self.gm)
        self.inside = self._ranked_inside()

    # -- results ------------------------------------------------------------------------

    def _games(
        self, cls: np.ndarray, dec_i: np.ndarray, drw_i: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Games won by side a, by side b, and drawn games, for result classes `cls`
        (0: a wins, 1: draw, 2: b wins) and drawn indices into the event's history."""
        d, r = self.dec[dec_i], self.drw[drw_i]
        win_a, win_b, draw = cls == 0, cls == 2, cls == 1
        ga = np.where(win_a, d[..., 0], np.where(win_b, d[..., 1], r[..., 0]))
        gb = np.where(win_b, d[..., 0], np.where(win_a, d[..., 1], r[..., 1]))
        gd = np.where(draw, r[..., 2], d[..., 2])
        return ga, gb, gd

    def _scores(
        self, cls: np.ndarray, dec_i: np.ndarray, drw_i: np.ndarray
    ) -> tuple[np.ndarray, ...]:
        """Points, game points and games of sides a and b for result classes `cls`."""
        ga, gb, gd = self._games(cls, dec_i, drw_i)
        win_a, win_b, draw = cls == 0, cls == 2, cls == 1
        pa = np.where(win_a, 3, np.where(draw, 1, 0))
        pb = np.where(win_b, 3, np.where(draw, 1, 0))
        games = ga + gb + gd
        return pa, pb, 3 * ga + gd, 3 * gb + gd, games

    def _apply_current(self) -> None:
        pa, pb, gpa, gpb, games = self._scores(self.cls, self.dec_i, self.drw_i)
        for cols, p, g in ((self.a_col, pa, gpa), (self.b_col, pb, gpb)):
            keep = cols >= 0
            c = cols[keep]
            self.pts[:, c] += p[:, keep]
            self.rnd[:, c] += 1
            self.gp[:, c] += g[:, keep]
            self.gm[:, c] += games[:, keep]

    def _pair_and_play(self, elig: np.ndarray, rows: np.ndarray, bye_games: int) -> np.ndarray:
        R = self.runs
        gen = self.gen
        # Top-down within point groups, random order inside a group.
        order = np.argsort(-(self.pts[:, elig] + gen.random((R, len(elig))) * 0.5), axis=1)
        seats = elig[order]
        opp = np.full(self.pts.shape, -1, dtype=np.int64)
        bye: np.ndarray | None = None
        if len(elig) % 2:
            bye = seats[:, -1]
            self.pts[np.arange(R), bye] += 3
            self.rnd[np.arange(R), bye] += 1
            self.gp[np.arange(R), bye] += 3 * bye_games
            self.gm[np.arange(R), bye] += bye_games
            seats = seats[:, :-1]
        a, b = seats[:, 0::2], seats[:, 1::2]
        m = a.shape[1]
        u = gen.random((R, m))
        cls = np.where(u < FIRST_WINS, 0, np.where(u < FIRST_WINS + SECOND_WINS, 2, 1))
        dec_i = gen.integers(0, len(self.dec), (R, m))
        drw_i = gen.integers(0, len(self.drw), (R, m))
        pa, pb, gpa, gpb, games = self._scores(cls, dec_i, drw_i)
        self.played.append((a, b, *self._games(cls, dec_i, drw_i), bye))
        for side, other, p, g in ((a, b, pa, gpa), (b, a, pb, gpb)):
            self.pts[rows, side] += p
            self.rnd[rows, side] += 1
            self.gp[rows, side] += g
            self.gm[rows, side] += games
            opp[rows, side] = other
        return opp

    # -- exact keys -----------------------------------------------------------------------

    def _mw(self, pts: np.ndarray, rnd: np.ndarray) -> np.ndarray:
        raw = (pts * self.L) // np.maximum(3 * rnd, 1)
        return np.where(rnd > 0, np.maximum(raw, self.floor_l), self.floor_l)

    def _gw_key(self, gp: np.ndarray, gm: np.ndarray, own: bool) -> np.ndarray:
        raw = (gp * self.K) // np.maximum(3 * gm, 1)
        floor_key = self.floor_k.numerator * 1 // self.floor_k.denominator
        floored = np.maximum(raw, floor_key)
        if own and not self.s.rules.floor_own_gw:
            return np.where(gm > 0, raw, floor_key)
        return np.where(gm > 0, floored, floor_key)

    def _omw(self, mwl: np.ndarray) -> np.ndarray:
        """OMW% x L x M of every uncertain player, (runs x uncertain), exact."""
        R = self.runs
        padded = np.concatenate([mwl, np.zeros((R, 1), dtype=np.int64)], axis=1)
        total = padded[:, self.opp_pad].sum(axis=2)
        k = np.tile(self.k_fixed, (R, 1))
        rows = np.arange(R)[:, None]
        for opp in self.later:
            o = opp[:, self.u_cols]
            met = o >= 0
            total += np.where(met, mwl[rows, np.maximum(o, 0)], 0)
            k += met
        none = int(self.s.rules.no_opponent * self.L * self.M)
        if self.big:
            total = total.astype(object)
            k = k.astype(object)
        return np.where(k > 0, total * (self.M // np.maximum(k, 1)), none)

    def _keys(
        self, pts: np.ndarray, mwl: np.ndarray, gp: np.ndarray, gm: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(hi, lo) sort keys of the uncertain players: hi = points, OMW%; lo = GW%, draw.

        OGW% is not in the key: where two players tie on everything before it, the run
        is settled exactly by `_exact_order`.
        """
        u = self.u_cols
        p = pts[:, u]
        if self.big:
            p = p.astype(object)
        hi = p * (1 << self.o_bits) + self._omw(mwl)
        lo = self._gw_key(gp[:, u], gm[:, u], own=True) * (1 << self.d_bits) + self.draw_score
        return hi, lo

    def _ogw(self, run: int, i: int, override: _Override | None = None) -> Fraction:
        """OGW% of uncertain player i in one run, exact (only needed on full ties).
        `override`: column -> (game points, games) per run, for a forced table."""
        rules = self.s.rules
        override = override or {}
        opponents = [self.col[o] for o in self.s.opponents[self.uncertain[i]]]
        for opp in self.later:
            o = int(opp[run, self.u_cols[i]])
            if o >= 0:
                opponents.append(o)
        if not opponents:
            return rules.no_opponent
        total = Fraction(0)
        for o in opponents:
            gp, gm = override.get(o, (self.gp[:, o], self.gm[:, o]))
            g = int(gm[run])
            value = Fraction(int(gp[run]), 3 * g) if g else rules.floor
            total += max(rules.floor, value)
        return total / len(opponents)

    def _ranked_inside(self) -> np.ndarray:
        """(runs x uncertain) bool: inside the cut in each run as drawn."""
        R, U = self.runs, len(self.uncertain)
        inside = np.zeros((R, U), dtype=bool)
        if U == 0 or self.slots <= 0:
            return inside
        if self.slots >= U:
            inside[:] = True
            return inside
        hi, lo = self.hi, self.lo
        if self.big:
            order_all = [
                sorted(range(U), key=lambda i, h=hi[run], w=lo[run]: (h[i], w[i]), reverse=True)
                for run in range(R)
            ]
            suspect = range(R)
        else:
            # Keys are all distinct (the draw differs), so reversing ascending is exact.
            order = np.lexsort((lo, hi), axis=1)[:, ::-1]
            rows = np.arange(R)[:, None]
            h, g = hi[rows, order], lo[rows, order] >> self.d_bits
            ties = (h[:, 1:] == h[:, :-1]) & (g[:, 1:] == g[:, :-1])
            suspect = np.nonzero(ties.any(axis=1))[0]
            inside[rows, order[:, : self.slots]] = True
            order_all = order
        for run in suspect:
            exact = self._exact_order(int(run), [int(i) for i in order_all[run]], hi[run], lo[run])
            inside[run] = False
            inside[run, exact[: self.slots]] = True
        return inside

    def _exact_order(self, run: int, order: list[int], h: np.ndarray, low: np.ndarray) -> list[int]:
        """Reorder runs of players tied on points, OMW% and GW% by OGW% (then the draw)."""
        shift = self.d_bits
        result: list[int] = []
        i = 0
        while i < len(order):
            j = i + 1
            key = (h[order[i]], int(low[order[i]]) >> shift)
            while j < len(order) and (h[order[j]], int(low[order[j]]) >> shift) == key:
                j += 1
            group = order[i:j]
            if len(group) > 1:
                group.sort(
                    key=lambda x: (self._ogw(run, x), int(self.draw_score[x])),
                    reverse=True,
                )
            result.extend(group)
            i = j
        return result

    # -- forced tables (rounds_after == 0) ----------------------------------------------------

    def forced_inside(self, t: int, k: int) -> dict[int, np.ndarray]:
        """Table `self.tables[t]` forced to class k in every run, the others as drawn:
        uncertain player (index into `uncertain`) -> (runs,) bool inside the cut."""
        assert not self.later
        s = self.s
        _, a, b = s.pending[self.tables[t]]
        cls = np.full(self.runs, k)
        pa, pb, gpa, gpb, games = self._scores(cls, self.dec_i[:, t], self.drw_i[:, t])
        old = self._scores(self.cls[:, t], self.dec_i[:, t], self.drw_i[:, t])
        gp, gm, pts = self.gp, self.gm, self.pts
        changed: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        for player, p_new, g_new, p_old, g_old in (
            (a, pa, gpa, old[0], old[2]),
            (b, pb, gpb, old[1], old[3]),
        ):
            c = self.col.get(player)
            if c is None:
                continue
            changed[c] = (
                pts[:, c] - p_old + p_new,
                gp[:, c] - g_old + g_new,
                gm[:, c] - old[4] + games,
            )
        u_index = {int(c): i for i, c in enumerate(self.u_cols)}
        hi, lo = self.hi.copy(), self.lo.copy()
        touched: set[int] = set()
        for c, (p_new, g_new, m_new) in changed.items():
            mw_new = self._mw(p_new, self.rnd[:, c])
            delta = mw_new - self.mwl[:, c]
            for i, times in self.faced.get(c, ()):
                step = delta * times * (self.M // int(self.k_fixed[i]))
                hi[:, i] = hi[:, i] + (step.astype(object) if self.big else step)
                touched.add(i)
            if c in u_index:
                i = u_index[c]
                p_arr = p_new.astype(object) if self.big else p_new
                hi[:, i] = hi[:, i] + (p_arr - pts[:, c]) * (1 << self.o_bits)
                gw = self._gw_key(g_new[:, None], m_new[:, None], own=True)[:, 0]
                lo[:, i] = gw * (1 << self.d_bits) + self.draw_score[i]
                touched.add(i)
        override = {c: (g_new, m_new) for c, (_, g_new, m_new) in changed.items()}
        out: dict[int, np.ndarray] = {}
        for c in changed:
            if c not in u_index:
                continue
            i = u_index[c]
            out[i] = self._inside_one(i, hi, lo, override)
        return out

    def _inside_one(
        self, i: int, hi: np.ndarray, lo: np.ndarray, override: _Override
    ) -> np.ndarray:
        U = len(self.uncertain)
        if self.slots <= 0:
            return np.zeros(self.runs, dtype=bool)
        if self.slots >= U:
            return np.ones(self.runs, dtype=bool)
        h, low = hi[:, i : i + 1], lo[:, i : i + 1]
        shift = self.d_bits
        same_hi = hi == h
        above = (hi > h) | (same_hi & (lo > low))
        count = above.sum(axis=1)
        # Ties on points, OMW% and GW% (the draw differs): OGW% decides, exactly.
        tied = same_hi & ((lo >> shift) == (low >> shift))
        tied[:, i] = False
        for run in np.nonzero(tied.any(axis=1))[0]:
            mine = (self._ogw(run, i, override), int(self.draw_score[i]))
            for j in np.nonzero(tied[run])[0]:
                theirs = (self._ogw(run, j, override), int(self.draw_score[j]))
                count[run] += int(theirs > mine) - int(bool(above[run, j]))
        return count < self.slots

    # -- for tests: the same runs as plain events ----------------------------------------

    def cut_of(self, run: int) -> frozenset[str]:
        """The cut in run `run` (certainly-in players plus the uncertain ones inside)."""
        s = self.s
        sure = {s.ids[p] for p in self.sure_in}
        return frozenset(sure | {s.ids[self.uncertain[i]] for i in np.nonzero(self.inside[run])[0]})

    def event_of(self, run: int, force: tuple[int, int] | None = None) -> EventRecord:
        """Run `run` as a completed EventRecord (`force`: (table position, class))."""
        s = self.s
        if self.later and force is not None:
            raise ValueError("tables are forced only when no round follows the current one")
        by_table = {self.tables[t]: t for t in range(len(self.tables))}
        matches: list[MatchRecord] = []
        for match in s.current.matches:
            if match.kind == PLAYED and not match.has_result:
                a, b = (s.index[p] for p in match.players)
                pend = next(i for i, (_, x, y) in enumerate(s.pending) if (x, y) == (a, b))
                t = by_table.get(pend)
                if t is None:
                    wins, draws = (1, 0), 0  # a table that cannot matter: any result
                else:
                    k = int(self.cls[run, t]) if force is None or force[0] != t else force[1]
                    d = self.dec[self.dec_i[run, t]]
                    r = self.drw[self.drw_i[run, t]]
                    if k == 0:
                        wins, draws = (int(d[0]), int(d[1])), int(d[2])
                    elif k == 2:
                        wins, draws = (int(d[1]), int(d[0])), int(d[2])
                    else:
                        wins, draws = (int(r[0]), int(r[1])), int(r[2])
                matches.append(
                    MatchRecord(kind=PLAYED, players=match.players, wins=wins, draws=draws)
                )
            else:
                matches.append(match)
        rounds = [
            RoundRecord(r.number, tuple(matches), r.phase, r.playoff) if r is s.current else r
            for r in s.event.rounds
        ]
        ids = [s.ids[p] for p in self.cols]
        for number, (a, b, ga, gb, gd, bye) in enumerate(self.played, start=s.current.number + 1):
            later = [
                MatchRecord(
                    kind=PLAYED,
                    players=(ids[x], ids[y]),
                    wins=(int(wx), int(wy)),
                    draws=int(d),
                )
                for x, y, wx, wy, d in zip(a[run], b[run], ga[run], gb[run], gd[run], strict=True)
            ]
            if bye is not None:
                later.append(MatchRecord(kind=BYE, players=(ids[int(bye[run])],)))
            rounds.append(RoundRecord(number, tuple(later), s.current.phase))
        return EventRecord(
            system=s.event.system,
            players=s.event.players,
            rounds=tuple(rounds),
            best_of=s.event.best_of,
            seed=s.event.seed,
        )


# --- The entry point -----------------------------------------------------------------------


def compute_outlook(
    event: EventRecord,
    *,
    rounds_after: int,
    cut: int,
    rng: random.Random,
    simulations: int = 2000,
) -> Outlook:
    """Every eligible player's answers and every unfinished table's draw (see module doc)."""
    outlook, _ = _compute(event, rounds_after, cut, rng, simulations)
    return outlook


def _compute(
    event: EventRecord, rounds_after: int, cut: int, rng: random.Random, simulations: int
) -> tuple[Outlook, Simulation | None]:
    s = _state(event, rounds_after, cut)
    proof = _Proof(s)
    seed = rng.getrandbits(64)
    eligible = [i for i, ok in enumerate(s.eligible) if ok]

    possible: dict[int, tuple[Result, ...]] = {}
    for i in eligible:
        possible[i] = (s.fixed[i][0],) if i in s.fixed else RESULTS
    surely: dict[tuple[int, Result], Verdict | None] = {}
    for i in eligible:
        for r in possible[i]:
            surely[(i, r)] = (
                "in" if proof.surely_in(i, r) else "out" if proof.surely_out(i, r) else None
            )
    certain: dict[int, Verdict | None] = {}
    for i in eligible:
        worst, best = possible[i][-1], possible[i][0]
        certain[i] = (
            "in" if surely[(i, worst)] == "in" else "out" if surely[(i, best)] == "out" else None
        )
    sure_in = [i for i in eligible if certain[i] == "in"]
    uncertain = [i for i in eligible if certain[i] is None]
    slots = cut - len(sure_in)

    sim: Simulation | None = None
    # estimates[(player, result)] = (hits, runs); overall[player] = (hits, runs)
    estimates: dict[tuple[int, Result], tuple[int, int]] = {}
    overall: dict[int, tuple[int, int]] = {}
    if uncertain and simulations > 0:
        sim = Simulation(s, sure_in, uncertain, slots, simulations, seed)
        u_of = {p: i for i, p in enumerate(uncertain)}
        for i, p in enumerate(uncertain):
            if p not in s.seat:
                hits = int(sim.inside[:, i].sum())
                estimates[(p, s.fixed[p][0])] = overall[p] = (hits, simulations)
        table_pos = {pend: t for t, pend in enumerate(sim.tables)}
        for p in uncertain:
            if p not in s.seat:
                continue
            pend, side, _ = s.seat[p]
            t = table_pos[pend]
            drawn_cls = sim.cls[:, t]
            i = u_of[p]
            if rounds_after == 0:
                continue  # done per table below
            for r in RESULTS:
                mask = drawn_cls == _CLASS_OF[(side, r)]
                estimates[(p, r)] = (int(sim.inside[mask, i].sum()), int(mask.sum()))
            overall[p] = (int(sim.inside[:, i].sum()), simulations)
        if rounds_after == 0:
            for t, pend in enumerate(sim.tables):
                _, a, b = s.pending[pend]
                if u_of.keys().isdisjoint((a, b)):
                    continue
                per_class = {k: sim.forced_inside(t, k) for k in range(3)}
                drawn_cls = sim.cls[:, t]
                for side, p in enumerate((a, b)):
                    if p not in u_of:
                        continue
                    i = u_of[p]
                    hits_drawn = 0
                    for r in RESULTS:
                        k = _CLASS_OF[(side, r)]
                        inside = per_class[k][i]
                        estimates[(p, r)] = (int(inside.sum()), simulations)
                        hits_drawn += int(inside[drawn_cls == k].sum())
                    overall[p] = (hits_drawn, simulations)

    def chance_after(i: int, r: Result) -> Chance:
        verdict = surely[(i, r)]
        if verdict is not None:
            return Certain(verdict)
        return ChanceEstimate(*estimates.get((i, r), (0, 0)))

    players: list[PlayerOutlook] = []
    for i in eligible:
        if certain[i] is not None:
            chance: Chance = Certain(certain[i])  # type: ignore[arg-type]
        else:
            chance = ChanceEstimate(*overall.get(i, (0, 0)))
        needs: Literal["win", "draw"] | None = None
        if certain[i] is None and i in s.seat:
            needs = (
                "draw"
                if surely[(i, "draw")] == "in"
                else "win"
                if surely[(i, "win")] == "in"
                else None
            )
        if i in s.seat:
            pend, side, table = s.seat[i]
            _, a, b = s.pending[pend]
            opponent: int | None = b if side == 0 else a
            result: Result | None = None
        else:
            result, table, opponent = s.fixed[i]
        players.append(
            PlayerOutlook(
                player=s.ids[i],
                table=table,
                opponent=s.ids[opponent] if opponent is not None else None,
                points=s.points[i],
                result=result,
                certain=certain[i],
                needs=needs,
                chance_after={r: chance_after(i, r) for r in possible[i]},
                chance=chance,
            )
        )

    tables: list[TableOutlook] = []
    for table, a, b in s.pending:
        both: list[Chance] = []
        for p in (a, b):
            if s.eligible[p]:
                both.append(chance_after(p, "draw"))
            else:
                both.append(Certain("out"))
        tables.append(
            TableOutlook(
                table=table,
                players=(s.ids[a], s.ids[b]),
                draw_puts_both_in=all(c == Certain("in") for c in both),
                draw_chances=(both[0], both[1]),
            )
        )
    outlook = Outlook(
        round=s.current.number,
        rounds_after=rounds_after,
        cut=cut,
        simulations=simulations,
        seed=seed,
        margin_of_error=margin_of_error(simulations),
        model=MODEL,
        players=tuple(players),
        tables=tuple(tables),
    )
    return outlook, sim


def simulation_for_tests(
    event: EventRecord, *, rounds_after: int, cut: int, rng: random.Random, simulations: int
) -> tuple[Outlook, Simulation | None]:
    """The outlook and the runs behind it, for tests that replay runs as plain events."""
    return _compute(event, rounds_after, cut, rng, simulations)


__all__ = [
    "MODEL",
    "PROOFS",
    "Certain",
    "Chance",
    "ChanceEstimate",
    "Outlook",
    "PlayerOutlook",
    "Simulation",
    "TableOutlook",
    "chance_margin",
    "compute_outlook",
    "margin_of_error",
    "simulation_for_tests",
    "verdict",
]
