"""URL patterns for players' reports screens (filled in by the views that serve them)."""

from django.urls import URLPattern, path  # noqa: F401

urlpatterns: list[URLPattern] = []
