from django.contrib import admin
from django.urls import include, path

from tournaments.views import public

urlpatterns = [
    path("", public.home, name="home"),
    path("t/<slug:slug>/", public.event_home, name="event_home"),
    path("t/<slug:slug>/standings/", public.standings, name="standings"),
    path("t/<slug:slug>/manage/", include("tournaments.urls_organizer")),
    path("manage/", include("tournaments.urls_manage")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
]
