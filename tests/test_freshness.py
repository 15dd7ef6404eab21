"""Live pages as they ship (DEBUG off, the pre-warming on): a tracked page's ETag moves
whenever what it shows moved, the "What do I need?" figures included (issue 23).

After every write the test does what a phone server's hub does when it sees the version
move (live.warm_now: the event's view, the per-player record, the shared fragments), then
asks every player's page and standings around them with the ETag it holds, as a phone
told by its stream (or polling) would: whenever the page's content changed, the answer
must be the new page, never a 304.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from scoring import outlooks
from scoring.models import Outlook
from tournaments import live, services
from tournaments.models import Match, MatchKind, Player, Tournament
from tournaments.services.lifecycle import update_plan

HX = {"HTTP_HX_REQUEST": "true", "HTTP_ACCEPT_ENCODING": ""}


@pytest.fixture
def as_shipped(settings: Any) -> None:
    settings.DEBUG = False
    settings.LIVE_PREWARM = True
    settings.OUTLOOK_SIMULATIONS = 120
    settings.OUTLOOK_BACKGROUND = False  # computed in the test's own thread, see below


@pytest.fixture
def real(as_shipped: None, db: Any, django_user_model: Any) -> Tournament:
    """melee-406270 (30 players) cut back before its last Swiss round, a top 8 planned."""
    from tests.conftest import load_shared
    from tests.helpers import REAL, cut_back

    owner = django_user_model.objects.create_user("owner")
    doc, rounds = cut_back(load_shared(REAL))
    t = services.import_document(doc, owner=owner)
    return update_plan(tournament=t, planned_rounds=rounds, top_cut=8)


def hub_sees(t: Tournament) -> None:
    """What the phone servers do once they see the version move (tournaments.stream)."""
    live.warm_now(t.pk)


def urls(t: Tournament) -> list[str]:
    ids = Player.objects.filter(tournament=t).values_list("external_id", flat=True)
    return [
        u
        for pid in ids
        for u in (f"/t/{t.slug}/players/{pid}/", f"/t/{t.slug}/standings/?me={pid}")
    ]


def look(client: Client, url: str, held: dict[str, tuple[str, bytes]]) -> bool:
    """Ask `url` as a phone holding its last copy would; True when its content moved."""
    etag, content = held[url]
    answer = client.get(url, HTTP_IF_NONE_MATCH=etag, **HX)
    live._OWN.clear()  # what the page shows now, rendered afresh, not a kept copy
    now = client.get(url, **HX)
    assert now.status_code == 200
    if now.content != content:
        assert answer.status_code == 200, f"{url}: content changed, answered 304"
        assert answer["ETag"] != etag and answer.content == now.content, url
        held[url] = (answer["ETag"], answer.content)
        return True
    if answer.status_code == 200:
        held[url] = (answer["ETag"], answer.content)
    return False


def test_with_prewarming_on_no_tracked_page_answers_304_once_what_it_shows_changed(
    real: Tournament, client: Client
) -> None:
    t = real
    outlooks.compute_now(tournament_id=t.pk)  # the figures the import asked for
    hub_sees(t)
    held: dict[str, tuple[str, bytes]] = {}
    for url in urls(t):
        first = client.get(url, **HX)
        assert first.status_code == 200
        held[url] = (first["ETag"], first.content)
    figures_moved = results_moved = 0
    open_matches = list(
        Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED, reported=False).order_by(
            "table"
        )
    )
    assert len(open_matches) >= 10
    for k, match in enumerate(open_matches[:10]):
        services.record_result(match=match, wins=(2, k % 2))
        hub_sees(t)
        results_moved += sum(look(client, url, held) for url in held)
        # The figures of the new version, stored: a write of their own (scoring.outlooks).
        before = Tournament.objects.get(pk=t.pk).version
        row = outlooks.compute_now(tournament_id=t.pk)
        assert row is not None and row.state == Outlook.State.READY
        assert Tournament.objects.get(pk=t.pk).version == before + 1
        hub_sees(t)
        figures_moved += sum(look(client, url, held) for url in held if "/players/" in url)
    services.rename_player(player=Player.objects.get(tournament=t, external_id="p3"), name="Zed")
    hub_sees(t)
    assert sum(look(client, url, held) for url in held) > 0
    assert results_moved > 0 and figures_moved > 0  # the figures alone moved some pages


def test_a_full_reload_shows_the_figures_and_results_the_json_api_shows(
    real: Tournament, client: Client
) -> None:
    t = real
    hub_sees(t)
    pages = {}
    for player in Player.objects.filter(tournament=t)[:12]:
        pages[player.external_id] = client.get(f"/t/{t.slug}/players/{player.external_id}/")
    match = Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED, reported=False).first()
    services.record_result(match=match, wins=(2, 0))
    outlooks.compute_now(tournament_id=t.pk)
    hub_sees(t)
    for pid, before in pages.items():
        page = client.get(f"/t/{t.slug}/players/{pid}/", HTTP_IF_NONE_MATCH=before["ETag"])
        if page.status_code == 304:
            page = before
        html = page.content.decode()
        body = client.get(f"/t/{t.slug}/players/{pid}.json").json()
        answer = (body.get("outlook") or {}).get("answer")
        shown = re.search(r'data-outlook="([^"]+)"', html)
        if answer is None:
            assert shown is None or shown[1] in ("computing", "failed"), pid
            continue
        expected = answer["certain"] or (
            f"needs-{answer['needs']}" if answer["needs"] else "chances"
        )
        assert shown is not None and shown[1] == expected, pid
        last = body["rounds"][-1]
        assert f'data-result="{last["result"]}"' in html or last["result"] == "not reported", pid
