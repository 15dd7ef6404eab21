"""Players' own reports and self-drop (issue 14 items 4-6).

A player reports their match from their private page; the opponent confirms (the result
is then entered by results.enter_result, in this same writing block) or disputes. The
organizer's entry always wins: record_result marks an open report overridden. Reports are
open for the round being played only: pairing the next round closes them.

Locks. A report or a dispute changes no standing and nothing the public pages show, so it
neither bumps the tournament's version nor queues behind the event-wide write lock (at
1,000 players, every confirmation holds that lock for its standings recompute, and
reports waited seconds behind them; bench/bench_reports.py). It holds FOR KEY SHARE on the
tournament row, which conflicts only with the organizer's writes (FOR UPDATE: an entered
result, a pairing, an undo, a reset are never interleaved with a report, so the
organizer's entry still sees and overrides every committed report), and FOR UPDATE on its
match row, which serialises it with the other player's report and with a confirmation of
the same match. A confirmation enters the result through results.enter_result in a
`writing` block that lets reports pass (FOR NO KEY UPDATE: still serialised with every
other write and with other confirmations), and locks its match row the same way.

A dispute keeps both claims (issue 25 item 3): the report, and the result the opponent
gave instead ("Report this instead"), both in seat order on the Report row. While they
differ the report stays disputed, whichever of the two changes theirs; when one player
takes the other's result it is entered, as a confirmation is.

Every write leaves an audit sentence naming the player ("Table 12, round 4: Ana Lopez
reported 2-1, confirmed by Ben Ortiz"); `after` holds the same facts as JSON for the
audit log's renderer. The same report twice, a second confirmation, a second drop: each
writes nothing (no version, no audit entry).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import OperationalError, transaction

from tournaments.domain import (
    current_round,
    cut_drop,
    own_side,
    report_open,
    round_label,
    stamp,
)
from tournaments.locking import share_tournament
from tournaments.messages import Message, gettext_noop, template
from tournaments.models import (
    AuditAction,
    Match,
    MatchKind,
    Player,
    Report,
    ReportState,
    Seat,
    Status,
    Tournament,
)
from tournaments.rules import check_two_player_result, score_text
from tournaments.services import push
from tournaments.services.playoff import concede, cut_facts
from tournaments.services.results import (
    MatchNotFound,
    _seated_match,
    _tournament_of,
    enter_result,
)
from tournaments.services.writing import (
    BUSY_REFUSAL,
    Finished,
    ServiceError,
    Write,
    is_busy,
    store_audit,
    writing,
)

# Refusals a player reads (issue 36): raised as Messages, said where they are shown in
# the reader's language. The English of the first five stays importable (tests and
# callers compare with it, `gettext(STALE)`).
NOT_YOURS_MSG = template(
    "reports.not_yours",
    gettext_noop("You are not playing in this match: you can only report your own."),
)
CLOSED_MSG = template(
    "reports.closed",
    gettext_noop("Reports for this round are closed: the next round is paired. See the organizer."),
)
EVENT_FINISHED_MSG = template(
    "reports.event_finished",
    gettext_noop("The event is finished: reports are closed. See the organizer."),
)
STALE_MSG = template(
    "reports.stale",
    gettext_noop("This match changed since your page was loaded: check it again below."),
)
GONE_MSG = template(
    "reports.gone",
    gettext_noop("This match is no longer in the event (its round was undone): reload your page."),
)
NOT_YOURS = NOT_YOURS_MSG.singular
CLOSED = CLOSED_MSG.singular
EVENT_FINISHED = EVENT_FINISHED_MSG.singular
STALE = STALE_MSG.singular
GONE = GONE_MSG.singular
NO_EVENT = template("reports.no_event", gettext_noop("That event no longer exists."))
NOTHING_TO_REPORT = template(
    "reports.nothing_to_report",
    gettext_noop("This match has no result to report (a bye, or no opponent)."),
)
ALREADY_IN = template(
    "reports.already_in",
    gettext_noop("The result is already in: ask the organizer to change it."),
)
ALREADY_IN_SCORE = template(
    "reports.already_in_score",
    gettext_noop(
        "The result is already in (%(score)s from your side): ask the organizer to change it."
    ),
)
PLAYOFF_WINNER = template("reports.playoff_winner", gettext_noop("A playoff match needs a winner."))
NO_COUNTER_CLAIM = template(
    "reports.no_counter_claim",
    gettext_noop("There is no result of your opponent's to take: reload your page."),
)
NO_REPORT_YET = template(
    "reports.no_report_yet",
    gettext_noop("There is no report to answer yet: report the result yourself."),
)
OWN_REPORT = template(
    "reports.own_report",
    gettext_noop("You reported this result: your opponent confirms or disputes it."),
)
ENTERED = template(
    "reports.entered",
    gettext_noop("The organizer has entered this result: ask them to change it."),
)
NO_REPORT_TO_RESET = template(
    "reports.no_report_to_reset", gettext_noop("This match has no report to reset.")
)
NOT_IN_EVENT = template("reports.not_in_event", gettext_noop("You are not in this event."))


class StalePage(ServiceError):
    """The page the player acted on no longer shows the match as it is."""


class _NeedsResult(Exception):
    """A report turned out to be a confirmation: it must run as a standings write."""


class _ReportWrite(Write):
    """A `Write` for a report or a dispute: it collects audit entries; a change to the
    standings' inputs has no place in it."""

    def changed(self, *, matches: Any = None) -> None:
        raise _NeedsResult


@contextmanager
def _player_writing(tournament: Tournament | int, *, reports_pass: bool = False) -> Iterator[Write]:
    """writing(), with the finished event's refusal worded for a player."""
    try:
        with writing(tournament, reports_pass=reports_pass) as w:
            yield w
    except Finished:
        # Known by its type: its text is in whatever language writing() spoke.
        raise ServiceError(EVENT_FINISHED_MSG()) from None


def _shared(pk: int) -> Tournament:
    """The tournament row under FOR KEY SHARE (see the module's docstring)."""
    found = share_tournament(pk)
    if found is None:
        raise ServiceError(NO_EVENT())
    return found


@contextmanager
def _reporting(tournament_id: int) -> Iterator[Write]:
    """A report or a dispute: its transaction, the locks of the module's docstring, and
    its audit entries; no version, no recompute, nothing for the live pages."""
    try:
        with transaction.atomic():
            w = _ReportWrite(_shared(tournament_id))
            if w.tournament.status == Status.FINISHED:
                raise ServiceError(EVENT_FINISHED_MSG())
            yield w
            store_audit(w)
    except OperationalError as exc:
        if is_busy(exc):
            raise ServiceError(BUSY_REFUSAL()) from exc
        raise


def _lock_match(pk: int, t: Tournament) -> None:
    """FOR UPDATE on the match row alone (not its round's: every table shares that)."""
    list(
        Match.objects.select_for_update(of=("self",))
        .filter(pk=pk, round__tournament=t)
        .values_list("pk", flat=True)
    )


def _open_match(w: Write, player: Player, match: Match | int) -> tuple[Match, list[Seat], int]:
    """The match under its lock, with its seats, and the player's seat (0 or 1); refused
    unless the player plays in it and its round is the one being played."""
    _lock_match(match if isinstance(match, int) else match.pk, w.tournament)
    try:
        # Read after the lock, in a statement of its own: under READ COMMITTED it sees
        # what the write we waited for committed (its report row included).
        found, seats = _seated_match(match, w.tournament)
    except MatchNotFound:
        raise ServiceError(GONE_MSG()) from None
    position = next((k for k, s in enumerate(seats) if s.player_id == player.pk), None)
    if position is None:
        raise ServiceError(NOT_YOURS_MSG())
    if found.kind not in (MatchKind.PLAYED, MatchKind.DOUBLE_LOSS) or len(seats) != 2:
        raise ServiceError(NOTHING_TO_REPORT())
    if w.tournament.status == Status.FINISHED:
        raise ServiceError(EVENT_FINISHED_MSG())
    playing = current_round(w.tournament)
    if playing is None or found.round.number < playing.number:
        raise ServiceError(CLOSED_MSG())
    return found, seats, position


def _check_stamp(match: Match, seats: list[Seat], report: Report | None, seen: str | None) -> None:
    if seen is not None and seen != stamp(match, seats, report):
        raise StalePage(STALE_MSG())


def _agrees(
    match: Match,
    seats: list[Seat],
    existing: Report | None,
    player: Player,
    result: tuple[int, int, int],
) -> bool:
    """The result (seat order) is what the opponent reported, or what is already in.

    Then a page that no longer shows the match as it is still asked for what the match
    now holds: both players reporting the same result at once is agreement, and the
    second report confirms the first instead of being told its page is stale (issue 24
    item 11). A different result from a stale page is still refused.
    """
    if match.reported:
        return _current_result(match, seats) == result
    if existing is None:
        return False
    if existing.reporter_id == player.pk:  # taking the opponent's counter-claim
        return existing.state == ReportState.DISPUTED and existing.counter_claim == result
    return existing.state == ReportState.REPORTED and existing.claim == result


def _where(match: Match) -> str:
    """ "Table 12, round 4" (a playoff round by its name: "Table 1, Final")."""
    if match.round.playoff:
        return f"Table {match.table}, {round_label(match.round)}"
    return f"Table {match.table}, round {match.round.number}"


def _facts(match: Match, seats: list[Seat], report: Report, **extra: Any) -> dict[str, Any]:
    """What the audit log's renderer reads (the read model's pages/audit.py, _report)."""
    reporter = 0 if seats[0].player_id == report.reporter_id else 1
    mine, theirs = own_side((report.wins_a, report.wins_b), reporter)
    return {
        "match": match.pk,
        "round": match.round.number,
        "table": match.table,
        "reporter": seats[reporter].player.name,
        "reporter_id": seats[reporter].player.external_id,
        "score": score_text([mine, theirs], report.draws),
        "state": report.state,
        **extra,
    }


def _about(match: Match, seats: list[Seat], report: Report, *also: Player) -> dict[str, Any]:
    """What a report's audit entry is about: its round, table, reporter (and `also`)."""
    reporter = seats[0] if seats[0].player_id == report.reporter_id else seats[1]
    return {
        "round": match.round.number,
        "table": match.table,
        "players": [reporter.player, *also],
    }


def _score_of(report: Report, seats: list[Seat]) -> str:
    reporter = 0 if seats[0].player_id == report.reporter_id else 1
    mine, theirs = own_side((report.wins_a, report.wins_b), reporter)
    return score_text([mine, theirs], report.draws)


def _current_result(match: Match, seats: list[Seat]) -> tuple[int, int, int] | None:
    if not match.reported or match.kind != MatchKind.PLAYED:
        return None
    return (seats[0].games_won or 0, seats[1].games_won or 0, match.draws)


def _already_in(stored: tuple[int, int, int] | None, me: int) -> Message:
    if stored is None:
        return ALREADY_IN()
    mine, theirs = own_side(stored[:2], me)
    return ALREADY_IN_SCORE(score=score_text([mine, theirs], stored[2]))


def _confirm_into_result(w: Write, match: Match, seats: list[Seat], report: Report) -> None:
    enter_result(w, match, seats, wins=(report.wins_a, report.wins_b), draws=report.draws)


def report(
    *,
    player: Player,
    match: Match | int,
    wins_mine: int,
    wins_theirs: int,
    draws: int = 0,
    seen: str | None = None,
) -> Report:
    """The player reports their match, their own games first.

    The opponent reporting the same result confirms it; a different one disputes it.
    `seen`: the stamp of the page the player reported from (domain.stamp); a
    page that no longer shows the match as it is gets StalePage, unless the report
    agrees with what the match now holds (`_agrees`).
    """
    facts = (player, match, wins_mine, wins_theirs, draws, seen)
    try:
        with _reporting(player.tournament_id) as w:
            return _report(w, *facts)
    except _NeedsResult:  # rolled back: it confirms, so it enters the result
        pass
    with _player_writing(player.tournament_id, reports_pass=True) as w:
        return _report(w, *facts)


def _report(
    w: Write,
    player: Player,
    match: Match | int,
    wins_mine: int,
    wins_theirs: int,
    draws: int,
    seen: str | None,
) -> Report:
    """report(), in `w`: a report's block, or a confirmation's when it confirms."""
    found, seats, me = _open_match(w, player, match)
    existing: Report | None = getattr(found, "report", None)
    wins = own_side((wins_mine, wins_theirs), me)  # seat order (own_side is symmetric)
    if not _agrees(found, seats, existing, player, (*wins, draws)):
        _check_stamp(found, seats, existing, seen)
    problem = check_two_player_result(best_of=w.tournament.best_of, wins=wins, draws=draws)
    if problem:
        raise ServiceError(problem)
    if found.round.playoff and wins[0] == wins[1]:
        raise ServiceError(PLAYOFF_WINNER())
    name, where = player.name, _where(found)
    stored = _current_result(found, seats)
    if found.reported:
        if stored == (*wins, draws):
            return existing or Report(match=found, reporter=player)  # already in
        raise ServiceError(_already_in(stored, me))
    claim = (wins[0], wins[1], draws)
    same = existing is not None and existing.claim == claim
    if existing is None or existing.state == ReportState.OVERRIDDEN:
        before = None
        if existing is None:
            existing = Report(match=found, reporter=player)
        else:
            before = _facts(found, seats, existing)
        existing.reporter = player
        existing.wins_a, existing.wins_b, existing.draws = claim
        existing.state, existing.answered_by = ReportState.REPORTED, None
        existing.set_counter_claim(None)
        existing.save()
        w.touched()
        w.audit(
            AuditAction.REPORT,
            f"{where}: {name} reported {score_text([wins_mine, wins_theirs], draws)}",
            before=before,
            after=_facts(found, seats, existing, event="report"),
            **_about(found, seats, existing),
        )
        push.record_report(match=found, seats=seats, reporter=player, wins=wins, draws=draws)
        return existing
    if existing.reporter_id == player.pk:
        if same:
            return existing  # the same report again: nothing changes
        disputed = existing.state == ReportState.DISPUTED
        if disputed and existing.counter_claim == claim:
            # The reporter takes the opponent's result: both players now say the same.
            if isinstance(w, _ReportWrite):
                raise _NeedsResult
            _take_counter_claim(w, found, seats, existing, player)
            return existing
        before = _facts(found, seats, existing)
        existing.wins_a, existing.wins_b, existing.draws = claim
        if not (disputed and existing.counter_claim is not None):
            # No result of the opponent's own stands against it: they answer it anew.
            existing.state, existing.answered_by = ReportState.REPORTED, None
        existing.save()
        w.touched()
        w.audit(
            AuditAction.REPORT,
            f"{where}: {name} reported {score_text([wins_mine, wins_theirs], draws)} "
            f"(was {before['score']})",
            before=before,
            after=_facts(found, seats, existing, event="report", was=before["score"]),
            **_about(found, seats, existing),
        )
        push.record_report(match=found, seats=seats, reporter=player, wins=wins, draws=draws)
        return existing
    # The opponent of the reporter: the same result confirms it, another disputes it.
    if same:
        if isinstance(w, _ReportWrite):
            raise _NeedsResult
        _answer(w, found, seats, existing, player, ReportState.CONFIRMED)
        return existing
    if (
        existing.state == ReportState.DISPUTED
        and existing.answered_by_id == player.pk
        and existing.counter_claim == claim
    ):
        return existing  # this claim against the report is in already
    _answer(w, found, seats, existing, player, ReportState.DISPUTED, claim=claim)
    return existing


def _answer(
    w: Write,
    match: Match,
    seats: list[Seat],
    report: Report,
    player: Player,
    state: str,
    *,
    claim: tuple[int, int, int] | None = None,
) -> None:
    """The reporter's opponent confirms (the result goes in) or disputes the report;
    `claim`: the result they give instead (seat order), kept beside the report. A plain
    dispute keeps the claim they gave before, if any; a confirmation drops it."""
    before = _facts(match, seats, report)
    report.state, report.answered_by = state, player
    if state == ReportState.CONFIRMED or claim is not None:
        report.set_counter_claim(claim)
    report.save()
    if state == ReportState.CONFIRMED:
        _confirm_into_result(w, match, seats, report)
    else:
        w.touched()
    verb = "confirmed" if state == ReportState.CONFIRMED else "disputed"
    text = (
        f"{_where(match)}: {before['reporter']} reported {before['score']}, {verb} by {player.name}"
    )
    extra: dict[str, Any] = {"event": verb, "by": player.name, "by_id": player.external_id}
    if claim is not None:
        me = 0 if seats[0].player_id == player.pk else 1
        extra["claim"] = score_text(list(own_side(claim[:2], me)), claim[2])  # their side
        text += f" ({player.name} reported {extra['claim']})"
    w.audit(
        AuditAction.REPORT,
        text,
        before=before,
        after=_facts(match, seats, report, **extra),
        **_about(match, seats, report, player),
    )


def _take_counter_claim(
    w: Write, match: Match, seats: list[Seat], report: Report, player: Player
) -> None:
    """The reporter reports the result their opponent gave instead: that result is the
    report now, the opponent's, confirmed by the reporter, and it goes in."""
    claimant, counter = report.answered_by, report.counter_claim
    if claimant is None or counter is None:  # _report calls this only with both
        raise ServiceError(NO_COUNTER_CLAIM())
    before = _facts(match, seats, report)
    report.reporter = claimant
    report.wins_a, report.wins_b, report.draws = counter
    report.set_counter_claim(None)
    report.state, report.answered_by = ReportState.CONFIRMED, player
    report.save()
    _confirm_into_result(w, match, seats, report)
    facts = _facts(match, seats, report)
    w.audit(
        AuditAction.REPORT,
        f"{_where(match)}: {facts['reporter']} reported {facts['score']}, "
        f"confirmed by {player.name}",
        before=before,
        after={**facts, "event": "confirmed", "by": player.name, "by_id": player.external_id},
        **_about(match, seats, report, player),
    )


def _reporters_opponent(
    w: Write, player: Player, match: Match | int, seen: str | None
) -> tuple[Match, list[Seat], Report]:
    found, seats, _me = _open_match(w, player, match)
    existing: Report | None = getattr(found, "report", None)
    _check_stamp(found, seats, existing, seen)
    if existing is None or (existing.state == ReportState.OVERRIDDEN and not found.reported):
        raise ServiceError(NO_REPORT_YET())
    if existing.reporter_id == player.pk:
        raise ServiceError(OWN_REPORT())
    return found, seats, existing


def confirm(*, player: Player, match: Match | int, seen: str | None = None) -> Report:
    """The reporter's opponent confirms the report: the result is entered (and the
    standings recomputed) in this same write. Confirming twice changes nothing."""
    with _player_writing(player.tournament_id, reports_pass=True) as w:
        found, seats, existing = _reporters_opponent(w, player, match, seen)
        if existing.state == ReportState.CONFIRMED:
            return existing
        if not report_open(found, existing):
            raise ServiceError(ENTERED())
        _answer(w, found, seats, existing, player, ReportState.CONFIRMED)
        return existing


def dispute(*, player: Player, match: Match | int, seen: str | None = None) -> Report:
    """The reporter's opponent disputes the report: the organizer settles it (their entry
    wins). Disputing twice changes nothing."""
    with _reporting(player.tournament_id) as w:
        found, seats, existing = _reporters_opponent(w, player, match, seen)
        if existing.state == ReportState.DISPUTED:
            return existing
        if not report_open(found, existing):
            raise ServiceError(ALREADY_IN())
        _answer(w, found, seats, existing, player, ReportState.DISPUTED)
        return existing


def reset_report(*, match: Match | int, tournament: Tournament | None = None, by: Any) -> None:
    """The organizer removes a match's report: the players may report again. A result
    already entered stays (the organizer changes it on the round screen)."""
    with writing(_tournament_of(match, tournament), by=by) as w:
        found, seats = _seated_match(match, w.tournament)
        existing: Report | None = getattr(found, "report", None)
        if existing is None:
            raise ServiceError(NO_REPORT_TO_RESET())
        before = _facts(found, seats, existing)
        existing.delete()
        w.touched()
        w.audit(
            AuditAction.REPORT,
            f"{_where(found)}: {before['reporter']}'s report ({before['score']}) reset",
            before=before,
            after={**before, "event": "reset", "state": None},
            **_about(found, seats, existing),
        )


def self_drop(*, player: Player) -> Player:
    """The player drops after the round being played (their own request, from their
    private page). Dropping twice changes nothing; the organizer can re-admit them.
    During the top cut it concedes their playoff match (services.playoff)."""
    with _player_writing(player.tournament_id) as w:
        found = Player.objects.filter(pk=player.pk, tournament=w.tournament).first()
        if found is None:
            raise ServiceError(NOT_IN_EVENT())
        if found.dropped_after_round is not None:
            return found
        playing = current_round(w.tournament)
        number = playing.number if playing is not None else 0
        cut = cut_drop(w.tournament, found)
        found.dropped_after_round, found.dropped_by_player = number, True
        found.save(update_fields=["dropped_after_round", "dropped_by_player"])
        w.changed()  # who is dropped decides the next pairing and the standings' notes
        # "after round 0" before round 1: the organizer's drop words it the same way.
        w.audit(
            AuditAction.DROP,
            f"{found.name} dropped after round {number} (own request)",
            after={"dropped_after_round": number, "by_player": True, **cut_facts(cut)},
            round=number or None,
            players=[found],
        )
        concede(w, found, cut)
    player.dropped_after_round, player.dropped_by_player = number, True
    return found
