"""Single-elimination top cut after the Swiss rounds (top 8, 4 or 2).

Matches are listed in bracket order, so the winners of matches 2k and 2k+1 meet next:
top 8 is 1-8, 4-5, 2-7, 3-6 (1 and 2 can only meet in the final), top 4 is 1-4, 2-3.
Seeds are Swiss standings (1 = best); the better seed of a match is `high`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

__all__ = [
    "BRACKET_SEEDS",
    "BracketMatch",
    "final_placings",
    "next_round",
    "seed_top_cut",
    "suggested_swiss_rounds",
]

# Seed pairs per cut size, in bracket order.
BRACKET_SEEDS: dict[int, tuple[tuple[int, int], ...]] = {
    8: ((1, 8), (4, 5), (2, 7), (3, 6)),
    4: ((1, 4), (2, 3)),
    2: ((1, 2),),
}


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


def suggested_swiss_rounds(player_count: int) -> int:
    """Swiss rounds for a field of `player_count` (Magic Tournament Rules, Appendix E).

    9-16 players get 5 rounds (the MTR's number with a top-8 cut; 4 would only suit a
    top 4).  At least 3 rounds, so 8 or fewer players play 3.
    """
    if player_count < 2:
        raise ValueError("a Swiss needs at least 2 players")
    for limit, rounds in ((8, 3), (32, 5), (64, 6), (128, 7), (226, 8), (409, 9)):
        if player_count <= limit:
            return rounds
    return 10
