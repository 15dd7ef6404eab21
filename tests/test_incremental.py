"""A result entry patches the last snapshot; it must always equal a full recompute."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scoring.services
from scoring.models import Standing
from scoring.services import forget_snapshots, recompute
from tournaments import services
from tournaments.interchange import import_document
from tournaments.models import Match, MatchKind


def stored(tournament: Any) -> list[tuple[Any, ...]]:
    return list(
        Standing.objects.filter(tournament=tournament)
        .order_by("position")
        .values_list(
            "player_id", "rank", "points_exact", "wins", "losses", "draws", "played", "tiebreakers"
        )
    )


RESULTS = [((2, 0), 0), ((2, 1), 0), ((1, 2), 0), ((0, 2), 0), ((1, 1), 1), ((0, 0), 3), None]


@pytest.mark.django_db(transaction=True)
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    entries=st.lists(
        st.tuples(st.integers(0, 10_000), st.integers(0, len(RESULTS) - 1), st.booleans()),
        min_size=1,
        max_size=12,
    )
)
def test_incremental_result_entry_always_equals_a_full_recompute(
    small_doc: dict, entries: list[tuple[int, int, bool]], monkeypatch: pytest.MonkeyPatch
) -> None:
    patched = []
    real = scoring.services._store_changes
    monkeypatch.setattr(
        scoring.services, "_store_changes", lambda *a: patched.append(1) or real(*a)
    )
    forget_snapshots()
    tournament = import_document(copy.deepcopy(small_doc))
    matches = list(
        Match.objects.filter(
            round__tournament=tournament, kind__in=[MatchKind.PLAYED, MatchKind.DOUBLE_LOSS]
        )
    )
    writes = 0
    for pick, result, double_loss in entries:
        match = matches[pick % len(matches)]
        chosen = RESULTS[result]
        version = tournament.version
        services.record_result(
            match=match,
            wins=None if chosen is None else chosen[0],
            draws=0 if chosen is None else chosen[1],
            double_loss=double_loss and chosen is not None,
        )
        incremental = stored(tournament)
        tournament.refresh_from_db()
        writes += tournament.version != version  # entering the same result writes nothing
        forget_snapshots()
        recompute(tournament)
        assert stored(tournament) == incremental
    assert len(patched) == writes, "every write took the incremental path"
    tournament.delete()
