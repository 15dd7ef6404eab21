"""Fixed seats: the organizer fixes a player to a table (accessibility, a stream table).

Every Swiss, pod and league round paired afterwards seats that player's match at that
table (tournaments.pairing.table_numbers says how, and why two fixed players paired
together play at the lower table). The top cut is not renumbered: its bracket order is
its table order (domain.played_bracket), so a moved table would pair the wrong winners
in the next round. A round already paired keeps its tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.formats import number_format

from tournaments.messages import gettext_noop, template
from tournaments.models import AuditAction, Entry, FixedSeat, Player, Tournament
from tournaments.pairing.table_numbers import number_tables
from tournaments.services.writing import ServiceError, writing

MAX_TABLE = 100_000  # the interchange document's limit on a table number
MAX_REASON = 100  # FixedSeat.reason


# Refusals, raised as Messages and said where they are shown (issue 36). NOT_PLAYER,
# NOT_ACCEPTED and REASON_TOO_LONG are restrictions' too.
NOT_PLAYER = template("seats.not_player", gettext_noop("%(name)s is not a player of this event."))
NOT_ACCEPTED = template(
    "seats.not_accepted", gettext_noop("%(name)s's entry is not accepted: accept it first.")
)
REASON_TOO_LONG = template(
    "seats.reason_too_long", gettext_noop("The reason has at most %(max)s characters.")
)
# %(max)s: MAX_TABLE written as the language writes numbers (formatted where raised).
TABLE_RANGE = template(
    "seats.table_range", gettext_noop("A table number is a whole number from 1 to %(max)s.")
)
TAKEN = template(
    "seats.taken",
    gettext_noop(
        "Table %(table)s is fixed for %(name)s already: choose another "
        "table, or remove that fixed seat first."
    ),
)
NOT_FIXED = template("seats.not_fixed", gettext_noop("%(name)s has no fixed seat."))


class TableTaken(ServiceError):
    """The table is another player's fixed table."""


def _own_player(t: Tournament, player: Player) -> None:
    if player.tournament_id != t.pk:
        raise ServiceError(NOT_PLAYER(name=player.name))
    if player.entry != Entry.ACCEPTED:
        raise ServiceError(NOT_ACCEPTED(name=player.name))


def fix_seat(
    *, tournament: Tournament, player: Player, table: int, reason: str = "", by: Any = None
) -> FixedSeat:
    """Fix `player` to `table` from the next pairing on; a player fixed already moves
    to the new table. Refused: a table another player holds, a number out of range."""
    reason = " ".join(reason.split())
    if len(reason) > MAX_REASON:
        raise ServiceError(REASON_TOO_LONG(max=MAX_REASON))
    if isinstance(table, bool) or not isinstance(table, int) or not 1 <= table <= MAX_TABLE:
        raise ServiceError(TABLE_RANGE(max=number_format(MAX_TABLE, force_grouping=True)))
    with writing(tournament, by=by) as w:
        t = w.tournament
        _own_player(t, player)
        holder = (
            FixedSeat.objects.filter(tournament=t, table=table)
            .exclude(player=player)
            .select_related("player")
            .first()
        )
        if holder is not None:
            raise TableTaken(TAKEN(table=table, name=holder.player.name))
        seat = FixedSeat.objects.filter(player=player).first()
        before = None if seat is None else {"table": seat.table, "reason": seat.reason}
        after = {"event": "fixed", "table": table, "reason": reason}
        if before is not None and (before["table"], before["reason"]) == (table, reason):
            return seat  # nothing changed: nothing recorded
        if seat is None:
            seat = FixedSeat.objects.create(tournament=t, player=player, table=table, reason=reason)
        else:
            seat.table, seat.reason = table, reason
            seat.save(update_fields=["table", "reason"])
        w.touched()
        moved = f" (was table {before['table']})" if before and before["table"] != table else ""
        w.audit(
            AuditAction.SEATING,
            f"Fixed {player.name} to table {table}{moved}" + (f": {reason}" if reason else ""),
            before=before,
            after=after,
            table=table,
            players=[player],
        )
    return seat


def unfix_seat(*, tournament: Tournament, player: Player, by: Any = None) -> None:
    """The player is seated like everyone else from the next pairing on."""
    with writing(tournament, by=by) as w:
        t = w.tournament
        seat = FixedSeat.objects.filter(tournament=t, player=player).first()
        if seat is None:
            raise ServiceError(NOT_FIXED(name=player.name))
        seat.delete()
        w.touched()
        w.audit(
            AuditAction.SEATING,
            f"{player.name} no longer fixed to table {seat.table}",
            before={"table": seat.table, "reason": seat.reason},
            after={"event": "unfixed", "table": seat.table},
            table=seat.table,
            players=[player],
        )


def fixed_tables(tournament: Tournament) -> dict[int, int]:
    """Player pk -> fixed table, for the event's pairings."""
    return dict(FixedSeat.objects.filter(tournament=tournament).values_list("player_id", "table"))


def table_numbers(tournament: Tournament, tables: Sequence[Sequence[int]], byes: int) -> list[int]:
    """The numbers a new round's tables (player pks, in pairing order) and byes take
    (tournaments.pairing.table_numbers): one query; 1, 2, 3 ... without fixed seats."""
    return number_tables(tables, byes, fixed_tables(tournament))
