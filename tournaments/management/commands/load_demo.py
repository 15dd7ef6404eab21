"""A demo tournament to look at after `make run`: 16 players, three rounds played, the
fourth in progress, and an organizer account (debug mode only)."""

from __future__ import annotations

import random
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from tournaments import services
from tournaments.models import Match, MatchKind, Tournament
from tournaments.venue import DEMO_PASSWORD, DEMO_USERNAME

DEMO_NAME = "Demo Friday Night Magic"
DEMO_PLAYERS = [
    "Ana Souza", "Ben Ito", "Cleo Park", "Dev Rao", "Eva Lund", "Finn Moe", "Gil Ray",
    "Hana Ng", "Ivo Kral", "Jade Wu", "Kofi Mensah", "Lea Roth", "Mika Sato", "Nils Berg",
    "Omar Haddad", "Pia Costa",
]  # fmt: skip
RESULTS = [((2, 0), 0), ((2, 1), 0), ((1, 2), 0), ((0, 2), 0), ((1, 1), 1)]


class Command(BaseCommand):
    help = "Create the demo tournament (and, in debug mode, the 'organizer' login)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--force", action="store_true", help="create another copy")

    def handle(self, *args: Any, force: bool, **options: Any) -> None:
        owner = None
        if settings.DEBUG:
            owner, created = get_user_model().objects.get_or_create(
                username=DEMO_USERNAME, defaults={"is_staff": True, "is_superuser": True}
            )
            if created:
                owner.set_password(DEMO_PASSWORD)
                owner.save()
            self.stdout.write(
                f"Log in as {DEMO_USERNAME} / {DEMO_PASSWORD} (debug mode only; from this"
                " machine only)."
            )
        elif force is False:
            raise CommandError("load_demo is for development (DEBUG=1); use --force to insist.")
        existing = Tournament.objects.filter(name=DEMO_NAME).first()
        if existing and not force:
            self.stdout.write(f"Demo tournament already there: /t/{existing.slug}/")
            return
        rng = random.Random(2026)
        t = services.create_tournament(
            name=DEMO_NAME,
            system="mtr",
            best_of=3,
            planned_rounds=5,  # rules.suggested_swiss_rounds(16) with a top 8
            top_cut=8,
            seed=2026,
            owner=owner,
        )
        services.register_players(tournament=t, names=DEMO_PLAYERS)
        for number in range(1, 5):
            round_ = services.pair_next_round(tournament=t)
            matches = Match.objects.filter(round=round_, kind=MatchKind.PLAYED).order_by("table")
            for k, match in enumerate(matches):
                if number == 4 and k >= 3:
                    break  # leave the last round in progress
                wins, draws = rng.choice(RESULTS)
                services.record_result(match=match, wins=wins, draws=draws)
        self.stdout.write(f"Demo tournament: http://127.0.0.1:8000/t/{t.slug}/")
