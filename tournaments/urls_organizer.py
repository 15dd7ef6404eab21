"""The organizer's screens for one tournament, under /t/<slug>/manage/."""

from django.urls import path

urlpatterns: list = []
