"""Accounts without a mail server: the owner creates a staff account on the event's staff
screen and hands its holder a one-time link; the link's page sets the password.

The link is Django's password-reset token: it hashes the stored password, so it stops
working once the password is set (or a newer link is issued), and it expires after
settings.PASSWORD_RESET_TIMEOUT (Django's default: three days).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.forms import SetPasswordForm
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render, resolve_url
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.encoding import force_str
from django.utils.http import urlsafe_base64_decode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from tournaments import services
from tournaments.forms import StaffForm
from tournaments.models import StaffRole, Tournament
from tournaments.permissions import manager_required
from tournaments.services import ServiceError
from tournaments.services.staff import OWNER_ONLY, staff_members
from tournaments.venue import phone_url

T = "tournaments/manage/"
# Translated where they are shown (`_(BAD_LINK)`), in the reader's language.
BAD_LINK = gettext_noop(
    "This link is not valid: check that it was copied whole, or ask the event's owner for a "
    "new one."
)
USED_LINK = gettext_noop("This link has been used: the password is set. Log in with it.")
STALE_LINK = gettext_noop(
    "This link has expired or a newer one replaced it. Ask the event's owner for a new link."
)
# Logged in straight after setting the password, without authenticate(): with two
# backends configured (axes and this one), login() must be told which one vouches.
BACKEND = "django.contrib.auth.backends.ModelBackend"


class StaffAccountForm(forms.Form):
    username = forms.CharField(max_length=150)


def _is_owner(request: HttpRequest, t: Tournament) -> bool:
    return bool(request.user.is_superuser or t.owner_id == request.user.pk)


def _staff_screen(request: HttpRequest, t: Tournament, status: int, **extra: Any) -> HttpResponse:
    """The staff screen as tournaments.views.event_tools.staff renders it, plus this
    action's outcome (the new link, or the message beside the account form)."""
    context = {
        "tournament": t,
        "staff_members": staff_members(t),
        "roles": StaffRole.choices,
        "is_owner": _is_owner(request, t),
        "form": StaffForm(),
        "staff_error": None,
        **extra,
    }
    template = T + "_staff.html" if request.htmx else T + "staff.html"
    response = render(request, template, context, status=status)
    if "new_link" in extra:
        # Whoever holds the link holds the account: no copy in the browser's cache or
        # history's saved pages, nor in any cache between.
        add_never_cache_headers(response)
    return response


def _link_context(request: HttpRequest, user: Any) -> dict[str, Any]:
    return {
        "new_link": phone_url(request, services.set_password_path(user)),
        "new_link_for": user.get_username(),
        "new_link_expires": timezone.now() + timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT),
    }


@require_POST
@manager_required
def staff_account_create(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The owner creates an account for a helper: on the staff at once, no password yet;
    the answer shows the one-time link (there is no redirect: the link is shown once)."""
    if not _is_owner(request, tournament):
        raise PermissionDenied(OWNER_ONLY)
    form = StaffAccountForm(request.POST)
    typed = request.POST.get("username", "")[:150]
    if not form.is_valid():
        return _staff_screen(
            request, tournament, 422, account_error=_("Give a username for the new account."),
            account_username=typed,
        )  # fmt: skip
    try:
        user = services.create_staff_account(
            tournament=tournament,
            username=form.cleaned_data["username"],
            role=request.POST.get("role", StaffRole.SCOREKEEPER),
            by=request.user,
        )
    except ServiceError as exc:
        return _staff_screen(
            request, tournament, 422, account_error=str(exc), account_username=typed
        )
    return _staff_screen(request, tournament, 200, **_link_context(request, user))


@require_POST
@manager_required
def staff_account_link(request: HttpRequest, tournament: Tournament, user_id: int) -> HttpResponse:
    """A new one-time link for a staff account whose password is not set; older ones die."""
    if not _is_owner(request, tournament):
        raise PermissionDenied(OWNER_ONLY)
    try:
        user = services.renew_set_password_link(
            tournament=tournament, user_id=user_id, by=request.user
        )
    except ServiceError as exc:
        return _staff_screen(request, tournament, 422, staff_error=str(exc))
    return _staff_screen(request, tournament, 200, **_link_context(request, user))


def _link_user(uidb64: str) -> Any:
    try:
        pk = force_str(urlsafe_base64_decode(uidb64))
        return get_user_model()._default_manager.filter(pk=int(pk)).first()
    except (TypeError, ValueError, OverflowError, UnicodeDecodeError):
        return None


@sensitive_post_parameters("new_password1", "new_password2")
@never_cache
@require_http_methods(["GET", "POST"])
def set_password(request: HttpRequest, uidb64: str, token: str) -> HttpResponse:
    """The one-time link's page: choose a password (Django's validators), then logged in.

    Opening the link does not use it up (the owner may check it); setting the password does.
    """
    template = "registration/" + ("_set_password.html" if request.htmx else "set_password.html")
    user = _link_user(uidb64)
    problem, status = None, 200
    if user is None:
        problem, status = _(BAD_LINK), 400
    elif not default_token_generator.check_token(user, token):
        problem, status = _(USED_LINK if user.has_usable_password() else STALE_LINK), 410
    if problem:
        return render(request, template, {"problem": problem}, status=status)
    form = SetPasswordForm(user, request.POST if request.method == "POST" else None)
    if request.method == "POST":
        if form.is_valid():
            form.save()
            login(request, user, backend=BACKEND)
            messages.success(
                request,
                _("Password set: you are logged in as %(username)s.")
                % {"username": user.get_username()},
            )
            url = resolve_url(settings.LOGIN_REDIRECT_URL)
            return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
        status = 422
    other = request.user if request.user.is_authenticated and request.user.pk != user.pk else None
    context = {"form": form, "account": user.get_username(), "other_user": other}
    return render(request, template, context, status=status)
