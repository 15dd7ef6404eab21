from __future__ import annotations

import signal
import threading
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from tournaments import webpush


class Command(BaseCommand):
    help = (
        "Send the waiting Web Push notifications (the outbox), with retries; loops until"
        " stopped (Ctrl-C, SIGTERM). --once: one pass, then print what it did."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--once", action="store_true", help="one pass over the outbox")

    def handle(self, *args: Any, once: bool = False, **options: Any) -> None:
        webpush.check_configuration()  # a bad key stops the command here, in one line
        if once:
            done = webpush.send_due()
            self.stdout.write(
                f"sent {done.sent}, to retry {done.retried}, dead subscriptions {done.dead},"
                f" given up {done.failed}, expired {done.expired}"
            )
            return
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        self.stdout.write("sending Web Push notifications (Ctrl-C stops)")
        webpush.run(stop)
