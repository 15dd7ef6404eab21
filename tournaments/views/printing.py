"""The organizer's print views: pairings for the wall, result slips, standings, pod seating
and the registration poster.

GET-only screens for managers, one each. They are plain pages made for paper (print.css:
A4 or Letter, no navigation); an HTMX request gets the partial the page includes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from tournaments.models import Round, System, Tournament
from tournaments.pages import printing as pages
from tournaments.permissions import manager_required
from tournaments.venue import phone_url

T = "tournaments/print/"
# The index's links; all but the ROUNDLESS ones carry the chosen ?round=.
VIEWS = {
    "by_name": "print_pairings_by_name",
    "by_table": "print_pairings_by_table",
    "slips": "print_slips",
    "standings": "print_standings",
    "pod_seating": "print_pod_seating",
    "poster": "print_poster",
}
ROUNDLESS = {"standings", "pod_seating", "poster"}


def _query(round_: Round | None, paper: str, *, with_round: bool = True) -> str:
    params = {}
    if with_round and round_ is not None:
        params["round"] = str(round_.number)
    if paper != pages.DEFAULT_PAPER:
        params["paper"] = paper
    return f"?{urlencode(params)}" if params else ""


def _frame(request: HttpRequest, t: Tournament, round_: Round | None, paper: str) -> dict[str, Any]:
    """What every print page shows around its sheet: the way back and the paper choice."""
    here = request.GET.copy()
    papers = []
    for key, label in pages.PAPERS.items():
        here["paper"] = key
        papers.append((key, label, f"?{here.urlencode()}"))
    return {
        "tournament": t,
        "paper": paper,
        "paper_label": pages.PAPERS[paper],
        "papers": papers,
        "index_url": reverse("print_index", args=[t.slug]) + _query(round_, paper),
    }


def _respond(
    request: HttpRequest, t: Tournament, name: str, context: dict[str, Any], status: int = 200
) -> HttpResponse:
    template = T + (f"_{name}.html" if request.htmx else f"{name}.html")
    response = render(request, template, context, status=status)
    patch_vary_headers(response, ["HX-Request"])
    return response


def _missing(request: HttpRequest, t: Tournament, paper: str, message: str) -> HttpResponse:
    context = {**_frame(request, t, None, paper), "message": message}
    return _respond(request, t, "missing", context, status=404)


def _print_round(
    request: HttpRequest,
    t: Tournament,
    name: str,
    build: Callable[[Tournament, Round], dict[str, Any]],
) -> HttpResponse:
    """A sheet for one round (?round=N, else the current one), built by `build`."""
    paper = pages.paper_of(request.GET.get("paper"))
    number = request.GET.get("round", "")
    round_ = pages.print_round(t, number)
    if number and round_ is None:
        return _missing(
            request, t, paper,
            _("There is no round %(number)s in this event: choose one from the print views.")
            % {"number": repr(number)},
        )  # fmt: skip
    if round_ is None:
        return _missing(request, t, paper, _("No round is paired yet: nothing to print for it."))
    context = {**build(t, round_), **_frame(request, t, round_, paper)}
    return _respond(request, t, name, context)


@require_GET
@manager_required
def pairings_by_name(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    return _print_round(request, tournament, "by_name", pages.pairings_by_name)


@require_GET
@manager_required
def pairings_by_table(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    return _print_round(request, tournament, "by_table", pages.pairings_by_table)


@require_GET
@manager_required
def slips(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    return _print_round(request, tournament, "slips", pages.slips)


@require_GET
@manager_required
def index(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The print views for the current round (or ?round=N), linked."""
    paper = pages.paper_of(request.GET.get("paper"))
    number = request.GET.get("round", "")
    round_ = pages.print_round(tournament, number)
    if number and round_ is None:
        message = _("There is no round %(number)s in this event.") % {"number": repr(number)}
        return _missing(request, tournament, paper, message)
    links = {
        key: reverse(url, args=[tournament.slug])
        + _query(round_, paper, with_round=key not in ROUNDLESS)
        for key, url in VIEWS.items()
    }
    context = {
        **pages.index(tournament, round_),
        **_frame(request, tournament, round_, paper),
        "links": links,
    }
    return _respond(request, tournament, "index", context)


@require_GET
@manager_required
def standings(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    paper = pages.paper_of(request.GET.get("paper"))
    context = {**pages.standings(tournament), **_frame(request, tournament, None, paper)}
    return _respond(request, tournament, "standings", context)


@require_GET
@manager_required
def pod_seating(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """A draft pod's seats; any other event's round-1 seating is its round-1 pairings."""
    paper = pages.paper_of(request.GET.get("paper"))
    if tournament.system != System.POD:
        return _missing(
            request, tournament, paper,
            _(
                "Draft pod seating is for a round-robin pod: this event's round-1 seating is "
                "its round-1 pairings (by name or by table)."
            ),
        )  # fmt: skip
    context = pages.pod_seating(tournament)
    if not context["seats"]:
        return _missing(
            request, tournament, paper,
            _("The pod is not paired yet: its seats are set when it is paired."),
        )  # fmt: skip
    context = {**context, **_frame(request, tournament, None, paper)}
    return _respond(request, tournament, "pod_seating", context)


@require_GET
@manager_required
def poster(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The registration poster: the address a phone on the venue's network opens (the
    same as the QR code's, tournaments.views.registration.register_qr)."""
    paper = pages.paper_of(request.GET.get("paper"))
    address = phone_url(request, reverse("registration_form", args=[tournament.slug]))
    context = {**pages.poster(tournament, address), **_frame(request, tournament, None, paper)}
    return _respond(request, tournament, "poster", context)
