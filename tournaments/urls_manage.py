"""The organizer's screens that are not about one tournament (create, my events)."""

from django.urls import path

from tournaments.views import event_tools, organizer

urlpatterns = [
    path("", organizer.dashboard, name="manage_dashboard"),
    path("create/", organizer.create, name="manage_create"),
    path("restore/", event_tools.restore, name="manage_restore"),
]
