"""The organizer's print views' read model: plain data (and ready row HTML) for paper.

Pairings for the wall (by name, by table), match result slips, standings and a draft
pod's seating, for one round; and the registration poster (the event's name, the QR
code of its registration form and that form's address). The big lists come as HTML strings built here, as on the
public pages: 2,048 rows through template tags cost several times more, and a print run
at a 1,024-table event is exactly when the organizer is waiting.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape  # the stdlib one: Django's lazy wrapper costs 3x on 2,048 rows
from typing import Any, NamedTuple

from django.db.models import QuerySet
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tournaments.domain import registration_closed_reason
from tournaments.models import MatchKind, Round, Seat, System, Tournament
from tournaments.pages import public
from tournaments.pages.common import current_round, round_label
from tournaments.pages.event import display_names
from tournaments.parsing import ascii_int
from tournaments.templatetags.tourney import points as format_points

# Paper the organizer can choose; the print CSS has one named @page per key.
PAPERS = {"a4": "A4", "letter": gettext_lazy("Letter")}
DEFAULT_PAPER = "a4"


def paper_of(value: str | None) -> str:
    """The paper a request asks for (?paper=letter), A4 when it names none we know."""
    return value if value in PAPERS else DEFAULT_PAPER


class PrintSeat(NamedTuple):
    match_id: int
    player_id: int
    table: int | None
    kind: str
    position: int
    absent: bool
    name: str
    points: Any  # Decimal | None: the points when the round was paired


class PrintTable(NamedTuple):
    match_id: int
    table: int | None
    kind: str
    seats: list[PrintSeat]


def print_round(t: Tournament, number: str) -> Round | None:
    """The round ?round=N names (None if there is none), else the one to print now: the
    current round, or for a pod (all its rounds paired at once) the first still open."""
    if number:
        wanted = ascii_int(number)
        return t.rounds.filter(number=wanted).first() if wanted is not None else None
    if t.system == System.POD:
        open_round = (
            t.rounds.filter(matches__kind=MatchKind.PLAYED, matches__reported=False)
            .order_by("number")
            .first()
        )
        if open_round is not None:
            return open_round
    return current_round(t)


def _seats(round_: Round) -> QuerySet[Seat, tuple[Any, ...]]:
    # One query for the whole round: every match has at least one seat, so the matches'
    # table and kind come along through the join instead of a second query.
    return (
        Seat.objects.filter(round=round_)
        .order_by("match__table", "match_id", "position")
        .values_list(
            "match_id", "player_id", "match__table", "match__kind", "position", "absent",
            "player__name", "points_at_pairing", "player__external_id",
        )
    )  # fmt: skip


def round_tables(round_: Round, names: Mapping[str, str]) -> list[PrintTable]:
    """The round's matches in table order (byes last, as they are numbered), with seats,
    each player named as `names` (pages.event.display_names: namesakes told apart)."""
    tables: dict[int, PrintTable] = {}
    for *row, ext in _seats(round_):
        seat = PrintSeat(*row)
        seat = seat._replace(name=names.get(ext, seat.name))
        entry = tables.get(seat.match_id)
        if entry is None:
            entry = tables[seat.match_id] = PrintTable(seat.match_id, seat.table, seat.kind, [])
        entry.seats.append(seat)
    return list(tables.values())


def _pts(value: Any) -> str:
    return "" if value is None else format_points(value)


def _header(t: Tournament, round_: Round | None) -> dict[str, Any]:
    return {"tournament": t, "round": round_, "round_label": round_label(round_)}


def pairings_by_name(t: Tournament, round_: Round) -> dict[str, Any]:
    """One row per player, alphabetical: name, table, opponent, points when paired."""
    tables = round_tables(round_, display_names(t))
    with_points = any(s.points is not None for entry in tables for s in entry.seats)
    bye, no_opponent = public.tagged("em", _("bye")), public.tagged("em", _("no opponent"))
    rows: list[tuple[str, str]] = []
    for entry in tables:
        for seat in entry.seats:
            if entry.kind == MatchKind.BYE:
                table, opponent = "", bye
            elif entry.kind == MatchKind.LOSS:
                table, opponent = "", no_opponent
            else:
                table = str(entry.table or "")
                opponent = escape(
                    ", ".join(o.name for o in entry.seats if o is not seat and not o.absent)
                )
            points = f'<td class="num">{_pts(seat.points)}</td>' if with_points else ""
            rows.append(
                (
                    seat.name.casefold(),
                    f'<tr><th scope="row">{escape(seat.name)}</th>'
                    f'<td class="num table">{table}</td><td>{opponent}</td>{points}</tr>',
                )
            )
    rows.sort(key=lambda r: r[0])
    return {
        **_header(t, round_),
        "rows_html": "\n".join(html for _key, html in rows),
        "count": len(rows),
        "with_points": with_points,
    }


def _name_cell(seat: PrintSeat) -> str:
    points = f' <span class="pts">({_pts(seat.points)})</span>' if seat.points is not None else ""
    return f"{escape(seat.name)}{points}"


def pairings_by_table(t: Tournament, round_: Round) -> dict[str, Any]:
    """One row per table: table, player A, player B (or the bye); a multi-player game's
    table lists everyone in the one "players" cell."""
    tables = round_tables(round_, display_names(t))
    multi = any(len(entry.seats) > 2 for entry in tables)
    bye, no_opponent = public.tagged("em", _("bye")), public.tagged("em", _("no opponent"))
    out = []
    for entry in tables:
        first, *others = entry.seats
        if entry.kind == MatchKind.BYE:
            table, rest = "", bye
        elif entry.kind == MatchKind.LOSS:
            table, rest = "", no_opponent
        else:
            table = str(entry.table or "")
            rest = " · ".join(_name_cell(s) for s in others)
        if multi:
            cells = f"<td>{_name_cell(first)}{' · ' if others else ' '}{rest}</td>"
        else:
            cells = f"<td>{_name_cell(first)}</td><td>{rest}</td>"
        out.append(f'<tr><td class="num table">{table}</td>{cells}</tr>')
    return {
        **_header(t, round_),
        "rows_html": "\n".join(out),
        "count": len(tables),
        "multi": multi,
    }


def slips(t: Tournament, round_: Round) -> dict[str, Any]:
    """One result slip per table that is played (byes and losses need none)."""
    entries = []
    for entry in round_tables(round_, display_names(t)):
        if entry.kind not in (MatchKind.PLAYED, MatchKind.GAME, MatchKind.DOUBLE_LOSS):
            continue
        entries.append(
            {
                "table": entry.table,
                "names": [s.name for s in entry.seats],
                # A multi-player game reports places; a match reports games won and draws.
                "game": entry.kind == MatchKind.GAME,
            }
        )
    return {**_header(t, round_), "slips": entries, "count": len(entries)}


def standings(t: Tournament) -> dict[str, Any]:
    """The stored standings exactly as the public page shows them (never recomputed)."""
    return {**_header(t, None), **public.standings(t)}


def pod_seating(t: Tournament) -> dict[str, Any]:
    """A draft pod's seats around the table, 1 to N, from its round-robin schedule.

    The schedule (tournaments.pairing.round_robin, the circle method) keeps seat 1 fixed
    and meets the other seats in reverse order, one a round, so seat 1's opponents in
    rounds 1, 2, ... sit in seats N, N-1, ...; an odd pod's empty seat is the last one,
    which is seat 1's bye in round 1. When the stored rounds do not fit that shape (an
    imported pod, say), the seats follow round 1's tables instead.
    """
    rounds = list(t.rounds.filter(playoff=False).order_by("number"))
    names = display_names(t)
    schedule = [round_tables(r, names) for r in rounds]
    circle = _circle_seats(schedule)
    seats = circle or _table_seats(schedule[0] if schedule else [])
    return {
        **_header(t, None),
        "seats": list(enumerate(seats, start=1)),
        "from_schedule": circle is not None,
    }


def _table_seats(tables: list[PrintTable]) -> list[str]:
    return [s.name for entry in tables for s in entry.seats]


def _circle_seats(schedule: list[list[PrintTable]]) -> list[str] | None:
    if len(schedule) < 2:
        return None
    names = {s.player_id: s.name for entry in schedule[0] for s in entry.seats}
    # Seat 1 plays at table 1 every round (first in odd rounds, second in even ones, as
    # the schedule alternates it) or has that round's bye. Ids, not names: two players
    # may share a name.
    candidates: set[int] | None = None
    opponents: dict[int, list[int | None]] = {}
    for number, tables in enumerate(schedule, start=1):
        here: set[int] = set()
        for entry in tables:
            ids = [s.player_id for s in entry.seats]
            if entry.kind == MatchKind.BYE and len(ids) == 1:
                here.add(ids[0])
                opponents.setdefault(ids[0], []).append(None)
            elif entry.table == 1 and entry.kind == MatchKind.PLAYED and len(ids) == 2:
                fixed, other = (ids[0], ids[1]) if number % 2 else (ids[1], ids[0])
                here.add(fixed)
                opponents.setdefault(fixed, []).append(other)
        candidates = here if candidates is None else candidates & here
    if not candidates or len(candidates) != 1:
        return None
    (first,) = candidates
    met = opponents.get(first, [])
    order = [first, *reversed([pid for pid in met if pid is not None])]
    if len(met) != len(schedule) or len(order) != len(names) or set(order) != set(names):
        return None
    return [names[pid] for pid in order]


def index(t: Tournament, round_: Round | None) -> dict[str, Any]:
    """The print views for one round, and the rounds one could print instead."""
    return {
        **_header(t, round_),
        "rounds": list(t.rounds.values_list("number", flat=True)),
        "is_pod": t.system == System.POD,
    }


def poster(t: Tournament, address: str) -> dict[str, Any]:
    """The registration poster: the event's name, the QR code of its registration form
    and the form's `address` (as a phone on the venue's network reaches it), nothing
    else on the paper. `closed`: why the form takes no entry now (said on screen only,
    the poster being printed ahead of opening), None while it is open."""
    return {
        **_header(t, None),
        "address": address,
        "closed": registration_closed_reason(t),
    }
