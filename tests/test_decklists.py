"""Decklists' services (issue 28): a player's submission and its checks, the lock at the
deadline or at round 1's pairing, a judge's change after it (audited with before and
after), the organizer's list for a player, the event's rules and the lists checked
again, files (.txt, .dek) and their limits, and publishing the top cut's lists."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone, translation

from tournaments import services
from tournaments.decklists.messages import MAIN_TOO_SMALL
from tournaments.domain import decklist_top_cut, decklists_locked
from tournaments.models import (
    AuditAction,
    AuditEntry,
    Decklist,
    Match,
    MatchKind,
    Player,
    StaffRole,
    Tournament,
)
from tournaments.pages import decklists as pages
from tournaments.pages.audit_parts import Context, Record, Sentence
from tournaments.pages.decklist_audit import decklist_sentence
from tournaments.services.cards import load_cards
from tournaments.services.decklists import (
    LOCKED,
    MAX_UPLOAD_BYTES,
    NO_DECKLISTS,
    NOT_STAFF,
    publish_decklists,
    read_upload,
    set_decklist_rules,
    submit_decklist,
)
from tournaments.services.writing import FINISHED, ServiceError

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).parent / "fixtures" / "cards-small.json"

# Legal in Modern with the fixture's cards, and structurally fine without card data.
LEGAL = "4 Lightning Bolt\n56 Mountain\n\nSideboard\n2 Fire // Ice\n13 Mountain\n"
SHORT = "4 Lightning Bolt\n50 Mountain\n"  # 54 cards
DEK = """<?xml version="1.0" encoding="utf-8"?>
<Deck xmlns:xsd="http://www.w3.org/2001/XMLSchema">
  <NetDeckID>0</NetDeckID>
  <Cards CatID="1" Quantity="4" Sideboard="false" Name="Lightning Bolt" />
  <Cards CatID="2" Quantity="56" Sideboard="false" Name="Mountain" />
  <Cards CatID="3" Quantity="2" Sideboard="true" Name="Fire // Ice" />
</Deck>
"""


def event(owner: Any, *, deck_format: str = "modern", players: int = 8) -> Tournament:
    t = services.create_tournament(name="Deck Open", owner=owner, seed=3)
    services.register_players(tournament=t, names=[f"Player {i}" for i in range(1, players + 1)])
    set_decklist_rules(tournament=t, deck_format=deck_format, deadline=None, by=owner)
    return Tournament.objects.get(pk=t.pk)


def first(t: Tournament) -> Player:
    return t.players.order_by("pk").first()  # type: ignore[return-value]


def decklist_entries(t: Tournament) -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(tournament=t, action=AuditAction.DECKLIST).order_by("pk"))


def sentence(entry: AuditEntry, ctx: Context | None = None) -> str:
    record = Record(
        action=entry.action,
        summary="",
        before=entry.before,
        after=entry.after,
        players=tuple((p.name, p.external_id) for p in entry.players.all()),
    )
    return str(Sentence(decklist_sentence(record, ctx or Context())))


@pytest.fixture
def cards() -> None:
    load_cards(path=FIXTURE)


@pytest.fixture
def judge(django_user_model: Any, owner: Any) -> Any:
    return django_user_model.objects.create_user("judge")


def staffed(t: Tournament, owner: Any, user: Any, role: str = StaffRole.FLOOR_JUDGE) -> Any:
    services.add_staff(tournament=t, username=user.username, role=role, by=owner)
    return user


# --- A player's submission -------------------------------------------------------------


def test_a_player_registers_a_legal_list_checked_against_the_card_data(
    owner: Any, cards: None
) -> None:
    t = event(owner)
    row = submit_decklist(player=first(t), text=LEGAL)
    assert row.legal and row.names_checked and row.problems == []
    assert row.main == [[4, "Lightning Bolt"], [56, "Mountain"]]
    assert row.side == [[2, "Fire // Ice"], [13, "Mountain"]]
    assert row.updated_by is None


def test_each_problem_names_its_line_and_a_misspelt_card_gets_a_suggestion(
    owner: Any, cards: None
) -> None:
    t = event(owner)
    row = submit_decklist(player=first(t), text="4 Lightning Blot\n56 Mountain\n")
    assert not row.legal
    assert row.problems[0] == {
        "code": "decklist.line",
        "params": {
            "line": 1,
            "problem": {
                "code": "decklist.not_a_card_hint",
                "params": {"name": "Lightning Blot", "suggestion": "Lightning Bolt"},
            },
        },
    }
    (said,) = pages.english_problems(row.problems)
    assert said.startswith("line 1: 'Lightning Blot' is not a card")
    assert "did you mean Lightning Bolt?" in said


def test_without_card_data_the_structure_is_checked_and_the_names_are_not(owner: Any) -> None:
    t = event(owner)
    row = submit_decklist(player=first(t), text="4 Lightning Blot\n56 Mountain\n")
    assert row.legal and not row.names_checked
    short = submit_decklist(player=first(t), text=SHORT)
    assert not short.legal
    assert short.problems == [MAIN_TOO_SMALL(count=54, least=60).data()]
    assert pages.english_problems(short.problems) == [
        "the main deck has 54 cards: at least 60 are needed"
    ]


def test_a_players_submission_is_audited_and_moves_no_version(owner: Any) -> None:
    t = event(owner)
    version = Tournament.objects.get(pk=t.pk).version
    submit_decklist(player=first(t), text=LEGAL)
    assert Tournament.objects.get(pk=t.pk).version == version
    entry = decklist_entries(t)[-1]
    assert entry.user is None and entry.after["event"] == "submitted"
    assert [p.name for p in entry.players.all()] == ["Player 1"]
    assert sentence(entry) == "Player 1 registered a decklist (60 + 15 cards, legal)"


def test_the_same_list_twice_writes_nothing(owner: Any) -> None:
    t = event(owner)
    submit_decklist(player=first(t), text=LEGAL)
    count = len(decklist_entries(t))
    submit_decklist(player=first(t), text=LEGAL.replace("\n", "\r\n"))
    assert len(decklist_entries(t)) == count


def test_a_second_list_replaces_the_first(owner: Any) -> None:
    t = event(owner)
    submit_decklist(player=first(t), text=SHORT)
    row = submit_decklist(player=first(t), text=LEGAL)
    assert Decklist.objects.filter(player=first(t)).count() == 1
    assert row.legal
    assert sentence(decklist_entries(t)[-1]).startswith("Player 1 updated their decklist")


def test_an_event_without_decklists_refuses_a_list(owner: Any) -> None:
    t = event(owner, deck_format="")
    with pytest.raises(ServiceError, match=NO_DECKLISTS):
        submit_decklist(player=first(t), text=LEGAL)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "The list is empty"),
        ("   \n\n", "The list is empty"),
        ("Deck\nSideboard\n", "The list is empty"),
        ("this is not a list\nnor this\n", "No card could be read from this list: line 1"),
        ("1 Mountain\n" * 251, "more than 250 lines"),
        ("x" * (MAX_UPLOAD_BYTES + 1), "longer than 64 kB"),
    ],
)
def test_a_list_with_nothing_to_register_is_refused_saying_why(
    owner: Any, text: str, said: str
) -> None:
    t = event(owner)
    with pytest.raises(ServiceError, match=said):
        submit_decklist(player=first(t), text=text)
    assert not Decklist.objects.exists()


def test_a_dek_file_is_read_and_stored_as_text(owner: Any, cards: None) -> None:
    t = event(owner)
    text = read_upload(name="My Deck.DEK", data=DEK.encode())
    row = submit_decklist(player=first(t), text=text)
    assert row.main == [[4, "Lightning Bolt"], [56, "Mountain"]]
    assert row.side == [[2, "Fire // Ice"]]
    assert row.text.startswith("4 Lightning Bolt\n56 Mountain\n\nSideboard\n2 Fire // Ice")
    assert row.legal


def test_a_dek_file_that_cannot_be_read_is_refused_with_its_reason(owner: Any) -> None:
    t = event(owner)
    with pytest.raises(ServiceError, match=r"This \.dek file could not be used"):
        submit_decklist(player=first(t), text="<?xml version='1.0'?><Deck><Cards")
    bomb = '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaa">]><Deck>&a;</Deck>'
    with pytest.raises(ServiceError, match="DOCTYPE"):
        submit_decklist(player=first(t), text=bomb)


@pytest.mark.parametrize(
    ("name", "data", "said"),
    [
        ("deck.pdf", b"4 Lightning Bolt", "not a decklist file"),
        ("deck.txt", b"4 Mountain\n" * 8000, "at most 64 kB"),
        ("deck.txt", b"\x89PNG\r\n\x1a\n\x00\x00", "not a text file"),
        ("deck.txt", b"  \n", "is empty"),
    ],
)
def test_a_bad_file_is_refused_with_a_message(name: str, data: bytes, said: str) -> None:
    with pytest.raises(ServiceError, match=said):
        read_upload(name=name, data=data)


def test_a_text_file_in_windows_latin_1_is_read() -> None:
    text = read_upload(name="deck.txt", data="4 Jötun Grunt\r\n".encode("cp1252"))
    assert text == "4 Jötun Grunt\r\n"


# --- The lock ---------------------------------------------------------------------------


def test_without_a_deadline_lists_lock_when_round_1_is_paired(owner: Any) -> None:
    t = event(owner)
    submit_decklist(player=first(t), text=SHORT)
    assert not decklists_locked(Tournament.objects.get(pk=t.pk))
    services.pair_next_round(tournament=t)
    assert decklists_locked(Tournament.objects.get(pk=t.pk))
    with pytest.raises(ServiceError, match="locked") as refused:
        submit_decklist(player=first(t), text=LEGAL)
    assert str(refused.value) == LOCKED and "see a judge" in LOCKED
    assert Decklist.objects.get(player=first(t)).text == SHORT


def test_a_deadline_locks_the_lists_at_its_time_even_before_round_1(owner: Any) -> None:
    t = event(owner)
    soon = timezone.now() + timedelta(hours=1)
    set_decklist_rules(tournament=t, deck_format="modern", deadline=soon, by=owner)
    t.refresh_from_db()
    assert not decklists_locked(t)
    assert decklists_locked(t, now=soon)
    past = timezone.now() - timedelta(minutes=1)
    set_decklist_rules(tournament=t, deck_format="modern", deadline=past, by=owner)
    with pytest.raises(ServiceError, match="locked"):
        submit_decklist(player=first(t), text=LEGAL)


def test_a_deadline_after_round_1_lets_players_edit_after_the_pairing(owner: Any) -> None:
    t = event(owner)
    later = timezone.now() + timedelta(hours=2)
    set_decklist_rules(tournament=t, deck_format="modern", deadline=later, by=owner)
    services.pair_next_round(tournament=t)
    assert submit_decklist(player=first(t), text=LEGAL).legal


def test_a_judges_change_after_the_lock_is_audited_with_the_list_before_and_after(
    owner: Any, judge: Any
) -> None:
    t = event(owner)
    staffed(t, owner, judge)
    submit_decklist(player=first(t), text=LEGAL)
    services.pair_next_round(tournament=t)
    version = Tournament.objects.get(pk=t.pk).version
    changed = LEGAL.replace("2 Fire // Ice\n13 Mountain", "2 Fire // Ice\n12 Mountain\n1 Negate")
    row = submit_decklist(player=first(t), text=changed, by=judge)
    assert row.side[-1] == [1, "Negate"] and row.updated_by == judge
    assert Tournament.objects.get(pk=t.pk).version == version + 1
    entry = decklist_entries(t)[-1]
    assert entry.user == judge and entry.after["event"] == "changed"
    assert entry.before["side_list"] == [[2, "Fire // Ice"], [13, "Mountain"]]
    assert sentence(entry) == (
        "A judge changed Player 1's registered decklist: -1 Mountain (side), +1 Negate (side)"
        " (60 + 15 cards, legal)"
    )


def test_the_organizer_enters_a_list_for_a_player_before_the_lock(owner: Any) -> None:
    t = event(owner)
    row = submit_decklist(player=first(t), text=LEGAL, by=owner)
    assert row.updated_by == owner
    entry = decklist_entries(t)[-1]
    assert entry.after["event"] == "entered" and entry.before is None
    assert sentence(entry) == "Decklist entered for Player 1 (60 + 15 cards, legal)"


def test_someone_not_on_the_team_cannot_enter_a_list_for_a_player(
    owner: Any, django_user_model: Any
) -> None:
    t = event(owner)
    stranger = django_user_model.objects.create_user("stranger")
    with pytest.raises(ServiceError, match=NOT_STAFF):
        submit_decklist(player=first(t), text=LEGAL, by=stranger)
    assert not Decklist.objects.exists()


def test_every_role_of_the_floor_may_enter_a_list(owner: Any, django_user_model: Any) -> None:
    t = event(owner)
    players = list(t.players.order_by("pk"))
    for k, role in enumerate(StaffRole):
        user = staffed(t, owner, django_user_model.objects.create_user(role.value), role)
        assert submit_decklist(player=players[k], text=LEGAL, by=user).updated_by == user


def test_a_finished_event_takes_no_judges_change(owner: Any) -> None:
    t = event(owner, players=2)
    services.pair_next_round(tournament=t)
    match = Match.objects.get(round__tournament=t, kind=MatchKind.PLAYED)
    services.record_result(match=match, wins=[2, 0])
    services.finish(tournament=t)
    with pytest.raises(ServiceError, match=FINISHED):
        submit_decklist(player=first(t), text=LEGAL, by=owner)


def test_a_rejected_entry_registers_no_list(owner: Any) -> None:
    t = event(owner)
    player = first(t)
    Player.objects.filter(pk=player.pk).update(entry="rejected")
    with pytest.raises(ServiceError, match="not in this event"):
        submit_decklist(player=player, text=LEGAL)


# --- The rules ---------------------------------------------------------------------------


def test_changing_the_format_checks_every_list_again(owner: Any, cards: None) -> None:
    t = event(owner, deck_format="limited")
    row = submit_decklist(player=first(t), text="4 Lightning Bolt\n36 Mountain\n")
    assert row.legal
    set_decklist_rules(tournament=t, deck_format="modern", deadline=None, by=owner)
    row.refresh_from_db()
    assert row.problems == [MAIN_TOO_SMALL(count=40, least=60).data()]
    assert pages.english_problems(row.problems) == [
        "the main deck has 40 cards: at least 60 are needed"
    ]
    entry = decklist_entries(t)[-1]
    assert entry.after == {"event": "rules", "format": "modern", "deadline": None, "rechecked": 1}
    assert sentence(entry) == ("Decklists: Modern, until round 1 is paired (1 list checked again)")


def test_card_data_loaded_after_the_lists_is_used_when_the_rules_are_saved_again(
    owner: Any,
) -> None:
    t = event(owner)
    row = submit_decklist(player=first(t), text="4 Lightning Blot\n56 Mountain\n")
    assert row.legal and not row.names_checked
    load_cards(path=FIXTURE)
    set_decklist_rules(tournament=t, deck_format="modern", deadline=None, by=owner)
    row.refresh_from_db()
    assert row.names_checked and not row.legal


def test_the_same_rules_again_write_nothing(owner: Any) -> None:
    t = event(owner)
    count = len(decklist_entries(t))
    version = Tournament.objects.get(pk=t.pk).version
    set_decklist_rules(tournament=t, deck_format="modern", deadline=None, by=owner)
    assert len(decklist_entries(t)) == count
    assert Tournament.objects.get(pk=t.pk).version == version


def test_an_unknown_format_or_a_naive_deadline_is_refused(owner: Any) -> None:
    t = event(owner)
    with pytest.raises(ServiceError, match="'commander' is not a format"):
        set_decklist_rules(tournament=t, deck_format="commander", deadline=None, by=owner)
    naive = timezone.now().replace(tzinfo=None)
    with pytest.raises(ServiceError, match="time zone"):
        set_decklist_rules(tournament=t, deck_format="modern", deadline=naive, by=owner)


def test_a_deadline_is_read_and_shown_in_the_events_time_zone(owner: Any) -> None:
    t = services.create_tournament(name="Paris Open", owner=owner, seed=1, time_zone="Europe/Paris")
    deadline = pages.parse_deadline(t, "2026-05-02T10:00")
    assert deadline is not None and deadline.utcoffset() == timedelta(hours=2)
    set_decklist_rules(tournament=t, deck_format="modern", deadline=deadline, by=owner)
    t.refresh_from_db()
    assert pages.deadline_input(t) == "2026-05-02T10:00"
    assert pages.deadline_text(t) == "until Sat 2 May 2026, 10:00 (Europe/Paris)"
    paris = Context(tz=ZoneInfo("Europe/Paris"))
    assert (
        sentence(decklist_entries(t)[-1], paris) == "Decklists: Modern, deadline 2026-05-02 10:00"
    )
    with pytest.raises(ValueError):
        pages.parse_deadline(t, "tomorrow")


# --- Publishing ----------------------------------------------------------------------------


def played_swiss(owner: Any, *, players: int = 8) -> Tournament:
    t = event(owner, players=players)
    services.pair_next_round(tournament=t)
    for match in Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED):
        services.record_result(match=match, wins=[2, 0])
    return Tournament.objects.get(pk=t.pk)


def test_without_a_top_cut_the_first_8_of_the_standings_are_published(owner: Any) -> None:
    t = played_swiss(owner, players=10)
    chosen = decklist_top_cut(t)
    assert len(chosen) == 8
    positions = [p.standing.position for p in chosen]
    assert positions == sorted(positions) and positions[0] == 1


def test_with_a_top_cut_its_players_are_published(owner: Any) -> None:
    t = played_swiss(owner)
    services.start_top_cut(tournament=t, size=4)
    chosen = decklist_top_cut(Tournament.objects.get(pk=t.pk))
    seated = set(
        Player.objects.filter(seats__round__playoff=True, tournament=t).values_list("pk", flat=True)
    )
    assert len(chosen) == 4 and {p.pk for p in chosen} == seated


def test_publishing_moves_the_version_and_may_follow_the_finish(owner: Any) -> None:
    t = played_swiss(owner, players=2)
    for p in t.players.all():
        submit_decklist(player=p, text=LEGAL, by=owner)
    services.finish(tournament=t)
    version = Tournament.objects.get(pk=t.pk).version
    assert pages.published_ids(Tournament.objects.get(pk=t.pk)) == set()
    publish_decklists(tournament=t, published=True, by=owner)
    t = Tournament.objects.get(pk=t.pk)
    assert t.decklists_published and t.version == version + 1
    assert pages.published_ids(t) == {p.external_id for p in t.players.all()}
    assert sentence(decklist_entries(t)[-1]) == "The top cut's decklists published"
    publish_decklists(tournament=t, published=True, by=owner)  # again: nothing
    assert Tournament.objects.get(pk=t.pk).version == version + 1
    publish_decklists(tournament=t, published=False, by=owner)
    assert pages.published_ids(Tournament.objects.get(pk=t.pk)) == set()


def test_published_lists_are_locked_for_players(owner: Any) -> None:
    t = event(owner)
    later = timezone.now() + timedelta(days=1)
    set_decklist_rules(tournament=t, deck_format="modern", deadline=later, by=owner)
    publish_decklists(tournament=t, published=True, by=owner)
    with pytest.raises(ServiceError, match="locked"):
        submit_decklist(player=first(t), text=LEGAL)


def test_an_event_without_decklists_publishes_none(owner: Any) -> None:
    t = event(owner, deck_format="")
    with pytest.raises(ServiceError, match=NO_DECKLISTS):
        publish_decklists(tournament=t, published=True, by=owner)


# --- The exports and the deck check ------------------------------------------------------------


def test_the_exports_hold_every_list(owner: Any) -> None:
    t = event(owner)
    players = list(t.players.order_by("pk"))
    submit_decklist(player=players[0], text=LEGAL)
    submit_decklist(player=players[1], text=SHORT)
    with translation.override("de"):  # the export is English, whoever downloads it
        data = pages.export_json(t)
    assert [d["name"] for d in data["decklists"]] == ["Player 1", "Player 2"]
    assert data["decklists"][1]["legal"] is False
    assert data["decklists"][1]["problems"] == [
        "the main deck has 54 cards: at least 60 are needed"
    ]
    assert data["decklists"][0]["sideboard"][0] == {"count": 2, "name": "Fire // Ice"}
    text = pages.export_text(t)
    assert text.count("// Player") == 2 and "\nSideboard\n2 Fire // Ice" in text


def test_the_deck_check_groups_by_card_type_then_name(owner: Any, cards: None) -> None:
    t = event(owner)
    submit_decklist(player=first(t), text="56 Mountain\n4 Lightning Bolt\n\n2 Fire // Ice\n")
    from tournaments.services.cards import card_lookup

    view = pages.deck_check(first(t), card_lookup())
    assert [g["type"] for g in view["main"]] == ["Instant", "Land"]
    assert view["main"][0]["lines"][0].name == "Lightning Bolt"
    assert view["main_count"] == 60 and view["side_count"] == 2
