"""Judges on the floor (issue 27): time extensions per table, and deck checks.

A judge adds minutes to one table (a ruling that took time): that table's end is the
round clock's end plus its extensions (tournaments.tabletime). A deck check stops a
table; when it finishes, the time it took is given back as an extension of its own.

Every write runs in `writing` (so the version moves and the public pages and both
players' phones refresh) and is audited with its round, table and players. These writes
change no standing: they are recorded as `touched`, which makes the pages' event views
read the event again in full (pages.event.build relies on that for the extensions).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from tournaments.domain import current_round
from tournaments.messages import Message, Template, gettext_noop, template
from tournaments.models import (
    AuditAction,
    DeckCheck,
    ExtensionReason,
    Match,
    MatchKind,
    Player,
    Seat,
    TimeExtension,
    Tournament,
)
from tournaments.services.writing import ServiceError, Write, writing
from tournaments.tabletime import EXTENSION_MINUTES, minutes_taken

NOTE_LENGTH = 200  # TimeExtension.note
CHECK_NOTE_LENGTH = 300  # DeckCheck.note

# Why a table cannot take what the judge asked, one whole sentence per action (word
# order differs per language: no verb is slotted into a shared sentence). Raised as
# Messages (issue 36). %(table)s: THAT_MATCH or TABLE (a Message, said in its turn).
THAT_MATCH = template("floor.that_match", gettext_noop("That match"))
TABLE = template("floor.table", gettext_noop("Table %(table)s"))
_REFUSALS: dict[str, dict[str, Template]] = {
    "extend": {
        "bye": template(
            "floor.extend_bye", gettext_noop("%(table)s is a bye: there is no game to extend.")
        ),
        "not_two": template(
            "floor.extend_not_two",
            gettext_noop("%(table)s is not a two-player match: nothing to extend."),
        ),
        "not_played": template(
            "floor.extend_not_played",
            gettext_noop(
                "%(table)s of round %(round)s is not being played: only tables of the round "
                "being played can extend."
            ),
        ),
        "not_played_now": template(
            "floor.extend_not_played_now",
            gettext_noop(
                "%(table)s of round %(round)s is not being played (round %(now)s is): only "
                "tables of the round being played can extend."
            ),
        ),
        "reported": template(
            "floor.extend_reported",
            gettext_noop("%(table)s has its result already: nothing left to extend."),
        ),
    },
    "change its time": {
        "bye": template(
            "floor.time_bye",
            gettext_noop("%(table)s is a bye: there is no game to change its time."),
        ),
        "not_two": template(
            "floor.time_not_two",
            gettext_noop("%(table)s is not a two-player match: nothing to change its time."),
        ),
        "not_played": template(
            "floor.time_not_played",
            gettext_noop(
                "%(table)s of round %(round)s is not being played: only tables of the round "
                "being played can change its time."
            ),
        ),
        "not_played_now": template(
            "floor.time_not_played_now",
            gettext_noop(
                "%(table)s of round %(round)s is not being played (round %(now)s is): only "
                "tables of the round being played can change its time."
            ),
        ),
        "reported": template(
            "floor.time_reported",
            gettext_noop("%(table)s has its result already: nothing left to change its time."),
        ),
    },
    "deck check": {
        "bye": template(
            "floor.check_bye",
            gettext_noop("%(table)s is a bye: there is no game to deck check."),
        ),
        "not_two": template(
            "floor.check_not_two",
            gettext_noop("%(table)s is not a two-player match: nothing to deck check."),
        ),
        "not_played": template(
            "floor.check_not_played",
            gettext_noop(
                "%(table)s of round %(round)s is not being played: only tables of the round "
                "being played can deck check."
            ),
        ),
        "not_played_now": template(
            "floor.check_not_played_now",
            gettext_noop(
                "%(table)s of round %(round)s is not being played (round %(now)s is): only "
                "tables of the round being played can deck check."
            ),
        ),
        "reported": template(
            "floor.check_reported",
            gettext_noop("%(table)s has its result already: nothing left to deck check."),
        ),
    },
}
NO_ROUND = template("floor.no_round", gettext_noop("No round is being played: pair one first."))
NO_SUCH_TABLE = template(
    "floor.no_such_table", gettext_noop("Round %(round)s has no table %(table)s.")
)
TABLE_GONE = template(
    "floor.table_gone", gettext_noop("That table is not in this event (was its round undone?).")
)
NOTE_TOO_LONG = template(
    "floor.note_too_long",
    gettext_noop("Keep the note under %(limit)s characters (%(length)s now)."),
)
MINUTES = template(
    "floor.minutes", gettext_noop("Add between %(low)s and %(high)s minutes to a table at a time.")
)
EXTENSION_GONE = template(
    "floor.extension_gone", gettext_noop("That extension is not in this event any more.")
)
CHECK_TIME_STAYS = template(
    "floor.check_time_stays",
    gettext_noop("A deck check's time stays with its table: it is not taken back."),
)
BEING_CHECKED = template(
    "floor.being_checked", gettext_noop("%(table)s is being deck checked already.")
)
CHECK_GONE = template(
    "floor.check_gone", gettext_noop("That deck check is not in this event any more.")
)
CHECK_FINISHED = template(
    "floor.check_finished",
    gettext_noop("The deck check of table %(table)s is finished already."),
)


@dataclass(frozen=True)
class Table:
    """A table of the round being played, as the floor's refusals name it."""

    match: Match
    players: list[Player]

    @property
    def label(self) -> Message:
        """ "Table 4" (or "That match"), said in the reader's language."""
        if self.match.table is None:
            return THAT_MATCH()
        return TABLE(table=self.match.table)


def _open_table(
    w: Write, match: Match | int | None, doing: str, *, table: int | None = None
) -> Table:
    """The match (or the one at `table` in the round being played), locked with its event,
    if it is a two-player table still being played in the round being played; else
    refused, saying why."""
    t = w.tournament
    playing = current_round(t)
    if match is None:
        if playing is None:
            raise ServiceError(NO_ROUND())
        match = (
            Match.objects.filter(round=playing, table=table).order_by("id").first()
            if table is not None
            else None
        )
        if match is None:
            raise ServiceError(NO_SUCH_TABLE(round=playing.number, table=table))
    pk = match if isinstance(match, int) else match.pk
    found = Match.objects.filter(pk=pk, round__tournament=t).select_related("round").first()
    if found is None:
        raise ServiceError(TABLE_GONE())
    players = [
        s.player
        for s in Seat.objects.filter(match=found).select_related("player").order_by("position")
    ]
    at = Table(found, players)
    refusals = _REFUSALS[doing]
    said = {"table": at.label, "round": found.round.number}
    if found.kind == MatchKind.BYE:
        raise ServiceError(refusals["bye"](**said))
    if found.kind != MatchKind.PLAYED or len(players) != 2:
        raise ServiceError(refusals["not_two"](**said))
    if playing is None or playing.pk != found.round_id:
        if playing is None:
            raise ServiceError(refusals["not_played"](**said))
        raise ServiceError(refusals["not_played_now"](**said, now=playing.number))
    if found.reported:
        raise ServiceError(refusals["reported"](**said))
    return at


def _clean_note(note: str, limit: int) -> str:
    note = " ".join(note.split())
    if len(note) > limit:
        raise ServiceError(NOTE_TOO_LONG(limit=limit, length=len(note)))
    return note


def _total(match: Match) -> int:
    return sum(TimeExtension.objects.filter(match=match).values_list("minutes", flat=True))


def _where(table: Table) -> str:
    return f"Round {table.match.round.number} table {table.match.table}"


def add_extension(
    *,
    tournament: Tournament | int,
    match: Match | int | None = None,
    table: int | None = None,
    minutes: int,
    note: str = "",
    by: Any,
) -> TimeExtension:
    """A judge adds `minutes` to one table of the round being played: `match`, or the one
    at `table` (a number, as the judge typed it)."""
    low, high = EXTENSION_MINUTES
    if not isinstance(minutes, int) or not low <= minutes <= high:
        raise ServiceError(MINUTES(low=low, high=high))
    note = _clean_note(note, NOTE_LENGTH)
    with writing(tournament, by=by) as w:
        at = _open_table(w, match, "extend", table=table)
        extension = TimeExtension.objects.create(
            match=at.match,
            minutes=minutes,
            reason=ExtensionReason.JUDGE,
            judge=by if getattr(by, "is_authenticated", False) else None,
            note=note,
        )
        total = _total(at.match)
        w.touched()
        w.audit(
            AuditAction.EXTENSION,
            f"{_where(at)}: +{minutes} min" + (f" ({note})" if note else ""),
            after={"event": "added", "minutes": minutes, "total": total, "note": note},
            round=at.match.round.number,
            table=at.match.table,
            players=at.players,
        )
    return extension


def remove_extension(
    *, tournament: Tournament | int, extension: TimeExtension | int, by: Any
) -> None:
    """A judge takes back an extension given by mistake. A deck check's stays: it is the
    time the check took, not a judge's call."""
    pk = extension if isinstance(extension, int) else extension.pk
    with writing(tournament, by=by) as w:
        found = (
            TimeExtension.objects.filter(pk=pk, match__round__tournament=w.tournament)
            .select_related("match")
            .first()
        )
        if found is None:
            raise ServiceError(EXTENSION_GONE())
        if found.reason == ExtensionReason.DECK_CHECK:
            raise ServiceError(CHECK_TIME_STAYS())
        table = _open_table(w, found.match, "change its time")
        minutes = found.minutes
        found.delete()
        w.touched()
        w.audit(
            AuditAction.EXTENSION,
            f"{_where(table)}: -{minutes} min (extension taken back)",
            before={"minutes": minutes, "note": found.note},
            after={"event": "removed", "minutes": minutes, "total": _total(table.match)},
            round=table.match.round.number,
            table=table.match.table,
            players=table.players,
        )


# --- deck checks ----------------------------------------------------------------------


def checked_players(tournament: Tournament | int) -> set[int]:
    """Pks of the players whose table has had a deck check this event (or has one now)."""
    pk = tournament.pk if isinstance(tournament, Tournament) else tournament
    return set(
        Seat.objects.filter(match__deck_checks__tournament_id=pk).values_list(
            "player_id", flat=True
        )
    )


def suggest_deck_check_tables(
    *, tournament: Tournament, count: int = 1, rng: random.Random
) -> list[Match]:
    """`count` tables to deck check, drawn by `rng` among the open two-player tables of
    the round being played whose players have not been checked yet this event; fewer (or
    none) when fewer are left. In table order. A read: nothing is written."""
    playing = current_round(tournament)
    if playing is None or count < 1:
        return []
    checked = checked_players(tournament)
    seats: dict[int, list[int]] = {}
    for match_id, player_id in Seat.objects.filter(
        round=playing, match__kind=MatchKind.PLAYED, match__reported=False
    ).values_list("match_id", "player_id"):
        seats.setdefault(match_id, []).append(player_id)
    open_ = sorted(
        m for m, players in seats.items() if len(players) == 2 and not checked & set(players)
    )
    picked = set(rng.sample(open_, min(count, len(open_))))
    return list(Match.objects.filter(pk__in=picked).select_related("round").order_by("table", "id"))


def start_deck_check(
    *,
    tournament: Tournament | int,
    match: Match | int | None = None,
    table: int | None = None,
    by: Any,
) -> DeckCheck:
    """A judge takes a table's decks (`match`, or the one at `table` in the round being
    played): its time stops until the check is finished."""
    with writing(tournament, by=by) as w:
        table = _open_table(w, match, "deck check", table=table)
        if DeckCheck.objects.filter(match=table.match, finished_at__isnull=True).exists():
            raise ServiceError(BEING_CHECKED(table=table.label))
        check = DeckCheck.objects.create(
            tournament=w.tournament,
            match=table.match,
            judge=by if getattr(by, "is_authenticated", False) else None,
            started_at=timezone.now(),
        )
        w.touched()
        w.audit(
            AuditAction.DECK_CHECK,
            f"{_where(table)}: deck check started",
            after={"event": "started"},
            round=table.match.round.number,
            table=table.match.table,
            players=table.players,
        )
    return check


def finish_deck_check(*, check: DeckCheck | int, by: Any, note: str = "") -> DeckCheck:
    """The decks go back: the time the check took, in whole minutes rounded up, is added
    to the table's time (a TimeExtension pointing to the check). A table whose result
    came in meanwhile gets none: its game is over."""
    note = _clean_note(note, CHECK_NOTE_LENGTH)
    pk = check if isinstance(check, int) else check.pk
    event = DeckCheck.objects.filter(pk=pk).values_list("tournament_id", flat=True).first()
    if event is None:
        raise ServiceError(CHECK_GONE())
    with writing(event, by=by) as w:
        found = DeckCheck.objects.filter(pk=pk).select_related("match__round").first()
        if found is None:
            raise ServiceError(CHECK_GONE())
        if found.finished_at is not None:
            raise ServiceError(CHECK_FINISHED(table=found.match.table))
        found.finished_at = timezone.now()
        found.note = note
        found.save(update_fields=["finished_at", "note"])
        minutes = minutes_taken(found.started_at, found.finished_at)
        players = [
            s.player
            for s in Seat.objects.filter(match=found.match)
            .select_related("player")
            .order_by("position")
        ]
        given = 0
        if not found.match.reported:
            TimeExtension.objects.create(
                match=found.match,
                minutes=minutes,
                reason=ExtensionReason.DECK_CHECK,
                deck_check=found,
                judge=by if getattr(by, "is_authenticated", False) else None,
            )
            given = minutes
        w.touched()
        w.audit(
            AuditAction.DECK_CHECK,
            f"Round {found.match.round.number} table {found.match.table}: deck check "
            f"finished after {minutes} min" + (f" ({note})" if note else ""),
            after={"event": "finished", "minutes": minutes, "extension": given, "note": note},
            round=found.match.round.number,
            table=found.match.table,
            players=players,
        )
    return found


def deck_check_history(player: Player) -> list[DeckCheck]:
    """The deck checks of the player's tables this event, oldest first (a read)."""
    return list(
        DeckCheck.objects.filter(tournament_id=player.tournament_id, match__seats__player=player)
        .select_related("match__round", "judge")
        .order_by("started_at", "id")
    )
