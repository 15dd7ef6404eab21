"""A backup is the whole event: restoring it gives back the same event, field by field."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from scoring.services import standings_document
from tournaments import services
from tournaments.interchange import DocumentError, export_document, parse_document
from tournaments.models import AuditEntry, Match, MatchKind, Player, Round, Status, Tournament

pytestmark = pytest.mark.django_db


def play(t: Tournament) -> None:
    for m in Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED, reported=False):
        services.record_result(match=m, wins=(2, 1))


@pytest.fixture
def finished(owner: User, django_user_model: type[User]) -> Tournament:
    """An event that went through everything a backup must keep."""
    django_user_model.objects.create_user("judge")
    t = services.create_tournament(name="Whole Event", owner=owner, seed=5, top_cut=4)
    services.update_plan(tournament=t, planned_rounds=3, top_cut=4, by=owner)
    services.add_staff(tournament=t, username="judge", by=owner)
    services.register_players(tournament=t, names=[f"P{i}" for i in range(1, 11)], by=owner)
    for _ in range(2):
        services.pair_next_round(tournament=t, by=owner)
        play(t)
    services.cut_to_next_phase(tournament=t, top=8, by=owner)
    services.pair_next_round(tournament=t, by=owner)
    services.start_clock(round=Round.objects.get(tournament=t, number=3), minutes=50, by=owner)
    play(t)
    services.start_top_cut(tournament=t, size=4, by=owner)
    for _ in range(2):
        for m in Match.objects.filter(round__tournament=t, round__playoff=True, reported=False):
            services.record_result(match=m, wins=(2, 0), by=owner)
        if Round.objects.filter(tournament=t, playoff=True).count() < 2:
            services.pair_next_round(tournament=t, by=owner)
    services.pause_clock(round=Round.objects.get(tournament=t, number=3), by=owner)
    services.finish(tournament=t, by=owner)
    return Tournament.objects.get(pk=t.pk)


def everything(t: Tournament) -> dict[str, Any]:
    """Every field of the event a user can see or that decides anything."""
    return {
        "event": Tournament.objects.filter(pk=t.pk)
        .values("name", "system", "best_of", "seed", "status", "planned_rounds", "top_cut", "phase")
        .get(),
        "staff": sorted(t.staff.values_list("username", flat=True)),
        "players": list(
            Player.objects.filter(tournament=t)
            .order_by("external_id")
            .values_list("external_id", "name", "dropped_after_round", "made_phase")
        ),
        "rounds": list(
            Round.objects.filter(tournament=t)
            .order_by("number")
            .values_list("number", "phase", "playoff", "clock_ends_at", "clock_paused_remaining")
        ),
        "standings": standings_document(t)["standings"],
        "audit": [
            (e.at, e.user.username if e.user else None, e.action, e.summary, e.before, e.after)
            for e in AuditEntry.objects.filter(tournament=t)
            .exclude(action="import")
            .order_by("at", "id")
            .select_related("user")
        ],
    }


def test_export_then_import_of_a_backup_gives_an_identical_event(
    finished: Tournament, owner: User
) -> None:
    assert finished.status == Status.FINISHED
    doc = json.loads(json.dumps(export_document(finished, backup=True)))
    restored = services.import_document(parse_document(json.dumps(doc)), owner=owner)
    before, after = everything(finished), everything(restored)
    assert before["event"] | {"name": None} == after["event"] | {"name": None}
    for key in ("staff", "players", "rounds", "standings", "audit"):
        assert after[key] == before[key], key
    assert after["rounds"][2][4] is not None  # the paused clock came back paused


def test_the_event_screens_backup_restores_through_the_upload(
    client: Client, finished: Tournament, owner: User
) -> None:
    client.force_login(owner)
    body = client.get(f"/t/{finished.slug}/manage/backup.json").content
    assert json.loads(body)["event"]["status"] == "finished"
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client.post(
        "/manage/restore/", {"document": SimpleUploadedFile("b.json", body, "application/json")}
    )
    assert response.status_code == 302
    restored = Tournament.objects.exclude(pk=finished.pk).get()
    assert restored.status == Status.FINISHED and restored.top_cut == 4


def test_a_plain_export_stays_the_interchange_document(finished: Tournament) -> None:
    assert "event" not in export_document(finished)


@pytest.mark.parametrize(
    ("event", "place"),
    [
        ({"status": "paused"}, "event.status"),
        ({"top_cut": 3}, "event.top_cut"),
        ({"clocks": [{"round": 99, "ends_at": None}]}, "event.clocks[0].round"),
        ({"audit": [{"at": "yesterday", "action": "result", "summary": "x"}]}, "event.audit[0].at"),
        ({"made_phase": {"nobody": 2}}, "event.made_phase.nobody"),
        ({"cut": {"decision": "maybe"}}, "event.cut.decision"),
        ({"cut": {"decision": "keep", "changes": []}}, "event.cut.decided_at"),
        ({"cut": {"started_at": "monday"}}, "event.cut.started_at"),
        (
            {
                "audit": [
                    {
                        "at": "2025-06-14T12:03:00+00:00",
                        "action": "drop",
                        "summary": "x",
                        "players": [["p1"]],
                    }
                ]
            },
            "event.audit[0].players[0]",
        ),
    ],
)
def test_a_damaged_backup_section_is_refused_naming_the_place(
    small_doc: dict, event: dict[str, Any], place: str
) -> None:
    doc = dict(small_doc, event=event)
    with pytest.raises(DocumentError) as refused:
        services.import_document(doc)
    assert any(p.startswith(place + ":") for p in refused.value.problems), refused.value.problems
    assert not Tournament.objects.exists()


def test_a_backup_restores_pending_entries_and_contacts_and_holds_no_token(
    owner: User,
) -> None:
    from tournaments.models import Entry
    from tournaments.services.registration import register_self, set_registration

    t = services.create_tournament(name="Open Signup", owner=owner, seed=3)
    set_registration(tournament=t, registration_open=True, cap=None, approval=True, check_in=False)
    _player, token = register_self(tournament=t, name="Ana Lopez", contact="ana@example.org")
    document = export_document(Tournament.objects.get(pk=t.pk), backup=True)
    assert token not in json.dumps(document)  # its hash, for the laptop swap (issue 26)
    restored = services.import_document(document, owner=owner)
    again = Player.objects.get(tournament=restored, name="Ana Lopez")
    assert again.entry == Entry.PENDING and again.contact == "ana@example.org"
    assert again.token_hash == ""  # the original, still here, keeps its link
