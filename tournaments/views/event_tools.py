"""The organizer's tools around an event: round clock, sharing (QR code), staff, audit
log, backup and restore. One screen or one action each; every action works as a plain
POST (redirect back) and with HTMX (the panel it changed)."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from tournaments import services
from tournaments.forms import StaffForm
from tournaments.interchange import DocumentError, export_document, parse_document
from tournaments.models import StaffRole, Tournament
from tournaments.pages import audit as audit_pages
from tournaments.pages import organizer as pages
from tournaments.pages.common import current_round
from tournaments.parsing import ascii_int
from tournaments.permissions import manager_required
from tournaments.rules import DEFAULT_ROUND_MINUTES
from tournaments.services import ServiceError
from tournaments.services.imports import restore_document
from tournaments.services.staff import staff_members
from tournaments.venue import phone_url

T = "tournaments/manage/"
MAX_UPLOAD_BYTES = 20 * 1024 * 1024  # a 2,000-player event's backup is a few MB


class ClockForm(forms.Form):
    action = forms.ChoiceField(choices=[(a, a) for a in ("start", "pause", "resume", "add")])
    minutes = forms.IntegerField(min_value=-600, max_value=600, required=False)


class RestoreForm(forms.Form):
    document = forms.FileField(label=gettext_lazy("Backup file (.json)"))


@require_POST
@manager_required
def clock(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    form = ClockForm(request.POST)
    round_ = current_round(tournament)
    error = None
    if round_ is None:
        error = gettext("Pair a round before starting its clock.")
    elif not form.is_valid():
        error = gettext("Choose start, pause, resume or add, with whole minutes.")
    else:
        action, minutes = form.cleaned_data["action"], form.cleaned_data["minutes"]
        try:
            if action == "start":
                services.start_clock(
                    round=round_, minutes=minutes or DEFAULT_ROUND_MINUTES,
                    by=request.user,
                )  # fmt: skip
            elif action == "pause":
                services.pause_clock(round=round_, by=request.user)
            elif action == "resume":
                services.resume_clock(round=round_, by=request.user)
            else:
                services.add_clock_minutes(round=round_, minutes=minutes or 0, by=request.user)
        except ServiceError as exc:
            error = str(exc)
    if request.htmx:
        context = pages.clock_panel(tournament, clock_error=error)
        return render(request, T + "_clock.html", context, status=422 if error else 200)
    if error:
        messages.error(request, error)
    return redirect("manage_event", slug=tournament.slug)


@require_POST
@manager_required
def plan(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Planned Swiss rounds and top cut (the event screen suggests the MTR's number)."""
    from tournaments.forms import PlanForm

    form = PlanForm(request.POST)
    if not form.is_valid():
        messages.error(request, gettext("Planned rounds: a whole number from 1 to 30, or empty."))
    else:
        try:
            services.update_plan(tournament=tournament, by=request.user, **form.cleaned_data)
        except ServiceError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, gettext("The plan is saved."))
    if request.htmx:
        return HttpResponseClientRedirect(reverse("manage_event", args=[tournament.slug]))
    return redirect("manage_event", slug=tournament.slug)


@require_GET
@manager_required
def share(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """A page to print or show: the QR code that opens the event home on phones."""
    url = phone_url(request, reverse("event_home", args=[tournament.slug]))
    return render(request, T + "share.html", {"tournament": tournament, "public_url": url})


def _owner_or_superuser(request: HttpRequest, t: Tournament) -> None:
    if not (request.user.is_superuser or t.owner_id == request.user.pk):
        raise PermissionDenied(gettext("Only the tournament's owner manages its staff."))


@manager_required
def staff(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The staff list; the owner adds staff by username (POST) or removes them."""
    error = None
    status = 200
    if request.method == "POST":
        _owner_or_superuser(request, tournament)
        form = StaffForm(request.POST)
        try:
            if "remove" in request.POST:
                user_id = ascii_int(request.POST["remove"])
                if user_id is None:
                    raise ServiceError(gettext("Pick the staff member to remove from the list."))
                services.remove_staff(tournament=tournament, user_id=user_id, by=request.user)
            elif "member" in request.POST:
                user_id = ascii_int(request.POST["member"])
                if user_id is None:
                    raise ServiceError(
                        gettext("Pick the staff member whose role changes from the list.")
                    )
                services.set_staff_role(
                    tournament=tournament,
                    user_id=user_id,
                    role=request.POST.get("role", ""),
                    by=request.user,
                )
            elif form.is_valid():
                services.add_staff(
                    tournament=tournament,
                    username=form.cleaned_data["username"],
                    role=form.cleaned_data["role"],
                    by=request.user,
                )
            else:
                raise ServiceError(gettext("Give the username of the person to add."))
        except (ServiceError, ValueError) as exc:
            error, status = str(exc), 422
        if error is None and not request.htmx:
            return redirect("manage_staff", slug=tournament.slug)
    context = {
        "tournament": tournament,
        "staff_members": staff_members(tournament),
        "roles": StaffRole.choices,
        "is_owner": request.user.is_superuser or tournament.owner_id == request.user.pk,
        "form": StaffForm(),
        "staff_error": error,
    }
    template = T + "_staff.html" if request.htmx else T + "staff.html"
    return render(request, template, context, status=status)


class AuditFilterForm(forms.Form):
    """The audit log's filters (GET): ?round=4, ?player=<a fragment of a name, or a
    player's id>, ?page=2. Numbers in ASCII digits only (tournaments.parsing)."""

    round = forms.CharField(required=False)
    player = forms.CharField(
        required=False,
        max_length=200,
        error_messages={"max_length": gettext_lazy("A player's name has at most 200 characters.")},
    )
    page = forms.CharField(required=False)

    def _number(self, name: str, message: str) -> int | None:
        text = self.cleaned_data[name].strip()
        if not text:
            return None
        number = ascii_int(text)
        if number is None or number < 1:
            raise forms.ValidationError(message % {"text": text[:20]})
        return number

    def clean_round(self) -> int | None:
        return self._number(
            "round", gettext("“%(text)s” is not a round number: pick a round from the list.")
        )

    def clean_page(self) -> int | None:
        return self._number("page", gettext("“%(text)s” is not a page number: use 1, 2, 3..."))


@require_GET
@manager_required
def audit_log(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Who did what, one sentence per entry, newest first; filtered by round and player."""
    form = AuditFilterForm(request.GET)
    context: dict[str, Any] = {}
    if form.is_valid():
        data = form.cleaned_data
        try:
            context = audit_pages.audit_log(
                tournament, round=data["round"], player=data["player"], page=data["page"] or 1
            )
        except audit_pages.FilterError as exc:
            form.add_error(exc.field, str(exc))
    if form.errors:  # the form again, with what was typed and the message beside its field
        context = audit_pages.filter_form(tournament)
    context["typed"] = {name: form.data.get(name, "") for name in ("round", "player")}
    context["errors"] = {name: " ".join(errors) for name, errors in form.errors.items()}
    template = T + "_audit.html" if request.htmx else T + "audit.html"
    return render(request, template, context, status=422 if form.errors else 200)


@require_GET
@manager_required
def backup(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The whole event as an interchange document, to keep or to restore elsewhere."""
    body = json.dumps(export_document(tournament, backup=True), ensure_ascii=False, indent=1)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{tournament.slug}.json"'
    return response


@login_required
def restore(request: HttpRequest) -> HttpResponse:
    """Create an event from an uploaded document, with the command line's validation;
    a backup brings back its players' private links, registration and staff too."""
    problems: list[str] = []
    status = 200
    form = RestoreForm()
    if request.method == "POST":
        form = RestoreForm(request.POST, request.FILES)
        if not form.is_valid():
            problems = [gettext("document: choose a backup file to upload")]
        else:
            upload = form.cleaned_data["document"]
            if upload.size > MAX_UPLOAD_BYTES:
                problems = [
                    gettext("document: larger than %(size)s MB")
                    % {"size": MAX_UPLOAD_BYTES // 1024 // 1024}
                ]
            else:
                try:
                    done = restore_document(parse_document(upload.read()), owner=request.user)
                except DocumentError as exc:
                    problems = exc.problems
                else:
                    t = done.tournament
                    messages.success(
                        request,
                        gettext("Restored %(name)s (%(count)s players).")
                        % {"name": t.name, "count": t.players.count()},
                    )
                    # What the backup held that this installation could not take (staff
                    # without an account here ...): said once, on the restored event.
                    for note in done.notes:
                        messages.warning(request, note)
                    return redirect("manage_event", slug=t.slug)
        status = 422
    return render(request, T + "restore.html", {"form": form, "problems": problems}, status=status)
