"""Per-user bits of the public pages' full-page chrome (never of the cached fragments)."""

from __future__ import annotations

from typing import Any

from django import template

from tournaments.models import Tournament
from tournaments.permissions import can_manage

register = template.Library()


@register.simple_tag(takes_context=True)
def may_manage(context: template.Context, tournament: Tournament) -> bool:
    """Whether the viewer may manage this event (its "Manage" link). Anonymous viewers
    are answered without a query, so their page stays the same for everyone and cheap;
    only a logged-in non-owner costs one query (is on the staff)."""
    request = context.get("request")
    user: Any = context.get("user") or getattr(request, "user", None)
    return can_manage(user, tournament)
