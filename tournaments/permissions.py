"""Who may manage a tournament: its owner, its staff, or a superuser."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from tournaments.models import Tournament
from tournaments.tokens import player_for_token


def can_manage(user: Any, tournament: Tournament) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    if user.is_superuser or tournament.owner_id == user.pk:
        return True
    return tournament.staff.filter(pk=user.pk).exists()


def manager_required(
    view: Callable[..., HttpResponse],
) -> Callable[..., HttpResponse]:
    """Log in first (redirect), then the tournament's manager or 403; passes the tournament."""

    @login_required
    @wraps(view)
    def wrapped(request: HttpRequest, slug: str, *args: Any, **kwargs: Any) -> HttpResponse:
        tournament = get_object_or_404(Tournament, slug=slug)
        if not can_manage(request.user, tournament):
            raise PermissionDenied("You do not manage this tournament.")
        return view(request, tournament, *args, **kwargs)

    return wrapped


# --- players' private links (issue 14) ----------------------------------------------------

UNKNOWN_LINK = (
    "This private link is not valid: it was not copied whole, or the organizer has "
    "replaced it with a new one. Ask the organizer for your new link."
)


def private_headers(response: HttpResponse) -> HttpResponse:
    """What every answer whose path holds a token carries: no copy kept, a Referer of
    the site's origin only (settings.SECURE_REFERRER_POLICY), and no line in Django's
    request log (a 4xx would log its path)."""
    response["Cache-Control"] = "private, no-store"
    response["Referrer-Policy"] = "strict-origin"
    response._has_been_logged = True  # type: ignore[attr-defined]
    return response


def private_link(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Find the token's player (or answer 404 with a clear message) and set the headers
    every answer carrying a token needs. The view gets (request, player, token, ...)."""

    @wraps(view)
    def wrapped(request: HttpRequest, token: str, *args: Any, **kwargs: Any) -> HttpResponse:
        player = player_for_token(token)
        if player is None:
            response = render(
                request, "tournaments/private/unknown.html", {"message": UNKNOWN_LINK}, status=404
            )
        else:
            response = view(request, player, token, *args, **kwargs)
        return private_headers(response)

    return wrapped
