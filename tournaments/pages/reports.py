"""Players' own reports (issue 14), read for screens: a player's panel, the organizer's list.

Plain data out. A panel carries `stamp(...)` (tournaments.domain), which the report
services compare under the lock to refuse a stale page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language, pgettext, pgettext_lazy
from django.utils.translation import gettext as _

from tournaments.domain import (
    current_round,
    cut_drop,
    own_side,
    report_open,
    round_label,
    stamp,
)
from tournaments.models import (
    Entry,
    MatchKind,
    Player,
    Report,
    ReportState,
    Round,
    Seat,
    Status,
)
from tournaments.pages import public
from tournaments.pages.common import POLL_SECONDS
from tournaments.pages.event import EventView, StoredStanding, display_names, event_view
from tournaments.rules import RoundName, ordinal, score_text
from tournaments.templatetags.tourney import round_name

# A report still unanswered after this long is flagged for the organizer: opponents
# confirm at the table within a minute or two, so five minutes means one of them left.
ONE_SIDED_MINUTES = 5


def outcome_words(mine: int, theirs: int, draws: int) -> str:
    """ "you won 2-1", "you lost 0-2", "a draw 1-1-1", from the reader's side."""
    score = {"score": score_text([mine, theirs], draws)}
    if mine > theirs:
        return _("you won %(score)s") % score
    if mine < theirs:
        return _("you lost %(score)s") % score
    return _("a draw %(score)s") % score


def place_words(n: int) -> str:
    """A place as the reader writes it: "3rd" in English (rules.ordinal, which knows no
    language), "3e", "3.", "3.º", "3位" in the others, from one pattern each."""
    if (get_language() or "en").startswith("en"):
        return ordinal(n)
    return pgettext(
        "a place from its number, as in 'finished 3rd' (not used in English)", "%(n)sth"
    ) % {"n": n}


def _in_sentence(label: RoundName | None) -> str:
    """A top-cut round's name inside a sentence ("not paired in semifinals"): lower case in
    English, as it always read; other languages keep the translated name as it is."""
    name = round_name(label)
    return name.lower() if (get_language() or "en").startswith("en") else name


def report_score(report: Report) -> str:
    """The report as its reporter gave it, their own games first ("2-1")."""
    reporter_first = report.match.seat_list[0].player_id == report.reporter_id  # type: ignore[attr-defined]
    wins = (report.wins_a, report.wins_b) if reporter_first else (report.wins_b, report.wins_a)
    return score_text(list(wins), report.draws)


@dataclass(frozen=True)
class Claim:
    """One player's result in a dispute, as the organizer reads it: `value` in seat order
    (the order of the round screen's row, and what the one-click entry posts), `by` the
    player who gave it."""

    by: str
    value: str
    names: tuple[str, str]

    @property
    def text(self) -> str:
        """ "Ivo Ng 2-1 Dev Rao": the result with the players it reads between."""
        return f"{self.names[0]} {self.value} {self.names[1]}"


def seat_claims(
    names: Sequence[str],
    reporter: str,
    claim: tuple[int, int, int],
    answerer: str | None,
    counter: tuple[int, int, int] | None,
) -> list[Claim]:
    """A report's claims in seat order: the report, then the opponent's own result if
    they gave one."""
    pair = (names[0], names[1]) if len(names) == 2 else ("", "")
    out = [Claim(reporter, score_text(claim[:2], claim[2]), pair)]
    if counter is not None and answerer is not None:
        out.append(Claim(answerer, score_text(counter[:2], counter[2]), pair))
    return out


def report_claims(report: Report, seats: Sequence[Seat]) -> list[Claim]:
    """seat_claims of a report whose reporter, answerer and seats' players are loaded."""
    return seat_claims(
        [s.player.name for s in seats],
        report.reporter.name,
        report.claim,
        report.answered_by.name if report.answered_by else None,
        report.counter_claim,
    )


def _own_claims(report: Report, me: int, opponent: Player) -> list[dict[str, Any]]:
    """A dispute's claims as one of its players reads them: theirs first, each with their
    own games first ("You: 2-0 · Ivo Ng: 1-2")."""
    theirs_first = report.reporter_id == opponent.pk
    claims = [(report.claim, theirs_first)]
    if report.counter_claim is not None:
        claims.append((report.counter_claim, not theirs_first))
    out = []
    for claim, by_opponent in claims:
        mine, theirs = own_side(claim[:2], me)
        out.append(
            {
                "who": opponent.name if by_opponent else _("You"),
                "own": not by_opponent,
                "mine": mine,
                "theirs": theirs,
                "draws": claim[2],
                "score": score_text([mine, theirs], claim[2]),
                "words": outcome_words(mine, theirs, claim[2]),
            }
        )
    return sorted(out, key=lambda c: not c["own"])


def _seats_of(player: Player, round_: Round) -> list[Seat]:
    """Every seat of the player's matches in the round, seat order, with players, match,
    round and report (one query: the panel is read after every report a phone sends)."""
    return list(
        Seat.objects.filter(round=round_, match__seats__player=player)
        .select_related("player", "match__round", "match__report")
        .order_by("match_id", "position")
    )


def player_panel(player: Player) -> dict[str, Any]:
    """What a player's report panel shows: their match in the round being played, who
    reported what, and what they can do now (`mode`).

    Modes: "none" (nothing to report: `reason` says why), "form" (report), "waiting"
    (they reported; the opponent has not answered), "confirm" (the opponent reported:
    confirm or dispute), "disputed", "done" (the result is in).
    """
    t = player.tournament
    ctx: dict[str, Any] = {"tournament": t, "player": player, "mode": "none", "reason": ""}
    round_ = current_round(t) if t.status != "finished" else None
    if round_ is None:
        ctx["reason"] = (
            _("The event is finished.") if t.status == "finished" else _("No round is paired yet.")
        )
        return ctx
    ctx["round_label"] = round_label(round_)  # data: the template says it
    seats = _seats_of(player, round_)
    if not seats:
        if round_.playoff:
            ctx["reason"] = _("You are not paired in %(round)s.") % {
                "round": _in_sentence(ctx["round_label"])
            }
        else:
            ctx["reason"] = _("You are not paired in round %(number)s.") % {"number": round_.number}
        return ctx
    match = seats[0].match
    seats = [s for s in seats if s.match_id == match.pk]  # a league round: their first table
    for seat in seats:
        seat.match = match
    if match.kind == MatchKind.BYE:
        if round_.playoff:
            ctx["reason"] = _("You have a bye in %(round)s: nothing to report.") % {
                "round": _in_sentence(ctx["round_label"])
            }
        else:
            ctx["reason"] = _("You have a bye in round %(number)s: nothing to report.") % {
                "number": round_.number
            }
        return ctx
    if match.kind not in (MatchKind.PLAYED, MatchKind.DOUBLE_LOSS):
        ctx["reason"] = _("This match has no result to report.")
        return ctx
    match.seat_list = seats  # type: ignore[attr-defined]
    me = next(k for k, s in enumerate(seats) if s.player_id == player.pk)
    opponent = seats[1 - me].player
    report: Report | None = getattr(match, "report", None)
    need = t.best_of // 2 + 1
    shown = display_names(t)  # namesakes told apart
    ctx.update(
        match=match,
        table=match.table,
        opponent=opponent,
        opponent_name=shown.get(opponent.external_id, opponent.name),
        stamp=stamp(match, seats, report),
        win_choices=list(range(need + 1)),
        draw_choices=list(range(t.best_of + 1)),
        mine=None,
        theirs=None,
        draws=0,
    )
    if report is not None:
        ctx["report"] = report
        ctx["reported_by_me"] = report.reporter_id == player.pk
        ctx["reporter_name"] = shown.get(
            (player if ctx["reported_by_me"] else opponent).external_id,
            player.name if ctx["reported_by_me"] else opponent.name,
        )
        mine, theirs = own_side((report.wins_a, report.wins_b), me)
        ctx.update(mine=mine, theirs=theirs, draws=report.draws)
        ctx["report_words"] = outcome_words(mine, theirs, report.draws)
    if match.reported:
        wins = [s.games_won or 0 for s in seats]
        mine, theirs = own_side(wins, me)
        ctx["mode"] = "done"
        if match.kind == MatchKind.DOUBLE_LOSS:
            ctx["result_words"] = _("a double loss")
        else:
            ctx["result_words"] = outcome_words(mine, theirs, match.draws)
        if report is not None and report.state == ReportState.CONFIRMED:
            ctx["result_by"] = _("confirmed by both players")
        else:
            ctx["result_by"] = _("entered by the organizer")
        return ctx
    if report is None or not report_open(match, report):
        ctx["mode"] = "form"  # nothing reported, or the organizer cleared the result
        ctx.update(mine=None, theirs=None, draws=0)
    elif report.state == ReportState.DISPUTED:
        ctx["mode"] = "disputed"
        ctx["claims"] = _own_claims(report, me, opponent)
        ctx["my_claim"] = next((c for c in ctx["claims"] if c["own"]), None)
        ctx["their_claim"] = next((c for c in ctx["claims"] if not c["own"]), None)
        own = ctx["my_claim"] or {"mine": None, "theirs": None, "draws": 0}
        ctx.update(mine=own["mine"], theirs=own["theirs"], draws=own["draws"])  # the form's
    elif ctx["reported_by_me"]:
        ctx["mode"] = "waiting"
    else:
        ctx["mode"] = "confirm"
    return ctx


def drop_panel(player: Player) -> dict[str, Any]:
    """What a player's drop panel shows: whether they can still drop, and after which
    round the drop takes effect."""
    t = player.tournament
    round_ = current_round(t) if t.status != "finished" else None
    number = round_.number if round_ is not None else 0
    return {
        "tournament": t,
        "player": player,
        "finished": t.status == "finished",
        "dropped": player.dropped_after_round is not None,
        "dropped_after_round": player.dropped_after_round,
        "by_player": player.dropped_by_player,
        "after_round": number,
        "when": (
            _("after round %(number)s") % {"number": number} if number else _("before round 1")
        ),
        "cut": cut_drop(t, player),  # what a drop during the top cut concedes
    }


# --- The organizer's view ---------------------------------------------------------------


def open_claims(report: Report | None, seats: Sequence[Seat]) -> list[Claim]:
    """The claims the organizer settles from: an open report's (a disputed one's two);
    none once the result is in."""
    if report is None or not report_open(report.match, report) or len(seats) != 2:
        return []
    return report_claims(report, seats)


def _reports(round_: Round) -> list[Report]:
    reports = list(
        Report.objects.filter(match__round=round_)
        .select_related("match", "reporter", "answered_by")
        .order_by("match__table", "match_id")
    )
    seats: dict[int, list[Seat]] = {}
    for seat in (
        Seat.objects.filter(match__in=[r.match_id for r in reports])
        .select_related("player")
        .order_by("match_id", "position")
    ):
        seats.setdefault(seat.match_id, []).append(seat)
    for r in reports:
        r.match.seat_list = seats.get(r.match_id, [])  # type: ignore[attr-defined]
    return reports


def _note(r: Report, shown: Mapping[str, str] | None = None) -> str:
    """ "Ana reported 2-1, Ben disputed", in the request's language."""
    shown = shown or {}
    facts = {
        "reporter": shown.get(r.reporter.external_id, r.reporter.name),
        "score": report_score(r),
        "answerer": (
            shown.get(r.answered_by.external_id, r.answered_by.name) if r.answered_by else ""
        ),
    }
    if r.state == ReportState.DISPUTED:
        if r.answered_by:
            return _("%(reporter)s reported %(score)s, %(answerer)s disputed") % facts
        return _("%(reporter)s reported %(score)s, the opponent disputed") % facts
    if r.state == ReportState.CONFIRMED:
        if r.answered_by:
            return _("%(reporter)s reported %(score)s, confirmed by %(answerer)s") % facts
        return _("%(reporter)s reported %(score)s, confirmed by the opponent") % facts
    if r.state == ReportState.OVERRIDDEN:
        return _("%(reporter)s reported %(score)s; the organizer's entry stands") % facts
    return _("%(reporter)s reported %(score)s, not yet confirmed") % facts


def _flagged(r: Report, now: Any) -> bool:
    if r.match.reported:
        return False
    if r.state == ReportState.DISPUTED:
        return True
    waited = now - r.updated_at
    return r.state == ReportState.REPORTED and waited > timedelta(minutes=ONE_SIDED_MINUTES)


def to_check(round_: Round) -> list[dict[str, Any]]:
    """The round's matches the organizer should look at, table order: a disputed report,
    or one unanswered for more than ONE_SIDED_MINUTES; each with its report's text."""
    now = timezone.now()
    out = []
    shown = display_names(round_.tournament)  # namesakes told apart
    for r in _reports(round_):
        if _flagged(r, now):
            out.append(
                {
                    "match": r.match,
                    "pk": r.match_id,
                    "table": r.match.table,
                    "names": f" {_('vs')} ".join(
                        shown.get(s.player.external_id, s.player.name)
                        for s in r.match.seat_list  # type: ignore[attr-defined]
                    ),
                    "state": r.state,
                    "note": _note(r, shown),
                    "claims": open_claims(r, r.match.seat_list),  # type: ignore[attr-defined]
                    "since": r.updated_at,
                }
            )
    return out


def to_check_match_ids(round_: Round) -> set[int]:
    """Pks of the matches `to_check` lists (the round screen's "to check" filter)."""
    return {row["pk"] for row in to_check(round_)}


def report_notes(round_: Round) -> dict[int, str]:
    """Every report of the round as a line, by match pk: "Ana reported 2-1, Ben disputed"."""
    return {r.match_id: _note(r) for r in _reports(round_)}


def organizer_panel(round_: Round | None) -> dict[str, Any]:
    """The organizer's reports panel (manage/_reports.html): the round's flagged matches,
    and how many reports are still waiting for their opponent."""
    if round_ is None:
        return {"round": None, "rows": [], "waiting": 0, "minutes": ONE_SIDED_MINUTES}
    rows = to_check(round_)
    waiting = Report.objects.filter(
        match__round=round_, state=ReportState.REPORTED, match__reported=False
    ).count()
    return {
        "round": round_,
        "round_label": round_label(round_),
        "rows": rows,
        "waiting": waiting,
        "minutes": ONE_SIDED_MINUTES,
    }


# --- The player's home: the top of their private page ----------------------------------

# A top-cut round by its matches, as a sentence names it ("eliminated in the quarterfinal").
CUT_ROUND_WORDS = {
    4: pgettext_lazy("eliminated in the ...", "quarterfinal"),
    2: pgettext_lazy("eliminated in the ...", "semifinal"),
    1: pgettext_lazy("eliminated in the ...", "final"),
}


def cut_places(matches: int) -> str:
    """The places a loss in a top-cut round of `matches` matches gives: "5th-8th", "2nd"."""
    if matches <= 1:
        return place_words(2)
    return f"{place_words(matches + 1)}-{place_words(2 * matches)}"


def _elimination(view: EventView, history: list[dict[str, Any]]) -> dict[str, str] | None:
    """The top-cut round the player lost, if they lost one: {"round", "places"}."""
    for h in history:
        games = h["games"]
        if not h["round"].playoff or games is None or len(games) != 2:
            continue
        mine = games[h["mine"]] or 0
        theirs = games[1 - h["mine"]] or 0
        if mine < theirs:
            round_id = h["round_id"]
            matches = sum(1 for s in view.seating.seats_of.values() if s[0].round_id == round_id)
            return {
                "round": str(
                    CUT_ROUND_WORDS.get(matches)
                    or pgettext_lazy("eliminated in the ...", "round of %(players)s")
                    % {"players": 2 * matches}
                ),
                "places": cut_places(matches),
            }
    return None


def player_home(player: Player) -> dict[str, Any]:
    """What the top of a player's private page shows (its first screen on a phone): the
    round, their table and opponent, their record, points and rank; in the top cut the
    round they went out in, or "Champion"; once the event is over their final place.
    `home` is None for an entry not accepted (not in the event: no table, no standing).

    Read from the event's view (tournaments.pages.event) through their public page's read
    model, so that it shows nothing `pages.public.player_depends` does not digest: the
    private page's live sections follow that page's event stream, which tells them when
    what they show moved."""
    if player.entry != Entry.ACCEPTED:
        return {"home": None, "outlook": None}
    t = player.tournament
    view = event_view(t)
    shown = public.player(t, player)
    standing: StoredStanding | None = shown["standing"]
    history = shown["history"]
    place = next((p["place"] for p in view.placings if p["id"] == player.external_id), None)
    rank = standing.rank if standing is not None else None
    in_cut = any(h["round"].playoff for h in history)
    cut_running = t.status in (Status.TOP_CUT, Status.FINISHED) and t.top_cut > 0
    finished = t.status == Status.FINISHED
    home = {
        "card": shown["card"],
        "standing": standing,
        # No rank before their first result: before round 1's, everyone's is a tie.
        # (`played` is in the digest the live sections follow; the table's round is not.)
        "ranked": standing is not None and standing.played > 0,
        "count": len(view.table.rows),
        "champion": place == 1,
        "eliminated": _elimination(view, history) if in_cut and place != 1 else None,
        "missed_cut": cut_running and not in_cut,
        "swiss_only": cut_running and in_cut,  # their record is the Swiss rounds'
        "finished": finished,
        # The bracket's place for the top cut; past it, places are the Swiss ranks.
        "final_place": place_words(place) if place else place_words(rank) if rank else "",
        "dropped": player.dropped_after_round,
        "public_url": reverse("player", kwargs={"slug": t.slug, "pid": player.external_id}),
        "poll": POLL_SECONDS,
    }
    return {"home": home, "outlook": shown["outlook"]}
