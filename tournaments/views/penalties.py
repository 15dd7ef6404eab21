"""Penalties on the floor (issue 27): the judges' screen (issue one, the event's list, a
player's history), withdrawing one entered by mistake, and the printable report.

One screen or one action each, for the event's floor team (permissions.judge_required);
a disqualification for the head judge and the organizer only (403 for anyone else).
Without JavaScript an action is a plain POST that redirects back to the screen (422 with
the screen and the message when refused); with HTMX it answers the screen's panel.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from tournaments.models import Match, PenaltyKind, Tournament
from tournaments.pages import penalties as pages
from tournaments.pages.printing import PAPERS, paper_of
from tournaments.parsing import ascii_int
from tournaments.permissions import is_head_judge, judge_required
from tournaments.rules import score_text
from tournaments.services.penalties import HEAD_ONLY, issue_penalty, withdraw_penalty
from tournaments.services.writing import ServiceError

T = "tournaments/judge/"


def _number(value: str) -> int | None:
    return ascii_int(value.strip()[:12]) if value.strip() else None


def _screen(
    request: HttpRequest, t: Tournament, *, status: int = 200, **extra: Any
) -> HttpResponse:
    """The penalty screen (the page, or for HTMX its panel), filtered as the query says."""
    t = Tournament.objects.get(pk=t.pk)  # as the service left it
    context = pages.screen(
        t,
        head=is_head_judge(request.user, t),
        player=_number(request.GET.get("player", "")),
        table=_number(request.GET.get("table", "")),
        **extra,
    )
    template = T + ("_penalties.html" if request.htmx else "penalties.html")
    response = render(request, template, context, status=status)
    patch_vary_headers(response, ["HX-Request"])
    return response


def _back(t: Tournament) -> HttpResponse:
    return redirect(reverse("judge_penalties", args=[t.slug]) + "#penalties-panel")


@require_GET
@judge_required
def penalties(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The form and the event's penalties, newest first; ?player=<pk> shows one player's
    history, ?table=N offers only that table's players in the form."""
    return _screen(request, tournament)


def _done(penalty: Any) -> str:
    """What the judge is told: the penalty, and the result it entered, if any, read from
    the penalized player's side ("table 3 entered, Ana Souza loses 0-2")."""
    said: dict[str, Any] = {
        "penalty": pages.penalty_name(penalty.penalty),
        "player": penalty.player.name,
        "infraction": pages.shown_infraction_name(penalty.infraction),
    }
    entered = False
    if penalty.penalty in (PenaltyKind.MATCH_LOSS, PenaltyKind.DISQUALIFICATION) and penalty.match:
        seats = list(penalty.match.seats.order_by("position"))
        mine = next(k for k, s in enumerate(seats) if s.player_id == penalty.player_id)
        match = Match.objects.get(pk=penalty.match_id)
        if match.reported and len(seats) == 2:
            # "0-2", read from the penalized player's side (their games first).
            own = seats[mine].games_won or 0
            theirs = [s.games_won or 0 for k, s in enumerate(seats) if k != mine]
            score = score_text([own, *theirs], match.draws)
            said.update(table=match.table, score=score)
            entered = True
    # One whole sentence per case: word order differs per language.
    if penalty.penalty == PenaltyKind.DISQUALIFICATION:
        if entered:
            return (
                _(
                    "%(penalty)s for %(player)s (%(infraction)s): table %(table)s entered, "
                    "%(player)s loses %(score)s; dropped from the event."
                )
                % said
            )
        return _("%(penalty)s for %(player)s (%(infraction)s); dropped from the event.") % said
    if entered:
        return (
            _(
                "%(penalty)s for %(player)s (%(infraction)s): table %(table)s entered, "
                "%(player)s loses %(score)s."
            )
            % said
        )
    return _("%(penalty)s for %(player)s (%(infraction)s).") % said


@require_POST
@judge_required
def issue(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Issue a penalty (services.penalties.issue_penalty) from the screen's form."""
    post = request.POST
    typed = {
        "player": post.get("player", "")[:12],
        "infraction": post.get("infraction", "")[:40],
        "penalty": post.get("penalty", "")[:12],
        "note": post.get("note", "")[:600],
    }
    if typed["penalty"] == PenaltyKind.DISQUALIFICATION and not is_head_judge(
        request.user, tournament
    ):
        raise PermissionDenied(_(HEAD_ONLY))
    player = _number(typed["player"])
    error = field = ""
    if player is None:
        error = _("Pick the player to penalize (by name, or find their table).")
        field = "player"
    elif not typed["infraction"]:
        error, field = _("Pick the infraction from the list."), "infraction"
    else:
        try:
            penalty = issue_penalty(
                tournament=tournament,
                player=player,
                infraction=typed["infraction"],
                penalty=typed["penalty"] or None,
                note=typed["note"],
                by=request.user,
            )
        except ServiceError as exc:
            error = str(exc)
    if error:
        return _screen(request, tournament, status=422, error=error, field=field, typed=typed)
    done = _done(penalty)
    if not request.htmx:
        messages.success(request, done)
        return _back(tournament)
    return _screen(request, tournament, done=done)


@require_POST
@judge_required
def withdraw(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    """Withdraw a penalty entered by mistake (services.penalties.withdraw_penalty)."""
    try:
        withdraw_penalty(tournament=tournament, penalty=pk, by=request.user)
    except ServiceError as exc:
        return _screen(request, tournament, status=422, list_error=str(exc))
    done = _("The penalty is withdrawn.")
    if not request.htmx:
        messages.success(request, done)
        return _back(tournament)
    return _screen(request, tournament, done=done)


@require_GET
@judge_required
def print_report(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The event's penalties on paper (print.css: A4 or Letter, no navigation printed)."""
    paper = paper_of(request.GET.get("paper"))
    here = request.GET.copy()
    papers = []
    for key, label in PAPERS.items():
        here["paper"] = key
        papers.append((key, label, f"?{here.urlencode()}"))
    context = {
        **pages.report(tournament),
        "paper": paper,
        "paper_label": PAPERS[paper],
        "papers": papers,
        "back_url": reverse("judge_penalties", args=[tournament.slug]),
    }
    template = "tournaments/print/" + ("_penalties.html" if request.htmx else "penalties.html")
    response = render(request, template, context)
    patch_vary_headers(response, ["HX-Request"])
    return response
