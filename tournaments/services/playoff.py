"""The single-elimination top cut: seed it from the Swiss standings, pair each next round.

The bracket itself (who meets whom, seeds, placings) is tournaments/pairing/bracket.py;
this module reads and writes the rows around it.

A drop during the top cut (issue 24 item 4; the player's own or the organizer's) concedes
the player's playoff match without a result: their opponent wins it by the games that win
the match (2-0 in a best of 3), entered through results.enter_result like any result, so
the standings and the bracket follow and the audit log has it. When their match already
has a result and they won it, the drop takes effect at the next round: the player they
would meet there wins that match by a walkover entered as the round is paired, so a
dropped player never has a match to play. The walkover keeps the dropped player's seat
(and so their place among that round's losers in the final placings and the standings):
without it, they would stay "alive" in the bracket, placed with its winner.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from scoring.models import Standing
from tournaments.domain import (
    CutDrop,
    current_round,
    missing_results,
    played_bracket,
    stage_text,
    walkover_score,
)
from tournaments.messages import gettext_noop, template
from tournaments.models import (
    AuditAction,
    Match,
    Player,
    ReportState,
    Round,
    Seat,
    Status,
    Tournament,
)
from tournaments.pairing.bracket import next_round, seed_top_cut
from tournaments.rules import TOP_CUT_SIZES
from tournaments.services import push
from tournaments.services.corrections import DECISION_FIELDS, forget_decision
from tournaments.services.results import _seated_match, enter_result
from tournaments.services.seating import create_round
from tournaments.services.writing import ServiceError, Write, writing

# The refusals, said where they are shown (issue 36).
CUT_SIZE = template("playoff.cut_size", gettext_noop("The top cut is 2, 4 or 8 players."))
AFTER_SWISS = template(
    "playoff.after_swiss", gettext_noop("The top cut starts after the Swiss rounds.")
)
FINISH_SWISS = template(
    "playoff.finish_swiss",
    gettext_noop("Finish the Swiss rounds (every result in) before the top cut."),
)
TOO_FEW = template(
    "playoff.too_few", gettext_noop("A top %(size)s needs %(size)s players still in the event.")
)
WINNERS_FIRST = template(
    "playoff.winners_first", gettext_noop("Every playoff match needs a winner first.")
)
FINAL_DECIDED = template(
    "playoff.final_decided", gettext_noop("The final is decided: finish the tournament.")
)
BOTH_DROPPED_FINAL = template(
    "playoff.both_dropped.final",
    gettext_noop(
        "%(a)s and %(b)s, who would meet in the final, both dropped: re-admit one "
        "of them to pair the next round."
    ),
)
BOTH_DROPPED_SEMIFINAL = template(
    "playoff.both_dropped.semifinal",
    gettext_noop(
        "%(a)s and %(b)s, who would meet in the semifinal, both dropped: re-admit "
        "one of them to pair the next round."
    ),
)
# %(match)s: the match's stage in the reader's language (domain.stage_text), said when
# the refusal is raised.
BOTH_DROPPED = template(
    "playoff.both_dropped",
    gettext_noop(
        "%(a)s and %(b)s, who would meet in the %(match)s, both dropped: re-admit "
        "one of them to pair the next round."
    ),
)


def start_top_cut(*, tournament: Tournament, size: int | None = None, by: Any = None) -> Round:
    """Single elimination for the top 8, 4 or 2 of the Swiss standings (1-8, 4-5, 2-7, 3-6)."""
    with writing(tournament, by=by) as w:
        t = w.tournament
        size = size or t.top_cut
        if size not in TOP_CUT_SIZES:
            raise ServiceError(CUT_SIZE())
        if t.status != Status.RUNNING:
            raise ServiceError(AFTER_SWISS())
        last = current_round(t)
        if last is None or missing_results(last):
            raise ServiceError(FINISH_SWISS())
        ranked = list(
            Standing.objects.filter(tournament=t, player__dropped_after_round__isnull=True)
            .order_by("position")
            .select_related("player")[:size]
        )
        if len(ranked) < size:
            raise ServiceError(TOO_FEW(size=size))
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
        # The cut's first round is paired here, not by rounds.pair_next_round: its
        # subscribed players hear of their table like every later round's (issue 29).
        push.record_pairing(round_)
    return round_


def pair_playoff_round(t: Tournament, last: Round) -> Round:
    """The next playoff round: winners of adjacent matches meet, better seed first."""
    bracket = played_bracket(t)
    previous = bracket[-1]
    if any(m.winner is None for m in previous):
        raise ServiceError(WINNERS_FIRST())
    if len(previous) == 1:
        raise ServiceError(FINAL_DECIDED())
    players = {
        p.external_id: p for p in t.players.filter(external_id__in=[m.winner for m in previous])
    }
    tables = [[players[m.high], players[m.low]] for m in next_round(previous)]
    for pair in tables:
        if all(p.dropped_after_round is not None for p in pair):
            a, b = (p.name for p in pair)
            if len(tables) == 1:
                raise ServiceError(BOTH_DROPPED_FINAL(a=a, b=b))
            if len(tables) == 2:
                raise ServiceError(BOTH_DROPPED_SEMIFINAL(a=a, b=b))
            # a top cut has 8 players at most: the next round is one of those two
            raise ServiceError(BOTH_DROPPED(a=a, b=b, match=stage_text(len(tables))))
    return create_round(t, number=last.number + 1, playoff=True, tables=tables, phase=last.phase)


def enter_walkovers(w: Write, round_: Round) -> None:
    """The round just paired: a match against a player who dropped during the cut is won
    by their opponent (see the module's docstring)."""
    dropped = list(
        Seat.objects.filter(round=round_, player__dropped_after_round__isnull=False)
        .order_by("match__table")
        .values_list("match_id", "player_id")
    )
    for match_id, player_id in dropped:
        match, seats = _seated_match(match_id, w.tournament)
        _walkover(w, match, seats, loser=player_id)


def concede(w: Write, player: Player, drop: CutDrop | None) -> None:
    """`player`'s drop during the top cut (`drop`: domain.cut_drop, read before the drop
    was saved) concedes their playoff match without a result, now, in `w`."""
    if drop is not None and drop.now:
        assert drop.match_id is not None
        match, seats = _seated_match(drop.match_id, w.tournament)
        _walkover(w, match, seats, loser=player.pk)


def cut_facts(drop: CutDrop | None) -> dict[str, Any]:
    """What the drop's audit entry keeps of its effect on the top cut ({} outside it)."""
    if drop is None:
        return {}
    return {
        "top_cut": {
            "concedes": drop.now,
            "match": drop.stage,
            "opponent": drop.opponent,
            "score": drop.score,
        }
    }


def _walkover(w: Write, match: Match, seats: list[Seat], *, loser: int) -> None:
    won, lost = walkover_score(w.tournament.best_of)
    wins = [lost if s.player_id == loser else won for s in seats]
    if enter_result(w, match, seats, wins=wins):
        # As the organizer's entry does (results.record_result): an open report on the
        # match can no longer be confirmed into another result.
        report = getattr(match, "report", None)
        if report is not None and report.state != ReportState.OVERRIDDEN:
            report.state = ReportState.OVERRIDDEN
            report.save(update_fields=["state", "updated_at"])


def final_decided(t: Tournament) -> bool:
    bracket = played_bracket(t)
    return bool(bracket) and len(bracket[-1]) == 1 and bracket[-1][0].winner is not None
