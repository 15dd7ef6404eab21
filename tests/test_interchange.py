"""Import, export and the validator that names the place of every problem."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from scoring.models import Standing
from tests.conftest import REAL_EVENTS
from tournaments.interchange import (
    DocumentError,
    export_document,
    parse_document,
    validate_document,
)
from tournaments.models import Match, Player, Seat, Tournament
from tournaments.services import import_document

pytestmark = pytest.mark.django_db


def normalised(doc: dict[str, Any]) -> dict[str, Any]:
    """Fill the spec's defaults so that documents compare up to defaults and key order."""
    out = copy.deepcopy(doc)
    out.setdefault("best_of", 1 if out["system"] == "pod" else 3)
    out.pop("seed", None)
    for rnd in out.get("rounds", []):
        rnd.setdefault("phase", 1)
        if not rnd.get("playoff"):
            rnd.pop("playoff", None)
        for m in rnd["matches"]:
            if "wins" in m:
                m.setdefault("draws", 0)
            if m.get("absent") == []:
                m.pop("absent")
    return out


@pytest.mark.parametrize("path", [*REAL_EVENTS[:4], Path("pod")], ids=lambda p: p.stem)
def test_export_of_an_import_gives_back_the_same_document(path: Path, pod7: dict) -> None:
    doc = pod7 if path.name == "pod" else json.loads(path.read_text("utf-8"))
    exported = export_document(import_document(copy.deepcopy(doc)))
    assert normalised(exported) == normalised(doc)


def test_round_trip_keeps_byes_losses_double_losses_drops_and_the_seed(small_doc: dict) -> None:
    exported = export_document(import_document(copy.deepcopy(small_doc)))
    assert exported["seed"] == 90210
    assert normalised(exported) == normalised(small_doc)


def test_league_round_trip_keeps_places_scores_absent_and_agreed_byes() -> None:
    doc = {
        "format": "swiss-tournament/1",
        "name": "Board league",
        "system": "league",
        "players": [{"id": f"q{i}", "name": f"Q {i}"} for i in range(1, 10)],
        "rounds": [
            {
                "number": 1,
                "phase": 1,
                "matches": [
                    {
                        "table": 1,
                        "players": ["q1", "q2", "q3", "q4"],
                        "places": [1, 2, 2, 4],
                        "scores": [140, 120, 120, 80.5],
                    },
                    {
                        "table": 2,
                        "players": ["q5", "q6", "q7"],
                        "places": [1, 2, 3],
                        "scores": [10, 5, 0],
                        "absent": ["q8"],
                    },
                    {"table": 3, "players": ["q9"], "bye": True},
                ],
            }
        ],
    }
    exported = export_document(import_document(copy.deepcopy(doc)))
    assert normalised(exported) == normalised(doc)


def test_a_round_in_progress_exports_matches_without_results() -> None:
    doc = {
        "format": "swiss-tournament/1",
        "name": "In progress",
        "system": "mtr",
        "players": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}],
        "rounds": [{"number": 1, "phase": 1, "matches": [{"table": 1, "players": ["a", "b"]}]}],
    }
    exported = export_document(import_document(copy.deepcopy(doc)))
    assert exported["rounds"][0]["matches"] == [{"table": 1, "players": ["a", "b"]}]
    assert Match.objects.get().reported is False


def problems_of(doc: Any) -> list[str]:
    with pytest.raises(DocumentError) as info:
        validate_document(doc)
    return info.value.problems


def broken(small_doc: dict, change: Any) -> dict:
    doc = copy.deepcopy(small_doc)
    change(doc)
    return doc


def test_text_that_is_not_json_is_refused_with_its_line_and_column() -> None:
    with pytest.raises(DocumentError) as info:
        parse_document(b'{"name": "x",\n  oops}')
    assert "not valid JSON" in str(info.value) and "line 2" in str(info.value)


def test_a_document_that_is_not_an_object_is_refused() -> None:
    assert problems_of([1, 2]) == ["document: expected an object, got a list"]


def test_an_unknown_player_is_named_by_its_place(small_doc: dict) -> None:
    doc = broken(small_doc, lambda d: d["rounds"][1]["matches"][2]["players"].__setitem__(1, "p9"))
    assert problems_of(doc) == ["rounds[1].matches[2].players[1]: unknown player 'p9'"]


def test_a_player_twice_in_a_round_is_refused(small_doc: dict) -> None:
    doc = broken(small_doc, lambda d: d["rounds"][0]["matches"][3]["players"].__setitem__(0, "p1"))
    assert problems_of(doc) == [
        "rounds[0].matches[3].players[0]: player 'p1' plays twice in this round"
    ]


def test_negative_game_counts_are_refused(small_doc: dict) -> None:
    def change(d: dict) -> None:
        d["rounds"][0]["matches"][0]["wins"] = [2, -1]
        d["rounds"][0]["matches"][1]["draws"] = -2

    assert problems_of(broken(small_doc, change)) == [
        "rounds[0].matches[0].wins[1]: must be at least 0, got -1",
        "rounds[0].matches[1].draws: must be at least 0, got -2",
    ]


def test_wrong_types_are_named(small_doc: dict) -> None:
    def change(d: dict) -> None:
        d["players"][0]["name"] = 7
        d["rounds"][0]["number"] = "one"
        d["rounds"][0]["matches"][0]["wins"] = "2-1"

    assert problems_of(broken(small_doc, change)) == [
        "players[0].name: expected a string, got an integer",
        "rounds[0].number: expected an integer, got a string",
        "rounds[0].matches[0].wins: expected a list of two game counts, got a string",
    ]


def test_an_unknown_system_is_refused(small_doc: dict) -> None:
    doc = broken(small_doc, lambda d: d.__setitem__("system", "elo"))
    assert problems_of(doc) == [
        "system: unknown system 'elo' (expected one of mtr, dci, melee, pod, league)"
    ]


def test_duplicate_player_ids_and_round_numbers_are_refused(small_doc: dict) -> None:
    def change(d: dict) -> None:
        d["players"][1]["id"] = "p1"
        d["rounds"][1]["number"] = 1

    problems = problems_of(broken(small_doc, change))
    assert "players[1].id: duplicate player id 'p1'" in problems
    assert "rounds[1].number: round 1 appears twice" in problems


def test_places_that_do_not_fit_the_table_are_refused() -> None:
    doc = {
        "format": "swiss-tournament/1",
        "name": "L",
        "system": "league",
        "players": [{"id": f"q{i}", "name": f"Q{i}"} for i in range(4)],
        "rounds": [
            {
                "number": 1,
                "matches": [
                    {
                        "players": ["q0", "q1", "q2", "q3"],
                        "places": [1, 3, 3, 5],
                        "scores": [1, 2, 3, 4],
                    },
                ],
            }
        ],
    }
    problems = problems_of(doc)
    assert problems == ["rounds[0].matches[0].places[3]: must be at most 4, got 5"]
    doc["rounds"][0]["matches"][0]["places"] = [1, 3, 3, 4]
    assert problems_of(doc) == [
        "rounds[0].matches[0].places[1]: place 3 does not fit the table's places [1, 3, 3, 4]"
    ]


def test_a_bye_with_two_players_is_refused(small_doc: dict) -> None:
    doc = broken(small_doc, lambda d: d["rounds"][0]["matches"][3]["players"].append("p6"))
    assert "rounds[0].matches[3].players: a bye has exactly one player, got 2" in problems_of(doc)


def test_a_refused_import_writes_nothing(small_doc: dict) -> None:
    doc = broken(small_doc, lambda d: d["rounds"][1]["matches"][0]["players"].__setitem__(1, "zz"))
    with pytest.raises(DocumentError):
        import_document(doc)
    assert not Tournament.objects.exists()
    assert not Player.objects.exists() and not Seat.objects.exists()
    assert not Standing.objects.exists()


def test_impossible_best_of_three_results_from_real_events_import_as_recorded(
    small_doc: dict,
) -> None:
    def change(d: dict) -> None:
        d["rounds"][0]["matches"][0]["wins"] = [3, 0]
        d["rounds"][0]["matches"][1]["wins"] = [2, 1]
        d["rounds"][0]["matches"][1]["draws"] = 3

    tournament = import_document(broken(small_doc, change))
    exported = export_document(tournament)
    assert exported["rounds"][0]["matches"][0]["wins"] == [3, 0]
    assert exported["rounds"][0]["matches"][1] == {
        "table": 2,
        "players": ["p3", "p4"],
        "wins": [2, 1],
        "draws": 3,
    }
