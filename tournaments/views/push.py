"""Notifications with Web Push (issue 29): the service worker, and the opt-in of a
player (their private page, /p/<token>/push/) and of a judge (the judges' screen,
/t/<slug>/judge/push/).

The page's script (static/js/push.js) subscribes with the browser's PushManager and
posts the subscription here as JSON (`{"endpoint", "keys": {"p256dh", "auth"}}`), or
`{"endpoint", "action": "stop"}` to stop. It sends
HX-Request, and gets the opt-in section back; a refusal is that section with the
message, status 422. Without JavaScript nothing can subscribe (the Push API is a
script's), but the plain form "Stop notifications on every device" works: it posts
action=stop without an endpoint, and is redirected back to the page.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from tournaments.models import Player, PushSubscription, Tournament
from tournaments.pages.push import offer
from tournaments.permissions import judge_required, private_link
from tournaments.services import push as services
from tournaments.services.writing import ServiceError

BODY_MAX = 4096  # a subscription's JSON is a few hundred bytes
OPTIN = "tournaments/push/_optin.html"


@lru_cache(maxsize=1)
def _worker_source() -> bytes:
    found = finders.find("js/push-sw.js")
    assert isinstance(found, str), "static/js/push-sw.js is missing"
    with open(found, "rb") as file:
        return file.read()


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, from the site's root: a worker's scope can only be under its
    own path, and each page registers it for its own (/p/<token>/, /t/<slug>/judge/)."""
    response = HttpResponse(_worker_source(), content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    response["Cache-Control"] = "no-cache"  # a new version reaches the phones at once
    return response


def _parsed(request: HttpRequest) -> tuple[str, Any]:
    """(action, data) from the JSON body, or from a form's fields."""
    if request.content_type == "application/json":
        if len(request.body) > BODY_MAX:
            raise services.SubscriptionRefused(_("The subscription is too long."))
        try:
            data = json.loads(request.body.decode("utf-8") or "null")
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise services.SubscriptionRefused(_("The subscription is not valid JSON.")) from None
        action = data.get("action", "") if isinstance(data, dict) else ""
        return str(action), data
    post = request.POST
    data = {
        "endpoint": post.get("endpoint", ""),
        "keys": {"p256dh": post.get("p256dh", ""), "auth": post.get("auth", "")},
    }
    return post.get("action", ""), data


def _answer(
    request: HttpRequest,
    *,
    context: dict[str, Any],
    back: str,
    notice: str = "",
    error: str = "",
) -> HttpResponse:
    if not request.htmx:
        return redirect(back)  # the plain form: back to the page, which shows the state
    ctx = {**context, "push_notice": notice, "push_error": error}
    return render(request, OPTIN, ctx, status=422 if error else 200)


def _act(
    request: HttpRequest,
    *,
    tournament: Tournament,
    player: Player | None,
    user: Any,
    context: dict[str, Any],
    back: str,
) -> HttpResponse:
    try:
        action, data = _parsed(request)
        if action == "stop":
            endpoint = data.get("endpoint") if isinstance(data, dict) else None
            if isinstance(endpoint, str) and endpoint:
                services.unsubscribe(
                    tournament=tournament, endpoint=endpoint, player=player, user=user
                )
            else:  # the plain form: every device of theirs
                mine = {"player": player} if player is not None else {"user": user}
                PushSubscription.objects.filter(tournament=tournament, **mine).delete()
            notice = _("Notifications are off on this device.")
        else:
            subscription = services.check_subscription(data)
            services.subscribe(
                tournament=tournament, subscription=subscription, player=player, user=user,
                language=get_language() or "",
            )  # fmt: skip
            notice = _("Notifications are on for this device.")
    except ServiceError as exc:
        return _answer(request, context=context(), back=back, error=str(exc))
    return _answer(request, context=context(), back=back, notice=notice)


@private_link
@require_POST
def player_push(request: HttpRequest, player: Player, token: str) -> HttpResponse:
    """The player turns notifications on (or off) for this phone."""
    page = reverse("private_page", args=[token])
    return _act(
        request,
        tournament=player.tournament,
        player=player,
        user=None,
        context=lambda: offer(request, player=player, token=token),
        back=page,
    )


@judge_required
@require_POST
def judge_push(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """A judge turns notifications of new calls on (or off) for this device."""
    return _act(
        request,
        tournament=tournament,
        player=None,
        user=request.user,
        context=lambda: offer(request, tournament=tournament),
        back=reverse("judge_floor", args=[tournament.slug]),
    )
