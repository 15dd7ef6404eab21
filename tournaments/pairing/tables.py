"""League seating: multi-player tables of 3 to 5 meeting as few previous opponents as
possible.

Table sizes: as many tables of 4 as possible.  Writing n = 4q + m, that choice is
unique: m = 0 -> all 4s, m = 1 -> one 5, m = 2 -> two 3s, m = 3 -> one 3 (so 5 -> 5,
6 -> 3+3, 7 -> 4+3, 9 -> 4+5, 10 -> 4+3+3); no tie-break between compositions is ever
needed.  Tables are returned largest first.

Objective: the number of pairs of players at the same table who already shared a
table, counted with multiplicity (`repeat_meetings`).  Fields of up to
`EXACT_LIMIT` players are solved exactly by branch and bound over all seatings; larger
fields use a randomised local search (pairwise seat swaps from several starts), which
stops early whenever it reaches 0, the obvious lower bound.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

__all__ = ["EXACT_LIMIT", "Seating", "TablePlayer", "repeat_meetings", "seat_tables", "table_sizes"]

# Up to 12 players an exhaustive search visits at most a few thousand seatings.
EXACT_LIMIT = 12
# Local search effort for larger fields: independent starts, each run to a local optimum.
RESTARTS = 12


@dataclass(frozen=True, slots=True)
class TablePlayer:
    id: str
    # Everyone this player already shared a table with, one entry per shared game.
    opponents: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Seating:
    tables: tuple[tuple[str, ...], ...]


def table_sizes(n: int) -> tuple[int, ...]:
    """Table sizes for n players (largest first); ValueError below 3."""
    if n < 3:
        raise ValueError(f"league tables need at least 3 players, got {n}")
    q, m = divmod(n, 4)
    extra = {0: (), 1: (5,), 2: (3, 3), 3: (3,)}[m]
    fours = q - (1 if m in (1, 2) else 0)  # a 5 or two 3s absorb one 4
    return tuple(sorted((4,) * fours + extra, reverse=True))


class _Meetings:
    def __init__(self, players: Sequence[TablePlayer]) -> None:
        ids = [p.id for p in players]
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate player ids")
        index = {pid: i for i, pid in enumerate(ids)}
        self.ids = ids
        self.met: list[dict[int, int]] = [{} for _ in ids]
        for i, p in enumerate(players):
            for opp, c in Counter(p.opponents).items():
                j = index.get(opp)
                if j is not None and j != i:
                    # Symmetric even if the caller's history is one-sided.
                    self.met[i][j] = max(self.met[i].get(j, 0), c)
                    self.met[j][i] = max(self.met[j].get(i, 0), c)

    def with_table(self, i: int, table: Sequence[int]) -> int:
        mi = self.met[i]
        return sum(mi.get(j, 0) for j in table if j != i)

    def table_cost(self, table: Sequence[int]) -> int:
        return sum(self.met[a].get(b, 0) for a, b in combinations(table, 2))


def repeat_meetings(players: Sequence[TablePlayer], tables: Sequence[Sequence[str]]) -> int:
    """Pairs at the same table who already shared one, counted with multiplicity."""
    m = _Meetings(players)
    index = {pid: i for i, pid in enumerate(m.ids)}
    return sum(m.table_cost([index[p] for p in t]) for t in tables)


def seat_tables(players: Sequence[TablePlayer], rng: random.Random) -> Seating:
    """Seat every player (see module docstring). ValueError for fewer than 3."""
    sizes = table_sizes(len(players))
    m = _Meetings(players)
    order = list(range(len(players)))
    rng.shuffle(order)  # ties (and the whole first round) fall randomly
    if len(players) <= EXACT_LIMIT:
        tables = _exact(m, order, sizes)
    else:
        tables = _local_search(m, order, sizes, rng)
    tables.sort(key=len, reverse=True)
    return Seating(tuple(tuple(m.ids[i] for i in t) for t in tables))


def _exact(m: _Meetings, order: list[int], sizes: tuple[int, ...]) -> list[list[int]]:
    """Branch and bound over all seatings; each seating is generated once because the
    first unseated player always opens the next table."""
    best: list[list[int]] = []
    best_cost = [float("inf")]

    def search(rest: list[int], sizes_left: Counter[int], cost: int, acc: list[list[int]]) -> None:
        if cost >= best_cost[0]:
            return
        if not rest:
            best_cost[0] = cost
            best[:] = [list(t) for t in acc]
            return
        head, tail = rest[0], rest[1:]
        for size in sorted(sizes_left, reverse=True):
            if not sizes_left[size]:
                continue
            sizes_left[size] -= 1
            for others in combinations(tail, size - 1):
                table = [head, *others]
                chosen = set(others)
                acc.append(table)
                search(
                    [p for p in tail if p not in chosen],
                    sizes_left,
                    cost + m.table_cost(table),
                    acc,
                )
                acc.pop()
                if best_cost[0] == 0:
                    break
            sizes_left[size] += 1
            if best_cost[0] == 0:
                return

    search(order, Counter(sizes), 0, [])
    return best


def _local_search(
    m: _Meetings, order: list[int], sizes: tuple[int, ...], rng: random.Random
) -> list[list[int]]:
    best: list[list[int]] = []
    best_cost = -1
    for attempt in range(RESTARTS):
        players = list(order)
        if attempt:
            rng.shuffle(players)
        tables = _greedy_start(m, players, sizes)
        _improve(m, tables)
        c = sum(m.table_cost(t) for t in tables)
        if best_cost < 0 or c < best_cost:
            best, best_cost = tables, c
        if best_cost == 0:
            break
    return best


def _greedy_start(m: _Meetings, players: list[int], sizes: tuple[int, ...]) -> list[list[int]]:
    """Each player takes the open table where they know the fewest people."""
    tables: list[list[int]] = [[] for _ in sizes]
    for p in players:
        open_tables = [t for t in range(len(sizes)) if len(tables[t]) < sizes[t]]
        t = min(open_tables, key=lambda t: m.with_table(p, tables[t]))
        tables[t].append(p)
    return tables


def _improve(m: _Meetings, tables: list[list[int]]) -> None:
    """Swap two players between tables while that lowers the total (first improvement)."""
    where = {p: t for t, table in enumerate(tables) for p in table}
    improved = True
    while improved:
        improved = False
        for p in list(where):
            tp = where[p]
            own = m.with_table(p, tables[tp])
            if own == 0:
                continue
            for tq, table in enumerate(tables):
                if tq == tp:
                    continue
                for q in table:
                    # Gain of swapping p and q: each leaves their table and joins the other.
                    before = own + m.with_table(q, table)
                    p_new = m.with_table(p, table) - m.met[p].get(q, 0)
                    q_new = m.with_table(q, tables[tp]) - m.met[q].get(p, 0)
                    if p_new + q_new < before:
                        tables[tp][tables[tp].index(p)] = q
                        table[table.index(q)] = p
                        where[p], where[q] = tq, tp
                        improved = True
                        break
                if where[p] != tp:
                    break
