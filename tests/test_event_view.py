"""The event's view (tournaments/pages/event.py), built from the previous version's view
and the change log, equals a view read afresh after any sequence of writes (issue 23)."""

from __future__ import annotations

from typing import Any

from django.core.cache import cache
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import outlooks
from tournaments import services
from tournaments.models import Match, MatchKind, Player, Tournament
from tournaments.pages import event as event_module
from tournaments.services.lifecycle import update_plan
from tournaments.services.writing import ServiceError

WRITES = ("result", "correction", "drop", "rename", "pair", "figures")


def plain(view: event_module.EventView) -> tuple[Any, ...]:
    """What a view holds, with model instances written out (they compare by pk alone)."""
    current = view.current
    row = view.figures
    return (
        view.version,
        {
            pid: (p.name, p.dropped_after_round, p.entry, p.made_phase)
            for pid, p in view.players.items()
        },
        view.seating,
        view.table,
        None
        if current is None
        else (current.round.pk, current.round.number, current.label, current.round.playoff),
        view.placings,
        None if row is None else (row.pk, row.state, row.version, row.data),
        # What the digests read, carried over from the last view where seats did not move.
        view.row_texts,
        view.match_texts,
        view.player_matches,
        view.player_texts,
    )


def write(t: Tournament, kind: str, pick: int) -> None:
    t = Tournament.objects.get(pk=t.pk)
    matches = list(
        Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED).order_by("round", "table")
    )
    players = list(Player.objects.filter(tournament=t).order_by("id"))
    try:
        if kind in ("result", "correction") and matches:
            open_ = [m for m in matches if not m.reported] if kind == "result" else matches
            if open_:
                services.record_result(match=open_[pick % len(open_)], wins=(2, pick % 2))
        elif kind == "drop":
            services.drop_player(player=players[pick % len(players)])
        elif kind == "rename":
            services.rename_player(player=players[pick % len(players)], name=f"Renamed {pick}")
        elif kind == "pair":
            services.pair_next_round(tournament=t)
        elif kind == "figures":
            outlooks.compute_now(tournament_id=t.pk)
    except ServiceError:
        pass  # refused (a round still open, a drop twice): the event is as it was


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(st.tuples(st.sampled_from(WRITES), st.integers(0, 50)), max_size=12))
def test_the_view_built_from_the_last_one_equals_a_fresh_read_after_any_writes(
    steps: list[tuple[str, int]], db: Any, django_capture_on_commit_callbacks: Any
) -> None:
    cache.clear()
    event_module.forget()
    t = services.create_tournament(name="View", seed=5)
    services.register_players(tournament=t, names=[f"P{k}" for k in range(1, 11)])
    update_plan(tournament=t, planned_rounds=4, top_cut=4)
    with django_capture_on_commit_callbacks(execute=True):
        services.pair_next_round(tournament=Tournament.objects.get(pk=t.pk))
    event_module.event_view(Tournament.objects.get(pk=t.pk))
    for kind, pick in steps:
        with django_capture_on_commit_callbacks(execute=True):
            write(t, kind, pick)
        now = Tournament.objects.get(pk=t.pk)
        kept = event_module.event_view(now)  # from the last view, by the change log
        assert plain(kept) == plain(event_module.build(now)), (kind, pick)


def test_a_server_keeps_each_events_newest_view_while_older_versions_make_room(
    db: Any, event: Any, playing_event: Any, monkeypatch: Any
) -> None:
    """Views of two events, many versions each, in a memo of VIEWS_KEPT: the older
    versions go first, and each event's newest view (the next one's starting point)
    stays; a kept version is never built again."""
    monkeypatch.setattr(event_module, "_VIEWS", {})
    built: list[tuple[int, int]] = []
    real = event_module.build
    monkeypatch.setattr(
        event_module,
        "build",
        lambda t, last=None: built.append((t.pk, t.version)) or real(t, last),
    )
    for version in range(1, 3 * event_module.VIEWS_KEPT):
        for t in (event, playing_event):
            t.version = version
            event_module.event_view(t)
            event_module.event_view(t)
        assert built[-2:] == [(event.pk, version), (playing_event.pk, version)]
        assert len(built) == 2 * version  # each version built once
        kept = event_module._VIEWS
        assert len(kept) <= event_module.VIEWS_KEPT
        for t in (event, playing_event):
            assert (t.pk, t.created_at.timestamp(), version) in kept  # the newest stays


def test_after_a_result_only_its_match_and_players_are_written_out_again(
    playing_event: Any, django_capture_on_commit_callbacks: Any
) -> None:
    t = playing_event
    event_module.forget()
    last = event_module.event_view(Tournament.objects.get(pk=t.pk))
    assert last.player_texts  # written out, as a refresh does
    match = Match.objects.filter(round__tournament=t, reported=False, kind="played").first()
    with django_capture_on_commit_callbacks(execute=True):
        services.record_result(match=match, wins=(2, 0))
    now = Tournament.objects.get(pk=t.pk)
    kept = event_module.event_view(now)
    seated = set(match.seats.values_list("player_id", flat=True))
    for m, text in kept.match_texts.items():
        assert (text is last.match_texts[m]) == (m != match.pk)  # taken over, or new
    for pk, text in kept.player_texts.items():
        assert (text is last.player_texts[pk]) == (pk not in seated)
    assert plain(kept) == plain(event_module.build(now))
