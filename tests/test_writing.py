"""The one write path: every write runs in `writing(...)`, which owns the transaction, the
lock, the audit entries, the version and the recompute; pages hear of it once committed."""

from __future__ import annotations

import copy
import importlib
from typing import Any

import pytest
from django.db import OperationalError, connection
from django.test import Client

from scoring.services import standings_document
from tournaments import live, services, stream
from tournaments.models import AuditAction, AuditEntry, Match, Player, Round, Tournament
from tournaments.pages.bracket import bracket_rounds
from tournaments.pairing.bracket import bracket_of
from tournaments.services import ServiceError, import_document, writing

pytestmark = pytest.mark.django_db
# The module, not the function of the same name the package exports.
writing_module = importlib.import_module("tournaments.services.writing")


def version_of(t: Tournament) -> int:
    return Tournament.objects.get(pk=t.pk).version


def test_a_block_that_records_nothing_writes_no_version_and_no_audit_entry(
    event: Tournament,
) -> None:
    before, entries = version_of(event), AuditEntry.objects.count()
    with writing(event):
        pass
    assert (version_of(event), AuditEntry.objects.count()) == (before, entries)


def test_a_refused_write_rolls_back_everything_the_block_wrote(event: Tournament) -> None:
    before = version_of(event)
    with pytest.raises(ServiceError), writing(event) as w:
        Player.objects.filter(tournament=event).update(name="Nobody")
        w.changed()
        w.audit(AuditAction.RENAME, "everyone renamed")
        raise ServiceError("refused")
    assert not Player.objects.filter(tournament=event, name="Nobody").exists()
    assert version_of(event) == before


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_live_pages_hear_of_a_write_only_after_it_commits_and_never_of_a_refused_one(
    small_doc: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages learn of writes from the committed version (stream.Hub reads it from the
    database): the writer, here another thread with its own connection, tells nobody."""
    import threading

    from tests.helpers import require_postgres

    require_postgres()
    event = import_document(copy.deepcopy(small_doc))
    hub = stream.Hub()
    monkeypatch.setattr(hub, "_run", lambda: None)
    told: list[list[str]] = []
    hub.subscribe(live.record_base(event), (), told.append)
    hub.tick(now=0)
    inside, go = threading.Event(), threading.Event()

    def write(refuse: bool) -> None:
        try:
            with writing(Tournament.objects.get(pk=event.pk)) as w:
                w.touched()
                w.audit(AuditAction.PLAN, "a plan")
                inside.set()
                go.wait(10)
                if refuse:
                    raise ServiceError("refused")
        except ServiceError:
            pass
        finally:
            connection.close()

    for refuse, now in ((True, 10), (False, 20)):
        inside.clear(), go.clear()
        writer = threading.Thread(target=write, args=(refuse,))
        writer.start()
        assert inside.wait(10)
        hub.tick(now=now)
        assert told == []  # written, not committed
        go.set()
        writer.join(10)
        hub.tick(now=now + 1)
        assert told == ([] if refuse else [["shared"]])


def test_a_lock_that_waits_too_long_answers_busy_try_again(
    event: Tournament, monkeypatch: pytest.MonkeyPatch
) -> None:
    def stuck(tournament: Any) -> Tournament:
        raise OperationalError("canceling statement due to lock timeout")

    monkeypatch.setattr(writing_module, "lock", stuck)
    with pytest.raises(ServiceError, match="try again"):
        services.rename_player(player=Player.objects.filter(tournament=event).first(), name="X")


def test_a_write_records_its_audit_entry_with_who_did_it(
    event: Tournament, django_user_model: Any
) -> None:
    judge = django_user_model.objects.create_user("judge")
    match = Match.objects.get(round__tournament=event, round__number=1, table=1)
    services.record_result(match=match, wins=(0, 2), by=judge)
    entry = AuditEntry.objects.filter(tournament=event, action=AuditAction.RESULT).first()
    assert entry is not None and entry.user == judge and "0-2" in entry.summary


def test_a_match_of_another_event_is_not_found_through_this_event(
    event: Tournament, small_doc: dict
) -> None:
    other = import_document(copy.deepcopy(small_doc))
    theirs = Match.objects.filter(round__tournament=other, kind="played").first()
    assert theirs is not None
    with pytest.raises(services.results.MatchNotFound):
        services.record_result(match=theirs.pk, tournament=event, wins=(2, 0))


def test_the_importer_writes_through_the_one_write_path(small_doc: dict) -> None:
    t = import_document(copy.deepcopy(small_doc))
    assert t.version == version_of(t) == 1
    assert AuditEntry.objects.filter(tournament=t, action=AuditAction.IMPORT).count() == 1
    assert standings_document(t)["standings"]


# --- The admin writes only through the services ------------------------------------------


@pytest.fixture
def admin_client(django_user_model: Any) -> Client:
    client = Client()
    client.force_login(django_user_model.objects.create_superuser("root", password=None))
    return client


def test_the_admin_shows_a_tournament_read_only(admin_client: Client, event: Tournament) -> None:
    url = f"/admin/tournaments/tournament/{event.pk}/change/"
    page = admin_client.get(url)
    assert page.status_code == 200 and 'name="system"' not in page.content.decode()
    admin_client.post(url, {"name": "Renamed", "system": "pod", "seed": 1})
    assert Tournament.objects.get(pk=event.pk).system == "mtr"


def test_renaming_a_player_in_the_admin_goes_through_the_service(
    admin_client: Client, event: Tournament
) -> None:
    player = Player.objects.filter(tournament=event).first()
    assert player is not None
    before = version_of(event)
    response = admin_client.post(
        f"/admin/tournaments/player/{player.pk}/change/",
        {"name": "Renamed Person", "dropped_after_round": "1"},
    )
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.name == "Renamed Person" and player.dropped_after_round is None
    assert version_of(event) == before + 1
    assert AuditEntry.objects.filter(tournament=event, action=AuditAction.RENAME).exists()


# --- The top cut: one bracket logic, in pairing/bracket.py --------------------------------


def test_the_bracket_read_back_from_the_rows_keeps_each_seed_to_the_final(
    event: Tournament,
) -> None:
    played = bracket_of(
        4,
        [
            [("a", "d", "d"), ("b", "c", "b")],
            [("b", "d", None)],
        ],
    )
    final = played[-1][0]
    assert (final.high, final.high_seed, final.low, final.low_seed) == ("b", 2, "d", 4)


def test_a_top_eight_is_paired_round_by_round_by_the_pure_bracket(event: Tournament) -> None:
    names = [f"Player {k}" for k in range(1, 13)]
    t = services.create_tournament(name="Cut", top_cut=8)
    services.register_players(tournament=t, names=names)
    for _ in range(3):
        services.pair_next_round(tournament=t)
        for m in Match.objects.filter(round__tournament=t, kind="played", reported=False):
            services.record_result(match=m, wins=(2, 1))
    services.start_top_cut(tournament=t, size=8)
    for _ in range(3):
        for m in Match.objects.filter(round__tournament=t, round__playoff=True, reported=False):
            services.record_result(match=m, wins=(2, 0))
        if Round.objects.filter(tournament=t, playoff=True).count() < 3:
            services.pair_next_round(tournament=t)
    rounds = bracket_rounds(t)
    assert [len(r) for r in rounds] == [4, 2, 1]
    # Seed 1 won every match from the first seat: the final holds seeds 1 and 2.
    assert rounds[-1][0]["seeds"] == [1, 2]
    services.finish(tournament=t)
    with pytest.raises(ServiceError, match="finished"):
        services.pair_next_round(tournament=t)
