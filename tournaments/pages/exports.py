"""Downloads: the standings and a round's pairings as CSV, escaped for spreadsheets.

The command line (`manage.py standings SLUG --format csv`) and the browser's download
(`/t/<slug>/standings.csv`) write the same bytes from here.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from scoring.services import standings_document
from tournaments.models import MatchKind, Round, Tournament
from tournaments.pages.public import pairing_rows, round_tables
from tournaments.rules import csv_cell


def _csv(header: list[str], rows: list[list[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([csv_cell(c) for c in row] for row in rows)
    return out.getvalue()


def standings_csv(t: Tournament) -> str:
    rows = standings_document(t)["standings"]
    keys = list(rows[0]["tiebreakers"]) if rows else []
    header = ["rank", "id", "name", "points", "wins", "losses", "draws", *keys]

    def cells(row: dict[str, Any]) -> list[Any]:
        tbs = [row["tiebreakers"][k] for k in keys]
        return [row[h] for h in header[:7]] + [
            " ".join(map(str, v)) if isinstance(v, list) else ("" if v is None else v) for v in tbs
        ]

    return _csv(header, [cells(r) for r in rows])


def pairings_csv(t: Tournament, round_: Round) -> str:
    """One line per player, alphabetical: table, opponent(s), result so far."""
    rows = []
    for r in pairing_rows(round_tables(round_)):
        opponent = r["opponents"]
        if r["kind"] == MatchKind.BYE:
            opponent = "(bye)"
        elif r["kind"] == MatchKind.LOSS:
            opponent = "(no opponent)"
        rows.append([round_.number, r["table"] or "", r["id"], r["name"], opponent, r["result"]])
    return _csv(["round", "table", "id", "name", "opponent", "result"], rows)
