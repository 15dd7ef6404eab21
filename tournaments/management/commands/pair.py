from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments import services
from tournaments.management.commands._lookup import tournament_or_error
from tournaments.models import MatchKind


class Command(BaseCommand):
    help = "Pair the next round (every result of the current round must be in); print it as JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")

    def handle(self, *args: Any, slug: str, **options: Any) -> None:
        tournament = tournament_or_error(slug)
        try:
            round_ = services.pair_next_round(tournament=tournament)
        except services.ServiceError as exc:
            raise CommandError(str(exc)) from None
        matches = []
        for match in round_.matches.order_by("table", "id").prefetch_related("seats__player"):
            players = [
                s.player.external_id for s in sorted(match.seats.all(), key=lambda s: s.position)
            ]
            entry: dict[str, Any] = {"table": match.table, "players": players}
            if match.kind == MatchKind.BYE:
                entry["bye"] = True
            elif match.kind == MatchKind.LOSS:
                entry["loss"] = True
            matches.append(entry)
        self.stdout.write(
            json.dumps({"round": round_.number, "matches": matches}, ensure_ascii=False)
        )
