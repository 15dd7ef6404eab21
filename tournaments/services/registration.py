"""Players taking part (issue 14): registration from a link, private links, check-in.

Every write runs in `writing(...)` and leaves one audit sentence naming who did it.
Tokens are returned to the caller once and stored only as their hash (tournaments.tokens);
no audit entry, log line or error message ever holds one.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from django.utils import timezone

from tournaments.domain import (
    PAIRED,
    entries_counted,
    not_checked_in,
    registration_closed_reason,
)
from tournaments.models import AuditAction, Entry, Player, Tournament
from tournaments.services.writing import ServiceError, writing
from tournaments.tokens import new_token, token_hash

MAX_NAME = 200  # Player.name's max_length
MAX_CONTACT = 200  # Player.contact's max_length

DUPLICATE = "already registered: ask the organizer if that is not you"


class FieldRefused(ServiceError):
    """A refusal about what was typed in one field (`field`), shown beside it."""

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


def _who(by: Any) -> str:
    """ " by alice" for an organizer's write; nothing for a player's own."""
    if getattr(by, "is_authenticated", False):
        return f" by {by.get_username()}"
    return ""


def _clean_text(value: str, *, field: str, maximum: int, required: bool) -> str:
    """Whitespace collapsed; control characters refused (PostgreSQL refuses NUL, and a
    name with a line break or an escape code would garble every printed list)."""
    text = " ".join(value.split())
    if required and not text:
        raise FieldRefused(f"Give your {field}.", field=field)
    if len(text) > maximum:
        raise FieldRefused(f"The {field} is longer than {maximum} characters.", field=field)
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in text):
        raise FieldRefused(f"The {field} holds a control character: type it again.", field=field)
    return text


def _name_key(name: str) -> str:
    return " ".join(name.split()).casefold()


def set_registration(
    *,
    tournament: Tournament,
    registration_open: bool,
    cap: int | None,
    approval: bool,
    check_in: bool,
    by: Any = None,
) -> Tournament:
    """Open or close registration, its cap, approval of each entry, and check-in."""
    if cap is not None and not 1 <= cap <= 100_000:
        raise ServiceError("The cap is a number of players from 1 to 100000, or empty.")
    with writing(tournament, by=by) as w:
        t = w.tournament
        before = {
            "open": t.registration_open,
            "cap": t.registration_cap,
            "approval": t.registration_approval,
            "check_in": t.check_in,
        }
        after = {"open": registration_open, "cap": cap, "approval": approval, "check_in": check_in}
        if before == after:
            return t
        paired = t.rounds.exists()
        if registration_open and not before["open"] and paired:
            raise ServiceError(PAIRED)
        if check_in and not before["check_in"] and paired:
            raise ServiceError("Round 1 is paired: check-in can no longer be turned on.")
        t.registration_open = registration_open
        t.registration_cap = cap
        t.registration_approval = approval
        t.check_in = check_in
        t.save(update_fields=["registration_open", "registration_cap",
                              "registration_approval", "check_in"])  # fmt: skip
        parts = [
            "open" if registration_open else "closed",
            f"cap {cap}" if cap is not None else "no cap",
            "each entry approved" if approval else "entries accepted at once",
            "check-in used" if check_in else "no check-in",
        ]
        # Check-in decides who is paired (services.seating): a scoring-side change.
        if before["check_in"] != check_in:
            w.changed()
        else:
            w.touched()
        w.audit(
            AuditAction.ENTRY,
            f"Registration settings{_who(by)}: " + ", ".join(parts),
            before=before,
            after=after,
        )
    return t


def register_self(
    *, tournament: Tournament, name: str, contact: str = "", by: Any = None
) -> tuple[Player, str]:
    """A player registers from the event's link: (their player, their raw private token).

    The token is returned here only; the database keeps its hash. The entry is pending
    when the organizer approves each entry, else accepted.
    """
    name = _clean_text(name, field="name", maximum=MAX_NAME, required=True)
    contact = _clean_text(contact, field="contact", maximum=MAX_CONTACT, required=False)
    with writing(tournament, by=by) as w:
        t = w.tournament
        if (reason := registration_closed_reason(t)) is not None:
            raise ServiceError(reason)
        if t.registration_cap is not None and entries_counted(t) >= t.registration_cap:
            raise ServiceError(
                f"Registration is full ({t.registration_cap} players): ask the organizer."
            )
        key = _name_key(name)
        if any(_name_key(n) == key for n in t.players.values_list("name", flat=True)):
            raise FieldRefused(f"{name} is {DUPLICATE}.", field="name")
        taken = set(t.players.values_list("external_id", flat=True))
        n = len(taken) + 1
        while f"p{n}" in taken:
            n += 1
        token = new_token()
        entry = Entry.PENDING if t.registration_approval else Entry.ACCEPTED
        player = Player.objects.create(
            tournament=t,
            external_id=f"p{n}",
            name=name,
            contact=contact,
            entry=entry,
            token_hash=token_hash(token),
        )
        if entry == Entry.ACCEPTED:
            w.changed()  # a new player in the standings
        else:
            w.touched()  # nobody public sees a pending entry; the organizer's screen does
        note = " (pending approval)" if entry == Entry.PENDING else ""
        w.audit(
            AuditAction.REGISTER,
            f"{name} registered{note}",
            after={"player": player.external_id, "entry": entry},
            players=[player],
        )
    return player, token


def _decide(*, player: Player, entry: str, by: Any) -> Player:
    with writing(player.tournament_id, by=by) as w:
        t = w.tournament
        found = Player.objects.filter(pk=player.pk, tournament=t).first()
        if found is None:
            raise ServiceError("That player is not in this event.")
        if found.entry == entry:
            return found
        if entry == Entry.REJECTED and found.seats.exists():
            raise ServiceError(
                f"{found.name} has been paired already: drop them instead (their results stay)."
            )
        if entry == Entry.ACCEPTED and t.system == "pod" and t.rounds.exists():
            raise ServiceError(
                "The pod's round robin is already paired, all rounds at once: a late entry "
                "would never be paired."
            )
        before = found.entry
        found.entry = entry
        fields = ["entry"]
        if entry == Entry.ACCEPTED and t.check_in and t.rounds.exists():
            # A late entry the organizer lets in is at the venue: no check-in left to do.
            found.checked_in_at = timezone.now()
            fields.append("checked_in_at")
        found.save(update_fields=fields)
        w.changed()  # accepted players are scored and paired; the others are not
        w.audit(
            AuditAction.ENTRY,
            f"{found.name} {entry}{_who(by)}",
            before={"player": found.external_id, "entry": before},
            after={"player": found.external_id, "entry": entry},
            players=[found],
        )
    return found


def accept_entry(*, player: Player, by: Any = None) -> Player:
    """The organizer accepts a pending (or earlier rejected) entry; a cap does not bind
    the organizer."""
    return _decide(player=player, entry=Entry.ACCEPTED, by=by)


def reject_entry(*, player: Player, by: Any = None) -> Player:
    """The organizer turns an entry down, while that player has never been paired."""
    return _decide(player=player, entry=Entry.REJECTED, by=by)


def issue_link(*, player: Player, by: Any = None) -> str:
    """A new private link for the player: the raw token, returned once. The hash is
    replaced, so the old link stops working at once."""
    with writing(player.tournament_id, by=by) as w:
        found = Player.objects.filter(pk=player.pk, tournament=w.tournament).first()
        if found is None:
            raise ServiceError("That player is not in this event.")
        token = new_token()
        had = bool(found.token_hash)
        found.token_hash = token_hash(token)
        found.save(update_fields=["token_hash"])
        w.audit(
            AuditAction.LINK,
            f"{'New private' if had else 'Private'} link for {found.name}{_who(by)}",
            after={"player": found.external_id, "replaced": had},
            players=[found],
        )
    player.token_hash = found.token_hash
    return token


def check_in(*, player: Player, by: Any = None) -> Player:
    """The player is at the venue (from their private link, or the organizer for them).
    Before round 1 only; checking in twice changes nothing."""
    with writing(player.tournament_id, by=by) as w:
        t = w.tournament
        found = Player.objects.filter(pk=player.pk, tournament=t).first()
        if found is None:
            raise ServiceError("That player is not in this event.")
        if found.checked_in_at is not None:
            return found
        if not t.check_in:
            raise ServiceError("This event does not use check-in.")
        if t.rounds.exists() and not getattr(by, "is_authenticated", False):
            raise ServiceError("Round 1 is paired: check-in is closed. See the organizer.")
        if found.entry != Entry.ACCEPTED:
            raise ServiceError(
                f"{found.name}'s entry is {found.entry}: only accepted players check in."
            )
        if found.dropped:
            raise ServiceError(f"{found.name} has dropped: the organizer can re-admit them.")
        found.checked_in_at = timezone.now()
        found.save(update_fields=["checked_in_at"])
        w.changed()  # who checked in decides who is paired (services.seating)
        w.audit(
            AuditAction.CHECK_IN,
            f"{found.name} checked in{_who(by)}",
            after={"player": found.external_id},
            players=[found],
        )
    return found


def drop_no_shows(*, tournament: Tournament, by: Any = None) -> list[Player]:
    """Drop every accepted player who has not checked in, before round 1: one action,
    one audit entry listing them. Nobody to drop writes nothing."""
    with writing(tournament, by=by) as w:
        t = w.tournament
        if not t.check_in:
            raise ServiceError("This event does not use check-in: there are no no-shows.")
        if t.rounds.exists():
            raise ServiceError(
                "Round 1 is paired: drop players one by one on the event screen instead."
            )
        missing = not_checked_in(t)
        if not missing:
            return []
        # dropped_after_round 0: gone before round 1, as a drop from the event screen.
        Player.objects.filter(pk__in=[p.pk for p in missing]).update(dropped_after_round=0)
        for p in missing:
            p.dropped_after_round = 0
        w.changed()
        names = ", ".join(p.name for p in missing)
        w.audit(
            AuditAction.DROP,
            f"Dropped {len(missing)} no-show(s){_who(by)}: {names}",
            after={"players": [p.external_id for p in missing], "dropped_after_round": 0},
            players=missing,
        )
    return missing
