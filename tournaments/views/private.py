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

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import parse_etags, quote_etag
from django.views.decorators.http import require_GET, require_POST

from tournaments import clientaddress, live, ratelimit
from tournaments.models import Entry, Player
from tournaments.pages import registration as pages
from tournaments.pages import reports
from tournaments.permissions import private_link
from tournaments.services import registration as services
from tournaments.services.writing import ServiceError
from tournaments.venue import phone_url
from tournaments.views.registration import qr_svg

P = "tournaments/private/"


def _home(player: Player, token: str) -> dict[str, Any]:
    """What the live sections show (_status.html, _needs.html)."""
    t = player.tournament
    return {
        "player": player,
        "tournament": t,
        # Round, table, opponent, record, points, rank, and "What do I need?" (issue 15),
        # from the event's view as the player's public page reads them.
        **reports.player_home(player),
        # The version their public page last changed at, for the live sections' stream
        # (?at=): told at once if it moved before the stream opened (tournaments.live).
        "live_at": live.subject_version(t, "player", player.external_id),
        "token": token,
    }


def _context(request: HttpRequest, player: Player, token: str, **extra: Any) -> dict[str, Any]:
    return {
        **pages.private_page(player),
        **_home(player, token),
        "private_url": phone_url(request, reverse("private_page", args=[token])),
        # The check-in's own: the page's report and drop panels read `error` as theirs,
        # and showed a refused check-in's message three times.
        "check_in_error": None,
        **extra,
    }


# The live sections of the page (by id: htmx names the one asking in HX-Target), each
# refetched alone, so that a refresh never wipes a report form being filled in.
LIVE_PARTS = {
    "private-status": P + "_status.html",
    "private-outlook": P + "_needs.html",
    "private-call": P + "_call.html",  # judge calls (issue 27)
    # "Your opponent reported": the hub tells the table's players when its report moves.
    "private-report-notice": P + "_report_notice.html",
}


def _live_part(request: HttpRequest, player: Player, token: str, template: str) -> HttpResponse:
    """A live section, with an ETag of what it shows. Browsers keep no copy of a private
    page (no-store) and so never send it back: the stream decides when a section is asked
    for again (only when what the player's public page shows moved, which covers all a
    section shows); a client that keeps copies gets a 304 for an unchanged one."""
    html = render_to_string(template, _home(player, token), request=request)
    etag = quote_etag(f"{live.content_tag(html)}-private")
    wanted = parse_etags(request.headers.get("If-None-Match", ""))
    if etag in wanted or f"W/{etag}" in wanted:
        response: HttpResponse = HttpResponseNotModified()
    else:
        response = HttpResponse(html)
    response["ETag"] = etag
    return response


@private_link
@require_GET
def page(request: HttpRequest, player: Player, token: str) -> HttpResponse:
    part = LIVE_PARTS.get(request.headers.get("HX-Target", "")) if request.htmx else None
    if part is not None and player.entry == Entry.ACCEPTED:
        return _live_part(request, player, token, part)
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
            players=Player.objects.filter(tournament_id=player.tournament_id).count,
        ),
        address=clientaddress.of_request(request),
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
