"""The organizer's seating screen: fixed seats, pairing restrictions and the event's
Rules Enforcement Level. One screen and one action each; every action works as a plain
POST (redirect back to the screen, or the screen again with the refusal, 422) and with
HTMX (the panel, with the refusal next to the field that caused it)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from tournaments.models import Enforcement, PairingRestriction, Player, Tournament
from tournaments.pages import seating as pages
from tournaments.parsing import ascii_int
from tournaments.permissions import manager_required
from tournaments.services.fixed_seats import MAX_TABLE, TableTaken, fix_seat, unfix_seat
from tournaments.services.restrictions import (
    CASUAL_ONLY,
    lift_restriction,
    restrict_pairing,
    set_enforcement,
)
from tournaments.services.writing import ServiceError

T = "tournaments/manage/"


class Refused(Exception):
    """Bad input for one form: `form` names it, `field` the input the message goes with."""

    def __init__(self, form: str, field: str, message: str) -> None:
        super().__init__(message)
        self.form, self.field = form, field


def _context(t: Tournament, **extra: Any) -> dict[str, Any]:
    casual_only = None
    if t.enforcement != Enforcement.REGULAR:
        casual_only = CASUAL_ONLY % {"level": _(Enforcement(t.enforcement).label)}
    return pages.seating_screen(t, casual_only=casual_only, **extra)


def _screen(request: HttpRequest, t: Tournament, status: int = 200, **extra: Any) -> HttpResponse:
    t.refresh_from_db()
    template = T + ("_seating.html" if request.htmx else "seating.html")
    return render(request, template, _context(t, **extra), status=status)


def _done(request: HttpRequest, t: Tournament, message: str) -> HttpResponse:
    if request.htmx:
        return _screen(request, t, done=message)
    messages.success(request, message)
    return redirect("manage_seating", slug=t.slug)


def _refused(request: HttpRequest, t: Tournament, exc: Refused) -> HttpResponse:
    typed = {k: v[:200] for k, v in request.POST.items() if k != "csrfmiddlewaretoken"}
    errors = {exc.form: {exc.field: str(exc)}}
    return _screen(request, t, status=422, errors=errors, typed={exc.form: typed})


def _player(t: Tournament, form: str, field: str, typed: str) -> Player:
    try:
        return pages.find_player(t, typed)
    except pages.PlayerNotFound as exc:
        raise Refused(form, field, str(exc)) from exc


@require_GET
@manager_required
def seating(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    return _screen(request, tournament)


@require_POST
@manager_required
def fix(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    try:
        player = _player(tournament, "fix", "player", request.POST.get("player", ""))
        table = ascii_int(request.POST.get("table", "").strip())
        if table is None or not 1 <= table <= MAX_TABLE:
            raise Refused(
                "fix",
                "table",
                _("A table number is a whole number from 1 to %(max)s.")
                % {"max": number_format(MAX_TABLE, force_grouping=True)},
            )
        try:
            seat = fix_seat(
                tournament=tournament,
                player=player,
                table=table,
                reason=request.POST.get("reason", ""),
                by=request.user,
            )
        except TableTaken as exc:
            raise Refused("fix", "table", str(exc)) from exc
        except ServiceError as exc:
            raise Refused("fix", "", str(exc)) from exc
    except Refused as exc:
        return _refused(request, tournament, exc)
    return _done(
        request,
        tournament,
        _("%(name)s is fixed to table %(table)s.") % {"name": player.name, "table": seat.table},
    )


@require_POST
@manager_required
def unfix(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    pk = ascii_int(request.POST.get("player", ""))
    player = None if pk is None else tournament.players.filter(pk=pk).first()
    try:
        if player is None:
            raise Refused("fixed", "player", _("Pick the fixed seat to remove from the list."))
        try:
            unfix_seat(tournament=tournament, player=player, by=request.user)
        except ServiceError as exc:
            raise Refused("fixed", "player", str(exc)) from exc
    except Refused as exc:
        return _refused(request, tournament, exc)
    return _done(
        request,
        tournament,
        _("%(name)s is seated like everyone else again.") % {"name": player.name},
    )


@require_POST
@manager_required
def restrict(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    try:
        a = _player(tournament, "restrict", "player_a", request.POST.get("player_a", ""))
        b = _player(tournament, "restrict", "player_b", request.POST.get("player_b", ""))
        try:
            restrict_pairing(
                tournament=tournament,
                player_a=a,
                player_b=b,
                reason=request.POST.get("reason", ""),
                by=request.user,
            )
        except ServiceError as exc:
            raise Refused("restrict", "", str(exc)) from exc
    except Refused as exc:
        return _refused(request, tournament, exc)
    return _done(
        request, tournament, _("%(a)s and %(b)s will not be paired.") % {"a": a.name, "b": b.name}
    )


@require_POST
@manager_required
def lift(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    pk = ascii_int(request.POST.get("restriction", ""))
    row = (
        None
        if pk is None
        else PairingRestriction.objects.filter(tournament=tournament, pk=pk)
        .select_related("player_a", "player_b")
        .first()
    )
    try:
        if row is None:
            raise Refused(
                "restrictions", "restriction", _("Pick the restriction to lift from the list.")
            )
        try:
            lift_restriction(
                tournament=tournament, player_a=row.player_a, player_b=row.player_b, by=request.user
            )
        except ServiceError as exc:
            raise Refused("restrictions", "restriction", str(exc)) from exc
    except Refused as exc:
        return _refused(request, tournament, exc)
    return _done(
        request,
        tournament,
        _("%(a)s and %(b)s may be paired again.")
        % {"a": row.player_a.name, "b": row.player_b.name},
    )


@require_POST
@manager_required
def enforcement(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    try:
        try:
            t = set_enforcement(
                tournament=tournament,
                enforcement=request.POST.get("enforcement", ""),
                by=request.user,
            )
        except ServiceError as exc:
            raise Refused("enforcement", "enforcement", str(exc)) from exc
    except Refused as exc:
        return _refused(request, tournament, exc)
    level = _(Enforcement(t.enforcement).label)
    return _done(
        request, tournament, _("The Rules Enforcement Level is %(level)s.") % {"level": level}
    )
