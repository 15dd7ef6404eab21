"""Swiss scoring for `mtr`, `dci` and `melee`: the reference (shared/spec/scoring.md s.1, 2, 2b).

Written to be read beside the spec: exact Fractions, one record per player, one function
per tiebreaker. `compute_standings` runs the fast path in mtr_fast.py instead (this module
is about ten times slower: ~1 s for 8,192 players x 15 rounds);
tests/unit/test_scoring_reference.py holds the two to identical standings on generated
and real events. explain.py reads this module's records and functions.

The presets (`SwissRules`, `rules_for`, the floors) live here and mtr_fast.py imports them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

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

SWISS_SYSTEMS = frozenset({"mtr", "dci", "melee"})

# --- The presets ------------------------------------------------------------------------


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


# s.1: MW% and GW% are "never below 0.33"; a player who met no opponent gets the floor.
MTR_FLOOR = Fraction(33, 100)
# s.1: "A bye is a 2-0 win: 6 game points over 2 games played."
BYE_GAMES = 2
MTR = SwissRules(floor=MTR_FLOOR, floor_own_gw=True, no_opponent=MTR_FLOOR, bye_games=BYE_GAMES)
# s.2: the player's OWN GW% is not floored; the floor still applies wherever a
# percentage is an opponent's value.
DCI = SwissRules(floor=MTR_FLOOR, floor_own_gw=False, no_opponent=MTR_FLOOR, bye_games=BYE_GAMES)
# s.2b: both floors are exactly 1/3 (own GW% included) ...
MELEE_FLOOR = Fraction(1, 3)
# ... a player who met no opponent shows the literal 0.3333 for OMW% and OGW% ...
MELEE_NO_OPPONENT = Fraction(3333, 10000)
# ... and in best-of-one events a bye is a 1-0 game win.
MELEE_BEST_OF_ONE_BYE_GAMES = 1


def rules_for(event: EventRecord) -> SwissRules:
    if event.system == "mtr":
        return MTR
    if event.system == "dci":
        return DCI
    if event.system == "melee":
        return SwissRules(
            floor=MELEE_FLOOR,
            floor_own_gw=True,
            no_opponent=MELEE_NO_OPPONENT,
            bye_games=MELEE_BEST_OF_ONE_BYE_GAMES if event.best_of == 1 else BYE_GAMES,
        )
    raise ValueError(f"not a Swiss Magic system: {event.system!r}")


# s.1: match points are win 3, draw 1, loss 0 ...
WIN_POINTS = 3
DRAW_POINTS = 1
# ... and game points likewise: each game won 3, each drawn game 1.
GAME_WIN_POINTS = 3
GAME_DRAW_POINTS = 1


# --- Per-player records -----------------------------------------------------------------


class Meeting(NamedTuple):
    """One match against an opponent (s.1: an opponent met twice counts twice)."""

    round: int
    opponent: str


@dataclass(slots=True)
class Record:
    """A player's Swiss rounds added up (playoff rounds never count, s.1)."""

    wins: int = 0
    losses: int = 0
    draws: int = 0
    game_points: int = 0
    games: int = 0  # games played: unfinished games count as drawn, unplayed ones not at all
    opponents: list[Meeting] = field(default_factory=list)  # byes are not opponents

    @property
    def match_points(self) -> int:
        return WIN_POINTS * self.wins + DRAW_POINTS * self.draws

    @property
    def rounds_played(self) -> int:
        # A bye is a win and a double loss or a loss with no opponent a loss, so every
        # round played is exactly one of the three.
        return self.wins + self.losses + self.draws


def add_match(
    records: dict[str, Record], round_number: int, match: MatchRecord, rules: SwissRules
) -> None:
    """Add one match to the records of its players (s.1, "other results")."""
    if match.kind not in (PLAYED, BYE, LOSS, DOUBLE_LOSS):
        raise ValueError(f"a {match.kind!r} match cannot be scored under a Swiss system")
    if not match.has_result:
        return  # not a round played
    if match.kind == BYE:
        # A match win and a 2-0 game win (melee best-of-one: 1-0); not an opponent.
        record = records[match.players[0]]
        record.wins += 1
        record.game_points += GAME_WIN_POINTS * rules.bye_games
        record.games += rules.bye_games
    elif match.kind == LOSS:
        # A round played worth 0, no games, no opponent entry.
        records[match.players[0]].losses += 1
    elif match.kind == DOUBLE_LOSS:
        # Both lose (no games), and each still counts as the other's opponent.
        a, b = match.players
        for player, opponent in ((a, b), (b, a)):
            records[player].losses += 1
            records[player].opponents.append(Meeting(round_number, opponent))
    else:
        a, b = match.players
        won_a, won_b = match.wins or (0, 0)
        # Unfinished games count as drawn games, and every listed game is a game played.
        games = won_a + won_b + match.draws
        for player, opponent, mine, theirs in ((a, b, won_a, won_b), (b, a, won_b, won_a)):
            record = records[player]
            # More games won wins the match; equal games won (0-0-0, 0-0-3 too) is a draw.
            if mine > theirs:
                record.wins += 1
            elif mine < theirs:
                record.losses += 1
            else:
                record.draws += 1
            record.game_points += GAME_WIN_POINTS * mine + GAME_DRAW_POINTS * match.draws
            record.games += games
            record.opponents.append(Meeting(round_number, opponent))


def tally(
    players: Iterable[str], rounds: Iterable[RoundRecord], rules: SwissRules
) -> dict[str, Record]:
    """Every player's record over `rounds` (Swiss rounds only)."""
    records = {player: Record() for player in players}
    for round_ in rounds:
        for match in round_.matches:
            add_match(records, round_.number, match, rules)
    return records


def player_ids(event: EventRecord, rounds: Iterable[RoundRecord]) -> list[str]:
    """Everyone who gets a row: the registered players, then (the engine does not
    validate) any other id seated in one of `rounds`, in id order."""
    registered = [player.id for player in event.players]
    seated = {pid for round_ in rounds for match in round_.matches for pid in match.players}
    return registered + sorted(seated.difference(registered))


# --- Phases -----------------------------------------------------------------------------


def swiss_rounds(rounds: Iterable[RoundRecord]) -> list[RoundRecord]:
    """The Swiss rounds of `rounds` in the order they were played (phase, then number)."""
    return sorted((r for r in rounds if not r.playoff), key=lambda r: (r.phase, r.number))


def last_phases(swiss: Iterable[RoundRecord]) -> dict[str, int]:
    """The last phase in which each player played a round; absent: never played."""
    last: dict[str, int] = {}
    for round_ in swiss:
        for match in round_.matches:
            if match.has_result:
                for player in match.players:
                    last[player] = max(last.get(player, 0), round_.phase)
    return last


def final_phase(swiss: Sequence[RoundRecord]) -> int:
    """The last phase with a round played (0: none); every round given holds a result."""
    return max((r.phase for r in swiss), default=0)


def values_phase(player: str, last: dict[str, int], final: int) -> int:
    """The phase whose end a player's values stand at (s.1, phases and playoffs).

    A player who plays no round of a later phase keeps everything frozen as it stood at
    the end of the last phase they played, opponents' values included; this holds for a
    Day 1 drop too (checked on melee.gg's data), while a Day 2 drop is not frozen. A
    player who never played stands with everyone at the end (their values are the floors
    either way).
    """
    return last.get(player) or final


def records_at_end_of(
    phase: int, players: Iterable[str], swiss: Iterable[RoundRecord], rules: SwissRules
) -> dict[str, Record]:
    """Every player's record as it stood at the end of `phase`."""
    return tally(players, (r for r in swiss if r.phase <= phase), rules)


# --- The tiebreakers --------------------------------------------------------------------


def match_win_pct(record: Record, rules: SwissRules) -> Fraction:
    """MW% = match points / (3 x rounds played), never below the floor (s.1)."""
    if not record.rounds_played:
        return rules.floor
    return max(rules.floor, Fraction(record.match_points, 3 * record.rounds_played))


def game_win_pct(record: Record, rules: SwissRules) -> Fraction:
    """GW% = game points / (3 x games played), never below the floor; the floor with no
    games played (s.1). This is the value an opponent's GW% counts with, in every preset."""
    if not record.games:
        return rules.floor
    return max(rules.floor, Fraction(record.game_points, 3 * record.games))


def own_game_win_pct(record: Record, rules: SwissRules) -> Fraction:
    """The player's own GW%, tiebreak step 2: not floored under `dci` (s.2), unless no
    game was played (there is no fraction to show then)."""
    if rules.floor_own_gw or not record.games:
        return game_win_pct(record, rules)
    return Fraction(record.game_points, 3 * record.games)


def opponents_match_win_pct(
    record: Record, records: dict[str, Record], rules: SwissRules
) -> Fraction:
    """OMW% = the mean of every opponent's MW% (floored), one entry per match; the
    preset's fixed value for a player who met no opponent (s.1, s.2b)."""
    if not record.opponents:
        return rules.no_opponent
    total = sum((match_win_pct(records[m.opponent], rules) for m in record.opponents), Fraction(0))
    return total / len(record.opponents)


def opponents_game_win_pct(
    record: Record, records: dict[str, Record], rules: SwissRules
) -> Fraction:
    """OGW% = the same mean over the opponents' GW% (floored, s.1)."""
    if not record.opponents:
        return rules.no_opponent
    total = sum((game_win_pct(records[m.opponent], rules) for m in record.opponents), Fraction(0))
    return total / len(record.opponents)


def tiebreakers(player: str, records: dict[str, Record], rules: SwissRules) -> dict[str, Fraction]:
    """A standings row's tiebreakers, from the records the player's values stand at."""
    record = records[player]
    return {
        "omw": opponents_match_win_pct(record, records, rules),
        "gw": own_game_win_pct(record, rules),
        "ogw": opponents_game_win_pct(record, records, rules),
    }


# --- Standings --------------------------------------------------------------------------


def compute(event: EventRecord, rounds: list[RoundRecord]) -> list[StandingRow]:
    """Standings rows, best first, for `rounds` (already cut to the requested round and
    holding only rounds with at least one result)."""
    rules = rules_for(event)
    players = player_ids(event, rounds)
    swiss = swiss_rounds(rounds)
    last = last_phases(swiss)
    final = final_phase(swiss)
    at_end_of = {
        phase: records_at_end_of(phase, players, swiss, rules)
        for phase in {r.phase for r in swiss} | {final}
    }
    values = {
        player: tiebreakers(player, at_end_of[values_phase(player, last, final)], rules)
        for player in players
    }
    records = at_end_of[final]  # a frozen player's own record has not changed since

    def sort_key(player: str) -> tuple[int, int, Fraction, Fraction, Fraction]:
        # Players who played a later phase first (a frozen player never passes one of
        # them, and never-played players come last), then s.1's order: match points,
        # OMW%, GW%, OGW%.
        mine = values[player]
        return (
            last.get(player, 0),
            records[player].match_points,
            mine["omw"],
            mine["gw"],
            mine["ogw"],
        )

    # The seeded draw (smaller value first) orders players equal on every key: sort on it
    # first, then stably on the chain.
    order = sorted(players, key=lambda player: (draw_key(event.seed, player), player))
    order.sort(key=sort_key, reverse=True)

    # s.1: playoff rounds decide the final placings of the players in them.
    playoffs = [r for r in rounds if r.playoff]
    if playoffs:
        bracket = playoff_order(playoffs, order)
        in_bracket = set(bracket)
        order = bracket + [player for player in order if player not in in_bracket]

    return [
        StandingRow(
            player=player,
            rank=rank,
            points=Fraction(records[player].match_points),
            wins=records[player].wins,
            losses=records[player].losses,
            draws=records[player].draws,
            played=records[player].rounds_played,
            tiebreakers=dict(values[player]),
        )
        for rank, player in enumerate(order, start=1)
    ]
