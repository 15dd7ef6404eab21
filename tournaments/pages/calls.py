"""Judge calls (issue 27), read for screens: the judges' floor screen and the call panel
on a player's private page. Plain data out; what services.calls and these screens both
decide by (which states are open, where a player sits now, what a call's state is
called on a player's phone) is defined here once."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from tournaments.domain import current_round, round_label
from tournaments.models import (
    CallState,
    Entry,
    JudgeCall,
    MatchKind,
    Player,
    Round,
    Seat,
    Status,
    Tournament,
)
from tournaments.pages.event import display_names
from tournaments.permissions import is_head_judge

OPEN_STATES = (CallState.OPEN, CallState.CLAIMED, CallState.HEAD)
# Matches at a table where a judge may be called: a played match (or a league game),
# not a bye or a loss with no opponent, which have no table to go to.
AT_A_TABLE = (MatchKind.PLAYED, MatchKind.GAME, MatchKind.DOUBLE_LOSS)
RECENT = 10  # resolved calls the judges' screen lists
# A resolved call stays on the player's page for this long ("Resolved by ..."), then the
# page shows the button again only.
RESOLVED_SHOWN = timedelta(minutes=5)


def table_now(t: Tournament, player: Player) -> tuple[Round, int] | None:
    """The round being played and the player's table in it, or None when they have no
    table to call a judge to (no round, a bye, no seat, a finished event)."""
    if t.status in (Status.FINISHED, Status.REGISTRATION):
        return None
    round_ = current_round(t)
    if round_ is None:
        return None
    seat = Seat.objects.filter(round=round_, player=player).select_related("match").first()
    if seat is None or seat.match.table is None or seat.match.kind not in AT_A_TABLE:
        return None
    return round_, seat.match.table


def call_words(call: JudgeCall) -> str:
    """What a player's page says of a call, in the request's language."""
    table = {"table": call.table}
    if call.state == CallState.OPEN:
        if call.table is None:
            return _("Waiting for a judge (your table)")
        return _("Waiting for a judge (table %(table)s)") % table
    if call.state == CallState.RESOLVED:
        if call.judge is None:
            return _("Resolved")
        return _("Resolved by %(judge)s") % {"judge": call.judge.get_username()}
    if call.judge is not None:
        return _("A judge is on the way: %(judge)s") % {"judge": call.judge.get_username()}
    if call.table is None:
        return _("Handed to the head judge: waiting for them (your table)")
    return _("Handed to the head judge: waiting for them (table %(table)s)") % table


def call_state_words(call: JudgeCall) -> str:
    """call_words as it reads inside a sentence ("A judge is called for your table
    already (by you): waiting for a judge (table 4)."): in English all lower case, the
    judge's name too, as it always read; each its own message, so that a language that
    keeps its capitals (German nouns) writes them."""
    table = {"table": call.table}
    judge = {"judge": call.judge.get_username().lower() if call.judge is not None else ""}
    if call.state == CallState.OPEN:
        if call.table is None:
            return _("waiting for a judge (your table)")
        return _("waiting for a judge (table %(table)s)") % table
    if call.state == CallState.RESOLVED:
        if call.judge is None:
            return _("resolved")
        return _("resolved by %(judge)s") % judge
    if call.judge is not None:
        return _("a judge is on the way: %(judge)s") % judge
    if call.table is None:
        return _("handed to the head judge: waiting for them (your table)")
    return _("handed to the head judge: waiting for them (table %(table)s)") % table


def state_label(state: str) -> str:
    """A call's state as CallState names it ("Handed to the head judge"), translated."""
    return _(CallState(state).label) if state in CallState.values else str(state)


def waited(since: datetime, now: datetime) -> str:
    """ "just now", "4 min", "1 h 12 min": how long a call has waited."""
    minutes = max(0, int((now - since).total_seconds() // 60))
    if minutes < 1:
        return _("just now")
    if minutes < 60:
        return _("%(minutes)s min") % {"minutes": minutes}
    return _("%(hours)s h %(minutes)s min") % {"hours": minutes // 60, "minutes": minutes % 60}


def player_call(player: Player) -> dict[str, Any]:
    """The call panel of a player's private page: their table's open call (theirs or
    their opponent's), else the button when they have a table now; a call resolved in
    the last few minutes says so."""
    t = player.tournament
    out: dict[str, Any] = {"call": None, "can_call": False, "table": None, "resolved": None}
    if player.entry != Entry.ACCEPTED or player.dropped:
        return out
    now = table_now(t, player)
    if now is None:
        return out
    round_, table = now
    out["table"] = table
    calls = list(
        JudgeCall.objects.filter(tournament=t, round_number=round_.number, table=table)
        .select_related("judge", "player")
        .order_by("-created_at", "-id")[:1]
    )
    last = calls[0] if calls else None
    if last is not None and last.state in OPEN_STATES:
        out["call"] = last
        out["words"] = call_words(last)
        out["by_opponent"] = last.player_id is not None and last.player_id != player.pk
        return out
    out["can_call"] = True
    moment = timezone.now()
    if last is not None and last.resolved_at and moment - last.resolved_at < RESOLVED_SHOWN:
        out["resolved"] = last
        out["words"] = call_words(last)
    return out


def _seated(t: Tournament, calls: Iterable[JudgeCall]) -> dict[tuple[int, int], list[str]]:
    """The names of the players at each call's table in its round (one query)."""
    keys = {(c.round_number, c.table) for c in calls if c.table is not None}
    if not keys:
        return {}
    shown = display_names(t)
    out: dict[tuple[int, int], list[str]] = {}
    for number, table, name, ext in (
        Seat.objects.filter(
            round__tournament=t,
            round__number__in={n for n, _table in keys},
            match__table__in={table for _number, table in keys},
        )
        .order_by("match_id", "position")
        .values_list("round__number", "match__table", "player__name", "player__external_id")
    ):
        if (number, table) in keys:
            out.setdefault((number, table), []).append(shown.get(ext, name))
    return out


def _row(
    call: JudgeCall, seated: dict[tuple[int, int], list[str]], user: Any, head: bool, now: datetime
) -> dict[str, Any]:
    judge = call.judge
    handed = call.state == CallState.HEAD
    open_ = call.state in OPEN_STATES
    mine = judge is not None and judge.pk == user.pk
    return {
        "call": call,
        "id": call.pk,
        "table": call.table,
        "round": call.round_number,
        "players": seated.get((call.round_number, call.table), []),
        "caller": call.player.name if call.player is not None else "",
        "note": call.note,
        "state": call.state,
        "handed": handed,
        "judge": judge.get_username() if judge is not None else "",
        "mine": mine,
        "since": call.created_at,
        "waited": waited(call.created_at, now),
        "can_claim": open_ and judge is None and (head or not handed),
        "can_release": open_ and judge is not None and (mine or head),
        "can_hand": open_ and not handed,
        "can_resolve": open_ and (head or not handed),
    }


def floor(t: Tournament, user: Any) -> dict[str, Any]:
    """The judges' screen: open calls oldest first (on the head judge's screen, those
    handed up first), each with its table, players, note, waiting time and what this
    judge may do; then the last resolved calls."""
    head = is_head_judge(user, t)
    open_calls = list(
        JudgeCall.objects.filter(tournament=t, state__in=OPEN_STATES)
        .select_related("judge", "player")
        .order_by("created_at", "id")
    )
    if head:  # sorted() is stable: oldest first within each group
        open_calls = sorted(open_calls, key=lambda c: c.state != CallState.HEAD)
    resolved = list(
        JudgeCall.objects.filter(tournament=t, state=CallState.RESOLVED)
        .select_related("judge", "player")
        .order_by("-resolved_at", "-id")[:RECENT]
    )
    seated = _seated(t, [*open_calls, *resolved])
    now = timezone.now()
    rows = [_row(c, seated, user, head, now) for c in open_calls]
    round_ = current_round(t) if t.status not in (Status.FINISHED, Status.REGISTRATION) else None
    return {
        "calls": rows,
        "waiting": sum(1 for r in rows if not r["judge"]),
        "resolved": [_row(c, seated, user, head, now) for c in resolved],
        "head": head,
        "round": round_,
        "round_label": round_label(round_),
        # The open calls' ids: the screen's script tells a new one from one it showed.
        "ids": " ".join(str(r["id"]) for r in rows),
        "finished": t.status == Status.FINISHED,
        # The words `waited` uses, for the screen's script to count on in the language.
        "wait_words": {
            "now": _("just now"),
            "minutes": _("%(minutes)s min"),
            "hours": _("%(hours)s h %(minutes)s min"),
        },
    }
