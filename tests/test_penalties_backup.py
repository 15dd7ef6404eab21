"""Penalties in the event's backup (issue 27): exported in the backup's "event" section
only (the plain document is public and a penalty's note is not), restored with their
match, judge, note and time, and validated by place."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tournaments import services
from tournaments.interchange import DocumentError, export_document, validate_document
from tournaments.models import Match, Penalty, Tournament
from tournaments.services.imports import restore_document
from tournaments.services.penalties import issue_penalty

pytestmark = pytest.mark.django_db


@pytest.fixture
def penalized(owner: Any, django_user_model: Any) -> Tournament:
    t = services.create_tournament(name="Backup Open", owner=owner, seed=9)
    services.register_players(tournament=t, names=[f"Player {i}" for i in range(1, 7)])
    services.pair_next_round(tournament=t)
    judge = django_user_model.objects.create_user("ruth")
    services.add_staff(tournament=t, username="ruth", role="head_judge", by=owner)
    first = Match.objects.get(round__tournament=t, table=1)
    second = Match.objects.get(round__tournament=t, table=2)
    a = first.seats.order_by("position")[0].player
    b = second.seats.order_by("position")[1].player
    issue_penalty(tournament=t, player=a, infraction="tardiness", penalty=None,
                  note="Ten minutes late", by=judge)  # fmt: skip
    issue_penalty(tournament=t, player=b, infraction="outside_assistance", penalty=None, by=owner)
    return Tournament.objects.get(pk=t.pk)


def test_the_backup_carries_the_penalties_and_the_plain_document_does_not(
    penalized: Tournament,
) -> None:
    plain = export_document(penalized)
    assert "event" not in plain and "Ten minutes late" not in str(plain)
    backup = export_document(penalized, backup=True)
    listed = backup["event"]["penalties"]
    assert [(p["round"], p["table"], p["infraction"], p["penalty"], p["judge"], p["note"])
            for p in listed] == [
        (1, 1, "tardiness", "game_loss", "ruth", "Ten minutes late"),
        (1, 2, "outside_assistance", "match_loss", "owner", ""),
    ]  # fmt: skip
    assert all(p["at"].endswith("+00:00") for p in listed)
    validate_document(backup)


def test_a_restore_brings_the_penalties_back_on_their_matches(
    penalized: Tournament, owner: Any
) -> None:
    backup = export_document(penalized, backup=True)
    restored = restore_document(copy.deepcopy(backup), owner=owner).tournament
    assert restored.pk != penalized.pk

    def facts(t: Tournament) -> list[tuple[Any, ...]]:
        return [
            (p.player.external_id, p.round_number, p.table, p.match.table if p.match else None,
             p.infraction, p.penalty, p.judge.username if p.judge else None, p.note, p.created_at)
            for p in Penalty.objects.filter(tournament=t).order_by("created_at", "id")
        ]  # fmt: skip

    assert facts(restored) == facts(penalized)
    assert (
        export_document(restored, backup=True)["event"]["penalties"]
        == (backup["event"]["penalties"])
    )
    # The match loss's result came back with the rounds.
    match = Match.objects.get(round__tournament=restored, table=2)
    assert [s.games_won for s in match.seats.order_by("position")] == [2, 0]


def test_a_backup_without_penalties_restores_as_before(
    owner: Any, small_doc: dict[str, Any]
) -> None:
    doc = {**small_doc, "event": {"status": "running"}}
    restored = restore_document(doc, owner=owner).tournament
    assert not Penalty.objects.filter(tournament=restored).exists()


def test_bad_penalties_in_a_backup_are_named_by_their_place(penalized: Tournament) -> None:
    backup = export_document(penalized, backup=True)
    bad = backup["event"]["penalties"]
    bad[0].update(player="p99", penalty="exile", at="yesterday")
    bad[1].update(round=7, note="x" * 501, infraction="")
    with pytest.raises(DocumentError) as refused:
        validate_document(backup)
    assert refused.value.problems == [
        "event.penalties[0].player: unknown player 'p99'",
        "event.penalties[0].penalty: unknown penalty 'exile'",
        "event.penalties[0].at: expected an ISO 8601 date and time with a zone",
        "event.penalties[1].round: no round 7 in this document",
        "event.penalties[1].infraction: must not be empty",
        "event.penalties[1].note: longer than 500 characters",
    ]
    assert Penalty.objects.count() == 2  # nothing restored
