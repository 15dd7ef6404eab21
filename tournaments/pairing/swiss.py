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

How it stays exact and fast (the full argument is in the docstring of `_refine`):

* A cheap greedy builds a rematch-free pairing top-down by match-point group
  (pair inside a group, float leftovers one group down).
* `lower_bound` is a provable lexicographic lower bound: a pair spanning several
  groups costs at least the sum of the squares of the gaps it spans (squares are
  superadditive) and a boundary with an odd number of players above it is crossed
  at least once.  If the greedy meets it, it is optimal and we are done.
* Otherwise the slack bounds how many pairs can cross each boundary in any optimal
  pairing; every group keeps a "pool" big enough that any optimal pairing can be
  rewritten, by swapping interchangeable same-point players, into one that matches
  the rest of the group among itself.  An exact maximum-weight matching
  (rustworkx) on the pools alone then gives the global optimum.
* Anything the greedy cannot pair without a rematch goes to the exact matching over
  the whole field, which is also the oracle the tests use.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import rustworkx as rx

__all__ = [
    "Pairing",
    "PairingCost",
    "SwissPlayer",
    "cost",
    "lower_bound",
    "pair_swiss",
    "pair_swiss_exact",
]


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


# Ties between optimal matchings are broken by a random perturbation below the lowest
# cost level: each weight is scaled by _TIE_BREAK * (nodes + 2) and gets a random
# 0.._TIE_BREAK-1, so the perturbations of a whole matching never add up to one unit of
# cost.  This makes the optimum (almost surely) unique, hence reproducible from the
# caller's rng: rustworkx itself breaks ties by internal hash order, which varies
# between runs.  Weights stay far below rustworkx's 128-bit limit.
_TIE_BREAK = 1 << 24


# ---------------------------------------------------------------------------
# Internal indexed view of the field
# ---------------------------------------------------------------------------


class _Field:
    """Players by index 0..n-1 with the data the solvers need."""

    __slots__ = ("had_bye", "ids", "met", "n", "points")

    def __init__(self, players: Sequence[SwissPlayer]) -> None:
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
    field = _Field(players)
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
    return field.cost(pairs, None if pairing.bye is None else index[pairing.bye])


def lower_bound(players: Sequence[SwissPlayer]) -> PairingCost:
    """A lexicographic lower bound on `cost` over all pairings of `players`.

    Any pairing's cost is >= this; `pair_swiss` reaches it whenever the field allows a
    rematch-free pairing with one floater per odd boundary, i.e. nearly always.
    """
    field = _Field(players)
    if field.n == 0:
        return PairingCost(0, 0, 0, 0, 0)
    groups = _groups(field)
    bye_group = None
    repeat = points = 0
    if field.n % 2:
        had, points = field.best_bye_status()
        repeat = int(had)
        bye_group = next(g for g, (s, _) in enumerate(groups) if s == points)
    sq, uneq = _boundary_bound(groups, bye_group)
    return PairingCost(0, repeat, points, sq, uneq)


# ---------------------------------------------------------------------------
# Structure: match-point groups and the boundary lower bound
# ---------------------------------------------------------------------------


def _groups(field: _Field) -> list[tuple[int, list[int]]]:
    """(points, member indices) per match-point group, highest points first."""
    by_points: dict[int, list[int]] = {}
    for i, p in enumerate(field.points):
        by_points.setdefault(p, []).append(i)
    return [(s, by_points[s]) for s in sorted(by_points, reverse=True)]


def _parities(groups: list[tuple[int, list[int]]], bye_group: int | None) -> list[int]:
    """Parity of the number of paired players above each boundary (g | g+1)."""
    out = []
    above = 0
    for g, (_, members) in enumerate(groups[:-1]):
        above += len(members) - (1 if g == bye_group else 0)
        out.append(above % 2)
    return out


def _boundary_bound(groups: list[tuple[int, list[int]]], bye_group: int | None) -> tuple[int, int]:
    """Minimum (squared_diff, unequal_pairs) for a given bye group.

    With c_j pairs crossing boundary j (gap d_j), a pair spanning boundaries J costs
    (sum_J d_j)^2 >= sum_J d_j^2, so squared_diff >= sum_j c_j d_j^2, and c_j has the
    parity of the players above j, so c_j >= that parity.  Equality needs every
    crossing pair to span exactly one boundary, hence exactly sum_j parity_j unequal
    pairs.
    """
    par = _parities(groups, bye_group)
    sq = uneq = 0
    for j, p in enumerate(par):
        if p:
            d = groups[j][0] - groups[j + 1][0]
            sq += d * d
            uneq += 1
    return sq, uneq


# ---------------------------------------------------------------------------
# Step 1: greedy, rematch-free, group by group
# ---------------------------------------------------------------------------


def _greedy(
    field: _Field,
    groups: list[tuple[int, list[int]]],
    bye: int | None,
    rng: random.Random,
) -> list[tuple[int, int]] | None:
    """Pair group by group, floating leftovers on; None if it leaves a rematch.

    `groups` may be in either direction (top-down floats down, bottom-up floats up).
    """
    met = field.met
    pairs: list[tuple[int, int]] = []
    carry: list[int] = []
    for _, group in groups:
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


# ---------------------------------------------------------------------------
# Step 2: exact refinement on pools (see module docstring and the proof below)
# ---------------------------------------------------------------------------


def _refine(
    field: _Field,
    groups: list[tuple[int, list[int]]],
    pairs: list[tuple[int, int]],
    bye: int | None,
    rng: random.Random,
    certify: bool = True,
) -> tuple[list[tuple[int, int]], int | None]:
    """Turn a rematch-free, bye-optimal pairing into an optimal one.

    With `certify=False` the pools and edges are sized as if the slack were 0 (plus the
    greedy's own edges, so the old pairing stays feasible): a cheap improvement whose
    only job is to shrink the slack, and so the pools, of the certified pass.

    Proof sketch.  Let S be the greedy's squared_diff and LB the boundary bound (for
    the bye group g_b, which every optimum shares: the greedy's bye is already the best
    possible and rematches are 0 on both sides).  Any optimum M* has squared_diff <= S
    and, by the boundary bound, sum_j (c_j - parity_j) d_j^2 <= S - LB =: slack, with
    c_j = parity_j mod 2, so c_j <= cmax_j = parity_j + 2*floor(slack / (2 d_j^2)).
    Also a pair spanning groups a..b has (s_a-s_b)^2 - sum d_j^2 <= slack, which prunes
    long edges.  Group g has at most e_g = cmax_{g-1} + cmax_g (+1 if it holds the
    bye) players matched outside it.

    Let r be the most distinct active opponents any player has.  Each group g with
    e_g > 0 keeps a pool P_g: the greedy's outside-matched players (and bye) plus whole
    greedy-internal pairs until |P_g| >= e_g + 2r + 2 (or all of g); the rest, the
    core, stays paired as the greedy did (cost 0: same points, no rematch).

    Rewrite M*: for each outside pair (u, v) of M* assign stand-ins from the pools of
    their groups (a group kept whole keeps its player).  A stand-in for v only has to
    avoid <= r previous opponents of u's stand-in, and at least |P_h| - e_h + 1 > r
    pool players are still free, so stand-ins always exist; the bye goes first to the
    greedy's bye recipient.  The |P_g| - e_g >= 2r + 2 pool players left over in a
    group have minimum non-rematch degree >= half their number, so (Dirac) they
    have a rematch-free perfect matching.  The result has the same group-level
    structure as M* (so the same squared_diff, unequal pairs and bye) and no rematch,
    and is a matching of the pools plus the greedy core.  Hence the optimal pool
    matching plus the core is optimal for the whole field.
    """
    pts = field.points
    group_of = {}
    for g, (_, members) in enumerate(groups):
        for m in members:
            group_of[m] = g
    k = len(groups)
    s = [score for score, _ in groups]
    bye_group = None if bye is None else group_of[bye]
    lb_sq, _ = _boundary_bound(groups, bye_group)
    greedy_sq = sum((pts[i] - pts[j]) ** 2 for i, j in pairs)
    slack = greedy_sq - lb_sq
    if slack == 0:
        return pairs, bye  # meets the lower bound: optimal as it stands
    plan = slack if certify else 0
    par = _parities(groups, bye_group)
    cmax = []
    for j, p in enumerate(par):
        d2 = (s[j] - s[j + 1]) ** 2
        cmax.append(p + 2 * (plan // (2 * d2)))
    r = max((len(m) for m in field.met), default=0)

    outside: list[list[int]] = [[] for _ in range(k)]
    internal: list[list[tuple[int, int]]] = [[] for _ in range(k)]
    for i, j in pairs:
        gi, gj = group_of[i], group_of[j]
        if gi == gj:
            internal[gi].append((i, j))
        else:
            outside[gi].append(i)
            outside[gj].append(j)
    if bye is not None and bye_group is not None:
        outside[bye_group].append(bye)

    pool: list[int] = []
    core: list[tuple[int, int]] = []
    for g in range(k):
        e = (cmax[g - 1] if g > 0 else 0) + (cmax[g] if g < k - 1 else 0)
        e += int(g == bye_group)
        # Certified, the greedy's own outside players never exceed e (it is a pairing
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

    # Exact matching on the pools: only non-rematch edges whose "extra" cost over the
    # boundary bound fits in the slack, weights encoding (squared_diff, unequal).
    rng.shuffle(pool)
    by_group: dict[int, list[int]] = {}
    for p in pool:
        by_group.setdefault(group_of[p], []).append(p)
    gap2 = [0] * k  # gap2[g] = sum of squared gaps from group 0 down to group g
    for j in range(1, k):
        gap2[j] = gap2[j - 1] + (s[j - 1] - s[j]) ** 2
    n_pairs = len(pool) // 2 + 1
    pos = {p: t for t, p in enumerate(pool)}
    raw: list[tuple[int, int, int]] = []
    for a in sorted(by_group):
        for b in range(a, k):
            diff = s[a] - s[b]
            if diff * diff - (gap2[b] - gap2[a]) > plan:
                break  # the extra cost only grows with the span
            if b not in by_group:
                continue
            c = diff * diff * (n_pairs + 1) + int(diff != 0)
            ga, gb = by_group[a], by_group[b]
            for x_i, x in enumerate(ga):
                mx = field.met[x]
                for y in ga[x_i + 1 :] if a == b else gb:
                    if y not in mx:
                        raw.append((pos[x], pos[y], c))
    if not certify:
        # Keep the greedy's long pairs available so a perfect matching still exists.
        for i, j in pairs:
            diff = pts[i] - pts[j]
            gi, gj = sorted((group_of[i], group_of[j]))
            if diff * diff - (gap2[gj] - gap2[gi]) > plan:
                raw.append((pos[i], pos[j], diff * diff * (n_pairs + 1) + 1))
    big = max((c for _, _, c in raw), default=0) + 1
    scale = _TIE_BREAK * (len(pool) + 2)
    edges = [(u, v, (big - c) * scale + rng.randrange(_TIE_BREAK)) for u, v, c in raw]
    graph = rx.PyGraph()
    graph.add_nodes_from(pool)
    if bye is not None and bye_group is not None:
        dummy = graph.add_node(-1)
        for p in by_group[bye_group]:
            if field.had_bye[p] == field.had_bye[bye]:
                edges.append((pos[p], dummy, big * scale + rng.randrange(_TIE_BREAK)))
    graph.add_edges_from(edges)
    matching = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=lambda w: w)
    new_pairs: list[tuple[int, int]] = []
    new_bye = None
    # Normalised: the set's order and the orientation of its pairs vary between runs.
    for u, v in sorted((min(e), max(e)) for e in matching):
        a, b = graph[u], graph[v]
        if a == -1:
            new_bye = b
        elif b == -1:
            new_bye = a
        else:
            new_pairs.append((a, b))
    if 2 * len(new_pairs) + (new_bye is not None) != len(pool):
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
            edges.append((a, b, (top - c) * scale + rng.randrange(_TIE_BREAK)))
    if n % 2:
        dummy = graph.add_node(-1)
        for a in range(n):
            i = order[a]
            c = int(field.had_bye[i]) * w_bye_rep + (pts[i] - pmin) * w_bye_pts
            edges.append((a, dummy, (top - c) * scale + rng.randrange(_TIE_BREAK)))
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


def pair_swiss_exact(players: Sequence[SwissPlayer], rng: random.Random) -> Pairing:
    """Optimal pairing by one general matching over the whole field (O(n^3))."""
    field = _Field(players)
    if field.n == 0:
        return Pairing((), None)
    pairs, bye = _solve_exact(field, rng)
    return field.to_pairing(pairs, bye, rng)


def pair_swiss(players: Sequence[SwissPlayer], rng: random.Random) -> Pairing:
    """Pair one Swiss round optimally for `PairingCost` (see module docstring).

    Round 1 (no one has met anyone, everyone on the same points) needs no special
    case: one group with no constraints gives a uniformly shuffled pairing and a
    random bye.
    """
    field = _Field(players)
    n = field.n
    if n == 0:
        return Pairing((), None)
    groups = _groups(field)
    bye = None
    if n % 2:
        had, points = field.best_bye_status()
        candidates = [i for i in range(n) if field.points[i] == points and field.had_bye[i] == had]
        bye = rng.choice(candidates)

    # Greedy top-down (floating down), then bottom-up (floating up) as a second try.
    pairs = _greedy(field, groups, bye, rng)
    if pairs is None:
        pairs = _greedy(field, groups[::-1], bye, rng)
    if pairs is None:
        exact_pairs, exact_bye = _solve_exact(field, rng)
        return field.to_pairing(exact_pairs, exact_bye, rng)
    # A cheap pass first shrinks the slack (and so the pools) of the certified pass.
    pairs, bye = _refine(field, groups, pairs, bye, rng, certify=False)
    pairs, bye = _refine(field, groups, pairs, bye, rng)
    return field.to_pairing(pairs, bye, rng)
