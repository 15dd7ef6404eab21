"""The names pages show (namesakes apart) are read once per process and kept while the
writes since changed only results: a result entry reads no player row for them."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tournaments import services
from tournaments.models import Match, Player, Tournament
from tournaments.pages.event import display_names


@pytest.mark.django_db
def test_after_a_result_the_shown_names_are_not_read_again(
    playing_event: Any, django_capture_on_commit_callbacks: Any
) -> None:
    t = Tournament.objects.get(pk=playing_event.pk)
    display_names(t)
    match = Match.objects.filter(round__tournament=t, reported=False, kind="played").first()
    with django_capture_on_commit_callbacks(execute=True):  # the change log, on commit
        services.record_result(match=match, wins=(2, 1), draws=0)
    fresh = Tournament.objects.get(pk=t.pk)
    with CaptureQueriesContext(connection) as queries:
        shown = display_names(fresh)
    assert not [q for q in queries.captured_queries if "tournaments_player" in q["sql"]]
    assert set(shown) == set(t.players.values_list("external_id", flat=True))


@pytest.mark.django_db
def test_a_rename_is_read_again(
    playing_event: Any, django_capture_on_commit_callbacks: Any
) -> None:
    t = Tournament.objects.get(pk=playing_event.pk)
    display_names(t)
    player = Player.objects.filter(tournament=t).first()
    with django_capture_on_commit_callbacks(execute=True):
        services.rename_player(player=player, name="Renamed Person")
    fresh = Tournament.objects.get(pk=t.pk)
    assert display_names(fresh)[player.external_id] == "Renamed Person"
