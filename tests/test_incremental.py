"""A result entry patches the last snapshot; it must always equal a full recompute."""

from __future__ import annotations

import copy
import importlib
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scoring.services
from scoring.engine import compute_standings
from scoring.models import Standing
from scoring.services import _snapshots, event_record, forget_snapshots, recompute
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


def incremental_stores(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record each incremental store: "places" (the engine's state said which places
    changed), "changes" (every row compared) or "caught up" (another worker wrote)."""
    calls: list[str] = []
    changes, places = scoring.services._store_changes, scoring.services._store_places

    def store_changes(*args: Any, **kwargs: Any) -> Any:
        calls.append("caught up" if kwargs.get("caught_up") else "changes")
        return changes(*args, **kwargs)

    def store_places(*args: Any, **kwargs: Any) -> Any:
        calls.append("places")
        return places(*args, **kwargs)

    monkeypatch.setattr(scoring.services, "_store_changes", store_changes)
    monkeypatch.setattr(scoring.services, "_store_places", store_places)
    return calls


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
    patched = incremental_stores(monkeypatch)
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
    assert patched == ["places"] * writes, "every write derived the engine's state"
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

    calls = incremental_stores(monkeypatch)
    forget_snapshots()
    tournament = import_document(copy.deepcopy(small_doc))
    stale = _snapshots[tournament.pk]
    first, second = Match.objects.filter(round__tournament=tournament, kind=MatchKind.PLAYED)[:2]
    services.record_result(match=first, wins=(0, 2), draws=0)  # worker A
    _snapshots[tournament.pk] = stale  # worker B never saw that write
    services.record_result(match=second, wins=(2, 0), draws=0)
    assert calls == ["places", "caught up"]
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


def swiss_document(seed: int, size: int, rounds: int, system: str) -> dict[str, Any]:
    """A one-phase Swiss event: `rounds` rounds reported (byes, no-opponent losses,
    draws, 0-0-3, double losses, drops between rounds) and one more paired, unreported."""
    rng = random.Random(seed)
    ids = [f"p{k}" for k in range(size)]
    dropped: dict[str, int] = {}
    active = list(ids)
    doc_rounds = []
    for number in range(1, rounds + 2):
        for player in list(active):
            if number > 1 and len(active) > 4 and rng.random() < 0.1:
                active.remove(player)
                dropped[player] = number - 1
        pool = list(active)
        rng.shuffle(pool)
        matches: list[dict[str, Any]] = []
        if len(pool) % 2:
            matches.append({"players": [pool.pop()], "bye": True})
        if len(pool) >= 4 and rng.random() < 0.3:
            matches.append({"players": [pool.pop()], "loss": True})
            matches.append({"players": [pool.pop()], "bye": True})
        for a, b in zip(pool[::2], pool[1::2], strict=True):
            match: dict[str, Any] = {"players": [a, b]}
            if number <= rounds:
                (wins, drawn) = rng.choice([r for r in RESULTS if r is not None])
                match.update(wins=list(wins), draws=drawn)
                if rng.random() < 0.08:
                    match.update(wins=[0, 0], draws=0, result="double_loss")
            matches.append(match)
        for table, match in enumerate(matches, start=1):
            match["table"] = table
        doc_rounds.append({"number": number, "phase": 1, "matches": matches})
    return {
        "format": "swiss-tournament/1",
        "name": f"Generated {seed}",
        "system": system,
        "best_of": 3,
        "seed": seed,
        "players": [
            {"id": p, "name": f"Player {p}"}
            | ({"dropped_after_round": dropped[p]} if p in dropped else {})
            for p in ids
        ],
        "rounds": doc_rounds,
    }


@pytest.mark.django_db(transaction=True)
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 2**16),
    size=st.integers(5, 14),
    rounds=st.integers(1, 3),
    system=st.sampled_from(["mtr", "dci", "melee"]),
    entries=st.lists(
        st.tuples(st.integers(0, 10_000), st.integers(0, len(RESULTS) - 1), st.booleans()),
        min_size=1,
        max_size=15,
    ),
)
def test_the_engines_incremental_state_always_equals_a_full_recompute(
    seed: int,
    size: int,
    rounds: int,
    system: str,
    entries: list[tuple[int, int, bool]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Results entered, corrected and cleared anywhere (the open round's first result
    included) on generated events: each write derives the engine's state from the last
    one and stores only the places it reports, and the stored standings equal a full
    recompute every time (stored rows and the engine's own full computation)."""
    calls = incremental_stores(monkeypatch)
    forget_snapshots()
    tournament = import_document(swiss_document(seed, size, rounds, system))
    matches = list(
        Match.objects.filter(
            round__tournament=tournament, kind__in=[MatchKind.PLAYED, MatchKind.DOUBLE_LOSS]
        )
    )
    writes = 0
    for pick, result, double_loss in entries:
        chosen = RESULTS[result]
        version = tournament.version
        services.record_result(
            match=matches[pick % len(matches)],
            wins=None if chosen is None else chosen[0],
            draws=0 if chosen is None else chosen[1],
            double_loss=double_loss and chosen is not None,
            validate=False,
        )
        incremental = stored(tournament)
        tournament.refresh_from_db()
        writes += tournament.version != version
        snapshot = _snapshots[tournament.pk]
        assert snapshot.state is not None
        assert snapshot.state.standings() == compute_standings(event_record(tournament))
        forget_snapshots()
        recompute(tournament)
        assert stored(tournament) == incremental
    assert calls == ["places"] * writes, "every write derived the engine's state"
    tournament.delete()


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_write_leaves_no_wrong_state_behind(
    small_doc: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write whose transaction rolls back after the standings were recomputed: the
    committed snapshot's state is untouched, so a worker still holding it (or one that
    reads everything afresh) stores exactly the full recompute on the next write."""
    writing = importlib.import_module("tournaments.services.writing")
    calls = incremental_stores(monkeypatch)
    forget_snapshots()
    tournament = import_document(copy.deepcopy(small_doc))
    held = _snapshots[tournament.pk]
    assert held.state is not None
    committed = held.state.standings()
    rows_before = stored(tournament)
    first, second = Match.objects.filter(round__tournament=tournament, kind=MatchKind.PLAYED)[:2]

    def recompute_then_fail(*args: Any, **kwargs: Any) -> None:
        recompute(*args, **kwargs)
        raise RuntimeError("the write fails after the recompute")

    with monkeypatch.context() as patch:
        patch.setattr(writing, "recompute", recompute_then_fail)
        with pytest.raises(RuntimeError):
            services.record_result(match=first, wins=(0, 2), draws=0)
    assert calls == ["places"]  # the failed write did derive a new state ...
    assert held.state.standings() == committed  # ... without touching the committed one
    assert stored(tournament) == rows_before  # and its rows were rolled back
    assert tournament.pk not in _snapshots  # nothing from the failed write was kept

    def equals_a_full_recompute() -> None:
        incremental = stored(tournament)
        forget_snapshots()
        tournament.refresh_from_db()
        recompute(tournament)
        assert stored(tournament) == incremental

    _snapshots[tournament.pk] = held  # a worker still holding the committed snapshot
    services.record_result(match=second, wins=(2, 0), draws=0)
    assert calls == ["places", "places"]  # derived from the held snapshot's state
    equals_a_full_recompute()
    forget_snapshots()  # a worker that reads everything afresh
    services.record_result(match=first, wins=(1, 2), draws=0)
    assert calls == ["places", "places"]
    equals_a_full_recompute()
    tournament.delete()


@pytest.mark.django_db
def test_a_worker_that_starts_afresh_repairs_every_stored_row_that_differs(
    small_doc: dict,
) -> None:
    """The first write of a new worker compares the stored rows instead of rewriting them
    all; whatever differs from the computed standings (here: tampered rows) is written."""
    import copy

    from scoring.models import Standing
    from scoring.services import forget_snapshots, recompute, standings_document
    from tournaments.models import Tournament
    from tournaments.services import import_document

    t = import_document(copy.deepcopy(small_doc))
    truth = standings_document(t)["standings"]
    stored = list(
        Standing.objects.filter(tournament=t).order_by("position").values_list("pk", flat=True)
    )
    Standing.objects.filter(pk=stored[0]).update(points=99, points_exact="99", tiebreakers={})
    Standing.objects.filter(pk=stored[1]).update(position=77, rank=77, wins=9)
    Standing.objects.filter(pk=stored[2]).update(tiebreakers={"omw": 0.5, "gw": 0.5, "ogw": 0.5})
    forget_snapshots()
    recompute(Tournament.objects.get(pk=t.pk))
    assert standings_document(t)["standings"] == truth
    assert sorted(Standing.objects.filter(tournament=t).values_list("position", flat=True)) == list(
        range(1, len(truth) + 1)
    )
