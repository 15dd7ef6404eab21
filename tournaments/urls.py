from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.views import redirect_to_login
from django.urls import include, path

from tournaments import locale
from tournaments.views import public
from tournaments.views.auth import RateLimitedLoginView

handler400 = "tournaments.views.public.bad_request"

urlpatterns = [
    path("", public.home, name="home"),
    path("healthz", public.healthz, name="healthz"),
    # The language switcher's form posts here (Django's set_language: the cookie).
    # (tournaments.locale.set_language: Django's, usable from pages carrying no CSRF token).
    path("i18n/setlang/", locale.set_language, name="set_language"),
    path("t/<slug:slug>/", public.event_home, name="event_home"),
    # The public JSON API (standings.json, pairings.json, players/<id>.json).
    path("t/<slug:slug>/", include("tournaments.urls_api")),
    path("t/<slug:slug>/standings/", public.standings, name="standings"),
    path("t/<slug:slug>/standings.csv", public.standings_csv, name="standings_csv"),
    path("t/<slug:slug>/pairings.csv", public.pairings_csv, name="pairings_csv"),
    path("t/<slug:slug>/pairings/", public.pairings, name="pairings"),
    # <path:pid>: a player id is any string (shared/spec/interchange.md), "/" included.
    path("t/<slug:slug>/players/<path:pid>/", public.player, name="player"),
    # Beside the player's page, not under it: a player id may itself end in "/tiebreakers".
    path(
        "t/<slug:slug>/tiebreakers/<path:pid>/",
        public.player_tiebreakers,
        name="player_tiebreakers",
    ),
    path("t/<slug:slug>/bracket/", public.bracket, name="bracket"),
    path("t/<slug:slug>/projector/", public.projector, name="projector"),
    path("t/<slug:slug>/qr.svg", public.qr_code, name="qr_code"),
    path("t/<slug:slug>/live/", public.live_events, name="live_events"),
    # Players taking part (issue 14): registration, private links, their own reports.
    path("", include("tournaments.urls_registration")),
    path("", include("tournaments.urls_reports")),
    # The floor (issue 27): judge calls, time extensions and deck checks, penalties, and
    # the organizer's fixed seats and pairing restrictions; each module names its paths.
    path("", include("tournaments.urls_calls")),
    path("", include("tournaments.urls_floor")),
    path("", include("tournaments.urls_penalties")),
    path("", include("tournaments.urls_seating")),
    path("", include("tournaments.urls_decklists")),
    path("", include("tournaments.urls_push")),
    path("t/<slug:slug>/manage/print/", include("tournaments.urls_print")),
    path("t/<slug:slug>/manage/corrections/", include("tournaments.urls_corrections")),
    path("t/<slug:slug>/manage/", include("tournaments.urls_organizer")),
    path("manage/", include("tournaments.urls_manage")),
    path("accounts/login/", RateLimitedLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/", include("tournaments.urls_accounts")),
    path(
        "accounts/password_change/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password_change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    # The admin signs in through the same rate-limited login.
    path(
        "admin/login/",
        lambda request: redirect_to_login(request.GET.get("next", "/admin/")),
        name="admin_login",
    ),
    path("admin/", admin.site.urls),
]

# Password reset sends mail: offered only where mail is configured (settings.EMAIL_HOST).
if settings.EMAIL_HOST:
    urlpatterns += [
        path("accounts/password_reset/", auth_views.PasswordResetView.as_view(),
             name="password_reset"),
        path("accounts/password_reset/done/", auth_views.PasswordResetDoneView.as_view(),
             name="password_reset_done"),
        path("accounts/reset/<uidb64>/<token>/", auth_views.PasswordResetConfirmView.as_view(),
             name="password_reset_confirm"),
        path("accounts/reset/done/", auth_views.PasswordResetCompleteView.as_view(),
             name="password_reset_complete"),
    ]  # fmt: skip
