"""Penalties on the floor (issue 27): the judges' screen, its two actions and the
printable report, under /t/<slug>/judge/penalties/."""

from django.urls import URLPattern, URLResolver, path

from tournaments.views import penalties

urlpatterns: list[URLPattern | URLResolver] = [
    path("t/<slug:slug>/judge/penalties/", penalties.penalties, name="judge_penalties"),
    path("t/<slug:slug>/judge/penalties/issue/", penalties.issue, name="judge_penalty_issue"),
    path(
        "t/<slug:slug>/judge/penalties/<int:pk>/withdraw/",
        penalties.withdraw,
        name="judge_penalty_withdraw",
    ),
    path("t/<slug:slug>/judge/penalties/print/", penalties.print_report, name="print_penalties"),
]
