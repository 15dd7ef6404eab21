"""Result entry through the service: validated, transactional, standings recomputed."""

from __future__ import annotations

from typing import Any

import pytest

from scoring.models import Standing
from scoring.services import standings_document
from tournaments import services
from tournaments.models import Match, Player

pytestmark = pytest.mark.django_db


def match_of(event: Any, round_number: int, table: int) -> Match:
    return Match.objects.get(round__tournament=event, round__number=round_number, table=table)


def row(event: Any, pid: str) -> dict[str, Any]:
    return next(r for r in standings_document(event)["standings"] if r["id"] == pid)


def test_entering_a_result_recomputes_the_stored_standings(event: Any) -> None:
    assert row(event, "p2")["points"] == 0
    services.record_result(match=match_of(event, 1, 1), wins=(1, 2), draws=0)
    assert row(event, "p2")["points"] == 3
    assert row(event, "p1")["points"] == 3  # only the round-2 win left
    assert row(event, "p1")["tiebreakers"]["gw"] == pytest.approx((3 + 6) / 15)


def test_correcting_a_result_to_a_double_loss_takes_points_from_both(event: Any) -> None:
    services.record_result(match=match_of(event, 2, 3), wins=(0, 0), draws=0, double_loss=True)
    assert row(event, "p4")["points"] == 1  # the round-1 draw only
    assert row(event, "p4")["losses"] == 1


def test_clearing_a_result_removes_the_round_from_both_records(event: Any) -> None:
    services.record_result(match=match_of(event, 2, 1), wins=None)
    p7 = row(event, "p7")
    assert (p7["wins"], p7["losses"], p7["points"]) == (1, 0, 3)


@pytest.mark.parametrize(
    ("wins", "draws", "message"),
    [
        ((3, 0), 0, "nobody wins more than 2 games"),
        ((2, 2), 0, "Both players cannot win"),
        ((2, 1), 1, "at most 3 games"),
        ((-1, 2), 0, "cannot be negative"),
    ],
)
def test_a_result_a_best_of_three_cannot_produce_is_refused_and_nothing_changes(
    event: Any, wins: tuple[int, int], draws: int, message: str
) -> None:
    before = list(Standing.objects.values_list("player_id", "points_exact", "tiebreakers"))
    version = event.version
    with pytest.raises(services.ServiceError, match=message):
        services.record_result(match=match_of(event, 1, 1), wins=wins, draws=draws)
    assert list(Standing.objects.values_list("player_id", "points_exact", "tiebreakers")) == before
    event.refresh_from_db()
    assert event.version == version


def test_an_intentional_draw_is_entered_as_zero_zero_three(event: Any) -> None:
    services.record_result(match=match_of(event, 1, 1), wins=(0, 0), draws=3)
    assert row(event, "p2")["draws"] == 1


def test_a_bye_has_no_result_to_enter(event: Any) -> None:
    with pytest.raises(services.ServiceError, match="no result"):
        services.record_result(match=match_of(event, 1, 4), wins=(2, 0))


def test_players_added_after_round_two_are_late_entries_with_zero_points(event: Any) -> None:
    (late,) = services.register_players(tournament=event, names=["  Hana Ng "])
    assert late.name == "Hana Ng"
    assert row(event, late.external_id)["points"] == 0
    assert standings_document(event)["standings"][-1]["id"] == late.external_id


def test_drop_and_readmit_are_stored_on_the_player(event: Any) -> None:
    player = Player.objects.get(tournament=event, external_id="p3")
    services.drop_player(player=player)
    assert Player.objects.get(pk=player.pk).dropped_after_round == 2
    services.readmit_player(player=player)
    assert Player.objects.get(pk=player.pk).dropped_after_round is None


def test_every_write_bumps_the_tournament_version(event: Any) -> None:
    before = event.version
    services.record_result(match=match_of(event, 1, 1), wins=(2, 0))
    event.refresh_from_db()
    assert event.version == before + 1


def test_every_result_entry_and_correction_is_in_the_audit_log_with_before_and_after(
    event: Any, django_user_model: Any
) -> None:
    from tournaments.models import AuditAction, AuditEntry

    judge = django_user_model.objects.create_user("judge")
    match = match_of(event, 1, 1)
    services.record_result(match=match, wins=(1, 2), draws=0, by=judge)
    entry = AuditEntry.objects.filter(tournament=event, action=AuditAction.RESULT).get()
    assert entry.user == judge
    assert entry.before == {"reported": True, "kind": "played", "wins": [2, 1], "draws": 0}
    assert entry.after == {"reported": True, "kind": "played", "wins": [1, 2], "draws": 0}
    assert entry.summary == "Corrected round 1 table 1 (Ana Souza vs Ben Ito): 1-2"


def test_the_same_result_entered_twice_writes_once(event: Any) -> None:
    from tournaments.models import AuditEntry

    match = match_of(event, 1, 1)
    services.record_result(match=match, wins=(0, 2), draws=0)
    event.refresh_from_db()
    version, entries = event.version, AuditEntry.objects.count()
    services.record_result(match=match, wins=(0, 2), draws=0)
    event.refresh_from_db()
    assert event.version == version and AuditEntry.objects.count() == entries


def test_drops_pairings_and_undo_are_audited(event: Any) -> None:
    from tournaments.models import AuditAction, AuditEntry

    services.drop_player(player=Player.objects.get(tournament=event, external_id="p6"))
    services.pair_next_round(tournament=event)
    services.undo_round(tournament=event)
    actions = list(AuditEntry.objects.filter(tournament=event).values_list("action", flat=True))
    assert actions == [AuditAction.UNDO, AuditAction.PAIR, AuditAction.DROP, AuditAction.IMPORT]
