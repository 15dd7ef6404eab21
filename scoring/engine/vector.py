"""Swiss standings (`mtr`, `dci`, `melee`) over numpy arrays, exactly (issue 15, item 4).

`prepare(event, rounds)` turns the records into integer arrays once (one entry per seat:
player, opponent, games, the match's contribution); `compute(v)` then gives exactly what
mtr_fast.compute gives (same rows, Fractions, ranks, random-draw order, phases and
playoffs), and `rank_keys(v, ...)` / `rank_batch(v, ...)` give the final order after
extra results without building any Fraction, for simulations.

Exactness without Fractions in the hot path:
  * a percentage is an integer numerator over a denominator; an opponents' average is
    sum / (count x D) with D the lcm of every opponent value's denominator, and the sum
    is kept exact in 32-bit limbs (each limb summed by a float64 bincount, which is exact
    below 2**53: a limb total stays under count x 2**32);
  * sorting uses float64 approximations, with a proven error `tol` per key. Where the
    key is a single correctly rounded division p / q (p, q < 2**53) of values whose
    pairwise gap is provably above one ulp, tol is 0: equal floats mean equal values.
    Otherwise any run of players whose floats lie within tol of each other (and are
    equal on every earlier key) is re-sorted with exact Fractions. Runs tied on every key
    are ordered by the seeded draw, as in mtr_fast. So the order is exact whatever the
    denominators; only the (rare) near-ties cost Python time.

Pure: numpy and the standard library, nothing from Django.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import chain, groupby
from math import lcm
from operator import add, attrgetter, lshift

import numpy as np
import numpy.typing as npt

from . import mtr_fast
from .mtr import (
    DRAW_POINTS,
    GAME_DRAW_POINTS,
    GAME_WIN_POINTS,
    WIN_POINTS,
    SwissRules,
    rules_for,
    swiss_rounds,
)
from .mtr_fast import _fractions, _rows
from .ranking import draw_key, playoff_order
from .records import (
    BYE,
    DOUBLE_LOSS,
    LOSS,
    PLAYED,
    EventRecord,
    MatchRecord,
    RoundRecord,
    StandingRow,
)

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]
Exact = Callable[[list[int]], Sequence[int | Fraction]]

_KIND_CODE = {PLAYED: 0, BYE: 1, LOSS: 2, DOUBLE_LOSS: 3}
_LIMB = 32
_LIMB_MASK = (1 << _LIMB) - 1
# Exact float64 integers: sums, numerators and denominators below this are represented
# exactly, and one division of two of them is correctly rounded.
_EXACT = 1 << 53
# Two distinct values in [0, 1] with denominators b, d differ by at least 1/(b d); when
# b d < 2**52 that gap exceeds one ulp, so their correctly rounded floats differ.
_GAP = 1 << 52
# mtr_fast rejects larger single results (ValueError); such events go to it unchanged.
_MAX_PER_MATCH = 1 << 24


@dataclass(slots=True)
class VectorEvent:
    """An event's Swiss rounds as arrays (see the module docstring). Build with `prepare`."""

    event: EventRecord
    rounds: list[RoundRecord]  # as given to `prepare` (for the scalar fallback)
    rules: SwissRules
    ids: list[str]
    index: dict[str, int]
    phases: list[int]  # the Swiss phases with a result, ascending
    # Per seat (one player's side of one match with a result), in (phase, round) order.
    player: Ints
    gp: Ints  # game points
    games: Ints
    win: Ints
    loss: Ints
    draw: Ints
    opponent: Ints  # -1: no opponent (bye, loss with no opponent)
    phase_end: list[int]  # phase_end[k]: seats of phases[: k + 1]
    last_phase: Ints  # per player: the last phase played (0: never)
    playoffs: list[RoundRecord]
    scalar: bool  # True: delegate to mtr_fast (results it would reject)
    # The per-seat columns packed two and three to an int (see `_pack`), so that one
    # bincount adds up several: exact while every player's totals fit their fields.
    wld: Ints  # win | loss << 17 | draw << 34
    gpg: Ints  # game points | games << 26
    # Largest per-player totals: seats (bounds wins, losses, draws), game points, games.
    most: tuple[int, int, int]


def _seats(
    a: Ints, b: Ints, kind: Ints, wins_a: Ints, wins_b: Ints, draws: Ints, bye_games: int
) -> tuple[Ints, Ints, Ints, Ints, Ints, Ints, Ints]:
    """Seat columns (player, gp, games, win, loss, draw, opponent) of matches given as
    columns; side a of every match first, then side b of the two-player ones."""
    played = kind == 0
    bye = kind == 1
    double = kind == 3
    two = played | double
    # Double losses and single-player entries have no games; a bye is a 2-0 (1-0) win.
    wa = np.where(played, wins_a, 0)
    wb = np.where(played, wins_b, 0)
    dr = np.where(played, draws, 0)
    games = np.where(bye, bye_games, wa + wb + dr)
    gp_a = np.where(bye, GAME_WIN_POINTS * bye_games, GAME_WIN_POINTS * wa + GAME_DRAW_POINTS * dr)
    gp_b = GAME_WIN_POINTS * wb + GAME_DRAW_POINTS * dr
    # More games won wins the match; equal games won (0-0-0, 0-0-3 too) is a draw.
    win_a = (played & (wa > wb)) | bye
    win_b = played & (wb > wa)
    drew = played & (wa == wb)
    lose_a = (played & (wa < wb)) | ~(played | bye)
    lose_b = (played & (wb < wa)) | double
    sb = two.nonzero()[0]
    cat = np.concatenate
    i64 = np.int64
    return (
        cat([a, b[sb]]).astype(i64),
        cat([gp_a, gp_b[sb]]).astype(i64),
        cat([games, games[sb]]).astype(i64),
        cat([win_a, win_b[sb]]).astype(i64),
        cat([lose_a, lose_b[sb]]).astype(i64),
        cat([drew, drew[sb]]).astype(i64),
        cat([np.where(two, b, -1), a[sb]]).astype(i64),
    )


_match_key = attrgetter("kind", "wins", "draws")
_match_players = attrgetter("players")
_NO_RESULT = -1


class _Results(dict[tuple[object, object, object], tuple[int, int, int, int]]):
    """(kind, wins, draws) -> (kind code or _NO_RESULT, wins a, wins b, drawn games).

    A cache: an event has only a handful of distinct results, checked on first sight.
    """

    def __init__(self) -> None:
        super().__init__()
        self.implausible = False

    def __missing__(self, key: tuple[object, object, object]) -> tuple[int, int, int, int]:
        kind, wins, draws = key
        code = _KIND_CODE.get(kind)  # type: ignore[arg-type]
        if code is None:
            raise ValueError(f"a {kind!r} match cannot be scored under a Swiss system")
        value = (code, 0, 0, 0)
        if code == 0:
            if wins is None:
                value = (_NO_RESULT, 0, 0, 0)  # not a round played
            else:
                wa, wb = wins  # type: ignore[misc]
                drawn = int(draws)  # type: ignore[call-overload]
                value = (0, wa, wb, drawn)
                # mtr_fast rejects such a result (ValueError): keep its behaviour.
                top = GAME_WIN_POINTS * max(wa, wb) + GAME_DRAW_POINTS * drawn
                low = GAME_WIN_POINTS * min(wa, wb) + GAME_DRAW_POINTS * drawn
                if not (
                    low >= 0 and top < _MAX_PER_MATCH and 0 <= wa + wb + drawn < _MAX_PER_MATCH
                ):
                    self.implausible = True
        self[key] = value
        return value


def _player_ids(event: EventRecord, rounds: list[RoundRecord]) -> list[str]:
    """mtr.player_ids, in C-level passes."""
    registered = [player.id for player in event.players]
    seated = set(chain.from_iterable(chain.from_iterable(map(_seats_of, rounds))))
    return registered + sorted(seated.difference(registered))


def _flat_seats(swiss: list[RoundRecord], index: dict[str, int]) -> tuple[list[int], list[int]]:
    """Seat counts per match and the seated players' indices, flattened (KeyError for an
    id not in `index`)."""
    sizes: list[int] = []
    flat: list[int] = []
    for round_ in swiss:
        seats = list(map(_match_players, round_.matches))
        sizes += map(len, seats)
        flat += map(index.__getitem__, chain.from_iterable(seats))
    return sizes, flat


def _seats_of(round_: RoundRecord) -> map[tuple[str, ...]]:
    return map(_match_players, round_.matches)


def prepare(event: EventRecord, rounds: Sequence[RoundRecord]) -> VectorEvent:
    """The arrays of `rounds` (already cut to the requested round, as for mtr.compute)."""
    rounds = list(rounds)
    rules = rules_for(event)
    swiss = swiss_rounds(rounds)
    # Players seated but not registered are rare: the seats pass finds them (KeyError),
    # so that valid events do not pay a pass over every seat for them.
    ids = [player.id for player in event.players]
    index = {pid: i for i, pid in enumerate(ids)}
    try:
        if not index.keys() >= set(
            chain.from_iterable(chain.from_iterable(_seats_of(r) for r in rounds if r.playoff))
        ):
            raise KeyError
        sizes, flat = _flat_seats(swiss, index)
    except KeyError:
        ids = _player_ids(event, rounds)
        index = {pid: i for i, pid in enumerate(ids)}
        sizes, flat = _flat_seats(swiss, index)
    phases = sorted({r.phase for r in swiss})
    phase_pos = {phase: k for k, phase in enumerate(phases)}
    results = _Results()
    # Per match, in tally order: result, phase position, seat count; seats flattened.
    codes: list[tuple[int, int, int, int]] = []
    match_phase: list[int] = []
    for round_ in swiss:
        matches = round_.matches
        codes += map(results.__getitem__, map(_match_key, matches))
        match_phase += [phase_pos[round_.phase]] * len(matches)
    count = len(codes)
    table = np.fromiter(chain.from_iterable(codes), dtype=np.int64, count=4 * count)
    table = table.reshape(count, 4)
    size_of = np.asarray(sizes, dtype=np.int64)
    seat_ids = np.asarray(flat, dtype=np.int64)
    first = np.cumsum(size_of) - size_of
    kind = table[:, 0]
    two = (kind == 0) | (kind == 3)
    scalar = results.implausible or bool(
        np.any(size_of[kind >= 0] != np.where(two, 2, 1)[kind >= 0])
    )
    if scalar:  # malformed matches: mtr_fast decides what happens to them
        table = table[:0]
        first = first[:0]
        kind = kind[:0]
        match_phase = []
    a = seat_ids[first] if len(first) else first
    b = np.where(two[: len(first)], seat_ids[np.minimum(first + 1, len(seat_ids) - 1)], -1)
    phase_of = np.asarray(match_phase, dtype=np.int64)
    # Each phase's seats (side a, then side b) form one slice, phases in order.
    ends: list[int] = []
    parts: list[tuple[Ints, ...]] = []
    for k in range(len(phases)):
        chosen = (phase_of == k) & (kind >= 0)
        parts.append(
            _seats(
                a[chosen],
                b[chosen],
                kind[chosen],
                table[chosen, 1],
                table[chosen, 2],
                table[chosen, 3],
                rules.bye_games,
            )
        )
        ends.append((ends[-1] if ends else 0) + len(parts[-1][0]))
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        parts.append((empty,) * 7)
    columns = [np.concatenate([p[c] for p in parts]) for c in range(7)]
    seat_phase = np.repeat(
        np.asarray(phases, dtype=np.int64), np.diff(np.asarray([0, *ends], dtype=np.int64))
    )
    last_phase = np.zeros(len(ids), dtype=np.int64)
    np.maximum.at(last_phase, columns[0], seat_phase)
    size = len(ids)
    most = tuple(
        int(np.bincount(columns[0], weights=w, minlength=size).max(initial=0))
        for w in (None, columns[1], columns[2])
    )
    return VectorEvent(
        event=event,
        rounds=rounds,
        rules=rules,
        ids=ids,
        index=index,
        phases=phases,
        player=columns[0],
        gp=columns[1],
        games=columns[2],
        win=columns[3],
        loss=columns[4],
        draw=columns[5],
        opponent=columns[6],
        phase_end=ends,
        last_phase=last_phase,
        playoffs=[r for r in rounds if r.playoff],
        scalar=scalar,
        wld=_pack(columns[3], columns[4], columns[5], _WLD),
        gpg=_pack(columns[1], columns[2], None, _GPG),
        most=(most[0], most[1], most[2]),
    )


# Field widths of the packed columns. A float64 bincount is exact below 2**53: three
# 17-bit fields (rounds per player < 2**17) or two 26-bit ones (game points, games).
_WLD = 17
_GPG = 26


def _pack(low: Ints, middle: Ints, high: Ints | None, width: int) -> Ints:
    packed = low + (middle << width)
    return packed if high is None else packed + (high << (2 * width))


def _fits(most: tuple[int, int, int]) -> bool:
    seats, game_points, games = most
    return seats < 1 << _WLD and game_points < 1 << _GPG and games < 1 << _GPG


# --- Exact values --------------------------------------------------------------------------


def _count(index: Ints, size: int, weights: Ints | None = None) -> Ints:
    # float64 bincount is exact here: every total stays far below 2**53.
    if weights is None:
        return np.bincount(index, minlength=size).astype(np.int64)
    return np.bincount(index, weights=weights, minlength=size).astype(np.int64)


def _floored(num: Ints, den: Ints, floor: Fraction) -> tuple[Ints, Ints]:
    """num / den (den 0: no rounds or games) raised to `floor`; not reduced (sums and
    comparisons do not need it, and Fractions reduce themselves)."""
    fn, fd = floor.numerator, floor.denominator
    low = (den == 0) | (num * fd < fn * den)
    return np.where(low, fn, num), np.where(low, fd, den)


def _distinct(values: Ints) -> list[int]:
    top = int(values.max(initial=0))
    if top < 1 << 20:  # the usual case: a bincount beats sorting
        return np.flatnonzero(np.bincount(values, minlength=1)).tolist()
    return np.unique(values).tolist()


@dataclass(slots=True)
class _Average:
    """Per player: the mean of opponents' values, exactly (see the module docstring)."""

    limbs: list[Floats]  # exact integer sums of the limbs of the scaled numerators
    scale: int  # D: every opponent value is (scaled numerator) / D
    count: Ints  # opponents met
    none: Fraction  # the value for a player who met no opponent
    approx: Floats
    tol: float

    def numerators(self, players: Sequence[int] | Ints) -> list[int]:
        picked = [limb[players].astype(np.int64).tolist() for limb in self.limbs]
        total = picked[-1]
        for limb in reversed(picked[:-1]):
            total = list(map(add, map(lshift, total, [_LIMB] * len(total)), limb))
        return total

    def fractions(self, players: Sequence[int] | Ints) -> list[Fraction]:
        count = self.count[players].tolist()
        numerators = self.numerators(players)
        out = _fractions(numerators, [c * self.scale if c else 1 for c in count])
        for k, c in enumerate(count):
            if not c:
                out[k] = self.none
        return out


def _average(num: Ints, den: Ints, who: Ints, whom: Ints, count: Ints, none: Fraction) -> _Average:
    """The mean over opponents of num / den (per player, in [0, 1], den > 0): seat k adds
    player whom[k]'s value to player who[k]."""
    size = len(num)
    distinct = _distinct(den)
    scale = lcm(*distinct) if distinct else 1
    most = int(count.max(initial=0))
    width = max(1, -(-scale.bit_length() // _LIMB))
    if scale < 1 << 62:
        rest = num * (scale // den)
        limbs_in = []
        for _ in range(width):
            limbs_in.append(rest & _LIMB_MASK if width > 1 else rest)
            rest = rest >> _LIMB
    else:  # a huge D: scale the (few) distinct values in Python ints
        pairs, inverse = np.unique(num * (1 << 32) + den, return_inverse=True)
        big = [(p >> 32) * (scale // (p & _LIMB_MASK)) for p in pairs.tolist()]
        table = np.array(
            [[(s >> (_LIMB * k)) & _LIMB_MASK for k in range(width)] for s in big], dtype=np.int64
        ).reshape(-1, width)
        limbs_in = [table[inverse.reshape(-1), k] for k in range(width)]
    limbs = [np.bincount(who, weights=limb[whom], minlength=size) for limb in limbs_in]
    denominator = count * float(scale)
    if width == 1 and most * scale < _EXACT:
        approx = limbs[0] / np.maximum(denominator, 1.0)
        # One correctly rounded division of exact integers: exact-equal values give equal
        # floats; distinct averages differ by >= 1/(n_a n_b D), a constant by 1/(q n D).
        proven = most * most * scale < _GAP and none.denominator * most * scale < _GAP
        tol = 0.0 if proven else 2.0**-50
    else:
        total = limbs[-1]
        for limb in reversed(limbs[:-1]):
            total = total * float(1 << _LIMB) + limb
        approx = total / np.maximum(denominator, 1.0)
        # A few roundings of a value in [0, 1]; doubled for the two sides of a comparison.
        tol = (width + 4) * 2.0**-51
    approx = np.where(count > 0, approx, float(none))
    return _Average(limbs, scale, count, none, approx, tol)


def _subset_mean(
    num: Ints, den: Ints, who: Ints, whom: Ints, count: Ints, none: Fraction, players: list[int]
) -> tuple[list[int], int]:
    """The mean over opponents of num / den for a few players, without the others, as
    integer numerators over one common denominator (returned second)."""
    wanted = np.zeros(len(num), dtype=bool)
    wanted[players] = True
    seats = wanted[who]
    opponents = whom[seats]
    numerators = num[opponents].tolist()
    denominators = den[opponents].tolist()
    scale = lcm(*set(denominators)) if denominators else 1
    sums = dict.fromkeys(players, 0)
    for i, n, d in zip(who[seats].tolist(), numerators, denominators, strict=True):
        sums[i] += n * (scale // d)
    counts = count[players].tolist()
    # mean = sum / (c x scale); over lcm(c) x scale x none.denominator, both the means
    # and the no-opponent value are integers.
    many = lcm(*set(counts).difference({0})) if any(counts) else 1
    common = many * scale * none.denominator
    empty = none.numerator * many * scale
    keys = [
        sums[i] * (many // c) * none.denominator if c else empty
        for i, c in zip(players, counts, strict=True)
    ]
    return keys, common


@dataclass(slots=True)
class _Values:
    """Every player's values from the seats of one prefix of the Swiss phases."""

    wins: Ints
    losses: Ints
    draws: Ints
    points: Ints
    gw_num: Ints  # own GW% (dci: unfloored), not reduced
    gw_den: Ints
    opp_gw_num: Ints  # GW% as an opponent's value (floored)
    opp_gw_den: Ints
    who: Ints  # seats with an opponent: player, opponent
    whom: Ints
    count: Ints  # opponents met
    none: Fraction
    omw: _Average
    ogw_all: _Average | None  # None until `ogw()` is asked for

    def ogw(self) -> _Average:
        if self.ogw_all is None:
            self.ogw_all = _average(
                self.opp_gw_num, self.opp_gw_den, self.who, self.whom, self.count, self.none
            )
        return self.ogw_all

    def ogw_keys(self, players: Sequence[int]) -> tuple[list[int], int]:
        """Exact OGW% of `players` as integers over one denominator (returned second)."""
        return _subset_mean(
            self.opp_gw_num,
            self.opp_gw_den,
            self.who,
            self.whom,
            self.count,
            self.none,
            list(players),
        )

    def ogw_exact(self, players: Sequence[int]) -> list[Fraction]:
        if self.ogw_all is not None:
            return self.ogw_all.fractions(players)
        keys, common = self.ogw_keys(players)
        return [Fraction(k, common) for k in keys]

    def gw_exact(self, players: Sequence[int]) -> list[Fraction]:
        return list(map(Fraction, self.gw_num[players].tolist(), self.gw_den[players].tolist()))

    def gw_approx(self) -> tuple[Floats, float]:
        # Own GW% is one correctly rounded division; denominators are 3 x games played.
        top = int(self.gw_den.max(initial=1))
        return self.gw_num / self.gw_den, 0.0 if top * top < _GAP else 2.0**-50


def _values(
    size: int,
    rules: SwissRules,
    player: Ints,
    gp: Ints,
    games: Ints,
    win: Ints,
    loss: Ints,
    draw: Ints,
    opponent: Ints,
    packed: tuple[Ints, Ints] | None = None,
) -> _Values:
    if packed is None:
        wins = _count(player, size, win)
        losses = _count(player, size, loss)
        draws = _count(player, size, draw)
        game_points = _count(player, size, gp)
        game_count = _count(player, size, games)
    else:
        wld = _count(player, size, packed[0])
        wins = wld & ((1 << _WLD) - 1)
        losses = (wld >> _WLD) & ((1 << _WLD) - 1)
        draws = wld >> (2 * _WLD)
        gpg = _count(player, size, packed[1])
        game_points = gpg & ((1 << _GPG) - 1)
        game_count = gpg >> _GPG
    points = WIN_POINTS * wins + DRAW_POINTS * draws
    played = wins + losses + draws
    floor = rules.floor
    mw_num, mw_den = _floored(points, 3 * played, floor)
    gw_num, gw_den = _floored(game_points, 3 * game_count, floor)
    if rules.floor_own_gw:
        own_num, own_den = gw_num, gw_den
    else:  # dci: the player's own GW% is not floored (no games: still the floor)
        raw = game_count > 0
        own_num = np.where(raw, game_points, gw_num)
        own_den = np.where(raw, 3 * game_count, gw_den)
    met = opponent >= 0
    who = player[met]
    whom = opponent[met]
    count = _count(who, size)
    none = rules.no_opponent
    return _Values(
        wins=wins,
        losses=losses,
        draws=draws,
        points=points,
        gw_num=own_num,
        gw_den=own_den,
        opp_gw_num=gw_num,
        opp_gw_den=gw_den,
        who=who,
        whom=whom,
        count=count,
        none=none,
        omw=_average(mw_num, mw_den, who, whom, count, none),
        ogw_all=None,
    )


# --- The order -----------------------------------------------------------------------------


@dataclass(slots=True)
class _Keys:
    """Sort keys per player: made-the-cut phase, points, then OMW%, GW%, OGW%."""

    phase: Ints
    points: Ints
    # Per tiebreaker (omw, gw, ogw): floats within `tol` of the value (None: not
    # computed, every run equal on the earlier keys is resolved exactly), and the exact
    # values of given players (any exact type that orders like the values).
    approx: list[Floats | None]
    tol: list[float]
    exact: list[Exact]


def _ranks(values: Floats) -> tuple[Ints, int]:
    """Dense ranks of `values` (ascending) and how many distinct there are."""
    distinct, inverse = np.unique(values, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64), len(distinct)


def _sorted(keys: _Keys, proven: int) -> tuple[Ints, npt.NDArray[np.bool_]]:
    """Players sorted best first on the integer keys and the first `proven` tiebreakers
    (floats equal exactly when the values are), and which neighbours tie on all of them.

    One int64 key (phase, points, dense ranks of the floats) and one sort when it fits,
    which is much quicker than a lexsort over floats; the order inside a tie is resolved
    later anyway.
    """
    columns = [keys.phase, keys.points]
    sizes = [int(keys.phase.max(initial=0)) + 1, int(keys.points.max(initial=0)) + 1]
    for level in range(proven):
        approx = keys.approx[level]
        assert approx is not None
        ranks, count = _ranks(approx)
        columns.append(ranks)
        sizes.append(count)
    bits = sum(max(1, s).bit_length() for s in sizes)
    if bits < 62:
        packed = columns[0]
        for column, size in zip(columns[1:], sizes[1:], strict=True):
            packed = packed * size + column
        order = np.argsort(-packed)
        return order, packed[order[1:]] == packed[order[:-1]]
    order = np.lexsort([-c for c in reversed(columns)])
    same = np.ones(max(0, len(order) - 1), dtype=bool)
    for column in columns:
        same &= column[order[1:]] == column[order[:-1]]
    return order, same


def _order(keys: _Keys, ids: list[str], seed: int) -> list[int]:
    """Players best first: exact, see the module docstring."""
    # The tiebreakers whose floats are exact keys, then the first that is not (if any).
    proven = 0
    while proven < 3 and keys.approx[proven] is not None and keys.tol[proven] == 0:
        proven += 1
    approx = keys.approx[proven] if proven < 3 else None
    if approx is None:
        order, same = _sorted(keys, proven)
    else:
        # Near-equal floats: sort on them, then resolve every chain of neighbours within
        # tol exactly (the floats put everyone else in the right place).
        floats = [-a for a in reversed(keys.approx[: proven + 1]) if a is not None]
        order = np.lexsort((*floats, -keys.points, -keys.phase))
        same = (keys.phase[order[1:]] == keys.phase[order[:-1]]) & (
            keys.points[order[1:]] == keys.points[order[:-1]]
        )
        for level in range(proven):
            values = keys.approx[level]
            assert values is not None
            same &= values[order[1:]] == values[order[:-1]]
        same &= np.abs(approx[order[1:]] - approx[order[:-1]]) <= keys.tol[proven]
    tied = same.nonzero()[0].tolist()
    out: list[int] = order.tolist()
    if not tied:
        return out
    # Maximal runs of tied neighbours: [start, end) in `out`.
    runs: list[tuple[int, int]] = []
    k = 0
    while k < len(tied):
        start = tied[k]
        end = start + 2
        k += 1
        while k < len(tied) and tied[k] == end - 1:
            end += 1
            k += 1
        runs.append((start, end))
    value: dict[int, tuple[int | Fraction, ...]] = {}
    if proven < 3:
        # The exact values of every player in a run, asked for all runs at once.
        members = [i for start, end in runs for i in out[start:end]]
        columns = [exact(members) for exact in keys.exact[proven:]]
        value = dict(zip(members, zip(*columns, strict=True), strict=True))

    def draw(i: int) -> tuple[int, str]:
        return draw_key(seed, ids[i]), ids[i]

    for start, end in runs:
        run = out[start:end]
        if not value:
            run.sort(key=draw)
        else:
            run.sort(key=value.__getitem__, reverse=True)
            # The seeded draw only among players equal on every value.
            placed: list[int] = []
            for _, equal in groupby(run, key=value.__getitem__):
                group = list(equal)
                if len(group) > 1:
                    group.sort(key=draw)
                placed += group
            run = placed
        out[start:end] = run
    return out


def _phase_values(
    v: VectorEvent, extra: tuple[Ints, ...] | None = None
) -> tuple[list[tuple[int, _Values, Ints]], Ints]:
    """[(phase, values at its end, members standing at it)] and each player's last phase.

    `extra`: seat columns appended to the final phase (simulated results).
    """
    size = len(v.ids)
    columns = (v.player, v.gp, v.games, v.win, v.loss, v.draw, v.opponent)
    packed = (v.wld, v.gpg)
    phases = v.phases
    ends = list(v.phase_end)
    last_phase = v.last_phase
    fits = _fits(v.most)
    if extra is not None:
        columns = tuple(np.concatenate([c, e]) for c, e in zip(columns, extra, strict=True))
        _, gp, games, win, loss, draw, _ = extra
        packed = (
            np.concatenate([v.wld, _pack(win, loss, draw, _WLD)]),
            np.concatenate([v.gpg, _pack(gp, games, None, _GPG)]),
        )
        seats, game_points, game_count = v.most
        fits = _fits((seats + len(gp), game_points + int(gp.sum()), game_count + int(games.sum())))
        if not phases:
            phases, ends = [1], [0]
        ends[-1] += len(extra[0])
        last_phase = last_phase.copy()
        last_phase[extra[0]] = phases[-1]
    if not phases:
        return [(0, _values(size, v.rules, *columns), np.arange(size))], last_phase
    out: list[tuple[int, _Values, Ints]] = []
    final = phases[-1]
    for phase, end in zip(phases, ends, strict=True):
        if phase == final:
            # Never played: the floors, with everyone at the end (ranked last anyway).
            members = ((last_phase == phase) | (last_phase == 0)).nonzero()[0]
        else:
            members = (last_phase == phase).nonzero()[0]
        if len(members) == 0:
            continue
        cut = (packed[0][:end], packed[1][:end]) if fits else None
        out.append((phase, _values(size, v.rules, *(c[:end] for c in columns), cut), members))
    return out, last_phase


def _keys(groups: list[tuple[int, _Values, Ints]], last_phase: Ints) -> _Keys:
    """The sort keys. OGW% is left exact-only: it matters only between players equal on
    every earlier key, so only those players' OGW% is ever computed for the order."""
    final = groups[-1][1]
    if len(groups) == 1:
        gw_approx, gw_tol = final.gw_approx()

        def ogw(players: list[int]) -> list[int]:
            return final.ogw_keys(players)[0]

        return _Keys(
            phase=last_phase,
            points=final.points,
            approx=[final.omw.approx, gw_approx, None],
            tol=[final.omw.tol, gw_tol, 0.0],
            exact=[final.omw.fractions, final.gw_exact, ogw],
        )
    # Frozen players: each one's values come from the phase they stand at.
    size = len(last_phase)
    which = np.zeros(size, dtype=np.int64)
    approx = [np.zeros(size), np.zeros(size)]
    tol = [0.0, 0.0, 0.0]
    for k, (_, values, members) in enumerate(groups):
        which[members] = k
        gw_approx, gw_tol = values.gw_approx()
        for column, (source, t) in enumerate(
            ((values.omw.approx, values.omw.tol), (gw_approx, gw_tol))
        ):
            approx[column][members] = source[members]
            tol[column] = max(tol[column], t)

    def picker(column: int) -> Exact:
        def exact(players: list[int]) -> list[Fraction]:
            out: list[Fraction] = [Fraction(0)] * len(players)
            by_group: dict[int, list[int]] = {}
            for position, i in enumerate(players):
                by_group.setdefault(int(which[i]), []).append(position)
            for k, positions in by_group.items():
                values = groups[k][1]
                of = (values.omw.fractions, values.gw_exact, values.ogw_exact)[column]
                for position, made in zip(
                    positions, of([players[p] for p in positions]), strict=True
                ):
                    out[position] = made
            return out

        return exact

    return _Keys(
        phase=last_phase,
        points=final.points,
        approx=[approx[0], approx[1], None],
        tol=tol,
        exact=[picker(0), picker(1), picker(2)],
    )


def _final_order(v: VectorEvent, swiss_order: list[int]) -> list[int]:
    if not v.playoffs:
        return swiss_order
    bracket = playoff_order(v.playoffs, [v.ids[i] for i in swiss_order])
    placed = [v.index[pid] for pid in bracket]
    in_bracket = set(placed)
    return placed + [i for i in swiss_order if i not in in_bracket]


# --- Entry points --------------------------------------------------------------------------


def _gw_column(values: _Values, players: Ints) -> list[Fraction]:
    # Own GW%: few distinct values, one Fraction each.
    pairs = list(zip(values.gw_num[players].tolist(), values.gw_den[players].tolist(), strict=True))
    distinct = list(set(pairs))
    made = _fractions([p[0] for p in distinct], [p[1] for p in distinct])
    return list(map(dict(zip(distinct, made, strict=True)).__getitem__, pairs))


def compute(v: VectorEvent) -> list[StandingRow]:
    """Exactly `mtr_fast.compute(event, rounds)` for the event and rounds `v` was made of."""
    if v.scalar:
        return mtr_fast.compute(v.event, v.rounds)
    if not v.ids:
        return []
    groups, last_phase = _phase_values(v)
    order = _final_order(v, _order(_keys(groups, last_phase), v.ids, v.event.seed))
    at = np.asarray(order, dtype=np.int64)
    final = groups[-1][1]
    # The tiebreakers in rank order, each from the phase its player stands at.
    if len(groups) == 1:
        omw = final.omw.fractions(at)
        gw = _gw_column(final, at)
        ogw = final.ogw().fractions(at)
    else:
        size = len(order)
        omw, gw, ogw = [Fraction(0)] * size, [Fraction(0)] * size, [Fraction(0)] * size
        which = np.zeros(size, dtype=np.int64)
        for k, (_, _, members) in enumerate(groups):
            which[members] = k
        standing = which[at]
        for k, (_, values, _) in enumerate(groups):
            places = (standing == k).nonzero()[0]
            players = at[places]
            spots = places.tolist()
            for column, made in (
                (omw, values.omw.fractions(players)),
                (gw, _gw_column(values, players)),
                (ogw, values.ogw().fractions(players)),
            ):
                for place, value in zip(spots, made, strict=True):
                    column[place] = value
    points = final.points[at].tolist()
    distinct_points = list(set(points))
    points_of = dict(
        zip(distinct_points, _fractions(distinct_points, [1] * len(distinct_points)), strict=True)
    )
    wins = final.wins[at].tolist()
    losses = final.losses[at].tolist()
    draws = final.draws[at].tolist()
    return _rows(
        [v.ids[i] for i in order],
        range(1, len(order) + 1),
        list(map(points_of.__getitem__, points)),
        wins,
        losses,
        draws,
        list(map(add, map(add, wins, losses), draws)),
        [{"omw": a, "gw": b, "ogw": c} for a, b, c in zip(omw, gw, ogw, strict=True)],
    )


def _extra_seats(
    v: VectorEvent,
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    wins_a: npt.ArrayLike,
    wins_b: npt.ArrayLike,
    draws: npt.ArrayLike,
) -> tuple[Ints, ...]:
    a_, b_ = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    kind = np.where(b_ >= 0, 0, 1).astype(np.int64)
    return _seats(
        a_,
        b_,
        kind,
        np.asarray(wins_a, dtype=np.int64),
        np.asarray(wins_b, dtype=np.int64),
        np.asarray(draws, dtype=np.int64),
        v.rules.bye_games,
    )


def rank_keys(
    v: VectorEvent,
    a: npt.ArrayLike = (),
    b: npt.ArrayLike = (),
    wins_a: npt.ArrayLike = (),
    wins_b: npt.ArrayLike = (),
    draws: npt.ArrayLike = (),
) -> Ints:
    """The final order (player indices into `v.ids`, best first) once the extra matches
    are added as one more Swiss round of the final phase (phase 1 if none).

    Match k: player a[k] against b[k] (b[k] = -1: a bye for a[k]), games won wins_a[k]
    and wins_b[k], drawn games draws[k]. No extra matches: the order of `compute(v)`.
    Exact like `compute`, but no Fraction is built unless near-tied players need one.
    """
    if v.scalar:
        return _scalar_order(v, a, b, wins_a, wins_b, draws)
    if not v.ids:
        return np.zeros(0, dtype=np.int64)
    extra = _extra_seats(v, a, b, wins_a, wins_b, draws) if np.size(a) else None
    groups, last_phase = _phase_values(v, extra)
    order = _order(_keys(groups, last_phase), v.ids, v.event.seed)
    return np.asarray(_final_order(v, order), dtype=np.int64)


def rank_batch(
    v: VectorEvent,
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    wins_a: npt.ArrayLike,
    wins_b: npt.ArrayLike,
    draws: npt.ArrayLike,
) -> Ints:
    """`rank_keys` for many simulations: 2-D arrays, one row of extra matches per
    simulation; one row of the result (the order) per simulation."""
    columns = [np.atleast_2d(np.asarray(c, dtype=np.int64)) for c in (a, b, wins_a, wins_b, draws)]
    out = np.empty((columns[0].shape[0], len(v.ids)), dtype=np.int64)
    for s in range(columns[0].shape[0]):
        out[s] = rank_keys(v, *(c[s] for c in columns))
    return out


def extra_round(
    v: VectorEvent,
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    wins_a: npt.ArrayLike,
    wins_b: npt.ArrayLike,
    draws: npt.ArrayLike,
) -> RoundRecord:
    """The extra matches of `rank_keys` as a RoundRecord (for the scalar path and tests)."""
    number = max((r.number for r in v.rounds), default=0) + 1
    phase = v.phases[-1] if v.phases else 1
    matches = []
    for x, y, wx, wy, d in zip(
        *(np.asarray(c, dtype=np.int64).tolist() for c in (a, b, wins_a, wins_b, draws)),
        strict=True,
    ):
        if y < 0:
            matches.append(MatchRecord(kind=BYE, players=(v.ids[x],)))
        else:
            matches.append(
                MatchRecord(kind=PLAYED, players=(v.ids[x], v.ids[y]), wins=(wx, wy), draws=d)
            )
    return RoundRecord(number=number, matches=tuple(matches), phase=phase)


def _scalar_order(
    v: VectorEvent,
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    wins_a: npt.ArrayLike,
    wins_b: npt.ArrayLike,
    draws: npt.ArrayLike,
) -> Ints:
    rounds = list(v.rounds)
    if np.size(a):
        rounds.append(extra_round(v, a, b, wins_a, wins_b, draws))
    rows = mtr_fast.compute(v.event, rounds)
    return np.asarray([v.index[r.player] for r in rows], dtype=np.int64)
