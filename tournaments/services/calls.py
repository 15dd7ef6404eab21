"""Judge calls (issue 27): a player calls a judge from their private page, or a judge
opens a call for a table; judges claim it, hand it to the head judge, resolve it.

A call changes nothing the public pages show and no standing, so it is no `writing`
block: it does not bump the tournament's version, which every public page's cache and
ETag derive from (a hall of 2,000 phones would refetch for a player's call). Like a
player's report (services.reports) it runs in a short transaction of its own under FOR
KEY SHARE on the tournament row (serialised with the organizer's writes, not with other
reports and calls) and a row lock of its own: the table's match row for a new call (two
taps, or both players at once, never make two calls), the call's row for a judge's action
(two judges claiming at once: the second is told who has it). It leaves an audit entry like every write (AuditAction.
CALL, with its round, table and players; `after` holds the facts the audit sentence is
built from: tournaments.pages.call_audit).

Judges' screens learn of a call from the calls themselves: tournaments.stream.Hub reads
the event's unresolved calls while a judges' screen (or a player's page) follows it.

One call per table at a time: a player whose table already has an open call (their own,
or their opponent's) gets that call back (AlreadyCalled) instead of a second one.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import OperationalError, transaction
from django.utils import timezone

from tournaments import names, ratelimit
from tournaments.domain import current_round, round_label
from tournaments.locking import share_tournament
from tournaments.messages import Message, gettext_noop, ngettext, template
from tournaments.models import (
    AuditAction,
    CallState,
    Entry,
    JudgeCall,
    Match,
    Player,
    Round,
    Seat,
    Status,
    Tournament,
)
from tournaments.pages.calls import AT_A_TABLE, OPEN_STATES, call_state_words, state_label
from tournaments.permissions import is_head_judge
from tournaments.services import push, reports
from tournaments.services.writing import BUSY_REFUSAL, ServiceError, Write, is_busy, store_audit

NOTE_MAX = 200  # JudgeCall.note, .resolution

# Per private link: a player calls a judge a few times in an event. More than this in ten
# minutes is a finger on the button (or a script), not a new problem each time.
CALL_TOKEN_LIMIT = 5
CALL_WINDOW_SECONDS = 600

# Refusals, raised as Messages and said where they are shown (issue 36). The English
# of the first four stays importable: callers compare with it.
EVENT_FINISHED_MSG = template(
    "calls.event_finished", gettext_noop("The event is finished: judge calls are closed.")
)
NOT_STARTED_MSG = template(
    "calls.not_started",
    gettext_noop("No round is being played: judge calls open once the round is paired."),
)
DROPPED_MSG = template(
    "calls.dropped",
    gettext_noop("You have dropped from the event: find a judge on the floor or at the desk."),
)
NOT_IN_EVENT_MSG = reports.NOT_IN_EVENT  # the same words as a report's refusal
EVENT_FINISHED = EVENT_FINISHED_MSG.singular
NOT_STARTED = NOT_STARTED_MSG.singular
DROPPED = DROPPED_MSG.singular
NOT_IN_EVENT = NOT_IN_EVENT_MSG.singular
TOO_MANY = template(
    "calls.too_many",
    ngettext(
        "Too many judge calls from this link (at most %(limit)s in %(window)s "
        "minutes): wait %(minutes)s minute, then call again, or find a judge on the "
        "floor.",
        "Too many judge calls from this link (at most %(limit)s in %(window)s "
        "minutes): wait %(minutes)s minutes, then call again, or find a judge on the "
        "floor.",
        "minutes",
    ),
)
NO_EVENT = reports.NO_EVENT
# %(round)s: the playoff round's name (a Message).
NO_TABLE_PLAYOFF = template(
    "calls.no_table_playoff",
    gettext_noop("You have no table in the %(round)s: find a judge on the floor or at the desk."),
)
NO_TABLE = template(
    "calls.no_table",
    gettext_noop(
        "You have no table in round %(number)s: find a judge on the floor or at the desk."
    ),
)
NO_SUCH_TABLE_PLAYOFF = template(
    "calls.no_such_table_playoff", gettext_noop("There is no table %(table)s in the %(round)s.")
)
NO_SUCH_TABLE = template(
    "calls.no_such_table", gettext_noop("There is no table %(table)s in round %(number)s.")
)
# %(state)s: where the call stands (pages.calls.call_state_words), said where raised.
CALLED_BY_YOU = template(
    "calls.called_by_you",
    gettext_noop("A judge is called for your table already (by you): %(state)s."),
)
CALLED_BY_TABLE = template(
    "calls.called_by_table",
    gettext_noop("A judge is called for your table already (by your table): %(state)s."),
)
# %(state)s: the call's state (pages.calls.state_label), said where raised.
OPEN_ALREADY = template(
    "calls.open_already", gettext_noop("Table %(table)s has an open call already (%(state)s).")
)
NOT_OURS = template("calls.not_ours", gettext_noop("That call is not one of this event's."))
RESOLVED_BY = template(
    "calls.resolved_by", gettext_noop("This call is resolved already (by %(judge)s).")
)
RESOLVED = template("calls.resolved", gettext_noop("This call is resolved already (by a judge)."))
TAKEN = template("calls.taken", gettext_noop("%(judge)s has this call already."))
HEAD_TAKES = template(
    "calls.head_takes",
    gettext_noop(
        "This call was handed to the head judge: only the head judge or the organizer takes it."
    ),
)
ONLY_THEY_RELEASE = template(
    "calls.only_they_release", gettext_noop("%(judge)s has this call: only they release it.")
)
HEAD_RESOLVES = template(
    "calls.head_resolves",
    gettext_noop(
        "This call was handed to the head judge: only the head judge or the organizer resolves it."
    ),
)


class AlreadyCalled(ServiceError):
    """The table already has an unresolved call: `call` is that one."""

    def __init__(self, message: Message | str, call: JudgeCall) -> None:
        super().__init__(message)
        self.call = call


class TooManyCalls(ServiceError):
    """The per-link limit: `refused` says until when (ratelimit.Refused)."""

    def __init__(self, refused: ratelimit.Refused) -> None:
        minutes = -(-refused.retry_after_s // 60)
        super().__init__(
            TOO_MANY(limit=CALL_TOKEN_LIMIT, window=CALL_WINDOW_SECONDS // 60, minutes=minutes)
        )
        self.refused = refused


def call_limit(player: Player) -> ratelimit.Limit:
    """The player's call limit, counted per private link (ratelimit's counters: shared
    by every worker, let through when they fail)."""
    key = player.token_hash or f"player-{player.pk}"
    return ratelimit.Limit(
        f"call-token:{key}", CALL_TOKEN_LIMIT, "from this link", window_s=CALL_WINDOW_SECONDS
    )


def clean_note(text: str, *, field: str = "note") -> str:
    """A short word on what happened, cleaned as names are (one line, no invisible
    characters), at most NOTE_MAX characters; may be empty."""
    try:
        return names.clean(text or "", field=field, maximum=NOTE_MAX, required=False)
    except names.NameRefused as exc:
        raise ServiceError(str(exc)) from None


def _judge_name(user: Any) -> str:
    return user.get_username() if user is not None else ""


@contextmanager
def _calling(tournament_id: int, by: Any = None) -> Iterator[Write]:
    """A call's transaction: the tournament under FOR KEY SHARE, the audit entries the
    block adds; no version, no recompute, nothing for the public pages."""
    try:
        with transaction.atomic():
            t = share_tournament(tournament_id)
            if t is None:
                raise ServiceError(NO_EVENT())
            if t.status == Status.FINISHED:
                raise ServiceError(EVENT_FINISHED_MSG())
            w = Write(t, by)
            yield w
            store_audit(w)
    except OperationalError as exc:
        if is_busy(exc):
            raise ServiceError(BUSY_REFUSAL()) from exc
        raise


def _no_table(round_: Round) -> Message:
    """ "You have no table in round 4: ...", or in the top cut "... in the Semifinals: ..."."""
    name = round_label(round_)
    if round_.playoff and name is not None:
        return NO_TABLE_PLAYOFF(round=name.message())
    return NO_TABLE(number=round_.number)


def _no_such_table(round_: Round, table: int) -> Message:
    """ "There is no table 40 in round 4." (in the top cut "... in the Final.")."""
    name = round_label(round_)
    if round_.playoff and name is not None:
        return NO_SUCH_TABLE_PLAYOFF(table=table, round=name.message())
    return NO_SUCH_TABLE(table=table, number=round_.number)


def _already_called(call: JudgeCall, by_you: bool) -> Message:
    """The answer to a second call for a table: who called, and where that call stands
    (pages.calls.call_words, lower case as it reads inside the sentence; said here)."""
    state = call_state_words(call)
    return (CALLED_BY_YOU if by_you else CALLED_BY_TABLE)(state=state)


def _table_seats(t: Tournament, round_: Round, table: int) -> tuple[Match, list[Seat]] | None:
    seats = list(
        Seat.objects.filter(round=round_, match__table=table)
        .select_related("player", "match")
        .order_by("match_id", "position")
    )
    if not seats:
        return None
    match = seats[0].match
    return match, [s for s in seats if s.match_id == match.pk]


def _lock_table(match_id: int) -> None:
    """FOR NO KEY UPDATE on the table's match row: two calls for one table (a double tap,
    both players at once, a judge and a player) queue here, and the second finds the
    first's call. (A report holds the same row a moment: services.reports.)"""
    list(
        Match.objects.select_for_update(no_key=True)
        .filter(pk=match_id)
        .values_list("pk", flat=True)
    )


def _open_at(t: Tournament, round_number: int, table: int) -> JudgeCall | None:
    return (
        JudgeCall.objects.filter(
            tournament=t, round_number=round_number, table=table, state__in=OPEN_STATES
        )
        .select_related("judge", "player")
        .first()
    )


def _facts(call: JudgeCall, event: str, by: Any = None, **extra: Any) -> dict[str, Any]:
    """What the audit sentence is built from (pages.call_audit)."""
    out: dict[str, Any] = {
        "event": event,
        "call": call.pk,
        "round": call.round_number,
        "table": call.table,
        "state": call.state,
        "note": call.note,
    }
    if call.player is not None:
        out["player"], out["player_id"] = call.player.name, call.player.external_id
    if by is not None and getattr(by, "is_authenticated", False):
        out["by"] = _judge_name(by)
    return {**out, **extra}


def _players_at(call: JudgeCall) -> list[Player]:
    """The players an entry about this call is about: the caller first, then the others
    at the table in that round (as seated now)."""
    seated = [
        seat.player
        for seat in Seat.objects.filter(
            round__tournament_id=call.tournament_id,
            round__number=call.round_number,
            match__table=call.table,
        )
        .select_related("player")
        .order_by("match_id", "position")
    ]
    first = [call.player] if call.player is not None else []
    return first + [p for p in seated if call.player is None or p.pk != call.player.pk]


def _where(call: JudgeCall) -> str:
    return f"Table {call.table}, round {call.round_number}"


def _audit(w: Write, call: JudgeCall, event: str, summary: str, **extra: Any) -> None:
    w.audit(
        AuditAction.CALL,
        f"{_where(call)}: {summary}",
        after=_facts(call, event, w.by, **extra),
        round=call.round_number,
        table=call.table,
        players=_players_at(call),
    )


def call_judge(*, player: Player, note: str = "") -> JudgeCall:
    """The player calls a judge to their table in the round being played.

    Refused (ServiceError) when they have no table now or have dropped; TooManyCalls past
    the per-link limit; AlreadyCalled (with that call) when their table has an open call.
    """
    note = clean_note(note)
    refused = ratelimit.first_refused([call_limit(player)])
    if refused is not None:
        raise TooManyCalls(refused)
    with _calling(player.tournament_id) as w:
        found = Player.objects.filter(pk=player.pk, tournament=w.tournament).first()
        if found is None or found.entry != Entry.ACCEPTED:
            raise ServiceError(NOT_IN_EVENT_MSG())
        if found.dropped:
            raise ServiceError(DROPPED_MSG())
        round_ = current_round(w.tournament)
        if round_ is None:
            raise ServiceError(NOT_STARTED_MSG())
        seat = Seat.objects.filter(round=round_, player=found).select_related("match").first()
        if seat is None or seat.match.table is None or seat.match.kind not in AT_A_TABLE:
            raise ServiceError(_no_table(round_))
        table = seat.match.table
        _lock_table(seat.match_id)
        existing = _open_at(w.tournament, round_.number, table)
        if existing is not None:
            raise AlreadyCalled(_already_called(existing, existing.player_id == found.pk), existing)
        call = JudgeCall.objects.create(
            tournament=w.tournament, player=found, round_number=round_.number, table=table,
            note=note,
        )  # fmt: skip
        said = f": '{note}'" if note else ""
        _audit(w, call, "called", f"{found.name} called a judge{said}")
        push.record_new_call(call)
        return call


def open_call(*, tournament: Tournament, table: int, note: str = "", by: Any) -> JudgeCall:
    """A judge (or the desk) opens a call for a table of the round being played: it
    shows on every judge's screen as a player's call does."""
    note = clean_note(note)
    with _calling(tournament.pk, by) as w:
        round_ = current_round(w.tournament)
        if round_ is None:
            raise ServiceError(NOT_STARTED_MSG())
        at_table = _table_seats(w.tournament, round_, table)
        if at_table is None:
            raise ServiceError(_no_such_table(round_, table))
        _lock_table(at_table[0].pk)
        existing = _open_at(w.tournament, round_.number, table)
        if existing is not None:
            raise AlreadyCalled(
                OPEN_ALREADY(table=table, state=state_label(existing.state)),
                existing,
            )
        call = JudgeCall.objects.create(
            tournament=w.tournament, round_number=round_.number, table=table, note=note
        )
        said = f": '{note}'" if note else ""
        _audit(w, call, "opened", f"call opened by {_judge_name(by)}{said}")
        push.record_new_call(call)
        return call


def _locked_call(w: Write, call: JudgeCall | int) -> JudgeCall:
    """The call under FOR NO KEY UPDATE, then read in a statement of its own: under READ
    COMMITTED that read sees what the write we waited for committed (a row read by the
    locking statement itself would bring its joined judge as it was before)."""
    pk = call if isinstance(call, int) else call.pk
    locked = list(
        JudgeCall.objects.select_for_update(no_key=True)
        .filter(pk=pk, tournament=w.tournament)
        .values_list("pk", flat=True)
    )
    if not locked:
        raise ServiceError(NOT_OURS())
    return JudgeCall.objects.select_related("judge", "player").get(pk=pk)


def _not_resolved(call: JudgeCall) -> None:
    if call.state == CallState.RESOLVED:
        if call.judge is not None:
            raise ServiceError(RESOLVED_BY(judge=_judge_name(call.judge)))
        raise ServiceError(RESOLVED())


def _tournament_id(call: JudgeCall | int, tournament: Tournament | None) -> int:
    if tournament is not None:
        return tournament.pk
    if isinstance(call, JudgeCall):
        return call.tournament_id
    found = JudgeCall.objects.filter(pk=call).values_list("tournament_id", flat=True).first()
    if found is None:
        raise ServiceError(NOT_OURS())
    return found


def claim_call(
    *, call: JudgeCall | int, by: Any, tournament: Tournament | None = None
) -> JudgeCall:
    """`by` takes the call. A call another judge has is refused with their name; one
    handed to the head judge is taken by the head judge (or the organizer) only."""
    with _calling(_tournament_id(call, tournament), by) as w:
        found = _locked_call(w, call)
        _not_resolved(found)
        if found.judge_id == by.pk:
            return found  # theirs already: a second tap changes nothing
        if found.judge is not None:
            raise ServiceError(TAKEN(judge=_judge_name(found.judge)))
        if found.state == CallState.HEAD and not is_head_judge(by, w.tournament):
            raise ServiceError(HEAD_TAKES())
        found.judge, found.claimed_at = by, timezone.now()
        if found.state == CallState.OPEN:
            found.state = CallState.CLAIMED
        found.save(update_fields=["judge", "claimed_at", "state"])
        _audit(w, found, "claimed", f"call claimed by {_judge_name(by)}")
        push.record_claim(found)
        return found


def release_call(
    *, call: JudgeCall | int, by: Any, tournament: Tournament | None = None
) -> JudgeCall:
    """The judge who has the call gives it back (it is open to every judge again, or
    to the head judge if it was handed up); the head judge may release anyone's."""
    with _calling(_tournament_id(call, tournament), by) as w:
        found = _locked_call(w, call)
        _not_resolved(found)
        if found.judge is None:
            return found  # nobody has it
        if found.judge_id != by.pk and not is_head_judge(by, w.tournament):
            raise ServiceError(ONLY_THEY_RELEASE(judge=_judge_name(found.judge)))
        before = _judge_name(found.judge)
        found.judge, found.claimed_at = None, None
        if found.state == CallState.CLAIMED:
            found.state = CallState.OPEN
        found.save(update_fields=["judge", "claimed_at", "state"])
        _audit(w, found, "released", f"call released by {_judge_name(by)}", judge=before)
        return found


def hand_to_head(
    *, call: JudgeCall | int, by: Any, tournament: Tournament | None = None
) -> JudgeCall:
    """The call goes to the head judge (an appeal, a serious infraction): it shows first
    on the head judge's screen, marked, until the head judge takes it."""
    with _calling(_tournament_id(call, tournament), by) as w:
        found = _locked_call(w, call)
        _not_resolved(found)
        if found.state == CallState.HEAD:
            return found
        found.state, found.judge, found.claimed_at = CallState.HEAD, None, None
        found.save(update_fields=["state", "judge", "claimed_at"])
        _audit(w, found, "head", f"call handed to the head judge by {_judge_name(by)}")
        return found


def resolve_call(
    *,
    call: JudgeCall | int,
    by: Any,
    resolution: str = "",
    tournament: Tournament | None = None,
) -> JudgeCall:
    """The call is dealt with: it leaves the judges' open calls (and the player's page).
    A call handed to the head judge is resolved by the head judge or the organizer."""
    resolution = clean_note(resolution, field="resolution")
    with _calling(_tournament_id(call, tournament), by) as w:
        found = _locked_call(w, call)
        if found.state == CallState.RESOLVED and found.judge_id == by.pk:
            return found  # resolved twice by the same judge: nothing changes
        _not_resolved(found)
        if found.state == CallState.HEAD and not is_head_judge(by, w.tournament):
            raise ServiceError(HEAD_RESOLVES())
        handed = found.state == CallState.HEAD
        found.state, found.judge = CallState.RESOLVED, by
        found.resolved_at, found.resolution = timezone.now(), resolution
        found.save(update_fields=["state", "judge", "resolved_at", "resolution"])
        said = f": '{resolution}'" if resolution else ""
        _audit(
            w, found, "resolved", f"call resolved by {_judge_name(by)}{said}",
            resolution=resolution, handed=handed,
        )  # fmt: skip
        return found
