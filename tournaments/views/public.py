"""Public, read-only pages for players' phones and the venue's screen.

Every page reads stored rows (standings are never computed per request). Live pages
answer conditional requests: the ETag is the tournament's version, so an unchanged page
costs one indexed query and a 304; rendered fragments are cached per version.
"""

from __future__ import annotations

import functools
import gzip
import io
from collections.abc import Callable
from fractions import Fraction
from html import escape  # the stdlib one: Django's lazy wrapper costs 3x on 2,048 rows
from typing import Any, NamedTuple
from urllib.parse import quote

from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import quote_etag
from django.utils.safestring import mark_safe

from scoring.engine.api import SWISS_SYSTEMS
from scoring.engine.explain import OpponentTerm, PodTerm
from scoring.models import Standing, StandingsState
from scoring.services import (
    HoodSeat,
    Neighbourhood,
    edge,
    explanation,
    neighbourhood,
    points_stored,
)
from tournaments import live
from tournaments.models import Match, MatchKind, Player, Round, Seat, Tournament
from tournaments.services import (
    bracket_rounds,
    clock_remaining,
    current_round,
    missing_results,
    winner,
)
from tournaments.templatetags.tourney import PERCENT, SHORT_LABELS, tiebreak
from tournaments.templatetags.tourney import points as format_points

POLL_SECONDS = 3  # issue 4: phones show a change within 5 s
PROJECTOR_PAGE_ROWS = 24  # legible from the back of a hall at 1080p


View = Callable[..., HttpResponse]


def live_page(view: View) -> View:
    """Answer If-None-Match with 304 while the tournament's version is unchanged.

    The ETag covers the version, the variant (full page or HTMX partial) and the query
    string, so a phone polling an unchanged page costs one small query.
    """

    @functools.wraps(view)
    def wrapper(request: HttpRequest, slug: str, **kwargs: Any) -> HttpResponse:
        t = Tournament.objects.filter(slug=slug).order_by().first()  # slug is unique
        if t is None:
            raise Http404("No such tournament")
        # Partials are the same for everyone; full pages show who is logged in.
        variant = (
            "p"
            if request.htmx
            else "a"
            if not request.user.is_authenticated
            else f"u{request.user.pk}"
        )
        etag = quote_etag(
            f"{t.created_at.timestamp():.0f}.{t.version}-{variant}-{view.__name__}-"
            f"{quote(page_subject(request), safe='')}-{request.GET.urlencode()}"
        )
        if etag in (e.strip() for e in request.headers.get("If-None-Match", "").split(",")):
            response: HttpResponse = HttpResponseNotModified()
        else:
            response = view(request, t, **kwargs)
        if response.status_code in (200, 304):
            response["ETag"] = etag
            patch_cache_control(response, no_cache=True, private=True)
            patch_vary_headers(response, ["HX-Request", "Cookie"])
        return response

    return wrapper


def page_subject(request: HttpRequest) -> str:
    """Whose page this is beyond the tournament: the URL's other arguments (a player's
    id), so that the ETag and the cached fragment of one player's page are theirs."""
    match = request.resolver_match
    kwargs = match.kwargs if match else {}
    return "/".join(str(v) for k, v in kwargs.items() if k != "slug")


def _page(
    request: HttpRequest,
    tournament: Tournament,
    template: str,
    partial: str,
    build: Callable[[], dict[str, Any]],
    page: Callable[[], dict[str, Any]] | None = None,
) -> HttpResponse:
    """The full page, or for HTMX the partial the page includes.

    The partial is rendered once per tournament version, subject (whose page) and query
    (`build` makes its context only then); the full page adds the light `page` context around it.
    """
    t = tournament
    query = request.GET.urlencode()
    key = live.fragment_key(t, partial, query, page_subject(request))

    def fragment() -> str:
        return live.render_once(key, lambda: live.render(t, partial, query, build()))

    if request.htmx:
        if "gzip" not in request.headers.get("Accept-Encoding", ""):
            return HttpResponse(fragment())
        # A 2,048-player table is ~400 kB of HTML polled every few seconds: compress it
        # once per version, and fetch only the compressed copy from the cache. Fragments
        # hold no secrets (no CSRF token), so BREACH does not apply.
        body = cache.get(key + ":gz")
        if body is None:
            body = gzip.compress(fragment().encode(), compresslevel=6, mtime=0)
            cache.set(key + ":gz", body, live.FRAGMENT_SECONDS)
        response = HttpResponse(body)
        response["Content-Encoding"] = "gzip"
        patch_vary_headers(response, ["Accept-Encoding"])
        return response
    html = fragment()
    context = {"tournament": t, **(page() if page else {}), "partial_html": mark_safe(html)}
    return render(request, template, context)


def healthz(request: HttpRequest) -> HttpResponse:
    """For load balancers and compose: 200 when the database answers."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse("ok", content_type="text/plain")


def home(request: HttpRequest) -> HttpResponse:
    tournaments = Tournament.objects.only("name", "slug", "system", "status", "created_at")[:100]
    return render(request, "tournaments/home.html", {"tournaments": tournaments})


def clock_state(round_: Round | None) -> dict[str, Any] | None:
    """What a page needs to show the round clock (phones count down from ends_at)."""
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


@live_page
def event_home(request: HttpRequest, t: Tournament) -> HttpResponse:
    def page() -> dict[str, Any]:
        return {"has_bracket": t.rounds.filter(playoff=True).exists()}

    return _page(
        request, t, "tournaments/event_home.html", "tournaments/_event_home.html",
        lambda: event_home_context(t), page,
    )  # fmt: skip


def event_home_context(t: Tournament) -> dict[str, Any]:
    round_ = current_round(t)
    return {
        "round": round_,
        "clock": clock_state(round_),
        "missing": missing_results(round_) if round_ else 0,
        "players": t.players.count(),
        "poll": POLL_SECONDS,
    }


def standings_context(tournament: Tournament) -> dict[str, Any]:
    """The stored standings, with each row's cells already formatted for the table."""
    rows = list(
        Standing.objects.filter(tournament=tournament)
        .order_by("position")
        .values_list(
            "rank", "points", "wins", "losses", "draws", "tiebreakers",
            "player__name", "player__external_id", "player__dropped_after_round",
        )
    )  # fmt: skip
    keys = list(rows[0][5]) if rows else []
    columns = [(k, SHORT_LABELS.get(k, k), k in PERCENT) for k in keys]
    state = StandingsState.objects.filter(tournament=tournament).first()
    return {
        "tournament": tournament,
        "rows_html": standings_rows_html(tournament, rows, keys),
        "count": len(rows),
        "columns": columns,
        "after_round": state.after_round if state else None,
        "poll": POLL_SECONDS,
    }


def standings_rows_html(
    tournament: Tournament, rows: list[tuple[Any, ...]], keys: list[str]
) -> str:
    """The table body, built directly: 2,048 rows through template tags take ~0.5 s.

    This is the first render after every result, so it is kept lean: numeric cells need
    no escaping (digits, '.', '%', '/' and the dash only).
    """
    player_url = reverse("player", kwargs={"slug": tournament.slug, "pid": "__pid__"})
    head, tail = (escape(part) for part in player_url.split("__pid__"))
    percent = [k in PERCENT for k in keys]
    out = []
    for rank, points_, wins, losses, draws, tiebreakers, name, pid, dropped in rows:
        cells = "".join(
            f'<td class="num tb tb-{i}">{tiebreak(tiebreakers.get(k), pct)}</td>'
            for i, (k, pct) in enumerate(zip(keys, percent, strict=True), start=1)
        )
        dropped_class, dropped_note = (
            (' class="dropped"', " <small>(dropped)</small>") if dropped is not None else ("", "")
        )
        out.append(
            f"<tr{dropped_class}>"
            f'<td class="num">{rank}</td>'
            f'<th scope="row"><a href="{head}{escape(quote(pid, safe=""))}{tail}">'
            f"{escape(name)}</a>{dropped_note}</th>"
            f'<td class="num">{format_points(points_)}</td>'
            f'<td class="rec">{wins}-{losses}-{draws}</td>{cells}</tr>'
        )
    return "\n".join(out)


@live_page
def standings(request: HttpRequest, t: Tournament) -> HttpResponse:
    return _page(
        request, t, "scoring/standings.html", "scoring/_standings.html",
        lambda: standings_context(t),
    )  # fmt: skip


class _Person(NamedTuple):
    name: str
    external_id: str


class _Seat(NamedTuple):
    player_id: int
    player: _Person
    position: int
    games_won: int | None
    place: int | None
    absent: bool
    points: Any


class _Match(NamedTuple):
    id: int
    table: int | None
    kind: str
    reported: bool
    draws: int


def _round_matches(round_: Round) -> list[dict[str, Any]]:
    """The round's tables with both players (or the bye), in table order.

    Plain tuples from values_list: model instances for a 2,048-player round cost ~3x more.
    """
    points = dict(
        Standing.objects.filter(tournament_id=round_.tournament_id).values_list(
            "player_id", "points"
        )
    )
    seats: dict[int, list[_Seat]] = {}
    for match_id, player_id, position, games_won, place, absent, name, ext in (
        Seat.objects.filter(round=round_)
        .order_by("match_id", "position")
        .values_list("match_id", "player_id", "position", "games_won", "place", "absent",
                     "player__name", "player__external_id")
    ):  # fmt: skip
        seats.setdefault(match_id, []).append(
            _Seat(
                player_id,
                _Person(name, ext),
                position,
                games_won,
                place,
                absent,
                points.get(player_id),
            )
        )
    tables = []
    for row in round_.matches.order_by("table", "id").values_list(
        "id", "table", "kind", "reported", "draws"
    ):
        match = _Match(*row)
        members = seats.get(match.id, [])
        tables.append({"match": match, "seats": members, "result": result_text(match, members)})
    return tables


def result_text(match: Match | _Match, seats: list[Seat] | list[_Seat] | list[HoodSeat]) -> str:
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
                    "points": seat.points,
                }
            )
    rows.sort(key=lambda r: r["name"].casefold())
    return rows


def _player_link(player_url: str, pid: str, name: str) -> str:
    return (
        f'<a href="{escape(player_url.replace("__pid__", quote(pid, safe="")))}">{escape(name)}</a>'
    )


def pairings_by_table_html(t: Tournament, tables: list[dict[str, Any]]) -> str:
    """Table rows built directly (a 2,048-player round through template tags is slow)."""
    player_url = reverse("player", kwargs={"slug": t.slug, "pid": "__pid__"})
    out = []
    for entry in tables:
        match = entry["match"]
        names = []
        for seat in entry["seats"]:
            link = _player_link(player_url, seat.player.external_id, seat.player.name)
            pts = seat.points
            names.append(
                f"{link} <small>({format_points(pts)})</small>" if pts is not None else link
            )
        players = ' <span class="vs">vs</span> '.join(names)
        if match.kind == MatchKind.BYE:
            players += " <em>bye</em>"
        search = escape(" ".join(seat.player.name.lower() for seat in entry["seats"]))
        out.append(
            f'<tr data-name="{search}"><td class="num">{match.table or ""}</td>'
            f'<td>{players}</td><td class="res">{escape(entry["result"])}</td></tr>'
        )
    return "\n".join(out)


def pairings_by_name_html(t: Tournament, rows: list[dict[str, Any]], query: str) -> str:
    player_url = reverse("player", kwargs={"slug": t.slug, "pid": "__pid__"})
    wanted = query.casefold()
    out = []
    for r in rows:
        if r["kind"] == MatchKind.BYE:
            opponent = "<em>bye</em>"
        elif r["kind"] == MatchKind.LOSS:
            opponent = "<em>no opponent</em>"
        else:
            opponent = escape(r["opponents"])
        hidden = " hidden" if wanted and wanted not in r["name"].casefold() else ""
        table = r["table"] if r["table"] is not None else ""
        out.append(
            f'<tr data-name="{escape(r["name"].lower())}" data-table="{table}" '
            f'data-opponent="{escape(r["opponents"])}" data-kind="{r["kind"]}"{hidden}>'
            f'<th scope="row">{_player_link(player_url, r["id"], r["name"])}</th>'
            f'<td class="num">{table}</td><td>{opponent}</td>'
            f'<td class="res">{escape(r["result"])}</td></tr>'
        )
    return "\n".join(out)


def pairings_context(t: Tournament, params: Any) -> dict[str, Any]:
    """The pairings fragment for `params` (round, by=name, q), as phones poll it."""
    number = params.get("round", "")
    query = params.get("q", "").strip()
    round_ = t.rounds.filter(number=int(number)).first() if number.isdigit() else current_round(t)
    tables = _round_matches(round_) if round_ else []
    rows = _pairing_rows(tables)
    found = [r for r in rows if query.casefold() in r["name"].casefold()] if query else []
    named = params.get("by") == "name" or bool(query)
    return {
        "round": round_,
        "rows_html": (
            pairings_by_name_html(t, rows, query) if named else pairings_by_table_html(t, tables)
        ),
        "by_name": named,
        "query": query,
        "found": found[0] if len(found) == 1 else None,
        "found_count": len(found),
        "clock": clock_state(round_),
        "poll": POLL_SECONDS,
    }


@live_page
def pairings(request: HttpRequest, t: Tournament) -> HttpResponse:
    def page() -> dict[str, Any]:
        number = request.GET.get("round", "")
        query = request.GET.get("q", "").strip()
        return {
            "round": (
                t.rounds.filter(number=int(number)).first()
                if number.isdigit()
                else current_round(t)
            ),
            "rounds": list(t.rounds.values_list("number", flat=True)),
            "by_name": request.GET.get("by") == "name" or bool(query),
            "query": query,
        }

    return _page(
        request, t, "tournaments/pairings.html", "tournaments/_pairings.html",
        lambda: pairings_context(t, request.GET), page,
    )  # fmt: skip


@live_page
def player(request: HttpRequest, t: Tournament, pid: str) -> HttpResponse:
    me = get_object_or_404(Player, tournament=t, external_id=pid)
    return _page(
        request, t, "tournaments/player.html", "tournaments/_player.html",
        lambda: _player_context(t, me), lambda: {"me": me},
    )  # fmt: skip


class _RoundLabel(NamedTuple):
    number: int
    playoff: bool


def _player_context(t: Tournament, me: Player) -> dict[str, Any]:
    """The player's rounds and explanation, from one two-query neighbourhood read."""
    hood = neighbourhood(t, me)
    rounds = {rid: _RoundLabel(number, playoff) for rid, number, _p, playoff, _w in hood.rounds}
    tables: dict[int, list[HoodSeat]] = {}
    for seat in hood.seats:
        tables.setdefault(seat.match_id, []).append(seat)
    history = []
    names: dict[str, str] = {}  # everyone the explanation names sat at one of my tables
    for members in tables.values():
        mine = next((s for s in members if s.player_id == me.pk), None)
        if mine is None:
            continue
        first = members[0]
        match = _Match(first.match_id, first.table, first.kind, first.reported, first.draws)
        opponents = [s for s in members if s is not mine]
        names.update((o.external_id, o.name) for o in opponents)
        history.append(
            {
                "round": rounds[first.round_id],
                "table": match.table,
                "match": match,
                "opponents": [
                    {"player": _Person(o.name, o.external_id)} for o in opponents if not o.absent
                ],
                "result": result_text(match, members),
                "outcome": _outcome(match, mine, opponents),
            }
        )
    standing = Standing.objects.filter(player=me).first()
    return {
        "me": me,
        "standing": standing,
        "history": history,
        "explanation": _explain(t, me, names, hood) if standing is not None else None,
        "poll": POLL_SECONDS,
    }


def _outcome(match: _Match, seat: HoodSeat, opponents: list[HoodSeat]) -> str:
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


def _explain(
    t: Tournament, me: Player, names: dict[str, str], hood: Neighbourhood
) -> dict[str, Any] | None:
    """The explanation table of the player's tiebreakers, its cells formatted for the page.

    The terms come from scoring.engine.explain, which works from the same tallies as the
    stored standings: a player frozen by a cut sees their opponents' values as of then,
    and every total is the stored value (both are rounded the same way, by `edge`).
    """
    found = explanation(t, me, hood)
    if found is None:
        return None

    def percent(value: Fraction | None) -> str:
        return tiebreak(None if value is None else float(value), True)

    def number(value: Fraction | None) -> str:
        return tiebreak(None if value is None else float(value), False)

    def points(value: Fraction) -> str:
        return format_points(points_stored(value))

    def person(pid: str | None) -> dict[str, str] | None:
        return None if pid is None else {"id": pid, "name": names.get(pid, pid)}

    rows: list[dict[str, Any]] = []
    for term in found.terms:
        if isinstance(term, OpponentTerm):
            rows.append(
                {
                    "round": term.round,
                    "opponent": person(term.opponent),
                    "mw": percent(term.mw),
                    "gw": percent(term.gw),
                }
            )
        elif isinstance(term, PodTerm):
            rows.append(
                {
                    "round": term.round,
                    "opponent": person(term.opponent),
                    "outcome": term.outcome,
                    "win_pct": percent(term.win_pct),
                    "wr": number(term.wr),
                    "owp": percent(term.owp),
                    "wrr": number(term.wrr),
                }
            )
        else:
            rows.append(
                {
                    "round": term.round,
                    "kind": term.kind,
                    "table_size": term.table_size,
                    "place": _ordinal(term.place),
                    "points": points(term.points),
                    "score": number(term.score),
                    "table_mean": number(term.table_mean),
                    "vs_average": number(term.vs_average),
                }
            )
    return {
        "system": "swiss" if found.system in SWISS_SYSTEMS else found.system,
        "after_round": found.after_round,
        "phase": found.phase,
        "frozen": found.frozen,
        "floor": percent(found.floor),
        "skipped": bool(found.skipped),
        "rows": rows,
        # The totals as stored and shown above the table (rounded only by `edge`).
        "totals": {key: tiebreak(edge(value), key) for key, value in found.totals.items()},
        "points": points(found.points),
    }


def _ordinal(place: int | None) -> str:
    if place is None:
        return ""
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


@live_page
def bracket(request: HttpRequest, t: Tournament) -> HttpResponse:

    def build() -> dict[str, Any]:
        names = {1: "Final", 2: "Semifinals", 4: "Quarterfinals"}
        rounds = [
            [{"match": m, "seats": seats, "winner": winner(m, seats)} for m, seats in matches]
            for matches in bracket_rounds(t)
        ]
        labelled = [(names.get(len(r), f"Round of {2 * len(r)}"), r) for r in rounds]
        return {"rounds": labelled, "poll": POLL_SECONDS}

    return _page(request, t, "tournaments/bracket.html", "tournaments/_bracket.html", build)


@live_page
def projector(request: HttpRequest, t: Tournament) -> HttpResponse:

    def build() -> dict[str, Any]:
        round_ = current_round(t)
        rows = _pairing_rows(_round_matches(round_)) if round_ else []
        size = PROJECTOR_PAGE_ROWS
        pages = [rows[i : i + size] for i in range(0, len(rows), size)] or [[]]
        return {"round": round_, "pages": pages, "clock": clock_state(round_), "poll": POLL_SECONDS}

    return _page(request, t, "tournaments/projector.html", "tournaments/_projector.html", build)


def qr_code(request: HttpRequest, slug: str) -> HttpResponse:
    """An SVG QR code of the event home, drawn here (segno), no network service."""
    import segno

    t = get_object_or_404(Tournament, slug=slug)
    url = request.build_absolute_uri(reverse("event_home", args=[t.slug]))
    buffer = io.BytesIO()
    # A standalone file (with its namespace) so that <img src> can show it.
    segno.make(url, error="m").save(
        buffer, kind="svg", scale=8, dark="#000", light="#fff", border=2, xmldecl=False
    )
    svg = buffer.getvalue()
    response = HttpResponse(svg, content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=86400"
    return response
