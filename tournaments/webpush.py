"""The sender: delivers the outbox (PushMessage rows, tournaments.services.push) to the
browsers' push services, never inside a request.

Each message is encrypted for its subscription as RFC 8291 says (aes128gcm, RFC 8188)
and signed for with the server's VAPID key (RFC 8292), by pywebpush. A push service
answering 404 or 410 says the subscription is dead: it is deleted, its waiting messages
with it. 429 and 5xx (and a network failure) are tried again later, each time twice as
late (Retry-After when the service gives one), at most MAX_ATTEMPTS times; any other
refusal is given up at once. A message older than MAX_AGE is not worth sending (a
pairing an hour late): given up too.

Who sends: `manage.py send_push` (a loop), or a thread of the production server process
(tournaments/asgi.py, when PUSH_SENDER is on: by default with LIVE_PREWARM). Several
senders share the outbox: each claims its rows (FOR UPDATE SKIP LOCKED on PostgreSQL; on
SQLite the write lock serialises claims) by moving their next attempt past a lease, so a
sender that dies leaves its rows to be tried again once the lease is over.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import requests
from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.db.models import F
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from py_vapid import Vapid02
from pywebpush import WebPusher

from tournaments import vapid
from tournaments.models import MatchKind, PushMessage, PushSubscription
from tournaments.rules import RoundName
from tournaments.services import push as outbox
from tournaments.services.rounds import RoundSentence, say_round

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 5
FIRST_RETRY_S = 5  # then 10, 20, 40 ...
LONGEST_RETRY_S = 600
LEASE = timedelta(minutes=2)  # a claimed row is another sender's again after this
MAX_AGE = timedelta(hours=1)
KEEP_DONE = timedelta(days=1)  # sent and given-up rows are deleted after this
TTL_S = 3600  # how long the push service keeps a message for a phone that is offline
BATCH = 500
WORKERS = 16
TIMEOUT_S = 10
IDLE_S = 1.0  # the loop's wait when the outbox is empty
ERROR_MAX = 300  # PushSubscription.last_error


# --- configuration ---------------------------------------------------------------------------


# The server's key pair and contact (tournaments.vapid), by their names here too.
vapid_keys = vapid.server_keys
subject = vapid.subject


def sender_enabled() -> bool:
    """settings.PUSH_SENDER: by default on with LIVE_PREWARM (tournaments/settings.py)."""
    return bool(settings.PUSH_SENDER)


def check_configuration() -> None:
    """At start (the server, send_push): an unusable key or subject stops it there."""
    vapid_keys()
    subject()


# --- what a notification says ---------------------------------------------------------------


# A pairing's title, whole in each language: a Swiss round by its number, a top cut's
# round by its name, as the organizer's screens name it (services.rounds.RoundSentence).
PAIRED_AT_TABLE: RoundSentence = (
    gettext_noop("Round %(round)s: table %(table)s"),
    {
        4: gettext_noop("Quarterfinals: table %(table)s"),
        2: gettext_noop("Semifinals: table %(table)s"),
        1: gettext_noop("Final: table %(table)s"),
    },
)
PAIRED: RoundSentence = (
    gettext_noop("Round %(round)s"),
    {
        4: gettext_noop("Quarterfinals"),
        2: gettext_noop("Semifinals"),
        1: gettext_noop("Final"),
    },
)


def playoff_round(facts: dict[str, Any]) -> RoundName | None:
    """The name of the playoff round a pairing's facts are about, from its number of
    matches; None for a Swiss round, and for a message recorded before the outbox kept
    that number (it says the round's number, as it did)."""
    matches = facts.get("playoff_matches")
    if not facts.get("playoff") or not isinstance(matches, int):
        return None
    return RoundName.playoff(matches, int(facts.get("round") or 0))


def words(kind: str, facts: dict[str, Any]) -> tuple[str, str]:
    """The notification's title and body, in the active language."""
    table, number = facts.get("table"), facts.get("round")
    if kind == outbox.PAIRING:
        if facts.get("match") == MatchKind.BYE:
            return _("Round %(round)s: bye") % {"round": number}, _(
                "You have a bye this round: nothing to play."
            )
        opponent = facts.get("opponent")
        name = playoff_round(facts)
        if table is None:
            title = say_round(name, number, PAIRED, round=number)
        else:
            title = say_round(name, number, PAIRED_AT_TABLE, round=number, table=table)
        if facts.get("match") == MatchKind.GAME:
            return title, _("Your pod is paired: find your table.")
        if opponent is None:
            return title, _("You have no opponent this round.")
        if table is None:
            return title, _("You play %(opponent)s.") % {"opponent": opponent}
        return title, _("You play %(opponent)s at table %(table)s.") % {
            "opponent": opponent,
            "table": table,
        }
    if kind == outbox.REPORTED:
        return (
            _("Table %(table)s: your opponent reported") % {"table": table},
            _("%(name)s reported %(score)s from your side: confirm or dispute it on your page.")
            % {"name": facts.get("by", ""), "score": facts.get("score", "")},
        )
    if kind == outbox.CLAIMED:
        return _("A judge is on the way"), _("A judge is coming to table %(table)s.") % {
            "table": table
        }
    if kind == outbox.NEW_CALL:
        note = facts.get("note") or ""
        body = _("Round %(round)s.") % {"round": number}
        return _("Judge call: table %(table)s") % {"table": table}, (
            f"{body} {note}" if note else body
        )
    if kind == outbox.CLOCK:
        return _("Five minutes left"), _(
            "Round %(round)s, table %(table)s: your time ends in five minutes."
        ) % {"round": number, "table": table}
    return _("Swiss tournaments"), ""


def payload(message: PushMessage) -> str:
    """The JSON the service worker receives (static/js/push-sw.js). No address: the
    worker opens the page it was registered from (the private link's token is stored
    nowhere on the server)."""
    sub = message.subscription
    language = sub.language or settings.LANGUAGE_CODE
    with translation.override(language):
        title, body = words(message.kind, message.facts)
    tag = f"{message.kind}-{message.facts.get('round', '')}-{message.facts.get('table', '')}"
    return json.dumps(
        {"title": title, "body": body, "tag": tag, "kind": message.kind, "lang": language},
        ensure_ascii=False,
    )


# --- delivery --------------------------------------------------------------------------------

SENT, RETRY, DEAD, FAILED = "sent", "retry", "dead", "failed"


@dataclass
class Outcome:
    status: str
    error: str = ""
    retry_after_s: int | None = None


@dataclass
class Pass:
    """What one pass over the outbox did."""

    sent: int = 0
    retried: int = 0
    dead: int = 0
    failed: int = 0
    expired: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def handled(self) -> int:
        return self.sent + self.retried + self.dead + self.failed


_local = threading.local()
_headers_lock = threading.Lock()
_headers: dict[str, tuple[float, dict[str, str]]] = {}


def _session() -> requests.Session:
    session = getattr(_local, "session", None)
    if session is None:
        session = _local.session = requests.Session()
    return session


def vapid_headers(endpoint: str) -> dict[str, str]:
    """The Authorization header for the endpoint's push service (its origin is the
    token's audience): signed once an hour per service, valid for twelve."""
    parts = urlsplit(endpoint)
    audience = f"{parts.scheme}://{parts.netloc}"
    now = time.time()
    with _headers_lock:
        cached = _headers.get(audience)
        if cached is not None and cached[0] > now:
            return cached[1]
    signer = Vapid02.from_raw(vapid_keys().private_key.encode("ascii"))
    claims = {"aud": audience, "exp": int(now) + 12 * 3600, "sub": subject()}
    signed = {k: v for k, v in signer.sign(claims).items()}
    with _headers_lock:
        _headers[audience] = (now + 3600, signed)
    return signed


def forget_vapid_headers() -> None:
    with _headers_lock:
        _headers.clear()


def _retry_after(response: requests.Response) -> int | None:
    raw = response.headers.get("Retry-After", "").strip()
    return int(raw) if raw.isdigit() else None


def deliver(message: PushMessage) -> Outcome:
    """Encrypt and post one message to its subscription's push service."""
    sub = message.subscription
    info = {"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}}
    try:
        data = payload(message)
        response = WebPusher(info, requests_session=_session()).send(
            data,
            headers={**vapid_headers(sub.endpoint), "Urgency": "high"},
            ttl=TTL_S,
            content_encoding="aes128gcm",
            timeout=TIMEOUT_S,
        )
    except requests.RequestException as exc:
        return Outcome(RETRY, f"{type(exc).__name__}: {exc}"[:ERROR_MAX])
    except Exception as exc:  # a key the library refuses: never worth a second try
        return Outcome(FAILED, f"{type(exc).__name__}: {exc}"[:ERROR_MAX])
    assert isinstance(response, requests.Response)
    code = response.status_code
    if code in (200, 201, 202):
        return Outcome(SENT)
    said = f"{code} {response.reason}: {response.text[:200]}"[:ERROR_MAX]
    if code in (404, 410):
        return Outcome(DEAD, said)
    if code == 429 or code >= 500:
        return Outcome(RETRY, said, _retry_after(response))
    return Outcome(FAILED, said)


def backoff_s(attempts: int, retry_after_s: int | None = None) -> int:
    """Seconds until the next attempt after `attempts` failed ones."""
    delay = min(FIRST_RETRY_S * 2 ** max(attempts - 1, 0), LONGEST_RETRY_S)
    return max(delay, min(retry_after_s or 0, LONGEST_RETRY_S * 6))


def claim(limit: int = BATCH, now: datetime | None = None) -> list[PushMessage]:
    """Due rows, taken for this sender: their next attempt moves past the lease and their
    attempts count up, in one short transaction."""
    now = now or timezone.now()
    with transaction.atomic():
        due = PushMessage.objects.filter(
            sent_at__isnull=True, gone=False, next_attempt_at__lte=now
        ).order_by("next_attempt_at", "id")
        if connection.features.has_select_for_update_skip_locked:
            due = due.select_for_update(skip_locked=True)
        ids = list(due.values_list("pk", flat=True)[:limit])
        if not ids:
            return []
        PushMessage.objects.filter(pk__in=ids).update(
            next_attempt_at=now + LEASE, attempts=F("attempts") + 1
        )
    return list(PushMessage.objects.filter(pk__in=ids).select_related("subscription"))


def _record(results: list[tuple[PushMessage, Outcome]], now: datetime, done: Pass) -> None:
    sent = [m.pk for m, o in results if o.status == SENT]
    if sent:
        PushMessage.objects.filter(pk__in=sent).update(sent_at=now)
    done.sent += len(sent)
    dead = {m.subscription_id for m, o in results if o.status == DEAD}
    if dead:
        PushSubscription.objects.filter(pk__in=dead).delete()  # their messages with them
    done.dead += sum(1 for _m, o in results if o.status == DEAD)
    for message, outcome in results:
        if outcome.status in (SENT, DEAD):
            continue
        done.errors.append(outcome.error)
        PushSubscription.objects.filter(pk=message.subscription_id).update(
            last_error=outcome.error[:ERROR_MAX], failures=F("failures") + 1
        )
        if outcome.status == RETRY and message.attempts < MAX_ATTEMPTS:
            later = now + timedelta(seconds=backoff_s(message.attempts, outcome.retry_after_s))
            PushMessage.objects.filter(pk=message.pk).update(next_attempt_at=later)
            done.retried += 1
        else:
            PushMessage.objects.filter(pk=message.pk).update(gone=True)
            done.failed += 1
    if sent:
        # A delivery that works clears what an earlier failure left on the subscription.
        PushSubscription.objects.filter(
            pk__in={m.subscription_id for m, o in results if o.status == SENT}, failures__gt=0
        ).update(last_error="", failures=0)


def expire(now: datetime) -> int:
    """Give up messages too old to be worth sending; delete old sent or given-up rows."""
    stale = PushMessage.objects.filter(
        sent_at__isnull=True, gone=False, created_at__lt=now - MAX_AGE
    ).update(gone=True)
    PushMessage.objects.filter(created_at__lt=now - KEEP_DONE).exclude(
        sent_at__isnull=True, gone=False
    ).delete()
    return stale


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="push")
        return _pool


def send_due(*, limit: int = BATCH, now: Callable[[], datetime] = timezone.now) -> Pass:
    """One pass: the clock's warnings that fell due are recorded, then every due message
    (up to `limit`) is sent, the posts side by side."""
    done = Pass()
    started = now()
    done.expired = expire(started)
    outbox.record_clock_warnings(started)
    messages = claim(limit, started)
    if not messages:
        return done
    results = list(zip(messages, _executor().map(deliver, messages), strict=True))
    _record(results, now(), done)
    return done


def run(stop: threading.Event, *, idle_s: float = IDLE_S) -> None:
    """The sender's loop, until `stop` is set: a pass, then (when the outbox had nothing
    due) a short wait."""
    try:
        _loop(stop, idle_s)
    finally:
        connection.close()  # this thread's own


def _loop(stop: threading.Event, idle_s: float) -> None:
    while not stop.is_set():
        try:
            close_old_connections()
            done = send_due()
        except Exception:  # the database away, a bug: logged, and the loop goes on
            log.exception("push sender: a pass failed")
            done = Pass()
        finally:
            close_old_connections()
        if done.handled < BATCH:
            stop.wait(idle_s)


@dataclass
class Background:
    stop: threading.Event
    thread: threading.Thread

    def close(self, timeout_s: float = 15) -> None:
        self.stop.set()
        self.thread.join(timeout_s)


def start_in_background() -> Background:
    """The sender as a daemon thread of this process (tournaments/asgi.py)."""
    stop = threading.Event()
    thread = threading.Thread(target=run, args=(stop,), name="push-sender", daemon=True)
    thread.start()
    return Background(stop, thread)
