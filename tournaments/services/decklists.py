"""Decklists (issue 28): the event's rules (format, deadline), a player's submission, a
judge's or the organizer's list for a player, and publishing the top cut's lists.

A list is parsed (the text forms, or an MTGO .dek file), checked against the event's
format and the card data when it is loaded (services.cards.card_lookup), and stored with
what the checks found: main and side as [[count, name], ...], the problems (each naming
its line), whether it is legal and whether its names were checked.

Who writes, and how:
- A player, from their private link, until the deadline (by default round 1's pairing;
  tournaments.domain.decklists_locked). Nothing a public page shows changes (lists are
  public only once published, and publishing locks them), so, as a player's report
  (services.reports), it moves no version and does not queue behind the organizer's
  writes: FOR KEY SHARE on the tournament row (serialised with the deadline's and the
  publishing's FOR UPDATE), FOR NO KEY UPDATE on the player's row. Audited.
- The organizer or a judge, for a player, at any time: a `writing` block (the version
  moves: a published list may change). After the lock it is "a judge's change", audited
  with the list before and after.
- The organizer's rules and publishing: `writing` blocks; publishing may follow the
  event's finish (`when_finished`).

The same list twice writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import OperationalError, transaction
from django.utils import timezone

from tournaments.decklists import messages
from tournaments.decklists.check import check_decklist
from tournaments.decklists.parse import card_key, parse_decklist, parse_dek
from tournaments.decklists.types import CardLookup, Line, Parsed
from tournaments.domain import decklists_locked
from tournaments.messages import Message, gettext_noop, template
from tournaments.models import AuditAction, DeckFormat, Decklist, Entry, Player, Tournament
from tournaments.permissions import can_judge
from tournaments.services.cards import card_lookup
from tournaments.services.reports import _shared
from tournaments.services.writing import (
    BUSY_REFUSAL,
    ServiceError,
    Write,
    is_busy,
    store_audit,
    writing,
)

MAX_UPLOAD_BYTES = 64 * 1024  # a 250-line list is under 10 kB; a .dek under 30 kB
UPLOAD_SUFFIXES = (".txt", ".dek")
# Refusals, raised as Messages and said where they are shown (issue 36). The English of
# the first five stays importable: callers compare with it.
NO_DECKLISTS_MSG = template("decklists.none", gettext_noop("This event takes no decklists."))
LOCKED_MSG = template(
    "decklists.locked",
    gettext_noop(
        "Decklists are locked: the deadline has passed. Your registered list stays as it is; "
        "to change it, see a judge."
    ),
)
NOT_STAFF_MSG = template(
    "decklists.not_staff",
    gettext_noop("Only the event's organizer or its judges enter a list for a player."),
)
EMPTY_MSG = template(
    "decklists.empty",
    gettext_noop("The list is empty: paste your list, or choose a .txt or .dek file."),
)
NOT_IN_EVENT_MSG = template(
    "decklists.not_in_event", gettext_noop("That player is not in this event.")
)
NO_DECKLISTS = NO_DECKLISTS_MSG.singular
LOCKED = LOCKED_MSG.singular
NOT_STAFF = NOT_STAFF_MSG.singular
EMPTY = EMPTY_MSG.singular
NOT_IN_EVENT = NOT_IN_EVENT_MSG.singular
NOT_A_FILE = template(
    "decklists.not_a_file",
    gettext_noop("%(name)r is not a decklist file: choose a .txt (text) or .dek (MTGO) file."),
)
FILE_TOO_BIG = template(
    "decklists.file_too_big",
    gettext_noop("%(name)r is %(size)s kB: a decklist file is at most %(most)s kB."),
)
NOT_TEXT = template(
    "decklists.not_text",
    gettext_noop("%(name)r is not a text file: choose the list's .txt or .dek file."),
)
EMPTY_FILE = template("decklists.empty_file", gettext_noop("%(name)r is empty."))
DEK_UNUSABLE = template(
    "decklists.dek_unusable",
    gettext_noop(
        "This .dek file could not be used (%(why)s): export the deck from MTGO "
        "again, or paste the list as text."
    ),
)
NO_CARD_MORE = template(
    "decklists.no_card_more",
    gettext_noop("No card could be read from this list: %(problems)s (and %(more)s more)."),
)
NO_CARD = template(
    "decklists.no_card", gettext_noop("No card could be read from this list: %(problems)s.")
)
NOT_A_FORMAT = template(
    "decklists.not_a_format", gettext_noop("%(format)r is not a format: pick one of %(known)s.")
)
NAIVE_DEADLINE = template(
    "decklists.naive_deadline", gettext_noop("The deadline needs its time zone.")
)
# Two problems in one sentence ("a; b"), each said in the reader's language: the
# separator is not a word, so it is not marked.
JOINED = template("decklists.joined", "%(first)s; %(rest)s")


def _joined(problems: list[Message]) -> Message:
    """`problems` (at least one) as one message: "a; b; c"."""
    out = problems[-1]
    for p in reversed(problems[:-1]):
        out = JOINED(first=p, rest=out)
    return out


@dataclass(frozen=True)
class Checked:
    """What parsing and the checks made of a list, as a Decklist row stores it."""

    text: str
    main: list[list[Any]]
    side: list[list[Any]]
    problems: list[dict[str, Any]]  # each a Message's data (Decklist.problems)
    legal: bool
    names_checked: bool

    def fields(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "main": self.main,
            "side": self.side,
            "problems": self.problems,
            "legal": self.legal,
            "names_checked": self.names_checked,
        }


# --- Reading what was sent ----------------------------------------------------------------


def read_upload(*, name: str, data: bytes) -> str:
    """An uploaded file's text: a .txt or .dek of at most MAX_UPLOAD_BYTES, as text
    (UTF-8, else Windows' Latin-1: lists saved by older tools). Refused, saying why,
    otherwise."""
    lowered = name.lower()
    if not lowered.endswith(UPLOAD_SUFFIXES):
        raise ServiceError(NOT_A_FILE(name=name))
    if len(data) > MAX_UPLOAD_BYTES:
        raise ServiceError(
            FILE_TOO_BIG(name=name, size=len(data) // 1024, most=MAX_UPLOAD_BYTES // 1024)
        )
    if b"\x00" in data:
        raise ServiceError(NOT_TEXT(name=name))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("cp1252", errors="replace")
    if not text.strip():
        raise ServiceError(EMPTY_FILE(name=name))
    return text


def _is_dek(text: str) -> bool:
    head = text.lstrip()[:200].lower()
    return head.startswith("<?xml") or head.startswith("<deck")


def _as_text(parsed: Parsed) -> str:
    """A .dek's list in the text form, the one the player's page edits and line numbers
    refer to."""
    lines = [f"{x.count} {x.name}" for x in parsed.main]
    if parsed.side:
        lines += ["", "Sideboard", *(f"{x.count} {x.name}" for x in parsed.side)]
    return "\n".join(lines) + "\n"


def _named(lines: tuple[Line, ...], cards: CardLookup | None) -> list[list[Any]]:
    """[[count, name], ...], each name as the card data spells it when known."""
    out: list[list[Any]] = []
    for x in lines:
        info = cards.get(card_key(x.name)) if cards is not None else None
        out.append([x.count, info.name if info is not None else x.name])
    return out


class ListRefused(ServiceError):
    """A list nothing in it could be registered from. Its message is said where it is
    shown, in the reader's language; `problems` (Messages) are stored when a list already
    registered is checked again and refused (recheck, a backup's restore)."""

    def __init__(self, said: Message | str, problems: list[Message]) -> None:
        super().__init__(said)
        self.problems = problems


def check_text(text: str, *, deck_format: str, cards: CardLookup | None) -> Checked:
    """Parse (the text forms, or a .dek's XML) and check a list. Refused only when
    nothing in it could be read at all; any other problem is stored with the list."""
    if len(text.encode("utf-8", errors="replace")) > MAX_UPLOAD_BYTES:
        too_long = messages.LIST_TOO_LONG(most=MAX_UPLOAD_BYTES // 1024)
        raise ListRefused(too_long, [too_long])
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise ListRefused(EMPTY_MSG(), [messages.LIST_EMPTY()])
    before: list[Message] = []
    if _is_dek(text):
        dek = parse_dek(text)  # never raises: what it cannot read is a problem
        if not dek.main and not dek.side:
            why = [p.said() for p in dek.problems] or [messages.DEK_NO_CARDS()]
            said = DEK_UNUSABLE(why=_joined(why[:3]))
            raise ListRefused(said, [messages.DEK_FILE(problem=p) for p in why])
        before = [messages.DEK_FILE(problem=p.said()) for p in dek.problems]
        text = _as_text(dek)
    parsed = parse_decklist(text)
    if not parsed.main and not parsed.side:
        # Nothing to register: the reason (too many lines, unreadable lines) is the answer.
        if not parsed.problems:
            raise ListRefused(EMPTY_MSG(), [messages.LIST_EMPTY()])
        found = [p.said() for p in parsed.problems]
        shown = _joined(found[:3])
        if len(found) > 3:
            raise ListRefused(NO_CARD_MORE(problems=shown, more=len(found) - 3), found)
        raise ListRefused(NO_CARD(problems=shown), found)
    found = [*before, *(p.said() for p in parsed.problems)]
    for p in check_decklist(parsed, deck_format=deck_format, cards=cards):
        if p.said() not in found:
            found.append(p.said())
    problems = [p.data() for p in found]
    return Checked(
        text=text.strip("\n") + "\n",
        main=_named(parsed.main, cards),
        side=_named(parsed.side, cards),
        problems=problems,
        legal=not problems,
        names_checked=cards is not None,
    )


def refused_fields(text: str, refused: ServiceError, *, names_checked: bool) -> dict[str, Any]:
    """A registered list checked again and refused whole (recheck, a backup's restore): no
    cards, and why, as data."""
    why = (
        refused.problems
        if isinstance(refused, ListRefused)
        else [refused.message]
        if isinstance(refused.message, Message)
        else [messages.STORED_TEXT(text=str(refused))]
    )
    return Checked(text, [], [], [p.data() for p in why], False, names_checked).fields()


# --- Writing ------------------------------------------------------------------------------


def _counts(main: list[list[Any]], side: list[list[Any]]) -> dict[str, int]:
    return {"main": sum(c for c, _ in main), "side": sum(c for c, _ in side)}


def _facts(event: str, checked: Checked | Decklist, **extra: Any) -> dict[str, Any]:
    """What a DECKLIST audit entry keeps (pages.decklist_audit renders it)."""
    return {
        "event": event,
        **_counts(checked.main, checked.side),
        "legal": checked.legal,
        "problems": len(checked.problems),
        **extra,
    }


def _event_player(t: Tournament, player: Player | int) -> Player:
    pk = player.pk if isinstance(player, Player) else player
    found = (
        Player.objects.filter(pk=pk, tournament=t)
        .exclude(entry=Entry.REJECTED)
        .select_for_update(no_key=True, of=("self",))
        .first()
    )
    if found is None:
        raise ServiceError(NOT_IN_EVENT_MSG())
    return found


@contextmanager
def _players_write(tournament_id: int) -> Iterator[Write]:
    """A player's own submission: the locks of the module's docstring and its audit
    entry; no version, nothing for the live pages."""
    try:
        with transaction.atomic():
            w = Write(_shared(tournament_id))
            yield w
            store_audit(w)
    except OperationalError as exc:
        if is_busy(exc):
            raise ServiceError(BUSY_REFUSAL()) from exc
        raise


def _store(player: Player, checked: Checked, by: Any, existing: Decklist | None) -> Decklist:
    now = timezone.now()
    user = by if getattr(by, "is_authenticated", False) else None
    if existing is None:
        return Decklist.objects.create(
            player=player, submitted_at=now, updated_at=now, updated_by=user, **checked.fields()
        )
    for field, value in checked.fields().items():
        setattr(existing, field, value)
    existing.updated_at = now
    existing.updated_by = user
    existing.save()
    return existing


def submit_decklist(*, player: Player, text: str, by: Any = None) -> Decklist:
    """Register `player`'s list (`text`: the text form or a .dek's XML; see read_upload
    for files).

    `by` None: the player themself, refused once the lists are locked (LOCKED).
    `by` a user: the event's organizer or one of its judges (else NOT_STAFF), at any
    time; after the lock, "a judge's change", audited with the list before and after.
    Refused: an event without decklists, a list with nothing readable, a list too long.
    """
    t = Tournament.objects.get(pk=player.tournament_id)
    if not t.deck_format:
        raise ServiceError(NO_DECKLISTS_MSG())
    if by is not None and not can_judge(by, t):
        raise ServiceError(NOT_STAFF_MSG())
    cards = card_lookup()
    checked = check_text(text, deck_format=t.deck_format, cards=cards)
    if by is None:
        with _players_write(t.pk) as w:
            return _submit(w, player, checked, by=None)
    with writing(t, by=by) as w:
        return _submit(w, player, checked, by=by)


def _submit(w: Write, player: Player, checked: Checked, *, by: Any) -> Decklist:
    t = w.tournament
    if not t.deck_format:
        raise ServiceError(NO_DECKLISTS_MSG())
    locked = decklists_locked(t)
    if by is None and locked:
        raise ServiceError(LOCKED_MSG())
    who = _event_player(t, player)
    existing = Decklist.objects.filter(player=who).first()
    if (
        existing is not None
        and existing.text == checked.text
        and existing.problems == (checked.problems)
    ):
        return existing  # the same list again: nothing to write
    before = (
        {
            **_counts(existing.main, existing.side),
            "main_list": existing.main,
            "side_list": existing.side,
        }
        if existing is not None
        else None
    )
    if by is None:
        event, summary = "submitted", f"{who.name} registered a decklist"
    elif locked:
        event, summary = "changed", f"A judge changed {who.name}'s registered decklist"
    else:
        event, summary = "entered", f"Decklist entered for {who.name}"
    extra: dict[str, Any] = {"replaced": existing is not None}
    if by is not None:
        extra.update(main_list=checked.main, side_list=checked.side)
    row = _store(who, checked, by, existing)
    if by is not None:
        w.touched()
    w.audit(
        AuditAction.DECKLIST,
        summary,
        before=before if by is not None else None,
        after=_facts(event, checked, **extra),
        players=[who],
    )
    return row


def recheck(w: Write, cards: CardLookup | None) -> int:
    """Check every stored list of the event again (its format or the card data changed);
    returns how many lists' results changed."""
    rows = list(Decklist.objects.filter(player__tournament=w.tournament).order_by("pk"))
    changed: list[Decklist] = []
    for row in rows:
        try:
            fields = check_text(
                row.text, deck_format=w.tournament.deck_format, cards=cards
            ).fields()
        except ServiceError as exc:
            # Stored as data, said in each reader's language.
            fields = refused_fields(row.text, exc, names_checked=cards is not None)
        if any(getattr(row, k) != v for k, v in fields.items()):
            for k, v in fields.items():
                setattr(row, k, v)
            changed.append(row)
    if changed:
        Decklist.objects.bulk_update(
            changed, ["text", "main", "side", "problems", "legal", "names_checked"]
        )
    return len(changed)


def _deadline_text(deadline: datetime | None) -> str | None:
    return deadline.isoformat() if deadline is not None else None


def set_decklist_rules(
    *, tournament: Tournament, deck_format: str, deadline: datetime | None, by: Any
) -> Tournament:
    """The event's decklist format ("" : no decklists) and deadline (None: round 1's
    pairing; an aware datetime). Every stored list is checked again (the format, or the
    card data loaded since, may change what it finds). Refused: an unknown format, a
    deadline without its time zone."""
    if deck_format not in DeckFormat.values:
        known = ", ".join(label for value, label in DeckFormat.choices if value)
        raise ServiceError(NOT_A_FORMAT(format=deck_format, known=known))
    if deadline is not None and timezone.is_naive(deadline):
        raise ServiceError(NAIVE_DEADLINE())
    with writing(tournament, by=by) as w:
        t = w.tournament
        old = {"format": t.deck_format, "deadline": _deadline_text(t.decklist_deadline)}
        new = {"format": deck_format, "deadline": _deadline_text(deadline)}
        t.deck_format, t.decklist_deadline = deck_format, deadline
        rechecked = recheck(w, card_lookup()) if deck_format else 0
        if old == new and not rechecked:
            return t
        t.save(update_fields=["deck_format", "decklist_deadline"])
        w.touched()
        label = DeckFormat(deck_format).label if deck_format else "no decklists"
        w.audit(
            AuditAction.DECKLIST,
            f"Decklists: {label}"
            + (f", deadline {deadline:%Y-%m-%d %H:%M %Z}" if deadline else ", until round 1"),
            before={"event": "rules", **old},
            after={"event": "rules", **new, "rechecked": rechecked},
        )
    tournament.deck_format, tournament.decklist_deadline = deck_format, deadline
    return t


def publish_decklists(*, tournament: Tournament, published: bool, by: Any) -> Tournament:
    """Make the top cut's lists public (domain.decklist_top_cut), or private again.
    Allowed after the event's finish: that is when lists are usually published."""
    with writing(tournament, by=by, when_finished=True) as w:
        t = w.tournament
        if not t.deck_format and published:
            raise ServiceError(NO_DECKLISTS_MSG())
        if t.decklists_published == published:
            return t
        t.decklists_published = published
        t.save(update_fields=["decklists_published"])
        w.touched()
        w.audit(
            AuditAction.DECKLIST,
            "Published the top cut's decklists" if published else "Decklists made private again",
            before={"event": "publish", "published": not published},
            after={"event": "publish", "published": published},
        )
    tournament.decklists_published = published
    return t
