"""The spec's command line: import_tournament, export_tournament, standings."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.conftest import SHARED
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_import_prints_the_slug_as_its_last_line_and_export_gives_the_document_back() -> None:
    path = SHARED / "data" / "real" / "melee-418338.json"
    slug = run("import_tournament", str(path)).strip().splitlines()[-1]
    assert Tournament.objects.get(slug=slug).name == "Pauperino Gambozino"
    exported = json.loads(run("export_tournament", slug))
    original = json.loads(path.read_text("utf-8"))
    assert [p["id"] for p in exported["players"]] == [p["id"] for p in original["players"]]
    assert exported["rounds"][3]["matches"] == original["rounds"][3]["matches"]


def test_standings_json_follows_the_spec(pod7: dict, tmp_path: Path) -> None:
    path = tmp_path / "pod.json"
    path.write_text(json.dumps(pod7))
    slug = run("import_tournament", str(path)).strip().splitlines()[-1]
    doc = json.loads(run("standings", slug, "--format", "json"))
    assert doc["tournament"] == slug and doc["system"] == "pod" and doc["after_round"] == 7
    names = [r["name"].split()[0] for r in doc["standings"]]
    assert names == ["Scott", "Tino", "Andy", "Derek", "Bernie", "Jorge", "Mariano"]
    andy = doc["standings"][2]
    assert andy["tiebreakers"]["wr"] == 12 and andy["tiebreakers"]["owp"] is None
    assert (andy["wins"], andy["losses"], andy["draws"], andy["points"]) == (4, 3, 0, 12)


def test_standings_csv_and_text_list_every_player() -> None:
    slug = run("import_tournament", str(SHARED / "data/real/melee-418338.json")).split()[-1]
    rows = list(csv.DictReader(io.StringIO(run("standings", slug, "--format", "csv"))))
    assert [r["name"] for r in rows][:2] == ["JustAGhost", "Edgar Fernandes"]
    assert rows[0]["omw"] == "0.4791666667"
    text = run("standings", slug, "--format", "text")
    assert "after round 4" in text and "47.92%" in text and "MiguelPais" in text


def test_a_bad_document_exits_non_zero_naming_the_place_and_writes_nothing(
    tmp_path: Path,
) -> None:
    doc = json.loads((SHARED / "data/real/melee-418338.json").read_text("utf-8"))
    doc["rounds"][2]["matches"][1]["players"][1] = "p9"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(
        CommandError, match=r"rounds\[2\]\.matches\[1\]\.players\[1\]: unknown player 'p9'"
    ):
        run("import_tournament", str(path))
    assert not Tournament.objects.exists()


def test_a_file_that_is_not_json_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("name,points\nAna,3\n")
    with pytest.raises(CommandError, match="not valid JSON"):
        run("import_tournament", str(path))


def test_an_unknown_slug_is_a_clear_error() -> None:
    with pytest.raises(CommandError, match="no tournament with slug 'nope'"):
        run("standings", "nope")


def test_import_exits_non_zero_from_the_real_command_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.conftest import PROJECT_ROOT

    path = tmp_path / "bad.json"
    path.write_text('{"format": "swiss-tournament/1", "name": "x", "system": "elo", "players": []}')
    result = subprocess.run(
        [sys.executable, "manage.py", "import_tournament", str(path)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        env={
            **__import__("os").environ,
            "DEBUG": "1",
            "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3",
        },
    )
    assert result.returncode != 0
    assert "system: unknown system 'elo'" in result.stderr
