"""Issue 24 item 8: a registration before round 1 does not recompute the event's
standings (a second each at 10,000 players, under the event's lock, while the organizer's
clicks queued behind). Before round 1 every player is level, so the stored standings are
the seeded draw's order (league: the order of entry): the newcomer is placed in it. The
stored rows, and what the pages show, are what a recompute stores."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest

from scoring.services import recompute
from tests.helpers import full_recompute, stored_standings
from tournaments import locking, services
from tournaments.models import Match, Tournament
from tournaments.pages.public import standings
from tournaments.services import registration as reg

pytestmark = pytest.mark.django_db


@contextmanager
def recomputes() -> Iterator[mock.MagicMock]:
    """Counts the writes' recomputes (services.writing's entry point), still doing them."""
    with mock.patch("tournaments.services.writing.recompute", wraps=recompute) as spy:
        yield spy


def open_event(owner: Any, system: str, *, approval: bool = False) -> Tournament:
    t = services.create_tournament(name=f"Flood {system}", owner=owner, seed=77, system=system)
    return reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=approval, check_in=True, by=owner
    )


def shown_names(t: Tournament) -> list[str]:
    """The players' names in the order the public standings table lists them."""
    return re.findall(r"Player \d+", str(standings(t)["rows_html"]))


@pytest.mark.parametrize("system", ["mtr", "melee", "pod", "league"])
def test_registrations_before_round_1_store_a_recomputes_standings_without_one(
    owner: Any, system: str
) -> None:
    t = open_event(owner, system, approval=True)
    # Two players first: below two, a recompute is of nothing, and still done.
    services.register_players(tournament=t, names=["Player 31", "Player 32"], by=owner)
    with recomputes() as spy:
        # Every way a player comes in before round 1: on their own (accepted or pending,
        # then accepted), and the organizer's one name or many.
        for k in range(1, 6):
            reg.register_self(tournament=t, name=f"Player {k}")
        reg.set_registration(
            tournament=t, registration_open=True, cap=None, approval=False, check_in=True,
            by=owner,
        )  # fmt: skip
        for k in range(6, 12):
            reg.register_self(tournament=t, name=f"Player {k}")
        for player in t.players.filter(entry="pending")[:3]:
            reg.accept_entry(player=player, by=owner)
        services.register_players(tournament=t, names=["Player 12"], by=owner)
        services.register_players(
            tournament=t, names=[f"Player {k}" for k in range(13, 30)], by=owner
        )
        reg.register_self(tournament=t, name="Player 30")
    assert spy.call_count == 0
    t = Tournament.objects.get(pk=t.pk)
    stored, names = stored_standings(t), shown_names(t)
    assert len(stored) == t.players.filter(entry="accepted").count() == 30
    assert len(names) == 30 and "Player 4" not in names  # Player 4 is still pending
    # The same rows, in the same order, as a recompute from scratch stores and shows.
    assert full_recompute(t) == stored
    assert shown_names(t) == names
    if system != "league":  # (a league pairs tables of 3 to 5: no two-player result)
        # The scoring's snapshots and change log heard of no player added: pairing reads
        # the whole event again, and a result after it is scored from there.
        reg.set_registration(
            tournament=t, registration_open=False, cap=None, approval=False, check_in=False,
            by=owner,
        )  # fmt: skip
        with recomputes() as spy:
            services.pair_next_round(tournament=t, by=owner)
            match = Match.objects.filter(round__tournament=t, kind="played").first()
            wins = [1, 0] if t.best_of == 1 else [2, 1]
            services.record_result(match=match, wins=wins, by=owner)
        assert spy.call_count == 2
        assert stored_standings(t) == full_recompute(t)


def test_once_round_1_is_paired_a_late_entry_is_recomputed_as_before(
    playing_event: Tournament, owner: Any
) -> None:
    with recomputes() as spy:
        (late,) = services.register_players(tournament=playing_event, names=["Late"], by=owner)
    assert spy.call_count == 1
    stored = stored_standings(playing_event)
    assert full_recompute(playing_event) == stored
    assert next(row for row in stored if row[0] == late.pk)[3] == 0  # no points yet


def test_a_registration_after_a_drop_before_round_1_is_placed_as_a_recompute_would(
    owner: Any,
) -> None:
    t = open_event(owner, "mtr")
    for k in range(1, 9):
        reg.register_self(tournament=t, name=f"Player {k}")
    first = t.players.get(name="Player 1")
    reg.check_in(player=first, by=owner)
    reg.drop_no_shows(tournament=t, by=owner)  # seven dropped after round 0
    with recomputes() as spy:
        reg.register_self(tournament=t, name="Player 9")
    assert spy.call_count == 0
    assert full_recompute(t) == stored_standings(t)


class FakePostgres:
    """tournaments.locking's view of the connection, as on PostgreSQL: records the
    statements it is given (the ORM's own queries still go to the test database)."""

    vendor = "postgresql"

    def __init__(self) -> None:
        self.statements: list[str] = []

    @contextmanager
    def cursor(self) -> Iterator[Any]:
        yield mock.Mock(execute=self.statements.append)


def test_a_players_registration_waits_a_second_for_the_events_lock_the_organizer_five(
    owner: Any,
) -> None:
    t = open_event(owner, "mtr")
    fake = FakePostgres()
    with mock.patch.object(locking, "connection", fake):
        reg.register_self(tournament=t, name="Ana")
        waited_by_player = fake.statements[:]
        reg.set_registration(
            tournament=t, registration_open=False, cap=None, approval=False, check_in=False,
            by=owner,
        )  # fmt: skip
    assert waited_by_player == ["SET LOCAL lock_timeout = '1000ms'"]
    assert fake.statements[1:] == ["SET LOCAL lock_timeout = '5000ms'"]
