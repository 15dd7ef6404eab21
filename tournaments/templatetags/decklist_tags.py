"""The player's decklist section where the private page includes it: it reads its own
data, so the private page's view passes nothing for it."""

from __future__ import annotations

from typing import Any

from django import template

from tournaments.models import Player
from tournaments.pages import decklists as pages

register = template.Library()


@register.simple_tag
def decklist_panel(player: Player) -> dict[str, Any]:
    """What the player's decklist section shows (pages.decklists.private_panel)."""
    return pages.private_panel(player)
