"""The notifications' opt-in where a page includes it: it reads its own data, so the
private page's and the judges' screen's views pass nothing more (pages.push.offer)."""

from __future__ import annotations

from typing import Any

from django import template

from tournaments.models import Player, Tournament
from tournaments.pages.push import offer

register = template.Library()


@register.simple_tag(takes_context=True)
def push_offer(
    context: template.Context,
    player: Player | None = None,
    token: str = "",
    tournament: Tournament | None = None,
) -> dict[str, Any]:
    return offer(context["request"], player=player, token=token, tournament=tournament)["push"]
