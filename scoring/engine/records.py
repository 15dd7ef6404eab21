"""Plain records the scoring engine reads and writes.

Pure: this package imports only the standard library, so the engine can be tested,
benchmarked and reused without Django (tests/unit/test_purity.py enforces it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

System = Literal["mtr", "dci", "melee", "pod", "league"]
SYSTEMS: tuple[str, ...] = ("mtr", "dci", "melee", "pod", "league")

# How a match entry was recorded (shared/spec/interchange.md).
PLAYED = "played"  # two players; `wins` per player plus `draws`; wins None = no result yet
BYE = "bye"  # one player; in `league` the organizer's agreed 2-point bye
LOSS = "loss"  # one player, a played round worth nothing, no opponent
DOUBLE_LOSS = "double_loss"  # two players, both lose, each is the other's opponent
GAME = "game"  # `league`: 3-5 players with places and raw scores
MatchKind = Literal["played", "bye", "loss", "double_loss", "game"]


@dataclass(frozen=True, slots=True)
class MatchRecord:
    kind: MatchKind
    players: tuple[str, ...]
    wins: tuple[int, ...] | None = None
    draws: int = 0
    places: tuple[int, ...] | None = None
    scores: tuple[Fraction, ...] | None = None
    absent: tuple[str, ...] = ()

    @property
    def has_result(self) -> bool:
        if self.kind == PLAYED:
            return self.wins is not None
        if self.kind == GAME:
            return self.places is not None
        return True


@dataclass(frozen=True, slots=True)
class RoundRecord:
    number: int
    matches: tuple[MatchRecord, ...]
    phase: int = 1
    playoff: bool = False


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    id: str
    dropped_after_round: int | None = None


@dataclass(frozen=True, slots=True)
class EventRecord:
    system: System
    players: tuple[PlayerRecord, ...]
    rounds: tuple[RoundRecord, ...]
    best_of: int = 3
    seed: int = 0


Tiebreak = Fraction | None | tuple[int, ...]


@dataclass(frozen=True, slots=True)
class StandingRow:
    player: str
    rank: int
    points: Fraction
    wins: int
    losses: int
    draws: int
    played: int
    tiebreakers: dict[str, Tiebreak] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Standings:
    system: System
    after_round: int | None
    rows: tuple[StandingRow, ...]
