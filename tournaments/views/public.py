"""Public, read-only pages for players' phones and the venue's screen.

Each view binds the request and serves what the read model (tournaments.pages) returns,
rendered and cached by tournaments.live. Live pages answer conditional requests with
ETags that move only when what the page shows moved (tournaments.live says how), so a
phone whose table did not change keeps getting 304s while other tables' results come in.
Anonymous responses are `public, max-age=0, s-maxage=1` without a cookie: a shared cache
in front (README, "Behind a cache") may answer the phones for a second, but a browser
revalidates every time. (With `max-age=1` Chrome answered a refetch from its own cache
when the previous one was less than a second before: the page, told by its stream that
its result was in, showed the old copy until the next change, 30 s or more later.)
Logged-in users' pages show a Manage link and stay private.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.db import connection
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotModified,
    HttpResponsePermanentRedirect,
    StreamingHttpResponse,
)
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.encoding import escape_uri_path
from django.utils.http import parse_etags, quote_etag
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from tournaments import live, locale, stream
from tournaments.models import Entry, Player, Tournament
from tournaments.pages import exports
from tournaments.pages import public as pages
from tournaments.pages.decklists import published_ids
from tournaments.pages.event import display_name
from tournaments.parsing import ascii_int
from tournaments.venue import phone_url

View = Callable[..., HttpResponse]
# A shared cache may answer phones for this long; browsers always revalidate (docstring).
SHARED_MAX_AGE = 1


def live_page(*params: live.Param) -> Callable[[View], View]:
    """Read the page's declared query parameters (`params`), look the event up, then mark
    what may be cached where: anonymous responses may be kept by a shared cache for a
    second, never by a browser's own (tournaments.middleware.PublicCache drops
    `Vary: Cookie` from them); a logged-in user's are private and always revalidated, and
    so are those of a search (free text: every value its own page, kept by no cache).

    A query string that is not the canonical one (a parameter the page does not read, one
    twice, a value not in its normal form) is answered with a permanent redirect to it,
    before any lookup or render: keys (here and in a shared cache in front, README,
    "Behind a cache") hold canonical queries only. The view gets the Query it reads."""

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def wrapper(request: HttpRequest, slug: str, **kwargs: Any) -> HttpResponse:
            query = live.read_query(request.GET, request.META.get("QUERY_STRING", ""), params)
            if not query.exact:
                return canonical_redirect(request, query)
            if not plain_path(request.path):
                raise Http404(_("No such page"))
            t = Tournament.objects.filter(slug=slug).order_by().first()  # slug is unique
            if t is None:
                raise Http404(_("No such tournament"))
            with locale.speaking(request, t):
                response = view(request, t, query, **kwargs)
            if response.status_code in (200, 304):
                response["Cache-Control"] = (
                    "private, no-cache"
                    if request.user.is_authenticated or not query.shared
                    else f"public, max-age=0, s-maxage={SHARED_MAX_AGE}"
                )
                # The language (tournaments.locale) comes from the cookie or the
                # browser's Accept-Language: a shared cache keeps a copy per language.
                patch_vary_headers(response, ["HX-Request", "Accept-Language", "Cookie"])
                response.language_varies = True  # type: ignore[attr-defined]
            return response

        return wrapper

    return decorate


def canonical_redirect(request: HttpRequest, query: live.Query) -> HttpResponse:
    """301 to the canonical URL. Not kept by any cache: it costs nothing to answer again,
    and a browser that kept it would never ask should the page read more one day."""
    location = escape_uri_path(request.path) + (f"?{query.url}" if query.url else "")
    response = HttpResponsePermanentRedirect(location)
    response["Cache-Control"] = "no-store"
    return response


def plain_path(path: str) -> bool:
    """Whether `path` is one a proxy reads as itself. nginx keys its cache by the path it
    normalised (`$uri`: "//" merged, "." and ".." segments resolved) but passes the one
    the client wrote: a player id such as "../../other/standings" would have stored this
    event's page under another's key."""
    return "//" not in path and not any(part in (".", "..") for part in path.split("/"))


def page_subject(request: HttpRequest) -> str:
    """Whose page this is beyond the tournament: the URL's other arguments (a player's
    id), so that the ETag and the cached fragment of one player's page are theirs."""
    match = request.resolver_match
    kwargs = match.kwargs if match else {}
    return "/".join(str(v) for k, v in kwargs.items() if k != "slug")


def _fresh(request: HttpRequest, etag: str) -> bool:
    """Whether the client's copy is current. Weak tags count: GZipMiddleware weakens the
    ETag of a page it compresses, and the browser sends that form back."""
    wanted = parse_etags(request.headers.get("If-None-Match", ""))
    return "*" in wanted or any(tag.removeprefix("W/") == etag for tag in wanted)


def _not_modified(etag: str) -> HttpResponse:
    response = HttpResponseNotModified()
    response["ETag"] = etag
    return response


def _page(
    request: HttpRequest,
    tournament: Tournament,
    query: live.Query,
    template: str,
    partial: str,
    build: Callable[[], dict[str, Any]],
    page: Callable[[], dict[str, Any]] | None = None,
    *,
    tracked: tuple[str, str] | None = None,
    by_version: bool = False,
) -> HttpResponse:
    """The full page, or for HTMX the partial the page includes, answering 304 when the
    client's ETag is current.

    The partial's ETag: for a `tracked` (page, player id) the version at which that
    player's page last changed (live.subject_version); with `by_version` the tournament's
    version (pages whose readers are few and whose content follows every version: the
    bracket, the projector); otherwise a hash of the rendered partial. The full page's
    ETag is a hash of the page itself. Keys and ETags hold `query.text` (the declared
    parameters, normalised), never the request's own query string; a query holding
    free text (a search) is rendered for its request alone (live.Param.own).
    """
    t = tournament
    subject = page_subject(request)
    language = translation.get_language()
    version: int | None = None
    if tracked is not None:
        version = live.subject_version(t, *tracked)
        # The fragment names the version it shows to its event stream (?at=), which then
        # tells it at once if it moved before the stream opened.
        build = _with(build, live_at=version)
    if not query.stored:
        html = live.render(t, partial, query.text, build())
        if request.htmx:
            etag = quote_etag(f"{live.content_tag(html)}-p-{language}")
            if _fresh(request, etag):
                return _not_modified(etag)
            response = HttpResponse(html)
            response["ETag"] = etag
            return response
        return _full_page(request, t, template, page, html)
    query_text = query.text
    if request.htmx:
        if tracked is not None:
            tag = f"{t.created_at.timestamp():.0f}.{version}-{tracked[0]}"
        elif by_version:
            tag = f"{t.created_at.timestamp():.0f}.{t.version}"
        else:
            tag = live.fragment_etag(t, partial, query_text, subject, build)
        # The language too: a tracked or by-version tag says nothing of it.
        etag = quote_etag(f"{tag}-p-{language}-{quote(subject, safe='')}-{query_text}")
        if _fresh(request, etag):
            return _not_modified(etag)
        gz = "gzip" in request.headers.get("Accept-Encoding", "")
        if version is not None:  # a player's own page: see live.own_fragment
            response = HttpResponse(
                live.own_fragment(t, partial, query_text, subject, build, version, gz=gz)
            )
            if gz:
                response["Content-Encoding"] = "gzip"
                patch_vary_headers(response, ["Accept-Encoding"])
        elif not gz:
            response = HttpResponse(live.fragment(t, partial, query_text, subject, build, version))
        else:
            # A 2,048-player table is ~400 kB of HTML: compressed once per version.
            # Fragments hold no secrets (no CSRF token): BREACH does not apply.
            response = HttpResponse(
                live.fragment_gz(t, partial, query_text, subject, build, version)
            )
            response["Content-Encoding"] = "gzip"
            patch_vary_headers(response, ["Accept-Encoding"])
        response["ETag"] = etag
        return response
    if version is not None:
        html = str(live.own_fragment(t, partial, query_text, subject, build, version, gz=False))
    else:
        html = live.fragment(t, partial, query_text, subject, build, version)
    return _full_page(request, t, template, page, html)


def _full_page(
    request: HttpRequest,
    t: Tournament,
    template: str,
    page: Callable[[], dict[str, Any]] | None,
    html: str,
) -> HttpResponse:
    context = {"tournament": t, **(page() if page else {}), "partial_html": mark_safe(html)}
    response = render(request, template, context)
    # Whose page it is changes what it shows (the Manage link): the tag says so.
    who = f"u{request.user.pk}" if request.user.is_authenticated else "a"
    etag = quote_etag(f"{live.content_tag(response.content)}-{who}-{translation.get_language()}")
    if _fresh(request, etag):
        return _not_modified(etag)
    response["ETag"] = etag
    return response


def _with(build: Callable[[], dict[str, Any]], **extra: Any) -> Callable[[], dict[str, Any]]:
    return lambda: {**build(), **extra}


def healthz(request: HttpRequest) -> HttpResponse:
    """For load balancers: 200 while the database answers, 503 when it does not.

    The body also reports the shared cache, which is optional (pages render without it):
    a failing cache is worth a look, not taking the server out of rotation.
    """

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
    """400, plainly, saying which problem it was. Django's own 400 view re-runs the CSRF
    check, which reads the body again: a body it cannot decode (a form sent as UTF-16)
    then failed twice, as a 500."""
    from django.core.exceptions import DisallowedHost
    from django.template.loader import render_to_string

    if isinstance(exception, DisallowedHost):
        reason = _(
            "This server does not answer to the address used to reach it (its host name"
            " is not in ALLOWED_HOSTS). Open the address the organizer gave."
        )
    else:
        reason = _("The request could not be read. Forms are sent as UTF-8.")
    return HttpResponse(
        render_to_string("400.html", {"reason": reason}),
        status=400,
        content_type="text/html; charset=utf-8",
    )


def home(request: HttpRequest) -> HttpResponse:
    tournaments = Tournament.objects.only("name", "slug", "system", "status", "created_at")[:100]
    return render(request, "tournaments/home.html", {"tournaments": tournaments})


# What each page reads from its query string: the only parameters its keys hold.
ROUND = live.Param("round", live.round_number)
BY = live.Param("by", live.choice("name"))
SEARCH = live.Param("q", live.search, own=True)
ME = live.Param("me", live.player_ref)
# The projector's page turns, read by projector.js from the address bar only.
INTERVAL = live.Param("interval", live.as_given, keyed=False, own=True)


@live_page()
def event_home(request: HttpRequest, t: Tournament, query: live.Query) -> HttpResponse:
    return _page(
        request, t, query, "tournaments/event_home.html", "tournaments/_event_home.html",
        lambda: pages.event_home(t), lambda: pages.event_home_page(t),
    )  # fmt: skip


@live_page(ME, SEARCH)
def standings(request: HttpRequest, t: Tournament, query: live.Query) -> HttpResponse:
    """The whole table, or with ?me=<player id> the leaders and the rows around that
    player (what a phone polls; the fragment links to the whole table). ?q= searches the
    whole table by name (with ?me= too: their row stays highlighted among the matches)."""
    pid, q = query.get("me"), query.get("q")
    # The full page's finder: filled in with the search it answers.
    extra = {"query": q, "near": bool(pid) and not q}
    if q:
        if pid:
            _player_or_404(t, pid)
        return _page(
            request, t, query, "scoring/standings.html", "scoring/_standings.html",
            lambda: pages.standings(t, q, pid), lambda: extra,
        )  # fmt: skip
    if not pid:
        return _page(
            request, t, query, "scoring/standings.html", "scoring/_standings.html",
            lambda: pages.standings(t), lambda: extra,
        )  # fmt: skip
    me = _player_or_404(t, pid)
    return _page(
        request, t, query, "scoring/standings.html", "scoring/_standings.html",
        lambda: pages.standings_near(t, me), lambda: extra, tracked=("near", me.external_id),
    )  # fmt: skip


def _player_or_404(t: Tournament, pid: str) -> Player:
    me = pages.event_players(t).get(pid)
    # Pending and rejected entries are not in the event: no public page names them.
    if me is None or me.entry != Entry.ACCEPTED:
        raise Http404(_("No such player"))
    return me


@live_page(ROUND, BY, SEARCH)
def pairings(request: HttpRequest, t: Tournament, query: live.Query) -> HttpResponse:
    number = query.get("round")
    # A round that does not exist has no page: each number would otherwise be one more.
    if number and not t.rounds.filter(number=int(number)).exists():
        raise Http404(_("No such round"))
    return _page(
        request, t, query, "tournaments/pairings.html", "tournaments/_pairings.html",
        lambda: pages.pairings(t, query.values), lambda: pages.pairings_page(t, query.values),
    )  # fmt: skip


@live_page()
def player(request: HttpRequest, t: Tournament, query: live.Query, pid: str) -> HttpResponse:
    me = _player_or_404(t, pid)
    return _page(
        request, t, query, "tournaments/player.html", "tournaments/_player.html",
        lambda: pages.player(t, me),
        lambda: {"me": me, "me_name": display_name(t, me), "deck_public": _deck_public(t, me)},
        tracked=("player", me.external_id),
    )  # fmt: skip


def _deck_public(t: Tournament, me: Player) -> bool:
    """Whether the player's decklist is published (issue 28): their page links it. On
    the full page only, whose ETag is a digest of itself."""
    if not t.decklists_published:
        return False
    return me.external_id in published_ids(t)


@live_page()
def player_tiebreakers(
    request: HttpRequest, t: Tournament, query: live.Query, pid: str
) -> HttpResponse:
    me = _player_or_404(t, pid)
    return _page(
        request, t, query, "tournaments/player_tiebreakers.html",
        "tournaments/_tiebreakers.html",
        lambda: pages.player_tiebreakers(t, me),
        lambda: {"me": me, "me_name": display_name(t, me)},
    )  # fmt: skip


@live_page()
def bracket(request: HttpRequest, t: Tournament, query: live.Query) -> HttpResponse:
    return _page(
        request, t, query, "tournaments/bracket.html", "tournaments/_bracket.html",
        lambda: pages.bracket(t), by_version=True,
    )  # fmt: skip


@live_page(INTERVAL)
def projector(request: HttpRequest, t: Tournament, query: live.Query) -> HttpResponse:
    """The venue's screen. ?interval=ms (read by projector.js only) turns pages faster."""
    from tournaments.pages.projector import projector as projector_screen

    return _page(
        request, t, query, "tournaments/projector.html", "tournaments/_projector.html",
        lambda: projector_screen(t), by_version=True,
    )  # fmt: skip


def live_events(request: HttpRequest, slug: str) -> HttpResponse:
    """A live page's event stream (tournaments.stream) under a WSGI server: ?player=<id>
    for a player's page, ?near=<id> for the standings around them, nothing for a shared
    page. (Under ASGI, tournaments/asgi.py answers streams before Django.)"""
    base = stream.event_base(slug)
    if base is None:
        raise Http404(_("No such tournament"))
    if not settings.LIVE_STREAM_THREADS:
        return HttpResponse(status=204)  # EventSource stops; live.js polls instead
    pages, at = stream.following(request.GET)
    body = stream.events(base, pages, at, seconds=stream.STREAM_SECONDS)
    response = StreamingHttpResponse(body)
    for name, value in stream.STREAM_HEADERS.items():
        response[name] = value
    return response


def _csv_response(body: str, filename: str) -> HttpResponse:
    """An export: English field names and words whatever the reader's language (issue 29:
    the views build `body` under translation.override)."""
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def standings_csv(request: HttpRequest, slug: str) -> HttpResponse:
    """The standings as the command line writes them (`manage.py standings --format csv`)."""
    t = get_object_or_404(Tournament, slug=slug)
    with translation.override(settings.LANGUAGE_CODE):
        body = exports.standings_csv(t)
    return _csv_response(body, f"{t.slug}-standings.csv")


def pairings_csv(request: HttpRequest, slug: str) -> HttpResponse:
    """A round's pairings (?round=N, else the current round), one line per player."""
    t = get_object_or_404(Tournament, slug=slug)
    number = request.GET.get("round", "")
    if number and ascii_int(number) is None:
        raise Http404(_("No such round"))
    round_ = pages.round_of(t, number)
    if round_ is None:
        raise Http404(_("No such round"))
    with translation.override(settings.LANGUAGE_CODE):
        body = exports.pairings_csv(t, round_)
    return _csv_response(body, f"{t.slug}-round-{round_.number}-pairings.csv")


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
