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
from django.utils.translation import gettext, gettext_noop, ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from tournaments import live, services
from tournaments.domain import current_round, round_label
from tournaments.forms import (
    CutForm,
    GameForm,
    PasteForm,
    PlayerForm,
    ResultForm,
    TopCutForm,
    TournamentForm,
)
from tournaments.labels import spoken
from tournaments.models import Match, MatchKind, Player, Round, Status, Tournament
from tournaments.pages import organizer as pages
from tournaments.pages import round_screen as round_pages
from tournaments.parsing import QuickEntryError, ascii_int, parse_quick_entry
from tournaments.permissions import judge_required, manager_required
from tournaments.rules import DRAW_RESULTS, result_text
from tournaments.services import ServiceError
from tournaments.services.results import MatchNotFound
from tournaments.services.rounds import RoundSentence, say_about, say_round

T = "tournaments/manage/"

PAIRED: RoundSentence = (
    gettext_noop("Round %(number)s is paired."),
    {
        4: gettext_noop("The Quarterfinals are paired."),
        2: gettext_noop("The Semifinals are paired."),
        1: gettext_noop("The Final is paired."),
    },
)
UNDONE: RoundSentence = (
    gettext_noop("The pairing of round %(number)s is undone."),
    {
        4: gettext_noop("The pairing of the Quarterfinals is undone."),
        2: gettext_noop("The pairing of the Semifinals is undone."),
        1: gettext_noop("The pairing of the Final is undone."),
    },
)


def first_error(form: Form) -> str:
    for errors in form.errors.values():
        for error in errors:
            return str(error)
    return gettext("Check the form.")


# --- The board -------------------------------------------------------------------------------


def standings_html(t: Tournament) -> str:
    """The event screen's standings: the leaders, cached per version like the phones'
    fragments and refreshed by the same event stream (so a result entry never re-sends
    them); the whole table is on the standings screen."""
    return live.fragment(t, T + "_standings_top.html", "", "", lambda: pages.standings_top(t))


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


def list_page(request: HttpRequest) -> str:
    return request.GET.get("page", "")[:12]


def partial(request: HttpRequest) -> bool:
    """An HTMX request for a panel; a history restore (a page htmx no longer holds) gets
    the full page."""
    return bool(request.htmx) and not request.htmx.history_restore_request


@manager_required
@require_GET
def standings(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The whole standings, a page at a time, or the players found by name."""
    ctx = pages.standings_screen(tournament, page=list_page(request), q=request.GET.get("q", ""))
    template = T + ("_standings_list.html" if partial(request) else "standings.html")
    return render(request, template, ctx)


@manager_required
@require_GET
def standings_top(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The event screen's standings panel refetching itself when the standings move."""
    return HttpResponse(standings_html(tournament))


def round_filters(request: HttpRequest) -> round_pages.Filters:
    return round_pages.Filters(
        missing=request.GET.get("missing") == "1",
        to_check=request.GET.get("check") == "1",
        find=" ".join(request.GET.get("find", "").split())[:100],
    )


def round_context(
    tournament: Tournament, number: int, filters: round_pages.Filters, **extra: Any
) -> dict[str, Any]:
    t = Tournament.objects.get(pk=tournament.pk)
    viewed = get_object_or_404(Round, tournament=t, number=number, playoff=False)
    ctx = pages.round_page(t, viewed)
    ctx.update(
        cut_form=CutForm(),
        top_cut_form=TopCutForm(initial={"size": t.top_cut or 8}),
        quick_value="",
        **({} if ctx["is_league"] else round_pages.round_screen(t, viewed, filters)),
    )
    ctx.update(extra)
    return ctx


@judge_required
@require_GET
def round_view(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """The round screen: one compact row per table, quick entry by keyboard, the missing
    results only, a player found by name. A playoff round's screen is the bracket, named
    as it names that round ("Final"): its results are entered there."""
    viewed = get_object_or_404(Round, tournament=tournament, number=number)
    if viewed.playoff:
        t = Tournament.objects.get(pk=tournament.pk)
        ctx = pages.playoff_round_page(t, viewed)
        template = T + ("_bracket.html" if partial(request) else "playoff_round.html")
        return render(request, template, ctx)
    ctx = round_context(tournament, number, round_filters(request))
    template = T + ("_rounds.html" if request.htmx else "round.html")
    return render(request, template, ctx)


def quick_response(
    request: HttpRequest,
    tournament: Tournament,
    number: int,
    *,
    value: str,
    error: str = "",
    match: Match | None = None,
    saved: str = "",
) -> HttpResponse:
    status = 422 if error else 200
    filters = round_filters(request)
    if not request.htmx:
        if error:
            ctx = round_context(tournament, number, filters, quick_error=error, quick_value=value)
            return render(request, T + "round.html", ctx, status=status)
        messages.success(request, saved)
        url = reverse("manage_round", args=[tournament.slug, number])
        query = filters.query
        return redirect(f"{url}{'?' + query if query else ''}#match-{match.pk if match else ''}")
    ctx: dict[str, Any] = {
        "tournament": tournament,
        "viewed": {"number": number},
        "quick_error": error,
        "quick_value": value,
        "quick_saved": saved,
        "oob": True,
    }
    if match is not None and not error:
        ctx["row_html"] = round_pages.match_row_html(tournament, match, oob=True)
        ctx.update(pages.after_result(tournament, match))
        if ctx.get("actions_changed"):
            ctx.update(
                cut_form=CutForm(),
                top_cut_form=TopCutForm(initial={"size": tournament.top_cut or 8}),
            )
    return render(request, T + "_quick_response.html", ctx, status=status)


@judge_required
@require_POST
def quick_entry(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """The keyboard's way in: "12 2-1" then Enter records table 12's result."""
    value = request.POST.get("entry", "")[:100]
    round_ = get_object_or_404(Round, tournament=tournament, number=number, playoff=False)
    try:
        entry = parse_quick_entry(value)
    except QuickEntryError as exc:
        error = spoken(exc.args[0])
        return quick_response(request, tournament, number, value=value, error=error)
    match = round_pages.match_at_table(round_, entry.table)
    if match is None:
        error = gettext("Round %(number)s has no table %(table)s.") % {
            "number": number,
            "table": entry.table,
        }
        return quick_response(request, tournament, number, value=value, error=error)
    wins = entry.wins
    draws = entry.draws
    if entry.draw:
        # "d" is the draw the round screen's buttons offer for this best-of.
        a, b, draws = (int(x) for x in DRAW_RESULTS[tournament.best_of].split("-"))
        wins = (a, b)
    try:
        match = services.record_result(
            match=match.pk,
            tournament=tournament,
            wins=wins,
            draws=draws,
            double_loss=entry.double_loss,
            by=request.user,
        )
    except ServiceError as exc:
        error = gettext("Table %(table)s: %(error)s") % {"table": entry.table, "error": exc}
        return quick_response(request, tournament, number, value=value, error=error)
    seats = match.seat_list  # type: ignore[attr-defined]
    names = [s.player.name for s in seats]
    if wins is None:
        saved = gettext("Table %(table)s: result cleared.") % {"table": entry.table}
    elif entry.double_loss:
        saved = gettext("Table %(table)s: double loss for %(a)s and %(b)s.") % {
            "table": entry.table,
            "a": names[0],
            "b": names[-1],
        }
    else:
        score = result_text(match, seats)
        saved = (
            gettext("Table %(table)s: %(a)s %(score)s %(b)s")
            % {
                "table": entry.table,
                "a": names[0],
                "score": score,
                "b": names[1] if len(names) > 1 else "",
            }
        ).strip()
    return quick_response(request, tournament, number, value="", match=match, saved=saved)


@judge_required
@require_GET
def jump_to_table(request: HttpRequest, tournament: Tournament, number: int) -> HttpResponse:
    """Jump to a table: its result form, opened in place (HTMX) or on its own screen."""
    round_ = get_object_or_404(Round, tournament=tournament, number=number, playoff=False)
    table = ascii_int(request.GET.get("table", "").strip())
    match = round_pages.match_at_table(round_, table) if table else None
    if match is None:
        error = (
            gettext("Round %(number)s has no table %(table)s.") % {"number": number, "table": table}
            if table
            else gettext("Type a table number.")
        )
        if request.htmx:
            ctx = {"jump_error": error, "jump_value": request.GET.get("table", "")[:20]}
            return render(
                request,
                T + "_jump.html",
                {**ctx, "tournament": tournament, "viewed": round_},
                status=422,
            )
        ctx = round_context(tournament, number, round_filters(request), jump_error=error)
        return render(request, T + "round.html", ctx, status=422)
    if not request.htmx:
        return redirect("manage_match", slug=tournament.slug, pk=match.pk)
    ctx = {
        **match_context(tournament, match.pk),
        "viewed": round_,
        "jump_found": table,
        "oob": True,
    }
    return render(request, T + "_jump.html", ctx)


def match_context(tournament: Tournament, pk: int, **extra: Any) -> dict[str, Any]:
    match = pages.match_row(tournament, pk)
    # "round 4", or in the top cut the round's name: "Final".
    name = round_label(match.round)
    where = (
        spoken(name.message())
        if name is not None and name.is_playoff
        else gettext("round %(number)s") % {"number": match.round.number}
    )
    return {"tournament": tournament, "match": match, "m": match, "where": where, **extra}


@judge_required
@require_GET
def match_view(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    """One match's result form: in place of its row (HTMX), or a screen of its own."""
    match_of(tournament, pk)
    ctx = match_context(tournament, pk)
    if request.htmx:
        return render(request, T + "_match_edit.html", ctx)
    return render(request, T + "match.html", ctx)


@judge_required
@require_GET
def match_row_view(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    """A match's compact row (closing its form in place); without HTMX, its round."""
    match = match_of(tournament, pk)
    if not request.htmx:
        url = reverse("manage_round", args=[tournament.slug, match.round.number])
        return redirect(f"{url}#match-{pk}")
    return HttpResponse(round_pages.one_row_html(tournament, pk))


# --- Players ------------------------------------------------------------------------------------


def players_context(request: HttpRequest, tournament: Tournament, **extra: Any) -> dict[str, Any]:
    t = Tournament.objects.get(pk=tournament.pk)
    ctx = pages.players_screen(t, page=list_page(request), q=request.GET.get("q", ""))
    ctx.update(player_form=PlayerForm(), paste_form=PasteForm())
    ctx.update(extra)
    return ctx


@manager_required
@require_GET
def players(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The whole player list, a page at a time, or the players found by name: where the
    organizer renames, drops, re-admits and removes players."""
    template = T + ("_players.html" if partial(request) else "players.html")
    return render(request, template, players_context(request, tournament))


def players_screen_response(
    request: HttpRequest,
    tournament: Tournament,
    *,
    error: str = "",
    notice: str = "",
    status: int = 200,
    **extra: Any,
) -> HttpResponse:
    """After an action sent from the players screen: that screen, same page and search."""
    if not request.htmx:
        if error:
            ctx = players_context(request, tournament, players_error=error, **extra)
            return render(request, T + "players.html", ctx, status=status)
        if notice:
            messages.success(request, notice)
        query = pages.list_query(
            pages.clean_search(request.GET.get("q", "")),
            ascii_int(request.GET.get("page", "")),
        )
        url = reverse("manage_players", args=[tournament.slug])
        return redirect(f"{url}{query}#players-panel")
    ctx = players_context(request, tournament, players_error=error, players_notice=notice, **extra)
    return render(request, T + "_players.html", ctx, status=status)


def players_response(
    request: HttpRequest,
    tournament: Tournament,
    *,
    error: str = "",
    notice: str = "",
    status: int = 200,
    **extra: Any,
) -> HttpResponse:
    if request.GET.get("on") == "players":
        return players_screen_response(
            request, tournament, error=error, notice=notice, status=status, **extra
        )
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
    name = form.cleaned_data["name"]
    if tournament.rounds.exists():
        notice = gettext("Added %(name)s (late entry, starts at 0 points).") % {"name": name}
    else:
        notice = gettext("Added %(name)s.") % {"name": name}
    return players_response(request, tournament, notice=notice)


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
    notice = ngettext("Added %(count)s players.", "Added %(count)s players.", len(added)) % {
        "count": len(added)
    }
    return players_response(request, tournament, notice=notice)


def player_of(tournament: Tournament, pk: int) -> Player:
    return get_object_or_404(Player, pk=pk, tournament=tournament)


@manager_required
@require_POST
def remove_player(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    try:
        name = services.remove_player(player=player_of(tournament, pk), by=request.user)
    except ServiceError as exc:
        return players_response(request, tournament, error=str(exc), status=422)
    return players_response(
        request, tournament, notice=gettext("Removed %(name)s.") % {"name": name}
    )


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
    return players_response(
        request, tournament, notice=gettext("Renamed to %(name)s.") % {"name": player.name}
    )


def drop_confirmation(request: HttpRequest, tournament: Tournament, player: Player) -> HttpResponse:
    """The drop's confirmation step, as a player's own drop has one (issue 26): whom, and
    what a drop does (in the top cut, the match it concedes). A page of its own, or for
    HTMX the player's row on the list, in place. Its form comes back to the list it
    was opened from (the players screen's page and search, or the event screen)."""
    t = Tournament.objects.get(pk=tournament.pk)
    (shown,) = pages.annotated_rows(t, [player])
    if request.GET.get("on") == "players":
        q = pages.clean_search(request.GET.get("q", ""))
        number = ascii_int(list_page(request))
        query = pages.list_query(q, number, on="players")
        back = reverse("manage_players", args=[t.slug]) + pages.list_query(q, number)
    else:
        query, back = "", reverse("manage_event", args=[t.slug])
    context = {
        "tournament": t,
        "player": shown,
        "action_query": query,
        "back_url": back + "#players-panel",
        "finished": t.status == Status.FINISHED,
        "last_round": t.rounds.order_by("-number").values_list("number", flat=True).first() or 0,
    }
    template = T + ("_drop_confirm_row.html" if partial(request) else "drop_confirm.html")
    return render(request, template, context)


@manager_required
@require_http_methods(["GET", "POST"])
def drop_player(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    """GET: the confirmation step; POST (its button): the drop."""
    player = player_of(tournament, pk)
    if request.method == "GET":
        return drop_confirmation(request, tournament, player)
    try:
        player = services.drop_player(player=player, by=request.user)
    except ServiceError as exc:
        return players_response(request, tournament, error=str(exc), status=422)
    return players_response(
        request, tournament, notice=gettext("%(name)s dropped.") % {"name": player.name}
    )


@manager_required
@require_POST
def readmit_player(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    player = services.readmit_player(player=player_of(tournament, pk), by=request.user)
    return players_response(
        request, tournament, notice=gettext("%(name)s is back in.") % {"name": player.name}
    )


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
        return board_action(request, tournament, error=gettext("Pick agreed byes from the list."))
    try:
        round_ = services.pair_next_round(
            tournament=tournament,
            agreed_byes=[pk for pk in byes if pk is not None],
            by=request.user,
        )
    except ServiceError as exc:
        return board_action(request, tournament, error=str(exc))
    # "Round 4 is paired.", or in the top cut "The Semifinals are paired."
    return board_action(request, tournament, notice=say_about(round_, PAIRED))


@manager_required
@require_POST
def undo(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    # Named before it goes: the service deletes the round ("the Final", "round 6").
    paired = current_round(tournament)
    name = round_label(paired) if paired is not None and paired.playoff else None
    try:
        number = services.undo_round(tournament=tournament, by=request.user)
    except ServiceError as exc:
        return board_action(request, tournament, error=str(exc))
    if paired is None or paired.number != number:  # another undo came in between
        name = None
    return board_action(request, tournament, notice=say_round(name, number, UNDONE))


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
    notice = ngettext(
        "%(count)s players made the cut to the next phase.",
        "%(count)s players made the cut to the next phase.",
        len(advancing),
    ) % {"count": len(advancing)}
    return board_action(request, tournament, notice=notice)


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
    notice = gettext("The top %(size)s is paired.") % {"size": form.cleaned_data["size"]}
    return board_action(request, tournament, notice=notice)


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
    return board_action(request, tournament, notice=gettext("The tournament is finished."))


@manager_required
@require_POST
def reopen(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Only the owner (or a site admin) takes back "finish"."""
    if not (request.user.is_superuser or tournament.owner_id == request.user.pk):
        raise PermissionDenied(gettext("Only the tournament's owner can reopen it."))
    try:
        services.reopen(tournament=tournament, by=request.user)
    except ServiceError as exc:
        return board_action(request, tournament, error=str(exc))
    return board_action(request, tournament, notice=gettext("The tournament is open again."))


# --- Results --------------------------------------------------------------------------------------


def match_of(tournament: Tournament, pk: int) -> Match:
    return get_object_or_404(
        Match.objects.select_related("round"), pk=pk, round__tournament=tournament
    )


def typed_result(request: HttpRequest) -> dict[str, str]:
    """What the organizer typed into a match's form, to show again beside a refusal."""
    return {k: request.POST.get(k, "")[:12] for k in ("wins_a", "wins_b", "draws", "result")}


def result_response(
    request: HttpRequest,
    tournament: Tournament,
    match: Match,
    *,
    error: str = "",
) -> HttpResponse:
    """After a result (or its refusal): the plain POST goes back to the round screen; the
    HTMX one gets its row and the round's status, not the board (the standings panel
    refreshes itself from its cached fragment). A refusal shows the match's form again,
    its message beside it and what was typed still in it."""
    status = 422 if error else 200
    t = tournament
    two_player = match.kind != MatchKind.GAME and not match.round.playoff
    if not request.htmx:
        if error and two_player:
            ctx = match_context(t, match.pk, round_error=error, typed=typed_result(request))
            return render(request, T + "match.html", ctx, status=status)
        if error:
            number = None if match.round.playoff else match.round.number
            ctx = board_context(t, round_number=number, round_error=error, error_match=match.pk)
            return render(request, T + "event.html", ctx, status=status)
        notice = pages.after_result(t, match)["round_notice"]
        if notice:
            messages.warning(request, notice)
        if match.round.playoff:
            return back_to_event(t, "#bracket-panel")
        url = reverse("manage_round", args=[t.slug, match.round.number])
        return redirect(f"{url}#match-{match.pk}")
    if match.round.playoff:
        # A playoff result decides who plays on: the bracket panel and the actions.
        ctx = board_context(t, bracket_error=error, oob=True)
        return render(request, T + "_bracket_response.html", ctx, status=status)
    if error and two_player:
        ctx = match_context(t, match.pk, round_error=error, typed=typed_result(request))
        return render(request, T + "_match_edit.html", ctx, status=status)
    ctx = {
        "tournament": t,
        "round_error": error,
        "error_match": match.pk if error else None,
        "oob": True,
        **({} if error else pages.after_result(t, match)),
    }
    if two_player:
        ctx["row_html"] = round_pages.match_row_html(t, match)
    else:
        ctx["match"] = (
            pages.decorate(match, t.best_of)
            if hasattr(match, "seat_list")
            else pages.match_row(t, match.pk)
        )
    if ctx.get("actions_changed"):
        ctx.update(cut_form=CutForm(), top_cut_form=TopCutForm(initial={"size": t.top_cut or 8}))
    template = "_game_response.html" if match.kind == MatchKind.GAME else "_result_response.html"
    return render(request, T + template, ctx, status=status)


@judge_required
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


@judge_required
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
