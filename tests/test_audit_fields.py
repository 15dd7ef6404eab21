"""Audit sentences read from the entries' fields (issue 23 item 3): the round, table and
players each entry stored beside its summary, and its before/after JSON. The summary is
never read: entries written before those facts were stored got them once, from their
summaries, by migrations 0008 and 0018 (tournaments.audit_legacy).
"""

from __future__ import annotations

import copy
import importlib
import json
from datetime import UTC, datetime
from typing import Any

import pytest
from django.apps import apps as django_apps
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tournaments import services
from tournaments.interchange import export_document
from tournaments.models import (
    AuditAction,
    AuditEntry,
    AuditPlayer,
    Match,
    MatchKind,
    Player,
    Tournament,
)
from tournaments.pages import audit
from tournaments.services import calls, decklists, registration, reports
from tournaments.services import floor as floor_services
from tournaments.services.fixed_seats import fix_seat, unfix_seat
from tournaments.services.penalties import issue_penalty, withdraw_penalty
from tournaments.services.restrictions import lift_restriction, restrict_pairing, set_enforcement

pytestmark = pytest.mark.django_db
AT = datetime(2025, 6, 14, 12, 3, tzinfo=UTC)  # 14:03 in Madrid


@pytest.fixture(autouse=True)
def _madrid(settings: Any) -> None:
    settings.TIME_ZONE = "Europe/Madrid"


def page(t: Tournament, **filters: Any) -> list[dict[str, Any]]:
    """The screen's entries, oldest first, every entry stamped 14:03 Madrid time."""
    AuditEntry.objects.filter(tournament=t).update(at=AT)
    return list(reversed(audit.audit_log(t, **filters)["entries"]))


def sentences(t: Tournament, **filters: Any) -> list[str]:
    return [e["text"] for e in page(t, **filters)]


def played(t: Tournament, number: int) -> list[Match]:
    return list(
        Match.objects.filter(round__tournament=t, round__number=number, kind=MatchKind.PLAYED)
        .order_by("table")
        .prefetch_related("seats__player")
    )


def seated(match: Match) -> list[Player]:
    return [s.player for s in match.seats.order_by("position").select_related("player")]


def play_round(t: Tournament, wins: tuple[int, int] = (2, 1)) -> None:
    services.pair_next_round(tournament=t)
    for m in Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED, reported=False):
        services.record_result(match=m, wins=wins)


def named(t: Tournament, name: str) -> Player:
    return Player.objects.get(tournament=t, name=name)


@pytest.fixture
def self_service(owner: User) -> Tournament:
    """Registration from the event's link with approval and check-in, no-shows dropped,
    a removal and a rename, a plan, then round 1 with the clock, results entered and
    corrected by the organizer, players' reports (confirmed, disputed, reset), a drop,
    a re-admission, a late entry and a player's own drop; then finished and reopened."""
    t = services.create_tournament(name="Fields Open", owner=owner, seed=3)
    registration.set_registration(
        tournament=t, registration_open=True, cap=None, approval=True, check_in=True, by=owner
    )
    sam, _token = registration.register_self(tournament=t, name="Sam Self")
    registration.accept_entry(player=sam, by=owner)
    registration.issue_link(player=sam, by=owner)
    registration.check_in(player=sam)
    # From the link, then accepted at once: an organizer's walk-ins are checked in as added.
    registration.accept_entries(
        tournament=t,
        players=[
            registration.register_self(tournament=t, name=f"Player {k}")[0] for k in range(1, 10)
        ],
        by=owner,
    )
    services.register_players(tournament=t, names=["Zed Twice"], by=owner)
    services.remove_player(player=named(t, "Zed Twice"), by=owner)
    for k in range(1, 8):
        registration.check_in(player=named(t, f"Player {k}"), by=owner)
    registration.drop_no_shows(tournament=t, by=owner)
    services.rename_player(player=named(t, "Player 1"), name="Player One", by=owner)
    services.update_plan(tournament=t, planned_rounds=3, top_cut=0, by=owner)
    registration.set_registration(
        tournament=t, registration_open=False, cap=8, approval=False, check_in=True, by=owner
    )
    services.pair_next_round(tournament=t, by=owner)
    round_1 = t.rounds.get(number=1)
    services.start_clock(round=round_1, minutes=50, by=owner)
    services.pause_clock(round=round_1, by=owner)
    services.resume_clock(round=round_1, by=owner)
    services.add_clock_minutes(round=round_1, minutes=5, by=owner)
    services.add_clock_minutes(round=round_1, minutes=-1, by=owner)
    first, second, third, fourth = played(t, 1)
    services.record_result(match=first, wins=(2, 1), by=owner)
    services.record_result(match=first, wins=(1, 2), by=owner)
    services.record_result(match=first, wins=None, by=owner)
    services.record_result(match=first, wins=(0, 0), double_loss=True, by=owner)
    a, b = seated(second)
    reports.report(player=a, match=second, wins_mine=2, wins_theirs=0)
    reports.confirm(player=b, match=second)
    a, b = seated(third)
    reports.report(player=a, match=third, wins_mine=2, wins_theirs=1)
    reports.report(player=a, match=third, wins_mine=2, wins_theirs=0)
    reports.dispute(player=b, match=third)
    reports.reset_report(match=third, by=owner)
    services.record_result(match=third, wins=(0, 0), draws=3, by=owner)
    services.record_result(match=fourth, wins=(2, 0), by=owner)
    dropped = seated(fourth)[1]
    services.drop_player(player=dropped, by=owner)
    services.readmit_player(player=dropped, by=owner)
    services.register_players(tournament=t, names=["Late Comer"], by=owner)
    reports.self_drop(player=seated(fourth)[0])
    services.pair_next_round(tournament=t, by=owner)
    services.undo_round(tournament=t, by=owner)
    services.finish(tournament=t, by=owner)
    services.reopen(tournament=t, by=owner)
    return t


@pytest.fixture
def cut(owner: User) -> Tournament:
    """A day-2 cut, a top cut started, a correction kept and one re-seeded, the top
    cut's next round paired."""
    t = services.create_tournament(name="Fields Cut", owner=owner, seed=3, top_cut=8)
    services.register_players(tournament=t, names=[f"Player {k:02}" for k in range(1, 19)])
    play_round(t)
    services.cut_to_next_phase(tournament=t, top=16, by=owner)
    for _ in range(3):
        play_round(t)
    services.start_top_cut(tournament=t, size=8, by=owner)
    table_2 = Match.objects.get(round__tournament=t, round__number=4, table=2)
    services.record_result(match=table_2, wins=(1, 2), by=owner)
    services.keep_top_cut(tournament=t, by=owner)
    services.record_result(match=table_2, wins=(0, 2), by=owner)
    services.reseed_top_cut(tournament=t, by=owner)
    for m in played(t, 5):
        services.record_result(match=m, wins=(2, 1), by=owner)
    services.pair_next_round(tournament=t, by=owner)
    return t


@pytest.fixture
def league(owner: User) -> Tournament:
    t = services.create_tournament(name="Fields League", owner=owner, system="league", seed=2)
    services.register_players(tournament=t, names=["Ana", "Ben", "Cleo", "Dev"])
    services.pair_next_round(tournament=t)
    match = Match.objects.get(round__tournament=t, kind=MatchKind.GAME)
    absent = seated(match)[3]
    services.record_game(match=match, places=[1, 2, 3, 4], scores=[40, 30, 20, 10], by=owner)
    services.record_game(
        match=match, places=[2, 1, 3], scores=[30, 41.5, 20], absent=[absent.pk], by=owner
    )
    services.record_game(match=match, places=None, scores=None, by=owner)
    return t


@pytest.fixture
def staffed(owner: User, django_user_model: type[User]) -> Tournament:
    t = services.create_tournament(name="Fields Staff", owner=owner, seed=1)
    carol = django_user_model.objects.create_user("carol")
    services.add_staff(tournament=t, username="carol", by=owner)
    services.remove_staff(tournament=t, user_id=carol.pk, by=owner)
    dora = services.create_staff_account(tournament=t, username="dora", by=owner)
    services.renew_set_password_link(tournament=t, user_id=dora.pk, by=owner)
    return t


@pytest.fixture
def floor(owner: User) -> Tournament:
    """The judges' writes (issue 27): penalties, time extensions, deck checks, ..."""
    t = services.create_tournament(name="Fields Floor", owner=owner, seed=4)
    services.register_players(tournament=t, names=["Ana", "Ben", "Cleo", "Dev"])
    ana, ben, *_ = t.players.order_by("id")
    decklists.set_decklist_rules(tournament=t, deck_format="modern", deadline=None, by=owner)
    deck = "4 Lightning Bolt\n56 Mountain\n"
    decklists.submit_decklist(player=Player.objects.get(pk=ana.pk), text=deck)
    decklists.submit_decklist(player=Player.objects.get(pk=ben.pk), text=deck, by=owner)
    services.pair_next_round(tournament=t, by=owner)
    decklists.submit_decklist(
        player=Player.objects.get(pk=ana.pk), text="4 Lightning Bolt\n57 Mountain\n", by=owner
    )
    decklists.publish_decklists(tournament=t, published=True, by=owner)
    first, second = Match.objects.filter(round__tournament=t).order_by("table")
    extension = floor_services.add_extension(
        tournament=t, match=first, minutes=5, note="ruling", by=owner
    )
    floor_services.remove_extension(tournament=t, extension=extension, by=owner)
    check = floor_services.start_deck_check(tournament=t, match=second, by=owner)
    floor_services.finish_deck_check(check=check, by=owner, note="all fine")
    fix_seat(tournament=t, player=ana, table=10, reason="wheelchair", by=owner)
    unfix_seat(tournament=t, player=ana, by=owner)
    restrict_pairing(tournament=t, player_a=ana, player_b=ben, reason="family", by=owner)
    lift_restriction(tournament=t, player_a=ana, player_b=ben, by=owner)
    set_enforcement(tournament=t, enforcement="competitive", by=owner)
    call = calls.call_judge(player=Player.objects.get(pk=ana.pk), note="missed trigger")
    calls.claim_call(call=call, by=owner)
    calls.release_call(call=call, by=owner)
    calls.hand_to_head(call=call, by=owner)
    calls.resolve_call(call=call, by=owner)
    calls.open_call(tournament=t, table=first.table, note="looking", by=owner)
    warning = issue_penalty(
        tournament=t, player=ana, infraction="tardiness", penalty="warning", by=owner
    )
    withdraw_penalty(tournament=t, penalty=warning, by=owner)
    issue_penalty(tournament=t, player=ben, infraction="slow_play", penalty="match_loss", by=owner)
    return t


def test_every_sentence_reads_the_same_when_the_summaries_are_blank(
    self_service: Tournament,
    cut: Tournament,
    league: Tournament,
    staffed: Tournament,
    floor: Tournament,
    small_doc: dict[str, Any],
    owner: User,
) -> None:
    imported = services.import_document(copy.deepcopy(small_doc), owner=owner)
    backup = json.loads(json.dumps(export_document(imported, backup=True)))
    restored = services.import_document(backup, owner=owner)
    events = [self_service, cut, league, staffed, floor, imported, restored]
    written = {t.pk: sentences(t) for t in events}
    every_action = {e["action"] for t in events for e in page(t)}
    assert every_action == set(audit.RENDERERS)  # each renderer has its entry here
    assert not [e["summary"] for t in events for e in page(t) if e["raw"] is not None]
    AuditEntry.objects.update(summary="")
    for t in events:
        entries = page(t)
        assert [e["text"] for e in entries] == written[t.pk], t.name
        assert not [e["text"] for e in entries if e["raw"] is not None], t.name


def test_the_sentences_of_a_played_event_name_what_happened(self_service: Tournament) -> None:
    AuditEntry.objects.filter(tournament=self_service).update(summary="")
    texts = sentences(self_service)
    assert texts[:4] == [
        "Registration settings: open, no cap, each entry approved, check-in used by owner at 14:03",
        "Sam Self registered (pending approval) at 14:03",
        "Sam Self's entry accepted by owner at 14:03",
        "New private link for Sam Self by owner at 14:03",
    ]
    assert "Sam Self checked in at 14:03" in texts
    assert "2 no-shows dropped before round 1: Player 8 and Player 9 by owner at 14:03" in texts
    assert "Late Comer registered as a late entry by owner at 14:03" in texts
    assert any(s.endswith("dropped after round 1 (own request) at 14:03") for s in texts)
    assert "Round 2 paired (4 tables) by owner at 14:03" in texts
    assert texts[-2:] == [
        "Tournament finished by owner at 14:03",
        "Tournament reopened (running again) by owner at 14:03",
    ]


def test_a_sentence_reads_the_fields_not_a_summary_that_says_otherwise(
    self_service: Tournament,
) -> None:
    t = self_service
    match = Match.objects.get(round__tournament=t, round__number=1, table=4)
    one, two = seated(match)
    entry = AuditEntry.objects.filter(tournament=t, action=AuditAction.RESULT).order_by("id").last()
    assert entry is not None
    AuditEntry.objects.filter(pk=entry.pk).update(
        summary="Entered round 9 table 9 (Somebody vs Else): 2-0"
    )
    texts = sentences(t)
    assert f"Table 4, round 1 ({one.name} vs {two.name}): 2-0 entered by owner at 14:03" in texts
    assert not [s for s in texts if "Somebody" in s or "round 9" in s]


def test_a_renamed_players_entries_keep_the_name_they_had(
    league: Tournament, cut: Tournament
) -> None:
    first = seated(Match.objects.get(round__tournament=league, kind=MatchKind.GAME))[0]
    was = first.name
    services.rename_player(player=first, name="Renamed")
    games = [e for e in page(league) if e["action"] == AuditAction.GAME]
    assert f"{was} 1st (40)" in games[0]["text"] and "Renamed" not in games[0]["text"]
    # The old name still leads to the player's own entries, by the id the entry stored.
    assert f'?player={first.pk}">{was}</a> 1st (40)' in games[0]["html"]

    first_seed = AuditEntry.objects.get(tournament=cut, action=AuditAction.TOP_CUT,
                                        after__cut_decision__isnull=True).after["seeds"][0]  # fmt: skip
    seed = Player.objects.get(tournament=cut, external_id=first_seed)
    was = seed.name
    services.rename_player(player=seed, name="Top Seed Renamed")
    started = next(s for s in sentences(cut) if s.startswith("Top cut of 8 started"))
    assert f"seeds: 1 {was}, 2 " in started and "Top Seed Renamed" not in started


def test_a_legacy_entry_without_fields_reads_the_facts_the_migration_stores(
    self_service: Tournament,
) -> None:
    """Entries as a backup made before the fields existed restores them: a summary and
    the JSON of their day, no round, table or players."""
    t = self_service
    ext, other = (named(t, name).external_id for name in ("Player 2", "Player 3"))
    result = {"reported": True, "kind": "played", "wins": [2, 0], "draws": 0}
    old = [
        (AuditAction.RESULT, "Entered round 1 table 4 (Old Ana vs Old Ben): 2-0",
         {**result, "reported": False}, result),
        (AuditAction.REGISTER, "Added 2 player(s) (late entry): Old Ana, Old Ben",
         None, ["Old Ana", "Old Ben"]),
        (AuditAction.REGISTER, "Old Cleo registered (pending approval)",
         None, {"player": ext, "entry": "pending"}),
        (AuditAction.DROP, "Old Ana dropped after round 1 (own request)",
         None, {"dropped_after_round": 1}),
        (AuditAction.READMIT, "Old Ana re-admitted", {"dropped_after_round": 1}, None),
        (AuditAction.CHECK_IN, "Old Ana checked in by owner", None, {"player": ext}),
        (AuditAction.LINK, "New private link for Old Ana by owner", None,
         {"player": ext, "replaced": True}),
        (AuditAction.ENTRY, "Old Ana rejected by owner", None, {"player": ext, "entry": "rejected"}),
        (AuditAction.PAIR, "Paired round 5 (top cut)", None, {"round": 5, "matches": 2}),
        (AuditAction.CUT, "Cut to phase 2 (5 points or more): 1 players advance", None,
         {"phase": 2, "players": [ext]}),
        (AuditAction.TOP_CUT, "Kept the top 2 as seeded after a correction to round 4 "
         "(table 2): Old Ana (seed 2) would now be 3rd: out of the cut", None,
         {"cut_decision": "keep", "correction": {"round": 4, "table": 2}, "seeds": [ext, other]}),
        (AuditAction.CLOCK, "Round 1: -3 minutes", None, None),
        (AuditAction.IMPORT, "Imported 7 players and 2 rounds (restored from a backup)", None,
         None),
        (AuditAction.STAFF, "New set-password link for dora", None, "dora"),
    ]  # fmt: skip
    AuditEntry.objects.filter(tournament=t).delete()
    AuditEntry.objects.bulk_create(
        AuditEntry(tournament=t, action=action, summary=summary, before=before, after=after)
        for action, summary, before, after in old
    )
    # The screen reads no summary: migration 0018 stores their facts once (a restore of
    # such a backup does the same at restore time).
    migration = importlib.import_module("tournaments.migrations.0018_audit_facts_from_summaries")
    migration.fill(django_apps, None)
    entries = page(t)
    assert [e["text"] for e in entries] == [
        "Table 4, round 1 (Old Ana vs Old Ben): 2-0 entered at 14:03",
        "2 players registered as late entries: Old Ana and Old Ben at 14:03",
        "Old Cleo registered (pending approval) at 14:03",
        "Old Ana dropped after round 1 (own request) at 14:03",
        "Old Ana re-admitted (had dropped after round 1) at 14:03",
        "Old Ana checked in at 14:03",
        "New private link for Old Ana at 14:03",
        "Old Ana's entry rejected at 14:03",
        "Semifinals (round 5) paired (2 tables) at 14:03",
        "Cut to phase 2 (5 points or more): 1 player advance: Player 2 at 14:03",
        "Top cut of 2 kept as seeded after a correction to round 4 (table 2): Old Ana "
        "(seed 2) would now be 3rd: out of the cut (seeds: 1 Player 2, 2 Player 3) at 14:03",
        "3 minutes taken off the clock of round 1 at 14:03",
        "Restored from a backup (7 players, 2 rounds) at 14:03",
        "New set-password link made for dora at 14:03",
    ]
    assert not [e["text"] for e in entries if e["raw"] is not None]


def test_a_page_of_200_entries_reads_their_players_in_one_query(oc: Client, owner: User) -> None:
    t = services.create_tournament(name="Long Log", owner=owner, seed=1)
    services.register_players(tournament=t, names=[f"Player {k:03}" for k in range(1, 401)])
    players = list(t.players.order_by("id"))
    AuditEntry.objects.filter(tournament=t).delete()
    state = {"reported": True, "kind": "played", "wins": [2, 0], "draws": 0}

    def write(count: int) -> None:
        rows = AuditEntry.objects.bulk_create(
            AuditEntry(tournament=t, user=owner, action=AuditAction.RESULT, summary="",
                       before={**state, "reported": False}, after=state, round=1, table=k)
            for k in range(1, count + 1)
        )  # fmt: skip
        AuditPlayer.objects.bulk_create(
            AuditPlayer(entry=row, external_id=p.external_id, name=p.name)
            for k, row in enumerate(rows)
            for p in players[2 * k : 2 * k + 2]
        )

    def queries() -> tuple[int, str]:
        with CaptureQueriesContext(connection) as captured:
            html = oc.get(f"/t/{t.slug}/manage/audit/").content.decode()
        return len(captured), html

    write(2)
    few, _ = queries()
    AuditEntry.objects.filter(tournament=t).delete()
    write(200)
    many, html = queries()
    assert many == few
    assert "Entries 1–200 of 200" in html
    assert f'?player={players[399].pk}">Player 400</a>): 2-0 entered by owner' in html
