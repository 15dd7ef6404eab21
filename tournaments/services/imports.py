"""Import: a `swiss-tournament/1` document becomes an event, through the one write path.

Validation (every problem named by its place) is tournaments.interchange's; this module
writes the rows in one transaction, with the audit entry and the recompute of `writing`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring.engine import compute_standings
from scoring.engine.document import event_from_document
from scoring.services import points_stored
from tournaments import audit_legacy
from tournaments import names as name_rules
from tournaments.interchange import instant, validate_document
from tournaments.models import (
    AuditAction,
    AuditEntry,
    AuditPlayer,
    Decklist,
    Enforcement,
    Entry,
    ExtensionReason,
    FixedSeat,
    Match,
    MatchKind,
    PairingRestriction,
    Penalty,
    Player,
    Report,
    ReportState,
    Round,
    Seat,
    StaffMember,
    StaffRole,
    Status,
    TimeExtension,
    Tournament,
)
from tournaments.names import normal as normal_name
from tournaments.services.corrections import CUT_DECISION, DECISION_FIELDS
from tournaments.services.lifecycle import insert_tournament, new_seed
from tournaments.services.writing import ServiceError, writing


def _decimal(value: int | float) -> Decimal:
    return Decimal(str(value))


@dataclass
class Restored:
    """A restore's outcome: the new event, and what of the backup could not be carried
    over to this installation, one sentence each for the person who restored it."""

    tournament: Tournament
    notes: list[str] = field(default_factory=list)


def import_document(doc: dict[str, Any], *, owner: Any = None) -> Tournament:
    """Create a tournament from a document; nothing is written if it is invalid.

    Raises interchange.DocumentError naming every problem's place.
    """
    return restore_document(doc, owner=owner).tournament


def restore_document(doc: dict[str, Any], *, owner: Any = None) -> Restored:
    """`import_document`, telling what a backup held that this installation could not
    take (staff without an account here, private links another event holds).

    `owner`: who restores it (the event is theirs). None (the command line): the
    backup's owner, when an account of that name exists here.
    """
    validate_document(doc)
    event = doc.get("event")
    notes: list[str] = []
    holder = owner if owner is not None else _backup_owner(event, notes)
    was = event.get("owner") if isinstance(event, dict) else None
    if owner is not None and was and was != owner.get_username():
        notes.append(
            _(
                "You own the restored event; the backup's owner was %(was)r. Add them to the "
                "staff if they run it too."
            )
            % {"was": was}
        )
    with transaction.atomic():
        tournament = _create(doc, holder)
        with writing(tournament, by=owner) as w:
            tournament = w.tournament  # the row as written, its version included
            _write_rows(tournament, doc)
            notes += _name_notes([normal_name(p["name"]) for p in doc["players"]])
            restored = ""
            if event is not None:
                notes += _restore_event(tournament, event)
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
    return Restored(tournament, notes)


def _name_notes(written: list[str]) -> list[str]:
    """What the organizer should know of the names imported as written: those that print
    alike (the pages number them, tournaments.names.display_names), and those holding a
    character that typing the name would refuse (one that hides or reorders text)."""
    notes = []
    if pairs := name_rules.lookalikes(written, []):
        notes.append(
            _(
                "Imported as written, these names print alike: %(pairs)s. The pages tell "
                "them apart by a number after the name; rename a player if a name is wrong."
            )
            % {
                "pairs": "; ".join(
                    _("%(new)s looks like %(old)s") % {"new": repr(new), "old": repr(old)}
                    for new, old in pairs
                )
            }
        )
    if hiding := [name for name in written if name_rules.hidden(name) is not None]:
        notes.append(
            _(
                "Imported as written, these names hold a character that shows as nothing or "
                "reorders the text around it: %(names)s. Rename these players if that is not "
                "how they write their names."
            )
            % {"names": _listed(hiding)}
        )
    return notes


def _backup_owner(event: Any, notes: list[str]) -> Any:
    name = event.get("owner") if isinstance(event, dict) else None
    if not name:
        return None
    user = get_user_model().objects.filter(username=name).first()
    if user is None:
        notes.append(
            _(
                "The backup's owner %(name)r has no account on this installation: the event "
                "has no owner (site admins manage it). Create the account first "
                "(manage.py create_organizer %(name)s) and restore again to keep it."
            )
            % {"name": name}
        )
    return user


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


def _restore_event(t: Tournament, event: dict[str, Any]) -> list[str]:
    """A backup's "event" section (tournaments.interchange): status, phase, plan, cut,
    clocks, registration, players' entries, contacts, links, check-ins and reports, staff
    and the audit trail as they were. Returns what could not be carried over."""
    notes: list[str] = []
    t.status = event.get("status", t.status)
    t.phase = event.get("phase", t.phase)
    t.top_cut = event.get("top_cut", t.top_cut)
    t.planned_rounds = event.get("planned_rounds", t.planned_rounds)
    t.time_zone = event.get("time_zone", t.time_zone) or ""
    reg = event.get("registration", {})
    t.registration_open = reg.get("open", t.registration_open)
    t.registration_cap = reg.get("cap", t.registration_cap)
    t.registration_approval = reg.get("approval", t.registration_approval)
    t.check_in = reg.get("check_in", t.check_in)
    t.save(update_fields=["status", "phase", "top_cut", "planned_rounds", "time_zone", "registration_open",
                          "registration_cap", "registration_approval", "check_in"])  # fmt: skip
    players = _restore_players(t, event, notes)
    _restore_reports(event.get("reports", []), players)
    _restore_penalties(t, event.get("penalties", []), players)
    _restore_seating(t, event, players)
    _restore_decklists(t, event, players)
    _restore_extensions(t, event.get("extensions", []))
    for clock in event.get("clocks", []):
        paused = clock.get("paused_seconds")
        Round.objects.filter(tournament=t, number=clock["round"]).update(
            clock_ends_at=instant(clock.get("ends_at")),
            clock_paused_remaining=None if paused is None else timedelta(seconds=paused),
        )
    users = get_user_model().objects
    wanted = [name for name in event.get("staff", []) if name != _username(t.owner)]
    found = list(users.filter(username__in=wanted))
    roles = event.get("staff_roles", {})
    StaffMember.objects.bulk_create(
        StaffMember(
            tournament=t,
            user=user,
            role=roles.get(user.get_username(), StaffRole.SCOREKEEPER),
        )
        for user in found
    )
    missing = sorted(set(wanted) - {u.get_username() for u in found})
    if missing:
        notes.append(
            ngettext(
                "No account called %(names)s on this installation, so this person is not on "
                "the staff: create the account on the event's Staff screen (A new account).",
                "No accounts called %(names)s on this installation, so they are not on the "
                "staff: create their accounts on the event's Staff screen (A new account).",
                len(missing),
            )
            % {"names": _listed(missing)}
        )
    entries = event.get("audit", [])
    names = {e["user"] for e in entries if e.get("user")}
    by_name = {u.get_username(): u for u in users.filter(username__in=names)}
    # What each entry is about. A backup of an older version holds entries written before
    # some of their facts were stored: those are read from their summaries once, here, as
    # migration 0018 read the entries in the database (audit_legacy; an entry that stored
    # its facts comes back as it was).
    now_named = {ext: p.name for ext, p in players.items()}
    facts = [
        audit_legacy.read(
            e["action"],
            e["summary"],
            e.get("before"),
            e.get("after"),
            round=e.get("round"),
            table=e.get("table"),
            players=[(name, ext) for ext, name in e.get("players", [])],
            names=now_named,
        )
        for e in entries
    ]
    rows = AuditEntry.objects.bulk_create(
        AuditEntry(
            tournament=t,
            user=by_name.get(e.get("user") or ""),
            action=e["action"],
            summary=e["summary"],
            before=e.get("before"),
            after=f.after,
            round=f.round,
            table=f.table,
        )
        for e, f in zip(entries, facts, strict=True)
    )
    AuditPlayer.objects.bulk_create(
        AuditPlayer(entry=row, external_id=ext, name=name)
        for row, f in zip(rows, facts, strict=True)
        for name, ext in f.players
    )
    # `at` is set on creation; the trail keeps its own times.
    for row, e in zip(rows, entries, strict=True):
        row.at = instant(e["at"])
    AuditEntry.objects.bulk_update(rows, ["at"], batch_size=500)
    cut = event["cut"] if "cut" in event else _cut_from_audit(entries)
    if cut is not None:
        _restore_cut(t, cut)
    return notes


def _username(user: Any) -> str | None:
    return user.get_username() if user is not None else None


def _listed(names: list[str]) -> str:
    quoted = [repr(n) for n in names]
    if len(quoted) == 1:
        return quoted[0]
    return _("%(names)s and %(name)s") % {"names": ", ".join(quoted[:-1]), "name": quoted[-1]}


def _restore_players(t: Tournament, event: dict[str, Any], notes: list[str]) -> dict[str, Player]:
    """Each player's made phase, entry, contact, private link (its hash), check-in and
    own drop, in one pass. A link whose hash a player of another event on this
    installation holds (the original, restored beside itself) stays with that player."""
    players = {p.external_id: p for p in Player.objects.filter(tournament=t)}
    for ext, phase in event.get("made_phase", {}).items():
        players[ext].made_phase = phase
    # Pending and rejected entries stay what they were.
    for ext, entry in event.get("entries", {}).items():
        if ext in players and entry in Entry.values:
            players[ext].entry = entry
    for ext, contact in event.get("contacts", {}).items():
        if ext in players:
            players[ext].contact = str(contact)[:200]
    for ext, at in event.get("checked_in", {}).items():
        players[ext].checked_in_at = instant(at)
    for ext in event.get("dropped_by_player", []):
        players[ext].dropped_by_player = True
    links: dict[str, str] = event.get("links", {})
    held = set(
        Player.objects.filter(token_hash__in=links.values()).values_list("token_hash", flat=True)
    )
    for ext, digest in links.items():
        if digest not in held:
            players[ext].token_hash = digest
    if held:
        n = sum(1 for digest in links.values() if digest in held)
        notes.append(
            ngettext(
                "%(counter)s private link already opens a player's page in another event on "
                "this installation (the original, if it is still here): it stays with it. "
                "Give this player new links here if this copy is the one to use.",
                "%(counter)s private links already open a player's page in another event on "
                "this installation (the original, if it is still here): they stay with it. "
                "Give these players new links here if this copy is the one to use.",
                n,
            )
            % {"counter": n}
        )
    fields = ["made_phase", "entry", "contact", "checked_in_at", "dropped_by_player"]
    Player.objects.bulk_update(players.values(), fields, batch_size=500)
    try:
        # A restore of the same backup at the same moment takes the same hashes.
        with transaction.atomic():
            Player.objects.bulk_update(players.values(), ["token_hash"], batch_size=500)
    except IntegrityError:
        for p in players.values():
            p.token_hash = ""
        notes.append(
            "The private links were taken by another event restored at the same moment: "
            "give the players new links here if this copy is the one to use."
        )
    return players


def _restore_seating(t: Tournament, event: dict[str, Any], players: dict[str, Player]) -> None:
    """The enforcement level, fixed seats and pairing restrictions (interchange: the
    floor's keys), as validated."""
    t.enforcement = event.get("enforcement", Enforcement.REGULAR)
    t.save(update_fields=["enforcement"])
    FixedSeat.objects.bulk_create(
        FixedSeat(tournament=t, player=players[ext], table=seat["table"],
                  reason=seat.get("reason", ""))
        for ext, seat in event.get("fixed_seats", {}).items()
    )  # fmt: skip
    rows = []
    for a, b, reason in event.get("restrictions", []):
        first, second = sorted((players[a], players[b]), key=lambda p: p.pk)
        rows.append(
            PairingRestriction(tournament=t, player_a=first, player_b=second, reason=reason)
        )
    PairingRestriction.objects.bulk_create(rows)


def _restore_decklists(t: Tournament, event: dict[str, Any], players: dict[str, Player]) -> None:
    """The decklists' settings and each player's list as submitted, checked again here
    (this installation's card data may differ from the one that made the backup)."""
    from tournaments.services.cards import card_lookup
    from tournaments.services.decklists import check_text, refused_fields

    if not event.get("deck_format"):
        return
    t.deck_format = event["deck_format"]
    t.decklist_deadline = instant(event.get("decklist_deadline"))
    t.decklists_published = bool(event.get("decklists_published", False))
    t.save(update_fields=["deck_format", "decklist_deadline", "decklists_published"])
    cards = card_lookup()
    users = {
        u.get_username(): u
        for u in get_user_model().objects.filter(
            username__in=[r.get("updated_by") for r in event.get("decklists", {}).values()]
        )
    }
    rows = []
    for ext, row in event.get("decklists", {}).items():
        try:
            fields = check_text(row["text"], deck_format=t.deck_format, cards=cards).fields()
        except ServiceError as exc:
            fields = refused_fields(row["text"], exc, names_checked=cards is not None)
        rows.append(
            Decklist(
                player=players[ext],
                submitted_at=instant(row["submitted_at"]),
                updated_at=instant(row["updated_at"]),
                updated_by=users.get(row.get("updated_by")),
                **fields,
            )
        )
    Decklist.objects.bulk_create(rows)


def _restore_extensions(t: Tournament, rows: list[dict[str, Any]]) -> None:
    """The judges' time extensions, on the match at each round's table (one left out if
    the round has no such table); a deck check's keeps its minutes and reason, not the
    check it came from (deck checks are not in the backup)."""
    if not rows:
        return
    match_of = {
        (number, table): pk
        for pk, number, table in Match.objects.filter(round__tournament=t).values_list(
            "pk", "round__number", "table"
        )
    }
    TimeExtension.objects.bulk_create(
        TimeExtension(
            match_id=match_of[(r["round"], r["table"])],
            minutes=r["minutes"],
            reason=r.get("reason", ExtensionReason.JUDGE),
            note=r.get("note", ""),
        )
        for r in rows
        if (r["round"], r["table"]) in match_of
    )


def _restore_reports(reports: list[dict[str, Any]], players: dict[str, Player]) -> None:
    """The players' own reports, on the match the reporter plays in that round
    (tournaments.interchange checked that there is exactly one)."""
    if not reports:
        return
    reporters = [players[r["reporter"]].pk for r in reports]
    seats = Seat.objects.filter(player_id__in=reporters)
    match_of = {
        (number, player_id): match_id
        for number, player_id, match_id in seats.values_list(
            "round__number", "player_id", "match_id"
        )
    }
    rows = []
    for r in reports:
        counter = r.get("counter")
        answered = r.get("answered_by")
        row = Report(
            match_id=match_of[(r["round"], players[r["reporter"]].pk)],
            reporter=players[r["reporter"]],
            wins_a=r["wins"][0],
            wins_b=r["wins"][1],
            draws=r.get("draws", 0),
            state=r.get("state", ReportState.REPORTED),
            answered_by=players[answered] if answered is not None else None,
        )
        row.set_counter_claim(tuple(counter) if counter is not None else None)
        rows.append(row)
    Report.objects.bulk_create(rows, batch_size=500)
    # Created now by bulk_create; the reports keep their own times.
    for row, r in zip(rows, reports, strict=True):
        row.created_at = instant(r.get("created_at")) or row.created_at
        row.updated_at = instant(r.get("updated_at")) or row.updated_at
    Report.objects.bulk_update(rows, ["created_at", "updated_at"], batch_size=500)


def _restore_penalties(
    t: Tournament, penalties: list[dict[str, Any]], players: dict[str, Player]
) -> None:
    """The judges' penalties (issue 27; tournaments.interchange checked them), each on the
    match its player plays in its round, by its judge when an account of that name is
    here (else none: the judge's name is not kept beyond the account)."""
    if not penalties:
        return
    pks = [players[p["player"]].pk for p in penalties]
    match_of = {
        (number, player_id): match_id
        for number, player_id, match_id in Seat.objects.filter(player_id__in=pks).values_list(
            "round__number", "player_id", "match_id"
        )
    }
    names = {p["judge"] for p in penalties if p.get("judge")}
    judges = {u.get_username(): u for u in get_user_model().objects.filter(username__in=names)}
    rows = [
        Penalty(
            tournament=t,
            player=players[p["player"]],
            match_id=match_of.get((p.get("round"), players[p["player"]].pk)),
            round_number=p.get("round"),
            table=p.get("table"),
            infraction=p["infraction"],
            penalty=p["penalty"],
            judge=judges.get(p.get("judge") or ""),
            note=p.get("note", ""),
        )
        for p in penalties
    ]
    Penalty.objects.bulk_create(rows, batch_size=500)
    # Created now by bulk_create; the penalties keep their own times.
    for row, p in zip(rows, penalties, strict=True):
        row.created_at = instant(p["at"])
    Penalty.objects.bulk_update(rows, ["created_at"], batch_size=500)


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
