""" "What do I need?" screens (issue 15): the organizer's top tables, and a player's card
while its figures are being computed.

The figures are computed in the background (scoring.outlooks) and change without the
tournament's version, which every cached fragment is keyed by: so a card that says
"computing" asks for itself again (`card`) until the figures are in, instead of
waiting for the next write to refresh the player's page.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from scoring import outlooks
from tournaments.models import Entry, Player, Tournament
from tournaments.pages.common import current_round
from tournaments.permissions import manager_required

T = "tournaments/manage/"


@manager_required
@require_GET
def top_tables(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The current round's tables that can change the top cut, those where a draw puts
    both players in first."""
    context = {"tournament": tournament, **outlooks.top_tables(tournament)}
    template = "_top_tables.html" if request.htmx else "top_tables.html"
    return render(request, T + template, context)


@require_GET
def card(request: HttpRequest, slug: str, pid: str) -> HttpResponse:
    """One player's "What do I need?" card (HTMX); without HTMX, their page."""
    t = get_object_or_404(Tournament, slug=slug)
    if "\x00" in pid:  # PostgreSQL refuses NUL in text: no player can have it
        raise Http404(_("No such player"))
    me = get_object_or_404(Player, tournament=t, external_id=pid, entry=Entry.ACCEPTED)
    if not request.htmx:
        return redirect("player", slug=t.slug, pid=me.external_id)
    context = {
        "tournament": t,
        "outlook": outlooks.player_card(t, current_round(t), me.external_id),
    }
    response = render(request, "tournaments/_outlook.html", context)
    response["Cache-Control"] = "no-cache"
    return response
