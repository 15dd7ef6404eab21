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
from tournaments.models import Match, MatchKind
from tournaments.services import import_document


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
        scoring.services, "_store_changes", lambda *a, **k: patched.append(1) or real(*a, **k)
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


@pytest.mark.django_db(transaction=True)
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    entries=st.lists(
        st.tuples(
            st.integers(0, 2),  # which of three gunicorn workers takes the write
            st.integers(0, 10_000),
            st.integers(0, len(RESULTS) - 1),
            st.booleans(),  # a clock change (no scoring input) before the entry
        ),
        min_size=1,
        max_size=12,
    )
)
def test_a_worker_whose_snapshot_missed_other_workers_writes_catches_up_exactly(
    small_doc: dict, entries: list[tuple[int, int, int, bool]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each worker keeps its own snapshot; the others' result entries are read back from
    the change records, and the stored standings still equal a full recompute."""
    from scoring.services import _snapshots
    from tournaments.models import Round

    caught_up = []
    real = scoring.services._store_changes
    monkeypatch.setattr(
        scoring.services,
        "_store_changes",
        lambda *a, **k: caught_up.append(k.get("caught_up")) or real(*a, **k),
    )
    forget_snapshots()
    tournament = import_document(copy.deepcopy(small_doc))
    workers = [_snapshots[tournament.pk]] * 3
    matches = list(
        Match.objects.filter(
            round__tournament=tournament, kind__in=[MatchKind.PLAYED, MatchKind.DOUBLE_LOSS]
        )
    )
    round_ = Round.objects.get(tournament=tournament, number=2)
    for worker, pick, result, clock in entries:
        _snapshots[tournament.pk] = workers[worker]
        if clock:
            services.start_clock(round=round_, minutes=50)
        chosen = RESULTS[result]
        services.record_result(
            match=matches[pick % len(matches)],
            wins=None if chosen is None else chosen[0],
            draws=0 if chosen is None else chosen[1],
        )
        workers[worker] = _snapshots.get(tournament.pk, workers[worker])
        incremental = stored(tournament)
        tournament.refresh_from_db()
        recompute(tournament)  # the truth, as a full read computes it
        assert stored(tournament) == incremental
    tournament.delete()


@pytest.mark.django_db(transaction=True)
def test_a_stale_worker_reads_back_only_the_matches_it_missed(
    small_doc: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scoring.services import _snapshots

    calls: list[bool] = []
    real = scoring.services._store_changes
    monkeypatch.setattr(
        scoring.services,
        "_store_changes",
        lambda *a, **k: calls.append(k.get("caught_up", False)) or real(*a, **k),
    )
    forget_snapshots()
    tournament = import_document(copy.deepcopy(small_doc))
    stale = _snapshots[tournament.pk]
    first, second = Match.objects.filter(round__tournament=tournament, kind=MatchKind.PLAYED)[:2]
    services.record_result(match=first, wins=(0, 2), draws=0)  # worker A
    _snapshots[tournament.pk] = stale  # worker B never saw that write
    services.record_result(match=second, wins=(2, 0), draws=0)
    assert calls == [False, True]
    incremental = stored(tournament)
    forget_snapshots()
    tournament.refresh_from_db()
    recompute(tournament)
    assert stored(tournament) == incremental
    tournament.delete()


@pytest.mark.django_db(transaction=True)
def test_without_a_change_record_a_stale_worker_reads_everything(small_doc: dict) -> None:
    from django.core.cache import cache

    from scoring.services import _snapshots

    forget_snapshots()
    tournament = import_document(copy.deepcopy(small_doc))
    stale = _snapshots[tournament.pk]
    first, second = Match.objects.filter(round__tournament=tournament, kind=MatchKind.PLAYED)[:2]
    services.record_result(match=first, wins=(0, 2), draws=0)
    cache.clear()  # the record was evicted
    _snapshots[tournament.pk] = stale
    services.record_result(match=second, wins=(2, 0), draws=0)
    incremental = stored(tournament)
    forget_snapshots()
    tournament.refresh_from_db()
    recompute(tournament)
    assert stored(tournament) == incremental
    tournament.delete()
