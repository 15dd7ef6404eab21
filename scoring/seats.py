"""Seats as plain rows, each with its match and player: the one reader of seats that the
recompute (scoring.services: a whole event, or the matches a write changed) and the
phones' view of an event (tournaments.pages.event) share, so that both read the same
columns the same way. Plain SQL: through the ORM a 2,048-player event's seats cost
three times more, and this is read after every result.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NamedTuple

from django.db import connection

from tournaments.models import Match, MatchKind, Player, Round, Seat, Tournament


class HoodSeat(NamedTuple):
    """One seat of a match, with its match and its player."""

    match_id: int
    round_id: int
    kind: str
    reported: bool
    draws: int
    table: int | None
    player_id: int
    position: int
    games_won: int | None
    place: int | None
    score: Decimal | None
    absent: bool
    external_id: str
    name: str
    dropped_after_round: int | None


RoundRow = tuple[int, int, int, bool, int | None]  # id, number, phase, playoff, witness


@dataclass(frozen=True, slots=True)
class Neighbourhood:
    """What one player's page shows and their explanation depends on.

    `rounds`: every round (RoundRow: the witness is one match with a result, or None).
    `seats`: every seat of the player's matches and of their opponents' matches, and of
    each witness, ordered by round, table, match and position.
    """

    player_id: int
    player: tuple[str, int | None]  # (external id, dropped after round)
    rounds: list[RoundRow]
    seats: list[HoodSeat]


_ROUNDS_SQL = (
    # has_result: byes and no-opponent losses always, anything else once reported.
    # The first such match of each round (a LIMIT 1 on the round's index, no scan).
    "SELECT r.id, r.number, r.phase, r.playoff, (SELECT m.id FROM {match} m"
    " WHERE m.round_id = r.id AND (m.reported OR m.kind IN (%s, %s)) LIMIT 1)"
    " FROM {rnd} r WHERE r.tournament_id = %s ORDER BY r.number"
)
_SEAT_COLUMNS = (
    "s.match_id, m.round_id, m.kind, m.reported, m.draws, m.{table},"
    " s.player_id, s.position, s.games_won, s.place, s.score, s.absent,"
    " p.external_id, p.name, p.dropped_after_round"
)
SCORE_PLACES = Decimal("0.0001")  # Seat.score: DecimalField(decimal_places=4)


def _tables() -> tuple[str, str, str, str, str]:
    q = connection.ops.quote_name
    rnd, match, seat, person = (q(model._meta.db_table) for model in (Round, Match, Seat, Player))
    return rnd, match, seat, person, q("table")


def read_rounds(tournament: Tournament) -> list[RoundRow]:
    """Every round of the event with its witness, by number."""
    rnd, match, *_rest = _tables()
    with connection.cursor() as cursor:
        cursor.execute(
            _ROUNDS_SQL.format(match=match, rnd=rnd),
            [MatchKind.BYE, MatchKind.LOSS, tournament.pk],
        )
        rows = cursor.fetchall()
    return [
        (rid, number, phase, bool(playoff), witness)
        for rid, number, phase, playoff, witness in rows
    ]


def read_seats(
    *, tournament: Tournament | None = None, matches: Iterable[int] | None = None
) -> list[HoodSeat]:
    """Every seat of `tournament`, or of these `matches`, by match and position."""
    rnd, match, seat, person, table = _tables()
    if matches is not None:
        ids = sorted(set(matches))
        if not ids:
            return []
        where, params = f"s.match_id IN ({', '.join(['%s'] * len(ids))})", ids
        join = ""
    elif tournament is not None:
        join = f" JOIN {rnd} r ON r.id = s.round_id"
        where, params = "r.tournament_id = %s", [tournament.pk]
    else:
        raise TypeError("read_seats needs a tournament or matches")
    return _query(
        f"SELECT {_SEAT_COLUMNS.format(table=table)}"
        f" FROM {seat} s JOIN {match} m ON m.id = s.match_id"
        f" JOIN {person} p ON p.id = s.player_id{join}"
        f" WHERE {where} ORDER BY s.match_id, s.position",
        params,
    )


def read_neighbourhood(tournament: Tournament, player: Player) -> Neighbourhood:
    """One player's neighbourhood in two queries, without the event's view: every match
    of everyone who sat at one of the player's tables (the player included), and the
    rounds' witnesses (scoring.services.neighbourhood_record says why that is enough)."""
    rnd, match, seat, person, table = _tables()
    rounds = read_rounds(tournament)
    witnesses = [row[4] for row in rounds if row[4] is not None]
    also = f" OR s.match_id IN ({', '.join(['%s'] * len(witnesses))})" if witnesses else ""
    seats = _query(
        f"SELECT {_SEAT_COLUMNS.format(table=table)}"
        f" FROM {seat} s JOIN {match} m ON m.id = s.match_id"
        f" JOIN {person} p ON p.id = s.player_id JOIN {rnd} r ON r.id = s.round_id"
        # Every match of the player's opponents (the player's own among them).
        f" WHERE s.match_id IN (SELECT w.match_id FROM {seat} w WHERE w.player_id IN"
        f" (SELECT v.player_id FROM {seat} v WHERE v.match_id IN"
        f" (SELECT u.match_id FROM {seat} u WHERE u.player_id = %s))){also}"
        # Tables without a number last, on every database (SQLite sorts NULL first).
        f" ORDER BY r.number, m.{table} IS NULL, m.{table}, s.match_id, s.position",
        [player.pk, *witnesses],
    )
    return Neighbourhood(
        player_id=player.pk,
        player=(player.external_id, player.dropped_after_round),
        rounds=rounds,
        seats=seats,
    )


def _query(sql: str, params: list[Any]) -> list[HoodSeat]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [
        HoodSeat(
            match_id, round_id, kind, bool(reported), draws, table, player_id, position,
            games_won, place, _decimal(score), bool(absent), external_id, name, dropped,
        )
        for (
            match_id, round_id, kind, reported, draws, table, player_id, position,
            games_won, place, score, absent, external_id, name, dropped,
        ) in rows
    ]  # fmt: skip


def _decimal(value: Any) -> Decimal | None:
    """A raw score column as the ORM would give it (SQLite hands back int or float)."""
    if value is None or isinstance(value, Decimal):
        return value
    return Decimal(str(value)).quantize(SCORE_PLACES)
