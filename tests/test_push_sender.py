"""Web Push's sender (issue 29) against a fake push service: what it posts is the
protocol's real message (RFC 8291 aes128gcm, decrypted here with the subscription's own
private key; a VAPID token, RFC 8292, checked against the server's key); 429 and 5xx are
tried again later, 404 and 410 drop the subscription. Then the server's VAPID keys: made
and kept on first start, overridden by the environment, refused loudly when bad."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.utils import timezone

from tests.push_service import Browser, FakePushService, check_vapid, fake_push_service
from tournaments import services, vapid, webpush
from tournaments.models import Match, Player, PushMessage, PushSubscription, Round, Tournament
from tournaments.services import floor, push

pytestmark = pytest.mark.django_db
NAMES = ["Ana Souza", "Ben Ito", "Cleo Park", "Dev Rao", "Eva Lund"]


@pytest.fixture(autouse=True)
def server_keys(settings: Any) -> Iterator[vapid.VapidKeys]:
    """A VAPID pair of the test's own (never the state directory's)."""
    raw = vapid.new_private_key()
    keys = vapid.from_environment({"VAPID_PRIVATE_KEY": raw})
    assert keys is not None
    settings.VAPID_PRIVATE_KEY, settings.VAPID_PUBLIC_KEY = keys.private_key, keys.public_key
    settings.VAPID_SUBJECT = "mailto:organizer@example.org"
    settings.PUSH_LOCAL_ENDPOINTS = True  # the fake push service is on this machine
    webpush.vapid_keys.cache_clear()
    webpush.forget_vapid_headers()
    yield keys
    webpush.vapid_keys.cache_clear()
    webpush.forget_vapid_headers()


@pytest.fixture
def service() -> Iterator[FakePushService]:
    with fake_push_service() as fake:
        yield fake


@pytest.fixture
def event(owner: Any) -> Tournament:
    t = services.create_tournament(name="Push Open", owner=owner, seed=5)
    services.register_players(tournament=t, names=NAMES)
    return t


def player(t: Tournament, name: str) -> Player:
    return Player.objects.get(tournament=t, name=name)


def subscribe(t: Tournament, who: Player, service: FakePushService, name: str) -> Browser:
    browser = Browser()
    sub = push.check_subscription(browser.subscription(service.endpoint(name)))
    push.subscribe(tournament=t, subscription=sub, player=who)
    return browser


def opponent_of(p: Player, round_number: int) -> tuple[int | None, str | None]:
    seat = p.seats.select_related("match").get(round__number=round_number)
    others = [s.player.name for s in seat.match.seats.select_related("player") if s.player != p]
    return seat.match.table, (others[0] if others else None)


def test_a_pairing_reaches_each_subscribed_phone_encrypted_and_signed(
    event: Tournament, service: FakePushService, server_keys: vapid.VapidKeys
) -> None:
    ana, ben = player(event, "Ana Souza"), player(event, "Ben Ito")
    phones = {
        "ana": subscribe(event, ana, service, "ana"),
        "ben": subscribe(event, ben, service, "ben"),
    }
    services.pair_next_round(tournament=event)

    done = webpush.send_due()

    assert (done.sent, done.retried, done.dead, done.failed) == (2, 0, 0, 0)
    got = {r.path.rsplit("/", 1)[-1]: r for r in service.delivered()}
    assert set(got) == {"ana", "ben"}
    for name, who in (("ana", ana), ("ben", ben)):
        received = got[name]
        assert received.headers["content-encoding"] == "aes128gcm"
        assert int(received.headers["ttl"]) == webpush.TTL_S
        claims = check_vapid(
            received.headers["authorization"], audience=service.origin,
            public_key=server_keys.public_key,
        )  # fmt: skip
        assert claims["sub"] == "mailto:organizer@example.org"
        message = phones[name].decrypt(received.body)
        table, opponent = opponent_of(who, 1)
        if opponent is None:
            assert message["title"] == "Round 1: bye"
        else:
            assert message["title"] == f"Round 1: table {table}"
            assert message["body"] == f"You play {opponent} at table {table}."
        assert message["kind"] == "pairing"
    assert PushMessage.objects.filter(sent_at__isnull=False).count() == 2
    assert webpush.send_due().handled == 0  # sent once only


def test_a_phone_that_opted_in_in_french_or_japanese_learns_its_table_in_that_language(
    event: Tournament, service: FakePushService
) -> None:
    """The issue's "done when": told the table without opening the page, in their
    language (the one the page was read in when they subscribed)."""
    phones: dict[str, tuple[Player, Browser, str]] = {}
    for name, who, language in (("ana", "Ana Souza", "fr"), ("ben", "Ben Ito", "ja")):
        browser = Browser()
        sub = push.check_subscription(browser.subscription(service.endpoint(name)))
        found = player(event, who)
        push.subscribe(tournament=event, subscription=sub, player=found, language=language)
        phones[name] = (found, browser, language)
    services.pair_next_round(tournament=event)

    assert webpush.send_due().sent == 2

    got = {r.path.rsplit("/", 1)[-1]: r for r in service.delivered()}
    for name, (who, browser, language) in phones.items():
        message = browser.decrypt(got[name].body)
        table, opponent = opponent_of(who, 1)
        assert message["lang"] == language
        if opponent is None:
            assert (
                message["title"]
                == {"fr": "Ronde 1 : bye", "ja": "ラウンド1: 不戦勝 (BYE)"}[language]
            )
        elif language == "fr":
            assert message["title"] == f"Ronde 1 : table {table}"
            assert message["body"] == f"Vous jouez contre {opponent} à la table {table}."
        else:
            assert message["title"] == f"ラウンド1: {table}卓"
            assert message["body"] == f"{table}卓で{opponent}と対戦します。"


def test_a_message_for_one_phone_is_unreadable_with_another_phones_keys(
    event: Tournament, service: FakePushService
) -> None:
    subscribe(event, player(event, "Ana Souza"), service, "ana")
    services.pair_next_round(tournament=event)
    webpush.send_due()
    with pytest.raises(Exception):  # noqa: B017  (http_ece's own error for a bad tag)
        Browser().decrypt(service.delivered()[0].body)


def test_a_push_service_busy_or_failing_is_tried_again_later_then_given_up(
    event: Tournament, service: FakePushService
) -> None:
    subscribe(event, player(event, "Ana Souza"), service, "ana")
    service.script["ana"] = [429, 503, 500, 502, 500]
    service.retry_after["ana"] = "120"  # said with the 429 only: the 503 says nothing
    services.pair_next_round(tournament=event)
    message = PushMessage.objects.get()

    first = webpush.send_due()
    assert (first.sent, first.retried) == (0, 1)
    message.refresh_from_db()
    assert message.attempts == 1 and message.sent_at is None and not message.gone
    wait = (message.next_attempt_at - timezone.now()).total_seconds()
    assert 110 < wait <= 120  # the service's Retry-After beats the first backoff (5 s)
    sub = PushSubscription.objects.get()
    assert sub.failures == 1 and sub.last_error.startswith("429")

    assert webpush.send_due().handled == 0  # not due yet
    waits = []
    for attempt in range(2, webpush.MAX_ATTEMPTS + 1):
        PushMessage.objects.update(next_attempt_at=timezone.now())
        done = webpush.send_due()
        message.refresh_from_db()
        assert message.attempts == attempt
        if attempt < webpush.MAX_ATTEMPTS:
            assert done.retried == 1
            waits.append(round((message.next_attempt_at - timezone.now()).total_seconds()))
        else:
            assert done.failed == 1 and message.gone  # five failures: given up
    assert waits == [10, 20, 40]  # doubling each time
    PushMessage.objects.update(next_attempt_at=timezone.now())
    assert webpush.send_due().handled == 0
    assert len(service.received) == webpush.MAX_ATTEMPTS


def test_a_retry_that_goes_through_is_delivered_once_and_clears_the_error(
    event: Tournament, service: FakePushService
) -> None:
    browser = subscribe(event, player(event, "Ana Souza"), service, "ana")
    service.script["ana"] = [500]
    services.pair_next_round(tournament=event)
    assert webpush.send_due().retried == 1
    PushMessage.objects.update(next_attempt_at=timezone.now())
    assert webpush.send_due().sent == 1
    assert browser.decrypt(service.delivered()[0].body)["kind"] == "pairing"
    sub = PushSubscription.objects.get()
    assert (sub.failures, sub.last_error) == (0, "")


@pytest.mark.parametrize("status", [404, 410])
def test_a_subscription_the_push_service_says_is_gone_is_deleted(
    event: Tournament, service: FakePushService, status: int
) -> None:
    subscribe(event, player(event, "Ana Souza"), service, "ana")
    subscribe(event, player(event, "Ben Ito"), service, "ben")
    service.script["ana"] = [status]
    services.pair_next_round(tournament=event)
    done = webpush.send_due()
    assert (done.sent, done.dead) == (1, 1)
    assert list(PushSubscription.objects.values_list("player__name", flat=True)) == ["Ben Ito"]
    assert PushMessage.objects.count() == 1  # Ana's went with her subscription


def test_a_refusal_other_than_busy_is_given_up_at_once(
    event: Tournament, service: FakePushService
) -> None:
    subscribe(event, player(event, "Ana Souza"), service, "ana")
    service.script["ana"] = [413]
    services.pair_next_round(tournament=event)
    done = webpush.send_due()
    assert done.failed == 1
    assert PushMessage.objects.get().gone
    assert PushSubscription.objects.get().last_error.startswith("413")


def test_a_push_service_that_cannot_be_reached_is_tried_again(event: Tournament) -> None:
    with fake_push_service() as gone:
        endpoint = gone.endpoint("ana")  # the service stops at the end of the block
    browser = Browser()
    sub = push.check_subscription(browser.subscription(endpoint))
    push.subscribe(tournament=event, subscription=sub, player=player(event, "Ana Souza"))
    services.pair_next_round(tournament=event)
    done = webpush.send_due()
    assert done.retried == 1
    assert "ConnectionError" in PushSubscription.objects.get().last_error


def test_a_message_an_hour_old_is_not_sent(event: Tournament, service: FakePushService) -> None:
    subscribe(event, player(event, "Ana Souza"), service, "ana")
    services.pair_next_round(tournament=event)
    PushMessage.objects.update(created_at=timezone.now() - timedelta(minutes=61))
    done = webpush.send_due()
    assert (done.expired, done.handled) == (1, 0)
    assert PushMessage.objects.get().gone
    assert service.received == []


def test_two_senders_never_take_the_same_message(
    event: Tournament, service: FakePushService
) -> None:
    for name in NAMES:
        subscribe(event, player(event, name), service, name.split()[0])
    services.pair_next_round(tournament=event)
    first = webpush.claim(limit=3)
    second = webpush.claim(limit=10)
    assert len(first) == 3 and len(second) == 2
    assert not {m.pk for m in first} & {m.pk for m in second}
    assert webpush.claim() == []  # leased: another sender's until the lease ends
    later = timezone.now() + webpush.LEASE + timedelta(seconds=1)
    assert len(webpush.claim(now=later)) == 5  # a sender that died leaves them to others


def test_the_round_clock_warns_each_subscribed_player_five_minutes_before_their_table_ends(
    event: Tournament, service: FakePushService
) -> None:
    for name in NAMES:
        subscribe(event, player(event, name), service, name.split()[0])
    round_ = services.pair_next_round(tournament=event)
    PushMessage.objects.all().delete()
    services.start_clock(round=round_, minutes=50)
    tables = list(Match.objects.filter(round=round_, kind="played").order_by("table"))
    floor.add_extension(tournament=event, match=tables[1], minutes=3, by=event.owner)
    ends = Round.objects.get(pk=round_.pk).clock_ends_at
    assert ends is not None

    assert push.record_clock_warnings(ends - timedelta(minutes=6)) == 0
    # Four minutes before the round's end: table 1's players, not table 2's (3 more).
    assert push.record_clock_warnings(ends - timedelta(minutes=4)) == 2
    done = webpush.send_due(now=lambda: ends - timedelta(minutes=4))
    assert done.sent == 2
    warned = {r.path.rsplit("/", 1)[-1] for r in service.delivered()}
    table_1 = {s.player.name.split()[0] for s in tables[0].seats.select_related("player")}
    assert warned == table_1
    # Once only, even asked again; then table 2 inside its own five minutes.
    assert PushMessage.objects.filter(kind="clock").count() == 2
    push.record_clock_warnings(ends - timedelta(minutes=1))
    assert PushMessage.objects.filter(kind="clock").count() == 4
    # Nobody at the bye (nothing to play) is warned.
    warned_matches = {
        m.subscription.player.seats.get(round=round_).match_id
        for m in PushMessage.objects.filter(kind="clock").select_related("subscription__player")
    }
    assert warned_matches == {tables[0].pk, tables[1].pk}


def test_a_reported_table_gets_no_clock_warning(
    event: Tournament, service: FakePushService
) -> None:
    for name in NAMES:
        subscribe(event, player(event, name), service, name.split()[0])
    round_ = services.pair_next_round(tournament=event)
    services.start_clock(round=round_, minutes=50)
    match = Match.objects.filter(round=round_, kind="played").order_by("table").first()
    assert match is not None
    services.record_result(match=match, wins=(2, 0))
    ends = Round.objects.get(pk=round_.pk).clock_ends_at
    assert ends is not None
    assert push.record_clock_warnings(ends - timedelta(minutes=1)) == 2  # table 2 only


def test_send_push_once_sends_what_is_due_and_says_so(
    event: Tournament, service: FakePushService
) -> None:
    subscribe(event, player(event, "Ana Souza"), service, "ana")
    services.pair_next_round(tournament=event)
    out = StringIO()
    call_command("send_push", "--once", stdout=out)
    assert out.getvalue().startswith("sent 1, to retry 0, dead subscriptions 0")
    assert len(service.delivered()) == 1


def test_the_background_sender_delivers_without_being_asked(
    event: Tournament, service: FakePushService, transactional_db: Any
) -> None:
    subscribe(event, player(event, "Ana Souza"), service, "ana")
    services.pair_next_round(tournament=event)
    sender = webpush.start_in_background()
    try:
        for _ in range(100):
            if service.delivered():
                break
            sender.stop.wait(0.05)
    finally:
        sender.close()
    assert not sender.thread.is_alive()
    assert len(service.delivered()) == 1


# --- the server's keys ---------------------------------------------------------------------


def test_the_key_pair_is_made_on_first_start_and_kept(tmp_path: Path) -> None:
    state = tmp_path / "state"
    first = vapid.keys({}, state)
    path = state / vapid.KEY_FILE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert vapid.keys({}, state) == first  # a restart keeps it
    assert len(vapid.b64url_decode(first.public_key)) == 65


def test_the_environment_overrides_the_kept_pair(tmp_path: Path) -> None:
    raw = vapid.new_private_key()
    given = vapid.keys({"VAPID_PRIVATE_KEY": raw}, tmp_path)
    assert given.private_key == raw
    assert not (tmp_path / vapid.KEY_FILE_NAME).exists()
    both = vapid.keys({"VAPID_PRIVATE_KEY": raw, "VAPID_PUBLIC_KEY": given.public_key}, tmp_path)
    assert both == given


@pytest.mark.parametrize(
    ("environ", "said"),
    [
        ({"VAPID_PRIVATE_KEY": "c2hvcnQ"}, "VAPID_PRIVATE_KEY is 5 bytes, not the 32"),
        ({"VAPID_PRIVATE_KEY": "!!!"}, "VAPID_PRIVATE_KEY is not base64url"),
        ({"VAPID_PUBLIC_KEY": "abc"}, "VAPID_PUBLIC_KEY is set without VAPID_PRIVATE_KEY"),
        (
            {"VAPID_PRIVATE_KEY": vapid.new_private_key(), "VAPID_PUBLIC_KEY": "abc"},
            "VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY",
        ),
    ],
)
def test_a_bad_key_in_the_environment_is_refused_in_one_line(
    tmp_path: Path, environ: dict[str, str], said: str
) -> None:
    with pytest.raises(vapid.VapidError) as refused:
        vapid.keys(environ, tmp_path)
    assert str(refused.value).startswith(said)
    assert "\n" not in str(refused.value)


def test_a_kept_key_others_can_read_or_a_mangled_one_is_refused(tmp_path: Path) -> None:
    vapid.keys({}, tmp_path)
    path = tmp_path / vapid.KEY_FILE_NAME
    os.chmod(path, 0o644)
    with pytest.raises(vapid.VapidError, match="readable by other users"):
        vapid.keys({}, tmp_path)
    os.chmod(path, 0o600)
    path.write_text("not a key\n")
    with pytest.raises(vapid.VapidError, match="delete it and a new one is made"):
        vapid.keys({}, tmp_path)


def test_the_server_stops_at_start_on_a_bad_key(settings: Any) -> None:
    settings.VAPID_PRIVATE_KEY = "short"
    webpush.vapid_keys.cache_clear()
    with pytest.raises(ImproperlyConfigured, match=r"^Web Push's VAPID key: VAPID_PRIVATE_KEY"):
        webpush.check_configuration()


def test_the_contact_defaults_to_the_sites_https_address_and_refuses_another_scheme(
    settings: Any,
) -> None:
    settings.VAPID_SUBJECT = ""
    settings.PUBLIC_URL = "https://swiss.example.org"
    assert webpush.subject() == "https://swiss.example.org"
    settings.PUBLIC_URL = "http://192.168.1.23:8000"
    settings.ALLOWED_HOSTS = ["192.168.1.23", "swiss.example.org"]
    assert webpush.subject().startswith("mailto:webpush@")
    settings.VAPID_SUBJECT = "ftp://example.org"
    with pytest.raises(ImproperlyConfigured, match="must start with mailto: or https://"):
        webpush.subject()


def test_the_sender_runs_by_default_where_the_live_pages_prewarm(settings: Any) -> None:
    settings.PUSH_SENDER = True
    assert webpush.sender_enabled()
    settings.PUSH_SENDER = False
    assert not webpush.sender_enabled()

    def setting(**env: str) -> subprocess.CompletedProcess[str]:
        base = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "PUSH_SENDER")}
        return subprocess.run(
            [sys.executable, "-c", "import tournaments.settings as s; print(s.PUSH_SENDER)"],
            env={**base, "SECRET_KEY": "test-only", **env},
            capture_output=True,
            text=True,
        )

    assert setting(DEBUG="0").stdout.strip() == "True"  # production: LIVE_PREWARM is on
    assert setting(DEBUG="0", LIVE_PREWARM="0").stdout.strip() == "False"
    assert setting(DEBUG="1").stdout.strip() == "False"
    refused = setting(DEBUG="0", PUSH_SENDER="maybe")
    assert refused.returncode != 0 and "PUSH_SENDER='maybe' is not a boolean" in refused.stderr


def test_many_starting_at_once_all_read_the_one_kept_pair(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(16) as pool:
        pairs = set(pool.map(lambda _: vapid.keys({}, tmp_path), range(64)))
    assert len(pairs) == 1
    assert [p.name for p in tmp_path.iterdir()] == [vapid.KEY_FILE_NAME]  # no draft left
