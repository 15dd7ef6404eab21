"""Swiss scoring for `mtr`, `dci` and `melee` (shared/spec/scoring.md sections 1, 2, 2b).

Speed matters here (8,192 players x 15 rounds in well under 100 ms), so the hot loops
work on integer lists indexed by player, never on Fractions: every percentage is kept as
an integer numerator over one denominator shared by the whole group being compared, and
sort keys are plain integer tuples. Fractions are only built for the output rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from math import gcd, lcm

from .ranking import draw_key, playoff_order
from .records import (
    BYE,
    DOUBLE_LOSS,
    LOSS,
    PLAYED,
    EventRecord,
    RoundRecord,
    StandingRow,
    Standings,
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

# Hot-path packing. A player's running totals live in ONE Python int, five fixed-width
# fields: game points | games | wins | losses | draws. Adding a match is then a single
# `+=` per player instead of five list updates, which is what keeps 120k player-matches
# under budget. Rounds played = wins + losses + draws (a bye is a win, a double loss or
# a no-opponent loss a loss) and match points = 3 x wins + draws, so neither is stored.
_FIELD_BITS = 48
_FIELD_MASK = (1 << _FIELD_BITS) - 1
# A field can never overflow into the next: one match adds at most _MAX_PER_MATCH to a
# field, so it would take 2**24 rounds. Larger single results are rejected as corrupt.
_MAX_PER_MATCH = 1 << 24
_GP, _GAMES, _WINS, _LOSSES, _DRAWS = (k * _FIELD_BITS for k in range(5))


def _pack(game_points: int, games: int, wins: int, losses: int, draws: int) -> int:
    if not 0 <= game_points < _MAX_PER_MATCH or not 0 <= games < _MAX_PER_MATCH:
        raise ValueError(f"implausible match result: {games} games")
    return (
        (game_points << _GP)
        | (games << _GAMES)
        | (wins << _WINS)
        | (losses << _LOSSES)
        | (draws << _DRAWS)
    )


def _played_codes(result: tuple[int, ...], drawn: int) -> tuple[int, int]:
    """Packed contributions of a two-player match with `result` games won, `drawn` drawn."""
    wa, wb = result
    # Unfinished games count as drawn games; every listed game is a game played.
    games = wa + wb + drawn
    win_a = int(wa > wb)
    win_b = int(wb > wa)
    # Equal games won = a drawn match (0-0-0 and 0-0-3 included).
    drew = int(wa == wb)
    return (
        _pack(WIN_POINTS * wa + DRAW_POINTS * drawn, games, win_a, win_b, drew),
        _pack(WIN_POINTS * wb + DRAW_POINTS * drawn, games, win_b, win_a, drew),
    )


# A loss with no opponent and each side of a double loss: a round played worth nothing,
# no games (scoring.md s.1).
_LOSS_CODE = _pack(0, 0, 0, 1, 0)


def _tally(
    rounds: list[RoundRecord],
    index: dict[str, int],
    bye_games: int,
    totals: list[int],
    opponents: list[list[int]],
) -> None:
    """Add the results of `rounds` to the packed `totals` and the `opponents` lists."""
    # MTR Appendix C: a bye is a match win and a 2-0 game win (melee bo1: 1-0).
    bye_code = _pack(WIN_POINTS * bye_games, bye_games, 1, 0, 0)
    loss_code = _LOSS_CODE
    codes: dict[tuple[tuple[int, ...], int], tuple[int, int]] = {}
    codes_get = codes.get
    for round_ in rounds:
        for match in round_.matches:
            kind = match.kind
            if kind == PLAYED:
                result = match.wins
                if result is None:  # no result yet: not a round played
                    continue
                a, b = match.players
                ia = index[a]
                ib = index[b]
                key = (result, match.draws)
                pair = codes_get(key)
                if pair is None:
                    pair = codes[key] = _played_codes(result, match.draws)
                totals[ia] += pair[0]
                totals[ib] += pair[1]
                opponents[ia].append(ib)
                opponents[ib].append(ia)
            elif kind == BYE:
                # A bye is not an opponent: no opponents entry (skipped in OMW%/OGW%).
                totals[index[match.players[0]]] += bye_code
            elif kind == DOUBLE_LOSS:
                # Both lose, 0 games; each still counts as the other's opponent.
                a, b = match.players
                ia = index[a]
                ib = index[b]
                totals[ia] += loss_code
                totals[ib] += loss_code
                opponents[ia].append(ib)
                opponents[ib].append(ia)
            elif kind == LOSS:
                totals[index[match.players[0]]] += loss_code


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
    """Tiebreak values of a group of players compared with one another.

    All OMW%/GW%/OGW% of the group are integer numerators over three shared denominators,
    so the sort keys are plain integer tuples and mathematically equal values are equal.
    """

    __slots__ = ("keys", "omw", "gw", "ogw")

    def __init__(self) -> None:
        self.keys: dict[int, tuple[int, int, int, int]] = {}
        self.omw: dict[int, Fraction] = {}
        self.gw: dict[int, Fraction] = {}
        self.ogw: dict[int, Fraction] = {}


def _common(floor: Fraction, denominators: set[int]) -> int:
    """lcm of 3 x every denominator and the floor's: one denominator for a percentage."""
    common = floor.denominator
    for den in denominators:
        if den:
            common = lcm(common, 3 * den)
    return common


def _group_values(
    totals: list[int],
    opponents: list[list[int]],
    opponent_counts: list[int] | None,
    group: list[int],
    rules: SwissRules,
    values: _Group,
) -> None:
    """Compute the values of `group` from `totals` as they stood (see _Group).

    `opponent_counts` (a phase-end snapshot) limits each player to the opponents they had
    met by then; None means all of them.
    """
    floor = rules.floor
    mask = _FIELD_MASK
    game_points = [(t >> _GP) & mask for t in totals]
    games = [(t >> _GAMES) & mask for t in totals]
    wins = [(t >> _WINS) & mask for t in totals]
    losses = [(t >> _LOSSES) & mask for t in totals]
    draws = [(t >> _DRAWS) & mask for t in totals]
    points = [WIN_POINTS * w + DRAW_POINTS * d for w, d in zip(wins, draws, strict=True)]
    played = [w + lo + d for w, lo, d in zip(wins, losses, draws, strict=True)]

    # MW% = match points / (3 x rounds played), GW% = game points / (3 x games played),
    # both floored, as numerators over mw_den / gw_den.
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
    own_gw = [
        gp * gw_scale[g] if g else gw_floor for gp, g in zip(game_points, games, strict=True)
    ]
    gw = [max(gw_floor, x) for x in own_gw]
    if rules.floor_own_gw:
        own_gw = gw

    # One sum per player for both averages: MW% and GW% numerators packed in one int.
    counts = (
        opponent_counts if opponent_counts is not None else [len(o) for o in opponents]
    )
    most = max((counts[i] for i in group), default=0)
    shift = (max(gw, default=0) * max(most, 1)).bit_length() + 1
    low = (1 << shift) - 1
    packed = [(m << shift) | g for m, g in zip(mw, gw, strict=True)]
    packed_get = packed.__getitem__

    # Averages over a shared denominator: avg = sum / (n x den), so use lcm(n) x den,
    # widened to hold the no-opponent value exactly too.
    count_lcm = 1
    for n in {counts[i] for i in group}:
        if n:
            count_lcm = lcm(count_lcm, n)
    none = rules.no_opponent
    omw_all = lcm(count_lcm * mw_den, none.denominator)
    ogw_all = lcm(count_lcm * gw_den, none.denominator)
    omw_factor = {
        n: (count_lcm // n) * (omw_all // (count_lcm * mw_den)) for n in set(counts) if n
    }
    ogw_factor = {
        n: (count_lcm // n) * (ogw_all // (count_lcm * gw_den)) for n in set(counts) if n
    }
    omw_none = none.numerator * (omw_all // none.denominator)
    ogw_none = none.numerator * (ogw_all // none.denominator)

    gw_cache: dict[int, Fraction] = {}
    keys = values.keys
    omw_out = values.omw
    gw_out = values.gw
    ogw_out = values.ogw
    for i in group:
        n = counts[i]
        if n:
            opps = opponents[i]
            if len(opps) != n:
                opps = opps[:n]
            total = sum(map(packed_get, opps))
            omw_sum = total >> shift
            ogw_sum = total & low
            omw_key = omw_sum * omw_factor[n]
            ogw_key = ogw_sum * ogw_factor[n]
            omw_out[i] = _fraction(omw_sum, n * mw_den)
            ogw_out[i] = _fraction(ogw_sum, n * gw_den)
        else:
            # Met no opponent (only byes, or never played): the preset's fixed value.
            omw_key = omw_none
            ogw_key = ogw_none
            omw_out[i] = none
            ogw_out[i] = none
        own = own_gw[i]
        fraction = gw_cache.get(own)
        if fraction is None:
            fraction = gw_cache[own] = _fraction(own, gw_den)
        gw_out[i] = fraction
        keys[i] = (points[i], omw_key, own, ogw_key)


def compute(event: EventRecord, rounds: list[RoundRecord]) -> list[StandingRow]:
    """Standings rows, best first, for `rounds` (already cut to the requested round and
    holding only rounds with at least one result)."""
    rules = rules_for(event)
    ids: list[str] = [p.id for p in event.players]
    index = {pid: i for i, pid in enumerate(ids)}
    # Non-validating: a player id that appears only in a match still gets a row.
    for round_ in rounds:
        for match in round_.matches:
            for pid in match.players:
                if pid not in index:
                    index[pid] = len(ids)
                    ids.append(pid)
    size = len(ids)

    swiss = sorted((r for r in rounds if not r.playoff), key=lambda r: (r.phase, r.number))
    playoffs = [r for r in rounds if r.playoff]
    phases = sorted({r.phase for r in swiss})

    totals = [0] * size
    opponents: list[list[int]] = [[] for _ in range(size)]
    # Phase-end snapshots: (phase, totals copy, opponent counts). Opponent lists only
    # grow, so a count is enough to cut them back to the phase end.
    snapshots: list[tuple[int, list[int], list[int] | None]] = []
    for phase in phases:
        _tally([r for r in swiss if r.phase == phase], index, rules.bye_games, totals, opponents)
        if phase != phases[-1]:
            snapshots.append((phase, list(totals), [len(o) for o in opponents]))
    snapshots.append((phases[-1] if phases else 0, totals, None))

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
    for i, phase in enumerate(last_phase):
        members.setdefault(phase, []).append(i)
    values = _Group()
    final_phase = snapshots[-1][0]
    for phase, state, counts in snapshots:
        group = members.get(phase, [])
        if phase == final_phase:
            group = group + (members.get(0, []) if phase else [])
        if group:
            _group_values(state, opponents, counts, group, rules, values)

    keys = values.keys
    # Made-the-cut players first (a frozen player never passes a Day 2 player), then the
    # chain: match points, OMW%, GW%, OGW%.
    swiss_order = sorted(range(size), key=lambda i: (last_phase[i], *keys[i]), reverse=True)
    swiss_order = _seeded_draw(swiss_order, lambda i: (last_phase[i], keys[i]), ids, event.seed)
    order = swiss_order
    if playoffs:
        bracket = playoff_order(playoffs, [ids[i] for i in swiss_order])
        in_bracket = {index[pid] for pid in bracket}
        order = [index[pid] for pid in bracket] + [i for i in swiss_order if i not in in_bracket]

    mask = _FIELD_MASK
    omw = values.omw
    gw = values.gw
    ogw = values.ogw
    points_cache: dict[int, Fraction] = {}
    rows: list[StandingRow] = []
    for rank, i in enumerate(order, start=1):
        total = totals[i]
        wins = (total >> _WINS) & mask
        losses = (total >> _LOSSES) & mask
        draws = (total >> _DRAWS) & mask
        match_points = WIN_POINTS * wins + DRAW_POINTS * draws
        points = points_cache.get(match_points)
        if points is None:
            points = points_cache[match_points] = Fraction(match_points)
        rows.append(
            StandingRow(
                player=ids[i],
                rank=rank,
                points=points,
                wins=wins,
                losses=losses,
                draws=draws,
                played=wins + losses + draws,
                tiebreakers={"omw": omw[i], "gw": gw[i], "ogw": ogw[i]},
            )
        )
    return rows


def _seeded_draw(
    order: list[int], key: Callable[[int], object], ids: list[str], seed: int
) -> list[int]:
    """Order each run of players equal on every key by the seeded draw (smaller first).

    Hashing only the tied players keeps the draw off the hot path; the result is the same
    as sorting everyone with the draw as the last key.
    """
    out: list[int] = []
    start = 0
    size = len(order)
    while start < size:
        end = start + 1
        first = key(order[start])
        while end < size and key(order[end]) == first:
            end += 1
        run = order[start:end]
        if len(run) > 1:
            run.sort(key=lambda i: (draw_key(seed, ids[i]), ids[i]))
        out.extend(run)
        start = end
    return out
