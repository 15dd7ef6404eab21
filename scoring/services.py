"""Recompute a tournament's standings from its matches and store them.

Called by every service in tournaments/services.py inside that service's transaction,
so the stored standings always match the stored results.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from itertools import count
from operator import attrgetter
from typing import Any

from django.core.cache import cache
from django.db import connection, transaction

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
    StandingRow,
    Standings,
    Tiebreak,
)
from scoring.models import Standing, StandingsState
from tournaments.models import Match, Player, Round, Seat, Tournament

DECIMALS = 10  # shared/spec/interchange.md: tiebreakers rounded to 10 decimals


def event_record(tournament: Tournament) -> EventRecord:
    """Read the tournament's rows into the engine's plain records (few, narrow queries)."""
    return _load(tournament)[0]


def _seats_by_match(seats: Any) -> dict[int, list[tuple[Any, ...]]]:
    """Seat rows as _match_record reads them, grouped by match in seat order."""
    grouped: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for row in seats.order_by("match_id", "position").values_list(
        "match_id", "player_id", "games_won", "place", "score", "absent"
    ):
        grouped[row[0]].append(row)
    return grouped


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


@dataclass
class _Snapshot:
    """What the last committed recompute of one tournament read and stored.

    Lets a result entry skip re-reading every match and rewriting every standing: only the
    changed matches are read back and only the changed standings written. It is trusted
    only when its version equals the tournament's version before the current write, and
    it is saved on commit, so a rolled-back write never leaves a wrong snapshot behind.
    """

    created_at: Any
    version: int
    event: EventRecord
    where: dict[int, tuple[int, int]]  # match pk -> (index in event.rounds, index in round)
    ext: dict[int, str]  # player pk -> engine id
    rows: dict[str, tuple[int, StandingRow]]  # engine id -> (position, row) as stored
    opponents: dict[str, set[str]] | None = None  # built on the first patch, then kept


_snapshots: dict[int, _Snapshot] = {}
_snapshots_lock = threading.Lock()


def _full_snapshot(tournament: Tournament) -> _Snapshot:
    event, where, ext = _load(tournament)
    return _Snapshot(tournament.created_at, tournament.version, event, where, ext, {})


def _load(tournament: Tournament) -> tuple[EventRecord, dict[int, tuple[int, int]], dict[int, str]]:
    players = list(
        Player.objects.filter(tournament=tournament)
        .order_by("id")
        .values_list("id", "external_id", "dropped_after_round")
    )
    ext = {pk: e for pk, e, _ in players}
    seats = _seats_by_match(Seat.objects.filter(round__tournament=tournament))
    round_rows = list(
        Round.objects.filter(tournament=tournament)
        .order_by("number")
        .values_list("id", "number", "phase", "playoff")
    )
    round_index = {rid: i for i, (rid, *_rest) in enumerate(round_rows)}
    by_round: list[list[MatchRecord]] = [[] for _ in round_rows]
    where: dict[int, tuple[int, int]] = {}
    for match_id, round_id, kind, reported, draws in (
        Match.objects.filter(round__tournament=tournament)
        .order_by("round_id", "table", "id")
        .values_list("id", "round_id", "kind", "reported", "draws")
    ):
        i = round_index[round_id]
        where[match_id] = (i, len(by_round[i]))
        by_round[i].append(_match_record(kind, reported, draws, seats[match_id], ext))
    event = EventRecord(
        system=tournament.system,  # type: ignore[arg-type]
        players=tuple(PlayerRecord(id=e, dropped_after_round=d) for _, e, d in players),
        rounds=tuple(
            RoundRecord(number=number, phase=phase, playoff=playoff, matches=tuple(matches))
            for (_rid, number, phase, playoff), matches in zip(round_rows, by_round, strict=True)
        ),
        best_of=tournament.best_of,
        seed=tournament.seed,
    )
    return event, where, ext


def _patched(snapshot: _Snapshot, changed: Iterable[int]) -> EventRecord | None:
    """The snapshot's event with the changed matches read back; None if it cannot tell."""
    changed = list(changed)
    if any(pk not in snapshot.where for pk in changed):
        return None
    seats = _seats_by_match(Seat.objects.filter(match_id__in=changed))
    rounds = list(snapshot.event.rounds)
    for match_id, kind, reported, draws in Match.objects.filter(pk__in=changed).values_list(
        "id", "kind", "reported", "draws"
    ):
        i, j = snapshot.where[match_id]
        matches = list(rounds[i].matches)
        matches[j] = _match_record(kind, reported, draws, seats[match_id], snapshot.ext)
        rounds[i] = replace(rounds[i], matches=tuple(matches))
    return replace(snapshot.event, rounds=tuple(rounds))


def recompute(tournament: Tournament, *, changed_matches: Iterable[int] | None = None) -> Standings:
    """Recompute from the source of truth and store the standings.

    Must run inside the writing service's transaction, after that service bumped the
    tournament's version. With `changed_matches` (the only rows the service changed), a
    snapshot of the previous version is patched instead of reading every match; the
    engine always computes every standing in full, and only changed rows are written.
    tests/test_incremental.py proves this equals a full recompute.
    """
    with _snapshots_lock:
        previous = _snapshots.get(tournament.pk)
    missed: list[int] | None = None
    if (
        previous is not None
        and changed_matches is not None
        and previous.created_at == tournament.created_at
        and previous.version < tournament.version
    ):
        missed = _missed_changes(tournament, previous.version)
    changed = None if missed is None else [*missed, *(changed_matches or ())]
    event = _patched(previous, changed) if changed is not None else None  # type: ignore[arg-type]
    if event is not None and previous is not None and len(event.players) == len(previous.rows):
        snapshot = replace(previous, version=tournament.version, event=event, rows={})
        standings = compute_standings(event)
        touched = _touched(snapshot, changed or ())
        snapshot.rows = _store_changes(
            tournament, standings, previous, touched, caught_up=bool(missed)
        )
    else:
        snapshot = _full_snapshot(tournament)
        standings = compute_standings(snapshot.event)
        snapshot.rows = _store_all(tournament, standings, snapshot.ext)
    if changed_matches is not None:
        record_change(tournament, list(changed_matches))
    StandingsState.objects.update_or_create(
        tournament=tournament,
        defaults={"after_round": standings.after_round, "version": tournament.version},
    )

    def remember() -> None:
        with _snapshots_lock:
            _snapshots[tournament.pk] = snapshot

    with _snapshots_lock:
        _snapshots.pop(tournament.pk, None)
    transaction.on_commit(remember)
    return standings


CHANGE_SECONDS = 3600


def _change_key(tournament: Tournament, version: int) -> str:
    return f"scoring:changes:{tournament.pk}:{tournament.created_at.timestamp()}:{version}"


def record_change(tournament: Tournament, match_ids: list[int]) -> None:
    """Note, once committed, which matches this version of the tournament changed.

    Another process whose snapshot is a few versions behind then reads back just those
    matches instead of every match. A write that changes no scoring input records [];
    a write that records nothing (pairing, drops, registration) forces a full read.
    """
    key, version_ids = _change_key(tournament, tournament.version), list(match_ids)
    transaction.on_commit(lambda: cache.set(key, version_ids, CHANGE_SECONDS))


def _missed_changes(tournament: Tournament, since: int) -> list[int] | None:
    """Match ids changed by the versions after `since` and before this write; None if
    any of them is unknown (evicted, or a write that changes more than matches)."""
    keys = [_change_key(tournament, v) for v in range(since + 1, tournament.version)]
    if not keys:
        return []
    found = cache.get_many(keys)
    if len(found) != len(keys):
        return None
    return [pk for key in keys for pk in found[key]]


def forget_snapshots() -> None:
    with _snapshots_lock:
        _snapshots.clear()


def _values(row: StandingRow) -> tuple[Any, ...]:
    return (
        row.rank,
        round(Decimal(row.points.numerator) / Decimal(row.points.denominator), 4),
        str(row.points),
        row.wins,
        row.losses,
        row.draws,
        row.played,
        {k: edge(v) for k, v in row.tiebreakers.items()},
    )


_FIELDS = ("rank", "points", "points_exact", "wins", "losses", "draws", "played", "tiebreakers")


def _store_all(
    tournament: Tournament, standings: Standings, ext: dict[int, str]
) -> dict[str, tuple[int, StandingRow]]:
    pk_by_ext = {e: pk for pk, e in ext.items()}
    Standing.objects.filter(tournament=tournament).delete()
    Standing.objects.bulk_create(
        (
            Standing(
                tournament=tournament,
                player_id=pk_by_ext[row.player],
                position=position,
                **dict(zip(_FIELDS, _values(row), strict=True)),
            )
            for position, row in enumerate(standings.rows, start=1)
        ),
        batch_size=1000,
    )
    return {row.player: (position, row) for position, row in enumerate(standings.rows, start=1)}


# Under these systems a result changes the values of its own players and their
# opponents only (MW%/GW% of the two, hence OMW%/OGW% of whoever met them); ranks move
# for anyone. pod and league reach further (WRR, "most recently ahead"): compare all.
_LOCAL_SYSTEMS = frozenset({"mtr", "dci", "melee"})


def _touched(snapshot: _Snapshot, changed: Iterable[int]) -> set[str] | None:
    """Players whose tiebreak values a change to these matches can alter; None = anyone."""
    if snapshot.event.system not in _LOCAL_SYSTEMS:
        return None
    if snapshot.opponents is None:
        opponents: dict[str, set[str]] = defaultdict(set)
        for rnd in snapshot.event.rounds:
            for match in rnd.matches:
                if len(match.players) == 2:
                    a, b = match.players
                    opponents[a].add(b)
                    opponents[b].add(a)
        snapshot.opponents = opponents
    rounds = snapshot.event.rounds
    touched: set[str] = set()
    for pk in changed:
        i, j = snapshot.where[pk]
        for player in rounds[i].matches[j].players:
            touched.add(player)
            touched.update(snapshot.opponents.get(player, ()))
    return touched


def _store_changes(
    tournament: Tournament,
    standings: Standings,
    previous: _Snapshot,
    touched: set[str] | None,
    *,
    caught_up: bool = False,
) -> dict[str, tuple[int, StandingRow]]:
    """Write what differs from the stored rows.

    `previous.rows` are the stored rows unless another process wrote meanwhile
    (`caught_up`): then the stored rows are that process's, unknown here, so every row a
    change could reach is written in full and every row's place is written.
    """
    pk_by_ext = {e: pk for pk, e in previous.ext.items()}
    rows = dict(zip(map(_player_of, standings.rows), zip(count(1), standings.rows), strict=True))
    old_rows = previous.rows
    changed = []  # every stored value
    moved = []  # only the place in the standings (most rows, when one player moves)
    for player, (position, row) in rows.items():
        old_position, old = old_rows[player]
        reachable = touched is None or player in touched
        if reachable and (caught_up or old != row):
            values = _values(row)
            changed.append(
                (position, *values[:-1], json.dumps(values[-1]), tournament.pk, pk_by_ext[player])
            )
        elif caught_up or old_position != position or old.rank != row.rank:
            moved.append((position, row.rank, tournament.pk, pk_by_ext[player]))
    table = Standing._meta.db_table
    where = "WHERE tournament_id = %s AND player_id = %s"
    with connection.cursor() as cursor:
        if changed:
            cast = {"tiebreakers": "::jsonb"} if connection.vendor == "postgresql" else {}
            sets = ", ".join(f"{f} = %s{cast.get(f, '')}" for f in ("position", *_FIELDS))
            cursor.executemany(f"UPDATE {table} SET {sets} {where}", changed)
        if moved:
            cursor.executemany(f"UPDATE {table} SET position = %s, rank = %s {where}", moved)
    return rows


_player_of = attrgetter("player")


def standings_document(tournament: Tournament) -> dict[str, Any]:
    """The stored standings as the spec's export (`manage.py standings --format json`)."""
    state = StandingsState.objects.filter(tournament=tournament).first()
    rows = (
        Standing.objects.filter(tournament=tournament)
        .order_by("position")
        .values_list(
            "rank",
            "player__external_id",
            "player__name",
            "points_exact",
            "wins",
            "losses",
            "draws",
            "tiebreakers",
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
