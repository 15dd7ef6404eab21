"""Who may do what at a tournament.

The organizer (its owner, or a site admin) and its scorekeepers manage it: pairing,
cuts, the finish, players, everything. Judges (StaffRole.HEAD_JUDGE, FLOOR_JUDGE) run
the floor (calls, time extensions, deck checks, penalties) and enter results; they never
pair, cut or finish. The head judge, and the organizer, also take the calls handed up
and issue disqualifications."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext_lazy as _

from tournaments.locale import speaking
from tournaments.models import StaffMember, StaffRole, Tournament
from tournaments.tokens import player_for_token

ORGANIZER = "organizer"  # the owner or a site admin: not a StaffRole, never stored
MANAGERS = frozenset({ORGANIZER, StaffRole.SCOREKEEPER})
JUDGES = frozenset({StaffRole.HEAD_JUDGE, StaffRole.FLOOR_JUDGE})
# Who sees the floor and enters results: everyone on the event's team.
FLOOR = MANAGERS | JUDGES
# Who takes the calls handed up and disqualifies: the head judge, or the organizer.
HEAD = frozenset({ORGANIZER, StaffRole.HEAD_JUDGE})


def role_of(user: Any, tournament: Tournament) -> str | None:
    """ORGANIZER, a StaffRole value, or None for anyone not on the event's team."""
    if not getattr(user, "is_authenticated", False):
        return None
    if user.is_superuser or tournament.owner_id == user.pk:
        return ORGANIZER
    cache = getattr(tournament, "_roles", None)
    if cache is None:
        cache = tournament._roles = {}  # type: ignore[attr-defined]
    if user.pk not in cache:
        cache[user.pk] = (
            StaffMember.objects.filter(tournament=tournament, user_id=user.pk)
            .values_list("role", flat=True)
            .first()
        )
    return cache[user.pk]


def can_manage(user: Any, tournament: Tournament) -> bool:
    return role_of(user, tournament) in MANAGERS


def can_judge(user: Any, tournament: Tournament) -> bool:
    """On the floor: calls, extensions, deck checks, penalties, results."""
    return role_of(user, tournament) in FLOOR


def is_head_judge(user: Any, tournament: Tournament) -> bool:
    return role_of(user, tournament) in HEAD


def _requiring(
    allowed: frozenset[str], refusal: Any
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @login_required
        @wraps(view)
        def wrapped(request: HttpRequest, slug: str, *args: Any, **kwargs: Any) -> HttpResponse:
            tournament = get_object_or_404(Tournament, slug=slug)
            if role_of(request.user, tournament) not in allowed:
                raise PermissionDenied(refusal)
            # The team's screens too show times in the event's time zone, and speak its
            # language to a browser that asks for none we ship (tournaments.locale).
            with speaking(request, tournament):
                return view(request, tournament, *args, **kwargs)

        return wrapped

    return decorator


# Log in first (redirect), then the right role or 403; the view gets the tournament.
manager_required = _requiring(MANAGERS, _("You do not manage this tournament."))
judge_required = _requiring(FLOOR, _("You are not on this tournament's floor team."))
head_judge_required = _requiring(HEAD, _("Only the head judge or the organizer may do this."))


# --- players' private links (issue 14) ----------------------------------------------------

UNKNOWN_LINK = _(
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
            # The event's language and time zone (tournaments.locale).
            with speaking(request, player.tournament):
                response = view(request, player, token, *args, **kwargs)
        return private_headers(response)

    return wrapped
