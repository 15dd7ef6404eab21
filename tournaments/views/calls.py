"""Judge calls (issue 27): a player's "Call a judge" from their private link, and the
judges' screen (/t/<slug>/judge/), their home on the floor.

Every action is a plain POST that redirects (no JavaScript needed) or, for htmx, answers
the section it came from. Refusals name the problem: 422 (nothing to call a judge to, a
call another judge has), 429 (too many calls from one link: Retry-After says how long).
The player's answers carry the private link's headers (permissions.private_link).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from tournaments.models import JudgeCall, Player, Tournament
from tournaments.pages import calls as pages
from tournaments.parsing import ascii_int
from tournaments.permissions import judge_required, private_link
from tournaments.services import calls as services
from tournaments.services.writing import ServiceError

C = "tournaments/calls/"


# --- The player -------------------------------------------------------------------------


def _player_answer(
    request: HttpRequest,
    player: Player,
    token: str,
    *,
    notice: str = "",
    error: str = "",
    status: int = 200,
    typed: str = "",
) -> HttpResponse:
    """htmx: the call panel again (with the message); plain: a message on a page of its
    own for a refusal, else back to the private page."""
    if not request.htmx and not error:
        if notice:
            messages.info(request, notice)
        return redirect(reverse("private_page", args=[token]))
    ctx = {
        "player": player,
        "tournament": player.tournament,
        "token": token,
        "pc": pages.player_call(player),
        "error": error,
        "notice": notice,
        "typed_note": typed,
        "private_url": reverse("private_page", args=[token]),
    }
    template = "tournaments/private/_call_panel.html" if request.htmx else C + "call_page.html"
    return render(request, template, ctx, status=status)


@private_link
@require_POST
def call(request: HttpRequest, player: Player, token: str) -> HttpResponse:
    """The player calls a judge to their table."""
    typed = request.POST.get("note", "")[: services.NOTE_MAX * 2]
    try:
        services.call_judge(player=player, note=typed)
    except services.TooManyCalls as exc:
        response = _player_answer(request, player, token, error=str(exc), status=429, typed=typed)
        return exc.refused.headers(response)
    except services.AlreadyCalled as exc:
        return _player_answer(request, player, token, notice=str(exc))
    except ServiceError as exc:
        return _player_answer(request, player, token, error=str(exc), status=422, typed=typed)
    return _player_answer(request, player, token)


# --- The judges ---------------------------------------------------------------------------


def _floor(
    request: HttpRequest,
    t: Tournament,
    *,
    error: str = "",
    notice: str = "",
    status: int = 200,
    **extra: Any,
) -> HttpResponse:
    ctx = {"tournament": t, "f": pages.floor(t, request.user), "error": error, "notice": notice}
    template = C + ("_floor.html" if request.htmx else "floor.html")
    return render(request, template, {**ctx, **extra}, status=status)


@judge_required
@require_GET
def floor(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The judges' screen: open calls, who has each, the last resolved ones."""
    return _floor(request, tournament)


def _after(request: HttpRequest, t: Tournament, done: str, error: str) -> HttpResponse:
    if not request.htmx:
        if error:
            messages.error(request, error)
        else:
            messages.success(request, done)
        return redirect(reverse("judge_floor", args=[t.slug]))
    return _floor(
        request, t, error=error, notice="" if error else done, status=422 if error else 200
    )


def _action(
    act: Callable[..., JudgeCall], done: Callable[[JudgeCall], str], doc: str
) -> Callable[..., HttpResponse]:
    @judge_required
    @require_POST
    def view(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
        found = get_object_or_404(JudgeCall, pk=pk, tournament=tournament)
        extra: dict[str, Any] = {}
        if act is services.resolve_call:
            extra["resolution"] = request.POST.get("resolution", "")[: services.NOTE_MAX * 2]
        try:
            changed = act(call=found, by=request.user, tournament=tournament, **extra)
        except ServiceError as exc:
            return _after(request, tournament, "", str(exc))
        return _after(request, tournament, done(changed), "")

    view.__doc__ = doc
    return view


claim = _action(
    services.claim_call,
    lambda c: _("Table %(table)s: the call is yours.") % {"table": c.table},
    "The judge takes the call (a call another judge has is refused with their name).",
)
release = _action(
    services.release_call,
    lambda c: _("Table %(table)s: the call is open again.") % {"table": c.table},
    "The judge gives the call back.",
)
hand = _action(
    services.hand_to_head,
    lambda c: _("Table %(table)s: handed to the head judge.") % {"table": c.table},
    "The call goes to the head judge's screen, first and marked.",
)
resolve = _action(
    services.resolve_call,
    lambda c: _("Table %(table)s: resolved.") % {"table": c.table},
    "The call is dealt with: it leaves the open calls.",
)


@judge_required
@require_POST
def open_for_table(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """A judge opens a call for a table of the round being played."""
    typed = {k: request.POST.get(k, "")[:400] for k in ("table", "note")}
    table = ascii_int(typed["table"].strip())
    error, done = "", ""
    if table is None or table < 1:
        error = _("Give the table as a number (the one on the table's sign).")
    else:
        try:
            found = services.open_call(
                tournament=tournament, table=table, note=typed["note"], by=request.user
            )
            done = _("Table %(table)s: call opened.") % {"table": found.table}
        except ServiceError as exc:  # AlreadyCalled too: the table's call is listed
            error = str(exc)
    if not request.htmx:
        if error:
            return _floor(request, tournament, open_error=error, typed=typed, status=422)
        messages.success(request, done)
        return redirect(reverse("judge_floor", args=[tournament.slug]))
    # The form again, and the calls beside it (out of band): the new call shows at once.
    ctx = {
        "tournament": tournament,
        "f": pages.floor(tournament, request.user),
        "open_error": error,
        "open_notice": done,
        "typed": {} if done else typed,
        "oob": True,
    }
    return render(request, C + "_open_form.html", ctx, status=422 if error else 200)
