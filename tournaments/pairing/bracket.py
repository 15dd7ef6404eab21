"""Single-elimination top cut after the Swiss rounds (top 8, 4 or 2).

Matches are listed in bracket order, so the winners of matches 2k and 2k+1 meet next:
top 8 is 1-8, 4-5, 2-7, 3-6 (1 and 2 can only meet in the final), top 4 is 1-4, 2-3.
Seeds are Swiss standings (1 = best); the better seed of a match is `high`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from tournaments.rules import TOP_CUT_SIZES, suggested_swiss_rounds

__all__ = [
    "BRACKET_SEEDS",
    "BracketMatch",
    "SeedChange",
    "bracket_of",
    "final_placings",
    "next_round",
    "seed_changes",
    "seed_top_cut",
    "suggested_swiss_rounds",
]

# Seed pairs per cut size (rules.TOP_CUT_SIZES), in bracket order.
BRACKET_SEEDS: dict[int, tuple[tuple[int, int], ...]] = {
    8: ((1, 8), (4, 5), (2, 7), (3, 6)),
    4: ((1, 4), (2, 3)),
    2: ((1, 2),),
}
assert set(BRACKET_SEEDS) == set(TOP_CUT_SIZES)


@dataclass(frozen=True, slots=True)
class BracketMatch:
    high: str  # the better Swiss seed
    low: str
    high_seed: int
    low_seed: int
    winner: str | None = None

    def with_winner(self, winner: str) -> BracketMatch:
        if winner not in (self.high, self.low):
            raise ValueError(f"{winner!r} is not in this match")
        return replace(self, winner=winner)

    @property
    def loser(self) -> str | None:
        if self.winner is None:
            return None
        return self.low if self.winner == self.high else self.high

    def seed_of(self, player: str) -> int:
        return self.high_seed if player == self.high else self.low_seed


def seed_top_cut(ranked_ids: Sequence[str], size: int) -> tuple[BracketMatch, ...]:
    """First playoff round for the top `size` (8, 4 or 2) of the Swiss standings."""
    if size not in BRACKET_SEEDS:
        raise ValueError(f"top cut size must be 8, 4 or 2, not {size}")
    if len(ranked_ids) < size:
        raise ValueError(f"a top {size} needs {size} players, got {len(ranked_ids)}")
    if len(set(ranked_ids[:size])) != size:
        raise ValueError("duplicate player ids in the standings")
    return tuple(
        BracketMatch(ranked_ids[a - 1], ranked_ids[b - 1], a, b) for a, b in BRACKET_SEEDS[size]
    )


def bracket_of(
    size: int, rounds: Sequence[Sequence[tuple[str, str, str | None]]]
) -> tuple[tuple[BracketMatch, ...], ...]:
    """The bracket as played so far, from each round's matches in bracket order as
    (first seat, second seat, winner or None).

    Seeds come from the first round (BRACKET_SEEDS): a player keeps their seed all the way.
    """
    if size not in BRACKET_SEEDS:
        raise ValueError(f"top cut size must be 8, 4 or 2, not {size}")
    if not rounds or len(rounds[0]) != len(BRACKET_SEEDS[size]):
        raise ValueError(f"the first playoff round of a top {size} has {size // 2} matches")
    seeds: dict[str, int] = {}
    for (high, low, _winner), (hs, ls) in zip(rounds[0], BRACKET_SEEDS[size], strict=True):
        seeds[high], seeds[low] = hs, ls
    out = []
    for matches in rounds:
        played = []
        for high, low, winner in matches:
            if high not in seeds or low not in seeds:
                raise ValueError("a later playoff round holds a player the first did not")
            match = BracketMatch(high, low, seeds[high], seeds[low])
            played.append(match.with_winner(winner) if winner is not None else match)
        out.append(tuple(played))
    return tuple(out)


def next_round(matches: Sequence[BracketMatch]) -> tuple[BracketMatch, ...]:
    """Pair the winners of adjacent matches (0 with 1, 2 with 3, ...)."""
    if len(matches) < 2 or len(matches) % 2:
        raise ValueError("next_round needs an even number (>= 2) of matches; the final has none")
    out = []
    for first, second in zip(matches[0::2], matches[1::2], strict=True):
        if first.winner is None or second.winner is None:
            raise ValueError("every match needs a winner before the next round")
        a = (first.seed_of(first.winner), first.winner)
        b = (second.seed_of(second.winner), second.winner)
        (hs, h), (ls, lo) = sorted((a, b))
        out.append(BracketMatch(h, lo, hs, ls))
    return tuple(out)


def final_placings(rounds: Sequence[Sequence[BracketMatch]]) -> tuple[str, ...]:
    """Placings 1..size from a finished bracket (rounds in order, ending in the final).

    Winner 1st, finalist 2nd, semifinal losers 3-4, quarterfinal losers 5-8; players
    eliminated in the same round are ordered by Swiss seed.
    """
    if not rounds or len(rounds[-1]) != 1:
        raise ValueError("the last round must be the final (one match)")
    final = rounds[-1][0]
    if final.winner is None:
        raise ValueError("the final has no winner yet")
    placings = [final.winner, final.low if final.winner == final.high else final.high]
    for rnd in reversed(rounds[:-1]):
        losers = []
        for match in rnd:
            loser = match.loser
            if loser is None:
                raise ValueError("every match needs a winner")
            losers.append((match.seed_of(loser), loser))
        placings.extend(pid for _, pid in sorted(losers))
    return tuple(placings)


@dataclass(frozen=True, slots=True)
class SeedChange:
    """One player whose place in the cut a re-seed from the current standings would change.

    `seed`: the seed they hold in the bracket (None: not in the cut); `place`: their place
    in the current standings (None: no longer ranked, e.g. dropped); `new_seed`: the seed a
    re-seed would give them (None: out of the cut).
    """

    player: str
    seed: int | None
    place: int | None
    new_seed: int | None

    @property
    def kind(self) -> str:
        """One of "out" (loses their seat), "in" (enters the cut), "moved" (another seed)."""
        if self.new_seed is None:
            return "out"
        return "in" if self.seed is None else "moved"


def seed_changes(seeds: Mapping[int, str], order: Sequence[str]) -> tuple[SeedChange, ...]:
    """Which seeds a re-seed from `order` (current standings, best first) would change.

    `seeds` is the bracket as seeded (seed -> player, seeds 1..size). Seeded players come
    first in seed order, then the players who would enter, in their new seed order; an
    empty answer means the bracket still matches the standings.
    """
    size = len(seeds)
    if sorted(seeds) != list(range(1, size + 1)):
        raise ValueError("seeds must be numbered 1..size")
    if len(set(seeds.values())) != size:
        raise ValueError("a player holds two seeds")
    if len(set(order)) != len(order):
        raise ValueError("duplicate player ids in the standings")
    place = {player: k for k, player in enumerate(order, start=1)}
    new_seed = {player: k for k, player in enumerate(order[:size], start=1)}
    seeded = {player: seed for seed, player in seeds.items()}
    out = [
        SeedChange(player, seed, place.get(player), new_seed.get(player))
        for seed, player in sorted(seeds.items())
        if new_seed.get(player) != seed
    ]
    out.extend(
        SeedChange(player, None, k, k) for player, k in new_seed.items() if player not in seeded
    )
    return tuple(out)
