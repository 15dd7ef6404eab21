"""URL patterns for players' registration screens, their private pages (issue 14) and
the organizer's registration screen. Included at the site root: full paths here."""

from django.urls import URLPattern, path

from tournaments.views import private, registration

urlpatterns: list[URLPattern] = [
    path("t/<slug:slug>/register/", registration.register, name="registration_form"),
    path("t/<slug:slug>/register/qr.svg", registration.register_qr, name="registration_qr"),
    # A private link: the token is the player's only key (tournaments/tokens.py).
    path("p/<str:token>/", private.page, name="private_page"),
    path("p/<str:token>/qr.svg", private.qr, name="private_qr"),
    path("p/<str:token>/check-in/", private.check_in, name="private_check_in"),
    path("t/<slug:slug>/manage/registration/", registration.manage, name="manage_registration"),
    path(
        "t/<slug:slug>/manage/registration/entries/",
        registration.entries,
        name="manage_registration_entries",
    ),
    path(
        "t/<slug:slug>/manage/registration/entries/<int:pk>/",
        registration.entry,
        name="manage_registration_entry",
    ),
    path(
        "t/<slug:slug>/manage/registration/players/<int:pk>/check-in/",
        registration.check_in,
        name="manage_registration_check_in",
    ),
    path(
        "t/<slug:slug>/manage/registration/players/<int:pk>/link/",
        registration.link,
        name="manage_registration_link",
    ),
    path(
        "t/<slug:slug>/manage/registration/no-shows/",
        registration.drop_no_shows,
        name="manage_registration_no_shows",
    ),
]
