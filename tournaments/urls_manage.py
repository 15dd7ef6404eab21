"""The organizer's screens that are not about one tournament (create, my events)."""

from django.urls import path

urlpatterns: list = []
