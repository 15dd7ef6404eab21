"""Issue 28: decklists (players' submissions, the organizer's and judges' screens, the
published lists). Included at the site root: full paths here."""

from django.urls import URLPattern, URLResolver, path

from tournaments.views import decklists

urlpatterns: list[URLPattern | URLResolver] = [
    path("p/<str:token>/decklist/", decklists.private_decklist, name="private_decklist"),
    path("t/<slug:slug>/manage/decklists/", decklists.manage_decklists, name="manage_decklists"),
    path("t/<slug:slug>/manage/decklists/rules/", decklists.rules, name="manage_decklist_rules"),
    path(
        "t/<slug:slug>/manage/decklists/publish/",
        decklists.publish,
        name="manage_decklists_publish",
    ),
    path(
        "t/<slug:slug>/manage/decklists.json",
        decklists.export_json,
        name="manage_decklists_json",
    ),
    path("t/<slug:slug>/manage/decklists.txt", decklists.export_text, name="manage_decklists_txt"),
    path("t/<slug:slug>/judge/decklists/", decklists.judge_decklists, name="judge_decklists"),
    path(
        "t/<slug:slug>/judge/decklists/<int:pk>/",
        decklists.judge_decklist,
        name="judge_decklist",
    ),
    path(
        "t/<slug:slug>/judge/decklists/<int:pk>/edit/",
        decklists.judge_decklist_edit,
        name="judge_decklist_edit",
    ),
    path("t/<slug:slug>/decklists/", decklists.public_decklists, name="decklists"),
    path("t/<slug:slug>/decklists.json", decklists.api_decklists, name="api_decklists"),
]
