"""After a correction moved the top cut's seeds: the review screen and its two choices.

One screen or one action each, managers only. Without JavaScript the choices are plain
POSTs that redirect back to the review; with HTMX they answer the review's panel
(_cut_check.html), 422 with the message when the choice is refused.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from tournaments import services
from tournaments.models import Tournament
from tournaments.pages.corrections import cut_review
from tournaments.permissions import manager_required
from tournaments.services import ServiceError

T = "tournaments/manage/"


@require_GET
@manager_required
def cut_check(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Which seeds the corrections changed, with the choice: re-seed or keep."""
    template = "_cut_check.html" if request.htmx else "cut_check.html"
    return render(request, T + template, cut_review(tournament))


def _seen(request: HttpRequest) -> str | None:
    # Only a token the review page gave out means anything; anything else is "not sent".
    seen = request.POST.get("seen", "").strip()[:32]
    return seen or None


def _decide(
    request: HttpRequest,
    t: Tournament,
    choose: Callable[..., object],
    done: str,
) -> HttpResponse:
    """Run one of the two choices (a service) and answer with the review: its panel for
    HTMX (422 with the message when refused), else a redirect back or the refused page."""
    error = None
    try:
        choose(tournament=t, seen=_seen(request), by=request.user)
    except ServiceError as exc:
        error = str(exc)
    t.refresh_from_db()
    if request.htmx:
        context = cut_review(t, cut_error=error, cut_done=None if error else done)
        return render(request, T + "_cut_check.html", context, status=422 if error else 200)
    if error:
        return render(request, T + "cut_check.html", cut_review(t, cut_error=error), status=422)
    messages.success(request, done)
    return redirect("manage_cut_check", slug=t.slug)


@require_POST
@manager_required
def reseed(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    done = gettext("The top cut is re-seeded from the current standings.")
    return _decide(request, tournament, services.reseed_top_cut, done)


@require_POST
@manager_required
def keep(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    done = gettext("The top cut stays as seeded; the public bracket says so.")
    return _decide(request, tournament, services.keep_top_cut, done)
