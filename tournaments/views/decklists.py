"""Decklists (issue 28): the player's section and its form, the organizer's screen and
its actions and exports, a judge's deck-check view and edit, and the published lists
(page and JSON).

One screen or one action each. A plain POST redirects back with a message (422 with the
screen and the message next to the form when refused); with HTMX it answers the panel.
The player's answers carry their token in the path: `private_link` sets their headers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from tournaments import clientaddress, live, ratelimit
from tournaments.models import DeckFormat, Entry, Player, Tournament
from tournaments.pages import decklists as pages
from tournaments.permissions import judge_required, manager_required, private_link
from tournaments.services import decklists as services
from tournaments.services.cards import card_lookup
from tournaments.services.writing import ServiceError
from tournaments.views.api import json_endpoint
from tournaments.views.public import _page, live_page

P = "tournaments/private/"
M = "tournaments/manage/"
J = "tournaments/judge/"
MAX_TYPED = services.MAX_UPLOAD_BYTES  # what a form's textarea may carry back


def _hx(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    patch_vary_headers(response, ["HX-Request"])
    return response


def _sent_text(request: HttpRequest) -> str:
    """The list sent: the file chosen (.txt/.dek), else the pasted text. Refused (the
    service's message) for a bad file."""
    try:
        upload = request.FILES.get("file")
    except RequestDataTooBig:
        raise ServiceError(
            _("The file is too large: a decklist file is at most %(most)s kB.")
            % {"most": services.MAX_UPLOAD_BYTES // 1024}
        ) from None
    if upload is not None and upload.name:
        if upload.size is not None and upload.size > services.MAX_UPLOAD_BYTES:
            return services.read_upload(
                name=upload.name, data=upload.read(services.MAX_UPLOAD_BYTES + 1)
            )
        return services.read_upload(name=upload.name, data=upload.read())
    return request.POST.get("text", "")


# --- The player ----------------------------------------------------------------------------


def _limited(request: HttpRequest, player: Player) -> ratelimit.Refused | None:
    """Count this submission: per link, and per address as a wide ceiling (a venue's
    phones share one)."""
    address = clientaddress.of_request(request)
    return ratelimit.first_refused(
        [
            ratelimit.Limit(
                f"decklist-token:{player.token_hash}", ratelimit.TOKEN_LIMIT, "from this link"
            ),
            ratelimit.Limit(
                f"decklist-address:{address}",
                ratelimit.REPORT_ADDRESS_LIMIT,
                "from this network address",
            ),
        ],
        address=address,
    )


def _private_context(player: Player, token: str, **extra: Any) -> dict[str, Any]:
    return {
        "player": player,
        "tournament": player.tournament,
        "token": token,
        "private_url": reverse("private_page", args=[token]),
        "deck": pages.private_panel(player),
        "typed": None,
        **extra,
    }


def _private_answer(
    request: HttpRequest, player: Player, token: str, *, status: int = 200, **extra: Any
) -> HttpResponse:
    template = P + ("_decklist.html" if request.htmx else "decklist.html")
    return _hx(
        request, render(request, template, _private_context(player, token, **extra), status=status)
    )


@private_link
def private_decklist(request: HttpRequest, player: Player, token: str) -> HttpResponse:
    """GET: the player's decklist section (the page, or for HTMX the panel). POST: submit
    a list (pasted, or a .txt/.dek file) until the deadline."""
    t = player.tournament
    if not t.deck_format or player.entry == Entry.REJECTED:
        raise Http404("This event takes no decklists.")
    if request.method == "GET":
        return _private_answer(request, player, token)
    if request.method != "POST":
        return HttpResponse(status=405, headers={"Allow": "GET, POST"})
    refused = _limited(request, player)
    if refused is not None:
        response = _private_answer(
            request, player, token, status=429, error=refused.message("decklists")
        )
        return refused.headers(response)
    typed = request.POST.get("text", "")[:MAX_TYPED]
    try:
        row = services.submit_decklist(player=player, text=_sent_text(request))
    except ServiceError as exc:
        return _private_answer(request, player, token, status=422, error=str(exc), typed=typed)
    done = (
        _("Your decklist is registered: it is legal.")
        if row.legal
        else _("Your decklist is registered, with problems to fix: see below.")
    )
    if not request.htmx:
        messages.success(request, done)
        return redirect(reverse("private_page", args=[token]) + "#decklist-panel")
    return _private_answer(request, player, token, notice=done)


# --- The organizer ---------------------------------------------------------------------------


def _screen(
    request: HttpRequest, t: Tournament, *, status: int = 200, **extra: Any
) -> HttpResponse:
    t = Tournament.objects.get(pk=t.pk)  # as the service left it
    template = M + ("_decklists.html" if request.htmx else "decklists.html")
    return _hx(request, render(request, template, pages.manage_screen(t, **extra), status=status))


def _back(t: Tournament) -> HttpResponse:
    return redirect(reverse("manage_decklists", args=[t.slug]) + "#decklists-panel")


@require_GET
@manager_required
def manage_decklists(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The decklist rules, who has no list or an illegal one, publishing, the exports."""
    return _screen(request, tournament)


def _done(request: HttpRequest, t: Tournament, said: str) -> HttpResponse:
    if not request.htmx:
        messages.success(request, said)
        return _back(t)
    return _screen(request, t, notice=said)


@require_POST
@manager_required
def rules(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Set the format and the deadline (services.decklists.set_decklist_rules)."""
    deck_format = request.POST.get("format", "")[:20]
    typed_deadline = request.POST.get("deadline", "")[:40]
    try:
        deadline = pages.parse_deadline(tournament, typed_deadline)
    except ValueError:
        return _screen(
            request,
            tournament,
            status=422,
            rules_error=_(
                "%(typed)r is not a date and time: use the date picker, or leave it empty "
                "for the start of round 1."
            )
            % {"typed": typed_deadline},
            typed_deadline=typed_deadline,
        )
    try:
        t = services.set_decklist_rules(
            tournament=tournament, deck_format=deck_format, deadline=deadline, by=request.user
        )
    except ServiceError as exc:
        return _screen(
            request, tournament, status=422, rules_error=str(exc), typed_deadline=typed_deadline
        )
    if t.deck_format:
        said = _("Decklists: %(format)s, %(deadline)s.") % {
            "format": _(DeckFormat(t.deck_format).label),
            "deadline": pages.deadline_text(t),
        }
    else:
        said = _(services.NO_DECKLISTS)
    return _done(request, t, said)


@require_POST
@manager_required
def publish(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Publish the top cut's lists, or make them private again (published=yes|no)."""
    wanted = request.POST.get("published", "")
    if wanted not in ("yes", "no"):
        return _screen(
            request, tournament, status=422, publish_error=_("Choose to publish or not.")
        )
    try:
        t = services.publish_decklists(
            tournament=tournament, published=wanted == "yes", by=request.user
        )
    except ServiceError as exc:
        return _screen(request, tournament, status=422, publish_error=str(exc))
    said = (
        _("The top cut's decklists are public.")
        if t.decklists_published
        else _("No decklist is public any more.")
    )
    return _done(request, t, said)


@require_GET
@manager_required
def export_json(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Every registered list, as JSON (a download)."""
    body = json.dumps(pages.export_json(tournament), ensure_ascii=False, indent=1)
    response = HttpResponse(body, content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{tournament.slug}-decklists.json"'
    response["Cache-Control"] = "private, no-store"
    return response


@require_GET
@manager_required
def export_text(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Every registered list, as text: one block per player."""
    response = HttpResponse(pages.export_text(tournament), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{tournament.slug}-decklists.txt"'
    response["Cache-Control"] = "private, no-store"
    return response


# --- A judge --------------------------------------------------------------------------------


def _player(t: Tournament, pk: int) -> Player:
    return get_object_or_404(
        Player.objects.select_related("tournament").exclude(entry=Entry.REJECTED),
        pk=pk,
        tournament=t,
    )


def _check_view(
    request: HttpRequest, t: Tournament, player: Player, *, status: int = 200, **extra: Any
) -> HttpResponse:
    player = _player(t, player.pk)  # as the service left it
    template = J + ("_decklist.html" if request.htmx else "decklist.html")
    context = pages.deck_check(player, card_lookup(), **extra)
    return _hx(request, render(request, template, context, status=status))


@require_GET
@judge_required
def judge_decklists(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The floor's way in: every player still in the event, each linking their list."""
    if not tournament.deck_format:
        raise Http404("This event takes no decklists.")
    template = J + ("_decklists.html" if request.htmx else "decklists.html")
    context = {"tournament": tournament, "entrants": pages.entrants(tournament)}
    return _hx(request, render(request, template, context))


@require_GET
@judge_required
def judge_decklist(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    """The player's registered list sorted as a deck check is done (by card type, then
    name; main and side counted), printable, with the judge's edit form."""
    if not tournament.deck_format:
        raise Http404("This event takes no decklists.")
    return _check_view(request, tournament, _player(tournament, pk))


@require_POST
@judge_required
def judge_decklist_edit(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    """A judge (or the organizer) enters or changes the player's list: audited, and after
    the lock a judge's change with the list before and after."""
    player = _player(tournament, pk)
    typed = request.POST.get("text", "")[:MAX_TYPED]
    try:
        row = services.submit_decklist(player=player, text=_sent_text(request), by=request.user)
    except ServiceError as exc:
        return _check_view(request, tournament, player, status=422, error=str(exc), typed=typed)
    if row.legal:
        said = _("%(player)s's decklist is saved: it is legal.") % {"player": player.name}
    else:
        # English says "problem(s)" whatever the count; other languages pick their form.
        said = ngettext(
            "%(player)s's decklist is saved, with %(count)s problem(s).",
            "%(player)s's decklist is saved, with %(count)s problem(s).",
            len(row.problems),
        ) % {"player": player.name, "count": len(row.problems)}
    if not request.htmx:
        messages.success(request, said)
        return redirect(reverse("judge_decklist", args=[tournament.slug, pk]))
    return _check_view(request, tournament, player, notice=said)


# --- The public ---------------------------------------------------------------------------------


@live_page()
def public_decklists(request: HttpRequest, t: Tournament, query: live.Query) -> HttpResponse:
    """The top cut's lists once the organizer published them; before, a page saying so."""
    return _page(
        request, t, query, "tournaments/decklists.html", "tournaments/_decklists.html",
        lambda: pages.public_lists(t), by_version=True,
    )  # fmt: skip


@json_endpoint
def api_decklists(
    request: HttpRequest, t: Tournament, query: live.Query
) -> Callable[[], dict[str, Any]]:
    """The published lists as JSON (an empty list before publishing)."""
    return lambda: pages.public_json(t)
