"""Results: a two-player match's games, a league table's places and scores.

Organizer, admin and (later) players' own reports all record a result through here.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from tournaments import rules
from tournaments.messages import gettext_noop, template
from tournaments.models import (
    AuditAction,
    Match,
    MatchKind,
    ReportState,
    Round,
    Seat,
    Tournament,
)
from tournaments.services.writing import ServiceError, Write, writing

# The refusals, said where they are shown (issue 36).
UNDONE = template(
    "results.undone",
    gettext_noop(
        "That match is no longer in the event: its round was undone. Reload the pairings."
    ),
)
NO_RESULT_TO_ENTER = template(
    "results.no_result_to_enter",
    gettext_noop("Byes and losses without an opponent have no result to enter."),
)
PLAYOFF_NEEDS_WINNER = template(
    "results.playoff_needs_winner", gettext_noop("A playoff match needs a winner.")
)
LATER_ROUND_DEPENDS = template(
    "results.later_round_depends",
    gettext_noop(
        "A later playoff round depends on this result: undo that round's "
        "pairing first (it must have no results yet)."
    ),
)
LEAGUE_ONLY = template(
    "results.league_only", gettext_noop("Only a league table takes places and scores.")
)
PLACE_AND_SCORE = template(
    "results.place_and_score",
    gettext_noop("Give a place and a score for every player at the table."),
)
GAME_TOO_FEW = template(
    "results.game_too_few", gettext_noop("A game needs at least 3 players who played.")
)
PLACE_MISFIT = template(
    "results.place_misfit", gettext_noop("Place %(place)s does not fit a table of %(size)s.")
)


class MatchNotFound(ServiceError):
    """The match is not (or no longer) in this event."""


def check_two_player_result(*, best_of: int, wins: Sequence[int], draws: int) -> None:
    """Refuse what a best-of-N match cannot produce (rules.check_two_player_result)."""
    problem = rules.check_two_player_result(best_of=best_of, wins=wins, draws=draws)
    if problem:
        raise ServiceError(problem)


def _tournament_of(match: Match | int, tournament: Tournament | None) -> Tournament | int:
    if tournament is not None:
        return tournament
    if isinstance(match, int):
        raise TypeError("a match given by its pk needs its tournament")
    try:
        return match.round.tournament_id
    except Round.DoesNotExist:
        raise MatchNotFound(UNDONE()) from None


def _seated_match(match: Match | int, t: Tournament) -> tuple[Match, list[Seat]]:
    """The match as it is now, with its seats and players (one query; the tournament is
    locked); refused if it is not in this event, or its round was undone meanwhile."""
    pk = match if isinstance(match, int) else match.pk
    seats = list(
        Seat.objects.filter(match_id=pk, match__round__tournament=t)
        .select_related("player", "match__round", "match__report")
        .order_by("position")
    )
    if not seats:
        raise MatchNotFound(UNDONE())
    found = seats[0].match
    for seat in seats:
        seat.match = found
    found.seat_list = seats  # type: ignore[attr-defined]
    return found, seats


def _result_state(match: Match, seats: Sequence[Seat]) -> dict[str, Any]:
    return {
        "reported": match.reported,
        "kind": match.kind,
        "wins": [s.games_won for s in seats] if match.reported else None,
        "draws": match.draws if match.reported else None,
    }


def _winner(state: dict[str, Any]) -> int | None:
    """Which seat won (0 or 1), None for no result or no winner."""
    wins = state["wins"]
    if not state["reported"] or wins is None or wins[0] == wins[1]:
        return None
    return 0 if (wins[0] or 0) > (wins[1] or 0) else 1


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
    match: Match | int,
    tournament: Tournament | None = None,
    wins: Sequence[int] | None,
    draws: int = 0,
    double_loss: bool = False,
    validate: bool = True,
    by: Any = None,
) -> Match:
    """Enter or correct a two-player result; wins None clears it. Recomputes standings.

    `match` may be a pk when `tournament` is given: the match must be in that event. The
    match returned carries its seats (`seat_list`), as they are now. This is the
    organizer's entry: it wins over a player's report (issue 14), which becomes
    overridden whenever the result changes.
    """
    with writing(_tournament_of(match, tournament), by=by) as w:
        match, seats = _seated_match(match, w.tournament)
        if enter_result(w, match, seats, wins=wins, draws=draws, double_loss=double_loss,
                        validate=validate):  # fmt: skip
            report = getattr(match, "report", None)  # joined by _seated_match: no query
            if report is not None and report.state != ReportState.OVERRIDDEN:
                report.state = ReportState.OVERRIDDEN
                report.save(update_fields=["state", "updated_at"])
    return match


def enter_result(
    w: Write,
    match: Match,
    seats: list[Seat],
    *,
    wins: Sequence[int] | None,
    draws: int = 0,
    double_loss: bool = False,
    validate: bool = True,
) -> bool:
    """record_result's write, for a service that already holds the `writing` block `w`
    (blocks do not nest: a player's confirmed report enters its result through here, in
    its own block). `match` and `seats` come from `_seated_match` under that block's
    lock. Returns whether anything changed (the same result again writes nothing)."""
    if match.kind not in (MatchKind.PLAYED, MatchKind.DOUBLE_LOSS):
        raise ServiceError(NO_RESULT_TO_ENTER())
    if match.round.playoff and wins is not None and (double_loss or wins[0] == wins[1]):
        raise ServiceError(PLAYOFF_NEEDS_WINNER())
    if wins is not None and validate and not double_loss:
        check_two_player_result(best_of=w.tournament.best_of, wins=wins, draws=draws)
    before = _result_state(match, seats)
    for seat, won in zip(seats, wins if wins is not None else (None, None), strict=True):
        seat.games_won = won
    match.reported = wins is not None
    match.draws = draws if wins is not None else 0
    match.kind = MatchKind.DOUBLE_LOSS if double_loss else MatchKind.PLAYED
    after = _result_state(match, seats)
    if after == before:
        return False  # the same result again: nothing to write, nothing to recompute
    if match.round.playoff and _winner(before) != _winner(after):
        later = w.tournament.rounds.filter(playoff=True, number__gt=match.round.number)
        if later.exists():
            raise ServiceError(LATER_ROUND_DEPENDS())
    Seat.objects.bulk_update(seats, ["games_won"])
    match.save(update_fields=["reported", "draws", "kind"])
    names = " vs ".join(s.player.name for s in seats)
    verb = "Corrected" if before["reported"] else "Entered"
    w.changed(matches=[match.pk])
    w.audit(
        AuditAction.RESULT,
        f"{verb} round {match.round.number} table {match.table} ({names}): {_result_words(after)}",
        before=before,
        after=after,
        round=match.round.number,
        table=match.table,
        players=[s.player for s in seats],
    )
    return True


def record_game(
    *,
    match: Match,
    places: Sequence[int] | None,
    scores: Sequence[Decimal | int] | None,
    absent: Sequence[int] = (),
    by: Any = None,
) -> Match:
    """Enter a league table's places and raw scores; `absent` are player pks who missed it."""
    with writing(_tournament_of(match, None), by=by) as w:
        match, seats = _seated_match(match, w.tournament)
        if match.kind != MatchKind.GAME:
            raise ServiceError(LEAGUE_ONLY())
        before = _game_state(seats, match.reported)
        for seat in seats:
            seat.absent = seat.player_id in set(absent)
        present = [s for s in seats if not s.absent]
        if places is not None:
            if scores is None or len(places) != len(present) or len(scores) != len(present):
                raise ServiceError(PLACE_AND_SCORE())
            if len(present) < 3:
                raise ServiceError(GAME_TOO_FEW())
            for p in places:
                if not 1 <= p <= len(present) or p != 1 + sum(1 for q in places if q < p):
                    raise ServiceError(PLACE_MISFIT(place=p, size=len(present)))
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
            round=match.round.number,
            table=match.table,
            players=[s.player for s in seats],
        )
    return match
