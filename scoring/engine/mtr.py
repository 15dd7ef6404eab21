"""Swiss scoring for `mtr`, `dci` and `melee` (shared/spec/scoring.md sections 1, 2, 2b).

Speed matters here (8,192 players x 15 rounds in well under 100 ms), so the hot loops
work on integer lists indexed by player, never on Fractions: every percentage is kept as
an integer numerator over one denominator shared by the whole group being compared, and
sort keys are plain integer tuples. Fractions are only built for the output rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import lcm

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


class _Tally:
    """Running per-player totals, as parallel integer lists indexed by player."""

    __slots__ = ("match_points", "game_points", "games", "rounds", "wins", "losses", "draws", "opponents")

    def __init__(self, size: int) -> None:
        self.match_points = [0] * size
        self.game_points = [0] * size
        self.games = [0] * size
        self.rounds = [0] * size
        self.wins = [0] * size
        self.losses = [0] * size
        self.draws = [0] * size
        self.opponents: list[list[int]] = [[] for _ in range(size)]

    def add_round(self, round_: RoundRecord, index: dict[str, int], bye_games: int) -> None:
        # Local aliases: this loop runs once per match of the event (hot path).
        mp = self.match_points
        gp = self.game_points
        games = self.games
        rounds = self.rounds
        wins = self.wins
        losses = self.losses
        draws = self.draws
        opponents = self.opponents
        bye_game_points = WIN_POINTS * bye_games
        for match in round_.matches:
            kind = match.kind
            if kind == PLAYED:
                result = match.wins
                if result is None:  # no result yet: not a round played
                    continue
                a, b = match.players
                ia = index[a]
                ib = index[b]
                wa, wb = result
                drawn = match.draws
                # Unfinished games count as drawn; all listed games are games played.
                played = wa + wb + drawn
                games[ia] += played
                games[ib] += played
                gp[ia] += WIN_POINTS * wa + drawn
                gp[ib] += WIN_POINTS * wb + drawn
                rounds[ia] += 1
                rounds[ib] += 1
                opponents[ia].append(ib)
                opponents[ib].append(ia)
                if wa > wb:
                    mp[ia] += WIN_POINTS
                    wins[ia] += 1
                    losses[ib] += 1
                elif wb > wa:
                    mp[ib] += WIN_POINTS
                    wins[ib] += 1
                    losses[ia] += 1
                else:
                    # Equal games won = a drawn match (0-0-0 and 0-0-3 included).
                    mp[ia] += DRAW_POINTS
                    mp[ib] += DRAW_POINTS
                    draws[ia] += 1
                    draws[ib] += 1
            elif kind == BYE:
                i = index[match.players[0]]
                mp[i] += WIN_POINTS
                wins[i] += 1
                rounds[i] += 1
                games[i] += bye_games
                gp[i] += bye_game_points
            elif kind == DOUBLE_LOSS:
                # Both lose: a round played, 0 points, 0 games; still each other's opponent.
                a, b = match.players
                ia = index[a]
                ib = index[b]
                rounds[ia] += 1
                rounds[ib] += 1
                losses[ia] += 1
                losses[ib] += 1
                opponents[ia].append(ib)
                opponents[ib].append(ia)
            elif kind == LOSS:
                # A loss with no opponent: a round played worth nothing, no opponent entry.
                i = index[match.players[0]]
                rounds[i] += 1
                losses[i] += 1


@dataclass(slots=True)
class _Values:
    """One player's tiebreak values: integer sort keys plus the exact output Fractions."""

    keys: tuple[int, int, int, int]
    omw: Fraction
    gw: Fraction
    ogw: Fraction


def _percentages(
    numerators: list[int], denominators: list[int], floor: Fraction, players: range | list[int]
) -> tuple[list[int], int]:
    """Floored percentages num/(3*den) as integer numerators over one common denominator.

    Returns (numerators indexed by player, common denominator). Players with den 0 get the
    floor (MTR Appendix C: no games played -> GW% at the floor).
    """
    common = floor.denominator
    for den in set(denominators):
        if den:
            common = lcm(common, 3 * den)
    floor_num = floor.numerator * (common // floor.denominator)
    scale = {den: common // (3 * den) for den in set(denominators) if den}
    out = [floor_num] * len(numerators)
    for i in players:
        den = denominators[i]
        if den:
            value = numerators[i] * scale[den]
            if value > floor_num:
                out[i] = value
    return out, common


def _group_values(
    tally: _Tally, group: list[int], rules: SwissRules
) -> dict[int, _Values]:
    """Tiebreak values of the players in `group`, from the tally as it stands now."""
    size = len(tally.rounds)
    everyone = range(size)
    mw, mw_den = _percentages(tally.match_points, tally.rounds, rules.floor, everyone)
    gw, gw_den = _percentages(tally.game_points, tally.games, rules.floor, everyone)
    opponents = tally.opponents

    # Common denominators for the opponents' averages: avg = sum / (count * den), so one
    # denominator for the whole group is lcm(count) * den (plus the no-opponent value's).
    counts = {len(opponents[i]) for i in group}
    count_lcm = 1
    for count in counts:
        if count:
            count_lcm = lcm(count_lcm, count)
    none = rules.no_opponent
    omw_den = lcm(count_lcm * mw_den, none.denominator)
    ogw_den = lcm(count_lcm * gw_den, none.denominator)
    omw_scale = omw_den // (count_lcm * mw_den)
    ogw_scale = ogw_den // (count_lcm * gw_den)
    omw_none = none.numerator * (omw_den // none.denominator)
    ogw_none = none.numerator * (ogw_den // none.denominator)

    # dci: own GW% unfloored (a player with no games still gets the floor value).
    if rules.floor_own_gw:
        own_gw = gw
    else:
        own_gw = list(gw)
        games = tally.games
        game_points = tally.game_points
        for i in group:
            if games[i]:
                own_gw[i] = game_points[i] * (gw_den // (3 * games[i]))

    fraction_cache: dict[tuple[int, int], Fraction] = {}

    def fraction(num: int, den: int) -> Fraction:
        # Many players share a value (same record); build each distinct Fraction once.
        key = (num, den)
        value = fraction_cache.get(key)
        if value is None:
            value = fraction_cache[key] = Fraction(num, den)
        return value

    mw_get = mw.__getitem__
    gw_get = gw.__getitem__
    values: dict[int, _Values] = {}
    for i in group:
        opps = opponents[i]
        n = len(opps)
        if n:
            factor = count_lcm // n
            omw_key = sum(map(mw_get, opps)) * factor * omw_scale
            ogw_key = sum(map(gw_get, opps)) * factor * ogw_scale
        else:
            omw_key = omw_none
            ogw_key = ogw_none
        gw_key = own_gw[i]
        values[i] = _Values(
            keys=(tally.match_points[i], omw_key, gw_key, ogw_key),
            omw=fraction(omw_key, omw_den),
            gw=fraction(gw_key, gw_den),
            ogw=fraction(ogw_key, ogw_den),
        )
    return values


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

    # The last Swiss phase each player played a round in (0 = never played).
    last_phase = [0] * size
    for round_ in swiss:
        phase = round_.phase
        for match in round_.matches:
            if match.has_result:
                for pid in match.players:
                    i = index[pid]
                    if phase > last_phase[i]:
                        last_phase[i] = phase
    phases = sorted({r.phase for r in swiss})
    final_phase = phases[-1] if phases else 0

    # scoring.md s.1: a player who plays no round of a later phase keeps their values as
    # they stood at the end of the last phase they played, opponents' values included.
    # melee.gg confirms the literal reading: this holds for players who stopped earlier in
    # that phase too (a Day 1 drop is frozen at the end of Day 1 like a missed cut), while
    # a Day 2 drop uses the final records of their opponents.
    by_phase: dict[int, list[int]] = {}
    for i, phase in enumerate(last_phase):
        by_phase.setdefault(phase, []).append(i)

    tally = _Tally(size)
    values: dict[int, _Values] = {}
    position = 0
    for phase in phases:
        while position < len(swiss) and swiss[position].phase == phase:
            tally.add_round(swiss[position], index, rules.bye_games)
            position += 1
        if phase != final_phase and phase in by_phase:
            values.update(_group_values(tally, by_phase[phase], rules))
    current = by_phase.get(final_phase, []) + (by_phase.get(0, []) if final_phase else [])
    values.update(_group_values(tally, current, rules))

    seed = event.seed

    def swiss_key(i: int) -> tuple[int, int, int, int, int, int]:
        mp, omw, gw, ogw = values[i].keys
        # Made-the-cut players first (a frozen player never passes a Day 2 player), then
        # the spec's chain, then the seeded draw (smaller draw value ranks higher).
        return (last_phase[i], mp, omw, gw, ogw, -draw_key(seed, ids[i]))

    swiss_order = sorted(range(size), key=swiss_key, reverse=True)
    order = swiss_order
    if playoffs:
        bracket = playoff_order(playoffs, [ids[i] for i in swiss_order])
        in_bracket = {index[pid] for pid in bracket}
        order = [index[pid] for pid in bracket] + [i for i in swiss_order if i not in in_bracket]

    tally_mp = tally.match_points
    rows: list[StandingRow] = []
    points_cache: dict[int, Fraction] = {}
    for rank, i in enumerate(order, start=1):
        v = values[i]
        mp = tally_mp[i]
        points = points_cache.get(mp)
        if points is None:
            points = points_cache[mp] = Fraction(mp)
        rows.append(
            StandingRow(
                player=ids[i],
                rank=rank,
                points=points,
                wins=tally.wins[i],
                losses=tally.losses[i],
                draws=tally.draws[i],
                played=tally.rounds[i],
                tiebreakers={"omw": v.omw, "gw": v.gw, "ogw": v.ogw},
            )
        )
    return rows
