"""Round robin (pod) schedules by the circle method.

With an even count, seat 0 stays put and the others rotate one place per round: in
n-1 rounds every pair meets exactly once.  An odd count adds an empty seat; whoever
faces it has the bye, so each player gets exactly one bye per cycle.  A double round
robin repeats the first cycle's rounds with each pair's seats swapped (who sits first
alternates, the opponents are the same).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["RoundRobinRound", "round_robin_schedule"]


@dataclass(frozen=True, slots=True)
class RoundRobinRound:
    pairs: tuple[tuple[str, str], ...]
    bye: str | None = None


def round_robin_schedule(
    player_ids: Sequence[str], rng: random.Random, *, double: bool = False
) -> tuple[RoundRobinRound, ...]:
    """Every round of a single (or double) round robin, in order.

    Seat order is shuffled by `rng`, so who meets whom in which round is random.
    Raises ValueError for fewer than 2 players or duplicate ids.
    """
    ids = list(player_ids)
    if len(ids) < 2:
        raise ValueError("a round robin needs at least 2 players")
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate player ids")
    rng.shuffle(ids)
    seats: list[str | None] = list(ids)
    if len(seats) % 2:
        seats.append(None)  # the empty seat: facing it means the bye
    n = len(seats)
    rounds: list[RoundRobinRound] = []
    for r in range(n - 1):
        pairs: list[tuple[str, str]] = []
        bye = None
        for k in range(n // 2):
            a, b = seats[k], seats[n - 1 - k]
            # Alternate who sits first for the fixed seat so it is not always first.
            if k == 0 and r % 2:
                a, b = b, a
            if a is None:
                bye = b
            elif b is None:
                bye = a
            else:
                pairs.append((a, b))
        rounds.append(RoundRobinRound(tuple(pairs), bye))
        # Rotate everyone but seat 0 one place clockwise.
        seats = [seats[0], seats[-1], *seats[1:-1]]
    if double:
        rounds += [
            RoundRobinRound(tuple((b, a) for a, b in rnd.pairs), rnd.bye) for rnd in list(rounds)
        ]
    return tuple(rounds)
