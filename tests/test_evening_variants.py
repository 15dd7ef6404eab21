"""Issue 35: one evening through the organizer's and the phones' forms, in every variant.

A new organizer creates the event on its form and opens registration; players register
from their phones (each its own address); with approval on the organizer accepts them on
the registration screen, with check-in on half check in from their phones and the rest
at the desk; a walk-in is added after the self-registrations; then round 1 is paired,
its results go in on the quick entry, a late player is added, and rounds 2 and 3 follow.
32 variants (4, 7, 9 or 16 players; check-in on/off; approval on/off; walk-in or not);
before the fix 24 of them answered 500 at the first pair click (a scoring snapshot
patched across the registrations' placement paired ids it did not have).

After every write the stored standings equal a recompute and this process's scoring
snapshot equals a fresh read of the database (scoring.services.scoring_drift). Each
request ends as a committed one does (tests.helpers.CommittingClient): snapshots and
the change log are kept only when a write commits.
"""

from __future__ import annotations

import itertools
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from scoring.services import scoring_drift
from tests.helpers import CommittingClient
from tournaments.models import Match, MatchKind, Player, Round, Tournament

HX = {"HTTP_HX_REQUEST": "true"}
VARIANTS = list(itertools.product((4, 7, 9, 16), (False, True), (False, True), (False, True)))


def _agrees(t: Tournament) -> None:
    assert scoring_drift(t) == []


def _pair(org: Client, t: Tournament, *, htmx: bool) -> None:
    response = org.post(f"/t/{t.slug}/manage/pair/", **(HX if htmx else {}))
    # The board (HTMX) or the redirect back to it (no JavaScript): never a 4xx or 5xx.
    assert response.status_code in (200, 302), response.content.decode()[:500]


def _results_on_quick_entry(org: Client, t: Tournament, number: int) -> None:
    round_ = Round.objects.get(tournament=t, number=number)
    tables = round_.matches.exclude(kind=MatchKind.BYE).values_list("table", flat=True)
    for i, table in enumerate(sorted(tables)):
        entry = f"{table} {'2-1' if i % 2 else '2-0'}"
        response = org.post(f"/t/{t.slug}/manage/rounds/{number}/quick/", {"entry": entry}, **HX)
        assert response.status_code == 200, response.content.decode()[:500]
    _agrees(t)
    assert not round_.matches.filter(reported=False).exclude(kind=MatchKind.BYE).exists()


def run_evening(
    players: int, check_in: bool, approval: bool, walk_in: bool, *, htmx: bool
) -> Tournament:
    org = CommittingClient()
    org.force_login(
        get_user_model().objects.create_user(f"org{players}{check_in}{approval}{walk_in}")
    )
    created = org.post(
        "/manage/create/", {"name": "Walk-ins", "system": "mtr", "best_of": "3", "top_cut": "0"}
    )
    assert created.status_code == 302
    slug = created["Location"].split("/")[2]
    t = Tournament.objects.get(slug=slug)
    settings = {"registration_open": "on"}
    if check_in:
        settings["check_in"] = "on"
    if approval:
        settings["approval"] = "on"
    assert org.post(f"/t/{slug}/manage/registration/", settings).status_code in (200, 302)

    links = {}
    for n in range(players):
        phone = CommittingClient(REMOTE_ADDR=f"10.0.{n // 200}.{n % 200 + 1}")
        response = phone.post(f"/t/{slug}/register/", {"name": f"Player {n + 1}"})
        assert response.status_code == 302, response.content.decode()[:500]
        links[f"Player {n + 1}"] = (phone, response["Location"])
    _agrees(t)
    if approval:
        for pk in Player.objects.filter(tournament=t).values_list("pk", flat=True):
            decided = org.post(
                f"/t/{slug}/manage/registration/entries/{pk}/", {"decision": "accept"}
            )
            assert decided.status_code in (200, 302)
        _agrees(t)
    if walk_in:
        added = org.post(f"/t/{slug}/manage/players/add/", {"name": "Walk In"}, **HX)
        assert added.status_code == 200, added.content.decode()[:500]
        _agrees(t)
    if check_in:
        for i, player in enumerate(Player.objects.filter(tournament=t).order_by("pk")):
            if player.name in links and i % 2 == 0:
                phone, page = links[player.name]
                assert phone.post(page + "check-in/", **HX).status_code == 200
            else:
                desk = org.post(f"/t/{slug}/manage/registration/players/{player.pk}/check-in/")
                assert desk.status_code in (200, 302)
        _agrees(t)

    _pair(org, t, htmx=htmx)
    _agrees(t)
    expected = players + walk_in
    assert Player.objects.filter(tournament=t, seats__round__number=1).count() == expected
    _results_on_quick_entry(org, t, 1)
    late = org.post(f"/t/{slug}/manage/players/add/", {"name": "Late Larry"}, **HX)
    assert late.status_code == 200 and "Late Larry" in late.content.decode()
    _agrees(t)
    for number in (2, 3):
        _pair(org, t, htmx=htmx)
        _agrees(t)
        seated = Player.objects.filter(tournament=t, seats__round__number=number).count()
        assert seated == expected + 1  # the late player is paired from round 2
        _results_on_quick_entry(org, t, number)
    standings = Client().get(f"/t/{slug}/standings/")
    assert standings.status_code == 200
    assert re.search(r"Late Larry", standings.content.decode())
    return t


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("players", "check_in", "approval", "walk_in"),
    VARIANTS,
    ids=[
        f"{p}-players{'-check-in' if c else ''}{'-approval' if a else ''}{'-walk-in' if w else ''}"
        for p, c, a, w in VARIANTS
    ],
)
def test_an_evening_from_phone_registrations_runs_to_round_three(
    players: int, check_in: bool, approval: bool, walk_in: bool
) -> None:
    # Half the variants click as a page with JavaScript does (HTMX), half as one without.
    t = run_evening(players, check_in, approval, walk_in, htmx=bool((players + walk_in) % 2))
    assert (
        Match.objects.filter(round__tournament=t)
        .exclude(kind=MatchKind.BYE)
        .filter(reported=False)
        .count()
        == 0
    )
