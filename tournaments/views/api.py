"""The public read-only JSON API: standings, a round's pairings, one player's rounds, and
"what do I need?" for the current round (outlook.json).

No login and no cookie: anyone may read what the public pages show, and a shared proxy
or CDN may keep a response for a couple of seconds (`Cache-Control: public`). The ETag is
the tournament's version, so a client polling an unchanged event costs one small query
and gets a 304. Browsers on other sites may read it (CORS, GET only). The bodies come
from the read model (tournaments.pages.exports), rendered once per version.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils import translation
from django.utils.http import quote_etag
from django.views.decorators.csrf import csrf_exempt

from scoring import outlooks
from tournaments import live
from tournaments.models import Entry, Player, Round, Tournament
from tournaments.pages import exports
from tournaments.pages.public import round_of
from tournaments.views.public import canonical_redirect, plain_path

View = Callable[..., HttpResponse]

# Long enough for a proxy to answer a burst of phones from one copy, short enough that a
# result shows within the 5 s phones are promised (issue 4).
MAX_AGE_SECONDS = 2
JSON_TYPE = "application/json"


def _cors(response: HttpResponse) -> HttpResponse:
    response["Access-Control-Allow-Origin"] = "*"
    # A cross-site script may read the ETag to send If-None-Match itself.
    response["Access-Control-Expose-Headers"] = "ETag"
    return response


def _error(status: int, message: str) -> HttpResponse:
    body = json.dumps({"error": message}, ensure_ascii=False)
    response = HttpResponse(body, status=status, content_type=JSON_TYPE)
    response["Cache-Control"] = "no-cache"
    return _cors(response)


def json_endpoint(
    view: View | None = None,
    *,
    stamp: Callable[[Tournament], str] | None = None,
    params: tuple[live.Param, ...] = (),
) -> Any:
    """Bind the tournament, answer If-None-Match with 304 while its version is unchanged,
    and set the caching and CORS headers. The view returns the body's data; it is
    serialized once per version (and query) and served from the cache after that.

    `params`: the query parameters the view reads, the only ones its cache key holds; a
    query string with anything else, or a value not in its normal form, is redirected
    (301) to the canonical URL before any lookup, as the public pages are
    (tournaments.views.public.live_page), so that no cache keeps a copy per `?x=N`.

    `stamp`: for a body that also shows what changes without the version (the "what do
    I need?" figures, computed in the background), a short text naming that state; it
    joins the version in the ETag and the cache key."""
    if view is None:
        return functools.partial(json_endpoint, stamp=stamp, params=params)

    @functools.wraps(view)
    @csrf_exempt  # read-only: nothing to forge, and a refused POST is answered here (405)
    def wrapper(request: HttpRequest, slug: str, **kwargs: Any) -> HttpResponse:
        if request.method == "OPTIONS":  # a preflight (a script sending If-None-Match)
            response = HttpResponse(status=204)
            response["Access-Control-Allow-Methods"] = "GET, HEAD, OPTIONS"
            response["Access-Control-Allow-Headers"] = "If-None-Match"
            response["Access-Control-Max-Age"] = "86400"
            return _cors(response)
        if request.method not in ("GET", "HEAD"):
            response = _error(405, "This API is read-only: use GET.")
            response["Allow"] = "GET, HEAD, OPTIONS"
            return response
        try:
            query = live.read_query(request.GET, request.META.get("QUERY_STRING", ""), params)
        except Http404 as exc:
            return _error(404, str(exc))
        if not query.exact:
            return _cors(canonical_redirect(request, query))
        if not plain_path(request.path):
            return _error(404, "No such resource.")
        t = Tournament.objects.filter(slug=slug).order_by().first()  # slug is unique
        if t is None:
            return _error(404, f"No tournament {slug!r}.")
        # created_at guards against a deleted event's slug reused at the same version.
        version = f"{t.version}.{stamp(t)}" if stamp is not None else str(t.version)
        etag = quote_etag(f"{t.created_at.timestamp():.0f}.{version}")
        wanted = [e.strip() for e in request.headers.get("If-None-Match", "").split(",")]
        if etag in wanted or "*" in wanted:
            response: HttpResponse = HttpResponseNotModified()
        else:
            try:
                build = view(request, t, query, **kwargs)
            except Http404 as exc:
                return _error(404, str(exc))
            subject = "/".join(str(v) for v in kwargs.values())
            key = (
                f"api:{t.pk}:{t.created_at.timestamp()}:{version}:{view.__name__}:"
                f"{quote(subject, safe='')}:{quote(query.text, safe='=&')}"
            )
            body = live.render_once(key, lambda: _english_json(build))
            response = HttpResponse(body, content_type=JSON_TYPE)
        response["ETag"] = etag
        response["Cache-Control"] = f"public, max-age={MAX_AGE_SECONDS}"
        return _cors(response)

    return wrapper


def _english_json(build: Callable[[], Any]) -> str:
    """The API speaks English whatever the reader's language (issue 29): its key holds no
    language, and a label the read model translates must not reach it translated."""
    with translation.override(settings.LANGUAGE_CODE):
        return json.dumps(build(), ensure_ascii=False)


def _round(t: Tournament, query: live.Query) -> Round | None:
    """?round=N (live.round_number refused what is not a number), else the current round
    (None before round 1 is paired)."""
    number = query.get("round")
    round_ = round_of(t, number)
    if number and round_ is None:
        raise Http404(f"No round {number} in this tournament.")
    return round_


@json_endpoint
def standings(
    request: HttpRequest, t: Tournament, query: live.Query
) -> Callable[[], dict[str, Any]]:
    return lambda: exports.standings_json(t)


@json_endpoint(params=(live.Param("round", live.round_number),))
def pairings(
    request: HttpRequest, t: Tournament, query: live.Query
) -> Callable[[], dict[str, Any]]:
    round_ = _round(t, query)
    return lambda: exports.pairings_json(t, round_)


@json_endpoint(stamp=outlooks.stamp)
def player(
    request: HttpRequest, t: Tournament, query: live.Query, pid: str
) -> Callable[[], dict[str, Any]]:
    # PostgreSQL refuses NUL in text: no player can have it.
    me = (
        None
        if "\x00" in pid
        else Player.objects.filter(tournament=t, external_id=pid, entry=Entry.ACCEPTED).first()
    )
    if me is None:
        raise Http404(f"No player {pid!r} in this tournament.")
    return lambda: {
        **exports.player_json(t, me),
        "outlook": outlooks.player_document(t, me.external_id),
    }


@json_endpoint(stamp=outlooks.stamp)
def outlook(request: HttpRequest, t: Tournament, query: live.Query) -> Callable[[], dict[str, Any]]:
    """ "What do I need?" for the current round: every player's answer, every table's draw."""
    return lambda: outlooks.document(t)
