"""The laptop swap keeps the floor and the decklists (issues 27 and 28): a backup carries
each player's decklist (as submitted; checked again on restore) with the event's format,
deadline and publishing, and the tables' time extensions; bad values are named by place."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.utils import translation

from tournaments import services
from tournaments.decklists.messages import LINE, MAIN_TOO_SMALL, NO_COUNT
from tournaments.interchange import DocumentError, export_document, validate_document
from tournaments.models import Decklist, Match, TimeExtension, Tournament
from tournaments.pages.common import round_extensions
from tournaments.pages.decklists import shown_problems
from tournaments.services import decklists, floor
from tournaments.services.imports import restore_document

pytestmark = pytest.mark.django_db

LEGAL = "4 Lightning Bolt\n56 Mountain\n\nSideboard\n2 Duress\n"
SHORT = "4 Lightning Bolt\n20 Mountain\n"


@pytest.fixture
def event(owner: Any) -> Tournament:
    t = services.create_tournament(name="Swap Open", owner=owner, seed=9)
    services.register_players(tournament=t, names=[f"Player {i}" for i in range(1, 7)])
    # A day ahead of the clock, whenever the suite runs: the lists are still open.
    deadline = (datetime.now(UTC) + timedelta(days=1)).replace(second=0, microsecond=0)
    decklists.set_decklist_rules(tournament=t, deck_format="modern", deadline=deadline, by=owner)
    first, second, *_ = t.players.order_by("id")
    decklists.submit_decklist(player=first, text=LEGAL)
    decklists.submit_decklist(player=second, text=SHORT, by=owner)
    services.pair_next_round(tournament=t, by=owner)
    table_1, table_2 = Match.objects.filter(round__tournament=t).order_by("table")[:2]
    floor.add_extension(tournament=t, match=table_1, minutes=5, note="ruling", by=owner)
    check = floor.start_deck_check(tournament=t, match=table_2, by=owner)
    floor.finish_deck_check(check=check, by=owner)
    return Tournament.objects.get(pk=t.pk)


def test_a_restore_keeps_the_decklists_and_the_tables_time(event: Tournament, owner: Any) -> None:
    backup = export_document(event, backup=True)
    assert "decklists" not in export_document(event)  # the plain document is public
    validate_document(backup)
    restored = restore_document(copy.deepcopy(backup), owner=owner).tournament
    assert (restored.deck_format, restored.decklist_deadline, restored.decklists_published) == (
        "modern", event.decklist_deadline, False,
    )  # fmt: skip
    before = {
        d.player.external_id: (d.text, d.main, d.side, d.problems, d.legal, d.submitted_at)
        for d in Decklist.objects.filter(player__tournament=event).select_related("player")
    }
    after = {
        d.player.external_id: (d.text, d.main, d.side, d.problems, d.legal, d.submitted_at)
        for d in Decklist.objects.filter(player__tournament=restored).select_related("player")
    }
    assert after == before and len(after) == 2
    assert [legal for *_, legal, _at in after.values()].count(False) == 1  # the short one
    # The problems are data, as stored, and the restored event's backup is the same.
    short = next(problems for _t, _m, _s, problems, legal, _at in after.values() if not legal)
    assert short == [MAIN_TOO_SMALL(count=24, least=60).data()]
    again = export_document(restored, backup=True)["event"]
    assert again["decklists"] == backup["event"]["decklists"]

    def minutes(t: Tournament) -> dict[int, int]:
        round_ = t.rounds.get(number=1)
        tables = dict(Match.objects.filter(round=round_).values_list("pk", "table"))
        return {tables[pk]: n for pk, n in round_extensions(round_.pk).items()}

    assert minutes(restored) == minutes(event)
    assert minutes(restored)[1] == 5 and minutes(restored)[2] >= 1
    assert TimeExtension.objects.filter(match__round__tournament=restored).count() == 2


def test_a_backups_list_nothing_can_be_read_from_is_restored_with_why_as_data(
    event: Tournament, owner: Any
) -> None:
    backup = export_document(event, backup=True)
    ext = next(iter(backup["event"]["decklists"]))
    backup["event"]["decklists"][ext]["text"] = "Bolt is banned in Modern\n"
    restored = restore_document(backup, owner=owner).tournament
    row = Decklist.objects.get(player__tournament=restored, player__external_id=ext)
    assert (row.main, row.side, row.legal) == ([], [], False)
    assert row.problems == [LINE(line=1, problem=NO_COUNT(text="'Bolt is banned in Modern'",
                                                          name="Bolt is banned in Modern")).data()]  # fmt: skip
    with translation.override("de"):
        assert shown_problems(row.problems) == [
            "Zeile 1: 'Bolt is banned in Modern' hat keine Anzahl: "
            "schreibe „1 Bolt is banned in Modern“"
        ]


@pytest.mark.parametrize(
    ("key", "value", "named"),
    [
        ("deck_format", "chess", "event.deck_format"),
        ("decklist_deadline", "tomorrow", "event.decklist_deadline"),
        ("decklists", {"nobody": {"text": "x"}}, "event.decklists.nobody"),
        ("extensions", [{"round": 1, "table": 1, "minutes": 0}], "event.extensions[0].minutes"),
    ],
)
def test_bad_floor_values_in_a_backup_are_named_by_their_place(
    event: Tournament, key: str, value: Any, named: str
) -> None:
    backup = export_document(event, backup=True)
    backup["event"][key] = value
    with pytest.raises(DocumentError) as refused:
        validate_document(backup)
    assert any(problem.startswith(named) for problem in refused.value.problems)
