"""What the notifications' opt-in shows (templates/tournaments/push/_optin.html): on a
player's private page, or on the judges' screen."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _

from tournaments.models import Player, PushSubscription, Status, Tournament
from tournaments.vapid import server_keys
from tournaments.venue import is_loopback


def secure(request: HttpRequest) -> bool:
    """Whether the browser will offer the Push API here: only on a secure page (HTTPS,
    or this machine itself, which browsers count as secure)."""
    return request.is_secure() or is_loopback(request.get_host().rsplit(":", 1)[0].strip("[]"))


def offer(
    request: HttpRequest,
    *,
    player: Player | None = None,
    token: str = "",
    tournament: Tournament | None = None,
) -> dict[str, Any]:
    """The opt-in's context: for a player (with their token) or for the judge asking."""
    if player is not None:
        t = player.tournament
        url = reverse("private_push", args=[token])
        scope = reverse("private_page", args=[token])
        mine = PushSubscription.objects.filter(tournament=t, player=player)
        what = _("Get a notification on this phone when your pairing is up, when your "
                 "opponent reports, when a judge answers your call and five minutes "
                 "before your time ends.")  # fmt: skip
        fallback = _("Keep this page open instead: it beeps and vibrates when your pairing "
                     "is up or your opponent reports (tap the page once to allow it).")  # fmt: skip
    else:
        assert tournament is not None
        t = tournament
        url = reverse("judge_push", args=[t.slug])
        scope = reverse("judge_floor", args=[t.slug])
        mine = PushSubscription.objects.filter(tournament=t, user=request.user)
        what = _("Get a notification on this device for every new judge call.")
        fallback = _("Keep this screen open instead: it beeps and vibrates for every new call.")
    reason = ""
    if t.status == Status.FINISHED:
        reason = _("The event is finished: there is nothing left to notify.")
    elif not secure(request):
        reason = _("Notifications are not offered here: browsers allow them only on a secure "
                   "(HTTPS) connection, and this event is served over plain HTTP on the "
                   "venue's network.")  # fmt: skip
    return {
        "push": {
            "offered": not reason,
            "reason": reason,
            "fallback": fallback,
            "what": what,
            "url": url,
            "scope": scope,
            "key": server_keys().public_key if not reason else "",
            "devices": mine.count(),
        }
    }
