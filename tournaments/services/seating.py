"""Rows of a newly paired round, and who plays it: shared by Swiss, pod, league and the
top cut (called inside a service's `writing` block: these write, they do not lock)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from django.db.models import QuerySet

from scoring.models import Standing
from tournaments.models import Entry, Match, MatchKind, Player, Round, Seat, Tournament
from tournaments.services.fixed_seats import table_numbers


def round_rng(tournament: Tournament, number: int) -> random.Random:
    """The seeded randomness for one round: the same event and round pair the same way."""
    return random.Random(f"{tournament.seed}/round/{number}")


def create_round(
    tournament: Tournament,
    *,
    number: int,
    tables: Sequence[Sequence[Player]],
    byes: Sequence[Player] = (),
    playoff: bool = False,
    kind: str = MatchKind.PLAYED,
    phase: int | None = None,
    with_points: bool = True,
) -> Round:
    """A paired round's rows: the tables in order, then a bye "table" for each bye.

    Called inside a service's `writing` block (it writes, it does not lock).
    """
    round_ = Round.objects.create(
        tournament=tournament, number=number, phase=phase or tournament.phase, playoff=playoff
    )
    groups = [*tables, *([p] for p in byes)]
    # Fixed seats (services.fixed_seats); not in the top cut, whose bracket order is
    # its table order.
    numbers = (
        list(range(1, len(groups) + 1))
        if playoff
        else table_numbers(tournament, [[p.pk for p in g] for g in tables], len(byes))
    )
    matches = [
        Match(
            round=round_,
            table=n,
            kind=kind if k <= len(tables) else MatchKind.BYE,
            reported=k > len(tables),
        )
        for k, n in enumerate(numbers, start=1)
    ]
    Match.objects.bulk_create(matches)
    # The stored standings are those before this round: the points it is paired on.
    points = (
        dict(Standing.objects.filter(tournament=tournament).values_list("player_id", "points"))
        if with_points
        else {}
    )
    seats = [
        Seat(
            match=match,
            round=round_,
            player=player,
            position=k,
            points_at_pairing=points.get(player.pk),
        )
        for match, group in zip(matches, groups, strict=True)
        for k, player in enumerate(group)
    ]
    Seat.objects.bulk_create(seats, batch_size=2000)
    return round_


def active_players(tournament: Tournament) -> list[Player]:
    """Players who play the next round: accepted entries (not pending or rejected), not
    dropped, through the current phase's cut and, when the event uses check-in, checked in.

    Check-in binds every round, not only round 1: a no-show left in the event would
    otherwise be paired from round 2 on. Late entries the organizer lets in after round 1
    count as checked in (services.registration, services.players).
    """
    return list(_active(tournament))


def active_ids(tournament: Tournament) -> list[tuple[int, str]]:
    """(pk, external id) of each of `active_players`, without building the rows: 8,192
    Player objects took longer than pairing them (issue 26)."""
    return list(_active(tournament).values_list("pk", "external_id"))


def _active(tournament: Tournament) -> QuerySet[Player]:
    players = tournament.players.filter(entry=Entry.ACCEPTED, dropped_after_round__isnull=True)
    if tournament.check_in:
        players = players.filter(checked_in_at__isnull=False)
    if tournament.phase > 1:
        players = players.filter(made_phase__gte=tournament.phase)
    return players.order_by("id")
