"""The corrections screens, under /t/<slug>/manage/corrections/: the top cut's seeds
after a correction (review, re-seed, keep)."""

from django.urls import URLPattern, path

from tournaments.views import corrections

urlpatterns: list[URLPattern] = [
    path("", corrections.cut_check, name="manage_cut_check"),
    path("reseed/", corrections.reseed, name="manage_cut_reseed"),
    path("keep/", corrections.keep, name="manage_cut_keep"),
]
