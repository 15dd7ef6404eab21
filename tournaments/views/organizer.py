"""The organizer's screens: function-based, one screen or one action each.

A view binds a form, calls ONE service and returns the full page, or for HTMX the partial
the page itself includes (plus out-of-band panels that changed with it). Every action is
also a plain form POST: success redirects back to the screen, a refusal re-renders the
page with the message (422). Nothing here decides anything a service decides.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.forms import Form
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from tournaments import live, services
from tournaments.forms import (
    CutForm,
    GameForm,
    PasteForm,
    PlayerForm,
    ResultForm,
    TopCutForm,
    TournamentForm,
)
from tournaments.models import Match, MatchKind, Player, Round, Tournament
from tournaments.pages import organizer as pages
from tournaments.pages import public as public_pages
from tournaments.parsing import ascii_int
from tournaments.permissions import manager_required
from tournaments.services import ServiceError
from tournaments.services.results import MatchNotFound

T = "tournaments/manage/"


def first_error(form: Form) -> str:
    for errors in form.errors.values():
        for error in errors:
            return str(error)
    return "Check the form."


# --- The board -------------------------------------------------------------------------------


def standings_html(t: Tournament) -> str:
    """The organizer's standings panel: the phones' own cached standings fragment (it
    polls for itself, so a result entry never re-sends the standings)."""
    return live.fragment(t, "scoring/_standings.html", "", "", lambda: public_pages.standings(t))


def board_context(
    tournament: Tournament, *, round_number: int | None = None, **extra: Any
) -> dict[str, Any]:
    """Everything the event screen shows, read fresh after the service wrote."""
    t = Tournament.objects.get(pk=tournament.pk)
    ctx = pages.board(t, round_number=round_number)
    ctx.update(
        cut_form=CutForm(),
        top_cut_form=TopCutForm(initial={"size": t.top_cut or 8}),
        player_form=PlayerForm(),
        paste_form=PasteForm(),
        standings_html=standings_html(t),
    )
    ctx.update(extra)
    return ctx


def render_board(
    request: HttpRequest, tournament: Tournament, *, status: int = 200, **extra: Any
) -> HttpResponse:
    template = T + ("_board.html" if request.htmx else "event.html")
    return render(request, template, board_context(tournament, **extra), status=status)


def back_to_event(tournament: Tournament, anchor: str = "") -> HttpResponse:
    return redirect(reverse("manage_event", args=[tournament.slug]) + anchor)


# --- Dashboard: my tournaments and create --------------------------------------------------


def dashboard_context(request: HttpRequest, form: TournamentForm | None = None) -> dict[str, Any]:
    return {**pages.dashboard(request.user), "form": form or TournamentForm()}


@login_required
@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    template = T + ("_dashboard.html" if request.htmx else "dashboard.html")
    return render(request, template, dashboard_context(request))


@login_required
@require_POST
def create(request: HttpRequest) -> HttpResponse:
    form = TournamentForm(request.POST)
    if form.is_valid():
        try:
            t = services.create_tournament(owner=request.user, **form.cleaned_data)
        except ServiceError as exc:
            form.add_error(None, str(exc))
        else:
            url = reverse("manage_event", args=[t.slug])
            if request.htmx:
                return HttpResponseClientRedirect(url)
            return redirect(url)
    template = T + ("_dashboard.html" if request.htmx else "dashboard.html")
    return render(request, template, dashboard_context(request, form), status=422)


# --- The event screen -----------------------------------------------------------------------


@manager_required
@require_GET
def event(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    return render_board(request, tournament)


@manager_required
@require_GET
def round_view(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    get_object_or_404(Round, tournament=tournament, number=number, playoff=False)
    ctx = board_context(tournament, round_number=number)
    template = T + ("_rounds.html" if request.htmx else "event.html")
    return render(request, template, ctx)


# --- Players ------------------------------------------------------------------------------------


def players_response(
    request: HttpRequest,
    tournament: Tournament,
    *,
    error: str = "",
    notice: str = "",
    status: int = 200,
    **extra: Any,
) -> HttpResponse:
    if not request.htmx:
        if error:
            return render(
                request,
                T + "event.html",
                board_context(tournament, players_error=error, **extra),
                status=status,
            )
        if notice:
            messages.success(request, notice)
        return back_to_event(tournament, "#players-panel")
    ctx = board_context(tournament, players_error=error, players_notice=notice, oob=True, **extra)
    return render(request, T + "_players_response.html", ctx, status=status)


@manager_required
@require_POST
def add_player(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    form = PlayerForm(request.POST)
    if not form.is_valid():
        return players_response(request, tournament, error=first_error(form), status=422)
    try:
        services.register_players(
            tournament=tournament,
            names=[form.cleaned_data["name"]],
            allow_duplicates=request.POST.get("allow_duplicates") == "yes",
            by=request.user,
        )
    except services.DuplicateNames as exc:
        return players_response(
            request, tournament, error=str(exc), status=422,
            duplicates={"field": "name", "value": form.cleaned_data["name"]},
        )  # fmt: skip
    except ServiceError as exc:
        return players_response(request, tournament, error=str(exc), status=422)
    late = " (late entry, starts at 0 points)" if tournament.rounds.exists() else ""
    return players_response(request, tournament, notice=f"Added {form.cleaned_data['name']}{late}.")


@manager_required
@require_POST
def paste_players(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    form = PasteForm(request.POST)
    if not form.is_valid():
        return players_response(
            request, tournament, error=first_error(form), status=422, paste_form=form
        )
    try:
        added = services.register_players(
            tournament=tournament,
            names=form.cleaned_data["names"],
            allow_duplicates=request.POST.get("allow_duplicates") == "yes",
            by=request.user,
        )
    except services.DuplicateNames as exc:
        return players_response(
            request, tournament, error=str(exc), status=422, paste_form=form,
            duplicates={"field": "names", "value": "\n".join(form.cleaned_data["names"])},
        )  # fmt: skip
    except ServiceError as exc:
        return players_response(request, tournament, error=str(exc), status=422, paste_form=form)
    return players_response(request, tournament, notice=f"Added {len(added)} players.")


def player_of(tournament: Tournament, pk: int) -> Player:
    return get_object_or_404(Player, pk=pk, tournament=tournament)


@manager_required
@require_POST
def remove_player(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    try:
        name = services.remove_player(player=player_of(tournament, pk), by=request.user)
    except ServiceError as exc:
        return players_response(request, tournament, error=str(exc), status=422)
    return players_response(request, tournament, notice=f"Removed {name}.")


@manager_required
@require_POST
def rename_player(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    player = player_of(tournament, pk)
    form = PlayerForm(request.POST)
    if not form.is_valid():
        return players_response(request, tournament, error=first_error(form), status=422)
    try:
        services.rename_player(player=player, name=form.cleaned_data["name"], by=request.user)
    except ServiceError as exc:
        return players_response(request, tournament, error=str(exc), status=422)
    return players_response(request, tournament, notice=f"Renamed to {player.name}.")


@manager_required
@require_POST
def drop_player(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    player = services.drop_player(player=player_of(tournament, pk), by=request.user)
    return players_response(request, tournament, notice=f"{player.name} dropped.")


@manager_required
@require_POST
def readmit_player(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    player = services.readmit_player(player=player_of(tournament, pk), by=request.user)
    return players_response(request, tournament, notice=f"{player.name} is back in.")


# --- Rounds: pair, undo, cut, top cut, finish ------------------------------------------------


def board_action(
    request: HttpRequest, tournament: Tournament, *, error: str = "", notice: str = ""
) -> HttpResponse:
    if error:
        return render_board(request, tournament, status=422, board_error=error)
    if not request.htmx:
        messages.success(request, notice)
        return back_to_event(tournament)
    return render_board(request, tournament, board_notice=notice)


@manager_required
@require_POST
def pair(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    byes = [ascii_int(pk) for pk in request.POST.getlist("agreed_bye")]
    if None in byes:
        return board_action(request, tournament, error="Pick agreed byes from the list.")
    try:
        round_ = services.pair_next_round(
            tournament=tournament,
            agreed_byes=[pk for pk in byes if pk is not None],
            by=request.user,
        )
    except ServiceError as exc:
        return board_action(request, tournament, error=str(exc))
    what = "Playoff round" if round_.playoff else "Round"
    return board_action(request, tournament, notice=f"{what} {round_.number} is paired.")


@manager_required
@require_POST
def undo(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    try:
        number = services.undo_round(tournament=tournament, by=request.user)
    except ServiceError as exc:
        return board_action(request, tournament, error=str(exc))
    return board_action(request, tournament, notice=f"The pairing of round {number} is undone.")


@manager_required
@require_POST
def cut(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    form = CutForm(request.POST)
    if not form.is_valid():
        return board_action(request, tournament, error=first_error(form))
    value = form.cleaned_data["value"]
    by_points = form.cleaned_data["mode"] == "points"
    try:
        advancing = services.cut_to_next_phase(
            tournament=tournament,
            min_points=value if by_points else None,
            top=None if by_points else value,
            by=request.user,
        )
    except ServiceError as exc:
        return board_action(request, tournament, error=str(exc))
    return board_action(
        request, tournament, notice=f"{len(advancing)} players made the cut to the next phase."
    )


@manager_required
@require_POST
def top_cut(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    form = TopCutForm(request.POST)
    if not form.is_valid():
        return board_action(request, tournament, error=first_error(form))
    try:
        services.start_top_cut(
            tournament=tournament, size=form.cleaned_data["size"], by=request.user
        )
    except ServiceError as exc:
        return board_action(request, tournament, error=str(exc))
    return board_action(
        request, tournament, notice=f"The top {form.cleaned_data['size']} is paired."
    )


@manager_required
@require_POST
def finish(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Finishing locks results and drops, so it is confirmed first: by the browser's
    dialog with HTMX (the button sends confirm=yes), by a page of its own without it."""
    if request.POST.get("confirm") != "yes":
        return render(request, T + "finish_confirm.html", {"tournament": tournament})
    try:
        services.finish(tournament=tournament, by=request.user)
    except ServiceError as exc:
        return board_action(request, tournament, error=str(exc))
    return board_action(request, tournament, notice="The tournament is finished.")


@manager_required
@require_POST
def reopen(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Only the owner (or a site admin) takes back "finish"."""
    if not (request.user.is_superuser or tournament.owner_id == request.user.pk):
        raise PermissionDenied("Only the tournament's owner can reopen it.")
    try:
        services.reopen(tournament=tournament, by=request.user)
    except ServiceError as exc:
        return board_action(request, tournament, error=str(exc))
    return board_action(request, tournament, notice="The tournament is open again.")


# --- Results --------------------------------------------------------------------------------------


def match_of(tournament: Tournament, pk: int) -> Match:
    return get_object_or_404(
        Match.objects.select_related("round"), pk=pk, round__tournament=tournament
    )


def result_response(
    request: HttpRequest,
    tournament: Tournament,
    match: Match,
    *,
    error: str = "",
) -> HttpResponse:
    """After a result (or its refusal): the plain POST goes back to the round screen; the
    HTMX one gets its row and the round's status, not the board (the standings panel
    refreshes itself from its cached fragment)."""
    status = 422 if error else 200
    number = None if match.round.playoff else match.round.number
    if not request.htmx:
        if error:
            ctx = board_context(
                tournament, round_number=number, round_error=error, error_match=match.pk
            )
            return render(request, T + "event.html", ctx, status=status)
        notice = pages.after_result(tournament, match)["round_notice"]
        if notice:
            messages.warning(request, notice)
        if match.round.playoff:
            return back_to_event(tournament, "#bracket-panel")
        url = reverse("manage_round", args=[tournament.slug, match.round.number])
        return redirect(f"{url}#match-{match.pk}")
    if match.round.playoff:
        # A playoff result decides who plays on: the bracket panel and the actions.
        ctx = board_context(tournament, bracket_error=error, oob=True)
        return render(request, T + "_bracket_response.html", ctx, status=status)
    t = tournament
    ctx = {
        "tournament": t,
        "match": (
            pages.decorate(match, t.best_of)
            if hasattr(match, "seat_list")
            else pages.match_row(t, match.pk)
        ),
        "round_error": error,
        "error_match": match.pk if error else None,
        "oob": True,
        **({} if error else pages.after_result(t, match)),
    }
    if ctx.get("actions_changed"):
        ctx.update(cut_form=CutForm(), top_cut_form=TopCutForm(initial={"size": t.top_cut or 8}))
    template = "_game_response.html" if match.kind == MatchKind.GAME else "_result_response.html"
    return render(request, T + template, ctx, status=status)


@manager_required
@require_POST
def result(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    form = ResultForm(request.POST)
    if not form.is_valid():
        return result_response(
            request, tournament, match_of(tournament, pk), error=first_error(form)
        )
    data = form.cleaned_data
    try:
        # The service finds the match in this event (under the lock) and hands it back
        # with its seats: the row is rendered from it, with no second read.
        match = services.record_result(
            match=pk,
            tournament=tournament,
            wins=data["wins"],
            draws=data["draws"],
            double_loss=data["double_loss"],
            by=request.user,
        )
    except MatchNotFound:
        raise Http404("No such match in this event") from None
    except ServiceError as exc:
        return result_response(request, tournament, match_of(tournament, pk), error=str(exc))
    return result_response(request, tournament, match)


@manager_required
@require_POST
def game(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    match = match_of(tournament, pk)
    seats = list(match.seats.select_related("player").order_by("position"))
    form = GameForm(request.POST, seats=seats)
    if not form.is_valid():
        return result_response(request, tournament, match, error=first_error(form))
    data = form.cleaned_data
    try:
        services.record_game(
            match=match,
            places=data["places"],
            scores=data["scores"],
            absent=data["absent"],
            by=request.user,
        )
    except ServiceError as exc:
        return result_response(request, tournament, match, error=str(exc))
    return result_response(request, tournament, match)
