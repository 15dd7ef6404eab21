"""Public, read-only pages for players' phones and the venue's screen.

Every page reads stored rows (standings are never computed per request). Live pages
answer conditional requests: the ETag is the tournament's version, so an unchanged page
costs one indexed query and a 304; rendered fragments are cached per version.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import quote_etag

from scoring.models import Standing, StandingsState
from tournaments.models import Match, MatchKind, Player, Round, Seat, Tournament
from tournaments.services import bracket_rounds, clock_remaining, current_round, winner

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
POLL_SECONDS = 3  # issue 4: phones show a change within 5 s


View = Callable[..., HttpResponse]


def live(view: View) -> View:
    """Answer If-None-Match with 304 while the tournament's version is unchanged.

    The ETag covers the version, the variant (full page or HTMX partial) and the query
    string, so a phone polling an unchanged page costs one small query.
    """

    @functools.wraps(view)
    def wrapper(request: HttpRequest, slug: str, **kwargs: Any) -> HttpResponse:
        row = Tournament.objects.filter(slug=slug).values_list("version", "created_at").first()
        if row is None:
            raise Http404("No such tournament")
        variant = "p" if request.htmx else "f"
        user = "a" if not request.user.is_authenticated else f"u{request.user.pk}"
        version, created_at = row
        etag = quote_etag(
            f"{created_at.timestamp():.0f}.{version}-{variant}-{user}-{view.__name__}-"
            f"{request.GET.urlencode()}"
        )
        if etag in (t.strip() for t in request.headers.get("If-None-Match", "").split(",")):
            response: HttpResponse = HttpResponseNotModified()
        else:
            response = view(request, slug=slug, **kwargs)
        if response.status_code in (200, 304):
            response["ETag"] = etag
            patch_cache_control(response, no_cache=True, private=True)
            patch_vary_headers(response, ["HX-Request", "Cookie"])
        return response

    return wrapper


def _tournament(slug: str) -> Tournament:
    return get_object_or_404(Tournament, slug=slug)


def _page(
    request: HttpRequest, template: str, partial: str, context: dict[str, Any]
) -> HttpResponse:
    """The full page, or for HTMX the partial the page includes (cached per version)."""
    t: Tournament = context["tournament"]
    # created_at guards against a deleted event's pk being reused with the same version.
    key = (
        f"partial:{t.pk}:{t.created_at.timestamp()}:{t.version}:{partial}:{request.GET.urlencode()}"
    )
    html = cache.get(key)
    if html is None:
        html = render_to_string(partial, context, request=request)
        cache.set(key, html, 300)
    if request.htmx:
        return HttpResponse(html)
    return render(request, template, {**context, "partial_html": html})


def healthz(request: HttpRequest) -> HttpResponse:
    """For load balancers and compose: 200 when the database answers."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse("ok", content_type="text/plain")


def home(request: HttpRequest) -> HttpResponse:
    tournaments = Tournament.objects.only("name", "slug", "system", "status", "created_at")[:100]
    return render(request, "tournaments/home.html", {"tournaments": tournaments})


def _clock(round_: Round | None) -> dict[str, Any] | None:
    if round_ is None:
        return None
    remaining = clock_remaining(round_)
    if remaining is None:
        return None
    return {
        "ends_at": round_.clock_ends_at.isoformat() if round_.clock_ends_at else None,
        "paused": round_.clock_paused_remaining is not None,
        "remaining": int(remaining.total_seconds()),
    }


@live
def event_home(request: HttpRequest, slug: str) -> HttpResponse:
    t = _tournament(slug)
    round_ = current_round(t)
    context = {
        "tournament": t,
        "round": round_,
        "clock": _clock(round_),
        "missing": (
            round_.matches.filter(
                kind__in=[MatchKind.PLAYED, MatchKind.GAME], reported=False
            ).count()
            if round_
            else 0
        ),
        "players": t.players.count(),
        "has_bracket": t.rounds.filter(playoff=True).exists(),
        "poll": POLL_SECONDS,
    }
    return _page(request, "tournaments/event_home.html", "tournaments/_event_home.html", context)


def standings_context(tournament: Tournament) -> dict[str, object]:
    rows = list(
        Standing.objects.filter(tournament=tournament)
        .order_by("position")
        .select_related("player")
        .only(
            "rank", "points", "wins", "losses", "draws", "played", "tiebreakers",
            "player__name", "player__external_id", "player__dropped_after_round",
        )
    )  # fmt: skip
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
        "poll": POLL_SECONDS,
    }


@live
def standings(request: HttpRequest, slug: str) -> HttpResponse:
    t = _tournament(slug)
    return _page(request, "scoring/standings.html", "scoring/_standings.html", standings_context(t))


def _round_matches(round_: Round) -> list[dict[str, Any]]:
    """The round's tables with both players (or the bye), in table order."""
    seats: dict[int, list[Seat]] = {}
    for seat in (
        Seat.objects.filter(round=round_)
        .select_related("player")
        .only("match_id", "position", "games_won", "place", "absent", "player__name",
              "player__external_id")
        .order_by("match_id", "position")
    ):  # fmt: skip
        seats.setdefault(seat.match_id, []).append(seat)
    points = dict(
        Standing.objects.filter(tournament_id=round_.tournament_id).values_list(
            "player_id", "points"
        )
    )
    tables = []
    for match in round_.matches.order_by("table", "id"):
        members = seats.get(match.id, [])
        for s in members:
            s.points = points.get(s.player_id)  # type: ignore[attr-defined]
        tables.append({"match": match, "seats": members, "result": _result_text(match, members)})
    return tables


def _result_text(match: Match, seats: list[Seat]) -> str:
    if match.kind == MatchKind.BYE:
        return "Bye"
    if match.kind == MatchKind.LOSS:
        return "Loss"
    if not match.reported:
        return ""
    if match.kind == MatchKind.DOUBLE_LOSS:
        return "Double loss"
    if match.kind == MatchKind.GAME:
        return " / ".join(str(s.place) for s in seats if not s.absent)
    wins = [s.games_won or 0 for s in seats]
    text = "-".join(map(str, wins))
    return f"{text}-{match.draws}" if match.draws else text


def _pairing_rows(tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per player, alphabetical: where they sit and whom they play."""
    rows = []
    for entry in tables:
        seats = entry["seats"]
        for seat in seats:
            others = [s for s in seats if s is not seat and not s.absent]
            rows.append(
                {
                    "name": seat.player.name,
                    "id": seat.player.external_id,
                    "table": entry["match"].table,
                    "kind": entry["match"].kind,
                    "opponents": ", ".join(o.player.name for o in others),
                    "result": entry["result"],
                    "points": seat.points,  # type: ignore[attr-defined]
                }
            )
    rows.sort(key=lambda r: r["name"].casefold())
    return rows


@live
def pairings(request: HttpRequest, slug: str) -> HttpResponse:
    t = _tournament(slug)
    number = request.GET.get("round")
    round_ = (
        t.rounds.filter(number=int(number)).first()
        if number and number.isdigit()
        else current_round(t)
    )
    by_name = request.GET.get("by") == "name"
    query = request.GET.get("q", "").strip()
    tables = _round_matches(round_) if round_ else []
    rows = _pairing_rows(tables)
    found = [r for r in rows if query.casefold() in r["name"].casefold()] if query else []
    context = {
        "tournament": t,
        "round": round_,
        "rounds": list(t.rounds.values_list("number", flat=True)),
        "tables": tables,
        "rows": rows,
        "by_name": by_name or bool(query),
        "query": query,
        "found": found[0] if len(found) == 1 else None,
        "found_count": len(found),
        "clock": _clock(round_),
        "poll": POLL_SECONDS,
    }
    return _page(request, "tournaments/pairings.html", "tournaments/_pairings.html", context)


@live
def player(request: HttpRequest, slug: str, pid: str) -> HttpResponse:
    t = _tournament(slug)
    me = get_object_or_404(Player, tournament=t, external_id=pid)
    standing = Standing.objects.filter(player=me).first()
    my_seats = list(
        Seat.objects.filter(player=me).select_related("match", "round").order_by("round__number")
    )
    match_ids = [s.match_id for s in my_seats]
    others: dict[int, list[Seat]] = {}
    for s in (
        Seat.objects.filter(match_id__in=match_ids)
        .exclude(player=me)
        .select_related("player")
        .order_by("position")
    ):
        others.setdefault(s.match_id, []).append(s)
    opponent_ids = {s.player_id for group in others.values() for s in group}
    opp_standing = {s.player_id: s for s in Standing.objects.filter(player_id__in=opponent_ids)}
    history = []
    for seat in my_seats:
        match = seat.match
        opponents = others.get(match.id, [])
        members = sorted([seat, *opponents], key=lambda s: s.position)
        history.append(
            {
                "round": seat.round,
                "table": match.table,
                "match": match,
                "opponents": [
                    {"player": o.player, "standing": opp_standing.get(o.player_id)}
                    for o in opponents
                    if not o.absent
                ],
                "result": _result_text(match, members),
                "outcome": _outcome(match, seat, opponents),
            }
        )
    explanation = _explain(t, standing, history)
    context = {
        "tournament": t,
        "me": me,
        "standing": standing,
        "history": history,
        "explanation": explanation,
        "poll": POLL_SECONDS,
    }
    return _page(request, "tournaments/player.html", "tournaments/_player.html", context)


def _outcome(match: Match, seat: Seat, opponents: list[Seat]) -> str:
    if match.kind == MatchKind.BYE:
        return "win"
    if match.kind in (MatchKind.LOSS, MatchKind.DOUBLE_LOSS):
        return "loss"
    if not match.reported:
        return "pending"
    if match.kind == MatchKind.GAME:
        return f"place {seat.place}" if seat.place else "absent"
    mine, theirs = seat.games_won or 0, (opponents[0].games_won or 0) if opponents else 0
    return "win" if mine > theirs else "loss" if mine < theirs else "draw"


# The floors an opponent's MW% and GW% count with (shared/spec/scoring.md: 0.33 in MTR
# Appendix C and the DCI rules, exactly 1/3 on melee.gg).
OPPONENT_FLOOR = {"mtr": 0.33, "dci": 0.33, "melee": 1 / 3}


def _explain(
    t: Tournament, standing: Standing | None, history: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """How OMW% and OGW% came about: each opponent's MW% and GW% and their mean.

    Each opponent's MW% is their stored match points over 3 x rounds played, floored;
    GW% is their stored GW%, floored. (A player frozen by a Day-2 cut is averaged over
    their opponents' values as they stood then; the mean shown is always the stored one.)
    """
    if standing is None or t.system not in OPPONENT_FLOOR:
        return None
    floor = OPPONENT_FLOOR[t.system]
    terms = []
    for entry in history:
        if entry["round"].playoff:
            continue
        for opp in entry["opponents"]:
            s = opp["standing"]
            if s is None:
                continue
            mw = float(s.points) / (3 * s.played) if s.played else 0.0
            terms.append(
                {
                    "round": entry["round"].number,
                    "name": opp["player"].name,
                    "id": opp["player"].external_id,
                    "mw": max(mw, floor),
                    "gw": max(s.tiebreakers.get("gw") or 0.0, floor),
                }
            )
    return {
        "terms": terms,
        "omw": standing.tiebreakers.get("omw"),
        "ogw": standing.tiebreakers.get("ogw"),
    }


@live
def bracket(request: HttpRequest, slug: str) -> HttpResponse:
    t = _tournament(slug)
    rounds = []
    for matches in bracket_rounds(t):
        rounds.append(
            [{"match": m, "seats": seats, "winner": winner(m, seats)} for m, seats in matches]
        )
    names = {1: "Final", 2: "Semifinals", 4: "Quarterfinals"}
    labelled = [(names.get(len(r), f"Round of {2 * len(r)}"), r) for r in rounds]
    context = {"tournament": t, "rounds": labelled, "poll": POLL_SECONDS}
    return _page(request, "tournaments/bracket.html", "tournaments/_bracket.html", context)


@live
def projector(request: HttpRequest, slug: str) -> HttpResponse:
    t = _tournament(slug)
    round_ = current_round(t)
    rows = _pairing_rows(_round_matches(round_)) if round_ else []
    page_size = 24
    pages = [rows[i : i + page_size] for i in range(0, len(rows), page_size)] or [[]]
    context = {
        "tournament": t,
        "round": round_,
        "pages": pages,
        "clock": _clock(round_),
        "poll": POLL_SECONDS,
    }
    return _page(request, "tournaments/projector.html", "tournaments/_projector.html", context)


def qr_code(request: HttpRequest, slug: str) -> HttpResponse:
    """An SVG QR code of the event home, drawn here (segno), no network service."""
    import segno

    t = _tournament(slug)
    url = request.build_absolute_uri(f"/t/{t.slug}/")
    svg = segno.make(url, error="m").svg_inline(scale=8, dark="#000", light="#fff", border=2)
    response = HttpResponse(svg, content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=86400"
    return response
