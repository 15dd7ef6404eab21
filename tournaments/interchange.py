"""The `swiss-tournament/1` document (shared/spec/interchange.md) <-> the database.

`validate_document` checks a parsed document completely before anything is written and
names every problem by its place (`rounds[2].matches[5].players[1]: unknown player 'p9'`).
tournaments.services.imports writes a valid document through the services' one write
path; `export_document` gives it back (a lossless round trip up to key order and
defaults). Nothing here writes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from zoneinfo import available_timezones

from django.utils.translation import gettext as _

from scoring.engine.records import SYSTEMS
from tournaments.labels import spoken
from tournaments.models import (
    AuditAction,
    CutDecision,
    DeckFormat,
    Decklist,
    Enforcement,
    Entry,
    ExtensionReason,
    FixedSeat,
    Match,
    MatchKind,
    PairingRestriction,
    Penalty,
    PenaltyKind,
    Report,
    ReportState,
    Seat,
    StaffMember,
    StaffRole,
    TimeExtension,
    Tournament,
)
from tournaments.rules import MAX_GAMES, check_two_player_result

FORMAT = "swiss-tournament/1"
MAX_ERRORS = 25
# shared/spec/scoring.md section 4: a game seats 3 to 5 players.
LEAGUE_TABLE_MIN, LEAGUE_TABLE_MAX = 3, 5
MAX_SCORE = 10**9  # Seat.score holds 10 digits before the point


class DocumentError(ValueError):
    """A document that cannot be imported; `problems` are 'place: message' strings."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


def parse_document(text: str | bytes) -> dict[str, Any]:
    try:
        doc = json.loads(text)
    except UnicodeDecodeError as exc:
        raise DocumentError(
            ["document: " + _("not UTF-8 text (%(reason)s)") % {"reason": exc.reason}]
        ) from exc
    except json.JSONDecodeError as exc:
        raise DocumentError(
            [
                "document: "
                + _("not valid JSON: %(error)s at line %(line)s, column %(column)s")
                % {"error": exc.msg, "line": exc.lineno, "column": exc.colno}
            ]
        ) from exc
    except RecursionError:
        raise DocumentError(["document: " + _("nested too deeply to be a tournament")]) from None
    except ValueError as exc:  # e.g. Python's limit on the digits of an integer
        raise DocumentError(
            ["document: " + _("not usable JSON: %(error)s") % {"error": exc}]
        ) from None
    validate_document(doc)
    return doc


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (_is_int(value) or isinstance(value, float)) and value == value and abs(value) < 1e12


def _type_name(value: Any) -> str:
    return {
        dict: _("an object"),
        list: _("a list"),
        str: _("a string"),
        bool: _("a boolean"),
        int: _("an integer"),
        float: _("a number"),
        type(None): "null",
    }.get(type(value), type(value).__name__)


@dataclass
class _Checker:
    problems: list[str]

    def add(self, place: str, message: str) -> None:
        if len(self.problems) < MAX_ERRORS:
            self.problems.append(f"{place}: {message}")

    def expect(self, place: str, value: Any, kind: type | tuple[type, ...], what: str) -> bool:
        ok = isinstance(value, kind) and not (isinstance(value, bool) and kind in (int, float))
        if not ok:
            self.add(
                place,
                _("expected %(what)s, got %(got)s") % {"what": what, "got": _type_name(value)},
            )
        return ok

    def text(self, place: str, value: str, *, maximum: int) -> bool:
        """A name or an id: not blank, not too long, no control characters (NUL ...)."""
        if not value.strip():
            self.add(place, _("must not be empty"))
        elif len(value) > maximum:
            self.add(place, _("longer than %(max)s characters") % {"max": maximum})
        elif any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in value):
            self.add(place, _("contains a control character"))
        else:
            return True
        return False

    def count(self, place: str, value: Any, *, minimum: int = 0, maximum: int = MAX_GAMES) -> bool:
        if not _is_int(value):
            self.add(place, _("expected an integer, got %(got)s") % {"got": _type_name(value)})
            return False
        if value < minimum:
            self.add(
                place,
                _("must be at least %(min)s, got %(value)s") % {"min": minimum, "value": value},
            )
            return False
        if value > maximum:
            self.add(
                place,
                _("must be at most %(max)s, got %(value)s") % {"max": maximum, "value": value},
            )
            return False
        return True


def validate_document(doc: Any) -> None:
    """Raise DocumentError listing every problem found (up to MAX_ERRORS)."""
    c = _Checker([])
    if not isinstance(doc, dict):
        raise DocumentError(
            ["document: " + _("expected an object, got %(got)s") % {"got": _type_name(doc)}]
        )
    if doc.get("format", FORMAT) != FORMAT:
        c.add(
            "format",
            _("expected %(want)r, got %(got)r") % {"want": FORMAT, "got": doc.get("format")},
        )
    name = doc.get("name")
    if c.expect("name", name, str, _("a string")):
        c.text("name", name, maximum=200)
    system = doc.get("system")
    if system not in SYSTEMS:
        c.add(
            "system",
            _("unknown system %(system)r (expected one of %(known)s)")
            % {"system": system, "known": ", ".join(SYSTEMS)},
        )
    if ("best_of" in doc and doc["best_of"] not in (1, 3)) or isinstance(doc.get("best_of"), bool):
        c.add("best_of", _("must be 1 or 3, got %(got)r") % {"got": doc["best_of"]})
    best_of = doc.get("best_of", 1 if system == "pod" else 3)
    if best_of not in (1, 3) or isinstance(best_of, bool):
        best_of = 3  # reported above; check the results as a best of 3
    if "seed" in doc and doc["seed"] is not None:
        if not _is_int(doc["seed"]):
            c.add("seed", _("expected an integer, got %(got)s") % {"got": _type_name(doc["seed"])})
        elif not -(2**63) <= doc["seed"] < 2**63:
            c.add("seed", _("must fit in 64 bits"))

    ids: set[str] = set()
    players = doc.get("players")
    if c.expect("players", players, list, _("a list")):
        for i, player in enumerate(players):
            place = f"players[{i}]"
            if not c.expect(place, player, dict, _("an object")):
                continue
            pid = player.get("id")
            if c.expect(f"{place}.id", pid, str, _("a string")):
                if c.text(f"{place}.id", pid, maximum=100) and pid in ids:
                    c.add(f"{place}.id", _("duplicate player id %(id)r") % {"id": pid})
                ids.add(pid)
            pname = player.get("name")
            # A string, not blank, not too long, no control character: nothing more. A
            # name is imported as its event wrote it (emoji, and even characters that
            # typing one would refuse: tournaments.names); services.imports tells the
            # organizer of names that print alike or hide characters.
            if c.expect(f"{place}.name", pname, str, _("a string")):
                c.text(f"{place}.name", pname, maximum=200)
            if player.get("dropped_after_round") is not None:
                c.count(
                    f"{place}.dropped_after_round",
                    player["dropped_after_round"],
                    minimum=0,
                    maximum=10_000,
                )

    rounds = doc.get("rounds", [])
    numbers: set[int] = set()
    if c.expect("rounds", rounds, list, _("a list")):
        for r, rnd in enumerate(rounds):
            rplace = f"rounds[{r}]"
            if not c.expect(rplace, rnd, dict, _("an object")):
                continue
            if c.count(f"{rplace}.number", rnd.get("number"), minimum=1, maximum=10_000):
                if rnd["number"] in numbers:
                    c.add(
                        f"{rplace}.number",
                        _("round %(round)s appears twice") % {"round": rnd["number"]},
                    )
                numbers.add(rnd["number"])
            if "phase" in rnd:
                c.count(f"{rplace}.phase", rnd["phase"], minimum=1, maximum=100)
            if "playoff" in rnd and not isinstance(rnd["playoff"], bool):
                c.add(
                    f"{rplace}.playoff",
                    _("expected true or false, got %(got)s") % {"got": _type_name(rnd["playoff"])},
                )
            matches = rnd.get("matches", [])
            if not c.expect(f"{rplace}.matches", matches, list, _("a list")):
                continue
            if not matches:
                c.add(f"{rplace}.matches", _("a round with no match: nobody played it"))
            seated: set[str] = set()
            tables: set[int] = set()
            for m, match in enumerate(matches):
                mplace = f"{rplace}.matches[{m}]"
                if not c.expect(mplace, match, dict, _("an object")):
                    continue
                if match.get("table") is not None and c.count(
                    f"{mplace}.table", match["table"], minimum=1, maximum=100_000
                ):
                    if match["table"] in tables:
                        c.add(
                            f"{mplace}.table",
                            _("table %(table)s used twice in this round")
                            % {"table": match["table"]},
                        )
                    tables.add(match["table"])
                _check_match(c, mplace, match, system, ids, seated, best_of)
    if "event" in doc:
        _check_event(c, doc["event"], ids, numbers)
        if isinstance(doc["event"], dict):
            _check_carried(c, doc["event"], ids, _match_of_seat(doc))
            _check_penalties(c, doc["event"].get("penalties", []), ids, numbers)
            _check_seating(c, doc["event"], ids)
            _check_decklists(c, doc["event"], ids)
            _check_extensions(c, doc["event"], numbers)
    if c.problems:
        raise DocumentError(c.problems)


# --- The backup's "event" section --------------------------------------------------------
# A backup (the event screen's download, `export_tournament --backup`) adds what the
# interchange document leaves out, so that a restore gives back the same event: its
# status, phase, plan and cut, each round's clock, the staff and the audit trail. The
# plain document (results only) stays as shared/spec/interchange.md describes it.
# "cut": when the top cut started and the organizer's decision after a correction
# (Tournament.cut_*); a backup written before the decision had columns carries it in
# its audit trail only (services.imports reads it from there).
#
# The laptop swap (issue 26): what the organizer needs to go on from another
# installation. "links": each player's private link as its SHA-256 (tournaments/tokens.py;
# the token itself is stored nowhere, so a backup cannot hold it), so that the players'
# links open their pages after a restore; "checked_in"; "registration" (open or closed,
# cap, approval, check-in); "owner" and "staff" by username (never a password: a
# restore links the accounts of the same names); "dropped_by_player"; "reports" (the
# players' own reports, by round and reporter). Every key is optional and unknown keys
# are ignored, so a backup written before these keys restores as it did.
#
# "penalties" (issue 27): the judges' penalties, oldest first (see `_penalties`). In the
# backup only: the plain document is public (results, nothing private), and a penalty
# with its judge's note is not.
# The floor (issue 27): "enforcement" (the Rules Enforcement Level: regular, competitive,
# professional; absent: regular), "fixed_seats" ({player id: {"table", "reason"}}) and
# "restrictions" ([[player id, player id, reason]], regular events only).

STATUSES = ("registration", "running", "top_cut", "finished")
AUDIT_ACTIONS = frozenset(AuditAction.values)
AUDIT_KEEP = 20_000  # entries a backup carries, newest first


def _check_event(c: _Checker, event: Any, ids: set[str], numbers: set[int]) -> None:
    if not c.expect("event", event, dict, _("an object")):
        return
    if event.get("status", "running") not in STATUSES:
        c.add("event.status", _("unknown status %(status)r") % {"status": event.get("status")})
    if "phase" in event:
        c.count("event.phase", event["phase"], minimum=1, maximum=100)
    if event.get("top_cut", 0) not in (0, 2, 4, 8) or isinstance(event.get("top_cut"), bool):
        c.add(
            "event.top_cut", _("must be 0, 2, 4 or 8, got %(got)r") % {"got": event.get("top_cut")}
        )
    if event.get("planned_rounds") is not None:
        c.count("event.planned_rounds", event["planned_rounds"], minimum=1, maximum=30)
    zone = event.get("time_zone", "")
    if zone and (not isinstance(zone, str) or zone not in available_timezones()):
        c.add("event.time_zone", _("unknown time zone %(zone)r") % {"zone": zone})
    made = event.get("made_phase", {})
    if c.expect("event.made_phase", made, dict, _("an object")):
        for pid, phase in made.items():
            if pid not in ids:
                c.add(f"event.made_phase.{pid}", _("unknown player %(id)r") % {"id": pid})
            else:
                c.count(f"event.made_phase.{pid}", phase, minimum=1, maximum=100)
    clocks = event.get("clocks", [])
    if c.expect("event.clocks", clocks, list, _("a list")):
        for k, clock in enumerate(clocks):
            place = f"event.clocks[{k}]"
            if not c.expect(place, clock, dict, _("an object")):
                continue
            if (
                c.count(f"{place}.round", clock.get("round"), minimum=1, maximum=10_000)
                and clock["round"] not in numbers
            ):
                c.add(
                    f"{place}.round",
                    _("no round %(round)s in this document") % {"round": clock["round"]},
                )
            if clock.get("ends_at") is not None and instant(clock["ends_at"]) is None:
                c.add(f"{place}.ends_at", _("expected an ISO 8601 date and time with a zone"))
            paused = clock.get("paused_seconds")
            if paused is not None and (not _is_number(paused) or not -36_000 <= paused <= 36_000):
                c.add(f"{place}.paused_seconds", _("expected seconds between -36000 and 36000"))
    if "cut" in event:
        _check_cut(c, event["cut"])
    staff = event.get("staff", [])
    if c.expect("event.staff", staff, list, _("a list")):
        for k, name in enumerate(staff):
            if c.expect(f"event.staff[{k}]", name, str, _("a string")):
                c.text(f"event.staff[{k}]", name, maximum=150)
    roles = event.get("staff_roles", {})
    if c.expect("event.staff_roles", roles, dict, _("an object of username: role")):
        for name, role in roles.items():
            if role not in StaffRole.values:
                c.add(
                    f"event.staff_roles[{name!r}]",
                    _("%(role)r is not a staff role (one of %(known)s)")
                    % {"role": role, "known": ", ".join(StaffRole.values)},
                )
    audit = event.get("audit", [])
    if c.expect("event.audit", audit, list, _("a list")):
        for k, entry in enumerate(audit[:AUDIT_KEEP]):
            place = f"event.audit[{k}]"
            if not c.expect(place, entry, dict, _("an object")):
                continue
            if instant(entry.get("at")) is None:
                c.add(f"{place}.at", _("expected an ISO 8601 date and time with a zone"))
            if entry.get("action") not in AUDIT_ACTIONS:
                c.add(
                    f"{place}.action",
                    _("unknown action %(action)r") % {"action": entry.get("action")},
                )
            if c.expect(f"{place}.summary", entry.get("summary"), str, _("a string")):
                c.text(f"{place}.summary", entry["summary"], maximum=300)
            if entry.get("user") is not None and c.expect(
                f"{place}.user", entry["user"], str, "a string"
            ):
                c.text(f"{place}.user", entry["user"], maximum=150)
            for key, maximum in (("round", 10_000), ("table", 1_000_000)):
                if entry.get(key) is not None:
                    c.count(f"{place}.{key}", entry[key], minimum=0, maximum=maximum)
            players = entry.get("players", [])
            if c.expect(f"{place}.players", players, list, _("a list")):
                for j, named in enumerate(players):
                    ok = (
                        isinstance(named, list)
                        and len(named) == 2
                        and (named[0] is None or isinstance(named[0], str))
                        and isinstance(named[1], str)
                        and len(named[0] or "") <= 100
                        and len(named[1]) <= 200
                    )
                    if not ok:
                        c.add(f"{place}.players[{j}]", _("expected [player id or null, name]"))


SHA256_HEX = re.compile(r"[0-9a-f]{64}")
REGISTRATION_FLAGS = ("open", "approval", "check_in")


def _match_of_seat(doc: dict[str, Any]) -> dict[tuple[int, str], tuple[str, str]]:
    """(round number, player id) -> the two players of their match, in seat order: where
    a player's report can belong. Read defensively: the rounds' own problems are named
    by validate_document."""
    out: dict[tuple[int, str], tuple[str, str]] = {}
    rounds = doc.get("rounds")
    if doc.get("system") == "league" or not isinstance(rounds, list):
        return out
    for rnd in rounds:
        matches = rnd.get("matches") if isinstance(rnd, dict) else None
        if not _is_int(rnd.get("number") if isinstance(rnd, dict) else None):
            continue
        for m in matches if isinstance(matches, list) else []:
            players = m.get("players") if isinstance(m, dict) else None
            if (
                isinstance(players, list)
                and len(players) == 2
                and all(isinstance(p, str) for p in players)
            ):
                pair = (players[0], players[1])
                for pid in pair:
                    out[(rnd["number"], pid)] = pair
    return out


def _check_carried(
    c: _Checker,
    event: dict[str, Any],
    ids: set[str],
    seats: dict[tuple[int, str], tuple[str, str]],
) -> None:
    """The laptop swap's keys (see above)."""
    owner = event.get("owner")
    if owner is not None and c.expect("event.owner", owner, str, _("a string")):
        c.text("event.owner", owner, maximum=150)
    if "registration" in event:
        reg = event["registration"]
        if c.expect("event.registration", reg, dict, _("an object")):
            for key in REGISTRATION_FLAGS:
                if key in reg and not isinstance(reg[key], bool):
                    c.add(f"event.registration.{key}",
                          _("expected true or false, got %(got)s") % {"got": _type_name(reg[key])})  # fmt: skip
            if reg.get("cap") is not None:
                c.count("event.registration.cap", reg["cap"], minimum=1, maximum=100_000)
    links = event.get("links", {})
    if c.expect("event.links", links, dict, _("an object")):
        holder: dict[str, str] = {}
        for pid, digest in links.items():
            place = f"event.links.{pid}"
            if pid not in ids:
                c.add(place, _("unknown player %(id)r") % {"id": pid})
            elif not isinstance(digest, str) or not SHA256_HEX.fullmatch(digest):
                c.add(place, _("expected a SHA-256 hash (64 lowercase hex digits), not a link"))
            elif digest in holder:
                c.add(place, _("the same private link as player %(id)r") % {"id": holder[digest]})
            else:
                holder[digest] = pid
    checked = event.get("checked_in", {})
    if c.expect("event.checked_in", checked, dict, _("an object")):
        for pid, at in checked.items():
            if pid not in ids:
                c.add(f"event.checked_in.{pid}", _("unknown player %(id)r") % {"id": pid})
            elif instant(at) is None:
                c.add(
                    f"event.checked_in.{pid}", _("expected an ISO 8601 date and time with a zone")
                )
    own = event.get("dropped_by_player", [])
    if c.expect("event.dropped_by_player", own, list, _("a list")):
        for k, pid in enumerate(own):
            if not isinstance(pid, str) or pid not in ids:
                c.add(f"event.dropped_by_player[{k}]", _("unknown player %(id)r") % {"id": pid})
    _check_reports(c, event.get("reports", []), seats)


def _check_decklists(c: _Checker, event: dict[str, Any], ids: set[str]) -> None:
    """The decklists' keys (see _decklists)."""
    deck_format = event.get("deck_format", "")
    if deck_format not in DeckFormat.values:
        c.add("event.deck_format", _("unknown format %(format)r") % {"format": deck_format})
    deadline = event.get("decklist_deadline")
    if deadline is not None and instant(deadline) is None:
        c.add("event.decklist_deadline", _("expected an ISO 8601 time with its offset"))
    if not isinstance(event.get("decklists_published", False), bool):
        c.add("event.decklists_published", _("expected a boolean"))
    lists = event.get("decklists", {})
    if not c.expect("event.decklists", lists, dict, _("an object of player id: list")):
        return
    for pid, row in lists.items():
        place = f"event.decklists.{pid}"
        if pid not in ids:
            c.add(place, _("unknown player %(id)r") % {"id": pid})
        elif c.expect(place, row, dict, _("an object")):
            text = row.get("text")
            if not isinstance(text, str) or len(text) > 65_536:
                c.add(f"{place}.text", _("expected a text of at most 64 kB"))
            for key in ("submitted_at", "updated_at"):
                if instant(row.get(key)) is None:
                    c.add(f"{place}.{key}", _("expected an ISO 8601 time with its offset"))


def _check_extensions(c: _Checker, event: dict[str, Any], numbers: Any) -> None:
    """The time extensions' key (see _extensions)."""
    rows = event.get("extensions", [])
    if not c.expect("event.extensions", rows, list, _("a list")):
        return
    for k, row in enumerate(rows):
        place = f"event.extensions[{k}]"
        if not c.expect(place, row, dict, _("an object")):
            continue
        c.count(f"{place}.round", row.get("round"), minimum=1, maximum=10_000)
        c.count(f"{place}.table", row.get("table"), minimum=1, maximum=100_000)
        c.count(f"{place}.minutes", row.get("minutes"), minimum=1, maximum=600)
        if row.get("reason", ExtensionReason.JUDGE) not in ExtensionReason.values:
            c.add(f"{place}.reason", _("unknown reason %(reason)r") % {"reason": row.get("reason")})
        note = row.get("note", "")
        if not isinstance(note, str) or len(note) > 200:
            c.add(f"{place}.note", _("expected a text of at most 200 characters"))


def _check_seating(c: _Checker, event: dict[str, Any], ids: set[str]) -> None:
    """The floor's keys (see above)."""
    level = event.get("enforcement", Enforcement.REGULAR)
    if level not in Enforcement.values:
        c.add("event.enforcement", _("unknown level %(level)r (expected one of %(known)s)")
              % {"level": level, "known": ", ".join(Enforcement.values)})  # fmt: skip
    fixed = event.get("fixed_seats", {})
    if c.expect("event.fixed_seats", fixed, dict, _("an object")):
        holder: dict[int, str] = {}
        for pid, seat in fixed.items():
            place = f"event.fixed_seats.{pid}"
            if pid not in ids:
                c.add(place, _("unknown player %(id)r") % {"id": pid})
            elif c.expect(place, seat, dict, _("an object")) and c.count(
                f"{place}.table", seat.get("table"), minimum=1, maximum=100_000
            ):
                if seat["table"] in holder:
                    c.add(f"{place}.table", _("table %(table)s is fixed for %(id)r too")
                          % {"table": seat["table"], "id": holder[seat["table"]]})  # fmt: skip
                holder[seat["table"]] = pid
                reason = seat.get("reason", "")
                if not isinstance(reason, str) or len(reason) > 100:
                    c.add(f"{place}.reason", _("expected a text of at most 100 characters"))
    pairs = event.get("restrictions", [])
    if not c.expect("event.restrictions", pairs, list, _("a list")):
        return
    if pairs and level != Enforcement.REGULAR:
        c.add("event.restrictions", _("pairing restrictions are for regular (casual) events only"))
    seen: set[frozenset[str]] = set()
    for k, row in enumerate(pairs):
        place = f"event.restrictions[{k}]"
        if not (
            isinstance(row, list)
            and len(row) == 3
            and all(isinstance(v, str) for v in row)
            and len(row[2]) <= 100
        ):
            c.add(place, _("expected [player id, player id, reason]"))
            continue
        a, b, _reason = row
        unknown = [p for p in (a, b) if p not in ids]
        if unknown:
            c.add(place, _("unknown player %(id)r") % {"id": unknown[0]})
        elif a == b:
            c.add(place, _("the same player twice"))
        elif frozenset((a, b)) in seen:
            c.add(place, _("%(a)r and %(b)r are listed twice") % {"a": a, "b": b})
        seen.add(frozenset((a, b)))


def _check_reports(
    c: _Checker, reports: Any, seats: dict[tuple[int, str], tuple[str, str]]
) -> None:
    if not c.expect("event.reports", reports, list, _("a list")):
        return
    reported: set[tuple[int, tuple[str, str]]] = set()
    for k, report in enumerate(reports):
        place = f"event.reports[{k}]"
        if not c.expect(place, report, dict, _("an object")):
            continue
        number, reporter = report.get("round"), report.get("reporter")
        pair = seats.get((number, reporter)) if _is_int(number) else None
        if pair is None:
            c.add(f"{place}.reporter", _("%(id)r plays no two-player match in round %(round)r of this document")
                  % {"id": reporter, "round": number})  # fmt: skip
        elif (number, pair) in reported:
            c.add(place, _("a second report for round %(round)s's match of %(a)r and %(b)r")
                  % {"round": number, "a": pair[0], "b": pair[1]})  # fmt: skip
        else:
            reported.add((number, pair))
        wins = report.get("wins")
        if c.expect(f"{place}.wins", wins, list, _("a list of two game counts")):
            if len(wins) != 2:
                c.add(
                    f"{place}.wins",
                    _("expected two game counts, got %(count)s") % {"count": len(wins)},
                )
            for j, won in enumerate(wins[:2]):
                c.count(f"{place}.wins[{j}]", won)
        c.count(f"{place}.draws", report.get("draws", 0))
        if report.get("state", ReportState.REPORTED) not in ReportState.values:
            c.add(f"{place}.state", _("unknown state %(state)r") % {"state": report.get("state")})
        answered = report.get("answered_by")
        if answered is not None and (pair is None or answered not in pair):
            c.add(
                f"{place}.answered_by", _("%(id)r is not a player of this match") % {"id": answered}
            )
        counter = report.get("counter")
        if counter is not None and not (
            isinstance(counter, list)
            and len(counter) == 3
            and all(_is_int(v) and 0 <= v <= MAX_GAMES for v in counter)
        ):
            c.add(f"{place}.counter", _("expected [games, games, draws] or null"))
        for key in ("created_at", "updated_at"):
            if report.get(key) is not None and instant(report[key]) is None:
                c.add(f"{place}.{key}", _("expected an ISO 8601 date and time with a zone"))


def _check_cut(c: _Checker, cut: Any) -> None:
    if not c.expect("event.cut", cut, dict, _("an object")):
        return
    for key in ("started_at", "decided_at"):
        if cut.get(key) is not None and instant(cut[key]) is None:
            c.add(f"event.cut.{key}", _("expected an ISO 8601 date and time with a zone"))
    decision = cut.get("decision", "")
    if decision not in CutDecision.values:
        c.add(
            "event.cut.decision",
            _("must be keep, reseed or empty, got %(got)r") % {"got": decision},
        )
        return
    if not decision:
        return
    if cut.get("decided_at") is None:
        c.add("event.cut.decided_at", _("a decision needs its time"))
    changes = cut.get("changes")
    if c.expect("event.cut.changes", changes, list, _("a list")):
        for k, change in enumerate(changes):
            ok = (
                isinstance(change, list)
                and len(change) == 4
                and isinstance(change[0], str)
                and all(v is None or _is_int(v) for v in change[1:])
            )
            if not ok:
                c.add(f"event.cut.changes[{k}]", _("expected [player id, seed, place, new seed]"))
    correction = cut.get("correction")
    if correction is None or not c.expect("event.cut.correction", correction, dict, _("an object")):
        return
    for key, maximum in (("round", 10_000), ("table", 1_000_000)):
        if correction.get(key) is not None:
            c.count(f"event.cut.correction.{key}", correction[key], minimum=1, maximum=maximum)
    if correction.get("at") is not None and instant(correction["at"]) is None:
        c.add("event.cut.correction.at", _("expected an ISO 8601 date and time with a zone"))


def instant(value: Any) -> Any:
    from datetime import datetime

    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def backup_section(tournament: Tournament) -> dict[str, Any]:
    """The "event" section of a backup (see above)."""
    from tournaments.models import AuditEntry, AuditPlayer

    rounds = tournament.rounds.order_by("number")
    entries = (
        AuditEntry.objects.filter(tournament=tournament).select_related("user").order_by("at", "id")
    )
    about: dict[int, list[list[str | None]]] = {}
    for entry_id, ext, name in (
        AuditPlayer.objects.filter(entry__tournament=tournament)
        .order_by("id")
        .values_list("entry_id", "external_id", "name")
    ):
        about.setdefault(entry_id, []).append([ext, name])
    return {
        "status": tournament.status,
        "phase": tournament.phase,
        "top_cut": tournament.top_cut,
        "planned_rounds": tournament.planned_rounds,
        "time_zone": tournament.time_zone,
        "made_phase": {
            ext: made
            for ext, made in tournament.players.order_by("id").values_list(
                "external_id", "made_phase"
            )
            if made != 1
        },
        "clocks": [
            {
                "round": r.number,
                "ends_at": r.clock_ends_at.isoformat() if r.clock_ends_at else None,
                "paused_seconds": (
                    r.clock_paused_remaining.total_seconds()
                    if r.clock_paused_remaining is not None
                    else None
                ),
            }
            for r in rounds
            if r.clock_ends_at is not None or r.clock_paused_remaining is not None
        ],
        **_cut(tournament),
        "staff": sorted(tournament.staff.values_list("username", flat=True)),
        # issue 27: each staff member's role (a judge restored as a scorekeeper could pair)
        "staff_roles": dict(
            sorted(
                StaffMember.objects.filter(tournament=tournament).values_list(
                    "user__username", "role"
                )
            )
        ),
        # issue 14: the entries that are not plainly accepted, and how to reach players
        # (the owner's own data).
        **_entries_and_contacts(tournament),
        **_carried(tournament),
        **_penalties(tournament),
        **_seating(tournament),
        **_decklists(tournament),
        **_extensions(tournament),
        "audit": [
            {
                "at": e.at.isoformat(),
                "user": e.user.get_username() if e.user else None,
                "action": e.action,
                "summary": e.summary,
                "before": e.before,
                "after": e.after,
                "round": e.round,
                "table": e.table,
                "players": about.get(e.pk, []),
            }
            for e in entries[:AUDIT_KEEP]
        ],
    }


def _cut(t: Tournament) -> dict[str, Any]:
    """The top cut's start and decision (see above), when there is either."""
    if t.cut_started_at is None and not t.cut_decision:
        return {}

    def iso(moment: Any) -> str | None:
        return moment.isoformat() if moment is not None else None

    cut: dict[str, Any] = {"started_at": iso(t.cut_started_at), "decision": t.cut_decision}
    if t.cut_decision:
        cut["decided_at"] = iso(t.cut_decided_at)
        cut["changes"] = t.cut_decision_changes
        cut["correction"] = {
            "round": t.cut_correction_round,
            "table": t.cut_correction_table,
            "at": iso(t.cut_correction_at),
        }
    return {"cut": cut}


def _carried(t: Tournament) -> dict[str, Any]:
    """The laptop swap's keys (see above); a key whose value is empty is left out."""

    def iso(moment: Any) -> str | None:
        return moment.isoformat() if moment is not None else None

    rows = list(
        t.players.order_by("id").values_list(
            "external_id", "token_hash", "checked_in_at", "dropped_by_player"
        )
    )
    reports = [
        {
            "round": r.match.round.number,
            "reporter": r.reporter.external_id,
            "wins": [r.wins_a, r.wins_b],
            "draws": r.draws,
            "state": r.state,
            "answered_by": r.answered_by.external_id if r.answered_by else None,
            "counter": list(r.counter_claim) if r.counter_claim is not None else None,
            "created_at": iso(r.created_at),
            "updated_at": iso(r.updated_at),
        }
        for r in Report.objects.filter(match__round__tournament=t)
        .select_related("match__round", "reporter", "answered_by")
        .order_by("match__round__number", "match__table", "match_id")
    ]
    out: dict[str, Any] = {
        "owner": t.owner.get_username() if t.owner else None,
        "registration": {
            "open": t.registration_open,
            "cap": t.registration_cap,
            "approval": t.registration_approval,
            "check_in": t.check_in,
        },
        "links": {ext: digest for ext, digest, _at, _own in rows if digest},
        "checked_in": {ext: iso(at) for ext, _d, at, _own in rows if at is not None},
        "dropped_by_player": [ext for ext, _d, _at, own in rows if own],
        "reports": reports,
    }
    return {key: value for key, value in out.items() if value not in ({}, [])}


def _seating(t: Tournament) -> dict[str, Any]:
    """The floor's keys (see above); empty seat and restriction lists are left out."""
    out: dict[str, Any] = {"enforcement": t.enforcement}
    fixed = {
        ext: {"table": table, "reason": reason}
        for ext, table, reason in FixedSeat.objects.filter(tournament=t)
        .order_by("table")
        .values_list("player__external_id", "table", "reason")
    }
    restrictions = [
        [a, b, reason]
        for a, b, reason in PairingRestriction.objects.filter(tournament=t)
        .order_by("id")
        .values_list("player_a__external_id", "player_b__external_id", "reason")
    ]
    if fixed:
        out["fixed_seats"] = fixed
    if restrictions:
        out["restrictions"] = restrictions
    return out


def _decklists(t: Tournament) -> dict[str, Any]:
    """Decklists (issue 28): the event's format, deadline and publishing, and each
    player's list as submitted (the checks are made again on restore, against that
    installation's card data). Left out for an event without decklists."""
    if not t.deck_format:
        return {}
    rows = Decklist.objects.filter(player__tournament=t).order_by("player_id")
    return {
        "deck_format": t.deck_format,
        "decklist_deadline": t.decklist_deadline.isoformat() if t.decklist_deadline else None,
        "decklists_published": t.decklists_published,
        "decklists": {
            ext: {
                "text": text,
                "submitted_at": submitted.isoformat(),
                "updated_at": updated.isoformat(),
                "updated_by": by,
            }
            for ext, text, submitted, updated, by in rows.values_list(
                "player__external_id", "text", "submitted_at", "updated_at",
                "updated_by__username",
            )
        },
    }  # fmt: skip


def _extensions(t: Tournament) -> dict[str, Any]:
    """The judges' time extensions (issue 27), per round and table, oldest first: a table's
    end on the players' clocks depends on them. Left out when there are none."""
    rows = TimeExtension.objects.filter(match__round__tournament=t).order_by("created_at", "id")
    found = [
        {"round": number, "table": table, "minutes": minutes, "reason": reason, "note": note}
        for number, table, minutes, reason, note in rows.values_list(
            "match__round__number", "match__table", "minutes", "reason", "note"
        )
    ]
    return {"extensions": found} if found else {}


def _entries_and_contacts(tournament: Tournament) -> dict[str, Any]:
    out: dict[str, Any] = {}
    rows = tournament.players.order_by("id").values_list("external_id", "entry", "contact")
    entries = {ext: entry for ext, entry, _c in rows if entry != Entry.ACCEPTED}
    contacts = {ext: contact for ext, _e, contact in rows if contact}
    if entries:
        out["entries"] = entries
    if contacts:
        out["contacts"] = contacts
    return out


def _check_match(
    c: _Checker,
    place: str,
    match: dict[str, Any],
    system: Any,
    ids: set[str],
    seated: set[str],
    best_of: int = 3,
) -> None:
    players = match.get("players")
    if not c.expect(f"{place}.players", players, list, _("a list")):
        return
    for k, pid in enumerate(players):
        ppl = f"{place}.players[{k}]"
        if not isinstance(pid, str):
            c.add(ppl, _("expected a player id string, got %(got)s") % {"got": _type_name(pid)})
        elif pid not in ids:
            c.add(ppl, _("unknown player %(id)r") % {"id": pid})
        elif pid in seated:
            c.add(ppl, _("player %(id)r plays twice in this round") % {"id": pid})
        else:
            seated.add(pid)
    bye, loss = match.get("bye", False), match.get("loss", False)
    for flag in ("bye", "loss"):
        if flag in match and not isinstance(match[flag], bool):
            c.add(
                f"{place}.{flag}",
                _("expected true or false, got %(got)s") % {"got": _type_name(match[flag])},
            )
    if system == "league" and loss is True:
        c.add(f"{place}.loss", _("a league has no losses without an opponent: use absent"))
        return
    if bye is True or loss is True:
        if bye is True and loss is True:
            c.add(place, _("a match cannot be both a bye and a loss"))
        if len(players) != 1:
            c.add(
                f"{place}.players",
                (
                    _("a bye has exactly one player, got %(count)s")
                    if bye is True
                    else _("a loss has exactly one player, got %(count)s")
                )
                % {"count": len(players)},
            )
        for key in ("wins", "places", "scores", "result"):
            if key in match:
                c.add(
                    f"{place}.{key}",
                    _("not allowed on a bye") if bye is True else _("not allowed on a loss"),
                )
        return
    if system == "league":
        _check_game(c, place, match, players, ids, seated)
        return
    if len(players) != 2:
        c.add(
            f"{place}.players",
            _("a match has two players, got %(count)s") % {"count": len(players)},
        )
    if len(set(p for p in players if isinstance(p, str))) != len(players):
        c.add(f"{place}.players", _("the same player on both sides"))
    if "result" in match and match["result"] != "double_loss":
        c.add(
            f"{place}.result",
            _("unknown result %(result)r (only 'double_loss')") % {"result": match["result"]},
        )
    if "wins" in match:
        wins = match["wins"]
        counted: list[bool] = []
        if c.expect(f"{place}.wins", wins, list, _("a list of two game counts")):
            if len(wins) != 2:
                c.add(
                    f"{place}.wins",
                    _("expected two game counts, got %(count)s") % {"count": len(wins)},
                )
            counted = [c.count(f"{place}.wins[{k}]", w) for k, w in enumerate(wins)]
        if "draws" in match:
            counted.append(c.count(f"{place}.draws", match["draws"]))
        if isinstance(wins, list) and len(wins) == 2 and all(counted):
            # The check web entry makes, in its form for recorded events (rules.py).
            problem = check_two_player_result(
                best_of=best_of, wins=wins, draws=match.get("draws", 0) or 0, recorded=True
            )
            if problem:
                c.add(f"{place}.wins", spoken(problem))
    elif match.get("draws") not in (None, 0) or "result" in match:
        c.add(f"{place}.wins", _("missing: a result needs the games won by each player"))
    for key in ("places", "scores", "absent"):
        if key in match:
            c.add(f"{place}.{key}", _("only league games have %(key)s") % {"key": key})


def _check_game(
    c: _Checker,
    place: str,
    match: dict[str, Any],
    players: list[Any],
    ids: set[str],
    seated: set[str],
) -> None:
    absent = match.get("absent", [])
    if c.expect(f"{place}.absent", absent, list, _("a list of player ids")):
        for k, pid in enumerate(absent):
            apl = f"{place}.absent[{k}]"
            if not isinstance(pid, str):
                c.add(apl, _("expected a player id string, got %(got)s") % {"got": _type_name(pid)})
            elif pid not in ids:
                c.add(apl, _("unknown player %(id)r") % {"id": pid})
            elif pid in seated:
                c.add(apl, _("player %(id)r plays twice in this round") % {"id": pid})
            else:
                seated.add(pid)
    else:
        absent = []
    if not LEAGUE_TABLE_MIN <= len(players) <= LEAGUE_TABLE_MAX:
        c.add(
            f"{place}.players",
            _("a game seats %(min)s to %(max)s players who played, got %(count)s")
            % {"min": LEAGUE_TABLE_MIN, "max": LEAGUE_TABLE_MAX, "count": len(players)},
        )
    if "wins" in match:
        c.add(f"{place}.wins", _("a league game records places and scores, not wins"))
    has_places, has_scores = "places" in match, "scores" in match
    if has_places != has_scores:
        c.add(place, _("places and scores go together: give both or neither"))
    if has_places:
        places = match["places"]
        if c.expect(f"{place}.places", places, list, _("a list of places")):
            if len(places) != len(players):
                c.add(
                    f"{place}.places",
                    _("expected %(want)s places (one per player), got %(got)s")
                    % {"want": len(players), "got": len(places)},
                )
            elif all(
                c.count(f"{place}.places[{k}]", p, minimum=1, maximum=len(players))
                for k, p in enumerate(places)
            ):
                # Shared places follow competition ranking: two firsts, then a third.
                for k, p in enumerate(places):
                    if p != 1 + sum(1 for q in places if q < p):
                        c.add(
                            f"{place}.places[{k}]",
                            _("place %(place)s does not fit the table's places %(places)s")
                            % {"place": p, "places": places},
                        )
                        break
    if has_scores:
        scores = match["scores"]
        if c.expect(f"{place}.scores", scores, list, _("a list of raw scores")):
            if len(scores) != len(players):
                c.add(
                    f"{place}.scores",
                    _("expected %(want)s scores (one per player), got %(got)s")
                    % {"want": len(players), "got": len(scores)},
                )
            for k, s in enumerate(scores):
                if not _is_number(s):
                    c.add(
                        f"{place}.scores[{k}]",
                        _("expected a number, got %(got)s") % {"got": _type_name(s)},
                    )
                elif abs(s) >= MAX_SCORE:
                    c.add(
                        f"{place}.scores[{k}]",
                        _("must be below %(max)s in size") % {"max": f"{MAX_SCORE:,}"},
                    )


def _number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def export_document(tournament: Tournament, *, backup: bool = False) -> dict[str, Any]:
    """The interchange document; with `backup`, the "event" section too (whole event).

    The plain document holds the event's players only, not pending or rejected entries,
    and nothing private; the owner's backup keeps those too, with their entry state,
    every contact and the private links' hashes (never a token), under "event"."""
    players = list(tournament.players.order_by("id"))
    if not backup:
        players = [p for p in players if p.entry == Entry.ACCEPTED]
    ext = {p.id: p.external_id for p in players}
    doc: dict[str, Any] = {
        "format": FORMAT,
        "name": tournament.name,
        "system": tournament.system,
        "best_of": tournament.best_of,
        "seed": tournament.seed,
        "players": [
            {"id": p.external_id, "name": p.name}
            | ({"dropped_after_round": p.dropped_after_round} if p.dropped else {})
            for p in players
        ],
        "rounds": [],
    }
    seats_by_match: dict[int, list[Seat]] = {}
    for seat in Seat.objects.filter(round__tournament=tournament).order_by("match_id", "position"):
        seats_by_match.setdefault(seat.match_id, []).append(seat)
    matches_by_round: dict[int, list[Match]] = {}
    for match in Match.objects.filter(round__tournament=tournament).order_by("table", "id"):
        matches_by_round.setdefault(match.round_id, []).append(match)
    for rnd in tournament.rounds.order_by("number"):
        entry: dict[str, Any] = {"number": rnd.number, "phase": rnd.phase}
        if rnd.playoff:
            entry["playoff"] = True
        entry["matches"] = [
            _export_match(match, seats_by_match.get(match.id, []), ext)
            for match in matches_by_round.get(rnd.id, [])
        ]
        doc["rounds"].append(entry)
    if backup:
        doc["event"] = backup_section(tournament)
    return doc


def _export_match(match: Match, seats: list[Seat], ext: dict[int, str]) -> dict[str, Any]:
    playing = [s for s in seats if not s.absent]
    out: dict[str, Any] = {}
    if match.table is not None:
        out["table"] = match.table
    out["players"] = [ext[s.player_id] for s in playing]
    if match.kind == MatchKind.BYE:
        out["bye"] = True
    elif match.kind == MatchKind.LOSS:
        out["loss"] = True
    elif match.kind == MatchKind.GAME:
        if match.reported:
            out["places"] = [s.place for s in playing]
            out["scores"] = [_number(s.score) if s.score is not None else 0 for s in playing]
        absent = [ext[s.player_id] for s in seats if s.absent]
        if absent:
            out["absent"] = absent
    elif match.reported:
        out["wins"] = [s.games_won or 0 for s in playing]
        out["draws"] = match.draws
        if match.kind == MatchKind.DOUBLE_LOSS:
            out["result"] = "double_loss"
    return out


# --- Penalties (issue 27), in the backup's "event" section --------------------------------
# {"player": id, "round": n or null, "table": n or null, "infraction": an IPG key
# (tournaments.infractions; one this installation does not know is kept as it is),
# "penalty": "warning" | "game_loss" | "match_loss" | "dq", "judge": username or null,
# "note", "at"}. The penalty's match is the player's in that round (services.imports).


def _penalties(t: Tournament) -> dict[str, Any]:
    rows = (
        Penalty.objects.filter(tournament=t)
        .select_related("player", "judge")
        .order_by("created_at", "id")
    )
    found = [
        {
            "player": p.player.external_id,
            "round": p.round_number,
            "table": p.table,
            "infraction": p.infraction,
            "penalty": p.penalty,
            "judge": p.judge.get_username() if p.judge else None,
            "note": p.note,
            "at": p.created_at.isoformat(),
        }
        for p in rows
    ]
    return {"penalties": found} if found else {}


def _check_penalties(c: _Checker, penalties: Any, ids: set[str], numbers: set[int]) -> None:
    if not c.expect("event.penalties", penalties, list, _("a list")):
        return
    for k, penalty in enumerate(penalties):
        place = f"event.penalties[{k}]"
        if not c.expect(place, penalty, dict, _("an object")):
            continue
        if penalty.get("player") not in ids:
            c.add(f"{place}.player", _("unknown player %(id)r") % {"id": penalty.get("player")})
        number = penalty.get("round")
        if (
            number is not None
            and c.count(f"{place}.round", number, minimum=1, maximum=10_000)
            and number not in numbers
        ):
            c.add(f"{place}.round", _("no round %(round)s in this document") % {"round": number})
        if penalty.get("table") is not None:
            c.count(f"{place}.table", penalty["table"], minimum=1, maximum=1_000_000)
        key = penalty.get("infraction")
        if c.expect(f"{place}.infraction", key, str, _("a string")):
            c.text(f"{place}.infraction", key, maximum=40)
        if penalty.get("penalty") not in PenaltyKind.values:
            c.add(
                f"{place}.penalty",
                _("unknown penalty %(penalty)r") % {"penalty": penalty.get("penalty")},
            )
        judge = penalty.get("judge")
        if judge is not None and c.expect(f"{place}.judge", judge, str, _("a string")):
            c.text(f"{place}.judge", judge, maximum=150)
        note = penalty.get("note", "")
        if c.expect(f"{place}.note", note, str, _("a string")) and len(note) > 500:
            c.add(f"{place}.note", _("longer than 500 characters"))
        if instant(penalty.get("at")) is None:
            c.add(f"{place}.at", _("expected an ISO 8601 date and time with a zone"))
