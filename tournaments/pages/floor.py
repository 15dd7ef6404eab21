"""The floor's screens (issue 27): each table's own time, the tables still playing past
the round's end, time extensions and deck checks. Plain data out, read from stored rows.

Every table time here comes from tournaments.tabletime, as the players' clocks do.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from tournaments.models import (
    DeckCheck,
    ExtensionReason,
    Match,
    MatchKind,
    Player,
    Round,
    Seat,
    TimeExtension,
    Tournament,
)
from tournaments.pages.common import (
    clock_state,
    current_round,
    missing_results,
    round_extensions,
    round_label,
)
from tournaments.pages.event import display_names
from tournaments.tabletime import EXTENSION_MINUTES, TableTime, round_over, table_time

QUICK_MINUTES = (1, 2, 3, 5, 10)  # the judge's buttons: rulings rarely take more


def hm(moment: datetime) -> str:
    """ "14:35": a time of day as the round clock shows it (templates' |localtime)."""
    return f"{timezone.localtime(moment):%H:%M}"


def minutes_text(delta: timedelta, *, up: bool) -> str:
    """ "3 min": time left rounded up (20 s left is 1 min), time over rounded down (3 min
    20 s over is 3 min), never 0."""
    seconds = abs(delta.total_seconds())
    whole = -(-seconds // 60) if up else seconds // 60
    return _("%(minutes)s min") % {"minutes": max(1, int(whole))}


def time_of(round_: Round, extension: int, now: datetime) -> TableTime | None:
    return table_time(
        clock_ends_at=round_.clock_ends_at,
        clock_paused_remaining=round_.clock_paused_remaining,
        extension_minutes=extension,
        now=now,
    )


def extension_text(round_: Round, extension: int, now: datetime | None = None) -> str:
    """ "+5 min, ends 14:35" (the clock running), "+5 min" otherwise; "" for none."""
    if not extension:
        return ""
    found = time_of(round_, extension, now or timezone.now())
    if found is not None and found.ends_at is not None:
        return _("+%(minutes)s min, ends %(at)s") % {"minutes": extension, "at": hm(found.ends_at)}
    return _("+%(minutes)s min") % {"minutes": extension}


@dataclass(frozen=True)
class StillPlaying:
    """A table with no result once the round clock has run out."""

    pk: int
    table: int | None
    names: tuple[str, ...]
    extension: int
    time: TableTime

    @property
    def text(self) -> str:
        """ "over by 3 min", or "in its extension: ends 14:35 (4 min left)"."""
        if self.time.over:
            return _("over by %(time)s") % {"time": minutes_text(self.time.remaining, up=False)}
        left = minutes_text(self.time.remaining, up=True)
        if self.time.ends_at is not None:
            return _("+%(minutes)s min: ends %(at)s (%(left)s left)") % {
                "minutes": self.extension,
                "at": hm(self.time.ends_at),
                "left": left,
            }
        return _("+%(minutes)s min: %(left)s left (clock paused)") % {
            "minutes": self.extension,
            "left": left,
        }


def still_playing(
    round_: Round,
    tables: Iterable[tuple[int, int | None, Iterable[str], int]],
    now: datetime | None = None,
) -> list[StillPlaying]:
    """Once the round clock has run out: every table of `tables` (pk, number, names,
    extension: the open ones) in the order their own time ran out, those over the
    longest first, then those still in their extension. Empty while the round runs."""
    now = now or timezone.now()
    if not round_over(
        clock_ends_at=round_.clock_ends_at,
        clock_paused_remaining=round_.clock_paused_remaining,
        now=now,
    ):
        return []
    found = []
    for pk, number, names, extension in tables:
        t = time_of(round_, extension, now)
        if t is not None:
            found.append(StillPlaying(pk, number, tuple(names), extension, t))
    found.sort(key=lambda s: (s.time.remaining, s.table or 0))
    return found


# --- the tables screen -------------------------------------------------------------------


@dataclass
class ExtensionRow:
    pk: int
    minutes: int
    reason: str
    note: str
    judge: str
    at: str

    @property
    def by_deck_check(self) -> bool:
        return self.reason == ExtensionReason.DECK_CHECK


@dataclass
class FloorTable:
    """One table of the round being played, as the judges' screens show it."""

    pk: int
    table: int | None
    kind: str
    reported: bool
    names: list[str] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    extensions: list[ExtensionRow] = field(default_factory=list)
    ends: str = ""  # "+5 min, ends 14:35"

    @property
    def open(self) -> bool:
        return self.kind == MatchKind.PLAYED and not self.reported

    @property
    def extension(self) -> int:
        return sum(e.minutes for e in self.extensions)

    @property
    def kind_text(self) -> str:
        """What a table without a game shows in the Time column: "bye", "loss", ..."""
        if self.kind == MatchKind.BYE:
            return pgettext("a match's outcome", "bye")
        if self.kind == MatchKind.LOSS:
            return pgettext("a match's outcome", "loss")
        if self.kind == MatchKind.DOUBLE_LOSS:
            return pgettext("a match's kind", "double loss")
        if self.kind == MatchKind.GAME:
            return pgettext("a match's kind", "game")
        return self.kind


def floor_tables(
    t: Tournament, round_: Round, only: Collection[int] | None = None
) -> list[FloorTable]:
    """Every table of the round (or the matches `only`) with its players and extensions
    (two queries)."""
    names = display_names(t)
    tables: dict[int, FloorTable] = {}
    seats = Seat.objects.filter(round=round_)
    extensions = TimeExtension.objects.filter(match__round=round_)
    if only is not None:
        seats = seats.filter(match_id__in=only)
        extensions = extensions.filter(match_id__in=only)
    for pk, number, kind, reported, name, ext in (
        seats.order_by("match__table", "match_id", "position")
        .values_list(
            "match_id", "match__table", "match__kind", "match__reported",
            "player__name", "player__external_id",
        )
    ):  # fmt: skip
        row = tables.setdefault(pk, FloorTable(pk, number, kind, reported))
        row.names.append(names.get(ext, name))
        row.ids.append(ext)
    for e in extensions.select_related("judge").order_by("created_at", "id"):
        if e.match_id in tables:
            tables[e.match_id].extensions.append(
                ExtensionRow(
                    e.pk,
                    e.minutes,
                    e.reason,
                    e.note,
                    e.judge.get_username() if e.judge else "",
                    hm(e.created_at),
                )
            )
    now = timezone.now()
    for row in tables.values():
        row.ends = extension_text(round_, row.extension, now)
    return list(tables.values())


def tables_screen(
    t: Tournament, *, all_tables: bool = False, round_: Round | None = None
) -> dict[str, Any]:
    """The judges' tables screen: the round being played, its tables still playing past
    the round's end first (once its clock has run out), then those extended; every
    table only when asked (`all_tables`: 1,024 rows are 100 kB a judge's phone rarely
    needs, and each extension answers with this screen). `round_`: the round being
    played, when the caller knows it already."""
    round_ = round_ or current_round(t)
    ctx: dict[str, Any] = {
        "tournament": t,
        "round": round_,
        "round_label": round_label(round_),
        "quick_minutes": QUICK_MINUTES,
        "max_minutes": EXTENSION_MINUTES[1],
        "all_tables": all_tables,
    }
    if round_ is None:
        return {**ctx, "tables": [], "extended": [], "late": [], "clock": None}
    over = round_over(
        clock_ends_at=round_.clock_ends_at,
        clock_paused_remaining=round_.clock_paused_remaining,
        now=timezone.now(),
    )
    # Only the extended tables, unless every table is wanted (all, or the late list).
    only = None if all_tables or over else set(round_extensions(round_.pk))
    tables = floor_tables(t, round_, only=only)
    late = still_playing(round_, ((r.pk, r.table, r.names, r.extension) for r in tables if r.open))
    return {
        **ctx,
        "clock": clock_state(round_),
        "tables": tables if all_tables else [],
        "table_count": round_.matches.count(),
        "open_count": missing_results(round_),
        "extended": [r for r in tables if r.extensions],
        "late": late,
    }


def table_row(t: Tournament, match: Match) -> FloorTable | None:
    """One table of the round being played as the screen shows it (its extensions)."""
    found = floor_tables(t, match.round, only={match.pk})
    return found[0] if found else None


# --- the deck checks screen --------------------------------------------------------------


@dataclass
class CheckRow:
    pk: int
    round: int
    table: int | None
    names: list[str]
    ids: list[str]
    judge: str
    started: datetime
    finished: datetime | None
    note: str
    extension: int  # minutes the table got back (0: its result came in meanwhile)

    @property
    def people(self) -> list[tuple[str, str]]:
        """(name, interchange id) of each player at the table."""
        return list(zip(self.names, self.ids, strict=False))

    @property
    def started_at(self) -> str:
        return hm(self.started)

    @property
    def running_seconds(self) -> int:
        return int((timezone.now() - self.started).total_seconds())

    @property
    def duration(self) -> str:
        end = self.finished or timezone.now()
        seconds = int((end - self.started).total_seconds())
        return f"{seconds // 60}:{seconds % 60:02d}"


def check_rows(t: Tournament, checks: Iterable[DeckCheck]) -> list[CheckRow]:
    checks = list(checks)
    names = display_names(t)
    seated: dict[int, list[tuple[str, str]]] = {}
    for match_id, name, ext in (
        Seat.objects.filter(match_id__in={c.match_id for c in checks})
        .order_by("match_id", "position")
        .values_list("match_id", "player__name", "player__external_id")
    ):
        seated.setdefault(match_id, []).append((names.get(ext, name), ext))
    given = dict(
        TimeExtension.objects.filter(deck_check__in=[c.pk for c in checks]).values_list(
            "deck_check_id", "minutes"
        )
    )
    return [
        CheckRow(
            c.pk,
            c.match.round.number,
            c.match.table,
            [n for n, _e in seated.get(c.match_id, [])],
            [e for _n, e in seated.get(c.match_id, [])],
            c.judge.get_username() if c.judge else "",
            c.started_at,
            c.finished_at,
            c.note,
            given.get(c.pk, 0),
        )
        for c in checks
    ]


def deck_checks_screen(
    t: Tournament,
    *,
    suggestion: Sequence[Match],
    checked: Collection[int],
    player: Player | None = None,
    history: Sequence[DeckCheck] = (),
) -> dict[str, Any]:
    """The deck checks screen: the suggested table (services.floor draws it), the checks
    under way with their running time, the event's finished checks, or `player`'s
    (`history`, services.floor.deck_check_history). `checked`: the players checked."""
    round_ = current_round(t)
    checks = DeckCheck.objects.filter(tournament=t).select_related("match__round", "judge")
    running = check_rows(t, checks.filter(finished_at__isnull=True).order_by("started_at", "id"))
    if player is not None:
        done = check_rows(t, [c for c in history if c.finished_at is not None])
    else:
        done = check_rows(t, checks.filter(finished_at__isnull=False).order_by("-started_at"))
    suggested: list[FloorTable] = []
    if suggestion and round_ is not None:
        suggested = floor_tables(t, round_, only={m.pk for m in suggestion})
    return {
        "tournament": t,
        "round": round_,
        "round_label": round_label(round_),
        "suggested": suggested,
        "running": running,
        "history": done,
        "player": player,
        "player_name": display_names(t).get(player.external_id, player.name) if player else "",
        "checked_count": len(checked),
    }
