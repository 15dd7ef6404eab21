"""Light updates for phones: ETags that move only with what a page shows, the standings
around a player, compression, and public responses a shared cache may keep."""

from __future__ import annotations

import gzip
import re
from typing import Any

import pytest
from django.test import Client, override_settings

from tournaments import live, services
from tournaments.models import Match
from tournaments.services import import_document

pytestmark = pytest.mark.django_db


@pytest.fixture
def event(playing_event: Any) -> Any:
    """Round 3 in progress: table 1 reported, tables 2 and 3 still open (conftest)."""
    return playing_event


def _record(event: Any) -> None:
    """What the hub (live.warm_soon) starts in the background after a write, here in the
    foreground."""
    event.refresh_from_db()
    live.refresh(event.pk)


def _poll(client: Client, url: str, etag: str = "") -> Any:
    headers = {"HTTP_HX_REQUEST": "true"}
    if etag:
        headers["HTTP_IF_NONE_MATCH"] = etag
    return client.get(url, **headers)


def test_a_player_whose_page_did_not_change_gets_304_while_another_tables_result_comes_in(
    client: Client, event: Any
) -> None:
    _record(event)
    p6, p4 = f"/t/{event.slug}/players/p6/", f"/t/{event.slug}/players/p4/"
    p6_first, p4_first = _poll(client, p6), _poll(client, p4)
    match = Match.objects.get(round__tournament=event, round__number=3, table=2)
    services.record_result(match=match, wins=(2, 1), draws=0)
    _record(event)
    # p6 never met p4 or p7, and their rank did not move: the same page.
    unchanged = _poll(client, p6, p6_first["ETag"])
    assert unchanged.status_code == 304 and unchanged["ETag"] == p6_first["ETag"]
    # p4 played that table: a new page showing the win from their side.
    changed = _poll(client, p4, p4_first["ETag"])
    assert changed.status_code == 200 and changed["ETag"] != p4_first["ETag"]
    assert 'data-result="win 2-1"' in changed.content.decode()


def test_a_player_page_falls_back_to_the_version_when_no_record_was_made(
    client: Client, event: Any
) -> None:
    """Without the background refresh (LIVE_PREWARM off) nothing can say a page is
    unchanged, so every write gives a new ETag: more renders, never a stale page."""
    url = f"/t/{event.slug}/players/p6/"
    first = _poll(client, url)
    match = Match.objects.get(round__tournament=event, round__number=3, table=2)
    services.record_result(match=match, wins=(2, 1), draws=0)
    assert _poll(client, url, first["ETag"]).status_code == 200


@override_settings(LIVE_PREWARM=True)
def test_a_poll_right_after_a_write_trusts_the_record_only_while_a_refresh_is_on_its_way(
    client: Client,
    event: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    _record(event)
    url = f"/t/{event.slug}/players/p6/"
    first = _poll(client, url)
    started: list[int] = []
    monkeypatch.setattr(live.threading, "Thread", _FakeThread(started))
    match = Match.objects.get(round__tournament=event, round__number=3, table=2)
    with django_capture_on_commit_callbacks(execute=True):
        services.record_result(match=match, wins=(2, 1), draws=0)
    event.refresh_from_db()
    # Before a hub has seen the write, nothing vouches for the record: the version.
    assert _poll(client, url, first["ETag"]).status_code == 200
    live.warm_soon(live.record_base(event), event.version, "record")  # the hub asks then
    assert started, "the hub's warm-up started no refresh"
    assert _poll(client, url, first["ETag"]).status_code == 304  # pending: at most one poll late
    from django.core.cache import cache

    cache.delete(f"{live.record_base(event)}:pending")
    assert _poll(client, url, first["ETag"]).status_code == 200  # nobody coming: the version


class _FakeThread:
    """Records that a background refresh was started, without running it."""

    def __init__(self, started: list[int]) -> None:
        self.started = started

    def __call__(self, **kwargs: Any) -> Any:
        started = self.started

        class Thread:
            def start(self) -> None:
                started.append(1)

        return Thread()


def test_a_shared_fragment_that_did_not_change_keeps_its_etag_across_versions(
    client: Client, event: Any
) -> None:
    url = f"/t/{event.slug}/pairings/?round=1"
    first = _poll(client, url)
    match = Match.objects.get(round__tournament=event, round__number=3, table=2)
    services.record_result(match=match, wins=(2, 1), draws=0)
    again = _poll(client, url, first["ETag"])
    assert again.status_code == 304 and again["ETag"] == first["ETag"]


def test_the_standings_around_a_player_show_the_leaders_their_neighbours_and_a_link_to_all(
    client: Client,
) -> None:
    t = import_document(_field_of(64))
    mine = t.standings.order_by("position")[40]
    pid = mine.player.external_id
    response = client.get(f"/t/{t.slug}/standings/?me={pid}", HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200
    assert html.count("<tr") == 1 + 8 + 1 + 11  # header, leaders, the gap, 5 + me + 5
    assert f'<tr class="me" aria-current="true"><td class="num">{mine.rank}</td>' in html
    assert f'href="/t/{t.slug}/standings/">All 64 players</a>' in html
    assert f'hx-get="/t/{t.slug}/standings/?me={pid}"' in html
    full = client.get(f"/t/{t.slug}/standings/", HTTP_HX_REQUEST="true").content.decode()
    assert full.count("<tr") == 1 + 64 and "All 64 players" not in full


def _field_of(n: int) -> dict[str, Any]:
    """n players, two rounds with every result in (the first seat wins, some 2-1)."""
    players = [{"id": f"p{i}", "name": f"Player {i}"} for i in range(1, n + 1)]
    rounds = []
    for number, step in ((1, 1), (2, 2)):
        order = [p["id"] for p in players[::step]] + [p["id"] for p in players[1::step]]
        order = order[:n] if step == 2 else order
        rounds.append({"number": number, "matches": [
            {"table": k + 1, "players": [order[2 * k], order[2 * k + 1]],
             "wins": [2, k % 2], "draws": 0}
            for k in range(n // 2)
        ]})  # fmt: skip
    return {"format": "swiss-tournament/1", "name": "Big", "system": "mtr", "best_of": 3,
            "seed": 1, "players": players, "rounds": rounds}  # fmt: skip


def test_the_standings_around_an_unknown_player_are_a_clear_404(client: Client, event: Any) -> None:
    response = client.get(f"/t/{event.slug}/standings/?me=nobody")
    assert response.status_code == 404


def test_the_standings_around_a_player_are_tracked_like_their_page(
    client: Client, event: Any
) -> None:
    _record(event)
    url = f"/t/{event.slug}/standings/?me=p6"
    first = _poll(client, url)
    assert first.status_code == 200 and 'class="me"' in first.content.decode()
    _record(event)  # nothing changed: the same ETag
    assert _poll(client, url, first["ETag"]).status_code == 304


def test_an_anonymous_public_page_sets_no_cookie_and_may_be_kept_by_a_shared_cache(
    client: Client, event: Any
) -> None:
    for url in (f"/t/{event.slug}/", f"/t/{event.slug}/standings/"):
        for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
            response = client.get(url, **headers)
            assert response.status_code == 200
            assert not response.cookies, response.cookies
            # A browser revalidates every time (a refetch within a second of the last one
            # was answered from Chrome's cache: issue 23); a shared cache keeps it 1 s.
            assert response["Cache-Control"] == "public, max-age=0, s-maxage=1"
            # Vary: Cookie for the language cookie alone (issue 29): no cookie is set.
            vary = {v.strip().lower() for v in response["Vary"].split(",")}
            assert {"hx-request", "accept-language", "cookie"} <= vary
    assert b"X-CSRFToken" not in client.get(f"/t/{event.slug}/").content


def test_a_logged_in_users_page_stays_private_and_keeps_the_csrf_header(
    client: Client, event: Any, django_user_model: Any
) -> None:
    client.force_login(django_user_model.objects.create_user("someone"))
    response = client.get(f"/t/{event.slug}/standings/")
    assert response["Cache-Control"] == "private, no-cache"
    assert "Cookie" in response["Vary"]
    assert b"X-CSRFToken" in response.content


def test_full_pages_are_compressed_and_their_weakened_etag_still_gets_a_304(
    client: Client, event: Any
) -> None:
    url = f"/t/{event.slug}/standings/"
    response = client.get(url, HTTP_ACCEPT_ENCODING="gzip")
    assert response["Content-Encoding"] == "gzip"
    assert "Ana Souza" in gzip.decompress(response.content).decode()
    assert response["ETag"].startswith('W/"')  # GZipMiddleware weakens it
    again = client.get(url, HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304


def test_the_bulk_digests_cover_every_player_and_move_only_for_those_a_result_touches(
    event: Any,
) -> None:
    before = live.digests(event)
    assert {k for k in before if k.startswith("player:")} == {f"player:p{i}" for i in range(1, 8)}
    match = Match.objects.get(round__tournament=event, round__number=3, table=2)
    services.record_result(match=match, wins=(2, 1), draws=0)
    event.refresh_from_db()
    after = live.digests(event)
    moved = {k for k in before if before[k] != after[k]}
    assert {"player:p4", "player:p7"} <= moved
    assert "player:p6" not in moved  # never met p4 or p7, and kept their place


def test_versions_seen_during_a_warm_up_ask_for_one_more_run_not_a_thread_each(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from tournaments import live

    started, release, runs = threading.Event(), threading.Event(), []

    def slow_warm(tournament_id: int, only: Any = None) -> None:
        runs.append(tournament_id)
        started.set()
        release.wait(5)

    monkeypatch.setattr(live, "warm_now", slow_warm)
    base = "live:99:1.0"
    live.warm_soon(base, 1, "record")
    assert started.wait(5)
    for version in range(2, 7):  # five more writes while the first warm-up runs
        live.warm_soon(base, version, "record")
    release.set()
    for _ in range(200):
        if (99, "record") not in live._warming:
            break
        threading.Event().wait(0.01)
    assert runs == [99, 99] and (99, "record") not in live._warming


def test_each_version_is_warmed_by_one_process_of_the_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every process's hub sees the version move; the shared cache lets one warm it."""
    import threading

    from tournaments import live

    runs: list[int] = []
    done = threading.Event()
    monkeypatch.setattr(live, "warm_now", lambda pk, only=None: (runs.append(pk), done.set()))
    base = "live:98:1.0"
    live.warm_soon(base, 7, "record")
    assert done.wait(5)
    live.warm_soon(base, 7, "record")  # another process's hub, the same version
    for _ in range(200):
        if (98, "record") not in live._warming:
            break
        threading.Event().wait(0.01)
    assert runs == [98]


def test_the_writer_does_no_work_for_the_live_pages(
    event: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The organizer's result POST must not share its process with a warm-up of every
    phone's page (bench_phones: it made the POST's p95 1.2x the calibration)."""
    from tournaments import live

    settings.LIVE_PREWARM = True
    asked: list[Any] = []
    monkeypatch.setattr(live, "warm_soon", lambda *a: asked.append(a))
    monkeypatch.setattr(live, "warm_now", lambda *a, **k: asked.append(a))
    match = Match.objects.get(round__tournament=event, round__number=3, table=2)
    services.record_result(match=match, wins=(2, 1), draws=0)
    assert asked == []


def test_standings_around_a_player_follow_each_result_though_the_table_is_read_once_per_version(
    playing_event: Any, client: Client
) -> None:
    from tournaments.models import Tournament

    t = playing_event
    url = f"/t/{t.slug}/standings/?me=p5"
    before = client.get(url, HTTP_HX_REQUEST="true", HTTP_ACCEPT_ENCODING="").content.decode()
    match = Match.objects.get(round__tournament=t, round__number=3, table=3)  # p5 v p6
    services.record_result(match=match, wins=(2, 0))
    assert Tournament.objects.get(pk=t.pk).version > t.version
    after = client.get(url, HTTP_HX_REQUEST="true", HTTP_ACCEPT_ENCODING="").content.decode()
    assert before != after
    row = re.search(r'<tr class="me" aria-current="true">.*?</tr>', after, re.S)
    assert row is not None and "Eva Lund" in row[0] and "1-1-1" in row[0]  # p5's new record


def test_a_players_page_is_rendered_once_per_change_for_every_phone_that_follows_it(
    client: Client, event: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kept in the page server's process (live.own_fragment), not in the shared cache:
    the page of a player at a feature table is rendered once however many phones ask,
    plain and compressed alike, and again only once it changed."""
    from django.core.cache import cache

    from tournaments.pages import public as public_pages

    _record(event)
    built: list[str] = []
    real = public_pages.player
    monkeypatch.setattr(
        public_pages, "player", lambda t, me: built.append(me.external_id) or real(t, me)
    )
    cache_reads: list[Any] = []
    real_get = cache.get
    monkeypatch.setattr(cache, "get", lambda *a, **k: cache_reads.append(a) or real_get(*a, **k))
    url = f"/t/{event.slug}/players/p4/"
    pages = [_poll(Client(), url) for _ in range(3)]
    zipped = Client().get(url, HTTP_HX_REQUEST="true", HTTP_ACCEPT_ENCODING="gzip")
    assert built == ["p4"] and not [key for key in cache_reads if "partial:" in str(key)]
    assert len({p.content for p in pages}) == 1
    assert gzip.decompress(zipped.content) == pages[0].content
    match = Match.objects.get(round__tournament=event, round__number=3, table=2)
    services.record_result(match=match, wins=(2, 1), draws=0)
    _record(event)
    assert 'data-result="win 2-1"' in _poll(client, url).content.decode()
    assert built == ["p4", "p4"]


def test_after_the_versions_reads_a_players_pages_cost_one_query_each(
    client: Client, event: Any, django_assert_num_queries: Any
) -> None:
    """What stream.Hub has read in the background when it sees the version move
    (pages.event.event_view): the first phone after a result then waits for nothing."""
    from tournaments.models import Tournament
    from tournaments.pages.event import event_view

    match = Match.objects.get(round__tournament=event, round__number=3, table=2)
    services.record_result(match=match, wins=(2, 1), draws=0)
    event_view(Tournament.objects.get(pk=event.pk))
    name = event.players.get(external_id="p4").name
    for url, shows in (
        (f"/t/{event.slug}/players/p4/", 'data-result="win 2-1"'),
        (f"/t/{event.slug}/standings/?me=p4", name),
    ):
        with django_assert_num_queries(1):  # the tournament: its version
            response = _poll(client, url)
        assert response.status_code == 200 and shows in response.content.decode()
