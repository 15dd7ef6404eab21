"""`python manage.py venue` (`make venue`): serve the event to phones on the laptop's
network with the production stack: gunicorn, whitenoise, DEBUG off, a kept secret key,
ALLOWED_HOSTS exactly the addresses served, and the QR code encoding the laptop's address.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import gunicorn
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import get_commands
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from tournaments import venue
from tournaments.models import Status, Tournament

EVENTS_LISTED = 5


def _shown(path: str) -> str:
    """A path as the organizer would type it from the project's directory."""
    relative = os.path.relpath(path, settings.BASE_DIR)
    return path if relative.startswith("..") else relative


def serve(argv: list[str], env: dict[str, str]) -> None:
    """Become the server: Ctrl-C and signals then reach gunicorn itself."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(argv[0], argv, env)


class Command(BaseCommand):
    help = "Serve the events to phones on this laptop's network (production stack)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--address",
            help="the address phones use (default: this laptop's address on its network)",
        )
        parser.add_argument("--port", type=int, default=8000, help="default 8000")
        parser.add_argument(
            "--workers",
            type=int,
            default=min(4, max(2, os.cpu_count() or 1)),
            help="gunicorn worker processes (default: the CPU count, 2 to 4)",
        )

    def handle(
        self, *args: Any, address: str | None, port: int, workers: int, **options: Any
    ) -> None:
        address = self._address(address)
        if not 1 <= port <= 65535:
            raise CommandError(f"--port {port} is not a port number (1-65535)")
        if workers < 1:
            raise CommandError(f"--workers {workers}: at least one worker is needed")
        local_only = venue.is_loopback(address)
        if settings.DEBUG and not local_only:
            raise CommandError(
                "DEBUG is on: its error pages show settings and code to anyone on the"
                f" network, so the venue mode will not serve {address}. Run `make venue`"
                " (it sets DEBUG=0), or unset DEBUG."
            )
        self._check_ready()
        bind = venue.bind_host(address)
        if not venue.port_is_free(bind, port):
            raise CommandError(
                f"Port {port} is already in use (is `make run` or another server still"
                " running?): stop it, or use another port: --port 8001 (with make:"
                ' make venue VENUE_ARGS="--port 8001").'
            )
        self._announce(address, port, local_only)
        env = venue.server_environment(os.environ, address=address, port=port, debug=settings.DEBUG)
        argv = venue.gunicorn_argv(sys.executable, address=address, port=port, workers=workers)
        if gunicorn.version_info >= (27,):
            # Its control socket sits at one path per user: a second server (the tests,
            # a production copy) would take it over, and the venue needs no remote control.
            argv.append("--no-control-socket")
        serve(argv, env)

    def _address(self, given: str | None) -> str:
        if given:
            try:
                return venue.check_address(given)
            except venue.VenueError as exc:
                raise CommandError(f"--address: {exc}") from exc
        found = venue.lan_address()
        if found is None:
            raise CommandError(
                "This laptop has no network address: join the venue's Wi-Fi (or start a"
                " hotspot) and run this again, or pass --address 192.168.x.y."
            )
        return found

    def _check_ready(self) -> None:
        """What would otherwise surface as error pages on the phones."""
        executor = MigrationExecutor(connection)
        if executor.migration_plan(executor.loader.graph.leaf_nodes()):
            raise CommandError(
                "The database is not up to date: run `python manage.py migrate` (make venue does)."
            )
        manifest = settings.STATIC_ROOT / "staticfiles.json"
        if not settings.DEBUG and not manifest.is_file():
            raise CommandError(
                f"No collected static files ({manifest} is missing): run `DEBUG=0 VENUE=1"
                " python manage.py collectstatic --noinput` (make venue does)."
            )

    def _announce(self, address: str, port: int, local_only: bool) -> None:
        phones = venue.public_url(address, port)
        laptop = venue.public_url("localhost", port)
        mode = "DEBUG on" if settings.DEBUG else "DEBUG off"
        where = "this laptop only" if local_only else "every network interface"
        out = self.stdout.write
        out(f"Venue mode: gunicorn on {where}, port {port} ({mode}).")
        out("")
        if local_only:
            # The server listens on the loopback only: an address printed for phones
            # would be one no phone can open.
            out(
                self.style.WARNING(
                    f"Phones: none: --address {address} serves this laptop only. For phones,"
                    " leave --address out (the Wi-Fi address is found) or give the"
                    " laptop's network address."
                )
            )
        else:
            out(self.style.SUCCESS(f"Phones: {phones}/"))
        events = list(Tournament.objects.exclude(status=Status.FINISHED)[:EVENTS_LISTED])
        for t in events:
            out(f"  {t.name}: {phones}{reverse('event_home', args=[t.slug])}")
        if events:
            share = reverse("manage_share", args=[events[0].slug])
            out(
                "QR code (it opens the address above): on the organizer's event screen, and"
                f" full size on its Share page, e.g. {laptop}{share}"
            )
        else:
            out("No event yet: log in and create one; its event screen shows the QR code.")
        out("")
        out(f"Organizer: log in on this laptop at {laptop}{reverse('login')}")
        users = get_user_model().objects
        if users.filter(username=venue.DEMO_USERNAME).exists():
            out(
                f"  the demo account {venue.DEMO_USERNAME} / {venue.DEMO_PASSWORD} works from"
                " this laptop only;"
            )
        if not users.exclude(username=venue.DEMO_USERNAME).exists():
            # In another terminal, where DEBUG is off too: VENUE=1 finds the kept key.
            manage = f"VENUE=1 {_shown(sys.executable)} manage.py"
            if "create_organizer" in get_commands():
                create = f"{manage} create_organizer NAME --admin --site {laptop}"
            else:
                create = f"{manage} createsuperuser"
            out(f"  an account of your own (usable from any device here): {create}")
        if not os.environ.get("SECRET_KEY"):
            out(f"Secret key: kept in {venue.secret_key_path(settings.STATE_DIR)}")
        out("Stop with Ctrl-C.")
        out("")
