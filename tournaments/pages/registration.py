"""Read model of players taking part (issue 14): the registration form, a player's
private page, and the organizer's registration screen. Plain data out; no token in it
(a raw token exists only in the request that carries it, or the answer that issues it).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tournaments.domain import (
    current_round,
    entries_counted,
    not_checked_in,
    registration_closed_reason,
    round_label,
)
from tournaments.models import Entry, Player, Seat, Status, Tournament
from tournaments.pages.event import display_names

ENTRY_TEXT = {
    Entry.ACCEPTED: gettext_lazy("Entry accepted: you are registered."),
    Entry.PENDING: gettext_lazy("Your entry waits for the organizer's approval."),
    Entry.REJECTED: gettext_lazy(
        "The organizer did not accept your entry. Ask them if this is a mistake."
    ),
}


def registration_form(t: Tournament) -> dict[str, Any]:
    """The public form: open or why not, and the places left under a cap."""
    closed = registration_closed_reason(t)
    count = entries_counted(t)
    cap = t.registration_cap
    left = None if cap is None else max(cap - count, 0)
    if closed is None and left == 0:
        closed = _("Registration is full (%(cap)s players): ask the organizer.") % {"cap": cap}
    return {
        "tournament": t,
        "closed": closed,
        "cap": cap,
        "left": left,
        "approval": t.registration_approval,
    }


def current_table(player: Player) -> dict[str, Any] | None:
    """Where the player sits in the round being played: table, kind and opponents."""
    round_ = current_round(player.tournament)
    if round_ is None:
        return None
    seat = Seat.objects.filter(round=round_, player=player).select_related("match").first()
    if seat is None:
        return {"round_label": round_label(round_), "seated": False}
    others = list(
        Seat.objects.filter(match_id=seat.match_id, absent=False)
        .exclude(player=player)
        .order_by("position")
        .values_list("player__external_id", "player__name")
    )
    shown = display_names(player.tournament)  # namesakes told apart
    return {
        "round_label": round_label(round_),
        "seated": True,
        "table": seat.match.table,
        "kind": seat.match.kind,
        "reported": seat.match.reported,
        "opponents": [shown.get(ext, name) for ext, name in others],
    }


def private_page(player: Player) -> dict[str, Any]:
    """What a player's private page shows (their link and its QR code come from the view,
    which holds the token)."""
    t = player.tournament
    paired = t.rounds.exists()
    accepted = player.entry == Entry.ACCEPTED
    return {
        "player": player,
        # The name as every page shows it ("Alex Martin (2)" beside another Alex Martin).
        "player_name": display_names(t).get(player.external_id, player.name),
        "tournament": t,
        "entry": player.entry,
        "entry_text": ENTRY_TEXT.get(player.entry, ""),
        "check_in_used": t.check_in,
        "checked_in": player.checked_in_at is not None,
        "can_check_in": (
            t.check_in
            and not paired
            and accepted
            and not player.dropped
            and player.checked_in_at is None
            and t.status != Status.FINISHED
        ),
        "check_in_closed": t.check_in and paired and player.checked_in_at is None,
        "dropped": player.dropped,
        "now": current_table(player) if accepted else None,
    }


def registration_screen(t: Tournament) -> dict[str, Any]:
    """The organizer's registration screen: settings, entries waiting, who has not
    checked in, and every player (for a new private link)."""
    players = list(t.players.order_by("id"))
    shown = display_names(t)
    for p in players:  # the screen's lists tell namesakes apart
        p.display_name = shown.get(p.external_id, p.name)  # type: ignore[attr-defined]
    by_name = sorted(players, key=lambda p: p.name.casefold())
    paired = t.rounds.exists()
    missing = not_checked_in(t) if t.check_in else []
    for p in missing:
        p.display_name = shown.get(p.external_id, p.name)  # type: ignore[attr-defined]
    pending = [p for p in players if p.entry == Entry.PENDING]
    checked_in = sum(
        1 for p in players if p.entry == Entry.ACCEPTED and p.checked_in_at is not None
    )
    return {
        "tournament": t,
        "closed": registration_closed_reason(t),
        "paired": paired,
        "counted": entries_counted(t),
        "pending": pending,
        "rejected": [p for p in players if p.entry == Entry.REJECTED],
        "not_checked_in": missing,
        "checked_in_count": checked_in,
        # Pending entries have not checked in either (only accepted players can): while
        # any waits, "everyone" would be untrue (issue 26).
        "everyone_checked_in": t.check_in and not missing and not pending and checked_in > 0,
        "can_drop_no_shows": t.check_in and not paired and bool(missing),
        "players": [p for p in by_name if p.entry != Entry.REJECTED],
    }
