"""Import plus stored standings reproduce what melee.gg published for real events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.services import standings_document
from tests.conftest import REAL_EVENTS
from tournaments.interchange import parse_document
from tournaments.services import import_document

TOLERANCE = 1e-7  # the published values carry 7 decimals


def test_the_real_events_are_all_there() -> None:
    assert len(REAL_EVENTS) >= 10, "../shared/data/real must hold the real events"


@pytest.mark.django_db
@pytest.mark.parametrize("path", REAL_EVENTS, ids=lambda p: p.stem)
def test_imported_real_event_standings_match_what_melee_published(path: Path) -> None:
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text("utf-8"))
    doc = parse_document(path.read_bytes())
    assert doc["system"] == "melee"
    tournament = import_document(doc)
    ours = {row["id"]: row for row in standings_document(tournament)["standings"]}
    assert len(ours) == len(expected["standings"])
    wrong = []
    for want in expected["standings"]:
        got = ours[want["id"]]
        if got["points"] != want["points"]:
            wrong.append(f"{want['id']} points {got['points']} != {want['points']}")
        for key in ("omw", "gw", "ogw"):
            if abs(got["tiebreakers"][key] - want[key]) > TOLERANCE:
                wrong.append(f"{want['id']} {key} {got['tiebreakers'][key]} != {want[key]}")
    assert not wrong, f"{len(wrong)} values differ, first: {wrong[:5]}"
