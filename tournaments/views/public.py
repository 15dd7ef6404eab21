"""Public, read-only pages for players' phones and the venue's screen.

Each view binds the request and serves what the read model (tournaments.pages) returns,
rendered and cached by tournaments.live. Live pages answer conditional requests: the ETag
is the tournament's version, so an unchanged page costs one indexed query and a 304.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import quote_etag
from django.utils.safestring import mark_safe

from tournaments import live
from tournaments.models import Player, Tournament
from tournaments.pages import exports
from tournaments.pages import public as pages
from tournaments.parsing import ascii_int
from tournaments.venue import phone_url

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
    (`build`, a read-model function, runs only then); the full page adds the light
    `page` context around it.
    """
    t = tournament
    query = request.GET.urlencode()
    subject = page_subject(request)
    if request.htmx:
        if "gzip" not in request.headers.get("Accept-Encoding", ""):
            return HttpResponse(live.fragment(t, partial, query, subject, build))
        # A 2,048-player table is ~400 kB of HTML polled every few seconds: compressed
        # once per version. Fragments hold no secrets (no CSRF token): BREACH does not apply.
        response = HttpResponse(live.fragment_gz(t, partial, query, subject, build))
        response["Content-Encoding"] = "gzip"
        patch_vary_headers(response, ["Accept-Encoding"])
        return response
    html = live.fragment(t, partial, query, subject, build)
    context = {"tournament": t, **(page() if page else {}), "partial_html": mark_safe(html)}
    return render(request, template, context)


def healthz(request: HttpRequest) -> HttpResponse:
    """For load balancers: 200 while the database answers, 503 when it does not.

    The body also reports the shared cache, which is optional (pages render without it):
    a failing cache is worth a look, not taking the server out of rotation.
    """
    from django.db import connection

    from tournaments.cache import cache_state

    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:  # any database failure: this is what the check is for
        return HttpResponse(
            f"database: unavailable ({type(exc).__name__})\ncache: {cache_state()}\n",
            status=503,
            content_type="text/plain",
        )
    return HttpResponse(f"ok\ndatabase: ok\ncache: {cache_state()}\n", content_type="text/plain")


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """400, plainly. Django's own 400 view re-runs the CSRF check, which reads the body
    again: a body it cannot decode (a form sent as UTF-16) then failed twice, as a 500."""
    return HttpResponse(
        "Bad request: the request could not be read. Forms are sent as UTF-8.\n",
        status=400,
        content_type="text/plain; charset=utf-8",
    )


def home(request: HttpRequest) -> HttpResponse:
    tournaments = Tournament.objects.only("name", "slug", "system", "status", "created_at")[:100]
    return render(request, "tournaments/home.html", {"tournaments": tournaments})


@live_page
def event_home(request: HttpRequest, t: Tournament) -> HttpResponse:
    return _page(
        request, t, "tournaments/event_home.html", "tournaments/_event_home.html",
        lambda: pages.event_home(t), lambda: pages.event_home_page(t),
    )  # fmt: skip


@live_page
def standings(request: HttpRequest, t: Tournament) -> HttpResponse:
    return _page(
        request, t, "scoring/standings.html", "scoring/_standings.html",
        lambda: pages.standings(t),
    )  # fmt: skip


@live_page
def pairings(request: HttpRequest, t: Tournament) -> HttpResponse:
    number = request.GET.get("round", "")
    if number and ascii_int(number) is None:
        raise Http404("No such round")
    return _page(
        request, t, "tournaments/pairings.html", "tournaments/_pairings.html",
        lambda: pages.pairings(t, request.GET), lambda: pages.pairings_page(t, request.GET),
    )  # fmt: skip


@live_page
def player(request: HttpRequest, t: Tournament, pid: str) -> HttpResponse:
    if "\x00" in pid:  # PostgreSQL refuses NUL in text: no player can have it
        raise Http404("No such player")
    me = get_object_or_404(Player, tournament=t, external_id=pid)
    return _page(
        request, t, "tournaments/player.html", "tournaments/_player.html",
        lambda: pages.player(t, me), lambda: {"me": me},
    )  # fmt: skip


@live_page
def bracket(request: HttpRequest, t: Tournament) -> HttpResponse:
    return _page(
        request, t, "tournaments/bracket.html", "tournaments/_bracket.html",
        lambda: pages.bracket(t),
    )  # fmt: skip


@live_page
def projector(request: HttpRequest, t: Tournament) -> HttpResponse:
    """The venue's screen. ?interval=ms (read by projector.js only) turns pages faster."""
    from tournaments.pages.projector import projector as projector_screen

    return _page(
        request, t, "tournaments/projector.html", "tournaments/_projector.html",
        lambda: projector_screen(t),
    )  # fmt: skip


def _csv_response(body: str, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def standings_csv(request: HttpRequest, slug: str) -> HttpResponse:
    """The standings as the command line writes them (`manage.py standings --format csv`)."""
    t = get_object_or_404(Tournament, slug=slug)
    return _csv_response(exports.standings_csv(t), f"{t.slug}-standings.csv")


def pairings_csv(request: HttpRequest, slug: str) -> HttpResponse:
    """A round's pairings (?round=N, else the current round), one line per player."""
    t = get_object_or_404(Tournament, slug=slug)
    number = request.GET.get("round", "")
    if number and ascii_int(number) is None:
        raise Http404("No such round")
    round_ = pages.round_of(t, number)
    if round_ is None:
        raise Http404("No such round")
    return _csv_response(
        exports.pairings_csv(t, round_), f"{t.slug}-round-{round_.number}-pairings.csv"
    )


def qr_code(request: HttpRequest, slug: str) -> HttpResponse:
    """An SVG QR code of the event home, drawn here (segno), no network service."""
    import hashlib

    import segno
    from django.utils.http import parse_etags

    t = get_object_or_404(Tournament, slug=slug)
    url = phone_url(request, reverse("event_home", args=[t.slug]))
    # The same path encodes another address after a restart on another network (or
    # after `make run`): revalidated on every view, so a browser never shows a stale one.
    etag = quote_etag(hashlib.sha256(url.encode()).hexdigest()[:20])
    if etag in parse_etags(request.headers.get("If-None-Match", "")):
        response: HttpResponse = HttpResponseNotModified()
    else:
        buffer = io.BytesIO()
        # A standalone file (with its namespace) so that <img src> can show it.
        segno.make(url, error="m").save(
            buffer, kind="svg", scale=8, dark="#000", light="#fff", border=2, xmldecl=False
        )
        response = HttpResponse(buffer.getvalue(), content_type="image/svg+xml")
    response["ETag"] = etag
    response["Cache-Control"] = "public, no-cache"
    return response
