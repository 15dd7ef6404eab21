"""The organizer's answer when a correction changed the top cut's seeds: re-seed or keep.

The answer is stored on the tournament (Tournament.cut_decision, with the seed changes
it answers and the correction that caused them); domain.cut_state and pages.bracket
read it from there. Each answer also leaves a top-cut audit entry whose `after` records
the same facts under CUT_DECISION ("reseed" or "keep"), for the log: nothing reads the
decision back from it, except the restore of a backup written before the columns
(services.imports) and the migration that filled them. They reuse AuditAction.TOP_CUT:
the entry's summary says which answer it was, and the audit log groups it with the cut
it changes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone

from tournaments.domain import cut_state
from tournaments.labels import seed_change_english
from tournaments.messages import gettext_noop, template
from tournaments.models import AuditAction, CutDecision, Round, Status, Tournament
from tournaments.pairing.bracket import seed_top_cut
from tournaments.services.seating import create_round
from tournaments.services.writing import ServiceError, writing

# The refusals, said where they are shown (issue 36).
NO_CUT = template("corrections.no_cut", gettext_noop("There is no top cut in progress to check."))
NOTHING_CHANGED = template(
    "corrections.nothing_changed",
    gettext_noop("The top cut's seeds still match the standings: there is nothing to decide."),
)
STALE = template(
    "corrections.stale",
    gettext_noop("The standings changed since you looked: review the seeds again."),
)

# The key in a decision's audit entry's `after` that names it ("keep" or "reseed"); the
# entry that starts the cut carries no such key. For the log: the decision itself is
# Tournament.cut_decision.
CUT_DECISION = "cut_decision"

# The columns that hold the decision (Tournament, CheckConstraint
# tournament_cut_decision_whole: all empty, or a decision with its time and changes).
DECISION_FIELDS = (
    "cut_decision",
    "cut_decided_at",
    "cut_decision_changes",
    "cut_correction_round",
    "cut_correction_table",
    "cut_correction_at",
)


def forget_decision(t: Tournament) -> None:
    """No decision on `t` (the caller saves DECISION_FIELDS): the cut starts afresh."""
    t.cut_decision = CutDecision.NONE
    t.cut_decided_at = t.cut_decision_changes = None
    t.cut_correction_round = t.cut_correction_table = t.cut_correction_at = None


def _remember(t: Tournament, state: dict[str, Any], decision: CutDecision) -> None:
    """Store the decision on the locked row, for exactly the changes in `state`."""
    correction = state["correction"] or {}
    t.cut_decision = decision
    t.cut_decided_at = timezone.now()
    t.cut_decision_changes = state["fingerprint"]
    t.cut_correction_round = correction.get("round")
    t.cut_correction_table = correction.get("table")
    t.cut_correction_at = correction.get("at")
    t.save(update_fields=list(DECISION_FIELDS))


def _checked_state(t: Tournament, seen: str | None) -> dict[str, Any]:
    if t.status != Status.TOP_CUT:
        raise ServiceError(NO_CUT())
    state = cut_state(t)
    if state is None:
        raise ServiceError(NO_CUT())
    if not state["changes"]:
        raise ServiceError(NOTHING_CHANGED())
    if seen is not None and seen != state["seen"]:
        raise ServiceError(STALE())
    return state


def _after(state: dict[str, Any], decision: str) -> dict[str, Any]:
    return {
        CUT_DECISION: decision,
        "changes": state["fingerprint"],
        "correction": correction_payload(state["correction"]),
    }


def correction_payload(correction: dict[str, Any] | None) -> dict[str, Any] | None:
    """A correction as an audit entry stores it (JSON: the time as ISO text)."""
    if correction is None:
        return None
    at = correction.get("at")
    return {**correction, "at": at.isoformat() if isinstance(at, datetime) else at}


def correction_text(correction: dict[str, Any] | None) -> str:
    """ "round 4 (table 12)", "round 4", or "" when nothing is known."""
    if not correction or correction.get("round") is None:
        return ""
    table = correction.get("table")
    return f"round {correction['round']}" + (f" (table {table})" if table is not None else "")


def _about(t: Tournament, state: dict[str, Any], seeds: list[str]) -> dict[str, Any]:
    """What a decision's audit entry is about: the corrected round and table (as far as
    known) and the players: the seeds and everyone the changes name."""
    correction = state["correction"] or {}
    exts = [*seeds, *(c["player"] for c in state["changes"])]
    names = dict(t.players.filter(external_id__in=exts).values_list("external_id", "name"))
    return {
        "round": correction.get("round"),
        "table": correction.get("table"),
        "players": [(ext, names.get(ext, ext)) for ext in exts],
    }


def _change_messages(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The changes as the audit keeps them: data (code and parameters), said in each
    reader's language by pages.audit. Entries written before kept English sentences
    ("change_texts"), shown as they were written."""
    return [c["message"].data() for c in state["changes"]]


def _changes_english(state: dict[str, Any]) -> str:
    """The changes in English, for the entry's summary line (the log's own text)."""
    return "; ".join(seed_change_english(c["message"]) for c in state["changes"])


def _cause(state: dict[str, Any]) -> str:
    where = correction_text(state["correction"])
    return f"after a correction to {where}" if where else "after a correction"


def reseed_top_cut(*, tournament: Tournament, seen: str | None = None, by: Any = None) -> Round:
    """Seed the first playoff round again from the current standings (1-8, 4-5, 2-7, 3-6,
    as services.playoff.start_top_cut does), while no playoff result is entered.

    `seen`: the token of the changes the organizer reviewed (pages.corrections); when
    the standings moved on meanwhile, the re-seed is refused rather than applied to
    changes nobody saw.
    """
    with writing(tournament, by=by) as w:
        t = w.tournament
        state = _checked_state(t, seen)
        if state["reseed_blocked"]:
            raise ServiceError(state["reseed_blocked"])
        size: int = state["size"]
        # No playoff result means no second playoff round: this is the only one.
        old = t.rounds.filter(playoff=True).order_by("number")
        first = old.first()
        assert first is not None  # cut_state found its seats
        bracket = seed_top_cut(state["order"], size)
        players = {
            p.external_id: p for p in t.players.filter(external_id__in=state["order"][:size])
        }
        number, phase = first.number, first.phase
        clock = {
            "clock_ends_at": first.clock_ends_at,
            "clock_paused_remaining": first.clock_paused_remaining,
        }
        old.delete()
        round_ = create_round(
            t,
            number=number,
            playoff=True,
            phase=phase,
            tables=[[players[m.high], players[m.low]] for m in bracket],
        )
        # The round's clock keeps running: the matches are the same round of the event.
        Round.objects.filter(pk=round_.pk).update(**clock)
        _remember(t, state, CutDecision.RESEED)
        w.changed()
        before_seeds = [state["seeds"][k] for k in sorted(state["seeds"])]
        w.audit(
            AuditAction.TOP_CUT,
            f"Re-seeded the top {size} {_cause(state)}: " + _changes_english(state),
            before={"seeds": before_seeds},
            after={
                **_after(state, "reseed"),
                "round": number,
                "seeds": state["order"][:size],
                "change_messages": _change_messages(state),
            },
            **_about(t, state, [*state["order"][:size], *before_seeds]),
        )
    return round_


def keep_top_cut(*, tournament: Tournament, seen: str | None = None, by: Any = None) -> None:
    """Keep the cut as seeded despite the correction: remembered (stored and audited) so
    the notice stays away until a further correction changes the seeds' picture again.
    Keeping what is already kept writes nothing."""
    with writing(tournament, by=by) as w:
        t = w.tournament
        state = _checked_state(t, seen)
        if state["decided"]:
            return
        size = state["size"]
        seeds = [state["seeds"][k] for k in sorted(state["seeds"])]
        _remember(t, state, CutDecision.KEEP)
        w.touched()  # the public bracket now says the seeds were kept
        w.audit(
            AuditAction.TOP_CUT,
            f"Kept the top {size} as seeded {_cause(state)}: " + _changes_english(state),
            after={
                **_after(state, "keep"),
                "seeds": seeds,
                "change_messages": _change_messages(state),
            },
            **_about(t, state, seeds),
        )
