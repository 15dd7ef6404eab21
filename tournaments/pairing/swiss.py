"""Swiss pairing for the Magic systems (mtr, dci, melee).

The engine minimises, lexicographically (see `PairingCost`):

1. rematches: pairs that already met, counted with multiplicity (a pair meeting for
   the third time counts 2), so a field too small to avoid them gets as few as possible;
2. the bye (odd fields only, exactly one): to a player who has not had one, from the
   lowest match-point group holding such a player.  If everyone already had a bye, it
   goes to the lowest match-point group (a second bye is unavoidable, and the lowest
   group is where it distorts standings least);
3. the sum over the pairs of (points difference)^2;
4. the number of pairs whose points differ;
5. everything else is left to the caller's `random.Random`.

Pairing restrictions (a casual event's "do not pair these two": family, teammates) are
a level above all of these: `forbidden` pairs, and the pairing meets as few of them as
the field allows (none, whenever any pairing avoids them all; see `RestrictedCost`).
A forbidden pair is "blocked" exactly like a previous meeting for everything below
(the greedy, the segment plans, the pools of the refinement: `_Field.met` holds it
with a count of 0 meetings), so every argument that follows holds with "rematch" read
as "blocked pair": `lower_bound` bounds the pairings that meet no blocked pair, and
only the exact matching, which prices a forbidden pair above every rematch, ever
pairs one.  Without restrictions nothing changes (not one call to the rng).

How it stays exact and fast (the full arguments are in the docstrings of
`_segment_bound` and `_refine`):

* `lower_bound` is a provable lexicographic lower bound.  The few players at each end
  of the standings (up to `_SEGMENT_CAP`, whole match-point groups) are solved exactly
  by a small matching in which a player may float out of the segment at the price of
  reaching the next group; this catches what previous meetings force there (two
  leaders who already met must both float).  In the middle, a pair spanning several
  groups costs at least the sum of the squares of the gaps it spans (squares are
  superadditive) and a boundary with an odd number of players above it is crossed at
  least once.
* The pairing is first assembled from the bound's own segment solutions, joined by a
  cheap greedy down the middle groups (pair inside a group, float leftovers one group
  down).  If it meets the bound it is optimal and we are done: nearly always, even in
  the late rounds of a large event.
* Otherwise a plain top-down greedy, improved by an exact matching around the groups
  where it misses the bound, and finally the certified refinement: the slack bounds how
  many pairs can cross each boundary in any optimal pairing; every group keeps a
  "pool" big enough that any optimal pairing can be rewritten, by swapping
  interchangeable same-point players, into one that matches the rest of the group
  among itself.  An exact maximum-weight matching (rustworkx) on the pools alone then
  gives the global optimum.
* Anything the greedy cannot pair without a rematch goes to the exact matching over
  the whole field, which is also the oracle the tests use.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import rustworkx as rx

__all__ = [
    "Pairing",
    "PairingCost",
    "RestrictedCost",
    "SwissPlayer",
    "cost",
    "lower_bound",
    "pair_swiss",
    "pair_swiss_exact",
    "restricted_cost",
]

# Two player ids that must not be paired (in either order).
Forbidden = Collection[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class SwissPlayer:
    """An active player. Dropped players are simply not passed in."""

    id: str
    points: int = 0
    # Previous opponents as a multiset: an id listed twice means two meetings.
    opponents: tuple[str, ...] = ()
    had_bye: bool = False


@dataclass(frozen=True, slots=True)
class Pairing:
    """Tables in order (table 1 first, highest points), the bye separately."""

    tables: tuple[tuple[str, str], ...]
    bye: str | None = None


class PairingCost(NamedTuple):
    """Lexicographic cost: compare with `<`, smaller is better.

    `bye_repeat` is 1 when the bye goes to a player who already had one and
    `bye_points` the bye recipient's points (both 0 without a bye); within one field
    either every pairing has a bye or none does, so the comparison is consistent.
    """

    rematches: int
    bye_repeat: int
    bye_points: int
    squared_diff: int
    unequal_pairs: int


class RestrictedCost(NamedTuple):
    """The cost under pairing restrictions: first the forbidden pairs paired together,
    then `PairingCost` (compare with `<`, smaller is better)."""

    restricted: int
    cost: PairingCost


# Ties between optimal matchings are broken by a random perturbation below the lowest
# cost level: each weight is scaled by _TIE_BREAK * (nodes + 2) and gets a random
# 0.._TIE_BREAK-1, so the perturbations of a whole matching never add up to one unit of
# cost.  This makes the optimum (almost surely) unique, hence reproducible from the
# caller's rng: rustworkx itself breaks ties by internal hash order, which varies
# between runs.  Weights stay far below rustworkx's 128-bit limit.
_TIE_BITS = 24
_TIE_BREAK = 1 << _TIE_BITS


# ---------------------------------------------------------------------------
# Internal indexed view of the field
# ---------------------------------------------------------------------------


class _Field:
    """Players by index 0..n-1 with the data the solvers need."""

    __slots__ = ("apart", "had_bye", "ids", "met", "n", "points")

    def __init__(self, players: Sequence[SwissPlayer], forbidden: Forbidden = ()) -> None:
        self.ids = [p.id for p in players]
        if len(set(self.ids)) != len(self.ids):
            dup = sorted(i for i, c in Counter(self.ids).items() if c > 1)
            raise ValueError(f"duplicate player ids: {dup}")
        index = {pid: i for i, pid in enumerate(self.ids)}
        self.n = len(players)
        self.points = [p.points for p in players]
        self.had_bye = [p.had_bye for p in players]
        # Only meetings with players still active matter; dropped ids are ignored.
        self.met: list[dict[int, int]] = []
        for i, p in enumerate(players):
            counts: dict[int, int] = {}
            for opp in p.opponents:
                j = index.get(opp)
                if j is not None and j != i:
                    counts[j] = counts.get(j, 0) + 1
            self.met.append(counts)
        # Make the relation symmetric even if the caller's data is one-sided.
        for i in range(self.n):
            for j, c in self.met[i].items():
                if self.met[j].get(i, 0) < c:
                    self.met[j][i] = c
        # Forbidden pairs among the active players: blocked like a meeting (a key of
        # `met`) without counting as one (0 meetings), and priced by `apart`.
        self.apart: list[set[int]] | None = None
        if forbidden:
            self.apart = [set() for _ in range(self.n)]
            for a, b in forbidden:
                i, j = index.get(a), index.get(b)
                if i is None or j is None or i == j:
                    continue
                self.apart[i].add(j)
                self.apart[j].add(i)
                self.met[i].setdefault(j, 0)
                self.met[j].setdefault(i, 0)
            if not any(self.apart):
                self.apart = None

    def restricted(self, pairs: Iterable[tuple[int, int]]) -> int:
        """How many of `pairs` are forbidden ones."""
        apart = self.apart
        return 0 if apart is None else sum(1 for i, j in pairs if j in apart[i])

    def pair_cost(self, i: int, j: int) -> tuple[int, int, int]:
        diff = self.points[i] - self.points[j]
        return self.met[i].get(j, 0), diff * diff, int(diff != 0)

    def cost(self, pairs: Iterable[tuple[int, int]], bye: int | None) -> PairingCost:
        rem = sq = uneq = 0
        for i, j in pairs:
            a, b, c = self.pair_cost(i, j)
            rem += a
            sq += b
            uneq += c
        if bye is None:
            return PairingCost(rem, 0, 0, sq, uneq)
        return PairingCost(rem, int(self.had_bye[bye]), self.points[bye], sq, uneq)

    def best_bye_status(self) -> tuple[bool, int]:
        """(had_bye, points) of the best possible bye recipient (rule 2)."""
        fresh = [self.points[i] for i in range(self.n) if not self.had_bye[i]]
        if fresh:
            return False, min(fresh)
        return True, min(self.points)

    def to_pairing(
        self, pairs: Iterable[tuple[int, int]], bye: int | None, rng: random.Random
    ) -> Pairing:
        pts = self.points
        ordered: list[tuple[int, int]] = []
        for i, j in pairs:
            # Higher points first; equal points keep a random order.
            if pts[j] > pts[i] or (pts[i] == pts[j] and rng.random() < 0.5):
                i, j = j, i
            ordered.append((i, j))
        rng.shuffle(ordered)  # random order among equally ranked tables
        ordered.sort(key=lambda p: (-pts[p[0]], -(pts[p[0]] + pts[p[1]])))
        tables = tuple((self.ids[i], self.ids[j]) for i, j in ordered)
        return Pairing(tables, None if bye is None else self.ids[bye])


# ---------------------------------------------------------------------------
# Public helpers
# ---------------------------------------------------------------------------


def cost(players: Sequence[SwissPlayer], pairing: Pairing) -> PairingCost:
    """Cost of any pairing of `players`; raises ValueError if it is not a valid one."""
    return restricted_cost(players, pairing).cost


def restricted_cost(
    players: Sequence[SwissPlayer], pairing: Pairing, forbidden: Forbidden = ()
) -> RestrictedCost:
    """`cost` under pairing restrictions: the forbidden pairs `pairing` pairs, then its
    `PairingCost`; raises ValueError if it is not a valid pairing of `players`."""
    field = _Field(players, forbidden)
    index = {pid: i for i, pid in enumerate(field.ids)}
    seen: list[str] = [pid for table in pairing.tables for pid in table]
    if pairing.bye is not None:
        seen.append(pairing.bye)
    if sorted(seen) != sorted(field.ids):
        raise ValueError("the pairing must seat every player exactly once")
    if (pairing.bye is not None) != (field.n % 2 == 1):
        raise ValueError("a bye is given exactly when the player count is odd")
    if any(a == b for a, b in pairing.tables):
        raise ValueError("a player cannot be paired with themself")
    pairs = [(index[a], index[b]) for a, b in pairing.tables]
    bye = None if pairing.bye is None else index[pairing.bye]
    return RestrictedCost(field.restricted(pairs), field.cost(pairs, bye))


def lower_bound(players: Sequence[SwissPlayer], forbidden: Forbidden = ()) -> PairingCost:
    """A lexicographic lower bound on `cost` over all pairings of `players`.

    Any pairing's cost is >= this (see `_segment_bound`); `pair_swiss` reaches it
    whenever the field allows a rematch-free pairing whose only floats are the ones the
    two ends of the standings force and one per odd boundary in between: nearly always.
    With `forbidden`, a bound over the pairings that pair no forbidden pair (any other
    is worse on `RestrictedCost.restricted`).
    """
    field = _Field(players, forbidden)
    if field.n == 0:
        return PairingCost(0, 0, 0, 0, 0)
    groups = _groups(field)
    repeat = points = 0
    if field.n % 2:
        had, points = field.best_bye_status()
        repeat = int(had)
    bound = _segment_bound(field, groups, _bye_group(field, groups))
    return PairingCost(0, repeat, points, bound.sq, bound.uneq)


# ---------------------------------------------------------------------------
# Structure: match-point groups and the lower bound
# ---------------------------------------------------------------------------

# Players per end segment solved exactly for the bound (see `_segment_bound`).  The
# groups at the two ends of a late-round field are tiny, and that is where previous
# meetings force extra floats (two leaders who already met must both float); in the
# large middle groups the boundary parities alone are nearly always reachable.
_SEGMENT_CAP = 48


class _SegmentPlan(NamedTuple):
    """An optimal solution of one end segment's relaxed problem (`_segment_best`)."""

    sq: int
    uneq: int
    pairs: list[tuple[int, int]]
    floaters: list[int]  # members paired out of the segment
    bye: int | None


class _Bound(NamedTuple):
    """The lower bound on (squared_diff, unequal_pairs) for a given bye group, and the
    layout it was proved with: groups 0..top (top segment) and bottom..k-1 (bottom
    segment) were solved exactly (`plans`, None for a missing segment); the groups
    between (at least one) are the middle, whose boundaries top+1..bottom-2 only
    contribute their parities."""

    sq: int
    uneq: int
    top: int  # last group of the top segment, -1 if there is none
    bottom: int  # first group of the bottom segment, k if there is none
    plans: tuple[_SegmentPlan | None, _SegmentPlan | None] = (None, None)


def _groups(field: _Field) -> list[tuple[int, list[int]]]:
    """(points, member indices) per match-point group, highest points first."""
    by_points: dict[int, list[int]] = {}
    for i, p in enumerate(field.points):
        by_points.setdefault(p, []).append(i)
    return [(s, by_points[s]) for s in sorted(by_points, reverse=True)]


def _bye_group(field: _Field, groups: list[tuple[int, list[int]]]) -> int | None:
    """The group every optimal pairing takes the bye from (rule 2), None if n is even."""
    if field.n % 2 == 0:
        return None
    _, points = field.best_bye_status()
    return next(g for g, (s, _) in enumerate(groups) if s == points)


def _parities(groups: list[tuple[int, list[int]]], bye_group: int | None) -> list[int]:
    """Parity of the number of paired players above each boundary (g | g+1)."""
    out = []
    above = 0
    for g, (_, members) in enumerate(groups[:-1]):
        above += len(members) - (1 if g == bye_group else 0)
        out.append(above % 2)
    return out


def _segments(groups: list[tuple[int, list[int]]]) -> tuple[int, int]:
    """(top, bottom) as in `_Bound`: as many whole groups from each end as fit in
    `_SEGMENT_CAP` players, leaving at least one middle group."""
    k = len(groups)
    top, size = -1, 0
    while top + 1 < k and size + len(groups[top + 1][1]) <= _SEGMENT_CAP:
        top += 1
        size += len(groups[top][1])
    bottom, size = k, 0
    while bottom - 1 > top + 1 and size + len(groups[bottom - 1][1]) <= _SEGMENT_CAP:
        bottom -= 1
        size += len(groups[bottom][1])
    top = min(top, k - 2)
    return top, bottom


def _segment_best(
    field: _Field,
    members: list[int],
    float_points: int,
    bye_status: tuple[bool, int] | None,
    rng: random.Random | None,
) -> _SegmentPlan:
    """Exact minimum (squared_diff, unequal_pairs) of one end segment, relaxed.

    Every member either meets another member (no rematch) or floats out of the
    segment, to the neighbouring middle group at `float_points` (the cheapest place a
    float can go); `bye_status` says which members may take the bye when the bye group
    lies in the segment.  A maximum-weight perfect matching over the members, one
    float node per member that may float (float nodes pair with each other for free)
    and the bye node.  With `rng` ties between optima are broken at random (as in
    `_refine`), so the plan itself is reproducible; without, only the value is.
    """
    pts, met = field.points, field.met
    m = len(members)
    with_bye = bye_status is not None
    floats = m - int(with_bye)
    unit = m + 2  # one squared point outweighs every possible count of unequal pairs
    raw: list[tuple[int, int, int]] = []
    for a, i in enumerate(members):
        mi = met[i]
        for b in range(a + 1, m):
            j = members[b]
            if j not in mi:
                d = pts[i] - pts[j]
                raw.append((a, b, d * d * unit + int(d != 0)))
        d = pts[i] - float_points
        c = d * d * unit + 1
        raw.extend((a, m + f, c) for f in range(floats))
        if with_bye and (field.had_bye[i], pts[i]) == bye_status:
            raw.append((a, m + floats, 0))
    for f in range(floats):
        raw.extend((m + f, m + g, 0) for g in range(f + 1, floats))
    nodes = m + floats + int(with_bye)
    big = max(c for _, _, c in raw) + 1
    scale = 1 if rng is None else _TIE_BREAK * (nodes + 2)
    graph = rx.PyGraph()
    graph.add_nodes_from(range(nodes))
    graph.add_edges_from(
        [
            (u, v, (big - c) * scale + (0 if rng is None else rng.getrandbits(_TIE_BITS)))
            for u, v, c in raw
        ]
    )
    costs = {(u, v): c for u, v, c in raw}
    matching = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=lambda w: w)
    total = 0
    pairs: list[tuple[int, int]] = []
    floaters: list[int] = []
    bye = None
    # Normalised: the set's order and the orientation of its pairs vary between runs.
    for u, v in sorted((min(e), max(e)) for e in matching):
        total += costs[u, v]
        if v < m:
            pairs.append((members[u], members[v]))
        elif u < m and v == m + floats:
            bye = members[u]
        elif u < m:
            floaters.append(members[u])
    sq, uneq = divmod(total, unit)
    return _SegmentPlan(sq, uneq, pairs, floaters, bye)


def _segment_bound(
    field: _Field,
    groups: list[tuple[int, list[int]]],
    bye_group: int | None,
    rng: random.Random | None = None,
) -> _Bound:
    """A lower bound on (squared_diff, unequal_pairs) over the rematch-free pairings
    that give the bye in `bye_group` (every other pairing is worse on an earlier level).

    Cut every pair's span at the top segment's lower edge (group top+1) and at the
    bottom segment's upper edge (group bottom-1).  A pair costs (sum of its pieces)^2
    >= sum of the pieces' squares (squares are superadditive, pieces are >= 0), and a
    middle piece costs >= the sum of the squared gaps it spans, so

        squared_diff >= A + B + sum over middle boundaries j of c_j * d_j^2

    where A sums, over pairs touching the top segment, the square of their part above
    group top+1: exactly the cost of the relaxed top problem of `_segment_best` (a pair
    leaving the segment pays as if its partner sat in group top+1), so A >= A*; B
    likewise for the bottom; and c_j, the pairs crossing middle boundary j (gap d_j),
    has the parity of the players above it, so c_j >= parity_j.  Equality needs every
    inequality tight: no pair loses to superadditivity (a pair from the top segment
    lands in group top+1, a middle pair spans one boundary, no pair runs from one
    segment to the other), c_j = parity_j and A = A*, B = B*.  The unequal pairs are
    then counted exactly once each: those touching the top segment (>= the fewest
    among the top problem's optima), the bottom's, and one per odd middle boundary.
    """
    k = len(groups)
    if k == 0:
        return _Bound(0, 0, -1, 0)
    top, bottom = _segments(groups)
    par = _parities(groups, bye_group)
    sq = uneq = 0
    for j in range(top + 1, bottom - 1):
        if par[j]:
            d = groups[j][0] - groups[j + 1][0]
            sq += d * d
            uneq += 1
    status = None if bye_group is None else field.best_bye_status()
    plans: list[_SegmentPlan | None] = [None, None]
    if top >= 0:
        members = [i for _, ms in groups[: top + 1] for i in ms]
        in_top = bye_group is not None and bye_group <= top
        plans[0] = _segment_best(
            field, members, groups[top + 1][0], status if in_top else None, rng
        )
    if bottom < k:
        members = [i for _, ms in groups[bottom:] for i in ms]
        in_bottom = bye_group is not None and bye_group >= bottom
        plans[1] = _segment_best(
            field, members, groups[bottom - 1][0], status if in_bottom else None, rng
        )
    for plan in plans:
        if plan is not None:
            sq += plan.sq
            uneq += plan.uneq
    return _Bound(sq, uneq, top, bottom, (plans[0], plans[1]))


# ---------------------------------------------------------------------------
# Step 1: greedy, rematch-free, group by group
# ---------------------------------------------------------------------------


def _greedy(
    field: _Field,
    groups: list[tuple[int, list[int]]],
    bye: int | None,
    rng: random.Random,
    carry: Sequence[int] = (),
    joins: dict[int, list[int]] | None = None,
) -> list[tuple[int, int]] | None:
    """Pair group by group, floating leftovers on; None if it leaves a rematch.

    `groups` may be in either direction (top-down floats down, bottom-up floats up).
    `carry` floats into the first group; `joins[g]` floats into the g-th.
    """
    met = field.met
    pairs: list[tuple[int, int]] = []
    carry = list(carry)
    for g, (_, group) in enumerate(groups):
        if joins and g in joins:
            carry = carry + joins[g]
        members = [m for m in group if m != bye]
        rng.shuffle(members)
        # Floaters first: each takes the first group member it has not met.
        still: list[int] = []
        for f in carry:
            mf = met[f]
            for k, m in enumerate(members):
                if m not in mf:
                    pairs.append((f, members.pop(k)))
                    break
            else:
                still.append(f)
        # Then the group among itself; `waiting` stays pairwise "already met".
        internal: list[tuple[int, int]] = []
        waiting: list[int] = []
        for x in members:
            mx = met[x]
            for k, w in enumerate(waiting):
                if w not in mx:
                    internal.append((waiting.pop(k), x))
                    break
            else:
                waiting.append(x)
        waiting = _repair(met, waiting, internal, rng)
        pairs.extend(internal)
        carry = still + waiting
    if carry:
        # Leftovers at the end of the field: pair them among themselves or by
        # swapping into any existing pair; failing that, give up on this order.
        rest: list[int] = []
        for x in carry:
            for k, w in enumerate(rest):
                if w not in met[x]:
                    pairs.append((rest.pop(k), x))
                    break
            else:
                rest.append(x)
        if _repair(met, rest, pairs, rng, from_end=True):
            return None
    return pairs


def _repair(
    met: list[dict[int, int]],
    waiting: list[int],
    pairs: list[tuple[int, int]],
    rng: random.Random,
    from_end: bool = False,
) -> list[int]:
    """Reduce pairwise-blocked leftovers by 2-swaps with existing pairs (x,y)+(u,v)
    -> (x,u)+(y,v). Returns the leftovers that could not be placed.

    `from_end` tries the latest pairs first: at the end of the field those are the
    nearest groups, so the swap costs little (a random pair could be far away)."""
    waiting = list(waiting)
    progress = True
    while len(waiting) >= 2 and progress and pairs:
        progress = False
        start = rng.randrange(len(pairs))
        for a in range(len(waiting)):
            for b in range(a + 1, len(waiting)):
                x, y = waiting[a], waiting[b]
                mx, my = met[x], met[y]
                for k in range(len(pairs)):
                    idx = len(pairs) - 1 - k if from_end else (start + k) % len(pairs)
                    u, v = pairs[idx]
                    if u not in mx and v not in my:
                        pairs[idx] = (x, u)
                        pairs.append((y, v))
                    elif v not in mx and u not in my:
                        pairs[idx] = (x, v)
                        pairs.append((y, u))
                    else:
                        continue
                    waiting = [w for w in waiting if w != x and w != y]
                    progress = True
                    break
                if progress:
                    break
            if progress:
                break
    return waiting


def _sq_uneq(field: _Field, pairs: list[tuple[int, int]]) -> tuple[int, int]:
    pts = field.points
    sq = uneq = 0
    for i, j in pairs:
        d = pts[i] - pts[j]
        sq += d * d
        uneq += d != 0
    return sq, uneq


def _assemble(
    field: _Field,
    groups: list[tuple[int, list[int]]],
    bound: _Bound,
    bye: int | None,
    rng: random.Random,
) -> tuple[list[tuple[int, int]], int | None] | None:
    """The segments paired as their plans say, the middle by the greedy: the top
    plan's floaters float into the first middle group, the bottom plan's into the
    last, which is where the bound priced them.  A bye group inside a segment takes
    the plan's bye instead of `bye`.  None if the greedy leaves a rematch."""
    top_plan, bottom_plan = bound.plans
    pairs: list[tuple[int, int]] = []
    carry: list[int] = []
    joins: dict[int, list[int]] = {}
    middle = groups[bound.top + 1 : bound.bottom]
    for plan in bound.plans:
        if plan is not None:
            pairs.extend(plan.pairs)
            if plan.bye is not None:
                bye = plan.bye
    if top_plan is not None:
        carry = top_plan.floaters
    if bottom_plan is not None and bottom_plan.floaters:
        joins[len(middle) - 1] = bottom_plan.floaters
    rest = _greedy(field, middle, bye, rng, carry, joins)
    if rest is None:
        return None
    return pairs + rest, bye


# ---------------------------------------------------------------------------
# Step 2: exact refinement on pools (see module docstring and the proof below)
# ---------------------------------------------------------------------------


def _defects(
    groups: list[tuple[int, list[int]]],
    pairs: list[tuple[int, int]],
    bound: _Bound,
    group_of: dict[int, int],
    par: list[int],
    loss: Callable[[int, int], int],
) -> set[int]:
    """The groups where `pairs` exceeds a term of the bound, with a group either side:
    a segment off its plan's cost, a middle boundary crossed more often than its
    parity needs, a pair losing to superadditivity."""
    k = len(groups)
    top, bottom = bound.top, bound.bottom
    bad: set[int] = set()
    crossing = [0] * max(k - 1, 0)
    seg_cost = [[0, 0], [0, 0]]
    for i, j in pairs:
        a, b = sorted((group_of[i], group_of[j]))
        for j_ in range(a, b):
            crossing[j_] += 1
        if loss(a, b):
            bad.update(range(a, b + 1))
        # Each segment's share, priced as in its relaxed problem.
        if a <= top:
            d = groups[a][0] - groups[min(b, top + 1)][0]
            seg_cost[0][0] += d * d
            seg_cost[0][1] += d != 0
        if b >= bottom:
            d = groups[max(a, bottom - 1)][0] - groups[b][0]
            seg_cost[1][0] += d * d
            seg_cost[1][1] += d != 0
    for j in range(top + 1, bottom - 1):
        if crossing[j] != par[j]:
            bad.update((j, j + 1))
    top_plan, bottom_plan = bound.plans
    if top_plan is not None and tuple(seg_cost[0]) != (top_plan.sq, top_plan.uneq):
        bad.update(range(top + 2))
    if bottom_plan is not None and tuple(seg_cost[1]) != (bottom_plan.sq, bottom_plan.uneq):
        bad.update(range(bottom - 1, k))
    return {g for b in bad for g in (b - 1, b, b + 1) if 0 <= g < k}


def _refine(
    field: _Field,
    groups: list[tuple[int, list[int]]],
    pairs: list[tuple[int, int]],
    bye: int | None,
    bound: _Bound,
    rng: random.Random,
    certify: bool = True,
) -> tuple[list[tuple[int, int]], int | None]:
    """Turn a rematch-free, bye-optimal pairing into an optimal one.

    With `certify=False` the pools and edges are sized as if the slack were 0 (plus the
    greedy's own edges, so the old pairing stays feasible): a cheap improvement whose
    only job is to shrink the slack, and so the pools, of the certified pass.

    Proof sketch.  Let S be the pairing's squared_diff and LB = bound.sq, the bound of
    `_segment_bound` for the bye group g_b, which every optimum shares (the pairing's
    bye is already the best possible and rematches are 0 on both sides).  Any optimum
    M* has squared_diff <= S, and in the decomposition of `_segment_bound` every term
    exceeds its minimum by at most S - LB =: slack.  So for a middle boundary j,
    (c_j - parity_j) d_j^2 <= slack with c_j = parity_j mod 2, hence c_j <= cmax_j =
    parity_j + 2*floor(slack / (2 d_j^2)); a boundary of a segment is crossed at most
    once per player of that segment; and a pair whose superadditivity loss (its cost
    minus the squares of its pieces and of the middle gaps it spans) exceeds the slack
    never occurs, which prunes long edges.  Group g has at most e_g = cmax_{g-1} +
    cmax_g (+1 if it holds the bye) players matched outside it.

    Let r be the most distinct active opponents any player has.  The segments' groups
    are pooled whole; each middle group g with e_g > 0 keeps a pool P_g: the pairing's
    outside-matched players (and bye) plus whole internal pairs until
    |P_g| >= e_g + 2r + 2 (or all of g); the rest, the core, stays paired as it is
    (cost 0: same points, no rematch).

    Rewrite M*: for each outside pair (u, v) of M* assign stand-ins from the pools of
    their groups (a group kept whole keeps its player).  A stand-in for v only has to
    avoid <= r previous opponents of u's stand-in, and at least |P_h| - e_h + 1 > r
    pool players are still free, so stand-ins always exist; the bye goes first to the
    pairing's bye recipient.  The |P_g| - e_g >= 2r + 2 pool players left over in a
    group have minimum non-rematch degree >= half their number, so (Dirac) they
    have a rematch-free perfect matching.  The result has the same group-level
    structure as M* (so the same squared_diff, unequal pairs and bye) and no rematch,
    and is a matching of the pools plus the core.  Hence the optimal pool matching
    plus the core is optimal for the whole field.
    """
    current, unequal = _sq_uneq(field, pairs)
    if (current, unequal) == (bound.sq, bound.uneq):
        return pairs, bye  # meets the lower bound: optimal as it stands
    pts = field.points
    group_of = {}
    for g, (_, members) in enumerate(groups):
        for m in members:
            group_of[m] = g
    k = len(groups)
    s = [score for score, _ in groups]
    top, bottom = bound.top, bound.bottom
    bye_group = None if bye is None else group_of[bye]
    # With squared_diff at the bound (slack 0) the unequal pairs may still exceed it:
    # a segment can reach its squared minimum with more floats than it needs.
    slack = current - bound.sq
    plan = slack if certify else 0
    par = _parities(groups, bye_group)
    cmax = []
    for j, p in enumerate(par):
        if j <= top or j >= bottom - 1:
            # A boundary of (or inside) a segment: every segment player may cross it.
            inside = range(top + 1) if j <= top else range(bottom, k)
            cmax.append(sum(len(groups[g][1]) for g in inside) - int(bye_group in inside))
        else:
            d2 = (s[j] - s[j + 1]) ** 2
            cmax.append(p + 2 * (plan // (2 * d2)))
    r = max((len(m) for m in field.met), default=0)

    gap2 = [0] * k  # gap2[g] = sum of squared gaps from group 0 down to group g
    for j in range(1, k):
        gap2[j] = gap2[j - 1] + (s[j - 1] - s[j]) ** 2

    def loss(a: int, b: int) -> int:
        """Superadditivity loss of a pair between groups a <= b (0 inside a segment)."""
        if b <= top or a >= bottom:
            return 0
        lo, hi = max(a, top + 1), min(b, bottom - 1)
        x, y = s[a] - s[lo], s[hi] - s[b]
        return (s[a] - s[b]) ** 2 - x * x - y * y - (gap2[hi] - gap2[lo])

    window = None if certify else _defects(groups, pairs, bound, group_of, par, loss)

    outside: list[list[int]] = [[] for _ in range(k)]
    internal: list[list[tuple[int, int]]] = [[] for _ in range(k)]
    core: list[tuple[int, int]] = []
    for i, j in pairs:
        gi, gj = group_of[i], group_of[j]
        if gi == gj:
            internal[gi].append((i, j))
        elif window is None or gi in window or gj in window:
            outside[gi].append(i)
            outside[gj].append(j)
        else:
            core.append((i, j))
    pool_bye = bye is not None and (window is None or bye_group in window)
    if pool_bye and bye_group is not None:
        outside[bye_group].append(bye)

    pool: list[int] = []
    for g in range(k):
        if window is not None and g not in window:
            pool.extend(outside[g])  # partners of window players
            core.extend(internal[g])
            continue
        if g <= top or g >= bottom:
            pool.extend(outside[g])
            pool.extend(x for pair in internal[g] for x in pair)
            continue
        e = (cmax[g - 1] if g > 0 else 0) + (cmax[g] if g < k - 1 else 0)
        e += int(g == bye_group)
        # Certified, the pairing's own outside players never exceed e (it is a pairing
        # within the slack too); uncertified they may, and must all be pooled.
        e = max(e, len(outside[g]))
        if e == 0:
            core.extend(internal[g])
            continue
        need = e + 2 * r + 2
        members = list(outside[g])
        rng.shuffle(internal[g])
        for a, b in internal[g]:
            if len(members) >= need:
                core.append((a, b))
            else:
                members.extend((a, b))
        pool.extend(members)

    # Exact matching on the pools: only non-rematch edges whose loss fits in the
    # slack, weights encoding (squared_diff, unequal).
    rng.shuffle(pool)
    by_group: dict[int, list[int]] = {}
    for p in pool:
        by_group.setdefault(group_of[p], []).append(p)
    n_pairs = len(pool) // 2 + 1
    pos = {p: t for t, p in enumerate(pool)}
    raw: list[tuple[int, int, int]] = []
    for a in sorted(by_group):
        for b in range(a, k):
            if loss(a, b) > plan:
                break  # the loss only grows with the span
            if b not in by_group:
                continue
            diff = s[a] - s[b]
            c = diff * diff * (n_pairs + 1) + int(diff != 0)
            ga, gb = by_group[a], by_group[b]
            for x_i, x in enumerate(ga):
                mx = field.met[x]
                for y in ga[x_i + 1 :] if a == b else gb:
                    if y not in mx:
                        raw.append((pos[x], pos[y], c))
    if not certify:
        # Keep the pairing's long pairs available so a perfect matching still exists.
        for i, j in pairs:
            diff = pts[i] - pts[j]
            if i in pos and loss(*sorted((group_of[i], group_of[j]))) > plan:
                raw.append((pos[i], pos[j], diff * diff * (n_pairs + 1) + 1))
    big = max((c for _, _, c in raw), default=0) + 1
    scale = _TIE_BREAK * (len(pool) + 2)
    edges = [(u, v, (big - c) * scale + rng.getrandbits(_TIE_BITS)) for u, v, c in raw]
    graph = rx.PyGraph()
    graph.add_nodes_from(pool)
    if pool_bye and bye_group is not None:
        dummy = graph.add_node(-1)
        for p in by_group[bye_group]:
            if field.had_bye[p] == field.had_bye[bye]:
                edges.append((pos[p], dummy, big * scale + rng.getrandbits(_TIE_BITS)))
    graph.add_edges_from(edges)
    matching = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=lambda w: w)
    new_pairs: list[tuple[int, int]] = []
    new_bye = None if pool_bye else bye
    # Normalised: the set's order and the orientation of its pairs vary between runs.
    for u, v in sorted((min(e), max(e)) for e in matching):
        a, b = graph[u], graph[v]
        if a == -1:
            new_bye = b
        elif b == -1:
            new_bye = a
        else:
            new_pairs.append((a, b))
    if 2 * len(new_pairs) + (pool_bye and new_bye is not None) != len(pool):
        # Cannot happen: the greedy's own pool pairs are a perfect matching here.
        raise AssertionError("pool matching is not perfect")
    return core + new_pairs, new_bye


# ---------------------------------------------------------------------------
# Exact solver over the whole field (fallback and test oracle)
# ---------------------------------------------------------------------------


def _solve_exact(field: _Field, rng: random.Random) -> tuple[list[tuple[int, int]], int | None]:
    """Maximum-weight perfect matching with weights encoding the lexicographic cost.

    O(n^3): meant for small fields, for fields the greedy cannot pair without a
    rematch, and as the oracle in tests.
    """
    n = field.n
    pts = field.points
    pmin, pmax = min(pts), max(pts)
    span = pmax - pmin
    n_pairs = n // 2 + 1
    max_met = max((c for m in field.met for c in m.values()), default=0)
    # Units chosen so that each level outweighs every possible total of the levels
    # below it (unequal <= n_pairs, squared_diff <= n_pairs * span^2, ...).
    w_sq = n_pairs + 1
    w_bye_pts = w_sq * (n_pairs * span * span + 1) + w_sq
    w_bye_rep = w_bye_pts * (span + 1)
    w_rem = 2 * w_bye_rep + w_bye_pts * (span + 1)
    top = w_rem * (max_met + 1) + w_sq * span * span + 2
    apart = field.apart
    w_apart = 0
    if apart is not None:
        # One forbidden pair outweighs everything below it in a whole matching: every
        # pair's rematches, squares and unequal count, and the bye.
        w_apart = n_pairs * (w_rem * max_met + w_sq * span * span + 1) + w_rem + 1
        top += w_apart

    order = list(range(n))
    rng.shuffle(order)
    scale = _TIE_BREAK * (n + 2)
    graph = rx.PyGraph()
    graph.add_nodes_from(order)
    edges = []
    for a in range(n):
        i = order[a]
        for b in range(a + 1, n):
            j = order[b]
            rem, sq, uneq = field.pair_cost(i, j)
            c = rem * w_rem + sq * w_sq + uneq
            if apart is not None and j in apart[i]:
                c += w_apart
            edges.append((a, b, (top - c) * scale + rng.getrandbits(_TIE_BITS)))
    if n % 2:
        dummy = graph.add_node(-1)
        for a in range(n):
            i = order[a]
            c = int(field.had_bye[i]) * w_bye_rep + (pts[i] - pmin) * w_bye_pts
            edges.append((a, dummy, (top - c) * scale + rng.getrandbits(_TIE_BITS)))
    graph.add_edges_from(edges)
    matching = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=lambda w: w)
    pairs: list[tuple[int, int]] = []
    bye = None
    # Normalised: the set's order and the orientation of its pairs vary between runs.
    for u, v in sorted((min(e), max(e)) for e in matching):
        a, b = graph[u], graph[v]
        if a == -1:
            bye = b
        elif b == -1:
            bye = a
        else:
            pairs.append((a, b))
    return pairs, bye


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------


def pair_swiss_exact(
    players: Sequence[SwissPlayer], rng: random.Random, forbidden: Forbidden = ()
) -> Pairing:
    """Optimal pairing by one general matching over the whole field (O(n^3)); with
    `forbidden`, optimal for `RestrictedCost`."""
    field = _Field(players, forbidden)
    if field.n == 0:
        return Pairing((), None)
    pairs, bye = _solve_exact(field, rng)
    return field.to_pairing(pairs, bye, rng)


def pair_swiss(
    players: Sequence[SwissPlayer], rng: random.Random, forbidden: Forbidden = ()
) -> Pairing:
    """Pair one Swiss round optimally for `PairingCost` (see module docstring); with
    `forbidden` (pairs of ids), optimally for `RestrictedCost`: no forbidden pair
    meets unless every pairing of the field pairs one, and then as few as possible.

    Round 1 (no one has met anyone, everyone on the same points) needs no special
    case: one group with no constraints gives a uniformly shuffled pairing and a
    random bye.
    """
    field = _Field(players, forbidden)
    n = field.n
    if n == 0:
        return Pairing((), None)
    groups = _groups(field)
    bye = None
    if n % 2:
        had, points = field.best_bye_status()
        candidates = [i for i in range(n) if field.points[i] == points and field.had_bye[i] == had]
        bye = rng.choice(candidates)
    bound = _segment_bound(field, groups, _bye_group(field, groups), rng)

    # First the bound's own segment plans, joined by a greedy middle: nearly always
    # optimal as it stands.  Failing that (a rematch left over), the greedy top-down
    # (floating down), then bottom-up (floating up).
    assembled = _assemble(field, groups, bound, bye, rng)
    if assembled is not None:
        pairs, bye = assembled
    else:
        greedy = _greedy(field, groups, bye, rng)
        if greedy is None:
            greedy = _greedy(field, groups[::-1], bye, rng)
        if greedy is None:
            exact_pairs, exact_bye = _solve_exact(field, rng)
            return field.to_pairing(exact_pairs, exact_bye, rng)
        pairs = greedy
    if _sq_uneq(field, pairs) != bound[:2]:
        # A local pass around the misses first; what it cannot fix, it at least
        # shrinks: the slack, and so the pools, of the certified pass.
        pairs, bye = _refine(field, groups, pairs, bye, bound, rng, certify=False)
        pairs, bye = _refine(field, groups, pairs, bye, bound, rng)
    return field.to_pairing(pairs, bye, rng)
