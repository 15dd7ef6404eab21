"""Issue 35: the scoring snapshot can never disagree with the database.

A hypothesis state machine runs every write that adds, removes or changes a player
(registration from the link with and without approval, acceptance, rejection, check-in,
a walk-in, a late entry, a drop, a re-admission, a removal, a rename, a restore of the
event's backup) interleaved with pairings, results, corrections and undo, on two
processes' memories sharing one database and one change log. After every step the stored
standings and the working process's snapshot equal a fresh read and computation
(`scoring.services.scoring_drift`), and every refused write says why.

A process's memory is what `scoring.services` keeps per process (its snapshots): the
machine holds one per simulated process and swaps it in when that process writes, as two
gunicorn workers behind one database and one Redis do. Each write ends
as a committed one does (tests.helpers.committed): snapshots and the change log are kept
only when a write commits.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

import scoring.services as scoring
from scoring.services import scoring_drift
from tests.helpers import committed
from tournaments import services
from tournaments.interchange import export_document
from tournaments.models import Entry, Match, MatchKind, Player, Status, Tournament
from tournaments.services.imports import restore_document
from tournaments.services.registration import (
    accept_entry,
    check_in,
    register_self,
    reject_entry,
    set_registration,
)

RESULTS = [((2, 0), 0), ((0, 2), 0), ((2, 1), 0), ((1, 1), 1), ((0, 0), 3)]


class SnapshotMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        with committed():
            self.t = services.create_tournament(name="Machine", system="mtr")
        self.memories: list[dict[int, Any]] = [{}, {}]  # two processes' snapshots
        self.process = 0
        self.names = 0
        scoring._snapshots = self.memories[0]

    # -- helpers ---------------------------------------------------------------------

    def fresh(self) -> Tournament:
        self.t = Tournament.objects.get(pk=self.t.pk)
        return self.t

    def attempt(self, write: Any, **kwargs: Any) -> Any:
        """A write, committed, or its refusal, which must say why (the 4xx a page shows)."""
        try:
            with committed():
                return write(**kwargs)
        except services.ServiceError as exc:
            assert str(exc).strip(), f"{write.__name__} refused without a reason"
            return None

    def name(self) -> str:
        self.names += 1
        return f"Player {self.names}"

    def players(self, **filters: Any) -> list[Player]:
        return list(Player.objects.filter(tournament=self.t, **filters).order_by("pk"))

    def paired(self) -> bool:
        return self.fresh().rounds.exists()

    # -- who is in the event -----------------------------------------------------------

    @rule(approval=st.booleans(), check=st.booleans())
    def registration_settings(self, approval: bool, check: bool) -> None:
        if self.paired():
            return
        self.attempt(
            set_registration,
            tournament=self.t,
            registration_open=True,
            cap=None,
            approval=approval,
            check_in=check,
        )

    @rule(count=st.integers(1, 3))
    def register_from_the_link(self, count: int) -> None:
        for _ in range(count):
            self.attempt(register_self, tournament=self.fresh(), name=self.name())

    @rule(pick=st.integers(0, 100), accept=st.booleans())
    def decide_an_entry(self, pick: int, accept: bool) -> None:
        pending = self.players(entry=Entry.PENDING)
        if pending:
            decide = accept_entry if accept else reject_entry
            self.attempt(decide, player=pending[pick % len(pending)])

    @rule(pick=st.integers(0, 100))
    def check_a_player_in(self, pick: int) -> None:
        accepted = self.players(entry=Entry.ACCEPTED, checked_in_at__isnull=True)
        if accepted and self.fresh().check_in:
            self.attempt(check_in, player=accepted[pick % len(accepted)])

    @rule(count=st.integers(1, 2))
    def walk_in_or_late_entry(self, count: int) -> None:
        names = [self.name() for _ in range(count)]
        self.attempt(services.register_players, tournament=self.fresh(), names=names)

    @rule(pick=st.integers(0, 100))
    def drop_a_player(self, pick: int) -> None:
        active = self.players(entry=Entry.ACCEPTED, dropped_after_round__isnull=True)
        if active:
            self.attempt(services.drop_player, player=active[pick % len(active)])

    @rule(pick=st.integers(0, 100))
    def readmit_a_player(self, pick: int) -> None:
        dropped = self.players(dropped_after_round__isnull=False)
        if dropped:
            self.attempt(services.readmit_player, player=dropped[pick % len(dropped)])

    @rule(pick=st.integers(0, 100))
    def remove_a_player(self, pick: int) -> None:
        unpaired = self.players(seats__isnull=True)
        if unpaired:
            self.attempt(services.remove_player, player=unpaired[pick % len(unpaired)])

    @rule(pick=st.integers(0, 100))
    def rename_a_player(self, pick: int) -> None:
        everyone = self.players()
        if everyone:
            self.attempt(
                services.rename_player, player=everyone[pick % len(everyone)], name=self.name()
            )

    @rule()
    def restore_the_backup(self) -> None:
        """The event goes on from its backup (another laptop): a new event, same rows."""
        doc = export_document(self.fresh(), backup=True)
        with committed():
            self.t = restore_document(doc).tournament

    # -- rounds and results ------------------------------------------------------------

    @rule()
    def pair(self) -> None:
        self.attempt(services.pair_next_round, tournament=self.fresh())

    @rule(pick=st.integers(0, 1000), result=st.sampled_from(RESULTS))
    def enter_or_correct_a_result(self, pick: int, result: tuple[tuple[int, int], int]) -> None:
        matches = list(
            Match.objects.filter(round__tournament=self.t, kind=MatchKind.PLAYED).order_by("pk")
        )
        if matches:
            wins, draws = result
            match = matches[pick % len(matches)]
            self.attempt(
                services.record_result,
                match=match.pk,
                tournament=self.fresh(),
                wins=wins,
                draws=draws,
            )

    @rule()
    def undo_the_round(self) -> None:
        self.attempt(services.undo_round, tournament=self.fresh())

    @precondition(lambda self: self.fresh().status != Status.FINISHED)
    @rule()
    def another_process_writes_next(self) -> None:
        self.process = 1 - self.process
        scoring._snapshots = self.memories[self.process]

    @invariant()
    def stored_standings_and_the_snapshot_agree_with_the_database(self) -> None:
        assert scoring_drift(self.fresh()) == []


@pytest.mark.django_db
def test_the_scoring_snapshot_equals_a_fresh_read_after_any_sequence_of_writes() -> None:
    kept = scoring._snapshots
    try:
        machine = SnapshotMachine.TestCase
        machine.settings = settings(
            max_examples=8,
            stateful_step_count=25,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        )
        machine().runTest()
    finally:
        scoring._snapshots = kept
