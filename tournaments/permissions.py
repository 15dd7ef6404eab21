"""Who may manage a tournament: its owner, its staff, or a superuser."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

from tournaments.models import Tournament


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
