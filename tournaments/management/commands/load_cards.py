from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.services.cards import load_cards
from tournaments.services.writing import ServiceError


class Command(BaseCommand):
    help = (
        "Load the card data decklists are checked against from Scryfall's bulk file of "
        "oracle cards (https://scryfall.com/docs/api/bulk-data, 'Oracle Cards'), replacing "
        "the cards loaded before."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "path", help="the Oracle Cards JSON file (oracle-cards-*.json, or gzipped)"
        )

    def handle(self, *args: Any, path: str, **options: Any) -> None:
        try:
            loaded = load_cards(path=path)
        except ServiceError as error:
            raise CommandError(f"{error}; the card data was left as it was") from None
        self.stdout.write(f"{loaded:,} cards loaded from {path}")
