"""How one player's tiebreakers came about, term by term (the player page's "how the
tiebreakers are computed").

`explain(event, player_id)` returns the terms that add up (sum or mean) to the player's
tiebreakers, built from the engine's own records and functions, so that the totals are
exactly the player's row: the Day-2 freeze, drops, byes, double losses, playoffs and
unreported matches are decided by the engine's code, not re-derived. Swiss systems read
the reference engine (mtr.py), which the fast path is tested equal to.

Pure: standard library and this package only (tests/unit/test_purity.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from . import league, mtr, pod
from .api import SWISS_SYSTEMS, rounds_with_results
from .records import (
    BYE,
    DOUBLE_LOSS,
    GAME,
    LOSS,
    PLAYED,
    EventRecord,
    RoundRecord,
    System,
    Tiebreak,
)

Outcome = Literal["win", "draw", "loss", "bye"]


@dataclass(frozen=True, slots=True)
class OpponentTerm:
    """`mtr` / `dci` / `melee`: one opponent of one counted match (byes are not one)."""

    round: int
    opponent: str
    mw: Fraction  # the opponent's MW% as it stood then, floored
    gw: Fraction  # the opponent's GW% as it stood then, floored


@dataclass(frozen=True, slots=True)
class PodTerm:
    """`pod`: one game of the player (a bye or a loss with no opponent included)."""

    round: int
    opponent: str | None  # None: a bye or a loss with no opponent (neither is an opponent)
    outcome: Outcome
    win_pct: Fraction | None  # the opponent's win %, floored; None: no opponent or skipped
    wr: Fraction  # this game's share of win resistance
    owp: Fraction | None  # the opponent's own opponents' win %; None likewise
    wrr: Fraction  # this game's share of win resistance resistance


@dataclass(frozen=True, slots=True)
class LeagueTerm:
    """`league`: one round of the player: a game, an agreed bye, or a game missed."""

    round: int
    kind: Literal["game", "bye", "absent"]
    points: Fraction  # placement points (the bye's value; 0 when absent)
    table_size: int | None = None  # players who played at the table
    place: int | None = None  # finishing position (1 + players strictly ahead)
    score: Fraction | None = None  # own raw score
    table_mean: Fraction | None = None
    vs_average: Fraction | None = None  # 100 x (score - mean) / mean; 0 for a mean of 0


Term = OpponentTerm | PodTerm | LeagueTerm


@dataclass(frozen=True, slots=True)
class Explanation:
    system: System
    player: str
    # The last round the values take into account: for a player frozen by a cut (or who
    # stopped in an earlier phase), the last round of the last phase they played.
    after_round: int | None
    # Swiss systems: the phase the values stand at the end of (None: never played, or
    # not a Swiss system); `frozen` when a later phase has been played since.
    phase: int | None
    frozen: bool
    # The tiebreak keys the terms add up to, in the order of the standings row.
    columns: tuple[str, ...]
    terms: tuple[Term, ...]
    points: Fraction
    # Equal to the player's StandingRow.tiebreakers (every key, `gw` included).
    totals: dict[str, Tiebreak]
    # The floor each opponent's percentage counts with (None for `league`).
    floor: Fraction | None = None
    # Keys the system skips (contribute nothing): `pod`'s steps 2 and 4 in a complete
    # round robin.
    skipped: tuple[str, ...] = ()


def explain(event: EventRecord, player_id: str) -> Explanation | None:
    """The explanation of `player_id`'s tiebreakers; None if the player is not in the event."""
    rounds = rounds_with_results(event)
    if event.system in SWISS_SYSTEMS:
        return _swiss(event, rounds, player_id)
    if event.system == "pod":
        return _pod(event, rounds, player_id)
    if event.system == "league":
        return _league(event, rounds, player_id)
    raise ValueError(f"unknown scoring system: {event.system!r}")


# --- mtr / dci / melee ------------------------------------------------------------------


def _swiss(event: EventRecord, rounds: list[RoundRecord], player_id: str) -> Explanation | None:
    # The reference engine's own records and tiebreaker functions: the fast path that
    # compute_standings runs is proven equal to it (tests/unit/test_scoring_reference.py),
    # and the explained events are small (a player's neighbourhood, scoring/services.py).
    players = mtr.player_ids(event, rounds)
    if player_id not in players:
        return None
    rules = mtr.rules_for(event)
    swiss = mtr.swiss_rounds(rounds)
    final = mtr.final_phase(swiss)
    phase = mtr.values_phase(player_id, mtr.last_phases(swiss), final)
    records = mtr.records_at_end_of(phase, players, swiss, rules)
    record = records[player_id]
    # One term per match with an opponent, in the order played: byes, no-opponent losses
    # and unreported matches are not in `opponents`; double losses are.
    terms = tuple(
        OpponentTerm(
            round=meeting.round,
            opponent=meeting.opponent,
            mw=mtr.match_win_pct(records[meeting.opponent], rules),
            gw=mtr.game_win_pct(records[meeting.opponent], rules),
        )
        for meeting in record.opponents
    )
    return Explanation(
        system=event.system,
        player=player_id,
        after_round=max((r.number for r in swiss if r.phase <= phase), default=None),
        phase=phase or None,
        frozen=bool(phase) and phase != final,
        columns=("omw", "ogw"),
        terms=terms,
        # The player played nothing after `phase`, so these are also the final points.
        points=Fraction(record.match_points),
        totals=dict(mtr.tiebreakers(player_id, records, rules)),
        floor=rules.floor,
    )


# --- pod --------------------------------------------------------------------------------


def _pod(event: EventRecord, rounds: list[RoundRecord], player_id: str) -> Explanation | None:
    swiss = sorted((r for r in rounds if not r.playoff), key=lambda r: r.number)
    records = pod.tally([p.id for p in event.players], swiss)
    if player_id not in records:
        return None
    complete = pod.round_robin_complete(list(records), records)
    # As pod.compute: win counts, opponents' win % (each floored), win resistance.
    win_count = {pid: r.win_count for pid, r in records.items()}
    owp = {
        pid: sum(
            (max(pod.OWP_FLOOR, records[opp].win_pct) for opp, _ in r.games), start=Fraction(0)
        )
        for pid, r in records.items()
    }
    wr = {pid: pod.resistance(r, win_count) for pid, r in records.items()}

    def share(outcome: Outcome, value: Fraction) -> Fraction:
        # Only games won add resistance; a draw a third of it.
        if outcome == "win":
            return value
        if outcome == "draw":
            return value * pod.DRAW_SHARE
        return Fraction(0)

    terms: list[PodTerm] = []
    for round_ in swiss:
        for match in round_.matches:
            if not match.has_result or player_id not in match.players:
                continue
            if match.kind in (BYE, LOSS):
                # Beating the bye adds 0 and neither is an opponent.
                outcome: Outcome = "bye" if match.kind == BYE else "loss"
                terms.append(
                    PodTerm(round_.number, None, outcome, None, Fraction(0), None, Fraction(0))
                )
                continue
            a, b = match.players
            opponent = b if player_id == a else a
            if match.kind == DOUBLE_LOSS:
                outcome = "loss"
            elif match.kind == PLAYED:
                wa, wb = match.wins or (0, 0)
                mine, theirs = (wa, wb) if player_id == a else (wb, wa)
                outcome = "win" if mine > theirs else "loss" if theirs > mine else "draw"
            else:
                raise ValueError(f"a {match.kind!r} match cannot be scored in a pod")
            terms.append(
                PodTerm(
                    round=round_.number,
                    opponent=opponent,
                    outcome=outcome,
                    win_pct=None if complete else max(pod.OWP_FLOOR, records[opponent].win_pct),
                    wr=share(outcome, win_count[opponent]),
                    owp=None if complete else owp[opponent],
                    wrr=share(outcome, wr[opponent]),
                )
            )

    record = records[player_id]
    zero = Fraction(0)
    return Explanation(
        system=event.system,
        player=player_id,
        after_round=max((r.number for r in swiss), default=None),
        phase=None,
        frozen=False,
        columns=("wr", "wrr") if complete else ("owp", "wr", "oowp", "wrr"),
        terms=tuple(terms),
        points=Fraction(pod.WIN_POINTS * record.wins + pod.DRAW_POINTS * record.draws),
        totals={
            "owp": None if complete else sum((t.win_pct or zero for t in terms), zero),
            "wr": sum((t.wr for t in terms), zero),
            "oowp": None if complete else sum((t.owp or zero for t in terms), zero),
            "wrr": sum((t.wrr for t in terms), zero),
        },
        floor=pod.OWP_FLOOR,
        skipped=("owp", "oowp") if complete else (),
    )


# --- league -----------------------------------------------------------------------------


def _league(event: EventRecord, rounds: list[RoundRecord], player_id: str) -> Explanation | None:
    known = {p.id for p in event.players}
    terms: list[LeagueTerm] = []
    for round_ in sorted(rounds, key=lambda r: r.number):
        for match in round_.matches:
            if not match.has_result:
                continue
            known.update(match.players, match.absent)
            if player_id in match.absent and player_id not in match.players:
                # Missed an agreed game: 0 for the round, not counted at the table.
                terms.append(LeagueTerm(round_.number, "absent", Fraction(0)))
                continue
            if player_id not in match.players:
                continue
            if match.kind == BYE:
                terms.append(LeagueTerm(round_.number, "bye", Fraction(league.BYE_POINTS)))
                continue
            if match.kind != GAME:
                raise ValueError(f"a {match.kind!r} match cannot be scored in a league")
            # As league.py tallies it: the table is the players who played.
            places = match.places or ()
            scores = match.scores or tuple(Fraction(0) for _ in places)
            points, positions = league.table_points(tuple(places))
            mean = Fraction(sum(scores, Fraction(0)), len(scores))
            seat = match.players.index(player_id)
            score = scores[seat]
            terms.append(
                LeagueTerm(
                    round=round_.number,
                    kind="game",
                    points=points[seat],
                    table_size=len(match.players),
                    place=positions[seat],
                    score=score,
                    table_mean=mean,
                    vs_average=league.PERCENT * (score - mean) / mean if mean else Fraction(0),
                )
            )
    if player_id not in known:
        return None
    zero = Fraction(0)
    places = [0] * league.MAX_TABLE
    for term in terms:
        if term.place is not None:
            places[term.place - 1] += 1
    return Explanation(
        system=event.system,
        player=player_id,
        after_round=max((r.number for r in rounds), default=None),
        phase=None,
        frozen=False,
        columns=("places", "vs_average", "raw_total"),
        terms=tuple(terms),
        points=sum((t.points for t in terms), zero),
        totals={
            "places": tuple(places),
            "vs_average": sum((t.vs_average or zero for t in terms), zero),
            "raw_total": sum((t.score or zero for t in terms), zero),
        },
    )
