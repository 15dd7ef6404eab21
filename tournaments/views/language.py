"""The organizer sets the event's default language (issue 29), from the "For the
players" panel of the event screen: a plain POST redirects back, HTMX gets the panel."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from tournaments.models import Tournament
from tournaments.permissions import manager_required
from tournaments.services.language import set_event_language
from tournaments.services.writing import ServiceError
from tournaments.views.organizer import back_to_event, render_board

SHARE = "tournaments/manage/_share.html"


@require_POST
@manager_required
def event_language(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    typed = request.POST.get("language", "")[:20]
    try:
        t = set_event_language(tournament=tournament, language=typed, by=request.user)
    except ServiceError as exc:
        if request.htmx:
            context = {"tournament": tournament, "language_error": str(exc)}
            return render(request, SHARE, context, status=422)
        return render_board(request, tournament, status=422, board_error=str(exc))
    done = _("The event's language is saved.")
    if request.htmx:
        return render(request, SHARE, {"tournament": t, "language_done": done})
    messages.success(request, done)
    return back_to_event(t, "#share-panel")
