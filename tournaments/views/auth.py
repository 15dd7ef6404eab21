"""Login with a rate limit: repeated failures from one address, or for one username,
are refused for a while instead of letting a script guess passwords."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import views as auth_views
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse

# Five wrong passwords in 15 minutes lock that address and that username for 15 minutes.
MAX_FAILURES = 5
WINDOW_SECONDS = 15 * 60


def _keys(request: HttpRequest) -> list[str]:
    address = request.META.get("REMOTE_ADDR", "unknown")
    username = request.POST.get("username", "").strip().lower()[:150]
    return [f"login-fail:ip:{address}", f"login-fail:user:{username}"]


def _blocked(request: HttpRequest) -> bool:
    return any((cache.get(key) or 0) >= MAX_FAILURES for key in _keys(request))


class RateLimitedLoginView(auth_views.LoginView):
    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if _blocked(request):
            form = self.get_form()
            form.add_error(None, "Too many failed logins. Wait 15 minutes, then try again.")
            response = self.render_to_response(self.get_context_data(form=form))
            response.status_code = 429
            return response
        response = super().post(request, *args, **kwargs)
        if response.status_code != 302:  # the form came back: a failed attempt
            for key in _keys(request):
                cache.add(key, 0, WINDOW_SECONDS)
                try:
                    cache.incr(key)
                except ValueError:  # expired between add and incr
                    cache.set(key, 1, WINDOW_SECONDS)
        return response
