"""Issue 27, fixed seats and pairing restrictions: the organizer's seating screen."""

from django.urls import URLPattern, URLResolver, path

from tournaments.views import seating

S = "t/<slug:slug>/manage/seating/"

urlpatterns: list[URLPattern | URLResolver] = [
    path(S, seating.seating, name="manage_seating"),
    path(S + "fix/", seating.fix, name="manage_seating_fix"),
    path(S + "unfix/", seating.unfix, name="manage_seating_unfix"),
    path(S + "restrict/", seating.restrict, name="manage_seating_restrict"),
    path(S + "lift/", seating.lift, name="manage_seating_lift"),
    path(S + "enforcement/", seating.enforcement, name="manage_enforcement"),
]
