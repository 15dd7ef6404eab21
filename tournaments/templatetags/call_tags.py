"""The call panel where the private page includes it: it reads its own data, so the
private page's view passes only the player (and its live refetch needs nothing more)."""

from __future__ import annotations

from typing import Any

from django import template

from tournaments.models import Player
from tournaments.pages import calls as pages

register = template.Library()


@register.simple_tag
def player_call(player: Player) -> dict[str, Any]:
    """What the player's call panel shows (pages.calls.player_call)."""
    return pages.player_call(player)
