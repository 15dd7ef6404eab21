"""The single-elimination top cut: seed it from the Swiss standings, pair each next round.

The bracket itself (who meets whom, seeds, placings) is tournaments/pairing/bracket.py;
this module reads and writes the rows around it.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from scoring.models import Standing
from tournaments.domain import current_round, missing_results, played_bracket
from tournaments.models import AuditAction, Round, Status, Tournament
from tournaments.pairing.bracket import next_round, seed_top_cut
from tournaments.rules import TOP_CUT_SIZES
from tournaments.services.corrections import DECISION_FIELDS, forget_decision
from tournaments.services.seating import create_round
from tournaments.services.writing import ServiceError, writing


def start_top_cut(*, tournament: Tournament, size: int | None = None, by: Any = None) -> Round:
    """Single elimination for the top 8, 4 or 2 of the Swiss standings (1-8, 4-5, 2-7, 3-6)."""
    with writing(tournament, by=by) as w:
        t = w.tournament
        size = size or t.top_cut
        if size not in TOP_CUT_SIZES:
            raise ServiceError("The top cut is 2, 4 or 8 players.")
        if t.status != Status.RUNNING:
            raise ServiceError("The top cut starts after the Swiss rounds.")
        last = current_round(t)
        if last is None or missing_results(last):
            raise ServiceError("Finish the Swiss rounds (every result in) before the top cut.")
        ranked = list(
            Standing.objects.filter(tournament=t, player__dropped_after_round__isnull=True)
            .order_by("position")
            .select_related("player")[:size]
        )
        if len(ranked) < size:
            raise ServiceError(f"A top {size} needs {size} players still in the event.")
        bracket = seed_top_cut([s.player.external_id for s in ranked], size)
        by_ext = {s.player.external_id: s.player for s in ranked}
        round_ = create_round(
            t,
            number=last.number + 1,
            playoff=True,
            tables=[[by_ext[m.high], by_ext[m.low]] for m in bracket],
        )
        t.status = Status.TOP_CUT
        t.top_cut = size
        # A Swiss result changed from now on is a correction (domain.cut_state); a
        # decision about an earlier cut no longer applies.
        t.cut_started_at = timezone.now()
        forget_decision(t)
        t.save(update_fields=["status", "top_cut", "cut_started_at", *DECISION_FIELDS])
        w.changed()
        w.audit(
            AuditAction.TOP_CUT,
            f"Started the top {size}",
            after={"round": round_.number, "seeds": [s.player.external_id for s in ranked]},
            round=round_.number,
            players=[s.player for s in ranked],
        )
    return round_


def pair_playoff_round(t: Tournament, last: Round) -> Round:
    """The next playoff round: winners of adjacent matches meet, better seed first."""
    bracket = played_bracket(t)
    previous = bracket[-1]
    if any(m.winner is None for m in previous):
        raise ServiceError("Every playoff match needs a winner first.")
    if len(previous) == 1:
        raise ServiceError("The final is decided: finish the tournament.")
    players = {
        p.external_id: p for p in t.players.filter(external_id__in=[m.winner for m in previous])
    }
    tables = [[players[m.high], players[m.low]] for m in next_round(previous)]
    return create_round(t, number=last.number + 1, playoff=True, tables=tables, phase=last.phase)


def final_decided(t: Tournament) -> bool:
    bracket = played_bracket(t)
    return bool(bracket) and len(bracket[-1]) == 1 and bracket[-1][0].winner is not None
