"""URL patterns for the accounts screens: staff accounts made by an event's owner and
the one-time link that sets their password (tournaments.views.accounts)."""

from django.urls import URLPattern, path

from tournaments.views import accounts

urlpatterns: list[URLPattern] = [
    path("set-password/<str:uidb64>/<str:token>/", accounts.set_password, name="set_password"),
    path("staff/<slug:slug>/new/", accounts.staff_account_create, name="staff_account_create"),
    path(
        "staff/<slug:slug>/<int:user_id>/link/",
        accounts.staff_account_link,
        name="staff_account_link",
    ),
]
