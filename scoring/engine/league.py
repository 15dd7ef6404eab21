"""`league` scoring: multi-player board-game league (shared/spec/scoring.md s.4).

Row fields for this system (the match-record fields have no direct meaning here):
  wins   = games finished 1st (a shared 1st place included),
  losses = games finished below 1st,
  draws  = 0 (a shared place is not a draw),
  played = games played plus agreed byes (a game the player was absent from is not).
Ties on every key share the rank (standard competition ranking 1, 2, 2, 4).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from .ranking import competition_ranks
from .records import BYE, GAME, EventRecord, RoundRecord, StandingRow

# Placement points by number of players at the table (scoring.md s.4).
PLACEMENT_POINTS: dict[int, tuple[int, ...]] = {
    5: (12, 8, 5, 3, 2),
    4: (11, 7, 4, 2),
    3: (10, 6, 2),
}
MAX_TABLE = max(PLACEMENT_POINTS)
# An agreed bye scores the last-place value (scoring.md s.4).
BYE_POINTS = 2
# "points vs game average" is a percentage of the table's mean raw score.
PERCENT = 100


@dataclass(slots=True)
class _Record:
    points: Fraction = Fraction(0)
    places: list[int] = field(default_factory=lambda: [0] * MAX_TABLE)
    vs_average: Fraction = Fraction(0)
    raw_total: Fraction = Fraction(0)
    games: int = 0
    byes: int = 0

    def key(self) -> tuple[object, ...]:
        return (self.points, tuple(self.places), self.vs_average, self.raw_total)


def table_points(places: tuple[int, ...]) -> tuple[list[Fraction], list[int]]:
    """Placement points and finishing positions (1 + players strictly ahead) per seat.

    Players who share a place share the mean of the points of the places they span (the
    project's documented choice; the source rules are silent). Shared places may be
    written 1,1,3 or 1,1,2: only the order of the numbers matters.
    """
    size = len(places)
    if size not in PLACEMENT_POINTS:
        raise ValueError(f"a league game seats 3 to 5 players, not {size}")
    table = PLACEMENT_POINTS[size]
    seats = sorted(range(size), key=lambda s: places[s])
    points: list[Fraction] = [Fraction(0)] * size
    positions: list[int] = [0] * size
    start = 0
    while start < size:
        end = start
        while end + 1 < size and places[seats[end + 1]] == places[seats[start]]:
            end += 1
        share = Fraction(sum(table[start : end + 1]), end - start + 1)
        for k in range(start, end + 1):
            points[seats[k]] = share
            positions[seats[k]] = start + 1
        start = end + 1
    return points, positions


def _tally(ids: list[str], rounds: list[RoundRecord]) -> dict[str, _Record]:
    records = {pid: _Record() for pid in ids}
    for round_ in rounds:
        for match in round_.matches:
            if not match.has_result:
                continue
            for pid in (*match.players, *match.absent):
                records.setdefault(pid, _Record())
            if match.kind == BYE:
                record = records[match.players[0]]
                record.points += BYE_POINTS
                record.byes += 1
                continue
            if match.kind != GAME:
                raise ValueError(f"a {match.kind!r} match cannot be scored in a league")
            # Absent players score 0 and are not counted at the table: `players`,
            # `places` and `scores` list only the players who played.
            places = match.places or ()
            scores = match.scores or tuple(Fraction(0) for _ in places)
            points, positions = table_points(tuple(places))
            mean = Fraction(sum(scores, Fraction(0)), len(scores))
            for seat, pid in enumerate(match.players):
                record = records[pid]
                record.points += points[seat]
                record.places[positions[seat] - 1] += 1
                record.raw_total += scores[seat]
                # A table whose mean raw score is 0 contributes 0.
                if mean:
                    record.vs_average += PERCENT * (scores[seat] - mean) / mean
                record.games += 1
    return records


def _ranked(
    ids: list[str], records: dict[str, _Record], history: list[dict[str, int]]
) -> tuple[list[str], list[int]]:
    """Players best first with competition ranks, breaking ties by "most recently ahead".

    `history` holds the ranks after each earlier round, oldest first: comparing rank
    tuples newest first, the first round where one player was strictly ahead decides.
    """

    def key(pid: str) -> tuple[object, ...]:
        recent = tuple(-ranks.get(pid, len(ids)) for ranks in reversed(history))
        return (*records[pid].key(), recent)

    order = sorted(ids, key=key, reverse=True)
    return order, competition_ranks([key(pid) for pid in order])


def compute(event: EventRecord, rounds: list[RoundRecord]) -> list[StandingRow]:
    ids = [p.id for p in event.players]
    numbers = sorted({r.number for r in rounds})
    # Standings after each earlier round, for the "most recently ahead" rule.
    history: list[dict[str, int]] = []
    for number in numbers[:-1]:
        sofar = [r for r in rounds if r.number <= number]
        records = _tally(ids, sofar)
        order, ranks = _ranked(list(records), records, history)
        history.append(dict(zip(order, ranks, strict=True)))
    records = _tally(ids, rounds)
    order, ranks = _ranked(list(records), records, history)

    rows = []
    for pid, rank in zip(order, ranks, strict=True):
        record = records[pid]
        firsts = record.places[0]
        rows.append(
            StandingRow(
                player=pid,
                rank=rank,
                points=record.points,
                wins=firsts,
                losses=record.games - firsts,
                draws=0,
                played=record.games + record.byes,
                tiebreakers={
                    "places": tuple(record.places),
                    "vs_average": record.vs_average,
                    "raw_total": record.raw_total,
                },
            )
        )
    return rows
