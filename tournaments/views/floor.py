"""The judges' floor screens (issue 27): time extensions per table, and deck checks.

Each view binds, calls one service or one read-model function and answers the full page,
or for HTMX the panel the page includes. A plain form POST that succeeds redirects back
to its screen; a refusal re-renders it with the message (422), keeping what was typed.
"""

from __future__ import annotations

import random
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from tournaments.models import DeckCheck, Match, Player, Tournament
from tournaments.pages import floor as pages
from tournaments.parsing import ascii_int
from tournaments.permissions import judge_required
from tournaments.services import floor as services
from tournaments.services.writing import ServiceError

J = "tournaments/judge/"


def _table_number(typed: str) -> int:
    """The table number the judge typed (the service finds it in the round being played)."""
    number = ascii_int(typed.strip())
    if number is None:
        raise ServiceError(_("Type a table number."))
    return number


# --- time extensions ------------------------------------------------------------------------


def _tables(
    request: HttpRequest,
    tournament: Tournament,
    *,
    status: int = 200,
    extended: Match | None = None,
    **extra: Any,
) -> HttpResponse:
    """The screen, read fresh. `extended`: the table just given minutes (of the round
    being played: not looked up again), named in the notice with its new end."""
    t = Tournament.objects.get(pk=tournament.pk)
    ctx = pages.tables_screen(
        t,
        all_tables=request.GET.get("all") == "1",
        round_=extended.round if extended is not None else None,
    )
    if extended is not None:
        row = next((r for r in ctx["extended"] if r.pk == extended.pk), None)
        ctx["notice"] = _added(extended, row)
    ctx.update(extra)
    template = J + ("_tables.html" if request.htmx else "tables.html")
    return render(request, template, ctx, status=status)


def _added(match: Match, row: pages.FloorTable | None) -> str:
    """ "Table 4: +5 min, ends 14:35." (the table's new time), as the judge is told."""
    return _("Table %(table)s: %(time)s.") % {
        "table": match.table,
        "time": row.ends if row else _("time added"),
    }


@judge_required
@require_GET
def tables(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The round's tables with their extensions, those past the round's end first."""
    return _tables(request, tournament)


@judge_required
@require_POST
def extend(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """A judge adds minutes to a table (by its number)."""
    typed = {
        "table": request.POST.get("table", "")[:20],
        # A quick button's minutes (+5 min), else the number typed beside "Other".
        "minutes": (request.POST.get("quick") or request.POST.get("minutes", ""))[:20],
        "note": request.POST.get("note", "")[:400],
    }
    try:
        number = _table_number(typed["table"])
        minutes = ascii_int(typed["minutes"].strip())
        if minutes is None:
            raise ServiceError(_("Say how many minutes to add (1 to 60)."))
        match = services.add_extension(
            tournament=tournament,
            table=number,
            minutes=minutes,
            note=typed["note"],
            by=request.user,
        ).match
    except ServiceError as exc:
        return _tables(request, tournament, status=422, error=str(exc), typed=typed)
    if not request.htmx:
        row = pages.table_row(tournament, match)
        messages.success(request, _added(match, row))
        return redirect("judge_tables", slug=tournament.slug)
    return _tables(request, tournament, extended=match)


@judge_required
@require_POST
def remove_extension(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    """A judge takes back an extension given by mistake."""
    try:
        services.remove_extension(tournament=tournament, extension=pk, by=request.user)
    except ServiceError as exc:
        return _tables(request, tournament, status=422, error=str(exc))
    done = _("Extension taken back.")
    if not request.htmx:
        messages.success(request, done)
        return redirect("judge_tables", slug=tournament.slug)
    return _tables(request, tournament, notice=done)


# --- deck checks ----------------------------------------------------------------------------


def _checks(
    request: HttpRequest, tournament: Tournament, *, status: int = 200, **extra: Any
) -> HttpResponse:
    t = Tournament.objects.get(pk=tournament.pk)
    wanted = request.GET.get("player", "")[:100]
    player = Player.objects.filter(tournament=t, external_id=wanted).first() if wanted else None
    ctx = pages.deck_checks_screen(
        t,
        # Any table may come up: a judge re-rolls by asking again (an unseeded draw).
        suggestion=services.suggest_deck_check_tables(tournament=t, rng=random.Random()),
        checked=services.checked_players(t),
        player=player,
        history=services.deck_check_history(player) if player is not None else (),
    )
    if wanted and player is None:
        extra.setdefault("error", _("No player with the id %(id)r in this event.") % {"id": wanted})
        status = 404 if status == 200 else status
    ctx.update(extra)
    template = J + ("_deck_checks.html" if request.htmx else "deck_checks.html")
    return render(request, template, ctx, status=status)


@judge_required
@require_GET
def deck_checks(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """A suggested table (asking again draws another), the checks under way, the
    history of the event or of one player (?player=<id>)."""
    return _checks(request, tournament)


@judge_required
@require_POST
def start_check(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """A judge starts a deck check of a table (the suggested one, or any by number)."""
    typed = request.POST.get("table", "")[:20]
    try:
        match = services.start_deck_check(
            tournament=tournament, table=_table_number(typed), by=request.user
        ).match
    except ServiceError as exc:
        return _checks(request, tournament, status=422, error=str(exc), typed_table=typed)
    done = _("Deck check of table %(table)s started: its clock waits for it.") % {
        "table": match.table
    }
    if not request.htmx:
        messages.success(request, done)
        return redirect("judge_deck_checks", slug=tournament.slug)
    return _checks(request, tournament, notice=done)


@judge_required
@require_POST
def finish_check(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    """The decks go back: the time it took is added to the table."""
    if not DeckCheck.objects.filter(pk=pk, tournament=tournament).exists():
        return _checks(
            request, tournament, status=422, error=_("That deck check is not in this event.")
        )
    try:
        check = services.finish_deck_check(
            check=pk, by=request.user, note=request.POST.get("note", "")[:600]
        )
    except ServiceError as exc:
        return _checks(request, tournament, status=422, error=str(exc))
    given = check.extension.minutes if hasattr(check, "extension") else 0
    if given:
        done = _("Deck check of table %(table)s finished: +%(minutes)s min for the table.") % {
            "table": check.match.table,
            "minutes": given,
        }
    else:
        done = _("Deck check of table %(table)s finished: its result was in, no time added.") % {
            "table": check.match.table
        }
    if not request.htmx:
        messages.success(request, done)
        return redirect("judge_deck_checks", slug=tournament.slug)
    return _checks(request, tournament, notice=done)
