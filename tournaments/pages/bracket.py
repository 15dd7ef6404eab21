"""The top cut as the screens show it: rounds of matches with seats, seeds and winners."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Prefetch

from tournaments.models import Match, Seat, Tournament
from tournaments.pairing.bracket import BRACKET_SEEDS
from tournaments.rules import playoff_name


def winner(match: Match, seats: Sequence[Seat]) -> Seat | None:
    if not match.reported or len(seats) != 2 or seats[0].games_won == seats[1].games_won:
        return None
    return seats[0] if (seats[0].games_won or 0) > (seats[1].games_won or 0) else seats[1]


def bracket_rounds(t: Tournament) -> list[list[dict[str, Any]]]:
    """Per playoff round, in bracket order: {"match", "seats" (high seed first), "winner",
    "seeds" (the Swiss seed of each seat)}. Two queries for the whole bracket."""
    matches = (
        Match.objects.filter(round__tournament=t, round__playoff=True)
        .select_related("round")
        .order_by("round__number", "table", "id")
        .prefetch_related(
            Prefetch(
                "seats",
                queryset=Seat.objects.select_related("player").order_by("position"),
                to_attr="seat_list",
            )
        )
    )
    rounds: dict[int, list[dict[str, Any]]] = {}
    for m in matches:
        seats = m.seat_list  # type: ignore[attr-defined]
        rounds.setdefault(m.round.number, []).append(
            {"match": m, "seats": seats, "winner": winner(m, seats)}
        )
    ordered = list(rounds.values())
    if ordered:
        seeds: dict[int, int] = {}
        first = ordered[0]
        for entry, pair in zip(first, BRACKET_SEEDS.get(2 * len(first), ()), strict=False):
            for seat, seed in zip(entry["seats"], pair, strict=False):
                seeds[seat.player_id] = seed
        for entries in ordered:
            for entry in entries:
                entry["seeds"] = [seeds.get(s.player_id) for s in entry["seats"]]
    return ordered


def named_rounds(rounds: list[list[dict[str, Any]]]) -> list[tuple[str, list[dict[str, Any]]]]:
    return [(playoff_name(len(r)), r) for r in rounds]
