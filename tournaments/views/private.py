"""A player's private page (issue 14): /p/<token>/, their private link.

The token is the only key: no account, no password. Because it sits in the URL, every
answer here is `Cache-Control: private, no-store` (no shared or browser copy), sends the
site's origin alone as its Referer (`Referrer-Policy: strict-origin`), is rendered per
request (never through the live fragment cache, which is keyed for everyone) and is kept
out of Django's request log (a refused check-in would log its path, token and all, as a
warning; tournaments/logfilters.py masks the token in what Django logs before the view).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from scoring import outlooks
from tournaments import ratelimit
from tournaments.models import Player
from tournaments.pages import registration as pages
from tournaments.pages.common import current_round
from tournaments.permissions import private_link
from tournaments.services import registration as services
from tournaments.services.writing import ServiceError
from tournaments.venue import phone_url
from tournaments.views.registration import qr_svg

P = "tournaments/private/"


def _context(request: HttpRequest, player: Player, token: str, **extra: Any) -> dict[str, Any]:
    t = player.tournament
    return {
        **pages.private_page(player),
        # "What do I need?" (issue 15); no query for an event without a planned cut.
        "outlook": (
            outlooks.player_card(t, current_round(t), player.external_id)
            if t.top_cut and t.planned_rounds
            else None
        ),
        "token": token,
        "private_url": phone_url(request, reverse("private_page", args=[token])),
        # The check-in's own: the page's report and drop panels read `error` as theirs,
        # and showed a refused check-in's message three times.
        "check_in_error": None,
        **extra,
    }


@private_link
@require_GET
def page(request: HttpRequest, player: Player, token: str) -> HttpResponse:
    template = P + ("_card.html" if request.htmx else "page.html")
    return render(request, template, _context(request, player, token))


@private_link
@require_GET
def qr(request: HttpRequest, player: Player, token: str) -> HttpResponse:
    """The QR code of the private link itself, to keep on the phone or photograph."""
    url = phone_url(request, reverse("private_page", args=[token]))
    return HttpResponse(qr_svg(url), content_type="image/svg+xml")


@private_link
@require_POST
def check_in(request: HttpRequest, player: Player, token: str) -> HttpResponse:
    """The player checks in from their own page (before round 1)."""
    error = None
    refused = ratelimit.first_refused(
        ratelimit.check_in_limits(
            request,
            token_hash=player.token_hash,
            event_id=player.tournament_id,
            players=Player.objects.filter(tournament_id=player.tournament_id).count(),
        ),
        address=ratelimit.client_address(request),
    )
    if refused is not None:
        error, status = refused.message("check-ins"), 429
    else:
        try:
            player = services.check_in(player=player)
        except ServiceError as exc:
            error, status = str(exc), 422
    if error is None and not request.htmx:
        return redirect("private_page", token=token)
    player.refresh_from_db()
    context = _context(request, player, token, check_in_error=error)
    template = P + ("_checkin.html" if request.htmx else "page.html")
    response = render(request, template, context, status=200 if error is None else status)
    return refused.headers(response) if refused is not None else response
