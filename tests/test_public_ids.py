"""Issue 24 item 10: the public pages show accepted players only, and the ids the app
makes cannot be guessed from one another (they were p1, p2 ...: reading the list of
entries, pending and rejected ones too, was a loop over `?me=pN`)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tournaments import services
from tournaments.models import Player, Tournament
from tournaments.services import registration as reg

pytestmark = pytest.mark.django_db

APP_ID = re.compile(r"p[0-9a-hjkmnp-tv-z]{8}")


@pytest.fixture
def entries(owner: Any) -> tuple[Tournament, dict[str, Player]]:
    """Four accepted players, Penny pending and Rita rejected; round 1 paired."""
    t = services.create_tournament(name="Entries Open", owner=owner, seed=5)
    reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=True, check_in=False, by=owner
    )
    made = {
        name: reg.register_self(tournament=t, name=name)[0]
        for name in ("Ana Accepted", "Ben Accepted", "Cleo Accepted", "Dev Accepted",
                     "Penny Pending", "Rita Rejected")
    }  # fmt: skip
    for name, player in made.items():
        if "Accepted" in name:
            reg.accept_entry(player=player, by=owner)
    reg.reject_entry(player=made["Rita Rejected"], by=owner)
    reg.set_registration(
        tournament=t, registration_open=False, cap=None, approval=True, check_in=False, by=owner
    )
    services.pair_next_round(tournament=t, by=owner)
    return Tournament.objects.get(pk=t.pk), made


def public_urls(slug: str, pid: str) -> list[str]:
    base = f"/t/{slug}"
    return [
        f"{base}/",
        f"{base}/standings/",
        f"{base}/standings/?me={pid}",
        f"{base}/standings.csv",
        f"{base}/pairings/",
        f"{base}/pairings/?round=1",
        f"{base}/pairings.csv",
        f"{base}/players/{pid}/",
        f"{base}/tiebreakers/{pid}/",
        f"{base}/bracket/",
        f"{base}/projector/",
        f"{base}/standings.json",
        f"{base}/pairings.json",
        f"{base}/players/{pid}.json",
        f"{base}/outlook.json",
        f"{base}/outlook/{pid}/",
    ]


@pytest.mark.parametrize("name", ["Penny Pending", "Rita Rejected"])
@pytest.mark.parametrize("htmx", [False, True], ids=["page", "fragment"])
def test_no_public_page_or_api_shows_a_pending_or_rejected_entry(
    client: Any, entries: tuple[Tournament, dict[str, Player]], name: str, htmx: bool
) -> None:
    t, made = entries
    pid = made[name].external_id
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    for url in public_urls(t.slug, pid):
        response = client.get(url, **headers)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        assert name.encode() not in body, url
        if pid in url:  # a 404 may echo the id it was asked for, nothing more
            assert response.status_code == 404, url
        else:
            assert pid.encode() not in body, url
            assert response.status_code == 200, url
    # An accepted player's pages are there (the 404s above are not for every id).
    ana = made["Ana Accepted"].external_id
    assert client.get(f"/t/{t.slug}/standings/?me={ana}").status_code == 200
    assert client.get(f"/t/{t.slug}/players/{ana}/").status_code == 200


def test_ids_the_app_makes_are_random_and_unique_in_the_event(owner: Any) -> None:
    t = services.create_tournament(name="Ids Open", owner=owner, seed=5)
    reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=False, check_in=False, by=owner
    )
    own = [reg.register_self(tournament=t, name=f"Self {k}")[0] for k in range(5)]
    added = services.register_players(tournament=t, names=[f"Added {k}" for k in range(30)])
    ids = [p.external_id for p in [*own, *added]]
    assert all(APP_ID.fullmatch(i) for i in ids), ids
    assert len(set(ids)) == len(ids) == Player.objects.filter(tournament=t).count()
    # Nothing to walk: no id is the next of another.
    assert not {f"p{n}" for n in range(1, 1000)} & set(ids)


def test_an_imported_event_keeps_its_files_ids_and_a_late_entry_gets_a_random_one(
    small_doc: dict[str, Any], owner: Any
) -> None:
    t = services.import_document(small_doc)
    kept = set(t.players.values_list("external_id", flat=True))
    assert kept == {p["id"] for p in small_doc["players"]}
    (late,) = services.register_players(tournament=t, names=["Late Comer"], by=owner)
    assert APP_ID.fullmatch(late.external_id)
    assert late.external_id not in kept
