from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tournaments.interchange import DocumentError, parse_document
from tournaments.services.imports import restore_document


class Command(BaseCommand):
    help = (
        "Create a tournament from a swiss-tournament/1 document (or restore a backup: its "
        "owner and staff by username, if their accounts exist); prints its slug last."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="the JSON document ('-' reads standard input)")

    def handle(self, *args: Any, path: str, **options: Any) -> None:
        try:
            if path == "-":
                import sys

                text = sys.stdin.buffer.read()
            else:
                text = Path(path).read_bytes()
        except OSError as exc:
            raise CommandError(f"{path}: cannot read: {exc.strerror}") from exc
        try:
            done = restore_document(parse_document(text))
        except DocumentError as exc:
            raise CommandError(f"{path}: refused, nothing was written:\n{exc}") from exc
        # A backup's staff without an account here, links another event holds ...: on
        # standard error, so that the slug stays the last line of the output.
        for note in done.notes:
            self.stderr.write(f"Note: {note}")
        self.stdout.write(done.tournament.slug)
