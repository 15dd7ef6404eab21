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
from django.db.models import Prefetch, Q
from django.forms import Form
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect, trigger_client_event

from tournaments import services
from tournaments.forms import (
    PLAYOFF_RESULTS,
    QUICK_RESULTS,
    CutForm,
    GameForm,
    PasteForm,
    PlayerForm,
    ResultForm,
    TopCutForm,
    TournamentForm,
)
from tournaments.models import Match, MatchKind, Player, Round, Seat, Status, System, Tournament
from tournaments.pairing.bracket import BRACKET_SEEDS, suggested_swiss_rounds
from tournaments.permissions import manager_required
from tournaments.services import ServiceError
from tournaments.views.event_tools import clock_context
from tournaments.views.public import result_text, standings_context

SWISS_SYSTEMS = {System.MTR, System.DCI, System.MELEE}
MTR_ROUNDS = [
    ("2-8", 3),
    ("9-16", "4 (top 4) or 5 (top 8)"),
    ("17-32", 5),
    ("33-64", 6),
    ("65-128", 7),
    ("129-226", 8),
    ("227-409", 9),
    ("410+", 10),
]
PLAYOFF_NAMES = {4: "Quarterfinals", 2: "Semifinals", 1: "Final"}
T = "tournaments/manage/"


def first_error(form: Form) -> str:
    for errors in form.errors.values():
        for error in errors:
            return str(error)
    return "Check the form."


# --- Context (reads only) ----------------------------------------------------------------


def seats_prefetch() -> Prefetch:
    return Prefetch(
        "seats",
        queryset=Seat.objects.select_related("player").order_by("position"),
        to_attr="seat_list",
    )


def decorate(match: Match, best_of: int) -> Match:
    """Display helpers on a match whose seats were prefetched as seat_list."""
    seats = match.seat_list  # type: ignore[attr-defined]
    match.winner_seat = services.winner(match, seats)  # type: ignore[attr-defined]
    # The text doubles as the value of the matching one-click button ("2-1", "0-0-3").
    two_player = match.kind in (MatchKind.PLAYED, MatchKind.DOUBLE_LOSS) and len(seats) == 2
    match.result_text = result_text(match, seats) if two_player else ""  # type: ignore[attr-defined]
    match.quick = (  # type: ignore[attr-defined]
        PLAYOFF_RESULTS if match.round.playoff else QUICK_RESULTS
    )[best_of]
    return match


def round_matches(round_: Round, best_of: int) -> list[Match]:
    matches = (
        round_.matches.select_related("round")
        .order_by("table", "id")
        .prefetch_related(seats_prefetch())
    )
    return [decorate(m, best_of) for m in matches]


def pick_round(t: Tournament, swiss: list[Round], number: int | None) -> Round | None:
    if number is not None:
        return next((r for r in swiss if r.number == number), None)
    if t.system == System.POD:
        for r in swiss:
            if r.matches.filter(kind=MatchKind.PLAYED, reported=False).exists():
                return r
    return swiss[-1] if swiss else None


def bracket_context(t: Tournament) -> dict[str, Any]:
    rounds = []
    seeds: dict[int, int] = {}
    for k, matches in enumerate(services.bracket_rounds(t)):
        decorated = []
        for m, seats in matches:
            m.seat_list = seats  # type: ignore[attr-defined]
            decorate(m, t.best_of)
            if k == 0 and t.top_cut in BRACKET_SEEDS and m.table:
                high, low = BRACKET_SEEDS[t.top_cut][m.table - 1]
                for seat, seed in zip(seats, (high, low), strict=False):
                    seeds[seat.player_id] = seed
            decorated.append(m)
        for m in decorated:
            for seat in m.seat_list:  # type: ignore[attr-defined]
                seat.seed = seeds.get(seat.player_id)  # type: ignore[attr-defined]
        rounds.append({"name": PLAYOFF_NAMES.get(len(decorated), "Playoff"), "matches": decorated})
    last = rounds[-1]["matches"] if rounds else []
    decided = all(m.winner_seat for m in last) if last else False  # type: ignore[attr-defined]
    return {
        "bracket": rounds,
        "bracket_round_decided": decided,
        "bracket_final_decided": decided and len(last) == 1,
    }


def board_context(
    tournament: Tournament, *, round_number: int | None = None, **extra: Any
) -> dict[str, Any]:
    """Everything the event screen shows, read fresh after the service wrote."""
    t = Tournament.objects.get(pk=tournament.pk)
    players = list(t.players.order_by("id"))
    active = [p for p in players if not p.dropped]
    rounds = list(t.rounds.order_by("number"))
    swiss = [r for r in rounds if not r.playoff]
    last = rounds[-1] if rounds else None
    viewed = pick_round(t, swiss, round_number)
    missing_now = services.missing_results(last) if last else 0
    missing_total = Match.objects.filter(
        round__tournament=t, kind__in=[MatchKind.PLAYED, MatchKind.GAME], reported=False
    ).count()
    last_swiss = swiss[-1].number if swiss else 0
    later = [r.number for r in swiss if viewed is not None and r.number > viewed.number]
    undoable = (
        last is not None
        and t.status != Status.FINISHED
        and not last.matches.filter(
            kind__in=[MatchKind.PLAYED, MatchKind.GAME, MatchKind.DOUBLE_LOSS], reported=True
        ).exists()
    )
    ctx: dict[str, Any] = {
        "tournament": t,
        "players": players,
        "active_count": len(active),
        "late_entry": bool(rounds),
        "swiss_rounds": swiss,
        "viewed": viewed,
        "matches": round_matches(viewed, t.best_of) if viewed else [],
        "last_round": last,
        "last_swiss": last_swiss,
        "missing_now": missing_now,
        "missing_total": missing_total,
        "later_rounds": later,
        "suggested_rounds": suggested_swiss_rounds(len(active)) if len(active) >= 2 else None,
        "is_swiss": t.system in SWISS_SYSTEMS,
        "is_league": t.system == System.LEAGUE,
        "can_undo": undoable,
        "can_pair": t.status != Status.FINISHED
        and not (t.system == System.POD and rounds)
        and missing_now == 0,
        "pair_label": (
            "Pair the next playoff round"
            if t.status == Status.TOP_CUT
            else (
                "Pair the round robin" if t.system == System.POD else f"Pair round {len(swiss) + 1}"
            )
        ),
        "can_cut": t.status == Status.RUNNING
        and t.system in SWISS_SYSTEMS
        and last is not None
        and missing_now == 0,
        "cut_form": CutForm(),
        "top_cut_choices": [(0, "None"), (2, "Top 2"), (4, "Top 4"), (8, "Top 8")],
        "top_cut_form": TopCutForm(initial={"size": t.top_cut or 8}),
        "player_form": PlayerForm(),
        "paste_form": PasteForm(),
        "standings_title": "Final standings" if t.status == Status.FINISHED else "Standings",
        **standings_context(t),
        **bracket_context(t),
        **clock_context(t),
    }
    ctx["can_finish"] = (t.status == Status.RUNNING and missing_now == 0 and last is not None) or (
        t.status == Status.TOP_CUT and ctx["bracket_final_decided"]
    )
    if t.status == Status.TOP_CUT and ctx["bracket_final_decided"]:
        ctx["can_pair"] = False
    if t.status == Status.TOP_CUT and not ctx["bracket_round_decided"]:
        ctx["can_pair"] = False
    ctx.update(extra)
    ctx["tournament"] = t
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
    user = request.user
    mine = (
        Tournament.objects.filter(Q(owner=user) | Q(staff=user))
        .distinct()
        .only("name", "slug", "system", "status", "created_at")
    )
    return {"tournaments": mine, "form": form or TournamentForm(), "mtr_rounds": MTR_ROUNDS}


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
    response = render(request, T + "_players_response.html", ctx, status=status)
    return trigger_client_event(response, "standings-changed") if not error else response


@manager_required
@require_POST
def add_player(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    form = PlayerForm(request.POST)
    if not form.is_valid():
        return players_response(request, tournament, error=first_error(form), status=422)
    try:
        services.register_players(
            tournament=tournament, names=[form.cleaned_data["name"]], by=request.user
        )
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
            tournament=tournament, names=form.cleaned_data["names"], by=request.user
        )
    except ServiceError as exc:
        return players_response(request, tournament, error=str(exc), status=422, paste_form=form)
    return players_response(request, tournament, notice=f"Added {len(added)} players.")


def player_of(tournament: Tournament, pk: int) -> Player:
    return get_object_or_404(Player, pk=pk, tournament=tournament)


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
    response = render_board(request, tournament, board_notice=notice)
    return trigger_client_event(response, "standings-changed")


@manager_required
@require_POST
def pair(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    try:
        byes = [int(pk) for pk in request.POST.getlist("agreed_bye")]
    except ValueError:
        return board_action(request, tournament, error="Pick agreed byes from the list.")
    try:
        round_ = services.pair_next_round(tournament=tournament, agreed_byes=byes, by=request.user)
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
    try:
        services.finish(tournament=tournament, by=request.user)
    except ServiceError as exc:
        return board_action(request, tournament, error=str(exc))
    return board_action(request, tournament, notice="The tournament is finished.")


# --- Results --------------------------------------------------------------------------------------


def match_of(tournament: Tournament, pk: int) -> Match:
    return get_object_or_404(
        Match.objects.select_related("round"), pk=pk, round__tournament=tournament
    )


def later_notice(tournament: Tournament, match: Match) -> str:
    later = list(
        tournament.rounds.filter(playoff=False, number__gt=match.round.number).values_list(
            "number", flat=True
        )
    )
    if match.round.playoff or not later:
        return ""
    names = ", ".join(str(n) for n in later)
    return (
        f"Standings recomputed. Round{'s' if len(later) > 1 else ''} {names} "
        f"{'were' if len(later) > 1 else 'was'} already paired on the old standings: "
        "those pairings stay as they are."
    )


def result_response(
    request: HttpRequest,
    tournament: Tournament,
    match: Match,
    *,
    error: str = "",
    notice: str = "",
) -> HttpResponse:
    status = 422 if error else 200
    number = None if match.round.playoff else match.round.number
    if not request.htmx:
        if error:
            ctx = board_context(
                tournament, round_number=number, round_error=error, error_match=match.pk
            )
            return render(request, T + "event.html", ctx, status=status)
        if notice:
            messages.warning(request, notice)
        if match.round.playoff:
            return back_to_event(tournament, "#bracket-panel")
        url = reverse("manage_round", args=[tournament.slug, match.round.number])
        return redirect(f"{url}#match-{match.pk}")
    ctx = board_context(
        tournament,
        round_number=number,
        round_error=error,
        round_notice=notice,
        error_match=match.pk if error else None,
        bracket_error=error,
        oob=True,
    )
    if match.round.playoff:
        template = "_bracket_response.html"
    else:
        ctx["match"] = next(m for m in ctx["matches"] if m.pk == match.pk)
        template = (
            "_game_response.html" if match.kind == MatchKind.GAME else "_result_response.html"
        )
    response = render(request, T + template, ctx, status=status)
    return trigger_client_event(response, "standings-changed") if not error else response


@manager_required
@require_POST
def result(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    match = match_of(tournament, pk)
    form = ResultForm(request.POST)
    if not form.is_valid():
        return result_response(request, tournament, match, error=first_error(form))
    data = form.cleaned_data
    try:
        services.record_result(
            match=match,
            wins=data["wins"],
            draws=data["draws"],
            double_loss=data["double_loss"],
            by=request.user,
        )
    except ServiceError as exc:
        return result_response(request, tournament, match, error=str(exc))
    return result_response(request, tournament, match, notice=later_notice(tournament, match))


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
    return result_response(request, tournament, match, notice=later_notice(tournament, match))
