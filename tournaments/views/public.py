"""Function-based views: one screen or one action each. A view returns the full page, or
for an HTMX request the `_partial` the page itself includes."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from scoring.models import Standing, StandingsState
from tournaments.models import Tournament

TIEBREAK_LABELS = {
    # shared/spec/interchange.md: tiebreaker keys by system
    "omw": "OMW%",
    "gw": "GW%",
    "ogw": "OGW%",
    "owp": "OWP",
    "wr": "WR",
    "oowp": "OOWP",
    "wrr": "WRR",
    "places": "Places",
    "vs_average": "Vs avg",
    "raw_total": "Raw",
}
PERCENT_KEYS = {"omw", "gw", "ogw", "owp", "oowp"}


def home(request: HttpRequest) -> HttpResponse:
    tournaments = Tournament.objects.only("name", "slug", "system", "status", "created_at")[:100]
    return render(request, "tournaments/home.html", {"tournaments": tournaments})


def event_home(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    return render(request, "tournaments/event_home.html", {"tournament": tournament})


def standings_context(tournament: Tournament) -> dict[str, object]:
    rows = list(
        Standing.objects.filter(tournament=tournament)
        .order_by("position")
        .select_related("player")
        .only(
            "rank",
            "points",
            "wins",
            "losses",
            "draws",
            "played",
            "tiebreakers",
            "player__name",
            "player__external_id",
            "player__dropped_after_round",
        )
    )
    keys = list(rows[0].tiebreakers) if rows else []
    columns = [(k, TIEBREAK_LABELS.get(k, k), k in PERCENT_KEYS) for k in keys]
    for row in rows:
        row.cells = [row.tiebreakers.get(k) for k in keys]  # type: ignore[attr-defined]
    state = StandingsState.objects.filter(tournament=tournament).first()
    return {
        "tournament": tournament,
        "rows": rows,
        "columns": columns,
        "after_round": state.after_round if state else None,
    }


def standings(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    template = "scoring/_standings.html" if request.htmx else "scoring/standings.html"
    return render(request, template, standings_context(tournament))
