"""Login, rate-limited by django-axes (settings: AXES_*): repeated failures for one
username from one address are refused for a while instead of letting a script guess.
The demo account's published password works only on the machine that runs the server."""

from __future__ import annotations

import ipaddress
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from tournaments import clientaddress
from tournaments.venue import DEMO_PASSWORD, DEMO_USERNAME

# Translated where they are shown, in the reader's language.
LOCKED = gettext_noop(
    "Too many failed logins. Wait 15 minutes, then try again (longer after repeated lockouts)."
)
DEMO_ONLY_LOCAL = gettext_noop(
    "The demo account (%(username)s / %(password)s) works only on the laptop that runs the "
    "server: log in there, at %(login_url)s, or here with an organizer account of your own "
    "(made on that laptop with VENUE=1 python manage.py create_organizer NAME --admin, as "
    "the venue mode prints)."
)
BASE_COOL_OFF = timedelta(minutes=15)
LONGEST_COOL_OFF = timedelta(hours=24)


def cool_off(request: HttpRequest | None = None) -> timedelta:
    """How long a lockout lasts (settings.AXES_COOLOFF_TIME): 15 minutes, doubling with
    every lockout of the same username at the same address in the last day, so that a
    script guessing slowly is slowed down ever more, at most to a day."""
    if request is None:
        return BASE_COOL_OFF
    from axes.models import AccessFailureLog
    from django.utils import timezone

    username = request.POST.get("username", "") if request.method == "POST" else ""
    address = clientaddress.for_axes(request)
    lockouts = AccessFailureLog.objects.filter(
        username=username,
        ip_address=address,
        locked_out=True,
        attempt_time__gte=timezone.now() - LONGEST_COOL_OFF,
    ).count()
    return min(BASE_COOL_OFF * 2 ** max(lockouts - 1, 0), LONGEST_COOL_OFF)


def from_this_machine(request: HttpRequest) -> bool:
    """Whether the request comes from the server's own machine. Behind a proxy every
    request arrives from it, so none counts as local there."""
    if settings.BEHIND_PROXY:
        return False
    try:
        return ipaddress.ip_address(clientaddress.of_request(request)).is_loopback
    except ValueError:  # clientaddress.UNKNOWN
        return False


class LoginForm(AuthenticationForm):
    """Django's login form, refusing the demo account's published password from any
    other machine (a phone on the venue's Wi-Fi, the internet) before it is tried."""

    def clean(self) -> dict[str, Any]:
        if (
            self.data.get("username") == DEMO_USERNAME
            and self.data.get("password") == DEMO_PASSWORD
            and not (self.request is not None and from_this_machine(self.request))
        ):
            port = self.request.get_port() if self.request is not None else "8000"
            raise ValidationError(
                _(DEMO_ONLY_LOCAL)
                % {
                    "username": DEMO_USERNAME,
                    "password": DEMO_PASSWORD,
                    "login_url": f"http://localhost:{port}{reverse('login')}",
                },
                code="demo_only_local",
            )
        return super().clean()


class RateLimitedLoginView(auth_views.LoginView):
    """Django's login; axes counts its failures and answers `locked_out` when due."""

    form_class = LoginForm

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        response = super().form_invalid(form)
        if form.has_error("__all__", "demo_only_local"):
            response.status_code = 422
        return response


def locked_out(
    request: HttpRequest, credentials: Any = None, *args: Any, **kwargs: Any
) -> HttpResponse:
    """What axes answers once the limit is reached: the login form, saying why (429)."""
    form = AuthenticationForm(request, data=request.POST or None)
    form.errors.clear()
    form.add_error(None, _(LOCKED))
    return render(
        request,
        "registration/login.html",
        {"form": form, "next": request.POST.get("next", "")},
        status=429,
    )
