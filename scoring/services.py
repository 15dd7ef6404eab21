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
from django.utils import timezone

from scoring.engine import compute_standings
from scoring.engine.explain import Explanation, explain
from scoring.engine.mtr import SWISS_SYSTEMS
from scoring.engine.mtr_fast import SwissState
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
from scoring.seats import HoodSeat, Neighbourhood, read_neighbourhood, read_seats
from tournaments.models import Entry, Match, Player, Round, Seat, Tournament

DECIMALS = 10  # shared/spec/interchange.md: tiebreakers rounded to 10 decimals


def event_record(tournament: Tournament) -> EventRecord:
    """The tournament's rows as the engine scores them (few, narrow queries)."""
    return scored(_load(tournament)[0])


# Entered by pairing, not played: a bye or a loss without an opponent.
_AUTOMATIC = (BYE, LOSS)


def scored(event: EventRecord) -> EventRecord:
    """`event` without what must not count yet: a pod's rounds not yet started.

    shared/spec/scoring.md section 3 scores a pod by the games played ("byes are games
    played and wins"; win % is over games played), and steps 2 and 4 are skipped only
    when the round robin is complete, "every player met every other player". A pod is
    paired all at once (tournaments/services/rounds.py), so every future round already
    holds its bye, which the engine counts as a result: right after pairing everyone
    stood 1-0 "after round 7" (issue 13). The rule: a pod round counts once it has
    started, i.e. once any of its matches other than a bye or a no-opponent loss has
    an entered result; from then on its byes count too, as the spec says. A round not
    started is left out entirely. Swiss and league events pair one round at a time, so
    their byes count from pairing, as before.

    The snapshot keeps the event as stored (`_load`) and this is applied to whatever is
    computed, so that a result which starts a round also counts that round's bye without
    the bye being among the changed matches.
    """
    if event.system != "pod":
        return event
    started = tuple(
        r for r in event.rounds if any(m.has_result for m in r.matches if m.kind not in _AUTOMATIC)
    )
    return event if len(started) == len(event.rounds) else replace(event, rounds=started)


def _seats_by_match(seats: Any) -> dict[int, list[tuple[Any, ...]]]:
    """Seat rows as _match_record reads them, grouped by match in seat order. Only the
    seats' own columns: the whole event's seats through scoring.seats (with their
    matches and players joined) took 2.5 times longer at 8,192 players, and a pairing
    reads them all."""
    grouped: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for row in seats.order_by("match_id", "position").values_list(
        "match_id", "player_id", "games_won", "place", "score", "absent"
    ):
        grouped[row[0]].append(row)
    return grouped


def _seat_row(seat: HoodSeat) -> tuple[Any, ...]:
    """A seat read by scoring.seats as _match_record reads it."""
    return (seat.match_id, seat.player_id, seat.games_won, seat.place, seat.score, seat.absent)


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


def points_stored(value: Fraction) -> Decimal:
    """Points as Standing.points stores and pages show them (4 decimal places)."""
    return round(Decimal(value.numerator) / Decimal(value.denominator), 4)


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
    after_round: int | None = None  # as StandingsState stores it
    # Swiss systems, one phase, no playoff: the engine's state of `event`, whose rows are
    # `rows`. Never changed once made (a write derives a new one), so the committed
    # snapshot's state is safe from a write that rolls back.
    state: SwissState | None = None


_snapshots: dict[int, _Snapshot] = {}
_snapshots_lock = threading.Lock()


def _full_snapshot(tournament: Tournament) -> _Snapshot:
    event, where, ext = _load(tournament)
    return _Snapshot(tournament.created_at, tournament.version, event, where, ext, {})


def _load(tournament: Tournament) -> tuple[EventRecord, dict[int, tuple[int, int]], dict[int, str]]:
    # Pending and rejected entries are not in the event (issue 14): never scored or ranked.
    players = list(
        Player.objects.filter(tournament=tournament, entry=Entry.ACCEPTED)
        .order_by("id")
        .values_list("id", "external_id", "dropped_after_round")
    )
    ext = {pk: e for pk, e, _ in players}
    round_rows = list(
        Round.objects.filter(tournament=tournament)
        .order_by("number")
        .values_list("id", "number", "phase", "playoff")
    )
    rounds, where = _read_rounds(
        round_rows,
        Seat.objects.filter(round__tournament=tournament),
        Match.objects.filter(round__tournament=tournament),
        ext,
    )
    event = EventRecord(
        system=tournament.system,  # type: ignore[arg-type]
        players=tuple(PlayerRecord(id=e, dropped_after_round=d) for _, e, d in players),
        rounds=tuple(rounds),
        best_of=tournament.best_of,
        seed=tournament.seed,
    )
    return event, where, ext


def _read_rounds(
    round_rows: list[tuple[int, int, int, bool]],
    seats: Any,
    matches: Any,
    ext: dict[int, str],
    first: int = 0,
) -> tuple[list[RoundRecord], dict[int, tuple[int, int]]]:
    """These rounds (id, number, phase, playoff) as the engine scores them, from their
    `seats` and `matches` (querysets), and where each match is: (index in the event's
    rounds, counting from `first`, index in its round)."""
    by_seat = _seats_by_match(seats)
    round_index = {rid: i for i, (rid, *_rest) in enumerate(round_rows)}
    by_round: list[list[MatchRecord]] = [[] for _ in round_rows]
    where: dict[int, tuple[int, int]] = {}
    for match_id, round_id, kind, reported, draws in matches.order_by(
        "round_id", "table", "id"
    ).values_list("id", "round_id", "kind", "reported", "draws"):
        i = round_index[round_id]
        where[match_id] = (first + i, len(by_round[i]))
        by_round[i].append(_match_record(kind, reported, draws, by_seat[match_id], ext))
    rounds = [
        RoundRecord(number=number, phase=phase, playoff=playoff, matches=tuple(matches))
        for (_rid, number, phase, playoff), matches in zip(round_rows, by_round, strict=True)
    ]
    return rounds, where


# A change to one match: (its round's number, the match before (None: just paired), after).
Change = tuple[int, MatchRecord | None, MatchRecord]


@dataclass
class _Patch:
    """The snapshot's event with changed matches read back and new rounds added."""

    event: EventRecord
    where: dict[int, tuple[int, int]]
    changes: list[Change]  # every changed match, and every match of an added round
    added: dict[int, tuple[int, bool]]  # rounds added: number -> (phase, playoff)


def _patched(tournament: Tournament, snapshot: _Snapshot, changed: Iterable[int]) -> _Patch | None:
    """The snapshot's event with the changed matches read back; None if it cannot tell.

    Matches the snapshot does not know must make up whole rounds paired after its last
    one (services.rounds: a round just paired, or one another process paired since)."""
    changed = set(changed)
    known = [pk for pk in changed if pk in snapshot.where]
    rounds = list(snapshot.event.rounds)
    changes: list[Change] = []
    where = snapshot.where
    if known:
        # One read: each changed match's seats with the match's own fields, as the
        # phones' view of the event reads them after a result (scoring.seats).
        seats: dict[int, list[HoodSeat]] = defaultdict(list)
        for seat in read_seats(matches=known):
            seats[seat.match_id].append(seat)
        if set(seats) != set(known):
            return None  # a match without seats: read the whole event
        if any(seat.player_id not in snapshot.ext for group in seats.values() for seat in group):
            return None  # a player the snapshot never saw: read the whole event
        for match_id, group in seats.items():
            i, j = snapshot.where[match_id]
            matches = list(rounds[i].matches)
            first = group[0]
            rows = [_seat_row(seat) for seat in group]
            old = matches[j]
            matches[j] = _match_record(first.kind, first.reported, first.draws, rows, snapshot.ext)
            rounds[i] = replace(rounds[i], matches=tuple(matches))
            changes.append((rounds[i].number, old, matches[j]))
    added: dict[int, tuple[int, bool]] = {}
    if len(known) < len(changed):
        last = rounds[-1].number if rounds else 0
        round_rows = list(
            Round.objects.filter(tournament=tournament, number__gt=last)
            .order_by("number")
            .values_list("id", "number", "phase", "playoff")
        )
        ids = [rid for rid, *_rest in round_rows]
        try:
            new_rounds, new_where = _read_rounds(
                round_rows,
                Seat.objects.filter(round_id__in=ids),
                Match.objects.filter(round_id__in=ids),
                snapshot.ext,
                first=len(rounds),
            )
        except KeyError:
            return None  # a player the snapshot never saw: read the whole event
        if set(new_where) != changed.difference(known):
            return None  # not whole new rounds: read the whole event
        where = {**where, **new_where}
        for record in new_rounds:
            rounds.append(record)
            added[record.number] = (record.phase, record.playoff)
            changes.extend((record.number, None, match) for match in record.matches)
    return _Patch(replace(snapshot.event, rounds=tuple(rounds)), where, changes, added)


def recompute(
    tournament: Tournament,
    *,
    changed_matches: Iterable[int] | None = None,
    paired: bool = False,
) -> Standings:
    """Recompute from the source of truth and store the standings.

    Must run inside the writing service's transaction, after that service bumped the
    tournament's version. With `changed_matches` (the only rows the service changed), a
    snapshot of the previous version is patched instead of reading every match, and only
    changed rows are written. `paired`: those are the matches of a round just paired
    (services.rounds), read back as a new round of the snapshot's event. Under a Swiss
    system with one phase and no playoff result the engine does not recompute everyone
    either: the snapshot's `SwissState` is updated with the changed matches (their
    players' values and those of whoever met them: after a pairing, only the byes' and
    no-opponent losses' players, whose results count from pairing), and only the places
    it reports are compared and written; anything else computes every standing in full.
    tests/test_incremental.py, tests/test_pair_click.py and
    tests/unit/test_incremental_engine.py prove both equal a full recompute.
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
    patch = _patched(tournament, previous, changed) if changed is not None else None  # type: ignore[arg-type]
    incremental = (
        patch is not None
        and previous is not None
        and len(patch.event.players) == len(previous.rows)
    )
    if incremental:
        assert patch is not None and previous is not None
        snapshot = replace(
            previous,
            version=tournament.version,
            event=patch.event,
            where=patch.where,
            rows={},
            state=None,
            # who met whom (`_touched`): a new round adds meetings
            opponents=None if patch.added else previous.opponents,
        )
        state = _updated_state(previous, patch)
        if state is not None and state.changed is not None and not missed:
            # Only the places the engine says changed hold new rows: write those.
            standings = state.standings()
            snapshot.rows = _store_places(tournament, standings, previous, state.changed)
        else:
            standings = (
                state.standings() if state is not None else compute_standings(scored(patch.event))
            )
            touched = _touched(snapshot, changed or ())
            snapshot.rows = _store_changes(
                tournament, standings, previous, touched, caught_up=bool(missed)
            )
        snapshot.state = state
    else:
        snapshot = _full_snapshot(tournament)
        snapshot.state = SwissState.build(snapshot.event)
        standings = (
            snapshot.state.standings()
            if snapshot.state is not None
            else compute_standings(scored(snapshot.event))
        )
        snapshot.rows = _store_all(tournament, standings, snapshot.ext)
    if changed_matches is not None:
        record_change(tournament, list(changed_matches), kind=PAIRED if paired else RESULTS)
    if not incremental or missed or previous.after_round != standings.after_round:  # type: ignore[union-attr]
        # One UPDATE (update_or_create reads first, inside a savepoint: three more
        # queries on the result entry's path); the row exists after the first recompute.
        state = {"after_round": standings.after_round, "computed_at": timezone.now()}
        if not StandingsState.objects.filter(tournament=tournament).update(**state):
            StandingsState.objects.create(tournament=tournament, **state)
    snapshot.after_round = standings.after_round

    def remember() -> None:
        with _snapshots_lock:
            _snapshots[tournament.pk] = snapshot

    with _snapshots_lock:
        _snapshots.pop(tournament.pk, None)
    transaction.on_commit(remember, robust=True)
    return standings


@dataclass(frozen=True)
class PairingHistory:
    """What pairing the next round reads of the event, in engine ids (player pk -> id:
    `ext`): whom each player met outside the playoff (once per meeting), who had a bye,
    and the points of the stored standings (None: not known here, read them)."""

    ext: dict[int, str]
    opponents: dict[str, list[str]]
    byes: set[str]
    points: dict[str, Fraction] | None


def pairing_history(tournament: Tournament) -> PairingHistory | None:
    """The pairing's history from this process's snapshot, else None: read the rows.

    The snapshot's event holds every match as stored (present players only) and its
    rows are the stored standings, so this equals reading them: at 8,192 players the
    seats alone took about 0.4 s to read (issue 26). A snapshot a few versions behind
    (another worker entered results meanwhile) still knows who met whom and the byes
    when the change log says no round was paired or undone since; not the points then.
    """
    with _snapshots_lock:
        snapshot = _snapshots.get(tournament.pk)
    if (
        snapshot is None
        or snapshot.created_at != tournament.created_at
        or snapshot.version > tournament.version
        or len(snapshot.rows) != len(snapshot.ext)
    ):
        return None
    current = snapshot.version == tournament.version
    # Results, figures and names move no pairing; a write without an entry may have.
    if (
        not current
        and _logged(tournament, snapshot.version, tournament.version, _NO_PAIRING) is None
    ):
        return None
    opponents: dict[str, list[str]] = defaultdict(list)
    byes: set[str] = set()
    for rnd in snapshot.event.rounds:
        if rnd.playoff:
            continue
        for match in rnd.matches:
            players = match.players
            if match.kind == BYE:
                byes.update(players)
            elif len(players) == 2:
                a, b = players
                opponents[a].append(b)
                opponents[b].append(a)
            else:
                for player in players:
                    opponents[player].extend(p for p in players if p != player)
    return PairingHistory(
        ext=snapshot.ext,
        opponents=opponents,
        byes=byes,
        points={player: row.points for player, (_position, row) in snapshot.rows.items()}
        if current
        else None,
    )


def _updated_state(previous: _Snapshot, patch: _Patch) -> SwissState | None:
    """The engine's state of `patch.event`: derived from the previous state when the
    change is simple, else built in full (None if the event is not a simple Swiss one:
    compute it in full)."""
    if previous.state is not None:
        # A match just paired without a result adds nothing: leave it out, or every
        # player of a new round would count as changed.
        changes = [c for c in patch.changes if c[1] is not None or c[2].has_result]
        state = previous.state.updated(changes, patch.added)
        if state is not None:
            return state
    return SwissState.build(patch.event)


CHANGE_SECONDS = 3600
# What one version changed, as the change log says: match results only (the changed
# matches listed), "What do I need?" figures only (scoring.outlooks), or anything else a
# page shows (a name, a clock) without a standing input. A version with no entry (an
# entry evicted, or a write that changed players, rounds or drops) changed anything.
# PAIRED: a round was paired, its matches listed: another process's snapshot adds the
# round, while a page's view of the event (changes_since) reads everything again.
RESULTS, FIGURES, OTHER, PAIRED = "results", "figures", "other", "paired"
# The kinds after which a snapshot of an earlier version still holds every player with
# their drops (only matches moved): anything else, or no entry, and it is read again.
_SAME_PLAYERS = frozenset({RESULTS, FIGURES, OTHER, PAIRED})
_NO_PAIRING = _SAME_PLAYERS - {PAIRED}  # the pairing history also holds who met whom
_RESULTS_ONLY = frozenset({RESULTS, FIGURES})  # a page's view carries only these


def _change_key(tournament: Tournament, version: int) -> str:
    return f"scoring:changes:{tournament.pk}:{tournament.created_at.timestamp()}:{version}"


def record_change(tournament: Tournament, match_ids: list[int], *, kind: str = RESULTS) -> None:
    """Note, once committed, what this version of the tournament changed (see RESULTS).

    Another process whose snapshot or event view is a few versions behind then reads
    back just those matches instead of every match. A write that records nothing
    (pairing, drops, registration) forces a full read.
    """
    key, entry = _change_key(tournament, tournament.version), (kind, list(match_ids))
    transaction.on_commit(lambda: cache.set(key, entry, CHANGE_SECONDS), robust=True)


def _log(tournament: Tournament, first: int, last: int) -> list[tuple[str, list[int]]] | None:
    """The change log's entries for versions first..last, or None if any is missing."""
    keys = [_change_key(tournament, v) for v in range(first, last + 1)]
    if not keys:
        return []
    found = cache.get_many(keys)
    if len(found) != len(keys):
        return None
    return [tuple(found[key]) for key in keys]  # type: ignore[misc]


def _logged(
    tournament: Tournament, since: int, last: int, kinds: frozenset[str]
) -> list[int] | None:
    """The match ids the versions after `since`, up to `last`, changed; None unless every
    one of them is logged with one of `kinds` (the one test of the change log that the
    recompute, the pairing history, the pages and `scoring_drift` each apply)."""
    entries = _log(tournament, since + 1, last)
    if entries is None or any(kind not in kinds for kind, _ids in entries):
        return None
    return [pk for _kind, ids in entries for pk in ids]


def _missed_changes(tournament: Tournament, since: int) -> list[int] | None:
    """Match ids changed by the versions after `since` and before this write; None if
    any of them is unknown (evicted, or a write that changes more than matches). Writes
    that changed no standing input (OTHER, FIGURES) changed no match."""
    return _logged(tournament, since, tournament.version - 1, _SAME_PLAYERS)


def changes_since(tournament: Tournament, since: int) -> list[int] | None:
    """The matches whose results the versions after `since`, up to the tournament's
    own, changed; None unless every one of those writes changed only match results or
    only the "What do I need?" figures (anything else may have changed what a page
    shows: a name, a round)."""
    return _logged(tournament, since, tournament.version, _RESULTS_ONLY)


def forget_snapshots() -> None:
    with _snapshots_lock:
        _snapshots.clear()


def scoring_drift(tournament: Tournament) -> list[str]:
    """How the stored standings and this process's scoring snapshot of `tournament`
    differ from a fresh read and computation (empty: they agree). For tests and diagnosis;
    writes nothing. A snapshot is trusted at its own version or patched across logged
    versions (`recompute`, `pairing_history`): it is compared as a write would use it. One
    that no write would trust (no log, or players changed since) is not drift."""
    tournament = Tournament.objects.get(pk=tournament.pk)
    fresh, fresh_where, fresh_ext = _load(tournament)
    standings = compute_standings(scored(fresh))
    pk_by_ext = {e: pk for pk, e in fresh_ext.items()}
    expected = {
        pk_by_ext[row.player]: [n, *_values(row)] for n, row in enumerate(standings.rows, start=1)
    }
    stored = {
        player_id: values
        for player_id, *values in Standing.objects.filter(tournament=tournament).values_list(
            "player_id", "position", *_FIELDS
        )
    }
    drift = []
    if stored != expected:
        drift.append(f"stored standings: {stored} != {expected}")
    with _snapshots_lock:
        snapshot = _snapshots.get(tournament.pk)
    if snapshot is None or snapshot.created_at != tournament.created_at:
        return drift
    if snapshot.version != tournament.version:
        changed = _logged(tournament, snapshot.version, tournament.version, _SAME_PLAYERS)
        patch = _patched(tournament, snapshot, changed) if changed is not None else None
        if patch is None:
            return drift
        event, where = patch.event, patch.where
    else:
        event, where = snapshot.event, snapshot.where
        rows = {p: [n, *_values(r)] for p, (n, r) in snapshot.rows.items()}
        if rows != {row.player: [n, *_values(row)] for n, row in enumerate(standings.rows, 1)}:
            drift.append("the snapshot's standing rows differ")
    if snapshot.ext != fresh_ext:
        drift.append(
            f"snapshot players {sorted(snapshot.ext.values())} != {sorted(fresh_ext.values())}"
        )
    if event.players != fresh.players:
        drift.append("the snapshot's player records (drops) differ")
    if event.rounds != fresh.rounds:
        drift.append("the snapshot's rounds or results differ")
    if where != fresh_where:
        drift.append("the snapshot's match places differ")
    return drift


def unscored(tournament: Tournament, *, standings_written: bool = False) -> None:
    """A committed version that recomputed nothing: what the change log says of it.

    `standings_written`: the writing service changed who is in the event and wrote their
    standings itself, without a recompute (services.registration places a newcomer before
    round 1). No snapshot knows those players, so this process's is dropped at once and
    the log gets no entry for the version: every process reads the whole event at its next
    recompute or pairing, as after any write that changes players. Otherwise nothing a
    standing reads changed (OTHER), and every snapshot stays usable.
    """
    if standings_written:
        with _snapshots_lock:
            _snapshots.pop(tournament.pk, None)
    else:
        record_change(tournament, [], kind=OTHER)


def _values(row: StandingRow) -> tuple[Any, ...]:
    return (
        row.rank,
        points_stored(row.points),
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
    """Store every row. When the stored rows hold the same players (a worker's first
    write after it started: its snapshot is gone, the rows are not), read them once and
    write only the rows that differ, instead of deleting and inserting them all."""
    pk_by_ext = {e: pk for pk, e in ext.items()}
    rows = {row.player: (position, row) for position, row in enumerate(standings.rows, start=1)}
    stored = {
        player_id: values
        for player_id, *values in Standing.objects.filter(tournament=tournament).values_list(
            "player_id", "position", *_FIELDS
        )
    }
    if stored and set(stored) == set(pk_by_ext.values()) and len(stored) == len(rows):
        changed = []
        for player, (position, row) in rows.items():
            pk = pk_by_ext[player]
            values = _values(row)
            if stored[pk] != [position, *values]:
                changed.append((position, *values[:-1], json.dumps(values[-1]), tournament.pk, pk))
        _write(changed, [])
        return rows
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
    return rows


# Under the Swiss systems a result changes the values of its own players and their
# opponents only (MW%/GW% of the two, hence OMW%/OGW% of whoever met them); ranks move
# for anyone. pod and league reach further (WRR, "most recently ahead"): compare all.


def _touched(snapshot: _Snapshot, changed: Iterable[int]) -> set[str] | None:
    """Players whose tiebreak values a change to these matches can alter; None = anyone."""
    if snapshot.event.system not in SWISS_SYSTEMS:
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
    _write(changed, moved)
    return rows


def _store_places(
    tournament: Tournament,
    standings: Standings,
    previous: _Snapshot,
    changed: tuple[set[str], list[int]],
) -> dict[str, tuple[int, StandingRow]]:
    """`_store_changes` for a state derived from `previous.state` (whose rows are the
    stored rows): only the places the engine reports hold new rows; of those, only the
    recomputed players' values can differ, the others only moved."""
    fresh, places = changed
    pk_by_ext = {e: pk for pk, e in previous.ext.items()}
    old_rows = previous.rows
    rows = old_rows.copy()
    updated = []
    moved = []
    for place in places:
        row = standings.rows[place]
        position = place + 1
        player = row.player
        rows[player] = (position, row)
        old_position, old = old_rows[player]
        if player in fresh and old != row:
            values = _values(row)
            updated.append(
                (position, *values[:-1], json.dumps(values[-1]), tournament.pk, pk_by_ext[player])
            )
        elif old_position != position or old.rank != row.rank:
            moved.append((position, row.rank, tournament.pk, pk_by_ext[player]))
    _write(updated, moved)
    return rows


def _write(changed: list[tuple[Any, ...]], moved: list[tuple[Any, ...]]) -> None:
    """Update the Standing rows: `changed` in full, `moved` only their place and rank."""
    table = Standing._meta.db_table
    where = "WHERE tournament_id = %s AND player_id = %s"
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            _write_postgresql(cursor, table, changed, moved)
            return
        if changed:
            sets = ", ".join(f"{f} = %s" for f in ("position", *_FIELDS))
            cursor.executemany(f"UPDATE {table} SET {sets} {where}", changed)
        if moved:
            cursor.executemany(f"UPDATE {table} SET position = %s, rank = %s {where}", moved)


# Column types of `changed` rows (position, _FIELDS..., tournament, player) on PostgreSQL.
_PG_TYPES = ("int", "int", "numeric", "text", "int", "int", "int", "int", "jsonb", "int", "int")


def _write_postgresql(
    cursor: Any, table: str, changed: list[tuple[Any, ...]], moved: list[tuple[Any, ...]]
) -> None:
    """One UPDATE per kind, its rows passed as arrays (unnest): a result in round 1 moves
    most players' places, and as many one-row UPDATEs cost a player's confirmation (and
    the organizer's click) about twice as long."""
    if changed:
        names = ("position", *_FIELDS, "tournament_id", "player_id")
        columns = list(zip(*changed, strict=True))
        sets = ", ".join(f"{f} = v.{f}" for f in ("position", *_FIELDS))
        arrays = ", ".join(f"%s::{kind}[]" for kind in _PG_TYPES)
        cursor.execute(
            f"UPDATE {table} AS s SET {sets} FROM unnest({arrays}) AS v({', '.join(names)})"
            " WHERE s.tournament_id = v.tournament_id AND s.player_id = v.player_id",
            [list(c) for c in columns],
        )
    if moved:
        position, rank, tournament, player = (list(c) for c in zip(*moved, strict=True))
        cursor.execute(
            f"UPDATE {table} AS s SET position = v.position, rank = v.rank"
            " FROM unnest(%s::int[], %s::int[], %s::int[])"
            " AS v(position, rank, player_id)"
            " WHERE s.tournament_id = %s AND s.player_id = v.player_id",
            [position, rank, player, tournament[0]],
        )


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


def explanation(
    tournament: Tournament, player: Player, hood: Neighbourhood | None = None
) -> Explanation | None:
    """How `player`'s stored tiebreakers came about (scoring.engine.explain), from the
    rows as they are now.

    Swiss systems score only what the player's values depend on: their neighbourhood
    (`hood`, which the phones' pages take from the event's view, tournaments.pages.event,
    or read here in two queries). pod and league events are small, and their values
    reach further (WRR): they are scored whole.
    """
    if tournament.system in SWISS_SYSTEMS:
        event = neighbourhood_record(tournament, hood or read_neighbourhood(tournament, player))
    else:
        event = event_record(tournament)
    return explain(event, player.external_id)


def neighbourhood_record(tournament: Tournament, hood: Neighbourhood) -> EventRecord:
    """The part of the event a Swiss player's explanation depends on.

    A player's OMW%/OGW% are means of their opponents' MW%/GW% (as of the player's last
    phase), and those depend only on the opponents' own matches; the player's GW% on
    their own. So every match of the player and of each opponent is read, with all the
    players in them. Besides those, one match with a result from each round that has
    one (a "witness"): which rounds and phases have results decides the freeze and the
    round the values stand after, and a witness only adds players nobody here met.
    tests/test_public_pages.py checks that this explains exactly like the full event.
    """
    # The player first: one registered but never seated is still explained.
    players: dict[int, tuple[str, int | None]] = {hood.player_id: hood.player}
    grouped: dict[int, list[HoodSeat]] = defaultdict(list)
    for seat in hood.seats:
        players[seat.player_id] = (seat.external_id, seat.dropped_after_round)
        grouped[seat.match_id].append(seat)
    ext = {pk: e for pk, (e, _d) in players.items()}
    by_round: dict[int, list[MatchRecord]] = {rid: [] for rid, *_rest in hood.rounds}
    for group in grouped.values():
        first = group[0]
        rows = [_seat_row(seat) for seat in group]
        by_round[first.round_id].append(
            _match_record(first.kind, first.reported, first.draws, rows, ext)
        )
    known = [PlayerRecord(id=e, dropped_after_round=d) for _pk, (e, d) in sorted(players.items())]
    return EventRecord(
        system=tournament.system,  # type: ignore[arg-type]
        players=tuple(known),
        rounds=tuple(
            RoundRecord(number=number, phase=phase, playoff=playoff, matches=tuple(by_round[rid]))
            for rid, number, phase, playoff, _witness in hood.rounds
        ),
        best_of=tournament.best_of,
        seed=tournament.seed,
    )
