"""Players' own reports and self-drop from their private link (issue 14 items 4, 5, 7),
and the organizer's reset of a report.

Each player action is a POST with CSRF: the plain form goes back to the private page
(/p/<token>/) with a message; HTMX gets the panel it came from. A refusal names the
problem: 422 (impossible games, a closed round, a stale page), 429 (too many writes from
one link, for one event or from one address, and how long to wait), 404 (a link that is
not valid). As on the private page itself, every answer is `private, no-store`, sends no
Referer and is kept out of Django's request log, because the token is in the path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from tournaments import clientaddress, ratelimit
from tournaments.models import Match, Player, Tournament
from tournaments.pages import reports as pages
from tournaments.parsing import ascii_int
from tournaments.permissions import manager_required, private_link
from tournaments.services import reports as services
from tournaments.services.writing import ServiceError

P = "tournaments/private/"
# Reports, confirmations, disputes and drops count against one set of limits
# (ratelimit.report_limits: per link, per event, per address as a wide ceiling).
LIMITED = "reports and drops"
BAD_NUMBER = gettext_lazy(
    "Choose the number of games from the lists: %(field)s is not a number of games."
)
MAX_TYPED = 99  # rules.MAX_GAMES: beyond it a number is a typo, refused before the rules


def _limited(request: HttpRequest, player: Player) -> ratelimit.Refused | None:
    """Count this write; the limit it is over, if any."""
    return ratelimit.first_refused(
        ratelimit.report_limits(
            request,
            token_hash=player.token_hash,
            event_id=player.tournament_id,
            players=Player.objects.filter(tournament_id=player.tournament_id).count,
        ),
        address=clientaddress.of_request(request),
    )


def _refuse(
    request: HttpRequest, player: Player, token: str, partial: str, refused: ratelimit.Refused
) -> HttpResponse:
    """429, saying which limit and how long to wait (and Retry-After)."""
    response = _answer(request, player, token, partial, error=refused.message(LIMITED), status=429)
    return refused.headers(response)


def _private_url(token: str) -> str:
    return reverse("private_page", args=[token])


# What each template shows: an answer reads only its own panel (the report panel after a
# report, not the drop panel too), since a phone's report waits for it.
PANELS = {
    "_report_panel.html": ("report",),
    "_drop_panel.html": ("drop",),
    "_report_page.html": ("report", "drop"),
}


def _context(
    player: Player, token: str, template: str, *, fresh: bool = False, **extra: Any
) -> dict[str, Any]:
    """The template's context. `fresh`: read the player again (after their own drop);
    a report, a confirmation or a dispute leaves the player's row as the token read it."""
    if fresh:
        player = Player.objects.select_related("tournament").get(pk=player.pk)
    ctx = {
        "token": token,
        "player": player,
        "tournament": player.tournament,
        "private_url": _private_url(token),
        **extra,
    }
    panels = PANELS[template.removeprefix(P)]
    if "report" in panels:
        ctx["report"] = pages.player_panel(player)
    if "drop" in panels:
        ctx["drop"] = pages.drop_panel(player)
    return ctx


def _answer(
    request: HttpRequest,
    player: Player,
    token: str,
    partial: str,
    *,
    notice: str = "",
    error: str = "",
    status: int = 200,
    **extra: Any,
) -> HttpResponse:
    """After a player's action: the plain form goes back to the private page (a refusal
    shows this app's own page with the message); HTMX gets the panel again."""
    if not request.htmx and not error and status == 200:
        if notice:
            messages.success(request, notice)
        return redirect(_private_url(token))
    template = P + (partial if request.htmx else "_report_page.html")
    ctx = _context(player, token, template, notice=notice, error=error, **extra)
    # The whole page holds both panels: the message goes in the one the form was in.
    ctx["message_panel"] = "drop" if partial == "_drop_panel.html" else "report"
    return render(request, template, ctx, status=status)


def _games(request: HttpRequest, name: str, label: str) -> int:
    text = request.POST.get(name, "").strip()
    value = ascii_int(text) if text else 0 if name == "draws" else None
    if value is None or not 0 <= value <= MAX_TYPED:
        raise ServiceError(BAD_NUMBER % {"field": label})
    return value


def _match_pk(request: HttpRequest) -> int:
    pk = ascii_int(request.POST.get("match", ""))
    if pk is None:
        raise ServiceError(_("This form is missing its match: reload your page."))
    return pk


def _seen(request: HttpRequest) -> str:
    seen = request.POST.get("seen", "")
    if not seen:
        raise ServiceError(_("This form is out of date: reload your page and try again."))
    return seen[:64]


@private_link
@require_GET
def panel(request: HttpRequest, player: Player, token: str) -> HttpResponse:
    """The report panel (it polls itself while waiting for the opponent)."""
    template = P + ("_report_panel.html" if request.htmx else "_report_page.html")
    return render(request, template, _context(player, token, template))


@private_link
@require_POST
def report(request: HttpRequest, player: Player, token: str) -> HttpResponse:
    if (refused := _limited(request, player)) is not None:
        return _refuse(request, player, token, "_report_panel.html", refused)
    typed = {k: request.POST.get(k, "")[:4] for k in ("wins_mine", "wins_theirs", "draws")}
    try:
        services.report(
            player=player,
            match=_match_pk(request),
            wins_mine=_games(request, "wins_mine", _("games you won")),
            wins_theirs=_games(request, "wins_theirs", _("games your opponent won")),
            draws=_games(request, "draws", _("drawn games")),
            seen=_seen(request),
        )
    except ServiceError as exc:
        return _answer(
            request, player, token, "_report_panel.html", error=str(exc), status=422, typed=typed
        )
    return _answer(request, player, token, "_report_panel.html", notice=_("Your report is in."))


def _reply(action: Callable[..., Any], done: Any) -> Callable[..., HttpResponse]:
    """A confirmation or a dispute's view; `done` (lazy) is its notice."""

    @private_link
    @require_POST
    def view(request: HttpRequest, player: Player, token: str) -> HttpResponse:
        if (refused := _limited(request, player)) is not None:
            return _refuse(request, player, token, "_report_panel.html", refused)
        try:
            action(player=player, match=_match_pk(request), seen=_seen(request))
        except ServiceError as exc:
            return _answer(request, player, token, "_report_panel.html", error=str(exc), status=422)
        return _answer(request, player, token, "_report_panel.html", notice=str(done))

    return view


confirm = _reply(services.confirm, gettext_lazy("Confirmed: the result is in."))
confirm.__doc__ = "The opponent confirms the report: the result enters the standings."
dispute = _reply(services.dispute, gettext_lazy("Disputed: the organizer will settle the result."))
dispute.__doc__ = "The opponent disputes the report: the organizer settles it."


@private_link
@require_POST
def drop(request: HttpRequest, player: Player, token: str) -> HttpResponse:
    """Drop after this round: the first POST asks again (confirm=yes drops)."""
    if request.POST.get("confirm") != "yes":
        template = P + ("_drop_panel.html" if request.htmx else "_report_page.html")
        return render(request, template, _context(player, token, template, asking=True))
    if (refused := _limited(request, player)) is not None:
        return _refuse(request, player, token, "_drop_panel.html", refused)
    try:
        services.self_drop(player=player)
    except ServiceError as exc:
        return _answer(request, player, token, "_drop_panel.html", error=str(exc), status=422)
    return _answer(
        request,
        player,
        token,
        "_drop_panel.html",
        notice=_("You have dropped from the event."),
        fresh=True,
    )


# --- The organizer ------------------------------------------------------------------------


@manager_required
@require_GET
def to_check(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """The round's reports to check (disputed, or unanswered too long), with resets."""
    round_ = tournament.rounds.filter(number=number).first()
    if round_ is None:
        raise Http404("No such round in this event")
    ctx = {"tournament": tournament, "reports": pages.organizer_panel(round_)}
    # The full page lives under private/ only because this change may not add organizer
    # pages; the round screen includes manage/_reports.html itself.
    template = (
        "tournaments/manage/_reports.html" if request.htmx else P + "_report_organizer_page.html"
    )
    return render(request, template, ctx)


@manager_required
@require_POST
def reset(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    """The organizer removes a match's report (the players may report again)."""
    match = get_object_or_404(
        Match.objects.select_related("round"), pk=pk, round__tournament=tournament
    )
    error = ""
    try:
        services.reset_report(match=match, tournament=tournament, by=request.user)
    except ServiceError as exc:
        error = str(exc)
    if not request.htmx:
        if error:
            messages.error(request, error)
        else:
            messages.success(
                request, _("Table %(table)s: the report is reset.") % {"table": match.table}
            )
        return redirect(reverse("manage_round", args=[tournament.slug, match.round.number]))
    ctx = {
        "tournament": tournament,
        "reports": pages.organizer_panel(match.round),
        "reports_error": error,
        "reports_notice": (
            "" if error else _("Table %(table)s: the report is reset.") % {"table": match.table}
        ),
    }
    return render(request, "tournaments/manage/_reports.html", ctx, status=422 if error else 200)
