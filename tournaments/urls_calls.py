"""Judge calls (issue 27): the player's "Call a judge" and the judges' screen."""

from django.urls import URLPattern, URLResolver, path

from tournaments.views import calls

urlpatterns: list[URLPattern | URLResolver] = [
    path("p/<str:token>/call/", calls.call, name="private_call"),
    path("t/<slug:slug>/judge/", calls.floor, name="judge_floor"),
    path("t/<slug:slug>/judge/calls/new/", calls.open_for_table, name="judge_open_call"),
    path("t/<slug:slug>/judge/calls/<int:pk>/claim/", calls.claim, name="judge_claim_call"),
    path("t/<slug:slug>/judge/calls/<int:pk>/release/", calls.release, name="judge_release_call"),
    path("t/<slug:slug>/judge/calls/<int:pk>/head/", calls.hand, name="judge_hand_call"),
    path("t/<slug:slug>/judge/calls/<int:pk>/resolve/", calls.resolve, name="judge_resolve_call"),
]
