"""The readable audit log (issue 12 item 6): one sentence per entry, written by the real
services, filtered by round and by player, a page at a time."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from scoring.models import Standing
from tournaments import audit_legacy, services
from tournaments.interchange import export_document
from tournaments.models import (
    AuditAction,
    AuditEntry,
    AuditPlayer,
    Match,
    MatchKind,
    Player,
    Seat,
    Tournament,
)
from tournaments.pages import audit
from tournaments.pages.audit import Context, Record, describe

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
# 12:03 UTC is 14:03 in Madrid in June: the log speaks the server's time zone.
AT = datetime(2025, 6, 14, 12, 3, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _madrid(settings: Any) -> None:
    settings.TIME_ZONE = "Europe/Madrid"


@pytest.fixture
def alice(django_user_model: type[User]) -> User:
    return django_user_model.objects.create_user("alice")


@pytest.fixture
def oc(client: Client, alice: User) -> Client:
    client.force_login(alice)
    return client


@pytest.fixture
def swiss(alice: User) -> Tournament:
    t = services.create_tournament(name="Audit Open", owner=alice, seed=3)
    services.register_players(
        tournament=t, names=["Ana Lopez", "Ben Ito", "Cleo Park", "Dev Rao"], by=alice
    )
    return t


def sentences(t: Tournament, **filters: Any) -> list[str]:
    """The log's sentences, oldest first, every entry stamped 14:03 Madrid time."""
    AuditEntry.objects.filter(tournament=t).update(at=AT)
    return [e["text"] for e in reversed(audit.audit_log(t, **filters)["entries"])]


def last_sentence(t: Tournament) -> str:
    return sentences(t)[-1]


def played(t: Tournament, number: int) -> list[Match]:
    return list(
        Match.objects.filter(round__tournament=t, round__number=number, kind=MatchKind.PLAYED)
        .order_by("table")
        .prefetch_related("seats__player")
    )


def names_at(match: Match) -> str:
    seats = Seat.objects.filter(match=match).order_by("position").select_related("player")
    return " vs ".join(s.player.name for s in seats)


def url(t: Tournament, query: str = "") -> str:
    return f"/t/{t.slug}/manage/audit/{query}"


# --- A sentence for every entry the services write -----------------------------------


def test_registering_removing_renaming_and_planning_read_as_sentences(
    swiss: Tournament, alice: User
) -> None:
    services.register_players(tournament=swiss, names=["Zed Twice"], by=alice)
    zed = Player.objects.get(tournament=swiss, name="Zed Twice")
    services.remove_player(player=zed, by=alice)
    dev = Player.objects.get(tournament=swiss, name="Dev Rao")
    services.rename_player(player=dev, name="Dev Rai", by=alice)
    services.update_plan(tournament=swiss, planned_rounds=3, top_cut=2, by=alice)
    services.update_plan(tournament=swiss, planned_rounds=None, top_cut=0, by=alice)
    assert sentences(swiss) == [
        "4 players registered: Ana Lopez, Ben Ito, Cleo Park and Dev Rao by alice at 14:03",
        "Zed Twice registered by alice at 14:03",
        "Zed Twice removed (entered by mistake, never paired) by alice at 14:03",
        "Dev Rao renamed to Dev Rai by alice at 14:03",
        "Plan set to 3 Swiss rounds and a top 2 "
        "(was an open number of Swiss rounds and no top cut) by alice at 14:03",
        "Plan set to an open number of Swiss rounds and no top cut "
        "(was 3 Swiss rounds and a top 2) by alice at 14:03",
    ]


def test_a_long_registration_names_the_first_ten_and_counts_the_rest(alice: User) -> None:
    t = services.create_tournament(name="Big", owner=alice, seed=1)
    services.register_players(tournament=t, names=[f"P{i:03}" for i in range(1, 501)])
    names = ", ".join(f"P{i:03}" for i in range(1, 11))
    assert last_sentence(t) == f"500 players registered: {names} and 490 more at 14:03"


def test_pairing_the_clock_results_drops_and_undo_read_as_sentences(
    swiss: Tournament, alice: User
) -> None:
    services.pair_next_round(tournament=swiss, by=alice)
    round_1 = swiss.rounds.get(number=1)
    services.start_clock(round=round_1, minutes=50, by=alice)
    services.pause_clock(round=round_1, by=alice)
    services.resume_clock(round=round_1, by=alice)
    services.add_clock_minutes(round=round_1, minutes=5, by=alice)
    services.add_clock_minutes(round=round_1, minutes=-1, by=alice)
    first, second = played(swiss, 1)
    services.record_result(match=first, wins=(2, 1), by=alice)
    services.record_result(match=first, wins=(1, 2), by=alice)
    services.record_result(match=first, wins=None, by=alice)
    services.record_result(match=first, wins=(0, 0), double_loss=True, by=alice)
    services.record_result(match=second, wins=(0, 0), draws=3, by=alice)
    ana = Player.objects.get(tournament=swiss, name="Ana Lopez")
    services.drop_player(player=ana, by=alice)
    services.readmit_player(player=ana, by=alice)
    services.pair_next_round(tournament=swiss, by=alice)
    services.undo_round(tournament=swiss, by=alice)
    one, two = names_at(first), names_at(second)
    assert sentences(swiss)[1:] == [
        "Round 1 paired (2 tables) by alice at 14:03",
        "Clock of round 1 started (50 minutes) by alice at 14:03",
        "Clock of round 1 paused by alice at 14:03",
        "Clock of round 1 resumed by alice at 14:03",
        "5 minutes added to the clock of round 1 by alice at 14:03",
        "1 minute taken off the clock of round 1 by alice at 14:03",
        f"Table 1, round 1 ({one}): 2-1 entered by alice at 14:03",
        f"Table 1, round 1 ({one}): 2-1 changed to 1-2 by alice at 14:03",
        f"Table 1, round 1 ({one}): 1-2 cleared by alice at 14:03",
        f"Table 1, round 1 ({one}): a double loss entered by alice at 14:03",
        f"Table 2, round 1 ({two}): 0-0-3 entered by alice at 14:03",
        "Ana Lopez dropped after round 1 by alice at 14:03",
        "Ana Lopez re-admitted (had dropped after round 1) by alice at 14:03",
        "Round 2 paired (2 tables) by alice at 14:03",
        "Pairing of round 2 undone by alice at 14:03",
    ]


def test_a_drop_before_the_first_round_says_so(swiss: Tournament, alice: User) -> None:
    ben = Player.objects.get(tournament=swiss, name="Ben Ito")
    services.drop_player(player=ben, by=alice)
    assert last_sentence(swiss) == "Ben Ito dropped before round 1 by alice at 14:03"


def play_round(t: Tournament) -> None:
    services.pair_next_round(tournament=t)
    for m in Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED, reported=False):
        services.record_result(match=m, wins=(2, 0))


def ranked(t: Tournament) -> list[str]:
    rows = Standing.objects.filter(tournament=t).order_by("position").select_related("player")
    return [s.player.name for s in rows]


def test_the_cut_the_top_cut_its_final_finishing_and_reopening_read_as_sentences(
    swiss: Tournament, alice: User
) -> None:
    play_round(swiss)
    advancing = services.cut_to_next_phase(tournament=swiss, top=4, by=alice)
    cut_names = [p.name for p in advancing]
    play_round(swiss)
    top = ranked(swiss)[:2]
    services.start_top_cut(tournament=swiss, size=2, by=alice)
    (final,) = played(swiss, 3)
    services.start_clock(round=final.round, minutes=30, by=alice)
    services.record_result(match=final, wins=(2, 0), by=alice)
    services.finish(tournament=swiss, by=alice)
    services.reopen(tournament=swiss, by=alice)
    r2 = [
        f"Table {m.table}, round 2 ({names_at(m)}): 2-0 entered at 14:03" for m in played(swiss, 2)
    ]
    assert sentences(swiss)[-9:] == [
        f"Cut to phase 2 (top 4): 4 players advance: {', '.join(cut_names[:3])} and "
        f"{cut_names[3]} by alice at 14:03",
        "Round 2 paired (2 tables) at 14:03",
        *r2,
        f"Top cut of 2 started (round 3; seeds: 1 {top[0]}, 2 {top[1]}) by alice at 14:03",
        "Clock of the Final started (30 minutes) by alice at 14:03",
        f"Final, table 1 ({names_at(final)}): 2-0 entered by alice at 14:03",
        "Tournament finished by alice at 14:03",
        "Tournament reopened (back in the top cut) by alice at 14:03",
    ]


def test_a_top_cut_paired_round_by_round_names_its_rounds(alice: User) -> None:
    t = services.create_tournament(name="Eight", owner=alice, seed=5)
    services.register_players(tournament=t, names=[f"Player {i}" for i in range(1, 9)])
    for _ in range(3):
        play_round(t)
    services.start_top_cut(tournament=t, size=8)
    for m in played(t, 4):
        services.record_result(match=m, wins=(2, 1))
    services.pair_next_round(tournament=t, by=alice)
    assert last_sentence(t) == "Semifinals (round 5) paired (2 tables) by alice at 14:03"


def test_a_league_tables_places_read_with_names_and_scores(alice: User) -> None:
    t = services.create_tournament(name="League", owner=alice, system="league", seed=2)
    services.register_players(tournament=t, names=["Ana", "Ben", "Cleo", "Dev"])
    services.pair_next_round(tournament=t)
    match = Match.objects.get(round__tournament=t, kind=MatchKind.GAME)
    seated = [s.player for s in match.seats.order_by("position").select_related("player")]
    services.record_game(match=match, places=[1, 2, 3, 4], scores=[40, 30, 20, 10], by=alice)
    services.record_game(
        match=match, places=[2, 1, 3], scores=[30, 41.5, 20], absent=[seated[3].pk], by=alice
    )
    services.record_game(match=match, places=None, scores=None, by=alice)
    a, b, c, d = (p.name for p in seated)
    assert sentences(t)[-3:] == [
        f"Table 1, round 1: places entered: {a} 1st (40), {b} 2nd (30), {c} 3rd (20), "
        f"{d} 4th (10) by alice at 14:03",
        f"Table 1, round 1: places changed to {b} 1st (41.5), {a} 2nd (30), {c} 3rd (20), "
        f"{d} absent (were {a} 1st (40), {b} 2nd (30), {c} 3rd (20), {d} 4th (10)) "
        "by alice at 14:03",
        "Table 1, round 1: places and scores cleared by alice at 14:03",
    ]


def test_staff_changes_read_as_sentences(
    swiss: Tournament, alice: User, django_user_model: type[User]
) -> None:
    carol = django_user_model.objects.create_user("carol")
    services.add_staff(tournament=swiss, username="carol", by=alice)
    services.set_staff_role(tournament=swiss, user_id=carol.pk, role="floor_judge", by=alice)
    services.remove_staff(tournament=swiss, user_id=carol.pk, by=alice)
    dora = services.create_staff_account(
        tournament=swiss, username="dora", role="head_judge", by=alice
    )
    services.renew_set_password_link(tournament=swiss, user_id=dora.pk, by=alice)
    assert sentences(swiss)[-5:] == [
        "carol added to the staff as scorekeeper by alice at 14:03",
        "carol is now floor judge by alice at 14:03",
        "carol removed from the staff by alice at 14:03",
        "Staff account dora created as head judge by alice at 14:03",
        "New set-password link made for dora by alice at 14:03",
    ]


def test_an_import_and_a_restore_read_as_sentences(small_doc: dict, alice: User) -> None:
    imported = services.import_document(small_doc, owner=alice)
    assert sentences(imported) == ["Imported from a file (7 players, 2 rounds) by alice at 14:03"]
    backup = json.loads(json.dumps(export_document(imported, backup=True)))
    restored = services.import_document(backup, owner=alice)
    assert last_sentence(restored) == (
        "Restored from a backup (7 players, 2 rounds) by alice at 14:03"
    )


def test_the_top_cut_re_seeded_or_kept_after_a_correction_reads_as_a_sentence(
    alice: User,
) -> None:
    t = services.create_tournament(name="Cut Correction", owner=alice, seed=3, top_cut=8)
    services.register_players(tournament=t, names=[f"Player {i:02}" for i in range(1, 17)])
    for _ in range(4):
        services.pair_next_round(tournament=t)
        for m in Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED, reported=False):
            services.record_result(match=m, wins=(2, 1))
    services.start_top_cut(tournament=t, size=8, by=alice)
    table_2 = Match.objects.get(round__tournament=t, round__number=4, table=2)
    services.record_result(match=table_2, wins=(1, 2), by=alice)
    services.keep_top_cut(tournament=t, by=alice)
    kept = last_sentence(t)
    assert kept.startswith("Top cut of 8 kept as seeded after a correction to round 4 (table 2): ")
    assert "(seeds: 1 Player" in kept and kept.endswith(") by alice at 14:03")
    services.record_result(match=table_2, wins=(0, 2), by=alice)
    services.reseed_top_cut(tournament=t, by=alice)
    reseeded = last_sentence(t)
    assert reseeded.startswith("Top cut of 8 re-seeded after a correction to round 4 (table 2): ")
    now = ", ".join(f"{k} {name}" for k, name in enumerate(ranked(t)[:8], start=1))
    assert reseeded.endswith(f"(seeds now: {now}) by alice at 14:03")
    # Both decisions concern the round whose correction caused them.
    in_round_4 = sentences(t, round=4)
    assert kept in in_round_4 and reseeded in in_round_4


# --- Shapes the renderers do not know ---------------------------------------------------


def test_an_entry_of_an_unexpected_shape_falls_back_to_its_summary(
    oc: Client, swiss: Tournament, alice: User
) -> None:
    odd = [
        AuditEntry(tournament=swiss, user=alice, action=AuditAction.RESULT,
                   summary="Result typed on paper", before="x", after=[1, 2]),
        AuditEntry(tournament=swiss, action=AuditAction.PAIR, summary="Paired by hand"),
        AuditEntry(tournament=swiss, action=AuditAction.CLOCK, summary="Round 2: clock melted"),
        AuditEntry(tournament=swiss, action=AuditAction.STAFF, summary="", after={"a": 1}),
    ]  # fmt: skip
    AuditEntry.objects.bulk_create(odd)
    assert sentences(swiss)[-4:] == [
        "Result typed on paper by alice at 14:03",
        "Paired by hand at 14:03",
        "Round 2: clock melted at 14:03",
        "staff at 14:03",
    ]
    response = oc.get(url(swiss))
    html = response.content.decode()
    assert response.status_code == 200 and "Result typed on paper by alice at " in html
    assert "(before: <code>&quot;x&quot;</code>, after: <code>[1, 2]</code>)" in html


def test_an_unknown_action_still_reads_as_its_summary() -> None:
    record = Record("teleport", "Moved table 4 to the stage", at=AT, by="bob")
    assert str(describe(record, Context())) == "Moved table 4 to the stage by bob at 12:03"


def test_times_carry_the_date_when_the_log_spans_days(swiss: Tournament, alice: User) -> None:
    services.pair_next_round(tournament=swiss, by=alice)
    entries = list(AuditEntry.objects.filter(tournament=swiss).order_by("id"))
    for k, e in enumerate(entries):
        AuditEntry.objects.filter(pk=e.pk).update(at=AT + timedelta(days=k))
    texts = [e["text"] for e in audit.audit_log(swiss)["entries"]]
    assert texts == [
        "Round 1 paired (2 tables) by alice on Sun 15 Jun at 14:03",
        "4 players registered: Ana Lopez, Ben Ito, Cleo Park and Dev Rao "
        "by alice on Sat 14 Jun at 14:03",
    ]


# --- Filters ---------------------------------------------------------------------------


@pytest.fixture
def two_rounds(swiss: Tournament, alice: User) -> Tournament:
    """Round 1 played with a correction and a clock, a drop, round 2 paired."""
    services.pair_next_round(tournament=swiss, by=alice)
    services.start_clock(round=swiss.rounds.get(number=1), minutes=50, by=alice)
    for m in played(swiss, 1):
        services.record_result(match=m, wins=(2, 0), by=alice)
    services.record_result(match=played(swiss, 1)[0], wins=(2, 1), by=alice)
    services.drop_player(player=Player.objects.get(name="Dev Rao", tournament=swiss), by=alice)
    services.pair_next_round(tournament=swiss, by=alice)
    services.start_clock(round=swiss.rounds.get(number=2), minutes=50, by=alice)
    return swiss


def test_the_round_filter_keeps_only_that_rounds_entries(two_rounds: Tournament) -> None:
    one, two = (names_at(m) for m in played(two_rounds, 1))
    assert sentences(two_rounds, round=1) == [
        "Round 1 paired (2 tables) by alice at 14:03",
        "Clock of round 1 started (50 minutes) by alice at 14:03",
        f"Table 1, round 1 ({one}): 2-0 entered by alice at 14:03",
        f"Table 2, round 1 ({two}): 2-0 entered by alice at 14:03",
        f"Table 1, round 1 ({one}): 2-0 changed to 2-1 by alice at 14:03",
        "Dev Rao dropped after round 1 by alice at 14:03",
    ]
    assert sentences(two_rounds, round=2) == [
        "Round 2 paired (2 tables) by alice at 14:03",  # a table and a bye
        "Clock of round 2 started (50 minutes) by alice at 14:03",
    ]


def test_the_player_filter_finds_a_player_by_id_under_every_name_they_had(
    two_rounds: Tournament, alice: User
) -> None:
    dev = Player.objects.get(tournament=two_rounds, name="Dev Rao")
    services.rename_player(player=dev, name="Dev Rai", by=alice)
    match = next(m for m in played(two_rounds, 1) if "Dev" in names_at(m))
    found = sentences(two_rounds, player=str(dev.pk))
    assert found[0].startswith("4 players registered: Ana Lopez, Ben Ito, Cleo Park and Dev Rao")
    assert [s for s in found if s.startswith("Table")] == [
        s for s in sentences(two_rounds, round=1) if s.startswith(f"Table {match.table},")
    ]
    assert found[-2:] == [
        "Dev Rao dropped after round 1 by alice at 14:03",
        "Dev Rao renamed to Dev Rai by alice at 14:03",
    ]
    assert not any("Round" in s or "Clock" in s for s in found)


def test_the_player_filter_takes_a_fragment_of_a_name(two_rounds: Tournament, alice: User) -> None:
    services.register_players(tournament=two_rounds, names=["Zed Twice"], by=alice)
    zed = Player.objects.get(tournament=two_rounds, name="Zed Twice")
    services.remove_player(player=zed, by=alice)
    cleo = sentences(two_rounds, player="cleo")
    assert cleo and all("Cleo Park" in s for s in cleo)
    assert sentences(two_rounds, player="twice") == [
        "Zed Twice registered as a late entry by alice at 14:03",
        "Zed Twice removed (entered by mistake, never paired) by alice at 14:03",
    ]
    # "round" and "table" are words of the sentences, not of anybody's name.
    assert sentences(two_rounds, player="round") == []


def test_a_league_table_is_found_by_any_player_at_it(alice: User) -> None:
    t = services.create_tournament(name="League", owner=alice, system="league", seed=2)
    services.register_players(tournament=t, names=["Ana", "Ben", "Cleo", "Dev"])
    services.pair_next_round(tournament=t)
    match = Match.objects.get(round__tournament=t, kind=MatchKind.GAME)
    services.record_game(match=match, places=[1, 2, 3, 4], scores=[4, 3, 2, 1], by=alice)
    dev = Player.objects.get(tournament=t, name="Dev")
    found = sentences(t, player=str(dev.pk))
    assert len(found) == 2 and found[-1].startswith("Table 1, round 1: places entered: ")


# --- The screen ------------------------------------------------------------------------


def test_the_audit_screen_shows_sentences_with_names_that_filter(
    oc: Client, two_rounds: Tournament
) -> None:
    ana = Player.objects.get(tournament=two_rounds, name="Ana Lopez")
    page = oc.get(url(two_rounds))
    html = page.content.decode()
    assert page.status_code == 200 and "<html" in html
    assert "</a> dropped after round 1 by alice at " in html
    assert f'href="/t/{two_rounds.slug}/manage/audit/?player={ana.pk}"' in html
    assert 'name="round"' in html and 'name="player"' in html and "Times in Europe/Madrid" in html


def test_the_audit_screen_filters_with_a_plain_get(oc: Client, two_rounds: Tournament) -> None:
    response = oc.get(url(two_rounds, "?round=2"))
    html = response.content.decode()
    assert response.status_code == 200 and "<html" in html
    assert "Round 2 paired (2 tables)" in html and "Round 1 paired" not in html
    assert '<option value="2" selected>Round 2</option>' in html
    response = oc.get(url(two_rounds, "?player=Dev+Rao&round=1"))
    html = response.content.decode()
    assert "</a> dropped after round 1" in html and "4 players registered" not in html


def test_the_audit_filter_with_htmx_swaps_the_panel_only(
    oc: Client, two_rounds: Tournament
) -> None:
    response = oc.get(url(two_rounds, "?round=2"), **HX)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert html.startswith('<section id="audit-panel"') and "Round 2 paired" in html
    assert 'hx-push-url="true"' in html and "Round 1 paired" not in html


@pytest.mark.parametrize("extra", [{}, HX])
@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("?round=abc", "“abc” is not a round number: pick a round from the list."),
        ("?round=0", "“0” is not a round number"),
        ("?round=%C2%B2", "“²” is not a round number"),
        ("?page=-1", "“-1” is not a page number"),
        ("?player=" + "x" * 201, "A player&#x27;s name has at most 200 characters."),
    ],
)
def test_a_bad_filter_is_refused_with_a_message_beside_its_field(
    oc: Client, two_rounds: Tournament, extra: dict[str, str], query: str, message: str
) -> None:
    response = oc.get(url(two_rounds, query), **extra)
    html = response.content.decode()
    assert response.status_code == 422 and message in html
    assert ("<html" in html) == (not extra) and "Round 1 paired" not in html


@pytest.mark.parametrize("extra", [{}, HX])
def test_a_fragment_that_fits_too_many_players_asks_for_more_letters(
    oc: Client, alice: User, extra: dict[str, str]
) -> None:
    t = services.create_tournament(name="Crowd", owner=alice, seed=1)
    services.register_players(tournament=t, names=[f"Sam {i}" for i in range(1, 41)])
    response = oc.get(url(t, "?player=sam"), **extra)
    html = response.content.decode()
    assert response.status_code == 422
    assert "“sam” fits more than 30 players: type more of the name" in html
    assert 'value="sam"' in html  # what was typed stays in the field


@pytest.mark.parametrize("extra", [{}, HX])
def test_the_log_is_paged_newest_first(
    oc: Client, swiss: Tournament, alice: User, extra: dict[str, str]
) -> None:
    AuditEntry.objects.bulk_create(
        AuditEntry(tournament=swiss, user=alice, action=AuditAction.CLOCK,
                   summary=f"Round 1: +{k} minutes", round=1,
                   after={"event": "moved", "minutes": k})
        for k in range(1, 450)
    )  # fmt: skip
    first = oc.get(url(swiss), **extra).content.decode()
    assert "Entries 1–200 of 450, newest first" in first
    assert first.count('data-action="clock"') == 200
    assert "449 minutes added to the clock of round 1" in first
    assert f'href="/t/{swiss.slug}/manage/audit/?page=2"' in first
    last = oc.get(url(swiss, "?page=3"), **extra).content.decode()
    assert "Entries 401–450 of 450" in last and "Page 3 of 3" in last
    assert "4 players registered" in last and 'rel="next"' not in last
    assert "Entries 401–450 of 450" in oc.get(url(swiss, "?page=99"), **extra).content.decode()


def test_a_page_of_a_long_log_costs_a_fixed_number_of_queries(
    oc: Client, swiss: Tournament, alice: User, django_assert_max_num_queries: Any
) -> None:
    rows = AuditEntry.objects.bulk_create(
        AuditEntry(tournament=swiss, user=alice, action=AuditAction.RESULT,
                   summary=f"Entered round {k % 9 + 1} table {k} (Ana Lopez vs Ben Ito): 2-0",
                   before={"reported": False, "kind": "played", "wins": None, "draws": None},
                   after={"reported": True, "kind": "played", "wins": [2, 0], "draws": 0},
                   round=k % 9 + 1, table=k)
        for k in range(1, 3000)
    )  # fmt: skip
    # ... and the players each is about, as services.writing stores them.
    pair = list(swiss.players.filter(name__in=["Ana Lopez", "Ben Ito"]))
    AuditPlayer.objects.bulk_create(
        AuditPlayer(entry=row, external_id=p.external_id, name=p.name) for row in rows for p in pair
    )
    with django_assert_max_num_queries(16):
        response = oc.get(url(swiss, "?round=4&player=ana"))
    assert response.status_code == 200
    assert "Entries 1–200 of 333" in response.content.decode()


def test_players_reports_are_found_by_round_and_by_either_player(
    client: Any, django_user_model: Any
) -> None:
    from tournaments.models import Match, MatchKind
    from tournaments.services import reports

    owner = django_user_model.objects.create_user("reports-owner")
    client.force_login(owner)
    t = services.create_tournament(name="Self Reported", owner=owner, seed=4)
    services.register_players(
        tournament=t, names=["Ana Lopez", "Ben Ortiz", "Cleo Park", "Dev Rao"]
    )
    services.pair_next_round(tournament=t)
    m = Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED).order_by("table")[0]
    a, b = (s.player for s in m.seats.order_by("position"))
    reports.report(player=a, match=m, wins_mine=2, wins_theirs=1)
    reports.confirm(player=b, match=m)
    by_round = client.get(f"/t/{t.slug}/manage/audit/?round=1").content.decode()
    assert f"{a.name} reported 2-1" in by_round and f"confirmed by {b.name}" in by_round
    for who in (a, b):
        page = client.get(f"/t/{t.slug}/manage/audit/?player={who.pk}").content.decode()
        assert f"{a.name} reported 2-1" in page, who.name
    other = client.get(f"/t/{t.slug}/manage/audit/?round=2").content.decode()
    assert "reported 2-1" not in other


# --- What each entry is about, stored beside its summary --------------------------------------


def about(entry: AuditEntry) -> tuple[int | None, int | None, list[tuple[str | None, str]]]:
    players = entry.players.order_by("id").values_list("external_id", "name")
    return entry.round, entry.table, list(players)


def test_the_services_store_each_entrys_round_table_and_players(two_rounds: Tournament) -> None:
    entries = AuditEntry.objects.filter(tournament=two_rounds).order_by("id")
    corrected = entries.filter(action=AuditAction.RESULT).last()
    match = played(two_rounds, 1)[0]
    seated = [(s.player.external_id, s.player.name) for s in match.seats.order_by("position")]
    assert corrected is not None and about(corrected) == (1, match.table, seated)
    dev = Player.objects.get(tournament=two_rounds, name="Dev Rao")
    drop = entries.get(action=AuditAction.DROP)
    assert about(drop) == (1, None, [(dev.external_id, "Dev Rao")])
    assert [about(e)[0] for e in entries.filter(action=AuditAction.PAIR)] == [1, 2]
    assert [about(e)[0] for e in entries.filter(action=AuditAction.CLOCK)] == [1, 2]
    registered = entries.get(action=AuditAction.REGISTER)
    assert about(registered) == (
        None,
        None,
        list(two_rounds.players.order_by("id").values_list("external_id", "name")),
    )


def test_the_round_filter_reads_the_round_each_entry_stored_not_its_summary(
    swiss: Tournament,
) -> None:
    summary = "Entered round 3 table 1 (Ana Lopez vs Ben Ito): 2-0"
    state = {"reported": True, "kind": "played", "wins": [2, 0], "draws": 0}
    seated = Player.objects.filter(tournament=swiss, name__in=("Ana Lopez", "Ben Ito"))
    for number in (None, 3):
        stored = AuditEntry.objects.create(
            tournament=swiss, action=AuditAction.RESULT, summary=summary,
            before={**state, "reported": False}, after=state, round=number, table=1,
        )  # fmt: skip
        for p in seated.order_by("name"):
            AuditPlayer.objects.create(entry=stored, external_id=p.external_id, name=p.name)
    assert sentences(swiss, round=3) == [
        "Table 1, round 3 (Ana Lopez vs Ben Ito): 2-0 entered at 14:03"
    ]


def test_the_player_filter_reads_the_players_each_entry_stored_not_its_summary(
    swiss: Tournament,
) -> None:
    ana, ben = (Player.objects.get(tournament=swiss, name=n) for n in ("Ana Lopez", "Ben Ito"))
    summary = "Entered round 1 table 1 (Ana Lopez vs Ben Ito): 2-0"
    state = {"reported": True, "kind": "played", "wins": [2, 0], "draws": 0}
    stored = AuditEntry.objects.create(
        tournament=swiss, action=AuditAction.RESULT, summary=summary,
        before={**state, "reported": False}, after=state, round=1, table=1,
    )  # fmt: skip
    AuditPlayer.objects.create(entry=stored, external_id=ana.external_id, name=ana.name)
    # The summary names Ben, but the entry did not store him: neither the sentence nor the
    # filter guesses (the summary is never read).
    found = "Table 1, round 1 (Ana Lopez): 2-0 entered at 14:03"
    assert found in sentences(swiss, player=str(ana.pk))
    assert found not in sentences(swiss, player=str(ben.pk))


def test_a_backup_carries_what_each_entry_is_about(two_rounds: Tournament, alice: User) -> None:
    backup = json.loads(json.dumps(export_document(two_rounds, backup=True)))
    restored = services.import_document(backup, owner=alice)

    def abouts(t: Tournament) -> list[Any]:
        entries = AuditEntry.objects.filter(tournament=t).exclude(action=AuditAction.IMPORT)
        return [(e.summary, about(e)) for e in entries.order_by("at", "id")]

    assert abouts(restored) == abouts(two_rounds)
    dev = Player.objects.get(tournament=restored, name="Dev Rao")
    assert sentences(restored, player=str(dev.pk)) == sentences(
        two_rounds, player=str(Player.objects.get(tournament=two_rounds, name="Dev Rao").pk)
    )


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_older_entries_so_that_the_filters_answer_as_before(
    two_rounds: Tournament, alice: User, migrate: Callable[[str], Any]
) -> None:
    t = two_rounds
    dev = Player.objects.get(tournament=t, name="Dev Rao")
    services.rename_player(player=dev, name="Dev Rai", by=alice)
    services.register_players(tournament=t, names=["Zed Twice"], by=alice)
    services.remove_player(player=Player.objects.get(tournament=t, name="Zed Twice"), by=alice)
    queries: list[dict[str, Any]] = [{"round": 1}, {"round": 2}]
    queries += [{"player": str(pk)} for pk in t.players.values_list("pk", flat=True)]
    queries += [{"player": text} for text in ("cleo", "twice", "rao", "ana")]
    as_written = [sentences(t, **q) for q in queries]
    assert all(as_written[:2]) and all(as_written[2:])
    # The entries as they were before 0007: a summary and JSON, nothing stored beside.
    AuditPlayer.objects.all().delete()
    AuditEntry.objects.update(round=None, table=None)
    assert sentences(t, round=1) == []
    migrate("0007_audit_facts")
    migrate("0008_fill_audit_facts")
    assert [sentences(t, **q) for q in queries] == as_written
    drop = AuditEntry.objects.get(tournament=t, action=AuditAction.DROP)
    assert about(drop) == (1, None, [(None, "Dev Rao")])


def entry_facts(
    r: Record, names: dict[str, str]
) -> tuple[int | None, int | None, list[tuple[str | None, str]]]:
    """(round, table, players as (interchange id, name)) the frozen reader finds in an
    entry that stored only its summary and JSON, as migration 0008 stored them."""
    found = audit_legacy.read(r.action, r.summary, r.before, r.after, names=names)
    return found.round, found.table, [(ext, name) for name, ext in found.players]


def test_an_older_entry_is_read_for_its_round_table_and_players() -> None:
    ctx = {"p1": "Ana Lopez", "p2": "Ben Ito", "p3": "Cleo Park"}
    kept = Record(
        AuditAction.TOP_CUT,
        "Kept the top 2 as seeded after a correction to round 4 (table 2): Cleo Park ...",
        after={
            "cut_decision": "keep",
            "correction": {"round": 4, "table": 2},
            "seeds": ["p1", "p2"],
        },
    )
    assert entry_facts(kept, ctx) == (4, 2, [("p1", "Ana Lopez"), ("p2", "Ben Ito")])
    started = Record(AuditAction.TOP_CUT, "Started the top 2", after={"round": 5, "seeds": ["p1"]})
    assert entry_facts(started, ctx) == (5, None, [("p1", "Ana Lopez")])
    state = {"reported": True, "kind": "played", "wins": [2, 1], "draws": 0}
    result = Record(
        AuditAction.RESULT, "Corrected round 3 table 7 (Ana Lopez vs Ben Ito): 2-1", state, state
    )
    assert entry_facts(result, ctx) == (3, 7, [(None, "Ana Lopez"), (None, "Ben Ito")])
    game = Record(
        AuditAction.GAME,
        "Round 2 table 1: places and scores entered",
        {"reported": False, "places": {}},
        {"reported": True, "places": {"p1": 1, "p2": 2}, "absent": ["p3"]},
    )
    assert entry_facts(game, ctx) == (
        2, 1, [("p1", "Ana Lopez"), ("p2", "Ben Ito"), ("p3", "Cleo Park")],
    )  # fmt: skip
    no_shows = Record(AuditAction.DROP, "Dropped 1 no-show(s): Cleo Park",
                      after={"players": ["p3"], "dropped_after_round": 0})  # fmt: skip
    assert entry_facts(no_shows, ctx) == (None, None, [("p3", "Cleo Park")])
