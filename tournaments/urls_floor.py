"""Issue 27, judges on the floor: time extensions per table, and deck checks
(tournaments.views.floor). Included at the site root: full paths."""

from django.urls import URLPattern, URLResolver, path

from tournaments.views import floor

urlpatterns: list[URLPattern | URLResolver] = [
    path("t/<slug:slug>/judge/tables/", floor.tables, name="judge_tables"),
    path("t/<slug:slug>/judge/tables/extend/", floor.extend, name="judge_extend"),
    path(
        "t/<slug:slug>/judge/extensions/<int:pk>/remove/",
        floor.remove_extension,
        name="judge_remove_extension",
    ),
    path("t/<slug:slug>/judge/deck-checks/", floor.deck_checks, name="judge_deck_checks"),
    path(
        "t/<slug:slug>/judge/deck-checks/start/",
        floor.start_check,
        name="judge_deck_check_start",
    ),
    path(
        "t/<slug:slug>/judge/deck-checks/<int:pk>/finish/",
        floor.finish_check,
        name="judge_deck_check_finish",
    ),
]
