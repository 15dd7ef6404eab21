"""Login, rate-limited by django-axes (settings: AXES_*): repeated failures for one
username from one address are refused for a while instead of letting a script guess."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

LOCKED = "Too many failed logins. Wait 15 minutes, then try again (longer after repeated lockouts)."
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
    address = getattr(request, "axes_ip_address", None) or request.META.get("REMOTE_ADDR", "")
    lockouts = AccessFailureLog.objects.filter(
        username=username,
        ip_address=address,
        locked_out=True,
        attempt_time__gte=timezone.now() - LONGEST_COOL_OFF,
    ).count()
    return min(BASE_COOL_OFF * 2 ** max(lockouts - 1, 0), LONGEST_COOL_OFF)


class RateLimitedLoginView(auth_views.LoginView):
    """Django's login; axes counts its failures and answers `locked_out` when due."""


def locked_out(
    request: HttpRequest, credentials: Any = None, *args: Any, **kwargs: Any
) -> HttpResponse:
    """What axes answers once the limit is reached: the login form, saying why (429)."""
    form = AuthenticationForm(request, data=request.POST or None)
    form.errors.clear()
    form.add_error(None, LOCKED)
    return render(
        request,
        "registration/login.html",
        {"form": form, "next": request.POST.get("next", "")},
        status=429,
    )
