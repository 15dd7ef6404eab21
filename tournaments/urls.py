from django.contrib import admin
from django.urls import include, path

from tournaments import views

urlpatterns = [
    path("", views.home, name="home"),
    path("t/<slug:slug>/", views.event_home, name="event_home"),
    path("t/<slug:slug>/standings/", views.standings, name="standings"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
]
