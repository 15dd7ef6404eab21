"""Per-user bits of the public pages' full-page chrome (never of the cached fragments)."""

from __future__ import annotations

from typing import Any

from django import template

from tournaments.models import Tournament
from tournaments.permissions import can_manage, role_of

register = template.Library()


@register.simple_tag(takes_context=True)
def may_manage(context: template.Context, tournament: Tournament) -> bool:
    """Whether the viewer may manage this event (its "Manage" link). Anonymous viewers
    are answered without a query, so their page stays the same for everyone and cheap;
    only a logged-in non-owner costs one query (is on the staff)."""
    request = context.get("request")
    user: Any = context.get("user") or getattr(request, "user", None)
    return can_manage(user, tournament)


@register.simple_tag(takes_context=True)
def team_role(context: template.Context, tournament: Tournament) -> str | None:
    """The viewer's role at this event (tournaments.permissions.role_of): the organizer's
    screens a judge also sees (rounds, matches) show a judge only what a judge may do."""
    request = context.get("request")
    user: Any = context.get("user") or getattr(request, "user", None)
    return role_of(user, tournament)
