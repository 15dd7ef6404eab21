"""The pair click at size (issue 26 item 3): pairing a Swiss round adds it to the scoring
snapshot instead of reading and scoring every match again, and writes the round's rows in
a few statements. House rule 3: the standings it stores equal a full recompute."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

import scoring.services
from scoring.engine import compute_standings
from scoring.engine.mtr_fast import SwissState
from scoring.engine.records import BYE, PLAYED, EventRecord, MatchRecord, PlayerRecord, RoundRecord
from scoring.services import _snapshots, changes_since, forget_snapshots
from tests.helpers import full_recompute, paired_doc, require_postgres, stored_standings
from tournaments import services
from tournaments.models import Match, MatchKind, Player, Seat, Tournament
from tournaments.services import import_document

SEATS = connection.ops.quote_name(Seat._meta.db_table)
RESULTS = [((2, 0), 0), ((2, 1), 0), ((1, 2), 0), ((0, 2), 0), ((1, 1), 1), ((0, 0), 3)]


def stores(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each store of the standings: "all" (every match read and scored), "places" (the
    engine's state said which places changed) or "changes" (every row compared)."""
    calls: list[str] = []
    for name, label in (("_store_all", "all"), ("_store_places", "places"),
                        ("_store_changes", "changes")):  # fmt: skip
        real = getattr(scoring.services, name)

        def store(*args: Any, _real: Any = real, _label: str = label, **kwargs: Any) -> Any:
            calls.append(_label)
            return _real(*args, **kwargs)

        monkeypatch.setattr(scoring.services, name, store)
    return calls


def play_round(t: Tournament, number: int, rng: random.Random) -> None:
    """Every result of round `number`, now and then a double loss."""
    matches = Match.objects.filter(round__tournament=t, round__number=number, kind=PLAYED)
    for match in matches:
        wins, draws = rng.choice(RESULTS)
        double_loss = rng.random() < 0.05
        services.record_result(match=match, wins=wins, draws=draws, double_loss=double_loss)


def pairing_of(t: Tournament, number: int) -> list[tuple[Any, ...]]:
    return list(
        Seat.objects.filter(round__tournament=t, round__number=number)
        .order_by("match__table", "position")
        .values_list("match__table", "match__kind", "player_id", "points_at_pairing")
    )


@pytest.mark.parametrize(("players", "seed"), [(9, 1), (10, 2), (13, 3)])
@pytest.mark.django_db(transaction=True)
def test_the_standings_a_pairing_stores_equal_a_full_recompute_round_after_round(
    players: int, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Odd fields give a bye, which counts from pairing: its player and their opponents
    move; a drop between rounds shrinks the field. Each pairing takes the engine's
    incremental path (it read and scored every match before) and stores exactly what a
    full recompute stores."""
    rng = random.Random(seed)
    t = import_document(paired_doc(players, played=True))
    calls = stores(monkeypatch)
    for number in range(2, 6):
        if number == 4:
            services.drop_player(player=Player.objects.filter(tournament=t).order_by("?")[0])
            t.refresh_from_db()
            full_recompute(t)  # the drop read everything: the next pairing has a snapshot
        del calls[:]
        services.pair_next_round(tournament=t)
        assert calls == ["places"], "the pairing added its round to the snapshot"
        paired = stored_standings(t)
        assert paired == full_recompute(t)
        play_round(t, number, rng)
    t.delete()


@pytest.mark.django_db(transaction=True)
def test_a_pairing_with_or_without_the_snapshot_pairs_the_same_tables_on_the_same_points() -> None:
    """The history the pairing reads from the snapshot (who met whom, byes, points) is
    the one the rows hold: undone and paired again by a worker without a snapshot, the
    round is the same, table for table, with the same points at pairing."""
    rng = random.Random(5)
    t = import_document(paired_doc(11, played=True))
    for number in (2, 3):
        services.pair_next_round(tournament=t)
        play_round(t, number, rng)
    t.refresh_from_db()
    assert _snapshots[t.pk].version == t.version
    services.pair_next_round(tournament=t)
    from_snapshot = pairing_of(t, 4)
    services.undo_round(tournament=t)
    forget_snapshots()
    services.pair_next_round(tournament=t)
    assert pairing_of(t, 4) == from_snapshot
    assert {kind for _table, kind, _p, _pts in from_snapshot} == {MatchKind.PLAYED, MatchKind.BYE}
    assert all(points is not None for *_rest, points in from_snapshot)
    t.delete()


@pytest.mark.django_db(transaction=True)
def test_a_worker_that_missed_a_pairing_adds_the_round_from_the_change_log(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Worker A pairs round 2; worker B's snapshot is of round 1. B's next result entry
    reads back only the new round (the log lists its matches), not every match, and
    stores what a full recompute stores. A page's view of the event reads everything
    after a pairing: the log does not say "results only"."""
    t = import_document(paired_doc(9, played=True))
    stale = _snapshots[t.pk]
    version = t.version
    services.pair_next_round(tournament=t)  # worker A
    t.refresh_from_db()
    assert changes_since(t, version) is None
    _snapshots[t.pk] = stale  # worker B
    calls = stores(monkeypatch)
    match = Match.objects.filter(round__tournament=t, round__number=2, kind=PLAYED).first()
    services.record_result(match=match, wins=(2, 1), draws=0)
    assert calls == ["changes"], "caught up from the log, not read in full"
    assert stored_standings(t) == full_recompute(t)
    t.delete()


@pytest.mark.django_db(transaction=True)
def test_a_worker_that_missed_results_pairs_from_its_snapshot_what_the_rows_say(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Worker B's snapshot missed round 2's results (worker A entered them): B pairs
    round 3 with who met whom and the byes from its snapshot (results move no pairing),
    reading no seat of an earlier round, and the points from the stored standings; the
    round equals the one a worker without a snapshot pairs, and the standings equal a
    full recompute."""
    t = import_document(paired_doc(11, played=True))
    services.pair_next_round(tournament=t)
    stale = _snapshots[t.pk]  # worker B, before round 2's results
    play_round(t, 2, random.Random(4))  # worker A
    t.refresh_from_db()
    _snapshots[t.pk] = stale
    with CaptureQueriesContext(connection) as queries:
        services.pair_next_round(tournament=t)
    seat_reads = [q["sql"] for q in queries if q["sql"].startswith("SELECT") and SEATS in q["sql"]]
    assert all(" IN (" in sql for sql in seat_reads), "only the new round's seats are read"
    from_snapshot = pairing_of(t, 3)
    assert stored_standings(t) == full_recompute(t)
    services.undo_round(tournament=t)
    forget_snapshots()
    services.pair_next_round(tournament=t)
    assert pairing_of(t, 3) == from_snapshot
    t.delete()


def test_a_swiss_state_with_a_newly_paired_round_equals_one_built_with_it() -> None:
    """The engine's side: a round added with its bye (a result from pairing) and its
    matches without results gives the standings a full computation gives."""
    ids = [f"p{k}" for k in range(1, 8)]
    first = RoundRecord(
        number=1,
        phase=1,
        playoff=False,
        matches=(
            MatchRecord(kind=PLAYED, players=("p1", "p2"), wins=(2, 0), draws=0),
            MatchRecord(kind=PLAYED, players=("p3", "p4"), wins=(1, 2), draws=0),
            MatchRecord(kind=PLAYED, players=("p5", "p6"), wins=(1, 1), draws=1),
            MatchRecord(kind=BYE, players=("p7",)),
        ),
    )
    second = RoundRecord(
        number=2,
        phase=1,
        playoff=False,
        matches=(
            MatchRecord(kind=PLAYED, players=("p1", "p4")),
            MatchRecord(kind=PLAYED, players=("p7", "p5")),
            MatchRecord(kind=PLAYED, players=("p6", "p3")),
            MatchRecord(kind=BYE, players=("p2",)),
        ),
    )
    before = EventRecord(
        system="mtr",
        players=tuple(PlayerRecord(id=p) for p in ids),
        rounds=(first,),
        best_of=3,
        seed=7,
    )
    after = replace(before, rounds=(first, second))
    state = SwissState.build(before)
    assert state is not None
    added = state.updated([(2, None, second.matches[-1])], {2: (1, False)})
    assert added is not None
    assert added.standings() == compute_standings(after)
    assert added.changed is not None and added.changed[0] == {"p2", "p1"}
    assert state.updated([(1, None, second.matches[-1])], {1: (1, False)}) is None


def pair_click_queries(client: Any, owner: Any, players: int) -> int:
    t = import_document(paired_doc(players, played=True), owner=owner)
    url = reverse("manage_pair", args=[t.slug])
    with CaptureQueriesContext(connection) as queries:
        response = client.post(url, headers={"HX-Request": "true", "HX-Target": "board"})
    assert response.status_code == 200
    assert Match.objects.filter(round__tournament=t, round__number=2).count() == players // 2
    # (SQLite's executemany is logged as one "N times: INSERT ...")
    seats = [q for q in queries.captured_queries if f"INSERT INTO {SEATS}" in q["sql"]]
    assert len(seats) == 1, "the round's seats in one statement"
    return len(queries.captured_queries)


@pytest.mark.django_db(transaction=True)
def test_the_pair_clicks_queries_do_not_grow_with_the_number_of_players(
    oc: Any, owner: Any
) -> None:
    """64 or 320 players: the same statements (the seats went in by batches of 111 on
    SQLite, and every match was read again to score the standings)."""
    assert pair_click_queries(oc, owner, 64) == pair_click_queries(oc, owner, 320)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_a_pairing_stores_the_standings_a_full_recompute_stores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PostgreSQL writes the round's rows in one INSERT each (generate_series, unnest):
    the same rows, the same standings."""
    require_postgres()
    rng = random.Random(9)
    t = import_document(paired_doc(21, played=True))
    calls = stores(monkeypatch)
    for number in (2, 3, 4):
        del calls[:]
        services.pair_next_round(tournament=t)
        assert calls == ["places"]
        assert stored_standings(t) == full_recompute(t)
        play_round(t, number, rng)
    t.delete()
