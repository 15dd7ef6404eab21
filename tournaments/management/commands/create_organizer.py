"""The first organizer on a production install, without a password on the command line
(where it would stay in the shell's history): the account is created with no usable
password and the command prints a one-time link with which its holder sets one."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from tournaments import services
from tournaments.services import ServiceError
from tournaments.services.staff import renew_account_link


def site_address() -> str:
    """Where the link will be opened: this site's first named host (https outside debug)."""
    if settings.DEBUG:
        return "http://127.0.0.1:8000"
    for host in settings.ALLOWED_HOSTS:
        if host and not host.startswith((".", "*")):
            return f"https://{host}"
    return ""


class Command(BaseCommand):
    help = (
        "Create an organizer account and print a one-time link to set its password "
        "(--new-link: a new link for an existing account without a password)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--admin",
            action="store_true",
            help="a site admin (superuser): every event and the Django admin",
        )
        parser.add_argument(
            "--new-link",
            action="store_true",
            help="an existing account that has not set its password: a new link "
            "(earlier ones stop working). Event owners renew only the staff accounts "
            "they created; every other account's link comes from here",
        )
        parser.add_argument(
            "--site",
            default=None,
            help="the site's address for the link, e.g. https://swiss.example.org "
            "(default: the first of ALLOWED_HOSTS)",
        )

    def handle(
        self,
        *args: Any,
        username: str,
        admin: bool,
        new_link: bool,
        site: str | None,
        **options: Any,
    ) -> None:
        if new_link and admin:
            raise CommandError("--new-link keeps the account as it is: leave out --admin.")
        try:
            if new_link:
                user = renew_account_link(username=username)
            else:
                user = services.create_account(username=username, superuser=admin)
        except ServiceError as exc:
            raise CommandError(str(exc)) from exc
        link = (site if site is not None else site_address()).rstrip("/")
        link += services.set_password_path(user)
        until = timezone.localtime(
            timezone.now() + timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT)
        )
        kind = "site admin" if admin or user.is_superuser else "organizer"
        if new_link:
            self.stdout.write(f"A new link for {user.get_username()!r}: earlier ones stop working.")
        else:
            self.stdout.write(f"Created the {kind} {user.get_username()!r}, with no password yet.")
        self.stdout.write(
            f"Open this link to set the password (it works once, until {until:%Y-%m-%d %H:%M %Z}):"
        )
        self.stdout.write(link)
