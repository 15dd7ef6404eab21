"""Fixed seats (issue 27): the organizer fixes a player to a table, and every Swiss, pod
and league round paired afterwards seats that player's match there."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.helpers import play_open_matches, play_swiss
from tournaments import services
from tournaments.interchange import export_document, parse_document
from tournaments.models import (
    AuditAction,
    AuditEntry,
    Enforcement,
    Entry,
    FixedSeat,
    Match,
    MatchKind,
    PairingRestriction,
    Player,
    Seat,
    System,
    Tournament,
)
from tournaments.pages.audit import Record
from tournaments.pages.seating_audit import fixed_seat_sentence
from tournaments.services.fixed_seats import TableTaken, fix_seat, unfix_seat
from tournaments.services.imports import restore_document
from tournaments.services.restrictions import restrict_pairing, set_enforcement
from tournaments.services.writing import ServiceError

pytestmark = pytest.mark.django_db


def new_event(
    players: int, *, seed: int = 5, system: str = System.MTR, name: str = "Fixed Open"
) -> Tournament:
    t = services.create_tournament(name=name, seed=seed, system=system)
    services.register_players(tournament=t, names=[f"Player {i}" for i in range(1, players + 1)])
    return t


def player(t: Tournament, name: str) -> Player:
    return t.players.get(name=name)


def table_of(t: Tournament, p: Player, number: int) -> int | None:
    seat = Seat.objects.select_related("match").get(
        round__tournament=t, round__number=number, player=p
    )
    return seat.match.table


def sentence(entry: AuditEntry) -> str:
    record = Record(
        action=entry.action,
        summary=entry.summary,
        before=entry.before,
        after=entry.after,
        round=entry.round,
        table=entry.table,
        players=tuple((p.name, p.external_id) for p in entry.players.all()),
    )
    return "".join(p if isinstance(p, str) else p.name for p in fixed_seat_sentence(record, None))  # type: ignore[arg-type]


# --- The service --------------------------------------------------------------------------


def test_fixing_a_seat_stores_it_and_audits_it_with_the_table_and_the_player(owner: Any) -> None:
    t = new_event(8)
    ana = player(t, "Player 3")
    seat = fix_seat(tournament=t, player=ana, table=5, reason="wheelchair access", by=owner)
    assert (seat.player_id, seat.table, seat.reason) == (ana.pk, 5, "wheelchair access")
    entry = AuditEntry.objects.get(tournament=t, action=AuditAction.SEATING)
    assert entry.table == 5
    assert entry.user == owner
    assert [p.external_id for p in entry.players.all()] == [ana.external_id]
    assert sentence(entry) == "Player 3 fixed to table 5 (wheelchair access)"


def test_fixing_a_fixed_player_again_moves_them_and_says_where_from() -> None:
    t = new_event(8)
    ana = player(t, "Player 3")
    fix_seat(tournament=t, player=ana, table=5)
    fix_seat(tournament=t, player=ana, table=9, reason="stream")
    assert FixedSeat.objects.get(player=ana).table == 9
    entry = AuditEntry.objects.filter(action=AuditAction.SEATING).order_by("-id").first()
    assert entry is not None
    assert sentence(entry) == "Player 3 fixed to table 9 (was table 5) (stream)"


def test_fixing_the_same_seat_twice_records_nothing_the_second_time() -> None:
    t = new_event(8)
    ana = player(t, "Player 3")
    fix_seat(tournament=t, player=ana, table=5)
    t.refresh_from_db()
    version = t.version
    fix_seat(tournament=t, player=ana, table=5)
    t.refresh_from_db()
    assert t.version == version
    assert AuditEntry.objects.filter(action=AuditAction.SEATING).count() == 1


def test_a_table_another_player_holds_is_refused_naming_them() -> None:
    t = new_event(8)
    fix_seat(tournament=t, player=player(t, "Player 1"), table=4)
    with pytest.raises(TableTaken, match="Table 4 is fixed for Player 1 already"):
        fix_seat(tournament=t, player=player(t, "Player 2"), table=4)
    assert FixedSeat.objects.filter(tournament=t).count() == 1


@pytest.mark.parametrize("table", [0, -3, 100_001])
def test_a_table_number_out_of_range_is_refused(table: int) -> None:
    t = new_event(4)
    with pytest.raises(ServiceError, match="whole number from 1 to 100,000"):
        fix_seat(tournament=t, player=player(t, "Player 1"), table=table)


def test_a_player_of_another_event_or_not_accepted_is_refused() -> None:
    t = new_event(4)
    other = new_event(4, name="Other Open")
    with pytest.raises(ServiceError, match="not a player of this event"):
        fix_seat(tournament=t, player=player(other, "Player 1"), table=3)
    pending = player(t, "Player 2")
    Player.objects.filter(pk=pending.pk).update(entry=Entry.PENDING)
    pending.refresh_from_db()
    with pytest.raises(ServiceError, match="entry is not accepted"):
        fix_seat(tournament=t, player=pending, table=3)


def test_a_reason_longer_than_a_hundred_characters_is_refused() -> None:
    t = new_event(4)
    with pytest.raises(ServiceError, match="at most 100 characters"):
        fix_seat(tournament=t, player=player(t, "Player 1"), table=3, reason="x" * 101)


def test_unfixing_removes_the_seat_and_audits_it() -> None:
    t = new_event(4)
    ana = player(t, "Player 1")
    fix_seat(tournament=t, player=ana, table=3)
    unfix_seat(tournament=t, player=ana)
    assert not FixedSeat.objects.filter(player=ana).exists()
    entry = AuditEntry.objects.filter(action=AuditAction.SEATING).order_by("-id").first()
    assert entry is not None
    assert sentence(entry) == "Player 1 no longer fixed to table 3"
    with pytest.raises(ServiceError, match="Player 1 has no fixed seat"):
        unfix_seat(tournament=t, player=ana)


def test_a_finished_event_is_read_only() -> None:
    t = new_event(4)
    Tournament.objects.filter(pk=t.pk).update(status="finished")
    with pytest.raises(ServiceError, match="finished"):
        fix_seat(tournament=t, player=player(t, "Player 1"), table=3)


# --- Pairings -----------------------------------------------------------------------------


def test_a_fixed_player_plays_at_their_table_every_swiss_round() -> None:
    t = new_event(20)
    ana = player(t, "Player 7")
    fix_seat(tournament=t, player=ana, table=4)
    for number in range(1, 6):
        services.pair_next_round(tournament=t)
        assert table_of(t, ana, number) == 4
        tables = sorted(
            Match.objects.filter(round__number=number, round__tournament=t).values_list(
                "table", flat=True
            )
        )
        assert tables == list(range(1, 11))  # the others fill around table 4, no hole
        play_open_matches(t)


def test_a_stream_table_beyond_the_matches_is_used_by_its_player_only() -> None:
    t = new_event(16)
    ana = player(t, "Player 2")
    fix_seat(tournament=t, player=ana, table=100, reason="stream")
    services.pair_next_round(tournament=t)
    assert table_of(t, ana, 1) == 100
    tables = sorted(Match.objects.filter(round__tournament=t).values_list("table", flat=True))
    assert tables == [1, 2, 3, 4, 5, 6, 7, 100]


def test_two_fixed_players_paired_together_play_at_the_lower_table() -> None:
    t = new_event(2)
    fix_seat(tournament=t, player=player(t, "Player 1"), table=7)
    fix_seat(tournament=t, player=player(t, "Player 2"), table=3)
    services.pair_next_round(tournament=t)
    assert list(Match.objects.filter(round__tournament=t).values_list("table", flat=True)) == [3]


def test_a_bye_never_takes_a_fixed_table() -> None:
    # Five players: two matches and a bye, which would be table 3 but for the fixed seat
    # of a player who also may be the one on the bye.
    for seed in range(6):
        t = new_event(5, seed=seed, name=f"Bye Open {seed}")
        ana = player(t, "Player 5")
        fix_seat(tournament=t, player=ana, table=3)
        services.pair_next_round(tournament=t)
        bye = Match.objects.get(round__tournament=t, kind=MatchKind.BYE)
        assert bye.table != 3
        if not Seat.objects.filter(match=bye, player=ana).exists():
            assert table_of(t, ana, 1) == 3


def test_the_same_event_and_seed_seat_every_table_the_same_way() -> None:
    def tables(name: str) -> list[tuple[int | None, list[str]]]:
        t = new_event(13, seed=41, name=name)
        fix_seat(tournament=t, player=player(t, "Player 9"), table=2)
        fix_seat(tournament=t, player=player(t, "Player 4"), table=30)
        play_swiss(t, 3)
        return [
            (m.table, sorted(s.player.name for s in m.seats.all()))
            for m in Match.objects.filter(round__tournament=t).order_by("round__number", "table")
        ]

    assert tables("Same Open") == tables("Same Open Again")


def test_undoing_and_pairing_again_gives_the_same_tables() -> None:
    t = new_event(10)
    fix_seat(tournament=t, player=player(t, "Player 3"), table=6)
    services.pair_next_round(tournament=t)
    first = list(
        Match.objects.filter(round__tournament=t)
        .values_list("table", "seats__player__name")
        .order_by("table", "seats__position")
    )
    services.undo_round(tournament=t)
    services.pair_next_round(tournament=t)
    again = list(
        Match.objects.filter(round__tournament=t)
        .values_list("table", "seats__player__name")
        .order_by("table", "seats__position")
    )
    assert first == again


def test_a_pods_fixed_player_is_at_their_table_in_every_round_of_the_schedule() -> None:
    t = new_event(7, system=System.POD)
    ana = player(t, "Player 2")
    fix_seat(tournament=t, player=ana, table=2)
    services.pair_next_round(tournament=t)
    for number in range(1, t.rounds.count() + 1):
        seat = Seat.objects.select_related("match").get(
            round__tournament=t, round__number=number, player=ana
        )
        if seat.match.kind != MatchKind.BYE:
            assert seat.match.table == 2
        else:
            assert seat.match.table != 2


def test_a_league_tables_fixed_player_is_at_their_table() -> None:
    t = new_event(9, system=System.LEAGUE)
    ana = player(t, "Player 5")
    fix_seat(tournament=t, player=ana, table=3)
    services.pair_next_round(tournament=t)
    assert table_of(t, ana, 1) == 3
    # Nine players sit at two tables: the other one is table 1 (table 2 stays free).
    tables = Match.objects.filter(round__tournament=t).values_list("table", flat=True)
    assert sorted(tables) == [1, 3]


def test_the_top_cut_keeps_its_bracket_tables() -> None:
    t = new_event(8)
    play_swiss(t, 3)
    for k, p in enumerate(t.players.order_by("pk")):
        fix_seat(tournament=t, player=p, table=50 + k)
    services.start_top_cut(tournament=t, size=8)
    playoff = Match.objects.filter(round__tournament=t, round__playoff=True)
    assert sorted(playoff.values_list("table", flat=True)) == [1, 2, 3, 4]


# --- Backup and restore -------------------------------------------------------------------


def test_a_backup_carries_the_fixed_seats_restrictions_and_enforcement_level(owner: Any) -> None:
    t = new_event(6)
    fix_seat(tournament=t, player=player(t, "Player 1"), table=12, reason="stream")
    restrict_pairing(
        tournament=t,
        player_a=player(t, "Player 2"),
        player_b=player(t, "Player 3"),
        reason="siblings",
    )
    doc = export_document(t, backup=True)
    event = doc["event"]
    ids = {p.name: p.external_id for p in t.players.all()}
    assert event["enforcement"] == Enforcement.REGULAR
    assert event["fixed_seats"] == {ids["Player 1"]: {"table": 12, "reason": "stream"}}
    assert event["restrictions"] == [[ids["Player 2"], ids["Player 3"], "siblings"]]
    restored = restore_document(parse_document(json.dumps(doc)), owner=owner).tournament
    seat = FixedSeat.objects.get(tournament=restored)
    assert (seat.player.name, seat.table, seat.reason) == ("Player 1", 12, "stream")
    row = PairingRestriction.objects.get(tournament=restored)
    assert {row.player_a.name, row.player_b.name} == {"Player 2", "Player 3"}
    assert row.reason == "siblings"
    assert export_document(restored, backup=True)["event"]["fixed_seats"] == event["fixed_seats"]


def test_a_competitive_event_restores_competitive() -> None:
    t = new_event(4)
    t = set_enforcement(tournament=t, enforcement=Enforcement.COMPETITIVE)
    doc = export_document(t, backup=True)
    restored = restore_document(parse_document(json.dumps(doc))).tournament
    assert restored.enforcement == Enforcement.COMPETITIVE


@pytest.mark.parametrize(
    ("patch", "problem"),
    [
        (
            {"fixed_seats": {"nobody": {"table": 3}}},
            "event.fixed_seats.nobody: unknown player 'nobody'",
        ),
        (
            {"fixed_seats": {"p1": {"table": 0}}},
            "event.fixed_seats.p1.table: must be at least 1, got 0",
        ),
        (
            {"fixed_seats": {"p1": {"table": 3}, "p2": {"table": 3}}},
            "event.fixed_seats.p2.table: table 3 is fixed for 'p1' too",
        ),
        ({"restrictions": [["p1", "p1", ""]]}, "event.restrictions[0]: the same player twice"),
        ({"restrictions": [["p1", "p9", ""]]}, "event.restrictions[0]: unknown player 'p9'"),
        (
            {"restrictions": [["p1", "p2", ""], ["p2", "p1", ""]]},
            "event.restrictions[1]: 'p2' and 'p1' are listed twice",
        ),
        (
            {"enforcement": "strict"},
            "event.enforcement: unknown level 'strict' (expected one of regular, competitive, professional)",
        ),
        (
            {"enforcement": "competitive", "restrictions": [["p1", "p2", ""]]},
            "event.restrictions: pairing restrictions are for regular (casual) events only",
        ),
    ],
)
def test_a_backup_with_bad_seating_is_refused_naming_the_place(
    small_doc: dict[str, Any], patch: dict[str, Any], problem: str
) -> None:
    from tournaments.interchange import DocumentError, validate_document

    doc = {**small_doc, "event": patch}
    with pytest.raises(DocumentError) as caught:
        validate_document(doc)
    assert problem in caught.value.problems
