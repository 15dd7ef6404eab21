"""Swiss scoring for `mtr`, `dci` and `melee` (shared/spec/scoring.md sections 1, 2, 2b).

Speed matters here (8,192 players x 15 rounds in well under 100 ms), so the hot loops
work on integer lists indexed by player, never on Fractions: every percentage is kept as
an integer numerator over one denominator shared by the whole group being compared, and
sort keys are plain integer tuples. Fractions are only built for the output rows.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import chain, compress, groupby
from math import gcd, lcm
from operator import attrgetter, itemgetter

from .ranking import draw_key, playoff_order
from .records import (
    BYE,
    DOUBLE_LOSS,
    LOSS,
    PLAYED,
    EventRecord,
    RoundRecord,
    StandingRow,
)


@dataclass(frozen=True, slots=True)
class SwissRules:
    """What differs between the three Magic presets."""

    # Floor applied to a player's MW% and GW% whenever they are used (as a percentage).
    floor: Fraction
    # Whether the player's OWN GW% (tiebreak step 2) is floored too.
    floor_own_gw: bool
    # OMW% / OGW% of a player who met no opponent at all.
    no_opponent: Fraction
    # Games a bye is worth, won: 2 (a 2-0 win) unless the preset says otherwise.
    bye_games: int


# MTR Appendix C: MW%, GW%, OMW%, OGW% all have a 0.33 floor; a bye is a 2-0 win.
MTR_FLOOR = Fraction(33, 100)
MTR = SwissRules(floor=MTR_FLOOR, floor_own_gw=True, no_opponent=MTR_FLOOR, bye_games=2)
# Older DCI Universal Tournament Rules: the player's own GW% is NOT floored (scoring.md s.2);
# the floor still applies wherever a percentage is an opponent's value.
DCI = SwissRules(floor=MTR_FLOOR, floor_own_gw=False, no_opponent=MTR_FLOOR, bye_games=2)
# melee.gg (scoring.md s.2b, confirmed on shared/data/real): floors are exactly 1/3 ...
MELEE_FLOOR = Fraction(1, 3)
# ... and a player with no opponent shows the literal 0.3333 for OMW% and OGW%.
MELEE_NO_OPPONENT = Fraction(3333, 10000)


def rules_for(event: EventRecord) -> SwissRules:
    if event.system == "mtr":
        return MTR
    if event.system == "dci":
        return DCI
    if event.system == "melee":
        # melee.gg scores a bye in a best-of-one event as a 1-0 game win (scoring.md s.2b).
        bye_games = 1 if event.best_of == 1 else 2
        return SwissRules(
            floor=MELEE_FLOOR,
            floor_own_gw=True,
            no_opponent=MELEE_NO_OPPONENT,
            bye_games=bye_games,
        )
    raise ValueError(f"not a Swiss Magic system: {event.system!r}")


# Match points (MTR Appendix C): win 3, draw 1, loss 0; game points likewise per game.
WIN_POINTS = 3
DRAW_POINTS = 1

# Speed. 8,192 players x 15 rounds is 120k player-matches; Python spends ~50-100 ns on
# every per-element step, so the hot path is a few C-level passes (map/zip/compress)
# per round plus ONE Python `+=` per seat:
#   * a player's running totals live in one int of fixed-width fields (game points,
#     games, wins, losses, draws, opponents met), so a match is one addition per player;
#   * per round we keep the flat list of seats of two-player matches whose players count
#     as each other's opponents (seats 2k and 2k+1 faced each other); the OMW%/OGW% sums
#     are made from these lists once the final MW%/GW% are known.
# Rounds played = wins + losses + draws (a bye is a win, a double loss or no-opponent
# loss a loss) and match points = 3 x wins + draws, so neither is stored.
_FIELD_BITS = 48
_FIELD_MASK = (1 << _FIELD_BITS) - 1
# A field can never overflow into the next: one match adds less than _MAX_PER_MATCH to
# a field, so that would take 2**24 rounds. Larger single results are rejected.
_MAX_PER_MATCH = 1 << 24
_GP, _GAMES, _WINS, _LOSSES, _DRAWS, _OPPONENTS = (k * _FIELD_BITS for k in range(6))


def _pack(game_points: int, games: int, wins: int, losses: int, draws: int, opponents: int) -> int:
    if not 0 <= game_points < _MAX_PER_MATCH or not 0 <= games < _MAX_PER_MATCH:
        raise ValueError(f"implausible match result: {games} games")
    return (
        (game_points << _GP)
        | (games << _GAMES)
        | (wins << _WINS)
        | (losses << _LOSSES)
        | (draws << _DRAWS)
        | (opponents << _OPPONENTS)
    )


def _field(totals: list[int], offset: int) -> list[int]:
    mask = _FIELD_MASK
    return [(t >> offset) & mask for t in totals]


# A loss with no opponent: a round played worth nothing, no games (scoring.md s.1).
_LOSS_CODE = _pack(0, 0, 0, 1, 0, 0)
# Each side of a double loss: the same, but the other player is still an opponent.
_DOUBLE_LOSS_CODE = _pack(0, 0, 0, 1, 0, 1)

# (kind, wins, draws) of a match: everything its scoring depends on.
_match_key = attrgetter("kind", "wins", "draws")
_match_players = attrgetter("players")


def _seats_of(round_: RoundRecord) -> map[tuple[str, ...]]:
    return map(_match_players, round_.matches)


_MatchKey = tuple[str, tuple[int, ...] | None, int]


class _Codes(dict[_MatchKey, tuple[tuple[int, ...], tuple[int, ...]]]):
    """Match key -> (packed contribution per listed player, opponent flag per player).

    A cache: an event has only a handful of distinct results, computed on first sight.
    """

    def __init__(self, bye_games: int) -> None:
        super().__init__()
        # MTR Appendix C: a bye is a match win and a 2-0 game win (melee bo1: 1-0).
        self.bye = _pack(WIN_POINTS * bye_games, bye_games, 1, 0, 0, 0)

    def __missing__(self, key: _MatchKey) -> tuple[tuple[int, ...], tuple[int, ...]]:
        kind, result, drawn = key
        value: tuple[tuple[int, ...], tuple[int, ...]]
        if kind == PLAYED and result is None:
            value = ((0, 0), (0, 0))  # no result yet: not a round played
        elif kind == PLAYED:
            assert result is not None
            wa, wb = result
            # Unfinished games count as drawn games; every listed game is a game played.
            games = wa + wb + drawn
            win_a = int(wa > wb)
            win_b = int(wb > wa)
            # Equal games won = a drawn match (0-0-0 and 0-0-3 included).
            drew = int(wa == wb)
            value = (
                (
                    _pack(WIN_POINTS * wa + DRAW_POINTS * drawn, games, win_a, win_b, drew, 1),
                    _pack(WIN_POINTS * wb + DRAW_POINTS * drawn, games, win_b, win_a, drew, 1),
                ),
                (1, 1),
            )
        elif kind == BYE:
            value = ((self.bye,), (0,))  # a bye is not an opponent
        elif kind == LOSS:
            value = ((_LOSS_CODE,), (0,))
        elif kind == DOUBLE_LOSS:
            value = ((_DOUBLE_LOSS_CODE, _DOUBLE_LOSS_CODE), (1, 1))
        else:
            raise ValueError(f"a {kind!r} match cannot be scored under a Swiss system")
        self[key] = value
        return value


def _tally(
    rounds: list[RoundRecord],
    index: dict[str, int],
    codes: _Codes,
    totals: list[int],
    pairings: list[list[int]],
) -> None:
    """Add `rounds` to `totals` (in place) and append each round's opponent seats."""
    codes_get = codes.__getitem__
    index_get = index.__getitem__
    contributions = itemgetter(0)
    flags = itemgetter(1)
    for round_ in rounds:
        matches = round_.matches
        seats = list(map(_match_players, matches))
        entries = list(map(codes_get, map(_match_key, matches)))
        ids = list(map(index_get, chain.from_iterable(seats)))
        for i, code in zip(ids, chain.from_iterable(map(contributions, entries)), strict=True):
            totals[i] += code
        # Keep the seats of matches with an opponent (played with a result, double loss).
        pairings.append(list(compress(ids, chain.from_iterable(map(flags, entries)))))


def _opponent_sums(values: list[int], pairings: list[list[int]]) -> list[int]:
    """Per player, the sum of `values` of every opponent met (once per match)."""
    sums = [0] * len(values)
    get = values.__getitem__
    for seats in pairings:
        met = list(map(get, seats))
        # Seats 2k and 2k+1 faced each other: swap each pair.
        swapped = met[:]
        swapped[0::2] = met[1::2]
        swapped[1::2] = met[0::2]
        for i, value in zip(seats, swapped, strict=True):
            sums[i] += value
    return sums


_new_object = object.__new__


def _fraction(numerator: int, denominator: int) -> Fraction:
    """Fraction(numerator, denominator) for non-negative ints, about twice as fast.

    Fraction's constructor spends most of its time in generic type checks; the output
    rows need ~16k of them for a large event. Falls back to the public constructor if
    this Python's Fraction ever stops being the (_numerator, _denominator) pair.
    """
    g = gcd(numerator, denominator)
    value = _new_object(Fraction)
    value._numerator = numerator // g  # type: ignore[attr-defined]
    value._denominator = denominator // g  # type: ignore[attr-defined]
    return value


try:
    if _fraction(6, 4) != Fraction(3, 2) or hash(_fraction(6, 4)) != hash(Fraction(3, 2)):
        raise TypeError
except (AttributeError, TypeError):  # pragma: no cover - depends on the Python version

    def _fraction(numerator: int, denominator: int) -> Fraction:
        return Fraction(numerator, denominator)


class _Group:
    """Tiebreak values of players compared with one another, by player index.

    All OMW%/GW%/OGW% of one group are integer numerators over shared denominators, so
    the sort keys are plain integer tuples and mathematically equal values are equal.
    """

    __slots__ = ("gw", "keys", "ogw", "omw")

    def __init__(self, size: int) -> None:
        self.keys: list[tuple[int, int, int, int]] = [(0, 0, 0, 0)] * size
        self.omw: list[Fraction] = [MTR_FLOOR] * size
        self.gw: list[Fraction] = [MTR_FLOOR] * size
        self.ogw: list[Fraction] = [MTR_FLOOR] * size


def _common(floor: Fraction, denominators: set[int]) -> int:
    """lcm of 3 x every denominator and the floor's: one denominator for a percentage."""
    common = floor.denominator
    for den in denominators:
        if den:
            common = lcm(common, 3 * den)
    return common


def _group_values(
    totals: list[int],
    pairings: list[list[int]],
    group: list[int],
    rules: SwissRules,
    values: _Group,
) -> None:
    """Fill `values` for the players in `group`, from the totals and pairings given."""
    floor = rules.floor
    game_points = _field(totals, _GP)
    games = _field(totals, _GAMES)
    wins = _field(totals, _WINS)
    losses = _field(totals, _LOSSES)
    draws = _field(totals, _DRAWS)
    counts = _field(totals, _OPPONENTS)
    points = [WIN_POINTS * w + DRAW_POINTS * d for w, d in zip(wins, draws, strict=True)]
    played = [w + lo + d for w, lo, d in zip(wins, losses, draws, strict=True)]

    # MW% = match points / (3 x rounds played), GW% = game points / (3 x games played),
    # both floored, as integer numerators over mw_den / gw_den.
    mw_den = _common(floor, set(played))
    gw_den = _common(floor, set(games))
    mw_floor = floor.numerator * (mw_den // floor.denominator)
    gw_floor = floor.numerator * (gw_den // floor.denominator)
    mw_scale = {r: mw_den // (3 * r) for r in set(played) if r}
    gw_scale = {g: gw_den // (3 * g) for g in set(games) if g}
    mw = [
        max(mw_floor, p * mw_scale[r]) if r else mw_floor
        for p, r in zip(points, played, strict=True)
    ]
    # No games played: GW% at the floor (MTR Appendix C; melee: 1/3).
    own_gw = [gp * gw_scale[g] if g else gw_floor for gp, g in zip(game_points, games, strict=True)]
    gw = [x if x > gw_floor else gw_floor for x in own_gw]
    if rules.floor_own_gw:
        own_gw = gw  # dci keeps the player's own GW% unfloored

    # Both opponent sums in one pass: MW% and GW% numerators packed in one int each.
    most = max(counts, default=0)
    shift = (max(gw, default=0) * max(most, 1)).bit_length() + 1
    low = (1 << shift) - 1
    packed = [(m << shift) | g for m, g in zip(mw, gw, strict=True)]
    sums = _opponent_sums(packed, pairings)

    # Averages over a shared denominator: avg = sum / (n x den), so use lcm(n) x den,
    # widened to hold the no-opponent value exactly too.
    group_counts = {counts[i] for i in group}
    count_lcm = 1
    for n in group_counts:
        if n:
            count_lcm = lcm(count_lcm, n)
    none = rules.no_opponent
    omw_all = lcm(count_lcm * mw_den, none.denominator)
    ogw_all = lcm(count_lcm * gw_den, none.denominator)
    omw_factor = {
        n: (count_lcm // n) * (omw_all // (count_lcm * mw_den)) for n in group_counts if n
    }
    ogw_factor = {
        n: (count_lcm // n) * (ogw_all // (count_lcm * gw_den)) for n in group_counts if n
    }
    # Met no opponent (only byes, or never played): the preset's fixed value.
    omw_factor[0] = ogw_factor[0] = 0
    omw_none = none.numerator * (omw_all // none.denominator)
    ogw_none = none.numerator * (ogw_all // none.denominator)

    gw_cache: dict[int, Fraction] = {}
    keys = values.keys
    omw_out = values.omw
    gw_out = values.gw
    ogw_out = values.ogw
    for i in group:
        n = counts[i]
        total = sums[i]
        own = own_gw[i]
        if n:
            omw_sum = total >> shift
            ogw_sum = total & low
            keys[i] = (points[i], omw_sum * omw_factor[n], own, ogw_sum * ogw_factor[n])
            omw_out[i] = _fraction(omw_sum, n * mw_den)
            ogw_out[i] = _fraction(ogw_sum, n * gw_den)
        else:
            keys[i] = (points[i], omw_none, own, ogw_none)
            omw_out[i] = none
            ogw_out[i] = none
        fraction = gw_cache.get(own)
        if fraction is None:
            fraction = gw_cache[own] = _fraction(own, gw_den)
        gw_out[i] = fraction


def _tally_phases(
    swiss: list[RoundRecord], phases: list[int], index: dict[str, int], rules: SwissRules
) -> tuple[list[int], list[list[int]], list[tuple[int, list[int], int]]]:
    """Totals, opponent seats per round, and phase-end snapshots of the Swiss rounds.

    A snapshot is (phase, totals at its end, number of rounds of pairings by then).
    """
    codes = _Codes(rules.bye_games)
    totals = [0] * len(index)
    pairings: list[list[int]] = []
    snapshots: list[tuple[int, list[int], int]] = []
    for phase in phases:
        _tally([r for r in swiss if r.phase == phase], index, codes, totals, pairings)
        snapshots.append((phase, list(totals), len(pairings)))
    if not snapshots:
        snapshots.append((0, totals, 0))
    return totals, pairings, snapshots


def compute(event: EventRecord, rounds: list[RoundRecord]) -> list[StandingRow]:
    """Standings rows, best first, for `rounds` (already cut to the requested round and
    holding only rounds with at least one result)."""
    rules = rules_for(event)
    ids: list[str] = [p.id for p in event.players]
    index = {pid: i for i, pid in enumerate(ids)}
    swiss = sorted((r for r in rounds if not r.playoff), key=lambda r: (r.phase, r.number))
    playoffs = [r for r in rounds if r.playoff]
    phases = sorted({r.phase for r in swiss})

    try:
        totals, pairings, snapshots = _tally_phases(swiss, phases, index, rules)
    except KeyError:
        # Non-validating: a player id that appears only in a match still gets a row.
        # Found only on this (rare) path, so valid events pay nothing for it.
        seen = set(chain.from_iterable(chain.from_iterable(map(_seats_of, rounds))))
        for pid in sorted(seen.difference(index)):
            index[pid] = len(ids)
            ids.append(pid)
        totals, pairings, snapshots = _tally_phases(swiss, phases, index, rules)
    size = len(ids)

    # The last Swiss phase each player played in (0 = never played): every round played
    # adds a win, loss or draw, so a player's totals change in exactly those phases.
    last_phase = [0] * size
    previous = [0] * size
    for phase, state, _ in snapshots:
        for i, (now, before) in enumerate(zip(state, previous, strict=True)):
            if now != before:
                last_phase[i] = phase
        previous = state

    # scoring.md s.1: a player who plays no round of a later phase keeps their values as
    # they stood at the end of the last phase they played, opponents' values included.
    # melee.gg confirms the literal reading: it holds for players who stopped earlier in
    # that phase too (a Day 1 drop is frozen at the end of Day 1 like a missed cut), while
    # a Day 2 drop uses the final records of their opponents.
    members: dict[int, list[int]] = {}
    for i in range(size):
        members.setdefault(last_phase[i], []).append(i)
    values = _Group(size)
    final_phase = snapshots[-1][0]
    for phase, state, column_count in snapshots:
        group = members.get(phase, [])
        if phase == final_phase and phase:
            group = group + members.get(0, [])  # never played: the floors, ranked last
        if group:
            _group_values(state, pairings[:column_count], group, rules, values)

    # Made-the-cut players first (a frozen player never passes a Day 2 player), then the
    # chain: match points, OMW%, GW%, OGW%; then the seeded draw among exact ties.
    sort_keys = [(phase, *key) for phase, key in zip(last_phase, values.keys, strict=True)]
    swiss_order = sorted(range(size), key=sort_keys.__getitem__, reverse=True)
    swiss_order = _seeded_draw(swiss_order, sort_keys, ids, event.seed)
    order = swiss_order
    if playoffs:
        bracket = playoff_order(playoffs, [ids[i] for i in swiss_order])
        in_bracket = {index[pid] for pid in bracket}
        order = [index[pid] for pid in bracket] + [i for i in swiss_order if i not in in_bracket]

    omw = values.omw
    gw = values.gw
    ogw = values.ogw
    wins = _field(totals, _WINS)
    losses = _field(totals, _LOSSES)
    draws = _field(totals, _DRAWS)
    points_of: dict[int, Fraction] = {}
    for w, d in set(zip(wins, draws, strict=True)):
        points_of.setdefault(
            WIN_POINTS * w + DRAW_POINTS * d, Fraction(WIN_POINTS * w + DRAW_POINTS * d)
        )
    rows = [
        StandingRow(
            player=ids[i],
            rank=rank,
            points=points_of[WIN_POINTS * wins[i] + DRAW_POINTS * draws[i]],
            wins=wins[i],
            losses=losses[i],
            draws=draws[i],
            played=wins[i] + losses[i] + draws[i],
            tiebreakers={"omw": omw[i], "gw": gw[i], "ogw": ogw[i]},
        )
        for rank, i in enumerate(order, start=1)
    ]
    return rows


def _seeded_draw(
    order: list[int], sort_keys: Sequence[Hashable], ids: list[str], seed: int
) -> list[int]:
    """Order each run of players equal on every key by the seeded draw (smaller first).

    Hashing only the tied players keeps the draw off the hot path; the result is the same
    as sorting everyone with the draw as the last key.
    """
    out: list[int] = []
    for _, run_iter in groupby(order, key=sort_keys.__getitem__):
        run = list(run_iter)
        if len(run) > 1:
            run.sort(key=lambda i: (draw_key(seed, ids[i]), ids[i]))
        out.extend(run)
    return out
