"""A pairing after registrations the scoring snapshot has not seen. The registration
before round 1 stopped recomputing, and the pairing began reading its history from this
process's snapshot: a standing of a player the snapshot never saw failed the pairing
(KeyError; tests/browser/test_refusals_visible.py's check-in test found it). The pairing
now reads the rows whenever the stored standings name a player the snapshot lacks."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.helpers import full_recompute, stored_standings
from tournaments import services
from tournaments.models import Seat
from tournaments.services.registration import check_in, register_self, set_registration


@pytest.mark.django_db
def test_a_pairing_after_self_registrations_and_check_ins_pairs_the_checked_in(
    client: Client,
) -> None:
    t = services.create_tournament(name="Walk-ins", system="mtr")
    t = set_registration(
        tournament=t, registration_open=True, cap=None, approval=False, check_in=True
    )
    # The first registration recomputes (a field of one), leaving this process a snapshot
    # of one player; the next ones are placed without it.
    for name in ("Ana", "Ben", "Cai", "Dee", "Eve"):
        player, _link = register_self(tournament=t, name=name)
        if name != "Eve":
            check_in(player=player)
    assert client.get(f"/p/{_link}/").status_code == 200  # a phone opens its page
    round_ = services.pair_next_round(tournament=t)
    seated = set(Seat.objects.filter(round=round_).values_list("player__name", flat=True))
    assert seated == {"Ana", "Ben", "Cai", "Dee"}  # round 1 pairs the checked-in players
    t.refresh_from_db()
    assert stored_standings(t) == full_recompute(t)
