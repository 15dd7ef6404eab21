"""Login, rate-limited by django-axes (settings: AXES_*): repeated failures for one
username from one address are refused for a while instead of letting a script guess."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

LOCKED = "Too many failed logins. Wait 15 minutes, then try again."


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
