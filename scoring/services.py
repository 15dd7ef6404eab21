"""Recompute a tournament's standings from its matches and store them.

Called by every service in tournaments/services.py inside that service's transaction,
so the stored standings always match the stored results.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from fractions import Fraction
from typing import Any

from scoring.engine import compute_standings
from scoring.engine.records import (
    BYE,
    DOUBLE_LOSS,
    GAME,
    LOSS,
    PLAYED,
    EventRecord,
    MatchRecord,
    PlayerRecord,
    RoundRecord,
    Standings,
    Tiebreak,
)
from scoring.models import Standing, StandingsState
from tournaments.models import Match, Player, Round, Seat, Tournament

DECIMALS = 10  # shared/spec/interchange.md: tiebreakers rounded to 10 decimals


def event_record(tournament: Tournament) -> EventRecord:
    """Read the tournament's rows into the engine's plain records (few, narrow queries)."""
    players = list(
        Player.objects.filter(tournament=tournament)
        .order_by("id")
        .values_list("id", "external_id", "dropped_after_round")
    )
    ext = {pk: e for pk, e, _ in players}
    seats: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for row in (
        Seat.objects.filter(round__tournament=tournament)
        .order_by("match_id", "position")
        .values_list("match_id", "player_id", "games_won", "place", "score", "absent")
    ):
        seats[row[0]].append(row)
    by_round: dict[int, list[MatchRecord]] = defaultdict(list)
    for match_id, round_id, kind, reported, draws in (
        Match.objects.filter(round__tournament=tournament)
        .order_by("round_id", "table", "id")
        .values_list("id", "round_id", "kind", "reported", "draws")
    ):
        by_round[round_id].append(_match_record(kind, reported, draws, seats[match_id], ext))
    rounds = tuple(
        RoundRecord(number=number, phase=phase, playoff=playoff, matches=tuple(by_round[rid]))
        for rid, number, phase, playoff in Round.objects.filter(tournament=tournament)
        .order_by("number")
        .values_list("id", "number", "phase", "playoff")
    )
    return EventRecord(
        system=tournament.system,  # type: ignore[arg-type]
        players=tuple(PlayerRecord(id=e, dropped_after_round=d) for _, e, d in players),
        rounds=rounds,
        best_of=tournament.best_of,
        seed=tournament.seed,
    )


def _match_record(
    kind: str, reported: bool, draws: int, seats: list[tuple[Any, ...]], ext: dict[int, str]
) -> MatchRecord:
    present = [s for s in seats if not s[5]]
    ids = tuple(ext[s[1]] for s in present)
    if kind in (BYE, LOSS):
        return MatchRecord(kind=kind, players=ids)  # type: ignore[arg-type]
    if kind == GAME:
        return MatchRecord(
            kind=GAME,
            players=ids,
            places=tuple(s[3] for s in present) if reported else None,
            scores=tuple(Fraction(s[4] or 0) for s in present) if reported else None,
            absent=tuple(ext[s[1]] for s in seats if s[5]),
        )
    return MatchRecord(
        kind=DOUBLE_LOSS if kind == DOUBLE_LOSS else PLAYED,
        players=ids,
        wins=tuple(s[2] or 0 for s in present) if reported else None,
        draws=draws,
    )


def edge(value: Tiebreak) -> Any:
    """A tiebreak as stored and exported: rounded only here, at the edge."""
    if value is None:
        return None
    if isinstance(value, tuple):
        return list(value)
    return round(float(value), DECIMALS) if not isinstance(value, int) else value


def points_edge(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else round(float(value), DECIMALS)


def recompute(tournament: Tournament) -> Standings:
    """Full recompute from the source of truth; stores every player's standing."""
    standings = compute_standings(event_record(tournament))
    store(tournament, standings)
    return standings


def store(tournament: Tournament, standings: Standings) -> None:
    pk_by_ext = dict(
        Player.objects.filter(tournament=tournament).values_list("external_id", "id")
    )
    Standing.objects.filter(tournament=tournament).delete()
    Standing.objects.bulk_create(
        (
            Standing(
                tournament=tournament,
                player_id=pk_by_ext[row.player],
                position=position,
                rank=row.rank,
                points=round(Decimal(row.points.numerator) / Decimal(row.points.denominator), 4),
                points_exact=str(row.points),
                wins=row.wins,
                losses=row.losses,
                draws=row.draws,
                played=row.played,
                tiebreakers={k: edge(v) for k, v in row.tiebreakers.items()},
            )
            for position, row in enumerate(standings.rows, start=1)
        ),
        batch_size=1000,
    )
    StandingsState.objects.update_or_create(
        tournament=tournament,
        defaults={"after_round": standings.after_round, "version": tournament.version},
    )


def standings_document(tournament: Tournament) -> dict[str, Any]:
    """The stored standings as the spec's export (`manage.py standings --format json`)."""
    state = StandingsState.objects.filter(tournament=tournament).first()
    rows = (
        Standing.objects.filter(tournament=tournament)
        .order_by("position")
        .values_list(
            "rank", "player__external_id", "player__name", "points_exact",
            "wins", "losses", "draws", "tiebreakers",
        )
    )
    return {
        "tournament": tournament.slug,
        "system": tournament.system,
        "after_round": state.after_round if state else None,
        "standings": [
            {
                "rank": rank,
                "id": ext,
                "name": name,
                "points": points_edge(Fraction(points)),
                "wins": wins,
                "losses": losses,
                "draws": draws,
                "tiebreakers": tiebreakers,
            }
            for rank, ext, name, points, wins, losses, draws, tiebreakers in rows
        ],
    }
