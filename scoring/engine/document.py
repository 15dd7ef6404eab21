"""Convert an already-valid interchange document (`swiss-tournament/1`) to an EventRecord.

Pure and NON-validating: the Django import validates documents and reports errors by
place; this converter trusts its input. Used by engine tests and benchmarks.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from .records import (
    BYE,
    DOUBLE_LOSS,
    GAME,
    LOSS,
    PLAYED,
    EventRecord,
    MatchRecord,
    PlayerRecord,
    RoundRecord,
)

# interchange.md defaults.
DEFAULT_BEST_OF = 3
DEFAULT_PHASE = 1
DEFAULT_SEED = 0


def _score(value: Any) -> Fraction:
    # Raw league scores may be written as ints, decimals in strings, or floats; a float is
    # taken at its shortest decimal repr (0.1 -> 1/10), never its binary expansion.
    if isinstance(value, float):
        return Fraction(repr(value))
    return Fraction(value)


def match_from_document(doc: Mapping[str, Any]) -> MatchRecord:
    players = tuple(doc["players"])
    if doc.get("bye"):
        return MatchRecord(kind=BYE, players=players)
    if doc.get("loss"):
        return MatchRecord(kind=LOSS, players=players)
    if "places" in doc or len(players) > 2 or "scores" in doc or "absent" in doc:
        places = doc.get("places")
        scores = doc.get("scores")
        return MatchRecord(
            kind=GAME,
            players=players,
            places=tuple(places) if places is not None else None,
            scores=tuple(_score(s) for s in scores) if scores is not None else None,
            absent=tuple(doc.get("absent", ())),
        )
    wins = doc.get("wins")
    kind = DOUBLE_LOSS if doc.get("result") == "double_loss" else PLAYED
    return MatchRecord(
        kind=kind,
        players=players,
        wins=tuple(wins) if wins is not None else None,
        draws=int(doc.get("draws", 0)),
    )


def event_from_document(doc: Mapping[str, Any]) -> EventRecord:
    players = tuple(
        PlayerRecord(id=str(p["id"]), dropped_after_round=p.get("dropped_after_round"))
        for p in doc.get("players", ())
    )
    rounds = tuple(
        RoundRecord(
            number=int(r["number"]),
            matches=tuple(match_from_document(m) for m in r.get("matches", ())),
            phase=int(r.get("phase", DEFAULT_PHASE)),
            playoff=bool(r.get("playoff", False)),
        )
        for r in doc.get("rounds", ())
    )
    seed = doc.get("seed")
    return EventRecord(
        system=doc["system"],
        players=players,
        rounds=rounds,
        best_of=int(doc.get("best_of", DEFAULT_BEST_OF)),
        seed=int(seed) if seed is not None else DEFAULT_SEED,
    )
