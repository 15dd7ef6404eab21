"""Import: a `swiss-tournament/1` document becomes an event, through the one write path.

Validation (every problem named by its place) is tournaments.interchange's; this module
writes the rows in one transaction, with the audit entry and the recompute of `writing`.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection, transaction

from scoring.engine import compute_standings
from scoring.engine.document import event_from_document
from scoring.services import points_stored
from tournaments.interchange import instant, validate_document
from tournaments.models import (
    AuditAction,
    AuditEntry,
    AuditPlayer,
    Entry,
    Match,
    MatchKind,
    Player,
    Round,
    Seat,
    Status,
    Tournament,
)
from tournaments.names import normal as normal_name
from tournaments.services.corrections import CUT_DECISION, DECISION_FIELDS
from tournaments.services.lifecycle import insert_tournament, new_seed
from tournaments.services.writing import writing


def _decimal(value: int | float) -> Decimal:
    return Decimal(str(value))


def import_document(doc: dict[str, Any], *, owner: Any = None) -> Tournament:
    """Create a tournament from a document; nothing is written if it is invalid.

    Raises interchange.DocumentError naming every problem's place.
    """
    validate_document(doc)
    with transaction.atomic():
        tournament = _create(doc, owner)
        with writing(tournament, by=owner) as w:
            tournament = w.tournament  # the row as written, its version included
            _write_rows(tournament, doc)
            restored = ""
            if "event" in doc:
                _restore_event(tournament, doc["event"])
                restored = " (restored from a backup)"
            w.changed()
            w.audit(
                AuditAction.IMPORT,
                f"Imported {len(doc['players'])} players and {len(doc.get('rounds', []))} rounds"
                + restored,
                after={
                    "players": len(doc["players"]),
                    "rounds": len(doc.get("rounds", [])),
                    "restored": bool(restored),
                },
            )
        transaction.on_commit(_refresh_planner_statistics, robust=True)
    return tournament


def _refresh_planner_statistics() -> None:
    """PostgreSQL plans from row counts it samples in the background (autovacuum, within
    a minute or so). An import can add tens of thousands of seats at once; planned on the
    old counts, the players' pages' queries chose hash joins over every seat (8 ms instead
    of 1.5 ms at 2,048 players) until then."""
    if connection.vendor != "postgresql":
        return
    tables = [m._meta.db_table for m in (Player, Round, Match, Seat)]
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE " + ", ".join(connection.ops.quote_name(t) for t in tables))


def _restore_event(t: Tournament, event: dict[str, Any]) -> None:
    """A backup's "event" section (tournaments.interchange): status, phase, plan, cut,
    clocks, staff and the audit trail as they were. Staff who have no account on this
    installation are left out (the owner adds them again)."""
    t.status = event.get("status", t.status)
    t.phase = event.get("phase", t.phase)
    t.top_cut = event.get("top_cut", t.top_cut)
    t.planned_rounds = event.get("planned_rounds", t.planned_rounds)
    t.save(update_fields=["status", "phase", "top_cut", "planned_rounds"])
    for ext, phase in event.get("made_phase", {}).items():
        Player.objects.filter(tournament=t, external_id=ext).update(made_phase=phase)
    # Pending and rejected entries stay what they were (private links are not in a
    # backup: the organizer issues new ones).
    for ext, entry in event.get("entries", {}).items():
        if entry in Entry.values:
            Player.objects.filter(tournament=t, external_id=ext).update(entry=entry)
    for ext, contact in event.get("contacts", {}).items():
        Player.objects.filter(tournament=t, external_id=ext).update(contact=str(contact)[:200])
    for clock in event.get("clocks", []):
        paused = clock.get("paused_seconds")
        Round.objects.filter(tournament=t, number=clock["round"]).update(
            clock_ends_at=instant(clock.get("ends_at")),
            clock_paused_remaining=None if paused is None else timedelta(seconds=paused),
        )
    users = get_user_model().objects
    t.staff.set(users.filter(username__in=event.get("staff", [])))
    entries = event.get("audit", [])
    names = {e["user"] for e in entries if e.get("user")}
    by_name = {u.get_username(): u for u in users.filter(username__in=names)}
    rows = AuditEntry.objects.bulk_create(
        AuditEntry(
            tournament=t,
            user=by_name.get(e.get("user") or ""),
            action=e["action"],
            summary=e["summary"],
            before=e.get("before"),
            after=e.get("after"),
            round=e.get("round"),
            table=e.get("table"),
        )
        for e in entries
    )
    # What each entry is about. A backup written before these fields has none: its
    # entries come back without them (the audit screen's filters do not find them).
    AuditPlayer.objects.bulk_create(
        AuditPlayer(entry=row, external_id=ext, name=name)
        for row, e in zip(rows, entries, strict=True)
        for ext, name in e.get("players", [])
    )
    # `at` is set on creation; the trail keeps its own times.
    for row, e in zip(rows, entries, strict=True):
        row.at = instant(e["at"])
    AuditEntry.objects.bulk_update(rows, ["at"], batch_size=500)
    cut = event["cut"] if "cut" in event else _cut_from_audit(entries)
    if cut is not None:
        _restore_cut(t, cut)


def _restore_cut(t: Tournament, cut: dict[str, Any]) -> None:
    """A backup's "cut" (tournaments.interchange, validated there): the top cut's start
    and the organizer's decision after a correction."""
    t.cut_started_at = instant(cut.get("started_at"))
    if cut.get("decision"):
        correction = cut.get("correction") or {}
        t.cut_decision = cut["decision"]
        t.cut_decided_at = instant(cut.get("decided_at"))
        t.cut_decision_changes = cut.get("changes") or []
        t.cut_correction_round = _bounded(correction.get("round"), 10_000)
        t.cut_correction_table = _bounded(correction.get("table"), 1_000_000)
        t.cut_correction_at = instant(correction.get("at"))
    t.save(update_fields=["cut_started_at", *DECISION_FIELDS])


def _bounded(value: Any, maximum: int) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= maximum
    return value if ok else None


def _cut_from_audit(entries: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The "cut" of a backup written before the decision had its columns: its audit
    trail (oldest first) held it. The newest top-cut entry is the decision if it names
    one; the newest one that names none started the cut (as migration 0006 reads it)."""
    newest_first = [
        (e["at"], e.get("after") if isinstance(e.get("after"), dict) else {})
        for e in reversed(entries)
        if e["action"] == AuditAction.TOP_CUT
    ]
    if not newest_first:
        return None
    started = next((at for at, after in newest_first if CUT_DECISION not in after), None)
    cut: dict[str, Any] = {"started_at": started}
    at, after = newest_first[0]
    if after.get(CUT_DECISION) in ("keep", "reseed"):
        changes, correction = after.get("changes"), after.get("correction")
        cut.update(
            decision=after[CUT_DECISION],
            decided_at=at,
            changes=changes if isinstance(changes, list) else [],
            correction=correction if isinstance(correction, dict) else None,
        )
    return cut


def _create(doc: dict[str, Any], owner: Any) -> Tournament:
    system = doc["system"]
    rounds = doc.get("rounds", [])
    played = [r for r in rounds if r.get("matches")]
    status = Status.REGISTRATION
    if any(r.get("playoff") for r in played):
        status = Status.TOP_CUT
    elif played:
        status = Status.RUNNING
    return insert_tournament(
        name=doc["name"].strip(),
        system=system,
        best_of=doc.get("best_of", 1 if system == "pod" else 3),
        seed=doc["seed"] if doc.get("seed") is not None else new_seed(),
        status=status,
        phase=max((r.get("phase", 1) for r in rounds), default=1),
        owner=owner,
    )


def _write_rows(tournament: Tournament, doc: dict[str, Any]) -> None:
    system = doc["system"]
    rounds = doc.get("rounds", [])
    # A player who played a round of phase N made the cut for phase N.
    made: dict[str, int] = {}
    for r in rounds:
        for m in r.get("matches", []) if not r.get("playoff") else []:
            for pid in m["players"]:
                made[pid] = max(made.get(pid, 1), r.get("phase", 1))
    players = Player.objects.bulk_create(
        Player(
            tournament=tournament,
            external_id=p["id"],
            name=normal_name(p["name"]),
            dropped_after_round=p.get("dropped_after_round"),
            made_phase=made.get(p["id"], 1),
        )
        for p in doc["players"]
    )
    by_id = {p.external_id: p for p in players}
    round_rows = Round.objects.bulk_create(
        Round(
            tournament=tournament,
            number=r["number"],
            phase=r.get("phase", 1),
            playoff=r.get("playoff", False),
        )
        for r in rounds
    )
    match_rows: list[Match] = []
    for rnd, row in zip(rounds, round_rows, strict=True):
        for m in rnd.get("matches", []):
            match_rows.append(_match_row(row, m, system))
    Match.objects.bulk_create(match_rows)
    seats: list[Seat] = []
    it = iter(match_rows)
    before = _points_before_each_round(doc)
    for rnd, row in zip(rounds, round_rows, strict=True):
        points = before.get(rnd["number"], {})
        for m in rnd.get("matches", []):
            for seat in _seat_rows(next(it), row, m, by_id):
                seat.points_at_pairing = points.get(seat.player.external_id)
                seats.append(seat)
    Seat.objects.bulk_create(seats, batch_size=2000)


def _points_before_each_round(doc: dict[str, Any]) -> dict[int, dict[str, Decimal]]:
    """Per round number, each player's points after the rounds before it: what the
    pairings show (Seat.points_at_pairing). A pod's rounds were paired all at once, so
    its points at pairing are not known."""
    if doc["system"] == "pod":
        return {}
    event = event_from_document(doc)
    out: dict[int, dict[str, Decimal]] = {}
    for number in sorted({r["number"] for r in doc.get("rounds", [])}):
        standings = compute_standings(event, after_round=number - 1)
        out[number] = {row.player: points_stored(row.points) for row in standings.rows}
    return out


def _match_row(round_row: Round, m: dict[str, Any], system: str) -> Match:
    if m.get("bye") is True:
        kind, reported = MatchKind.BYE, True
    elif m.get("loss") is True:
        kind, reported = MatchKind.LOSS, True
    elif system == "league":
        kind, reported = MatchKind.GAME, "places" in m
    elif m.get("result") == "double_loss":
        kind, reported = MatchKind.DOUBLE_LOSS, True
    else:
        kind, reported = MatchKind.PLAYED, "wins" in m
    return Match(
        round=round_row,
        table=m.get("table"),
        kind=kind,
        reported=reported,
        draws=m.get("draws", 0) or 0,
    )


def _seat_rows(
    match: Match, round_row: Round, m: dict[str, Any], by_id: dict[str, Player]
) -> list[Seat]:
    wins, places, scores = m.get("wins"), m.get("places"), m.get("scores")
    seats = [
        Seat(
            match=match,
            round=round_row,
            player=by_id[pid],
            position=k,
            games_won=wins[k] if wins is not None else None,
            place=places[k] if places is not None else None,
            score=_decimal(scores[k]) if scores is not None else None,
        )
        for k, pid in enumerate(m["players"])
    ]
    n = len(seats)
    seats += [
        Seat(match=match, round=round_row, player=by_id[pid], position=n + k, absent=True)
        for k, pid in enumerate(m.get("absent", []))
    ]
    return seats
