"""Results: a two-player match's games, a league table's places and scores.

Organizer, admin and (later) players' own reports all record a result through here.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from tournaments import rules
from tournaments.models import AuditAction, Match, MatchKind, Round, Seat
from tournaments.services.writing import ServiceError, writing

UNDONE = "That match is no longer in the event: its round was undone. Reload the pairings."


def check_two_player_result(*, best_of: int, wins: Sequence[int], draws: int) -> None:
    """Refuse what a best-of-N match cannot produce (rules.check_two_player_result)."""
    problem = rules.check_two_player_result(best_of=best_of, wins=wins, draws=draws)
    if problem:
        raise ServiceError(problem)


def _tournament_of(match: Match) -> int:
    try:
        return match.round.tournament_id
    except Round.DoesNotExist:
        raise ServiceError(UNDONE) from None


def _locked_match(match: Match) -> Match:
    """The match as it is now (its tournament is locked); refused if its round was undone."""
    try:
        return Match.objects.select_related("round").get(pk=match.pk)
    except Match.DoesNotExist:
        raise ServiceError(UNDONE) from None


def _result_state(match: Match, seats: Sequence[Seat]) -> dict[str, Any]:
    return {
        "reported": match.reported,
        "kind": match.kind,
        "wins": [s.games_won for s in seats] if match.reported else None,
        "draws": match.draws if match.reported else None,
    }


def _result_words(state: dict[str, Any]) -> str:
    if not state["reported"]:
        return "cleared"
    if state["kind"] == MatchKind.DOUBLE_LOSS:
        return "double loss"
    return rules.score_text(state["wins"], state["draws"])


def _game_state(seats: Sequence[Seat], reported: bool) -> dict[str, Any]:
    return {
        "reported": reported,
        "places": {s.player.external_id: s.place for s in seats if not s.absent},
        "scores": {s.player.external_id: str(s.score) for s in seats if s.score is not None},
        "absent": [s.player.external_id for s in seats if s.absent],
    }


def record_result(
    *,
    match: Match,
    wins: Sequence[int] | None,
    draws: int = 0,
    double_loss: bool = False,
    validate: bool = True,
    by: Any = None,
) -> Match:
    """Enter or correct a two-player result; wins None clears it. Recomputes standings."""
    with writing(_tournament_of(match), by=by) as w:
        match = _locked_match(match)
        if match.kind not in (MatchKind.PLAYED, MatchKind.DOUBLE_LOSS):
            raise ServiceError("Byes and losses without an opponent have no result to enter.")
        if match.round.playoff and wins is not None and (double_loss or wins[0] == wins[1]):
            raise ServiceError("A playoff match needs a winner.")
        if wins is not None and validate and not double_loss:
            check_two_player_result(best_of=w.tournament.best_of, wins=wins, draws=draws)
        seats = list(match.seats.order_by("position").select_related("player"))
        before = _result_state(match, seats)
        for seat, won in zip(seats, wins if wins is not None else (None, None), strict=True):
            seat.games_won = won
        match.reported = wins is not None
        match.draws = draws if wins is not None else 0
        match.kind = MatchKind.DOUBLE_LOSS if double_loss else MatchKind.PLAYED
        after = _result_state(match, seats)
        if after == before:
            return match  # the same result again: nothing to write, nothing to recompute
        Seat.objects.bulk_update(seats, ["games_won"])
        match.save(update_fields=["reported", "draws", "kind"])
        names = " vs ".join(s.player.name for s in seats)
        verb = "Corrected" if before["reported"] else "Entered"
        w.changed(matches=[match.pk])
        w.audit(
            AuditAction.RESULT,
            f"{verb} round {match.round.number} table {match.table} ({names}): "
            f"{_result_words(after)}",
            before=before,
            after=after,
        )
    return match


def record_game(
    *,
    match: Match,
    places: Sequence[int] | None,
    scores: Sequence[Decimal | int] | None,
    absent: Sequence[int] = (),
    by: Any = None,
) -> Match:
    """Enter a league table's places and raw scores; `absent` are player pks who missed it."""
    with writing(_tournament_of(match), by=by) as w:
        match = _locked_match(match)
        if match.kind != MatchKind.GAME:
            raise ServiceError("Only a league table takes places and scores.")
        seats = list(match.seats.order_by("position").select_related("player"))
        before = _game_state(seats, match.reported)
        for seat in seats:
            seat.absent = seat.player_id in set(absent)
        present = [s for s in seats if not s.absent]
        if places is not None:
            if scores is None or len(places) != len(present) or len(scores) != len(present):
                raise ServiceError("Give a place and a score for every player at the table.")
            if len(present) < 3:
                raise ServiceError("A game needs at least 3 players who played.")
            for p in places:
                if not 1 <= p <= len(present) or p != 1 + sum(1 for q in places if q < p):
                    raise ServiceError(f"Place {p} does not fit a table of {len(present)}.")
        for k, seat in enumerate(present):
            seat.place = places[k] if places is not None else None
            seat.score = Decimal(str(scores[k])) if scores is not None else None
        for seat in seats:
            if seat.absent:
                seat.place = seat.score = None
        Seat.objects.bulk_update(seats, ["absent", "place", "score"])
        match.reported = places is not None
        match.save(update_fields=["reported"])
        w.changed(matches=[match.pk])
        w.audit(
            AuditAction.GAME,
            f"Round {match.round.number} table {match.table}: places and scores entered",
            before=before,
            after=_game_state(seats, match.reported),
        )
    return match
