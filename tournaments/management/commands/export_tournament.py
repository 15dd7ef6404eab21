from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from tournaments.interchange import export_document
from tournaments.management.commands._lookup import tournament_or_error


class Command(BaseCommand):
    help = "Print a tournament as a swiss-tournament/1 document."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument(
            "--backup",
            action="store_true",
            help=(
                "the whole event, to go on elsewhere: status, plan, cut, clocks, "
                "registration, entries, contacts, check-ins, private links (hashed), "
                "players' reports, owner and staff (usernames) and the audit trail"
            ),
        )

    def handle(self, *args: Any, slug: str, backup: bool = False, **options: Any) -> None:
        doc = export_document(tournament_or_error(slug), backup=backup)
        self.stdout.write(json.dumps(doc, ensure_ascii=False, indent=1))
