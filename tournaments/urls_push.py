"""Notifications with Web Push (issue 29): the service worker, and the opt-ins."""

from django.urls import URLPattern, URLResolver, path

from tournaments.views import push

urlpatterns: list[URLPattern | URLResolver] = [
    path("push-sw.js", push.service_worker, name="push_service_worker"),
    path("p/<str:token>/push/", push.player_push, name="private_push"),
    path("t/<slug:slug>/judge/push/", push.judge_push, name="judge_push"),
]
