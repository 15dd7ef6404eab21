"""Issue 28: decklists (players' submissions, the organizer's and judges' screens, the
published lists). Included at the site root: full paths here."""

from django.urls import URLPattern, URLResolver

urlpatterns: list[URLPattern | URLResolver] = []
