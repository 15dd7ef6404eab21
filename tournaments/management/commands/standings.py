from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from tournaments.management.commands._lookup import tournament_or_error
from tournaments.pages.exports import standings_csv, standings_json


def percent(value: Any) -> str:
    return "" if value is None else f"{value * 100:.2f}%"


class Command(BaseCommand):
    help = "Print the stored standings after the last round with results."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--format", choices=["json", "csv", "text"], default="text")

    def handle(self, *args: Any, slug: str, format: str, **options: Any) -> None:
        tournament = tournament_or_error(slug)
        # The same object as /t/<slug>/standings.json serves.
        doc = standings_json(tournament)
        if format == "json":
            self.stdout.write(json.dumps(doc, ensure_ascii=False, indent=1))
            return
        if format == "csv":
            self.stdout.write(standings_csv(tournament), ending="")
            return
        rows = doc["standings"]
        keys = list(rows[0]["tiebreakers"]) if rows else []
        after = doc["after_round"]
        self.stdout.write(f"{doc['tournament']} ({doc['system']}) after round {after or 0}")
        width = max((len(r["name"]) for r in rows), default=4)
        self.stdout.write(
            f"{'#':>4}  {'Name':<{width}}  {'Pts':>5}  {'W-L-D':<8}  "
            + "  ".join(f"{k.upper():>8}" for k in keys)
        )
        for r in rows:
            record = f"{r['wins']}-{r['losses']}-{r['draws']}"
            tbs = [
                " ".join(map(str, v))
                if isinstance(v, list)
                else (
                    "-"
                    if v is None
                    else (
                        percent(v)
                        if k not in ("wr", "wrr", "vs_average", "raw_total")
                        else f"{v:g}"
                    )
                )
                for k, v in r["tiebreakers"].items()
            ]
            self.stdout.write(
                f"{r['rank']:>4}  {r['name']:<{width}}  {r['points']:>5}  {record:<8}  "
                + "  ".join(f"{t:>8}" for t in tbs)
            )
