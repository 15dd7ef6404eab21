"""Penalties by the Magic Infraction Procedure Guide (issue 27): a judge on the floor
records an infraction and its penalty against a player; the penalty does what the IPG
(section 1.1) says it does to the match, through the services that write results and
drops, in the same `writing` block.

- Warning: recorded only.
- Game Loss: recorded against the player's match; its result form and row on the round
  screen say so ("Game loss: Ana Souza (Tardiness)"), and whoever enters the result
  counts that game. Nothing is entered for them: the match goes on.
- Match Loss: the penalized player's match is entered as lost by the games that win it
  (0-2 in a best of 3, 0-1 in a best of 1), as a drop during the top cut concedes
  (services.playoff), with its audit entry and the standings recomputed. Only a match
  without a result can take it: by IPG 1.1 a match loss for a match already over
  applies to the player's next one.
- Disqualification (the head judge or the organizer only, MTR 1.7): the player is
  dropped (services.players.drop_in, the reason kept) and their match without a result
  is conceded as a Match Loss concedes it (in the top cut, as their drop concedes it).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Max
from django.utils.translation import gettext

from tournaments.domain import current_round, walkover_score
from tournaments.infractions import INFRACTIONS, PENALTY_NAMES, Infraction, infraction_name
from tournaments.messages import gettext_noop, template
from tournaments.models import (
    AuditAction,
    Entry,
    Match,
    MatchKind,
    Penalty,
    PenaltyKind,
    Player,
    Seat,
    Tournament,
)
from tournaments.permissions import is_head_judge
from tournaments.rules import score_text
from tournaments.services.players import drop_in
from tournaments.services.playoff import _walkover
from tournaments.services.results import _seated_match, enter_result
from tournaments.services.writing import ServiceError, Write, writing

MAX_NOTE = 500  # Penalty.note's max_length
# Refusals, raised as Messages and said where they are shown (issue 36). HEAD_ONLY's
# English stays importable (the views translate it for their 403).
HEAD_ONLY_MSG = template(
    "penalties.head_only",
    gettext_noop("Only the head judge or the organizer disqualifies a player (MTR 1.7)."),
)
HEAD_ONLY = HEAD_ONLY_MSG.singular
NOT_AN_INFRACTION = template(
    "penalties.not_an_infraction",
    gettext_noop(
        "%(key)r is not an infraction of the Infraction Procedure Guide: pick one from the list."
    ),
)
# %(infraction)s: the IPG's name of it, translated where raised (see _kind): the
# infractions' names are words marked in tournaments.infractions, not templates.
NO_PENALTY = template(
    "penalties.no_penalty",
    gettext_noop(
        "%(infraction)s carries no penalty (IPG %(section)s): there is nothing to "
        "record. Choose a penalty only to upgrade it."
    ),
)
NOT_A_PENALTY = template(
    "penalties.not_a_penalty", gettext_noop("%(kind)r is not a penalty: pick one of %(known)s.")
)
NOTE_TOO_LONG = template(
    "penalties.note_too_long",
    gettext_noop("The note is %(length)s characters long: %(most)s at most."),
)
NOT_IN_EVENT = template(
    "penalties.not_in_event",
    gettext_noop("That player is not in this event: pick one from its list."),
)
DROPPED = template(
    "penalties.dropped",
    gettext_noop(
        "%(player)s has dropped from the event (after round %(round)s): a penalty "
        "is for a player still in it."
    ),
)
NOT_IN_MATCH = template(
    "penalties.not_in_match", gettext_noop("%(player)s does not play in that match.")
)
NO_MATCH = template(
    "penalties.no_match",
    gettext_noop("%(player)s has no match in the round being played: a match loss needs one."),
)
BYE = template(
    "penalties.bye", gettext_noop("%(player)s has a bye this round: a bye takes no match loss.")
)
NO_OPPONENT = template(
    "penalties.no_opponent",
    gettext_noop("%(player)s has no opponent this round (already a loss): nothing to concede."),
)
LEAGUE_GAME = template(
    "penalties.league_game",
    gettext_noop("A league table's game takes places and scores, not a match loss."),
)
ALREADY_OVER = template(
    "penalties.already_over",
    gettext_noop(
        "%(player)s's match (table %(table)s) already has a result: by IPG 1.1 a "
        "match loss for a match already over applies to their next match. Issue it "
        "once that round is paired, or clear this result first if the offense "
        "happened in this match."
    ),
)
TWO_PLAYERS = template(
    "penalties.two_players", gettext_noop("Only a two-player match takes a match loss.")
)
GONE = template(
    "penalties.gone", gettext_noop("That penalty is not in this event (withdrawn already?).")
)
DQ_STAYS = template(
    "penalties.dq_stays",
    gettext_noop(
        "A disqualification is not withdrawn here: the organizer re-admits the "
        "player on the Players screen and corrects the conceded result on the "
        "match's form."
    ),
)
COUNTED_LATER = template(
    "penalties.counted_later",
    gettext_noop(
        "Round %(round)s is no longer the last round paired, and a later pairing "
        "counted this result: correct table %(table)s's result on its form first, "
        "then withdraw the penalty."
    ),
)


def _infraction(key: str) -> Infraction:
    found = INFRACTIONS.get(key)
    if found is None:
        raise ServiceError(NOT_AN_INFRACTION(key=key))
    return found


def _kind(infraction: Infraction, penalty: str | None) -> str:
    """The penalty to issue: the one given, else the IPG's default for the infraction."""
    kind = penalty or infraction.penalty
    if kind is None:
        raise ServiceError(
            NO_PENALTY(infraction=gettext(infraction.name), section=infraction.section)
        )
    if kind not in PenaltyKind.values:
        # The IPG's names, said here (tournaments.infractions marks them as words, not
        # templates): the one part of these refusals translated where it is raised.
        known = ", ".join(gettext(name) for name in PENALTY_NAMES.values())
        raise ServiceError(NOT_A_PENALTY(kind=kind, known=known))
    return kind


def _note(note: str) -> str:
    # Control characters (a paste from elsewhere) would garble the printed report.
    cleaned = " ".join("".join(ch if ch.isprintable() else " " for ch in note).split())
    if len(cleaned) > MAX_NOTE:
        raise ServiceError(NOTE_TOO_LONG(length=len(cleaned), most=MAX_NOTE))
    return cleaned


def _player(t: Tournament, player: Player | int) -> Player:
    pk = player.pk if isinstance(player, Player) else player
    found = Player.objects.filter(pk=pk, tournament=t, entry=Entry.ACCEPTED).first()
    if found is None:
        raise ServiceError(NOT_IN_EVENT())
    if found.dropped:
        raise ServiceError(DROPPED(player=found.name, round=found.dropped_after_round))
    return found


def _match_of(t: Tournament, player: Player, match: Match | int | None) -> Match | None:
    """The match the penalty is about: the one given (it must seat the player), else
    the player's match in the round being played (None when they have none)."""
    seats = Seat.objects.filter(player=player, match__round__tournament=t).select_related(
        "match__round"
    )
    if match is not None:
        pk = match.pk if isinstance(match, Match) else match
        seat = seats.filter(match_id=pk).first()
        if seat is None:
            raise ServiceError(NOT_IN_MATCH(player=player.name))
        return seat.match
    round_ = current_round(t)
    seat = seats.filter(round=round_).first() if round_ is not None else None
    return seat.match if seat is not None else None


def _concedable(player: Player, match: Match | None) -> Match:
    """The match a match loss enters as lost, or the refusal naming why this match
    cannot take that result."""
    who = {"player": player.name}
    if match is None:
        raise ServiceError(NO_MATCH(**who))
    if match.kind == MatchKind.BYE:
        raise ServiceError(BYE(**who))
    if match.kind == MatchKind.LOSS:
        raise ServiceError(NO_OPPONENT(**who))
    if match.kind == MatchKind.GAME:
        raise ServiceError(LEAGUE_GAME())
    if match.reported:
        raise ServiceError(ALREADY_OVER(**who, table=match.table))
    return match


def _concede(w: Write, player: Player, match: Match) -> str:
    """The player loses `match` by the games that win it (playoff._walkover: the result
    entered through results.enter_result, its report overridden). Returns the score as
    the penalized player reads it: "0-2"."""
    found, seats = _seated_match(match.pk, w.tournament)
    if len(seats) != 2:
        raise ServiceError(TWO_PLAYERS())
    _walkover(w, found, seats, loser=player.pk)
    won, lost = walkover_score(w.tournament.best_of)
    return score_text([lost, won], 0)


def _facts(
    row: Penalty, infraction: Infraction, match: Match | None, result: str | None
) -> dict[str, Any]:
    """What the PENALTY audit entry keeps (pages.penalties renders it)."""
    facts: dict[str, Any] = {
        "event": "issued",
        "penalty_id": row.pk,
        "infraction": infraction.key,
        "infraction_name": infraction.name,
        "section": infraction.section,
        "penalty": row.penalty,
        "default": infraction.penalty,
        "note": row.note,
    }
    if result is not None:
        facts["result"] = result
    if match is not None and match.round.playoff:
        facts["playoff"] = True
    return facts


def issue_penalty(
    *,
    tournament: Tournament,
    player: Player | int,
    infraction: str,
    penalty: str | None,
    note: str = "",
    match: Match | int | None = None,
    by: Any,
) -> Penalty:
    """Record `infraction` (a key of tournaments.infractions.INFRACTIONS) against
    `player` with `penalty` (a PenaltyKind value; None or "": the IPG's default for it)
    and do what the penalty does (see the module's docstring), all in one write.

    `match`: the match it is about; by default the player's match in the round being
    played. Refused: an unknown infraction or penalty, a player not (or no longer) in
    this event, a disqualification by anyone but the head judge or the organizer, a
    match loss for a match that cannot take one.
    """
    found = _infraction(infraction)
    kind = _kind(found, penalty)
    note = _note(note)
    with writing(tournament, by=by) as w:
        t = w.tournament
        if kind == PenaltyKind.DISQUALIFICATION and not is_head_judge(by, t):
            raise ServiceError(HEAD_ONLY_MSG())
        who = _player(t, player)
        played = _match_of(t, who, match)
        result = None
        if kind == PenaltyKind.MATCH_LOSS:
            result = _concede(w, who, _concedable(who, played))
        row = Penalty.objects.create(
            tournament=t,
            player=who,
            match=played,
            round_number=played.round.number if played is not None else _last_number(t),
            table=played.table if played is not None else None,
            infraction=found.key,
            penalty=kind,
            judge=by if getattr(by, "is_authenticated", False) else None,
            note=note,
        )
        if kind == PenaltyKind.DISQUALIFICATION:
            result = _disqualify(w, who, played, found)
        w.touched()
        w.audit(
            AuditAction.PENALTY,
            f"{PENALTY_NAMES[kind]} for {who.name}: {found.name}",
            after=_facts(row, found, played, result),
            round=row.round_number,
            table=row.table,
            players=[who],
        )
    return row


def _last_number(t: Tournament) -> int | None:
    return t.rounds.aggregate(n=Max("number"))["n"]


def _disqualify(
    w: Write, player: Player, match: Match | None, infraction: Infraction
) -> str | None:
    """Drop the disqualified player, conceding their match without a result: in the top
    cut as their drop concedes it (drop_in), in a Swiss round as a match loss does.
    Returns the conceded score as they read it, None when nothing was conceded."""
    open_swiss = (
        match is not None
        and not match.round.playoff
        and match.kind == MatchKind.PLAYED
        and not match.reported
    )
    result = _concede(w, player, match) if open_swiss and match is not None else None
    cut = drop_in(w, player, reason=f"disqualified: {infraction.name}")
    if cut is not None and cut.now:
        won, lost = walkover_score(w.tournament.best_of)
        result = score_text([lost, won], 0)
    return result


def withdraw_penalty(*, tournament: Tournament, penalty: Penalty | int, by: Any) -> None:
    """Take back a penalty entered by mistake, and what it did.

    A Warning or a Game Loss is a record only: withdrawing it deletes the row (the audit
    log keeps both entries). A Match Loss also entered its match's result: withdrawing it
    clears that result (the match is back to "missing", as it was when the penalty was
    issued) while the result is still exactly the one the penalty entered; a result
    changed since stays as changed. In a round that is no longer the last one paired,
    the result it entered is not cleared behind the later pairing's back: refused, the
    judge corrects it on the match's form first. A
    Disqualification is not withdrawn here: it dropped the player and may have conceded
    a match, which the organizer undoes on purpose (re-admit, correct the result).
    """
    pk = penalty.pk if isinstance(penalty, Penalty) else penalty
    with writing(tournament, by=by) as w:
        t = w.tournament
        row = (
            Penalty.objects.filter(pk=pk, tournament=t)
            .select_related("player", "match__round")
            .first()
        )
        if row is None:
            raise ServiceError(GONE())
        if row.penalty == PenaltyKind.DISQUALIFICATION:
            raise ServiceError(DQ_STAYS())
        cleared = False
        if row.penalty == PenaltyKind.MATCH_LOSS and row.match is not None:
            cleared = _clear_conceded(w, row)
        facts = {
            "event": "withdrawn",
            "penalty_id": row.pk,
            "infraction": row.infraction,
            "infraction_name": infraction_name(row.infraction),
            "penalty": row.penalty,
            "result_cleared": cleared,
        }
        row.delete()
        w.touched()
        w.audit(
            AuditAction.PENALTY,
            f"Withdrew the {PENALTY_NAMES[row.penalty]} for {row.player.name}: "
            f"{facts['infraction_name']}",
            before={"penalty": row.penalty, "note": row.note},
            after=facts,
            round=row.round_number,
            table=row.table,
            players=[row.player],
        )


def _clear_conceded(w: Write, row: Penalty) -> bool:
    """A withdrawn match loss's result, cleared if it is still the one the penalty
    entered (see withdraw_penalty). False: it was changed since, and stays as changed."""
    assert row.match is not None
    match, seats = _seated_match(row.match.pk, w.tournament)
    won, lost = walkover_score(w.tournament.best_of)
    entered = [lost if s.player_id == row.player_id else won for s in seats]
    still = match.reported and match.kind == MatchKind.PLAYED and match.draws == 0
    if not still or [s.games_won for s in seats] != entered:
        return False
    if _last_number(w.tournament) != match.round.number:
        raise ServiceError(COUNTED_LATER(round=match.round.number, table=match.table))
    enter_result(w, match, seats, wins=None)
    return True
