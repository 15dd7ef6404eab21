"""Sorting helpers shared by every scoring system: seeded draw, shared ranks, playoffs.

Pure standard library (see records.py).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Sequence

from .records import BYE, DOUBLE_LOSS, LOSS, RoundRecord

# 64 bits is plenty: a collision between two players of one event is a 1-in-10^15 event,
# and even then the order stays deterministic (the player id breaks it, see draw_key).
_DRAW_BYTES = 8


def draw_key(seed: int, player_id: str) -> int:
    """The player's seeded random-draw value (scoring.md: "seeded random draw").

    A per-player hash rather than a shuffled list, so that the value depends only on the
    tournament's seed and the player's own id: it never changes between calls and does not
    reshuffle everyone when a player is added or removed. Smaller value = drawn higher.
    """
    digest = hashlib.blake2b(f"{seed}:{player_id}".encode(), digest_size=_DRAW_BYTES).digest()
    return int.from_bytes(digest, "big")


def competition_ranks(keys: Sequence[Hashable]) -> list[int]:
    """Standard competition ranks (1, 2, 2, 4) for keys already sorted best first."""
    ranks: list[int] = []
    previous: object = object()
    for position, key in enumerate(keys, start=1):
        if position == 1 or key != previous:
            ranks.append(position)
        else:
            ranks.append(ranks[-1])
        previous = key
    return ranks


def playoff_order(
    playoff_rounds: Sequence[RoundRecord],
    swiss_order: Sequence[str],
) -> list[str]:
    """Final order of the players in single-elimination rounds.

    scoring.md (`mtr`, phases and playoffs): playoff rounds decide the final placings of
    the players in them. The winner is 1st, the finalist 2nd, then the losers of each
    earlier round, a later elimination above an earlier one; players eliminated in the
    same round are ordered by their Swiss standing (checked on the melee.gg data:
    semifinal and quarterfinal losers appear in Swiss order). Players still alive in an
    unfinished bracket share the top group, again in Swiss order.

    `swiss_order` is every player in Swiss standing order; only the ones who appear in a
    playoff round are returned.
    """
    swiss_position = {player: position for position, player in enumerate(swiss_order)}
    alive = float("inf")
    eliminated: dict[str, float] = {}
    for round_ in sorted(playoff_rounds, key=lambda r: r.number):
        for match in round_.matches:
            if not match.has_result:
                continue
            for player in match.players:
                eliminated.setdefault(player, alive)
            if match.kind == BYE:
                continue
            if match.kind in (LOSS, DOUBLE_LOSS):
                for player in match.players:
                    eliminated[player] = round_.number
                continue
            wins = match.wins or ()
            if len(match.players) == 2 and len(wins) == 2 and wins[0] != wins[1]:
                loser = match.players[1] if wins[0] > wins[1] else match.players[0]
                eliminated[loser] = round_.number
            # A drawn playoff match eliminates nobody: the bracket has to replay it.
    return sorted(
        eliminated,
        key=lambda p: (-eliminated[p], swiss_position.get(p, len(swiss_position))),
    )


def sort_by(items: Sequence[str], key: Callable[[str], tuple[object, ...]]) -> list[str]:
    """Sort best first: keys are built so that a larger tuple is a better standing."""
    return sorted(items, key=key, reverse=True)
