from django.contrib import admin
from django.contrib.auth.views import redirect_to_login
from django.urls import include, path

from tournaments.views import public
from tournaments.views.auth import RateLimitedLoginView

urlpatterns = [
    path("", public.home, name="home"),
    path("healthz", public.healthz, name="healthz"),
    path("t/<slug:slug>/", public.event_home, name="event_home"),
    path("t/<slug:slug>/standings/", public.standings, name="standings"),
    path("t/<slug:slug>/pairings/", public.pairings, name="pairings"),
    # <path:pid>: a player id is any string (shared/spec/interchange.md), "/" included.
    path("t/<slug:slug>/players/<path:pid>/", public.player, name="player"),
    path("t/<slug:slug>/bracket/", public.bracket, name="bracket"),
    path("t/<slug:slug>/projector/", public.projector, name="projector"),
    path("t/<slug:slug>/qr.svg", public.qr_code, name="qr_code"),
    path("t/<slug:slug>/manage/", include("tournaments.urls_organizer")),
    path("manage/", include("tournaments.urls_manage")),
    path("accounts/login/", RateLimitedLoginView.as_view(), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    # The admin signs in through the same rate-limited login.
    path(
        "admin/login/",
        lambda request: redirect_to_login(request.GET.get("next", "/admin/")),
        name="admin_login",
    ),
    path("admin/", admin.site.urls),
]
