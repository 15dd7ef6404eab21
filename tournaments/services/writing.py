"""The one way to write a tournament: `with writing(tournament, by=user) as w: ...`.

The block owns everything every write needs, so no service repeats it:
- the transaction and the tournament's row lock (writes to one event are serialised), with
  a lock timeout that answers "busy, try again" instead of hanging the organizer's click;
- the audit entries the service adds (`w.audit(...)`);
- the version bump: the one freshness number every cache, fragment and ETag derives from;
- which scoring inputs changed (`w.changed(matches=[...])`, or `w.changed()` for anything):
  the stored standings are recomputed in the same transaction, incrementally when the
  changed matches are known, and the record of changed matches lets other workers catch up;
- after commit, the live pages learn of it from the version itself: the processes that
  serve them look at it (tournaments.stream.Hub), so the writer does no work for them.

A block in which the service records nothing (the same result entered twice) writes
nothing at all: no version, no audit entry, no recompute.

The one exception: a player's report or dispute changes no standing and no public page,
so services.reports writes it under its match row's lock without this block (see `lock`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import OperationalError, transaction
from django.db.models import F

from scoring import outlooks
from scoring.services import recompute, unscored
from tournaments.labels import spoken
from tournaments.locking import lock_tournament
from tournaments.messages import Message, gettext_noop, template
from tournaments.models import AuditEntry, AuditPlayer, Player, Tournament

# The English of the busy refusal (the msgid), for the services that still raise it as it
# is; raised here, and to be raised everywhere, as the Message `BUSY_REFUSAL()`.
BUSY = gettext_noop("Another change to this event is still being saved: try again in a moment.")
BUSY_REFUSAL = template("writing.busy", BUSY)
NO_EVENT = template("writing.no_event", gettext_noop("That event no longer exists."))


class ServiceError(ValueError):
    """A refused write, with what to tell the user: a Message (tournaments.messages),
    said in whichever language is active when it is shown (`str(exc)`, the views), so a
    service raises it without translating (issue 36); or a text already said."""

    def __init__(self, message: Message | str = "", *args: Any) -> None:
        super().__init__(message, *args)
        self.message = message

    def __str__(self) -> str:
        return spoken(self.message)


# A player an audit entry is about: (interchange id, name as the entry knew it).
Named = tuple[str | None, str]


def _named(players: Iterable[Player | Named]) -> list[Named]:
    out: list[Named] = []
    for p in players:
        named = (p.external_id, p.name) if isinstance(p, Player) else (p[0], str(p[1]))
        if named not in out:
            out.append(named)
    return out


@dataclass
class Write:
    """What one `writing` block has done so far; the service fills it in."""

    tournament: Tournament  # the locked row, fresh from the database
    by: Any = None
    entries: list[AuditEntry] = field(default_factory=list)
    named: list[list[Named]] = field(default_factory=list)  # per entry: its players
    dirty: bool = False
    scoring: bool = False
    # Matches whose results changed; None once anything else a standing reads changed
    # (players, rounds, drops): the recompute then reads the whole event.
    matches: list[int] | None = field(default_factory=list)
    paired: bool = False  # `matches` are those of a round just paired (`changed`)
    # The service changed who is in the event and wrote their standings itself (`placed`).
    placed_players: bool = False

    def audit(
        self,
        action: str,
        summary: str,
        *,
        before: Any = None,
        after: Any = None,
        round: int | None = None,
        table: int | None = None,
        players: Iterable[Player | Named] = (),
    ) -> None:
        """Record what this write did, for the event's audit log: the summary and the
        values before and after, and what the entry is about (the round, the table and
        the players: Player rows, or (interchange id, name) pairs, stored with their
        names as of now). The audit screen filters on those fields and builds its
        sentence from them and from before/after (pages.audit): a fact the sentence
        needs goes there too, never only into the summary, which the screen shows as
        recorded and reads only for entries written before that fact was stored."""
        self.dirty = True
        self.entries.append(
            AuditEntry(
                tournament=self.tournament,
                user=self.by if getattr(self.by, "is_authenticated", False) else None,
                action=action,
                summary=summary[:300],
                before=before,
                after=after,
                round=round,
                table=table,
            )
        )
        self.named.append(_named(players))

    def changed(self, *, matches: Sequence[int] | None = None, paired: bool = False) -> None:
        """The standings' inputs changed: these matches' results, or (None) anything.
        `paired`: the matches are those of a round just paired, the only change."""
        self.dirty = self.scoring = True
        if matches is None or self.matches is None or (self.matches and paired != self.paired):
            self.matches = None
        else:
            self.matches.extend(matches)
            self.paired = paired

    def touched(self) -> None:
        """Something the pages show changed, though no standing depends on it: not who
        is in the event, their drops or their matches (`changed` or `placed` then)."""
        self.dirty = True

    def placed(self) -> None:
        """Players joined and the service stored their standings itself, without a
        recompute (services.registration.place_before_round_one): no scoring snapshot
        knows them, so none is trusted past this write (scoring.services.unscored)."""
        self.dirty = self.placed_players = True


def lock(tournament: Tournament | int, *, reports_pass: bool = False) -> Tournament:
    """The tournament row, locked until the end of the transaction.

    `reports_pass`: FOR NO KEY UPDATE instead of FOR UPDATE. Still serialised with every
    other write, but not with players' reports and disputes (services.reports), which
    hold FOR KEY SHARE on this row and lock their own match row: for a write that locks
    the match rows it changes (a player's confirmation), so that reports do not queue
    behind its standings recompute.
    """
    pk = tournament.pk if isinstance(tournament, Tournament) else tournament
    locked = lock_tournament(pk, no_key=reports_pass)
    if locked is None:
        raise ServiceError(NO_EVENT())
    return locked


# The English of the refusal (the msgid, as tests quote it); raised as `FINISHED_REFUSAL()`.
FINISHED = gettext_noop("The tournament is finished: its owner can reopen it to change anything.")
FINISHED_REFUSAL = template("writing.finished", FINISHED)


class Finished(ServiceError):
    """The refusal of any write to a finished event: a caller that words it for its own
    reader (a player's report) recognises it by this type, never by its text."""


@contextmanager
def writing(
    tournament: Tournament | int,
    *,
    by: Any = None,
    when_finished: bool = False,
    reports_pass: bool = False,
) -> Iterator[Write]:
    """One write to one tournament (see the module's docstring).

    A finished event is read-only: only writes that say `when_finished` (reopening it,
    its staff) go through. `reports_pass`: see `lock`.
    """
    try:
        with transaction.atomic():
            # (the plain call stays as it was: tests stand in for `lock` with one argument)
            locked = lock(tournament, reports_pass=True) if reports_pass else lock(tournament)
            w = Write(locked, by)
            if w.tournament.status == "finished" and not when_finished:
                raise Finished(FINISHED_REFUSAL())
            yield w
            if w.dirty:
                _commit(w)
    except OperationalError as exc:
        if is_busy(exc):
            raise ServiceError(BUSY_REFUSAL()) from exc
        raise


def _commit(w: Write) -> None:
    t = w.tournament
    Tournament.objects.filter(pk=t.pk).update(version=F("version") + 1)
    t.version += 1  # the row is locked: nobody else can have moved it meanwhile
    # The one place a write's scoring change is told (the change log and the snapshots),
    # as the version above is the one place it is counted.
    if w.scoring:
        recompute(t, changed_matches=w.matches, paired=w.paired)
    else:
        unscored(t, standings_written=w.placed_players)
    store_audit(w)
    if t.top_cut and t.planned_rounds:
        # "What do I need?" (issue 15): said to be computing in this same transaction; the
        # simulations run where the phones are served (scoring.outlooks), never here. No
        # query for events without a cut.
        outlooks.mark_computing(t.pk)
        if not settings.OUTLOOK_BACKGROUND:  # tests, scripts: computed here, once committed
            pk = t.pk
            transaction.on_commit(lambda: outlooks.schedule(pk), robust=True)


def store_audit(w: Write) -> None:
    """The block's audit entries, and the players each is about."""
    if not w.entries:
        return
    rows = AuditEntry.objects.bulk_create(w.entries)  # sets their pks (RETURNING)
    AuditPlayer.objects.bulk_create(
        AuditPlayer(entry=row, external_id=ext, name=name[:200])
        for row, named in zip(rows, w.named, strict=True)
        for ext, name in named
    )


def is_busy(exc: OperationalError) -> bool:
    text = str(exc).lower()
    return "lock timeout" in text or "database is locked" in text or "lock_timeout" in text
