"""Players taking part (issue 14): registration from a link, private links, check-in.

Every write runs in `writing(...)` and leaves one audit sentence naming who did it.
Tokens are returned to the caller once and stored only as their hash (tournaments.tokens);
no audit entry, log line or error message ever holds one.
"""

from __future__ import annotations

import bisect
import secrets
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from itertools import pairwise
from typing import Any

from django.db.models import Case, F, PositiveIntegerField, When
from django.utils import timezone
from django.utils.translation import pgettext_lazy

from scoring.engine.ranking import draw_key
from scoring.models import Standing
from tournaments import names
from tournaments.domain import (
    PAIRED,
    entries_counted,
    not_checked_in,
    registration_closed_reason,
)
from tournaments.locking import REGISTRATION_LOCK_SECONDS, lock_wait
from tournaments.messages import Message, gettext_noop, template
from tournaments.models import AuditAction, Entry, Player, Tournament
from tournaments.services.writing import ServiceError, Write, writing
from tournaments.tokens import new_token, token_hash

MAX_NAME = 200  # Player.name's max_length
MAX_CONTACT = 200  # Player.contact's max_length

# The end of the namesake's refusal, as tests quote it (the refusal is one translated
# sentence: register_self).
DUPLICATE = "already registered: ask the organizer if that is you"
# The fields _clean_text checks, as its refusals name them.
FIELD_WORDS = {"contact": pgettext_lazy("a registration field, in a sentence", "contact")}
# The word a player adds to a name already taken ("Lyon" in "Alex Martin (Lyon)").
MAX_SUFFIX = 40

# The refusals, said where they are shown (issue 36). %(field)s is a FIELD_WORDS word (a
# lazy translation: said in the same language as the sentence) or the field's name.
GIVE_FIELD = template("registration.give_field", gettext_noop("Give your %(field)s."))
FIELD_TOO_LONG = template(
    "registration.field_too_long",
    gettext_noop("The %(field)s is longer than %(maximum)s characters."),
)
FIELD_CONTROL = template(
    "registration.field_control",
    gettext_noop("The %(field)s holds a control character: type it again."),
)
CAP_RANGE = template(
    "registration.cap_range",
    gettext_noop("The cap is a number of players from 1 to 100000, or empty."),
)
CHECK_IN_TOO_LATE = template(
    "registration.check_in_too_late",
    gettext_noop("Round 1 is paired: check-in can no longer be turned on."),
)
SUFFIX_TOO_LONG = template(
    "registration.suffix_too_long",
    gettext_noop("The name and the word together are longer than %(maximum)s characters."),
)
FULL = template(
    "registration.full",
    gettext_noop("Registration is full (%(cap)s players): ask the organizer."),
)
SUFFIX_TAKEN = template(
    "registration.suffix_taken",
    gettext_noop("%(name)s is already registered too: choose another word."),
)
SUFFIX_LOOKALIKE = template(
    "registration.suffix_lookalike",
    gettext_noop("%(name)s looks like %(twin)s: choose another word."),
)
NAMESAKE = template(
    "registration.namesake",
    gettext_noop(
        "%(name)s is already registered: ask the organizer if that is you. "
        "Someone else? Add a word below that tells you apart."
    ),
)
NAMESAKE_LOOKALIKE = template(
    "registration.namesake_lookalike",
    gettext_noop(
        "%(name)s looks like %(twin)s, who is already registered: if that is not "
        "you, type your name in plain letters, or add a word below that tells you "
        "apart."
    ),
)
# Also services.players'.
NOT_IN_EVENT = template(
    "registration.not_in_event", gettext_noop("That player is not in this event.")
)
ALREADY_PAIRED = template(
    "registration.already_paired",
    gettext_noop("%(name)s has been paired already: drop them instead (their results stay)."),
)
POD_NO_LATE_ENTRY = template(
    "registration.pod_no_late_entry",
    gettext_noop(
        "The pod's round robin is already paired, all rounds at once: a late "
        "entry would never be paired."
    ),
)
TICK_ONE = template("registration.tick_one", gettext_noop("Tick at least one entry first."))
CHOSEN_GONE = template(
    "registration.chosen_gone",
    gettext_noop("Some of the chosen players are no longer in this event: reload the desk."),
)
REJECT_PAIRED = template(
    "registration.reject_paired",
    gettext_noop(
        "Already paired: %(names)s. Drop them instead (their results stay); nothing was rejected."
    ),
)
NO_CHECK_IN = template(
    "registration.no_check_in", gettext_noop("This event does not use check-in.")
)
CHECK_IN_CLOSED = template(
    "registration.check_in_closed",
    gettext_noop("Round 1 is paired: check-in is closed. See the organizer."),
)
CHECK_IN_PENDING = template(
    "registration.check_in_pending",
    gettext_noop("%(name)s's entry is pending: only accepted players check in."),
)
CHECK_IN_REJECTED = template(
    "registration.check_in_rejected",
    gettext_noop("%(name)s's entry is rejected: only accepted players check in."),
)
# An entry state no sentence is written for (none today): said as it is, untranslated.
CHECK_IN_OTHER = template(
    "registration.check_in_other", "%(name)s's entry is %(entry)s: only accepted players check in."
)
CHECK_IN_DROPPED = template(
    "registration.check_in_dropped",
    gettext_noop("%(name)s has dropped: the organizer can re-admit them."),
)
NO_NO_SHOWS = template(
    "registration.no_no_shows",
    gettext_noop("This event does not use check-in: there are no no-shows."),
)
NO_SHOWS_TOO_LATE = template(
    "registration.no_shows_too_late",
    gettext_noop("Round 1 is paired: drop players one by one on the event screen instead."),
)


class FieldRefused(ServiceError):
    """A refusal about what was typed in one field (`field`), shown beside it."""

    def __init__(self, message: Message | str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


class NamesakeRefused(FieldRefused):
    """The name is taken, or looks like one that is: the form offers the way through, a
    word of the player's own that tells them apart (`register_self`'s `suffix`)."""


def _who(by: Any) -> str:
    """ " by alice" for an organizer's write; nothing for a player's own."""
    if getattr(by, "is_authenticated", False):
        return f" by {by.get_username()}"
    return ""


def _clean_text(value: str, *, field: str, maximum: int, required: bool) -> str:
    """Whitespace collapsed; control characters refused (PostgreSQL refuses NUL, and a
    name with a line break or an escape code would garble every printed list)."""
    text = " ".join(value.split())
    word = FIELD_WORDS.get(field, field)
    if required and not text:
        raise FieldRefused(GIVE_FIELD(field=word), field=field)
    if len(text) > maximum:
        raise FieldRefused(FIELD_TOO_LONG(field=word, maximum=maximum), field=field)
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in text):
        raise FieldRefused(FIELD_CONTROL(field=word), field=field)
    return text


def _clean_name(value: str) -> str:
    try:
        return names.clean(value, field="name", maximum=MAX_NAME)
    except names.NameRefused as exc:
        raise FieldRefused(str(exc), field="name") from exc


# Ids made here cannot be told from one another (issue 24 item 10): sequential ones
# ("p1", "p2") let anyone walk the whole list of entries. Lower-case base32 without
# look-alikes (Crockford's alphabet): 8 characters, 40 bits, read aloud or typed from a
# phone. Imported events keep the ids of their file (shared/spec/interchange.md).
ID_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
ID_LENGTH = 8


def new_player_ids(tournament: Tournament, count: int) -> list[str]:
    """`count` fresh ids, "p" and random characters, none already used in the event.
    Called under the event's lock; the unique constraint backs it."""
    while True:
        ids = {
            "p" + "".join(secrets.choice(ID_ALPHABET) for _ in range(ID_LENGTH))
            for _ in range(count)
        }
        if len(ids) == count and not tournament.players.filter(external_id__in=ids).exists():
            return sorted(ids)


@lru_cache(maxsize=65_536)
def _drawn(seed: int, external_id: str) -> tuple[int, str]:
    """The player's place in the seeded draw (as the engine sorts a run of level players):
    remembered, since every registration reads every player's."""
    return draw_key(seed, external_id), external_id


def place_before_round_one(w: Write, players: Sequence[Player]) -> None:
    """New accepted players, before round 1, into the stored standings, without a recompute
    (issue 24 item 8: at 10,000 players it took a second per registration, under the
    event's lock). Before round 1 every player is level on every value, so the standings
    are the seeded draw's order (league: no draw, everyone shares rank 1 in the order
    they entered), and a newcomer only moves the rows after its place down by one.

    Anything else in the stored rows (they do not hold exactly the other accepted players
    in that order) and the standings are recomputed, as before.

    The write is then `placed`: nothing is recomputed, and no scoring snapshot (which
    does not know the newcomers) is trusted past it: pairing round 1 reads the whole event
    (issue 35: a snapshot patched across this write paired ids it did not have).
    """
    t = w.tournament
    if t.rounds.exists():
        w.changed()  # results to score: the recompute places them
        return
    stored = list(
        Standing.objects.filter(tournament=t)
        .order_by("position")
        .values_list("player_id", "player__external_id", "rank")
    )
    accepted = t.players.filter(entry=Entry.ACCEPTED).count()
    drawn = t.system != "league"

    def order(pk: int, ext: str) -> Any:
        return _drawn(t.seed, ext) if drawn else pk

    keys = [order(pk, ext) for pk, ext, _rank in stored]
    if drawn:
        expected = all(rank == n for n, (_pk, _ext, rank) in enumerate(stored, start=1))
    else:
        expected = all(rank == 1 for *_rest, rank in stored)
    in_order = all(a < b for a, b in pairwise(keys))
    # Fewer than two players is a recompute of nothing: there, and only there, the
    # values of a level player can depend on how many there are (a pod of one is a
    # complete round robin).
    if len(stored) < 2 or not (expected and in_order and accepted == len(stored) + len(players)):
        w.changed()
        return
    # Everyone is level: the newcomer's values are those of any other player.
    values = (
        Standing.objects.filter(tournament=t, position=1)
        .values("points", "points_exact", "wins", "losses", "draws", "played", "tiebreakers")
        .get()
    )
    new = sorted(players, key=lambda p: order(p.pk, p.external_id))
    # How many stored rows come before each newcomer; its place counts the newcomers
    # before it too.
    ahead = [bisect.bisect(keys, order(p.pk, p.external_id)) for p in new]
    places = [before + j + 1 for j, before in enumerate(ahead)]
    # A stored row moves down by the number of newcomers placed before it: one UPDATE,
    # however many newcomers (issue 26: the desk accepts a whole queue of entries at once;
    # an UPDATE per newcomer made its queries grow with the queue). Every SET expression
    # reads the row as it was, and no constraint makes positions unique mid-statement.
    moves: dict[int, int] = {}
    for j, before in enumerate(ahead):
        moves[before] = j + 1  # the last newcomer with that many rows ahead: the most moved

    def moved(field: str) -> Case:
        return Case(
            *(
                When(position__gt=before, then=F(field) + step)
                for before, step in sorted(moves.items(), reverse=True)
            ),
            default=F(field),
            output_field=PositiveIntegerField(),
        )

    shift = {"position": moved("position")}
    if drawn:
        shift["rank"] = moved("rank")
    Standing.objects.filter(tournament=t, position__gt=ahead[0]).update(**shift)
    ranks = places if drawn else [1] * len(new)
    Standing.objects.bulk_create(
        Standing(tournament=t, player=p, position=place, rank=rank, **values)
        for p, place, rank in zip(new, places, ranks, strict=True)
    )
    w.placed()


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
        raise ServiceError(CAP_RANGE())
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
            raise ServiceError(CHECK_IN_TOO_LATE())
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


def _with_suffix(name: str, suffix: str) -> str:
    """ "Alex Martin (Lyon)": the name and the player's own word that tells them apart,
    stored as one name, so that every page, print-out, export and import shows it with
    nothing else to carry. Parentheses the player typed around it are not doubled."""
    try:
        word = names.clean(suffix, field="word that tells you apart", maximum=MAX_SUFFIX,
                           required=False)  # fmt: skip
    except names.NameRefused as exc:
        raise FieldRefused(str(exc), field="suffix") from exc
    word = names.normal(word.removeprefix("(").removesuffix(")"))
    if not word:
        return name
    full = f"{name} ({word})"
    if len(full) > MAX_NAME:
        raise FieldRefused(SUFFIX_TOO_LONG(maximum=MAX_NAME), field="suffix")
    return full


def register_self(
    *, tournament: Tournament, name: str, contact: str = "", suffix: str = "", by: Any = None
) -> tuple[Player, str]:
    """A player registers from the event's link: (their player, their raw private token).

    The token is returned here only; the database keeps its hash. The entry is pending
    when the organizer approves each entry, else accepted.

    A name already in the event (or one that prints like it) is refused with
    NamesakeRefused; the player may then add `suffix`, a word of their own that tells
    them apart, and is registered as "name (suffix)" if that is distinct in its turn.
    """
    name = _clean_name(name)
    given = name
    name = _with_suffix(name, suffix)
    contact = _clean_text(contact, field="contact", maximum=MAX_CONTACT, required=False)
    with lock_wait(REGISTRATION_LOCK_SECONDS), writing(tournament, by=by) as w:
        t = w.tournament
        if (reason := registration_closed_reason(t)) is not None:
            raise ServiceError(reason)
        if t.registration_cap is not None and entries_counted(t) >= t.registration_cap:
            raise ServiceError(FULL(cap=t.registration_cap))
        existing = list(t.players.values_list("name", flat=True))
        key = names.key(name)
        if name != given:  # the player's word must make the name distinct in its turn
            if any(names.key(n) == key for n in existing):
                raise FieldRefused(SUFFIX_TAKEN(name=name), field="suffix")
            if (twin := names.lookalike(name, existing)) is not None:
                raise FieldRefused(SUFFIX_LOOKALIKE(name=name, twin=twin), field="suffix")
        elif any(names.key(n) == key for n in existing):
            raise NamesakeRefused(NAMESAKE(name=name), field="name")
        elif (twin := names.lookalike(name, existing)) is not None:
            raise NamesakeRefused(NAMESAKE_LOOKALIKE(name=name, twin=twin), field="name")
        token = new_token()
        entry = Entry.PENDING if t.registration_approval else Entry.ACCEPTED
        (external_id,) = new_player_ids(t, 1)
        player = Player.objects.create(
            tournament=t,
            external_id=external_id,
            name=name,
            contact=contact,
            entry=entry,
            token_hash=token_hash(token),
        )
        if entry == Entry.ACCEPTED:
            # Registration closes when round 1 is paired: always before it.
            place_before_round_one(w, [player])
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
            raise ServiceError(NOT_IN_EVENT())
        if found.entry == entry:
            return found
        if entry == Entry.REJECTED and found.seats.exists():
            raise ServiceError(ALREADY_PAIRED(name=found.name))
        if entry == Entry.ACCEPTED and t.system == "pod" and t.rounds.exists():
            raise ServiceError(POD_NO_LATE_ENTRY())
        before = found.entry
        found.entry = entry
        fields = ["entry"]
        if entry == Entry.ACCEPTED and t.check_in and t.rounds.exists():
            # A late entry the organizer lets in is at the venue: no check-in left to do.
            found.checked_in_at = timezone.now()
            fields.append("checked_in_at")
        found.save(update_fields=fields)
        # Accepted players are scored and paired; the others are not.
        if entry == Entry.ACCEPTED:  # a newcomer to the standings (recomputed once paired)
            place_before_round_one(w, [found])
        else:
            w.changed()
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


def _chosen(t: Tournament, players: Sequence[Player]) -> list[Player]:
    """The players chosen on the desk, as they are under the event's lock."""
    pks = {p.pk for p in players}
    if not pks:
        raise ServiceError(TICK_ONE())
    found = list(Player.objects.filter(tournament=t, pk__in=pks).order_by("id"))
    if len(found) != len(pks):
        raise ServiceError(CHOSEN_GONE())
    return found


def _entries(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"


def accept_entries(
    *, tournament: Tournament, players: Sequence[Player], by: Any = None
) -> list[Player]:
    """The organizer accepts several entries at once ("Accept selected", "Accept all"):
    one write, one audit entry naming them, one placement in the standings (issue 26: a
    queue of 14 was 14 writes). Those already accepted stay as they are; the players
    accepted now are returned (none to accept: nothing written)."""
    with writing(tournament, by=by) as w:
        t = w.tournament
        found = _chosen(t, players)
        newly = [p for p in found if p.entry != Entry.ACCEPTED]
        if not newly:
            return []
        paired = t.rounds.exists()
        if t.system == "pod" and paired:
            raise ServiceError(POD_NO_LATE_ENTRY())
        before = {p.external_id: p.entry for p in newly}
        changes: dict[str, Any] = {"entry": Entry.ACCEPTED}
        if t.check_in and paired:
            # Late entries the organizer lets in are at the venue (as `_decide`).
            changes["checked_in_at"] = timezone.now()
        Player.objects.filter(pk__in=[p.pk for p in newly]).update(**changes)
        for p in newly:
            for field, value in changes.items():
                setattr(p, field, value)
        place_before_round_one(w, newly)
        w.audit(
            AuditAction.ENTRY,
            f"{_entries(len(newly))} accepted{_who(by)}: " + ", ".join(p.name for p in newly),
            before={"entries": before},
            after={"players": list(before), "entry": Entry.ACCEPTED},
            players=newly,
        )
    return newly


def reject_entries(
    *, tournament: Tournament, players: Sequence[Player], by: Any = None
) -> list[Player]:
    """The organizer turns several entries down at once ("Reject selected"): one write and
    one audit entry, as `accept_entries`. Refused, for all of them, if any was paired."""
    with writing(tournament, by=by) as w:
        t = w.tournament
        found = _chosen(t, players)
        newly = [p for p in found if p.entry != Entry.REJECTED]
        if not newly:
            return []
        seated = sorted(
            set(Player.objects.filter(pk__in=[p.pk for p in newly], seats__isnull=False)
                .values_list("name", flat=True))
        )  # fmt: skip
        if seated:
            raise ServiceError(REJECT_PAIRED(names=", ".join(seated)))
        before = {p.external_id: p.entry for p in newly}
        Player.objects.filter(pk__in=[p.pk for p in newly]).update(entry=Entry.REJECTED)
        for p in newly:
            p.entry = Entry.REJECTED
        if Entry.ACCEPTED in before.values():
            w.changed()  # an accepted player leaves the standings
        else:
            w.touched()  # pending entries were in no standing
        w.audit(
            AuditAction.ENTRY,
            f"{_entries(len(newly))} rejected{_who(by)}: " + ", ".join(p.name for p in newly),
            before={"entries": before},
            after={"players": list(before), "entry": Entry.REJECTED},
            players=newly,
        )
    return newly


def issue_link(*, player: Player, by: Any = None) -> str:
    """A new private link for the player: the raw token, returned once. The hash is
    replaced, so the old link stops working at once."""
    with writing(player.tournament_id, by=by) as w:
        found = Player.objects.filter(pk=player.pk, tournament=w.tournament).first()
        if found is None:
            raise ServiceError(NOT_IN_EVENT())
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
            raise ServiceError(NOT_IN_EVENT())
        if found.checked_in_at is not None:
            return found
        if not t.check_in:
            raise ServiceError(NO_CHECK_IN())
        if t.rounds.exists() and not getattr(by, "is_authenticated", False):
            raise ServiceError(CHECK_IN_CLOSED())
        if found.entry != Entry.ACCEPTED:
            if found.entry == Entry.PENDING:
                refusal = CHECK_IN_PENDING(name=found.name)
            elif found.entry == Entry.REJECTED:
                refusal = CHECK_IN_REJECTED(name=found.name)
            else:
                refusal = CHECK_IN_OTHER(name=found.name, entry=found.entry)
            raise ServiceError(refusal)
        if found.dropped:
            raise ServiceError(CHECK_IN_DROPPED(name=found.name))
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


def drop_no_shows(
    *, tournament: Tournament, players: Sequence[Player] | None = None, by: Any = None
) -> list[Player]:
    """Drop every accepted player who has not checked in, before round 1: one action,
    one audit entry listing them. Nobody to drop writes nothing.

    `players`: those the organizer's confirmation listed; only they are dropped (those of
    them still not checked in), never someone who registered while it was on screen."""
    with writing(tournament, by=by) as w:
        t = w.tournament
        if not t.check_in:
            raise ServiceError(NO_NO_SHOWS())
        if t.rounds.exists():
            raise ServiceError(NO_SHOWS_TOO_LATE())
        missing = not_checked_in(t)
        if players is not None:
            listed = {p.pk for p in players}
            missing = [p for p in missing if p.pk in listed]
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
