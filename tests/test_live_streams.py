"""Live pages' event streams (tournaments/stream.py): who is told what, and when."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.db.models import F
from django.test import Client

from tests.helpers import Inbox
from tournaments import live, stream
from tournaments.models import Match, Player, Tournament
from tournaments.pages.public import NEAR_TOP
from tournaments.services import results

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


def written(t: Tournament) -> None:
    """A write to the event from another process: only its version moves, in the database
    (no cache mark in this process, as under a cache per process)."""
    Tournament.objects.filter(pk=t.pk).update(version=F("version") + 1)


def seated(t: Tournament) -> tuple[Match, list[Player]]:
    match = (
        Match.objects.filter(round__tournament=t, kind="played", reported=False)
        .order_by("round__number", "table")
        .last()
    )
    assert match is not None
    return match, [s.player for s in match.seats.select_related("player").order_by("position")]


def enter(t: Tournament, match: Match) -> None:
    results.record_result(match=match, wins=(2, 1))


def test_a_result_tells_the_two_players_pages_and_not_a_far_away_players(
    hub: stream.Hub, playing_event: Tournament, settings: Any
) -> None:
    settings.LIVE_PREWARM = True
    t = playing_event
    live.refresh(t.pk)
    match, (a, b) = seated(t)
    far = Player.objects.get(tournament=t, external_id="p1")  # the leader, far from a and b
    assert not _met(far, a) and not _met(far, b)
    base = live.record_base(t)
    inboxes = {who.external_id: Inbox() for who in (a, b, far)}
    for pid, inbox in inboxes.items():
        hub.subscribe(base, (("player", pid),), inbox)
    hub.tick(now=0)  # each stream's starting point
    assert all(inbox.take() == [] for inbox in inboxes.values())

    enter(t, match)
    live.refresh(t.pk)
    hub.tick(now=1)

    assert inboxes[a.external_id].take() == [["player"]]
    assert inboxes[b.external_id].take() == [["player"]]
    assert inboxes[far.external_id].take() == []


def _met(p: Player, q: Player) -> bool:
    return Match.objects.filter(seats__player=p).filter(seats__player=q).exists()


def test_standings_around_a_player_are_told_at_most_once_in_a_while(
    hub: stream.Hub, playing_event: Tournament, settings: Any
) -> None:
    settings.LIVE_PREWARM = True
    t = playing_event
    live.refresh(t.pk)
    match, (a, _b) = seated(t)
    inbox = Inbox()
    hub.subscribe(live.record_base(t), (("near", a.external_id),), inbox)
    hub.tick(now=0)
    enter(t, match)
    live.refresh(t.pk)
    hub.tick(now=1)
    assert inbox.take() == []  # the page was loaded a second ago: this waits
    hub.tick(now=stream.NEAR_EVERY_SECONDS)
    assert inbox.take() == [["near"]]

    other = (
        Match.objects.filter(round__tournament=t, kind="played", reported=False)
        .exclude(pk=match.pk)
        .first()
    )
    assert other is not None
    enter(t, other)
    live.refresh(t.pk)
    hub.tick(now=stream.NEAR_EVERY_SECONDS + 1)
    assert inbox.take() == []  # told a second ago: this waits
    hub.tick(now=2 * stream.NEAR_EVERY_SECONDS)
    # Seven players: the leaders' rows alone show the whole table, so the other result
    # moved rows a's page shows (its winner's, at least). Told once more, never twice.
    assert Player.objects.filter(tournament=t).count() <= NEAR_TOP
    assert inbox.take() == [["near"]]


def test_shared_pages_are_told_after_a_write_and_not_more_often_than_every_few_seconds(
    hub: stream.Hub, playing_event: Tournament
) -> None:
    t = playing_event
    inbox = Inbox()
    hub.subscribe(live.record_base(t), (), inbox)
    hub.tick(now=100)
    assert inbox.take() == []  # nothing written yet

    written(t)
    hub.tick(now=101)
    assert inbox.take() == [["shared"]]
    written(t)
    hub.tick(now=102)
    assert inbox.take() == []
    hub.tick(now=101 + stream.SHARED_EVERY_SECONDS)
    assert inbox.take() == [["shared"]]


def test_without_a_record_every_open_page_is_told_after_a_write(
    hub: stream.Hub, playing_event: Tournament, settings: Any
) -> None:
    settings.LIVE_PREWARM = False
    t = playing_event
    a = Player.objects.filter(tournament=t).first()
    assert a is not None
    inbox = Inbox()
    hub.subscribe(live.record_base(t), (("player", a.external_id),), inbox)
    hub.tick(now=0)
    written(t)
    hub.tick(now=1)
    assert inbox.take() == [["player"]]


def test_a_closed_stream_is_told_nothing_more(hub: stream.Hub, playing_event: Tournament) -> None:
    inbox = Inbox()
    token = hub.subscribe(live.record_base(playing_event), (), inbox)
    hub.unsubscribe(token)
    written(playing_event)
    hub.tick(now=50)
    assert inbox.take() == [] and hub.count() == 0


def test_the_stream_opens_with_a_retry_delay_and_carries_what_the_hub_tells_it(
    hub: stream.Hub, playing_event: Tournament, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stream, "STREAM_SECONDS", 2.0)
    monkeypatch.setattr(stream, "KEEPALIVE_SECONDS", 0.5)
    t = playing_event
    a = Player.objects.filter(tournament=t).first()
    assert a is not None
    response = Client().get(f"/t/{t.slug}/live/?player={a.external_id}")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/event-stream"
    assert response["Cache-Control"] == "no-store"
    assert "Content-Encoding" not in response  # gzip would hold events back
    chunks = iter(response.streaming_content)
    assert next(chunks).decode().startswith("retry: 3000\n")
    assert hub.count() == 1
    hub.tick(now=0)
    written(t)
    hub.tick(now=1)  # here, not in a thread: the hub reads the version from the database
    got = b"".join(chunks).decode()
    assert "event: player\ndata: player\n\n" in got
    assert ": keepalive" in got
    assert hub.count() == 0  # the stream ended: unsubscribed


def test_the_stream_of_an_unknown_event_is_not_found(client: Client) -> None:
    assert client.get("/t/no-such-event/live/").status_code == 404


def test_a_wsgi_server_without_stream_threads_answers_no_content_and_pages_poll(
    playing_event: Tournament, settings: Any
) -> None:
    settings.LIVE_STREAM_THREADS = False
    response = Client().get(f"/t/{playing_event.slug}/live/")
    assert response.status_code == 204


def test_live_sections_name_their_stream_and_their_poll_fallback(
    playing_event: Tournament,
) -> None:
    t = playing_event
    a = Player.objects.filter(tournament=t).first()
    assert a is not None
    pages = {
        f"/t/{t.slug}/players/{a.external_id}/": f"/t/{t.slug}/live/?player={a.external_id}",
        f"/t/{t.slug}/standings/?me={a.external_id}": f"/t/{t.slug}/live/?near={a.external_id}",
        f"/t/{t.slug}/standings/": f"/t/{t.slug}/live/",
        f"/t/{t.slug}/pairings/": f"/t/{t.slug}/live/",
        f"/t/{t.slug}/": f"/t/{t.slug}/live/",
    }
    for url, events_url in pages.items():
        for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
            html = Client().get(url, **headers).content.decode()
            named = re.search(r'data-live="([^"]*)"', html)
            assert named is not None, (url, headers)
            # A player's pages also name the version they show (?at=).
            assert re.sub(r"&amp;at=\d+$", "", named[1]) == events_url, (url, headers)
            assert 'hx-trigger="live"' in html and 'data-poll="3"' in html


def test_the_first_look_at_an_event_tells_no_one_of_writes_from_before(
    hub: stream.Hub, playing_event: Tournament
) -> None:
    written(playing_event)  # written before anyone opened a page
    inbox = Inbox()
    hub.subscribe(live.record_base(playing_event), (), inbox)
    hub.tick(now=100)
    assert inbox.take() == []  # the page was loaded after that write


def test_a_page_whose_version_moved_before_its_stream_opened_is_told_at_once(
    hub: stream.Hub, playing_event: Tournament, settings: Any
) -> None:
    settings.LIVE_PREWARM = True
    t = playing_event
    live.refresh(t.pk)
    match, (a, _b) = seated(t)
    shown = live.subject_version(t, "player", a.external_id)
    enter(t, match)  # between the page load and the stream
    live.refresh(t.pk)
    late, current = Inbox(), Inbox()
    now = live.subject_version(Tournament.objects.get(pk=t.pk), "player", a.external_id)
    assert now != shown
    hub.subscribe(live.record_base(t), (("player", a.external_id),), late, at=f"{shown}")
    hub.subscribe(live.record_base(t), (("player", a.external_id),), current, at=f"{now}")
    hub.tick(now=0)
    assert late.take() == [["player"]]
    assert current.take() == []


@pytest.mark.django_db(transaction=True)
def test_under_asgi_the_stream_is_answered_on_the_loop_and_the_rest_goes_to_the_pages(
    hub: stream.Hub, small_doc: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from tournaments.services import import_document

    t = import_document(small_doc)
    monkeypatch.setattr(stream, "KEEPALIVE_SECONDS", 0.2)
    passed: list[str] = []

    async def pages(scope: Any, receive: Any, send: Any) -> None:
        passed.append(scope["path"])

    app = stream.asgi_streams(pages)

    async def call(path: str, host: bytes = b"testserver") -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = []
        disconnect = asyncio.Event()

        async def receive() -> dict[str, Any]:
            await disconnect.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)
            if b": keepalive" in message.get("body", b""):
                disconnect.set()  # the phone goes away after one keep-alive

        scope = {"type": "http", "method": "GET", "path": path, "query_string": b"near=p1",
                 "headers": [(b"host", host)]}  # fmt: skip
        await asyncio.wait_for(app(scope, receive, send), 5)
        return sent

    sent = asyncio.run(call(f"/t/{t.slug}/live/"))
    assert sent[0]["status"] == 200
    assert (b"content-type", b"text/event-stream") in sent[0]["headers"]
    body = b"".join(m.get("body", b"") for m in sent[1:])
    assert body.startswith(b"retry: 3000\n") and b": keepalive" in body
    assert hub.count() == 0  # the stream unsubscribed when the phone left
    assert passed == []

    asyncio.run(call(f"/t/{t.slug}/players/p1/"))
    asyncio.run(call("/t/no-such-event/live/"))  # Django answers 404
    asyncio.run(call(f"/t/{t.slug}/live/", host=b"evil.example"))  # Django answers 400
    assert passed == [f"/t/{t.slug}/players/p1/", "/t/no-such-event/live/", f"/t/{t.slug}/live/"]


def test_a_player_whose_rank_moved_at_another_table_is_told_later_not_at_once(
    hub: stream.Hub, playing_event: Tournament, settings: Any
) -> None:
    settings.LIVE_PREWARM = True
    t = playing_event
    live.refresh(t.pk)
    match, (a, b) = seated(t)
    base = live.record_base(t)
    players = list(Player.objects.filter(tournament=t).exclude(pk__in=[a.pk, b.pk]))
    before = {p.external_id: cache.get(live.page_version_key(base, "player", p.external_id))
              for p in players}  # fmt: skip
    inboxes = {p.external_id: Inbox() for p in players}
    for pid, inbox in inboxes.items():
        hub.subscribe(base, (("player", pid),), inbox)
    hub.tick(now=0)
    enter(t, match)
    live.refresh(t.pk)
    moved = [
        pid for pid in before
        if cache.get(live.page_version_key(base, "player", pid)) != before[pid]
    ]  # fmt: skip
    assert moved, "the result moved no other player's page: the scenario needs one"
    hub.tick(now=1)
    assert all(inboxes[pid].take() == [] for pid in moved)  # their own match did not change
    hub.tick(now=1 + stream.PLAYER_EVERY_SECONDS)
    assert all(inboxes[pid].take() == [["player"]] for pid in moved)


def test_server_timing_says_how_long_the_server_held_a_page_request() -> None:
    import asyncio

    from tournaments.timing import server_timing

    sent: list[dict[str, Any]] = []

    async def page(scope: Any, receive: Any, send: Any) -> None:
        await asyncio.sleep(0.02)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"a", b"1")]})
        await send({"type": "http.response.body", "body": b"ok"})

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request"}

    asyncio.run(server_timing(page)({"type": "http"}, receive, send))
    start, body = sent
    name, value = start["headers"][-1]
    assert start["headers"][0] == (b"a", b"1") and name == b"server-timing"
    assert value.startswith(b"app;dur=") and float(value.split(b"=")[1]) >= 20
    assert body == {"type": "http.response.body", "body": b"ok"}


def test_pages_due_together_are_told_a_few_per_look_while_a_players_own_result_goes_at_once(
    hub: stream.Hub, playing_event: Tournament, settings: Any
) -> None:
    """A hall of phones that joined in the same second must not refresh in the same
    second every half minute: the hub spreads them, oldest first, over the next looks."""
    settings.LIVE_PREWARM = True
    t = playing_event
    live.refresh(t.pk)
    base = live.record_base(t)
    match, (a, _b) = seated(t)
    inboxes = [Inbox() for _ in range(40)]
    for inbox in inboxes:
        hub.subscribe(base, (("near", a.external_id),), inbox)
    own = Inbox()
    hub.subscribe(base, (("player", a.external_id),), own)
    hub.tick(now=0)
    for sub in hub._subscriptions.values():  # every page's rows moved meanwhile
        sub.due.add(sub.pages[0][0])
    enter(t, match)  # ... and a's own match has a result
    live.refresh(t.pk)
    per_look = []
    for k in range(8):
        hub.tick(now=stream.NEAR_EVERY_SECONDS + k * stream.CHECK_SECONDS)
        per_look.append(sum(len(inbox.take()) for inbox in inboxes))
        if k == 0:
            assert own.take() == [["player"]]  # told in the first look, whatever waits
    assert per_look[:5] == [8, 8, 8, 8, 8] and sum(per_look) == 40


def test_a_hub_asks_once_per_version_for_what_its_open_pages_use(
    hub: stream.Hub, playing_event: Tournament, settings: Any
) -> None:
    settings.LIVE_PREWARM = True
    t = playing_event
    # A top cut and a plan: "What do I need?" applies, and is asked for too.
    Tournament.objects.filter(pk=t.pk).update(top_cut=4, planned_rounds=5)
    base = live.record_base(t)
    hub.subscribe(base, (("player", "p1"),), Inbox())
    asked: list[tuple[str, int, str]] = hub.warmed  # type: ignore[attr-defined]

    def warmed() -> list[tuple[str, int, str]]:
        return [ask for ask in asked if ask[2] != "outlook"]

    hub.tick(now=0)
    assert warmed() == [(base, t.version, "pages"), (base, t.version, "record")]  # none yet
    live.refresh(t.pk)
    hub.tick(now=1)
    assert len(warmed()) == 2  # asked once for this version
    written(t)
    hub.tick(now=2)
    hub.tick(now=3)  # the warm-up is on its way: not asked again
    assert warmed()[2:] == [(base, t.version + 1, "pages"), (base, t.version + 1, "record")]
    hub.subscribe(base, (), Inbox())  # a shared page opens (whole standings, pairings)
    written(t)
    hub.tick(now=4)
    assert warmed()[4:] == [
        (base, t.version + 2, "pages"),
        (base, t.version + 2, "record"),
        (base, t.version + 2, "fragments"),
    ]
    # "What do I need?" is asked for once per version seen, whatever is kept.
    assert [ask for ask in asked if ask[2] == "outlook"] == [
        (base, t.version + k, "outlook") for k in range(3)
    ]


def test_without_a_record_kept_a_hub_asks_for_no_warm_up(
    hub: stream.Hub, playing_event: Tournament, settings: Any
) -> None:
    settings.LIVE_PREWARM = False
    hub.subscribe(live.record_base(playing_event), (), Inbox())
    hub.tick(now=0)
    written(playing_event)
    hub.tick(now=1)
    assert hub.warmed == []  # type: ignore[attr-defined]  # and no figures without a cut


def test_a_hub_follows_events_that_are_gone_without_failing(
    hub: stream.Hub, playing_event: Tournament
) -> None:
    inbox = Inbox()
    hub.subscribe("live:999999:1.0", (), inbox)  # deleted while its pages were open
    hub.subscribe(live.record_base(playing_event), (), Inbox())
    hub.tick(now=0)
    written(playing_event)
    hub.tick(now=1)
    assert inbox.take() == []
