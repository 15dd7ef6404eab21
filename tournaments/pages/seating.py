"""The organizer's seating screen (fixed seats, pairing restrictions, the event's Rules
Enforcement Level) and the lookup of a player typed by name or id. The audit log's
sentences for its entries are in pages.seating_audit."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tournaments.models import (
    Enforcement,
    Entry,
    FixedSeat,
    PairingRestriction,
    Player,
    Tournament,
)
from tournaments.pages.event import display_names

CANDIDATES_SHOWN = 5


class PlayerNotFound(ValueError):
    """The typed text names no player of the event, or several: the message says which."""


def find_player(t: Tournament, typed: str) -> Player:
    """The accepted player `typed` names: their id, or their name as the pages show it
    (namesakes told apart: "Ana Souza (2)"), or their name, in any case; or the one
    player whose name contains it."""
    text = " ".join(typed.split())
    if not text:
        raise PlayerNotFound(_("Give a player's name or id."))
    players = t.players.filter(entry=Entry.ACCEPTED)
    by_id = players.filter(external_id=text).first()
    if by_id is not None:
        return by_id
    shown = display_names(t)
    key = text.casefold()
    exact = [ext for ext, name in shown.items() if name.casefold() == key]
    if not exact:
        exact = list(players.filter(name__iexact=text).values_list("external_id", flat=True))
    found = exact or [ext for ext, name in shown.items() if key in name.casefold()]
    found = list(players.filter(external_id__in=found).values_list("external_id", flat=True))
    if len(found) == 1:
        return players.get(external_id=found[0])
    if not found:
        raise PlayerNotFound(
            _("No player called “%(typed)s” in this event.") % {"typed": text[:100]}
        )
    listed = ", ".join(
        _("%(name)s (id %(id)s)") % {"name": shown.get(e, e), "id": e}
        for e in sorted(found)[:CANDIDATES_SHOWN]
    )
    if len(found) > CANDIDATES_SHOWN:
        more = len(found) - CANDIDATES_SHOWN
        listed = ngettext(
            "%(names)s and %(counter)s more", "%(names)s and %(counter)s more", more
        ) % {"names": listed, "counter": more}
    raise PlayerNotFound(
        ngettext(
            "“%(typed)s” fits %(counter)s player: %(names)s. Type more of the name, or the id.",
            "“%(typed)s” fits %(counter)s players: %(names)s. Type more of the name, or the id.",
            len(found),
        )
        % {"typed": text[:100], "counter": len(found), "names": listed}
    )


def seating_screen(t: Tournament, **extra: Any) -> dict[str, Any]:
    """The screen's data: fixed seats by table, restrictions in the order made, the
    enforcement level and whether restrictions may be added (`extra`: the view's, such
    as the refusal shown instead of the restrictions' form at a competitive event)."""
    shown = display_names(t)
    fixed = [
        {
            "player": s.player,
            "name": shown.get(s.player.external_id, s.player.name),
            "table": s.table,
            "reason": s.reason,
            "dropped": s.player.dropped_after_round is not None,
        }
        for s in FixedSeat.objects.filter(tournament=t).select_related("player").order_by("table")
    ]
    restrictions = [
        {
            "pk": r.pk,
            "a": shown.get(r.player_a.external_id, r.player_a.name),
            "b": shown.get(r.player_b.external_id, r.player_b.name),
            "reason": r.reason,
        }
        for r in PairingRestriction.objects.filter(tournament=t)
        .select_related("player_a", "player_b")
        .order_by("id")
    ]
    casual = t.enforcement == Enforcement.REGULAR
    context: dict[str, Any] = {
        "tournament": t,
        "fixed": fixed,
        "restrictions": restrictions,
        "enforcement": t.enforcement,
        "enforcement_label": Enforcement(t.enforcement).label,
        "levels": Enforcement.choices,
        "casual": casual,
        "errors": {},
        "typed": {},
    }
    context.update(extra)
    return context
