"""`pod` scoring: round-robin draft pod of best-of-one games (shared/spec/scoring.md s.3).

Pods are small (a handful of players), so this works directly in Fractions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations

from .ranking import draw_key, playoff_order
from .records import BYE, DOUBLE_LOSS, LOSS, PLAYED, EventRecord, RoundRecord, StandingRow

# Record points: win 3, draw 1, loss 0; a bye is a win (scoring.md s.3).
WIN_POINTS = 3
DRAW_POINTS = 1
# A draw counts as one third of a win, in the win count and in win resistance.
DRAW_SHARE = Fraction(1, 3)
# Opponents' win %: each opponent's win % is "raised to 0.33 if lower".
OWP_FLOOR = Fraction(33, 100)

WIN, DRAW, LOSE = 1, 0, -1


@dataclass(slots=True)
class Record:
    """A pod player's games added up (playoff rounds excluded by the caller)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    # One entry per game against a real opponent: (opponent, outcome for this player).
    games: list[tuple[str, int]] = field(default_factory=list)

    @property
    def played(self) -> int:
        return self.wins + self.draws + self.losses  # byes are games played (and wins)

    @property
    def win_count(self) -> Fraction:
        return self.wins + self.draws * DRAW_SHARE

    @property
    def win_pct(self) -> Fraction:
        return self.win_count / self.played if self.played else Fraction(0)


def tally(ids: list[str], rounds: list[RoundRecord]) -> dict[str, Record]:
    """Every player's record over `rounds`; ids seen only in a match are added."""
    records = {pid: Record() for pid in ids}
    for round_ in rounds:
        for match in round_.matches:
            if not match.has_result:
                continue
            for pid in match.players:
                records.setdefault(pid, Record())
            if match.kind == BYE:
                records[match.players[0]].wins += 1
            elif match.kind == LOSS:
                records[match.players[0]].losses += 1
            elif match.kind == DOUBLE_LOSS:
                a, b = match.players
                records[a].losses += 1
                records[b].losses += 1
                records[a].games.append((b, LOSE))
                records[b].games.append((a, LOSE))
            elif match.kind == PLAYED:
                a, b = match.players
                wa, wb = match.wins or (0, 0)
                outcome = WIN if wa > wb else LOSE if wb > wa else DRAW
                for player, opponent, result in ((a, b, outcome), (b, a, -outcome)):
                    record = records[player]
                    if result == WIN:
                        record.wins += 1
                    elif result == LOSE:
                        record.losses += 1
                    else:
                        record.draws += 1
                    record.games.append((opponent, result))
            else:
                raise ValueError(f"a {match.kind!r} match cannot be scored in a pod")
    return records


def resistance(record: Record, value: dict[str, Fraction]) -> Fraction:
    """Sum of `value` over the opponents beaten, a third of it for a draw.

    Beating the bye adds 0: byes never appear in `record.games`.
    """
    total = Fraction(0)
    for opponent, result in record.games:
        if result == WIN:
            total += value[opponent]
        elif result == DRAW:
            total += value[opponent] * DRAW_SHARE
    return total


def round_robin_complete(ids: list[str], records: dict[str, Record]) -> bool:
    """True when every player met every other player at least once."""
    met = {(pid, opp) for pid, record in records.items() for opp, _ in record.games}
    return all((a, b) in met for a, b in combinations(ids, 2))


def compute(event: EventRecord, rounds: list[RoundRecord]) -> list[StandingRow]:
    ids = [p.id for p in event.players]
    swiss = [r for r in rounds if not r.playoff]
    records = tally(ids, swiss)
    ids = list(records)  # players seen only in a match included (non-validating)
    complete = round_robin_complete(ids, records)

    win_count = {pid: r.win_count for pid, r in records.items()}
    owp = {
        pid: sum(
            (max(OWP_FLOOR, records[opp].win_pct) for opp, _ in r.games),
            start=Fraction(0),
        )
        for pid, r in records.items()
    }
    oowp = {
        pid: sum((owp[opp] for opp, _ in r.games), start=Fraction(0)) for pid, r in records.items()
    }
    wr = {pid: resistance(r, win_count) for pid, r in records.items()}
    wrr = {pid: resistance(r, wr) for pid, r in records.items()}

    def points(pid: str) -> int:
        r = records[pid]
        return WIN_POINTS * r.wins + DRAW_POINTS * r.draws

    def key(pid: str) -> tuple[object, ...]:
        # Steps 2 and 4 are skipped (contribute nothing) in a complete round robin.
        if complete:
            return (points(pid), wr[pid], wrr[pid])
        return (points(pid), owp[pid], wr[pid], oowp[pid], wrr[pid])

    # Sorted on the chain, descending, then the seeded draw (smaller value ranks higher).
    order = sorted(ids, key=lambda pid: (draw_key(event.seed, pid), pid))
    order.sort(key=key, reverse=True)
    playoffs = [r for r in rounds if r.playoff]
    if playoffs:
        bracket = playoff_order(playoffs, order)
        order = bracket + [pid for pid in order if pid not in set(bracket)]

    rows = []
    for rank, pid in enumerate(order, start=1):
        r = records[pid]
        rows.append(
            StandingRow(
                player=pid,
                rank=rank,
                points=Fraction(points(pid)),
                wins=r.wins,
                losses=r.losses,
                draws=r.draws,
                played=r.played,
                tiebreakers={
                    "owp": None if complete else owp[pid],
                    "wr": wr[pid],
                    "oowp": None if complete else oowp[pid],
                    "wrr": wrr[pid],
                },
            )
        )
    return rows
