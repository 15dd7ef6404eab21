"""Table numbers of a paired round, with fixed seats (pure: no Django).

The organizer may fix a player to a table (accessibility, a stream table): every
pairing then seats that player's match at that table. The rules, for a round's tables
in pairing order (table 1's match first) followed by its byes:

- A match with a fixed player is played at that player's table. Two fixed players
  paired together (or more at a league table) play at the lowest of their tables: the
  choice depends on the two numbers only, never on who sits first or on the seed, so
  both players (and the organizer) can tell in advance where they will be; and the
  lowest tables are the ones nearest the front, where organizers put the tables they
  reserve.
- Every other match takes the lowest number no fixed match holds this round, in
  pairing order: the hall fills from table 1 without holes. A fixed table whose player
  is not playing there this round (dropped, on a bye, or moved to the lower table of an
  opponent who is fixed too) is an ordinary free table for that round: a physical
  table the organizer expects to see used rather than left standing empty in the
  middle of the hall. A fixed table beyond the round's matches (stream table 100 at a
  16-player event) is simply used by its player's match and no other.
- A bye is at no table: it is numbered after the matches, and never with a number
  that is any player's fixed table, so that nobody reading the pairings takes a bye
  for a match at the stream table. A fixed player on a bye has the bye, numbered like
  any other.

The result depends only on its arguments: the same event and seed seat the same way.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import TypeVar

__all__ = ["number_tables"]

P = TypeVar("P", bound=Hashable)


def number_tables(tables: Sequence[Sequence[P]], byes: int, fixed: Mapping[P, int]) -> list[int]:
    """The table number of each of `tables` (in pairing order), then of each of the
    `byes` bye "tables"; `fixed` maps a player to their fixed table (numbers >= 1,
    each used once). Without fixed seats: 1, 2, 3, ... as before."""
    count = len(tables) + byes
    if not fixed:
        return list(range(1, count + 1))
    at: list[int | None] = []
    for table in tables:
        mine = [fixed[p] for p in table if p in fixed]
        at.append(min(mine) if mine else None)
    held = {n for n in at if n is not None}
    free = _free(held)
    numbers = [n if n is not None else next(free) for n in at]
    reserved = held | set(fixed.values())
    last = max((n for n, f in zip(numbers, at, strict=True) if f is None), default=0)
    after = _free(reserved, start=last + 1)
    numbers.extend(next(after) for _ in range(byes))
    return numbers


def _free(taken: set[int], start: int = 1) -> Iterator[int]:
    n = start
    while True:
        if n not in taken:
            yield n
        n += 1
