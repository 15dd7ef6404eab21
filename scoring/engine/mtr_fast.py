"""Swiss scoring for `mtr`, `dci` and `melee`: the fast path `compute_standings` runs.

It computes exactly what the reference, mtr.py, computes (shared/spec/scoring.md s.1, 2,
2b; the presets and their constants live there): tests/unit/test_scoring_reference.py
checks that both give identical standings on generated events and on every real event.

Speed matters here (8,192 players x 15 rounds in well under 100 ms), so the hot loops
work on integer lists indexed by player, never on Fractions: every percentage is kept as
an integer numerator over one denominator shared by the whole group being compared, and
a sort key is one int (the tiebreak chain packed into fixed-width bit fields). Fractions
are only built for the output rows. Most per-player steps are one C-level pass each
(map/zip/compress over whole lists); the Python-level loops left are one `+=` per seat.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from itertools import chain, compress, islice, repeat
from math import gcd, lcm
from operator import (
    add,
    and_,
    attrgetter,
    eq,
    floordiv,
    itemgetter,
    lshift,
    mul,
    ne,
    not_,
    or_,
    rshift,
)

from .mtr import (
    DRAW_POINTS,
    GAME_DRAW_POINTS,
    GAME_WIN_POINTS,
    MTR_FLOOR,
    SWISS_SYSTEMS,
    WIN_POINTS,
    SwissRules,
    rules_for,
)
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
    Standings,
    Tiebreak,
)

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
    return list(map(and_, map(rshift, totals, repeat(offset)), repeat(_FIELD_MASK)))


# A loss with no opponent: a round played worth nothing, no games (scoring.md s.1).
_LOSS_CODE = _pack(0, 0, 0, 1, 0, 0)
# Each side of a double loss: the same, but the other player is still an opponent.
_DOUBLE_LOSS_CODE = _pack(0, 0, 0, 1, 0, 1)

# (kind, wins, draws) of a match: everything its scoring depends on.
_match_key = attrgetter("kind", "wins", "draws")
_match_players = attrgetter("players")
_player_id = attrgetter("id")


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
        self.bye = _pack(GAME_WIN_POINTS * bye_games, bye_games, 1, 0, 0, 0)

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
            points_a = GAME_WIN_POINTS * wa + GAME_DRAW_POINTS * drawn
            points_b = GAME_WIN_POINTS * wb + GAME_DRAW_POINTS * drawn
            value = (
                (
                    _pack(points_a, games, win_a, win_b, drew, 1),
                    _pack(points_b, games, win_b, win_a, drew, 1),
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
    for seats in pairings:
        # Seats 2k and 2k+1 faced each other.
        pairs = iter(seats)
        for a, b in zip(pairs, pairs, strict=True):
            sums[a] += values[b]
            sums[b] += values[a]
    return sums


# Building objects without their (Python-level) constructors. A large event needs ~16k
# Fractions and 8k StandingRows, and most of their constructors' time goes to generic
# checks and per-field calls; filling the slots with one C-level map per field makes
# exactly the same objects. Both fall back to the constructors if a Python version ever
# lays them out differently (checked once, below).
_new_object = object.__new__
_consume = deque(maxlen=0).extend


def _fractions(numerators: list[int], denominators: list[int]) -> list[Fraction]:
    """[Fraction(n, d) for n, d in zip(...)] for non-negative ints, d > 0."""
    divisors = list(map(gcd, numerators, denominators))
    out = list(map(_new_object, repeat(Fraction, len(numerators))))
    _consume(map(_SET_NUMERATOR, out, map(floordiv, numerators, divisors)))
    _consume(map(_SET_DENOMINATOR, out, map(floordiv, denominators, divisors)))
    return out


_ROW_FIELDS = tuple(f.name for f in fields(StandingRow))


def _rows(*columns: Sequence[object]) -> list[StandingRow]:
    """[StandingRow(*values) for values in zip(*columns)], one column per field."""
    rows = list(map(_new_object, repeat(StandingRow, len(columns[0]))))
    for setter, column in zip(_ROW_SETTERS, columns, strict=True):
        _consume(map(setter, rows, column))
    return rows


def _fractions_slow(numerators: list[int], denominators: list[int]) -> list[Fraction]:
    return list(map(Fraction, numerators, denominators))


def _rows_slow(*columns: Sequence[object]) -> list[StandingRow]:
    return list(map(StandingRow, *columns))


try:
    _SET_NUMERATOR = Fraction.__dict__["_numerator"].__set__
    _SET_DENOMINATOR = Fraction.__dict__["_denominator"].__set__
    _ROW_SETTERS = tuple(StandingRow.__dict__[name].__set__ for name in _ROW_FIELDS)
    _sample = ([6, 0, 5], [4, 7, 1])
    _made = _fractions(*_sample)
    if _made != _fractions_slow(*_sample) or list(map(hash, _made)) != [
        hash(Fraction(3, 2)),
        hash(Fraction(0)),
        hash(Fraction(5)),
    ]:
        raise TypeError
    _columns = (["p"], [1], [Fraction(3)], [1], [0], [0], [1], [{"omw": Fraction(1, 3)}])
    if _rows(*_columns) != _rows_slow(*_columns):
        raise TypeError
except (AttributeError, KeyError, TypeError):  # pragma: no cover - depends on the Python
    _fractions = _fractions_slow
    _rows = _rows_slow


class _Group:
    """Tiebreak values of players compared with one another, by player index.

    All OMW%/GW%/OGW% of one group are integer numerators over shared denominators, and
    a player's sort key packs (match points, OMW%, GW%, OGW%) into one int, so sorting
    compares plain ints and mathematically equal values give equal keys.
    """

    __slots__ = ("gw", "keys", "ogw", "omw")

    def __init__(self, size: int) -> None:
        self.keys: list[int] = [0] * size
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


def _pack_key(columns: list[list[int]]) -> list[int]:
    """One int per player ordering like the tuple of `columns` (non-negative ints)."""
    keys = columns[0]
    for column in columns[1:]:
        width = max(column, default=0).bit_length()
        keys = list(map(or_, map(lshift, keys, repeat(width)), column))
    return keys


class _Columns:
    """A totals list unpacked into one list per field, by player index."""

    __slots__ = ("counts", "draws", "game_points", "games", "losses", "played", "points", "wins")

    def __init__(self, totals: list[int]) -> None:
        self.game_points = _field(totals, _GP)
        self.games = _field(totals, _GAMES)
        self.wins = wins = _field(totals, _WINS)
        self.losses = losses = _field(totals, _LOSSES)
        self.draws = draws = _field(totals, _DRAWS)
        self.counts = _field(totals, _OPPONENTS)
        self.points = list(
            map(add, map(mul, wins, repeat(WIN_POINTS)), map(mul, draws, repeat(DRAW_POINTS)))
        )
        self.played = list(map(add, map(add, wins, losses), draws))


def _group_values(
    columns: _Columns,
    pairings: list[list[int]],
    group: list[int],
    rules: SwissRules,
    values: _Group,
) -> None:
    """Fill `values` for the players in `group`, from the totals and pairings given.

    Computed for every player (one C-level pass per step) and kept for the group only.
    """
    floor = rules.floor
    game_points = columns.game_points
    games = columns.games
    counts = columns.counts
    points = columns.points
    played = columns.played
    size = len(points)
    # Players who met no opponent / played no game: patched below, usually very few.
    lonely = list(compress(range(size), map(not_, counts)))
    gameless = list(compress(range(size), map(not_, games)))

    # MW% = match points / (3 x rounds played), GW% = game points / (3 x games played),
    # both floored, as integer numerators over mw_den / gw_den. A scale of 0 for 0 rounds
    # or games makes the numerator 0, so the floor applies (MTR Appendix C; melee: 1/3).
    played_set = set(played)
    games_set = set(games)
    mw_den = _common(floor, played_set)
    gw_den = _common(floor, games_set)
    mw_floor = floor.numerator * (mw_den // floor.denominator)
    gw_floor = floor.numerator * (gw_den // floor.denominator)
    mw_scale = {r: mw_den // (3 * r) if r else 0 for r in played_set}
    gw_scale = {g: gw_den // (3 * g) if g else 0 for g in games_set}
    mw = [
        x if x > mw_floor else mw_floor for x in map(mul, points, map(mw_scale.__getitem__, played))
    ]
    raw_gw = list(map(mul, game_points, map(gw_scale.__getitem__, games)))
    gw = [x if x > gw_floor else gw_floor for x in raw_gw]
    if rules.floor_own_gw:
        own_gw = gw
    else:  # dci keeps the player's own GW% unfloored (no games: still the floor)
        own_gw = raw_gw
        for i in gameless:
            own_gw[i] = gw_floor

    # Both opponent sums in one pass: MW% and GW% numerators packed in one int each.
    most = max(counts, default=0)
    shift = (max(gw, default=0) * max(most, 1)).bit_length() + 1
    low = (1 << shift) - 1
    sums = _opponent_sums(list(map(or_, map(lshift, mw, repeat(shift)), gw)), pairings)
    omw_sums = list(map(rshift, sums, repeat(shift)))
    ogw_sums = list(map(and_, sums, repeat(low)))

    # Averages over a shared denominator: avg = sum / (n x den), so use lcm(n) x den,
    # widened to hold the no-opponent value exactly too.
    count_set = set(counts)
    count_lcm = 1
    for n in count_set:
        if n:
            count_lcm = lcm(count_lcm, n)
    none = rules.no_opponent
    omw_all = lcm(count_lcm * mw_den, none.denominator)
    ogw_all = lcm(count_lcm * gw_den, none.denominator)
    omw_factor = {n: (count_lcm // n) * (omw_all // (count_lcm * mw_den)) for n in count_set if n}
    ogw_factor = {n: (count_lcm // n) * (ogw_all // (count_lcm * gw_den)) for n in count_set if n}
    # Met no opponent (only byes, or never played): the preset's fixed value.
    omw_factor[0] = ogw_factor[0] = 0
    omw_key = list(map(mul, omw_sums, map(omw_factor.__getitem__, counts)))
    ogw_key = list(map(mul, ogw_sums, map(ogw_factor.__getitem__, counts)))
    omw_none = none.numerator * (omw_all // none.denominator)
    ogw_none = none.numerator * (ogw_all // none.denominator)
    for i in lonely:
        omw_key[i] = omw_none
        ogw_key[i] = ogw_none
    keys = _pack_key([points, omw_key, own_gw, ogw_key])

    denominators = [n or 1 for n in counts]  # 1 for no opponent: replaced below
    omw = _fractions(omw_sums, list(map(mul, denominators, repeat(mw_den))))
    ogw = _fractions(ogw_sums, list(map(mul, denominators, repeat(gw_den))))
    for i in lonely:
        omw[i] = ogw[i] = none
    distinct_gw = list(set(own_gw))
    gw_of = dict(
        zip(distinct_gw, _fractions(distinct_gw, [gw_den] * len(distinct_gw)), strict=True)
    )
    gw_out = list(map(gw_of.__getitem__, own_gw))

    if len(group) == size:  # everyone (the usual single-phase event)
        values.keys, values.omw, values.gw, values.ogw = keys, omw, gw_out, ogw
        return
    out_keys, out_omw, out_gw, out_ogw = values.keys, values.omw, values.gw, values.ogw
    for i in group:
        out_keys[i] = keys[i]
        out_omw[i] = omw[i]
        out_gw[i] = gw_out[i]
        out_ogw[i] = ogw[i]


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
    if len(phases) == 1:
        _tally(swiss, index, codes, totals, pairings)
        snapshots.append((phases[0], totals, len(pairings)))
        return totals, pairings, snapshots
    for phase in phases:
        _tally([r for r in swiss if r.phase == phase], index, codes, totals, pairings)
        snapshots.append((phase, list(totals), len(pairings)))
    if not snapshots:
        snapshots.append((0, totals, 0))
    return totals, pairings, snapshots


@dataclass(slots=True)
class Tallied:
    """The Swiss rounds of an event added up, phase by phase (packed totals)."""

    ids: list[str]  # player ids by index
    index: dict[str, int]
    # Swiss rounds in tally order, (phase, number): pairings[k] holds swiss[k]'s seats.
    swiss: list[RoundRecord]
    totals: list[int]
    pairings: list[list[int]]
    # (phase, totals at its end, number of rounds of pairings by then), in phase order.
    snapshots: list[tuple[int, list[int], int]]
    # The last Swiss phase each player played in (0 = never played).
    last_phase: list[int]


def tally(event: EventRecord, rounds: list[RoundRecord], rules: SwissRules) -> Tallied:
    """Add up the Swiss (non-playoff) rounds of `rounds` and find each player's phase."""
    ids: list[str] = list(map(_player_id, event.players))
    index = dict(zip(ids, range(len(ids)), strict=True))
    swiss = sorted((r for r in rounds if not r.playoff), key=lambda r: (r.phase, r.number))
    phases = sorted({r.phase for r in swiss})

    def admit_strangers() -> None:
        # Non-validating: a player id that appears only in a match still gets a row.
        seen = set(chain.from_iterable(chain.from_iterable(map(_seats_of, rounds))))
        for pid in sorted(seen.difference(index)):
            index[pid] = len(ids)
            ids.append(pid)

    # A stranger in a Swiss round is found by the tally itself (a KeyError), so valid
    # events pay nothing for the check; playoff rounds are few and checked up front.
    playoffs = (r for r in rounds if r.playoff)
    if not index.keys() >= set(chain.from_iterable(chain.from_iterable(map(_seats_of, playoffs)))):
        admit_strangers()
    try:
        totals, pairings, snapshots = _tally_phases(swiss, phases, index, rules)
    except KeyError:
        admit_strangers()
        totals, pairings, snapshots = _tally_phases(swiss, phases, index, rules)
    size = len(ids)

    # The last Swiss phase each player played in (0 = never played): every round played
    # adds a win, loss or draw, so a player's totals change in exactly those phases.
    last_phase = [0] * size
    previous = [0] * size
    for phase, state, _ in snapshots:
        last_phase = [
            phase if changed else before
            for changed, before in zip(map(ne, state, previous), last_phase, strict=True)
        ]
        previous = state
    return Tallied(ids, index, swiss, totals, pairings, snapshots, last_phase)


def compute(event: EventRecord, rounds: list[RoundRecord]) -> list[StandingRow]:
    """Standings rows, best first, for `rounds` (already cut to the requested round and
    holding only rounds with at least one result)."""
    rules = rules_for(event)
    return _ranked(event, rounds, rules, tally(event, rounds, rules))


def _ranked(
    event: EventRecord, rounds: list[RoundRecord], rules: SwissRules, tallied: Tallied
) -> list[StandingRow]:
    """`compute`, from the rounds already tallied."""
    ids, index, totals = tallied.ids, tallied.index, tallied.totals
    pairings, snapshots, last_phase = tallied.pairings, tallied.snapshots, tallied.last_phase
    playoffs = [r for r in rounds if r.playoff]
    size = len(ids)

    # scoring.md s.1: a player who plays no round of a later phase keeps their values as
    # they stood at the end of the last phase they played, opponents' values included.
    # melee.gg confirms the literal reading: it holds for players who stopped earlier in
    # that phase too (a Day 1 drop is frozen at the end of Day 1 like a missed cut), while
    # a Day 2 drop uses the final records of their opponents.
    members = {
        phase: list(compress(range(size), map(eq, last_phase, repeat(phase))))
        for phase in set(last_phase)
    }
    values = _Group(size)
    final = _Columns(totals)
    final_phase = snapshots[-1][0]
    for phase, state, column_count in snapshots:
        group = members.get(phase, [])
        if phase == final_phase and phase:
            group = group + members.get(0, [])  # never played: the floors, ranked last
        if group:
            columns = final if state is totals else _Columns(state)
            _group_values(columns, pairings[:column_count], group, rules, values)

    # Made-the-cut players first (a frozen player never passes a Day 2 player), then the
    # chain: match points, OMW%, GW%, OGW%; then the seeded draw among exact ties.
    sort_keys = _pack_key([last_phase, values.keys])
    swiss_order = sorted(range(size), key=sort_keys.__getitem__, reverse=True)
    swiss_order = _seeded_draw(swiss_order, sort_keys, ids, event.seed)
    order = swiss_order
    if playoffs:
        bracket = playoff_order(playoffs, [ids[i] for i in swiss_order])
        in_bracket = {index[pid] for pid in bracket}
        order = [index[pid] for pid in bracket] + [i for i in swiss_order if i not in in_bracket]

    points = final.points
    distinct_points = list(set(points))
    points_of = dict(
        zip(distinct_points, _fractions(distinct_points, [1] * len(distinct_points)), strict=True)
    )
    wins = list(map(final.wins.__getitem__, order))
    losses = list(map(final.losses.__getitem__, order))
    draws = list(map(final.draws.__getitem__, order))
    return _rows(
        list(map(ids.__getitem__, order)),
        range(1, len(order) + 1),
        list(map(points_of.__getitem__, map(points.__getitem__, order))),
        wins,
        losses,
        draws,
        list(map(add, map(add, wins, losses), draws)),
        [
            {"omw": a, "gw": b, "ogw": c}
            for a, b, c in zip(
                map(values.omw.__getitem__, order),
                map(values.gw.__getitem__, order),
                map(values.ogw.__getitem__, order),
                strict=True,
            )
        ],
    )


def _seeded_draw(
    order: list[int], sort_keys: Sequence[Hashable], ids: list[str], seed: int
) -> list[int]:
    """Order each run of players equal on every key by the seeded draw (smaller first).

    Hashing only the tied players keeps the draw off the hot path; the result is the same
    as sorting everyone with the draw as the last key.
    """
    ranked = list(map(sort_keys.__getitem__, order))
    # Positions p whose player ties with the one at p - 1 (found in one C-level pass).
    tied = list(compress(range(1, len(order)), map(eq, ranked, islice(ranked, 1, None))))
    out = list(order)
    k = 0
    while k < len(tied):
        start = tied[k] - 1
        end = tied[k] + 1
        k += 1
        while k < len(tied) and tied[k] == end:
            end += 1
            k += 1
        run = out[start:end]
        run.sort(key=lambda i: (draw_key(seed, ids[i]), ids[i]))
        out[start:end] = run
    return out


# --- Incremental standings ----------------------------------------------------------------
#
# A result entry changes one match. Under these systems that changes the records of its
# (at most two) players, so their MW%/GW%, hence the OMW%/OGW% of whoever met them, and
# nothing else: every value is an exact Fraction of the player's own record and of their
# opponents' records (s.1). `SwissState` keeps what a full `compute` knows (the tallied
# totals, every player's opponents, the rows in rank order) and, for a changed match,
# recomputes the values of those players only, in Fractions, then moves them to their new
# places in the order. The order is the same total order `compute` sorts by: played any
# round, match points, OMW%, GW%, OGW% (all descending), then the seeded draw and the id
# (ascending); the packed integer keys of `_group_values` order exactly like these values.
#
# Only the simple case is kept incrementally: the rounds with a result are Swiss rounds
# of one phase (no playoff round with a result, no second phase: freezing reaches further)
# and every player seated is a registered player. A round's first result (or its last
# one cleared) is kept: in one phase it only moves `after_round`. Anything else answers
# None, and the caller computes in full (and may build a new state from that event).

_has_result = attrgetter("has_result")
_RoundInfo = tuple[int, bool, int]  # (phase, playoff, matches with a result)


def _simple(rounds: Iterable[_RoundInfo]) -> bool:
    """Whether the rounds with a result are Swiss rounds of at most one phase."""
    phases = set()
    for phase, playoff, results in rounds:
        if results:
            if playoff:
                return False
            phases.add(phase)
    return len(phases) <= 1


def _last_round(rounds: dict[int, _RoundInfo]) -> int | None:
    return max((number for number, (_p, _o, results) in rounds.items() if results), default=None)


class SwissState:
    """A Swiss event's standings, kept up to date one changed match at a time.

    `SwissState.build(event)` computes in full; `state.updated(changes)` gives the state
    of the event with those matches replaced (or None: compute that event in full), and
    `state.standings()` equals `compute_standings(event)` for the event it stands for
    (tests/unit/test_incremental_engine.py checks it on every kind of change).

    A state is never changed once built: `updated` copies what it changes, so a state kept
    by a committed snapshot is safe from a write that goes on to roll back, and from
    other threads. (Row objects are shared between states and never changed; the caches
    they share only remember values of pure functions.)
    """

    __slots__ = (
        "_gw_cache",
        "_mw_cache",
        "_tie_cache",
        "after_round",
        "changed",
        "codes",
        "ids",
        "index",
        "opponents",
        "order",
        "position",
        "rounds",
        "rows",
        "rules",
        "seed",
        "system",
        "totals",
    )

    after_round: int | None
    # Against the state this one was updated from: the players whose values were
    # recomputed, and the places (0-based, ascending) holding a new row object; every
    # other place holds the very same row. None for a state built in full.
    changed: tuple[set[str], list[int]] | None
    codes: _Codes
    ids: list[str]
    index: dict[str, int]
    opponents: list[tuple[int, ...]]  # per player: each opponent met, once per match
    order: list[int]  # players, best first
    position: list[int]  # per player: their place in `order` (0-based)
    rounds: dict[int, _RoundInfo]  # round number -> (phase, playoff, matches with a result)
    rows: list[StandingRow]  # in `order`
    rules: SwissRules
    seed: int
    system: str
    totals: list[int]
    _gw_cache: dict[tuple[int, int], tuple[int, int]]
    _mw_cache: dict[tuple[int, int], tuple[int, int]]
    _tie_cache: dict[int, tuple[int, str]]

    @classmethod
    def build(cls, event: EventRecord) -> SwissState | None:
        """The state of `event` (standings after its last round), or None if it is not a
        simple case (see above)."""
        if event.system not in SWISS_SYSTEMS:
            return None
        numbers = [r.number for r in event.rounds]
        if len(set(numbers)) != len(numbers):
            return None
        # Whether it is simple first (any() stops at a round's first result), then counts.
        if not _simple(
            (r.phase, r.playoff, any(map(_has_result, r.matches))) for r in event.rounds
        ):
            return None
        # A player seated but not registered gets a row only while a round they sit in
        # has a result (see `tally`): the rows themselves would change with the rounds.
        registered = set(map(_player_id, event.players))
        if not registered.issuperset(
            chain.from_iterable(chain.from_iterable(map(_seats_of, event.rounds)))
        ):
            return None
        info = {
            r.number: (r.phase, r.playoff, sum(map(_has_result, r.matches))) for r in event.rounds
        }
        rounds = [r for r in event.rounds if info[r.number][2]]
        rules = rules_for(event)
        tallied = tally(event, rounds, rules)
        rows = _ranked(event, rounds, rules, tallied)
        size = len(tallied.ids)
        opponents: list[list[int]] = [[] for _ in range(size)]
        for seats in tallied.pairings:
            pairs = iter(seats)
            for a, b in zip(pairs, pairs, strict=True):
                opponents[a].append(b)
                opponents[b].append(a)
        state = cls.__new__(cls)
        state.system = event.system
        state.rules = rules
        state.seed = event.seed
        state.codes = _Codes(rules.bye_games)
        state.ids = tallied.ids
        state.index = tallied.index
        state.totals = tallied.totals
        state.opponents = list(map(tuple, opponents))
        state.rounds = info
        state.after_round = _last_round(info)
        state.rows = rows
        state.order = list(map(tallied.index.__getitem__, map(_player_id_of_row, rows)))
        position = [0] * size
        for place, player in enumerate(state.order):
            position[player] = place
        state.position = position
        state.changed = None
        state._mw_cache, state._gw_cache, state._tie_cache = {}, {}, {}
        return state

    def standings(self) -> Standings:
        return Standings(
            system=self.system,  # type: ignore[arg-type]
            after_round=self.after_round,
            rows=tuple(self.rows),
        )

    def updated(
        self,
        changes: Iterable[tuple[int, MatchRecord | None, MatchRecord]],
        added: dict[int, tuple[int, bool]] | None = None,
    ) -> SwissState | None:
        """The state with each (round number, match as this state has it, new match)
        replaced, or None if the result is not a simple case: compute it in full then.

        `added`: rounds paired since (number -> (phase, playoff)), not yet in this state;
        a change whose old match is None adds that match to its round. A newly paired
        round's matches without a result add nothing, so only its byes and no-opponent
        losses need be listed (they count from pairing)."""
        codes, index = self.codes, self.index
        totals = self.totals.copy()
        rounds = dict(self.rounds)
        for number, (phase, playoff) in (added or {}).items():
            if number in rounds:
                return None
            rounds[number] = (phase, playoff, 0)
        opponents = self.opponents
        copied = False
        seated: set[int] = set()
        try:
            for number, old, new in changes:
                phase, playoff, results = rounds[number]
                old_codes, old_flags = codes[_match_key(old)] if old else _NOTHING
                new_codes, new_flags = codes[_match_key(new)]
                old_seats = list(map(index.__getitem__, old.players)) if old else []
                new_seats = list(map(index.__getitem__, new.players))
                if len(old_seats) != len(old_codes) or len(new_seats) != len(new_codes):
                    return None
                for i, code in zip(old_seats, old_codes, strict=True):
                    totals[i] -= code
                for i, code in zip(new_seats, new_codes, strict=True):
                    totals[i] += code
                before = old.has_result if old else False
                rounds[number] = (phase, playoff, results - before + new.has_result)
                old_pair = list(compress(old_seats, old_flags))
                new_pair = list(compress(new_seats, new_flags))
                if old_pair != new_pair:
                    if not copied:
                        opponents = opponents.copy()
                        copied = True
                    if old_pair:
                        a, b = old_pair
                        opponents[a] = _without(opponents[a], b)
                        opponents[b] = _without(opponents[b], a)
                    if new_pair:
                        a, b = new_pair
                        opponents[a] += (b,)
                        opponents[b] += (a,)
                seated.update(old_seats, new_seats)
        except (KeyError, ValueError, TypeError):
            return None
        if not _simple(rounds.values()):
            return None
        if any(totals[i] < 0 for i in seated):
            return None  # `old` was not the match as this state has it

        state = SwissState.__new__(SwissState)
        state.system, state.rules, state.seed, state.codes = (
            self.system, self.rules, self.seed, self.codes,
        )  # fmt: skip
        state.ids, state.index = self.ids, self.index
        state._mw_cache, state._gw_cache, state._tie_cache = (
            self._mw_cache, self._gw_cache, self._tie_cache,
        )  # fmt: skip
        state.totals, state.opponents, state.rounds = totals, opponents, rounds
        state.after_round = _last_round(rounds)

        # Whose values can change: the match's players and everyone who met them.
        touched = set(seated)
        for i in seated:
            touched.update(opponents[i])
        fresh = {i: state._row(i) for i in touched}
        state._reorder(self, fresh)
        return state

    # -- values of one player, exactly as compute gives them ------------------------------

    def _mw(self, total: int) -> tuple[int, int]:
        """The MW% (floored) of a player with these totals, as (numerator, denominator)."""
        wins = (total >> _WINS) & _FIELD_MASK
        draws = (total >> _DRAWS) & _FIELD_MASK
        played = wins + draws + ((total >> _LOSSES) & _FIELD_MASK)
        key = (WIN_POINTS * wins + DRAW_POINTS * draws, played)
        value = self._mw_cache.get(key)
        if value is None:
            floor = self.rules.floor
            pct = max(floor, Fraction(key[0], 3 * played)) if played else floor
            value = self._mw_cache[key] = (pct.numerator, pct.denominator)
        return value

    def _gw(self, total: int) -> tuple[int, int]:
        """The GW% (floored, as an opponent's value) of a player with these totals."""
        key = ((total >> _GP) & _FIELD_MASK, (total >> _GAMES) & _FIELD_MASK)
        value = self._gw_cache.get(key)
        if value is None:
            floor = self.rules.floor
            pct = max(floor, Fraction(key[0], 3 * key[1])) if key[1] else floor
            value = self._gw_cache[key] = (pct.numerator, pct.denominator)
        return value

    def _mean(self, of: Callable[[int], tuple[int, int]], opponents: tuple[int, ...]) -> Fraction:
        """The mean of `of` over the opponents' totals (the preset's value for none)."""
        if not opponents:
            return self.rules.no_opponent
        totals = self.totals
        numerator, denominator = 0, 1
        for n, d in map(of, map(totals.__getitem__, opponents)):
            if d == denominator:
                numerator += n
            else:
                numerator = numerator * d + n * denominator
                denominator *= d
        return Fraction(numerator, denominator * len(opponents))

    def _row(self, i: int) -> StandingRow:
        """Player i's row (rank 0: placed later), from this state's totals."""
        total = self.totals[i]
        wins = (total >> _WINS) & _FIELD_MASK
        losses = (total >> _LOSSES) & _FIELD_MASK
        draws = (total >> _DRAWS) & _FIELD_MASK
        opponents = self.opponents[i]
        if len(opponents) != (total >> _OPPONENTS) & _FIELD_MASK:
            raise AssertionError("opponents out of step with the totals")
        games = (total >> _GAMES) & _FIELD_MASK
        if self.rules.floor_own_gw or not games:
            gw = Fraction(*self._gw(total))
        else:  # dci: the player's own GW% is not floored
            gw = Fraction((total >> _GP) & _FIELD_MASK, 3 * games)
        return StandingRow(
            player=self.ids[i],
            rank=0,
            points=Fraction(WIN_POINTS * wins + DRAW_POINTS * draws),
            wins=wins,
            losses=losses,
            draws=draws,
            played=wins + losses + draws,
            tiebreakers={
                "omw": self._mean(self._mw, opponents),
                "gw": gw,
                "ogw": self._mean(self._gw, opponents),
            },
        )

    # -- the order ----------------------------------------------------------------------------

    def _tie(self, i: int) -> tuple[int, str]:
        """The seeded draw's key among players equal on every value (smaller first)."""
        value = self._tie_cache.get(i)
        if value is None:
            player = self.ids[i]
            value = self._tie_cache[i] = (draw_key(self.seed, player), player)
        return value

    def _reorder(self, previous: SwissState, fresh: dict[int, StandingRow]) -> None:
        """Place the players of `fresh` (their new rows) into `previous`'s order."""
        old_rows, old_position = previous.rows, previous.position

        def key(i: int) -> tuple[bool, Fraction, Tiebreak, Tiebreak, Tiebreak]:
            row = fresh.get(i) or old_rows[old_position[i]]
            values = row.tiebreakers
            return (row.played > 0, row.points, values["omw"], values["gw"], values["ogw"])

        def ahead(a: int, b: int) -> bool:
            key_a, key_b = key(a), key(b)
            if key_a != key_b:
                return key_a > key_b  # type: ignore[operator]
            return self._tie(a) < self._tie(b)

        order = previous.order.copy()
        size = len(order)
        old_places = sorted(old_position[i] for i in fresh)
        for place in reversed(old_places):
            del order[place]
        new_places: list[int] = []
        for i in fresh:
            low, high = 0, len(order)
            while low < high:
                middle = (low + high) // 2
                if ahead(order[middle], i):
                    low = middle + 1
                else:
                    high = middle
            order.insert(low, i)
            new_places = [p + 1 if p >= low else p for p in new_places]
            new_places.append(low)
        # A place holds a new row if a fresh player went there or another player moved
        # to it; every other place keeps its row object (same player, rank and values).
        # Only places between the first and last place a fresh player left or took can
        # have changed hands, so the check is a C-level pass over that span alone.
        first = min(old_places[0], *new_places) if fresh else 0
        last = max(old_places[-1], *new_places) if fresh else -1
        span = range(first, last + 1)
        players = order[first : last + 1]
        moved = list(compress(span, map(ne, map(old_position.__getitem__, players), span)))
        redo = sorted(set(moved).union(new_places))
        sources = [fresh.get(order[p]) or old_rows[old_position[order[p]]] for p in redo]
        made = _rows(
            *(list(map(attrgetter(name), sources)) for name in _ROW_FIELDS[:1]),
            [p + 1 for p in redo],
            *(list(map(attrgetter(name), sources)) for name in _ROW_FIELDS[2:]),
        )
        rows = previous.rows.copy()
        for place, row in zip(redo, made, strict=True):
            rows[place] = row
        position = previous.position.copy()
        for place in moved:
            position[order[place]] = place
        self.order, self.rows, self.position = order, rows, position
        self.changed = ({self.ids[i] for i in fresh}, redo)
        assert len(order) == size


# What a match not yet paired contributes: nothing, to nobody.
_NOTHING: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())


def _without(opponents: tuple[int, ...], player: int) -> tuple[int, ...]:
    """`opponents` less one entry of `player` (ValueError if there is none)."""
    remaining = list(opponents)
    remaining.remove(player)
    return tuple(remaining)


_player_id_of_row = attrgetter("player")
