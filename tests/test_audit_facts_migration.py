"""Migration 0018 (issue 36): the audit entries written before their facts were stored get
them once, from the frozen legacy reader (tournaments.audit_legacy); the screen then reads
only stored facts. Every sentence and filter below is what the screen answered for these
rows before the change, when it read the summaries itself on every view."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from tournaments import services
from tournaments.interchange import export_document
from tournaments.models import AuditAction, AuditEntry, Tournament
from tournaments.pages import audit

AT = datetime(2025, 6, 14, 12, 3, tzinfo=UTC)  # 14:03 in Madrid
PLAYERS = [("p1", "Ana Lopez"), ("p2", "Ben Ito"), ("p3", "Cleo Park"), ("p4", "Dev Rao")]
RESULT = {"reported": True, "kind": "played", "wins": [2, 0], "draws": 0}
# (action, summary, before, after) as the services of their day wrote them.
OLD: list[tuple[str, str, Any, Any]] = [
    (AuditAction.REGISTER, "Added 2 player(s): Ana Lopez, Ben Ito", None,
     ["Ana Lopez", "Ben Ito"]),
    (AuditAction.REGISTER, "Added 2 player(s) (late entry): Dev Rao, Cleo Park by owner", None,
     ["Dev Rao", "Cleo Park"]),
    (AuditAction.REGISTER, "Cleo Park registered (pending approval)", None,
     {"player": "p3", "entry": "pending"}),
    (AuditAction.ENTRY, "Cleo Park accepted by owner", None, {"player": "p3", "entry": "accepted"}),
    (AuditAction.LINK, "Private link for Dev Rao by owner", None,
     {"player": "p4", "replaced": False}),
    (AuditAction.CHECK_IN, "Cleo Park checked in by owner", None, {"player": "p3"}),
    (AuditAction.STAFF, "Added dora", None, "dora"),
    (AuditAction.STAFF, "Staff account created: erin", None, "erin"),
    (AuditAction.STAFF, "New set-password link for dora", None, "dora"),
    (AuditAction.PAIR, "Paired round 1", None, {"round": 1, "matches": 2}),
    (AuditAction.CLOCK, "Round 1: clock started, 50 minutes", None, None),
    (AuditAction.CLOCK, "Round 1: clock paused", None, None),
    (AuditAction.CLOCK, "Round 1: clock resumed", None, None),
    (AuditAction.CLOCK, "Round 1: +5 minutes", None, None),
    (AuditAction.CLOCK, "Round 1: -3 minutes", None, None),
    (AuditAction.RESULT, "Entered round 1 table 1 (Ana Lopez vs Ben Ito): 2-0",
     {**RESULT, "reported": False}, RESULT),
    (AuditAction.RESULT, "Corrected round 1 table 2 (Cleo Park vs Dev Rao): 0-2",
     {**RESULT, "wins": [2, 1]}, {**RESULT, "wins": [0, 2]}),
    (AuditAction.DROP, "Ben Ito dropped after round 1", None, {"dropped_after_round": 1}),
    (AuditAction.DROP, "Dev Rao dropped after round 1 (own request)", None,
     {"dropped_after_round": 1}),
    (AuditAction.READMIT, "Ben Ito re-admitted", {"dropped_after_round": 1}, None),
    (AuditAction.GAME, "Round 2 table 1: places and scores entered",
     {"reported": False, "places": {}},
     {"reported": True, "places": {"p1": 1, "p2": 2}, "scores": {"p1": "41.5000"},
      "absent": ["p3"]}),
    (AuditAction.CUT, "Cut to phase 2 (top 2): 2 players advance", None,
     {"phase": 2, "players": ["p1", "p2"]}),
    (AuditAction.CUT, "Cut to phase 3 (5 points or more): 1 players advance", None,
     {"phase": 3, "players": ["p1"]}),
    (AuditAction.TOP_CUT, "Started the top 2", None, {"round": 5, "seeds": ["p1", "p2"]}),
    (AuditAction.PAIR, "Paired round 5 (top cut)", None, {"round": 5, "matches": 1}),
    (AuditAction.TOP_CUT, "Kept the top 2 as seeded after a correction to round 4 "
     "(table 2): Ben Ito (seed 2) would now be 3rd: out of the cut", None,
     {"cut_decision": "keep", "correction": {"round": 4, "table": 2}, "seeds": ["p1", "p2"]}),
    (AuditAction.IMPORT, "Imported 4 players and 2 rounds", None, None),
    (AuditAction.IMPORT, "Imported 7 players and 3 rounds (restored from a backup)", None,
     None),
]  # fmt: skip

# What the screen said of OLD before the change (oldest first, all at 14:03).
SENTENCES = [
    "2 players registered: Ana Lopez and Ben Ito at 14:03",
    "2 players registered as late entries: Dev Rao and Cleo Park at 14:03",
    "Cleo Park registered (pending approval) at 14:03",
    "Cleo Park's entry accepted at 14:03",
    "Private link for Dev Rao at 14:03",
    "Cleo Park checked in at 14:03",
    "dora added to the staff at 14:03",
    "Staff account erin created at 14:03",
    "New set-password link made for dora at 14:03",
    "Round 1 paired (2 tables) at 14:03",
    "Clock of round 1 started (50 minutes) at 14:03",
    "Clock of round 1 paused at 14:03",
    "Clock of round 1 resumed at 14:03",
    "5 minutes added to the clock of round 1 at 14:03",
    "3 minutes taken off the clock of round 1 at 14:03",
    "Table 1, round 1 (Ana Lopez vs Ben Ito): 2-0 entered at 14:03",
    "Table 2, round 1 (Cleo Park vs Dev Rao): 2-1 changed to 0-2 at 14:03",
    "Ben Ito dropped after round 1 at 14:03",
    "Dev Rao dropped after round 1 (own request) at 14:03",
    "Ben Ito re-admitted (had dropped after round 1) at 14:03",
    "Table 1, round 2: places entered: Ana Lopez 1st (41.5), Ben Ito 2nd, Cleo Park absent "
    "at 14:03",
    "Cut to phase 2 (top 2): 2 players advance: Ana Lopez and Ben Ito at 14:03",
    "Cut to phase 3 (5 points or more): 1 player advance: Ana Lopez at 14:03",
    "Top cut of 2 started (round 5; seeds: 1 Ana Lopez, 2 Ben Ito) at 14:03",
    "Final (round 5) paired (1 table) at 14:03",
    "Top cut of 2 kept as seeded after a correction to round 4 (table 2): Ben Ito (seed 2) "
    "would now be 3rd: out of the cut (seeds: 1 Ana Lopez, 2 Ben Ito) at 14:03",
    "Imported from a file (4 players, 2 rounds) at 14:03",
    "Restored from a backup (7 players, 3 rounds) at 14:03",
]

# Which of them each filter found then (a player picked by id is keyed by their ext).
FILTERS = {
    '{"round": 1}': [9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
    '{"round": 2}': [20],
    '{"round": 4}': [25],
    '{"round": 5}': [23, 24],
    "p1": [0, 15, 20, 21, 22, 23, 25],
    "p2": [0, 15, 17, 19, 20, 21, 23, 25],
    "p3": [1, 2, 3, 5, 16, 20],
    "p4": [1, 4, 16, 18],
    '{"player": "cleo"}': [1, 2, 3, 5, 16, 20],
    '{"player": "lopez"}': [0, 15, 20, 21, 22, 23, 25],
}


def screen(t: Tournament, **filters: Any) -> list[str]:
    AuditEntry.objects.filter(tournament=t).update(at=AT)
    return [e["text"] for e in reversed(audit.audit_log(t, **filters)["entries"])]


def answers(t: Tournament) -> dict[str, list[int]]:
    """Which of OLD (by index) each filter finds."""
    found: dict[str, list[int]] = {}
    queries: list[dict[str, Any]] = [{"round": n} for n in (1, 2, 4, 5)]
    queries += [{"player": text} for text in ("cleo", "lopez")]
    named = {str(p.pk): p.external_id for p in t.players.all()}
    queries += [{"player": pk} for pk in sorted(named)]
    for q in queries:
        said = screen(t, **q)
        key = named.get(q.get("player", ""), json.dumps(q))  # a player by id: by ext
        found[key] = [k for k, s in enumerate(SENTENCES) if s in said]
    return found


@pytest.fixture(autouse=True)
def _madrid(settings: Any) -> None:
    settings.TIME_ZONE = "Europe/Madrid"


@pytest.mark.django_db(transaction=True)
def test_older_entries_read_the_same_sentences_and_filters_once_their_facts_are_stored(
    migrate: Callable[[str], Any],
) -> None:
    # Written before 0007: a summary and the JSON of their day, nothing beside.
    apps = migrate("0007_audit_facts")
    old_tournament = apps.get_model("tournaments", "Tournament")
    old_player = apps.get_model("tournaments", "Player")
    old_entry = apps.get_model("tournaments", "AuditEntry")
    made = old_tournament.objects.create(name="Old", slug="old", seed=1)
    for ext, name in PLAYERS:
        old_player.objects.create(tournament=made, name=name, external_id=ext)
    for action, summary, before, after in OLD:
        old_entry.objects.create(
            tournament=made, action=action, summary=summary, before=before, after=after
        )
    migrate("0017_decklist_problems_as_data")
    migrate("0018_audit_facts_from_summaries")
    t = Tournament.objects.get(slug="old")
    assert screen(t) == SENTENCES
    assert answers(t) == FILTERS
    # The facts are stored, not read on each view: the rows say them themselves.
    drop = AuditEntry.objects.get(tournament=t, summary__endswith="(own request)")
    assert (drop.round, drop.after) == (1, {"dropped_after_round": 1, "by_player": True})
    assert list(drop.players.values_list("name", "external_id")) == [("Dev Rao", None)]


@pytest.mark.django_db
def test_a_backup_of_an_older_version_is_restored_with_its_entries_facts(
    small_doc: dict[str, Any], django_user_model: Any
) -> None:
    """An older version's backup holds its entries as that version wrote them: a summary
    and the JSON of their day, no round, table or players. The restore reads their facts
    once, as the migration does, and stores them."""
    owner = django_user_model.objects.create_user("owner")
    doc = copy.deepcopy(small_doc)
    for player, (_ext, name) in zip(doc["players"], PLAYERS, strict=False):
        player["name"] = name
    original = services.import_document(doc, owner=owner)
    backup = json.loads(json.dumps(export_document(original, backup=True)))
    backup["event"]["audit"] = [
        {"at": AT.isoformat(), "user": None, "action": action, "summary": summary,
         "before": before, "after": after}
        for action, summary, before, after in OLD
    ]  # fmt: skip
    restored = services.import_document(backup, owner=owner)
    assert [s for s in screen(restored) if s in SENTENCES] == SENTENCES
    found = answers(restored)
    assert {k: found[k] for k in FILTERS} == FILTERS
    result = AuditEntry.objects.get(tournament=restored, summary__startswith="Corrected")
    assert (result.round, result.table) == (1, 2)
    assert [p.name for p in result.players.order_by("id")] == ["Cleo Park", "Dev Rao"]
    clock = AuditEntry.objects.get(tournament=restored, summary="Round 1: +5 minutes")
    assert (clock.round, clock.after) == (1, {"event": "moved", "minutes": 5})


def test_an_entry_still_without_its_facts_shows_its_summary_as_written() -> None:
    # Nothing could be read from it (or it was never migrated): the screen does not read
    # the summary back, it shows it.
    for action, summary, before, after in OLD:
        said = audit.describe(audit.Record(action, summary, before, after))
        if said.fallback:
            assert str(said) == summary
    clock = audit.describe(audit.Record(AuditAction.CLOCK, "Round 1: +5 minutes"))
    assert (str(clock), clock.fallback) == ("Round 1: +5 minutes", True)
