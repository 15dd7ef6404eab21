"""Registration from a link (issue 14): the public form and its QR code, and the
organizer's registration screen (settings, entries, check-in, private links).

One screen or one action each. Every organizer action works as a plain POST (redirect
back, or the screen again with the message and 422) and with HTMX (the screen's panel).
"""

from __future__ import annotations

import base64
import hashlib
import io
from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import parse_etags, quote_etag
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from tournaments import clientaddress, ratelimit
from tournaments.locale import speaking
from tournaments.models import Player, Tournament
from tournaments.pages import registration as pages
from tournaments.parsing import ascii_int
from tournaments.permissions import manager_required
from tournaments.services import registration as services
from tournaments.services.writing import ServiceError
from tournaments.venue import phone_url

T = "tournaments/registration/"
NAMES_IN_NOTICE = 10  # a desk accepting 200 entries names ten; the audit log has them all
M = "tournaments/manage/"


class RegisterForm(forms.Form):
    # Lengths are the service's to judge (its message names the field); the form only
    # binds. strip=False: the service collapses whitespace itself.
    name = forms.CharField(required=False, strip=False)
    contact = forms.CharField(required=False, strip=False)
    # Shown once the name is taken: the player's own word that tells them apart.
    suffix = forms.CharField(required=False, strip=False)


class SettingsForm(forms.Form):
    registration_open = forms.BooleanField(required=False)
    cap = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=100_000,
        error_messages={
            "invalid": gettext_lazy("The cap is a whole number of players, or empty."),
            "min_value": gettext_lazy("The cap is at least 1 player, or empty for no cap."),
            "max_value": gettext_lazy("The cap is at most 100000 players."),
        },
    )
    approval = forms.BooleanField(required=False)
    check_in = forms.BooleanField(required=False)


def qr_svg(url: str) -> bytes:
    """An SVG QR code of `url`, drawn here (segno), as tournaments.views.public.qr_code."""
    import segno

    buffer = io.BytesIO()
    segno.make(url, error="m").save(
        buffer, kind="svg", scale=8, dark="#000", light="#fff", border=2, xmldecl=False
    )
    return buffer.getvalue()


def qr_data_uri(url: str) -> str:
    """The QR code inline (CSP allows data: images): a private link's code is shown once
    on the organizer's screen without a second request that carries the token."""
    return "data:image/svg+xml;base64," + base64.b64encode(qr_svg(url)).decode("ascii")


# --- The public form -----------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def register(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the form. POST: register, then the new player's private page."""
    t = get_object_or_404(Tournament, slug=slug)
    with speaking(request, t):  # the event's language and time zone (tournaments.locale)
        return _register(request, t)


def _register(request: HttpRequest, t: Tournament) -> HttpResponse:
    typed = {"name": "", "contact": "", "suffix": ""}
    errors: dict[str, str] = {}
    status = 200
    refused: ratelimit.Refused | None = None
    offer_suffix = False
    if request.method == "POST":
        form = RegisterForm(request.POST)
        typed = {k: str(form.data.get(k, ""))[:1000] for k in typed}
        offer_suffix = bool(typed["suffix"].strip())  # asked before: asked again
        # By event and by address only: there is no private link before registering, and
        # a name typed twice is refused as a duplicate by the service anyway.
        refused = ratelimit.first_refused(
            ratelimit.registration_limits(request, event_id=t.pk),
            address=clientaddress.of_request(request),
        )
        if refused is not None:
            errors["form"], status = refused.message("registrations"), 429
        else:
            form.is_valid()  # two optional text fields: always valid; binds cleaned_data
            try:
                _player, token = services.register_self(
                    tournament=t,
                    name=form.cleaned_data.get("name") or "",
                    contact=form.cleaned_data.get("contact") or "",
                    suffix=form.cleaned_data.get("suffix") or "",
                )
            except services.FieldRefused as exc:
                errors[exc.field], status = str(exc), 422
                # A namesake: the form asks for the word that tells them apart.
                offer_suffix = offer_suffix or isinstance(exc, services.NamesakeRefused)
            except ServiceError as exc:
                errors["form"], status = str(exc), 422
            else:
                url = reverse("private_page", args=[token])
                return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    context = {
        **pages.registration_form(t),
        "typed": typed,
        "errors": errors,
        "offer_suffix": offer_suffix,
    }
    template = T + ("_form.html" if request.htmx else "page.html")
    response = render(request, template, context, status=status)
    return refused.headers(response) if refused is not None else response


def register_qr(request: HttpRequest, slug: str) -> HttpResponse:
    """The QR code of the registration form, for the organizer to show or print."""
    t = get_object_or_404(Tournament, slug=slug)
    url = phone_url(request, reverse("registration_form", args=[t.slug]))
    # Another network after a restart encodes another address: always revalidated.
    etag = quote_etag(hashlib.sha256(url.encode()).hexdigest()[:20])
    if etag in parse_etags(request.headers.get("If-None-Match", "")):
        response = HttpResponse(status=304)
    else:
        response = HttpResponse(qr_svg(url), content_type="image/svg+xml")
    response["ETag"] = etag
    response["Cache-Control"] = "public, no-cache"
    return response


# --- The organizer's screen ----------------------------------------------------------------


def _screen(
    request: HttpRequest, t: Tournament, *, status: int = 200, **extra: Any
) -> HttpResponse:
    t.refresh_from_db()
    context = {
        **pages.registration_screen(t),
        "register_url": phone_url(request, reverse("registration_form", args=[t.slug])),
        "error": None,
        "notice": None,
        **extra,
    }
    template = M + ("_registration.html" if request.htmx else "registration.html")
    response = render(request, template, context, status=status)
    if "new_link" in extra:
        # The page holds a private link: no copy kept anywhere, a Referer of the origin only.
        response["Cache-Control"] = "private, no-store"
        response["Referrer-Policy"] = "strict-origin"
    return response


def _done(request: HttpRequest, t: Tournament, notice: str) -> HttpResponse:
    if request.htmx:
        return _screen(request, t, notice=notice)
    messages.success(request, notice)
    return redirect("manage_registration", slug=t.slug)


@require_http_methods(["GET", "POST"])
@manager_required
def manage(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The registration screen; POST saves its settings."""
    if request.method == "GET":
        return _screen(request, tournament)
    form = SettingsForm(request.POST)
    if not form.is_valid():
        error = next(str(e) for errors in form.errors.values() for e in errors)
        return _screen(
            request, tournament, status=422, error=error, typed_cap=form.data.get("cap", "")
        )
    try:
        services.set_registration(tournament=tournament, by=request.user, **form.cleaned_data)
    except ServiceError as exc:
        return _screen(request, tournament, status=422, error=str(exc))
    return _done(request, tournament, _("Registration settings saved."))


def _player(t: Tournament, pk: int) -> Player:
    return get_object_or_404(Player, pk=pk, tournament=t)


@require_POST
@manager_required
def entry(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    """Accept or reject one entry (decision=accept|reject)."""
    player = _player(tournament, pk)
    decision = request.POST.get("decision", "")
    try:
        if decision == "accept":
            services.accept_entry(player=player, by=request.user)
        elif decision == "reject":
            services.reject_entry(player=player, by=request.user)
        else:
            raise ServiceError(_("Choose accept or reject."))
    except ServiceError as exc:
        return _screen(request, tournament, status=422, error=str(exc))
    if decision == "accept":
        return _done(request, tournament, _("%(name)s: accepted.") % {"name": player.name})
    return _done(request, tournament, _("%(name)s: rejected.") % {"name": player.name})


def _chosen(request: HttpRequest, t: Tournament, field: str) -> list[Player]:
    """The players a desk form names in `field` (their ids), all of them in this event."""
    ids = [ascii_int(value) for value in request.POST.getlist(field)]
    if None in ids:
        raise ServiceError(_("Pick the entries from the list."))
    wanted = {pk for pk in ids if pk is not None}
    found = list(Player.objects.filter(tournament=t, pk__in=wanted))
    if len(found) != len(wanted):
        raise ServiceError(_("Some of these players are no longer in this event: reload the desk."))
    return found


@require_POST
@manager_required
def entries(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Several entries at once: decision=accept or reject for the ticked ones (`player`),
    accept_all for every entry the desk listed (`listed`): one write, however many."""
    decision = request.POST.get("decision", "")
    try:
        if decision not in ("accept", "reject", "accept_all"):
            raise ServiceError(_("Choose accept or reject."))
        players = _chosen(request, tournament, "listed" if decision == "accept_all" else "player")
        if not players:
            raise ServiceError(_("Tick the entries first, or accept them all."))
        if decision == "reject":
            done = services.reject_entries(tournament=tournament, players=players, by=request.user)
        else:
            done = services.accept_entries(tournament=tournament, players=players, by=request.user)
    except ServiceError as exc:
        return _screen(request, tournament, status=422, error=str(exc))
    rejected = decision == "reject"
    if not done:
        if rejected:
            return _done(request, tournament, _("Nothing to change: already rejected."))
        return _done(request, tournament, _("Nothing to change: already accepted."))
    names = ", ".join(p.name for p in done[:NAMES_IN_NOTICE])
    if len(done) > NAMES_IN_NOTICE:
        names = _("%(names)s and %(more)s more") % {
            "names": names,
            "more": len(done) - NAMES_IN_NOTICE,
        }
    facts = {"count": len(done), "names": names}
    if rejected:
        text = ngettext(
            "%(count)s entry rejected: %(names)s.",
            "%(count)s entries rejected: %(names)s.",
            len(done),
        )
    else:
        text = ngettext(
            "%(count)s entry accepted: %(names)s.",
            "%(count)s entries accepted: %(names)s.",
            len(done),
        )
    return _done(request, tournament, text % facts)


@require_POST
@manager_required
def check_in(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    """The organizer checks a player in (one who came without a phone)."""
    player = _player(tournament, pk)
    try:
        services.check_in(player=player, by=request.user)
    except ServiceError as exc:
        return _screen(request, tournament, status=422, error=str(exc))
    return _done(request, tournament, _("%(name)s checked in.") % {"name": player.name})


@require_POST
@manager_required
def link(request: HttpRequest, tournament: Tournament, pk: int) -> HttpResponse:
    """A new private link for a player, shown once (link and QR code); the old one dies.
    No redirect: the link is in this answer only."""
    player = _player(tournament, pk)
    try:
        token = services.issue_link(player=player, by=request.user)
    except ServiceError as exc:
        return _screen(request, tournament, status=422, error=str(exc))
    url = phone_url(request, reverse("private_page", args=[token]))
    return _screen(
        request, tournament, new_link=url, new_link_for=player.name, new_link_qr=qr_data_uri(url)
    )


@require_POST
@manager_required
def drop_no_shows(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Drop every player not checked in, once the organizer has seen who: the first POST
    lists them (a page of its own without JavaScript, the desk's panel with HTMX); the
    second (confirm=yes) drops those listed (`player`), still not checked in."""
    if request.POST.get("confirm") != "yes":
        if request.htmx:
            return _screen(request, tournament, confirm_no_shows=True)
        context = {"tournament": tournament, **pages.registration_screen(tournament)}
        return render(request, T + "no_shows_confirm.html", context)
    try:
        # No list (a form from before the list was sent): every no-show, as before.
        listed = _chosen(request, tournament, "player") if "player" in request.POST else None
        dropped = services.drop_no_shows(tournament=tournament, players=listed, by=request.user)
    except ServiceError as exc:
        return _screen(request, tournament, status=422, error=str(exc))
    if not dropped:
        return _done(request, tournament, _("Nobody to drop: they have all checked in since."))
    # One English text for any number, as it always read; other languages may inflect it.
    text = ngettext("Dropped %(count)s no-show(s).", "Dropped %(count)s no-show(s).", len(dropped))
    return _done(request, tournament, text % {"count": len(dropped)})
