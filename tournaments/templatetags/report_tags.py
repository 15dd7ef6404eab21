"""The report and drop panels where another page includes them (the private page, the
round screen): each reads its own data, so the including view passes only what it has."""

from __future__ import annotations

from typing import Any

from django import template

from tournaments.models import Player, Round, Tournament
from tournaments.pages import reports as pages
from tournaments.pages.common import current_round

register = template.Library()


@register.simple_tag
def report_panel(player: Player) -> dict[str, Any]:
    """What the player's report panel shows (pages.reports.player_panel)."""
    return pages.player_panel(player)


@register.simple_tag
def drop_panel(player: Player) -> dict[str, Any]:
    return pages.drop_panel(player)


@register.simple_tag
def organizer_reports(tournament: Tournament, round_: Round | None = None) -> dict[str, Any]:
    """The organizer's reports to check for `round_` (default: the round being played)."""
    return pages.organizer_panel(round_ if round_ is not None else current_round(tournament))
