"""Notifications with Web Push (issue 29): subscriptions, and the outbox.

A write that players or judges hear about records what to send (PushMessage rows) in its
own transaction, one statement whatever the number of subscribers, and only for those
who subscribed: the pairing click costs one INSERT ... SELECT. Sending never runs in a
request: the sender (tournaments.webpush) delivers the rows, retries and drops dead
subscriptions. A write rolled back takes its messages with it; a message is only ever
about something committed.

What is recorded is the facts (round, table, opponent ...), not the words: the sender
words them in the subscription's language when it sends them.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.db import connection, transaction
from django.db.models import (
    BooleanField,
    Count,
    DateTimeField,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce, JSONObject
from django.utils import timezone

from tournaments.messages import Message, gettext_noop, template
from tournaments.models import (
    JudgeCall,
    Match,
    MatchKind,
    Player,
    PushMessage,
    PushSubscription,
    Round,
    Seat,
    StaffMember,
    Status,
    TimeExtension,
    Tournament,
)
from tournaments.rules import score_text
from tournaments.services.writing import ServiceError
from tournaments.vapid import b64url_decode

# What the outbox holds, by kind (tournaments.webpush words each).
PAIRING = "pairing"
REPORTED = "reported"
CLAIMED = "claimed"
NEW_CALL = "new_call"
CLOCK = "clock"

# The round clock's warning: this long before the round (or the table's extended time)
# ends.
CLOCK_WARNING = timedelta(minutes=5)

ENDPOINT_MAX = 1000


# Refusals, raised as Messages and said where they are shown (issue 36).
NOT_A_URL = template("push.not_a_url", gettext_noop("its endpoint is not a URL"))
NOT_PUSH_URL = template(
    "push.not_push_url", gettext_noop("its endpoint is not a push service's URL")
)
NOT_HTTPS = template("push.not_https", gettext_noop("its endpoint is not an https:// URL"))
NOT_PUBLIC = template("push.not_public", gettext_noop("its endpoint is not on the internet"))
NOT_AN_OBJECT = template(
    "push.not_an_object", gettext_noop("The subscription is not a JSON object.")
)
NO_ENDPOINT = template("push.no_endpoint", gettext_noop("The subscription has no endpoint."))
ENDPOINT_TOO_LONG = template(
    "push.endpoint_too_long",
    gettext_noop("The subscription's endpoint is longer than %(max)d characters."),
)
# %(why)s: one of the four above (a Message).
REFUSED = template("push.refused", gettext_noop("The subscription is refused: %(why)s."))
NO_KEYS = template("push.no_keys", gettext_noop("The subscription has no keys (p256dh and auth)."))
BOTH_KEYS = template(
    "push.both_keys", gettext_noop("The subscription's keys need both p256dh and auth.")
)
BAD_P256DH = template(
    "push.bad_p256dh", gettext_noop("The subscription's p256dh key is not a P-256 public key.")
)
BAD_AUTH = template(
    "push.bad_auth", gettext_noop("The subscription's auth secret is not 16 bytes.")
)
FINISHED = template(
    "push.finished", gettext_noop("The event is finished: there is nothing left to notify.")
)


class SubscriptionRefused(ServiceError):
    """A subscription the browser sent that cannot be used; the message says why."""


@dataclass(frozen=True)
class Subscription:
    """What PushManager.subscribe gave the page (PushSubscription.toJSON())."""

    endpoint: str
    p256dh: str
    auth: str


def _endpoint_allowed(endpoint: str) -> Message | None:
    """Why the sender must not post to this address, or None. Push services are HTTPS
    on public hosts; anything else would let a page make this server post to a machine
    of its network. This machine's own addresses, over HTTP too, only with the setting
    PUSH_LOCAL_ENDPOINTS (the tests' and the bench's fake push service)."""
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname or ""
        parts.port  # noqa: B018  (a bad port raises here)
    except ValueError:
        return NOT_A_URL()
    if not host or parts.username or parts.password:
        return NOT_PUSH_URL()
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        ip = None
    local = host == "localhost" or (ip is not None and ip.is_loopback)
    if (
        getattr(settings, "PUSH_LOCAL_ENDPOINTS", False)
        and local
        and parts.scheme in ("http", "https")
    ):
        return None
    if parts.scheme != "https":
        return NOT_HTTPS()
    if local or (ip is not None and (ip.is_private or ip.is_link_local or ip.is_reserved)):
        return NOT_PUBLIC()
    return None


def check_subscription(data: Any) -> Subscription:
    """The subscription the page posted ({"endpoint", "keys": {"p256dh", "auth"}}), or
    SubscriptionRefused naming what is wrong with it."""
    if not isinstance(data, dict):
        raise SubscriptionRefused(NOT_AN_OBJECT())
    endpoint = data.get("endpoint")
    keys = data.get("keys")
    if not isinstance(endpoint, str) or not endpoint:
        raise SubscriptionRefused(NO_ENDPOINT())
    if len(endpoint) > ENDPOINT_MAX:
        raise SubscriptionRefused(ENDPOINT_TOO_LONG(max=ENDPOINT_MAX))
    problem = _endpoint_allowed(endpoint)
    if problem:
        raise SubscriptionRefused(REFUSED(why=problem))
    if not isinstance(keys, dict):
        raise SubscriptionRefused(NO_KEYS())
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    if not isinstance(p256dh, str) or not isinstance(auth, str):
        raise SubscriptionRefused(BOTH_KEYS())
    try:
        point = b64url_decode(p256dh)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise SubscriptionRefused(BAD_P256DH()) from None
    try:
        secret = b64url_decode(auth)
    except ValueError:
        secret = b""
    if len(secret) != 16:
        raise SubscriptionRefused(BAD_AUTH())
    return Subscription(endpoint, p256dh.strip(), auth.strip())


def subscribe(
    *,
    tournament: Tournament,
    subscription: Subscription,
    player: Player | None = None,
    user: Any = None,
    language: str = "",
) -> PushSubscription:
    """The browser's subscription, for the player (their private page) or the judge (the
    judges' screen). An endpoint already known moves to whoever subscribes it now: only
    the browser that holds it can hand it over."""
    if (player is None) == (user is None):
        raise ValueError("a subscription is a player's or a user's")
    if tournament.status == Status.FINISHED:
        raise ServiceError(FINISHED())
    found, _created = PushSubscription.objects.update_or_create(
        endpoint=subscription.endpoint,
        defaults={
            "tournament": tournament,
            "player": player,
            "user": user,
            "p256dh": subscription.p256dh,
            "auth": subscription.auth,
            "language": language[:16],
            "last_error": "",
            "failures": 0,
        },
    )
    return found


def unsubscribe(
    *, tournament: Tournament, endpoint: str, player: Player | None = None, user: Any = None
) -> bool:
    """Forget the subscription (the player or judge turned notifications off); False when
    there was none of theirs at that endpoint."""
    mine = Q(player=player) if player is not None else Q(user=user, player__isnull=True)
    deleted, _rows = PushSubscription.objects.filter(
        mine, tournament=tournament, endpoint=endpoint
    ).delete()
    return deleted > 0


def subscribed(*, tournament: Tournament, player: Player | None = None, user: Any = None) -> int:
    """How many browsers of the player's (or judge's) are subscribed for the event."""
    mine = Q(player=player) if player is not None else Q(user=user, player__isnull=True)
    return PushSubscription.objects.filter(mine, tournament=tournament).count()


# --- the outbox ----------------------------------------------------------------------------


def _insert_select(rows: QuerySet[Any], now: datetime) -> int:
    """INSERT INTO the outbox SELECT `rows` (annotated o_sub, o_kind, o_facts, o_key):
    one statement, whatever the number of subscribers."""
    when = Value(now, output_field=DateTimeField())
    select = rows.annotate(
        o_created=when,
        o_attempts=Value(0, output_field=IntegerField()),
        o_next=when,
        o_sent=Value(None, output_field=DateTimeField()),
        o_gone=Value(False, output_field=BooleanField()),
    ).values_list(*(f"o_{suffix}" for suffix in OUTBOX_COLUMNS))
    sql, params = select.query.get_compiler(using=rows.db).as_sql()
    q = connection.ops.quote_name
    columns = ", ".join(q(c) for c in OUTBOX_COLUMNS.values())
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {q(PushMessage._meta.db_table)} ({columns}) {sql}", params)
        return cursor.rowcount


# The outbox's columns, in the order _insert_select selects them (by annotation suffix).
OUTBOX_COLUMNS = {
    "sub": "subscription_id",
    "kind": "kind",
    "facts": "facts",
    "key": "key",
    "created": "created_at",
    "attempts": "attempts",
    "next": "next_attempt_at",
    "sent": "sent_at",
    "gone": "gone",
}


def record_pairing(round_: Round) -> int:
    """Every subscribed player of the round just paired: their table and opponent (and in
    the top cut, how many matches its round has). In the pairing's transaction, one
    INSERT ... SELECT (nothing but the statement when nobody subscribed)."""
    now = timezone.now()
    opponent = (
        Seat.objects.filter(match=OuterRef("match"))
        .exclude(player=OuterRef("player"))
        .order_by("position")
        .values("player__name")[:1]
    )
    facts: dict[str, Any] = {
        "round": Value(round_.number),
        "playoff": Value(round_.playoff),
        "table": F("match__table"),
        "match": F("match__kind"),
        "opponent": Subquery(opponent),
    }
    if round_.playoff:
        # A playoff round's name is its number of matches (4 the Quarterfinals, 2 the
        # Semifinals, 1 the Final: rules.playoff_name): the sender names the round from
        # it in the subscriber's language. Counted in the same statement.
        matches = (
            Match.objects.filter(round_id=round_.pk)
            .order_by()
            .values("round_id")
            .annotate(n=Count("pk"))
            .values("n")
        )
        facts["playoff_matches"] = Subquery(matches)
    rows = (
        Seat.objects.filter(
            round=round_,
            player__push_subscriptions__tournament_id=round_.tournament_id,
        )
        .annotate(
            o_sub=F("player__push_subscriptions__id"),
            o_kind=Value(PAIRING),
            o_facts=JSONObject(**facts),
            o_key=Value(""),
        )
        .order_by()
    )
    return _insert_select(rows, now)


def _player_messages(
    players: list[int], kind: str, facts: dict[str, Any], tournament_id: int
) -> int:
    now = timezone.now()
    rows = [
        PushMessage(subscription_id=pk, kind=kind, facts=facts, created_at=now, next_attempt_at=now)
        for pk in PushSubscription.objects.filter(
            player_id__in=players, tournament_id=tournament_id
        ).values_list("pk", flat=True)
    ]
    PushMessage.objects.bulk_create(rows)
    return len(rows)


def record_report(
    *, match: Match, seats: list[Seat], reporter: Player, wins: tuple[int, int], draws: int
) -> int:
    """The reporter's opponent: what was reported, from the opponent's own side (seat
    order `wins`), to confirm or dispute."""
    others = [s for s in seats if s.player_id != reporter.pk]
    if not others:
        return 0
    them = 0 if seats[0].player_id == others[0].player_id else 1
    mine, theirs = (wins[0], wins[1]) if them == 0 else (wins[1], wins[0])
    facts = {
        "round": match.round.number,
        "table": match.table,
        "by": reporter.name,
        "score": score_text([mine, theirs], draws),
    }
    return _player_messages([s.player_id for s in others], REPORTED, facts, reporter.tournament_id)


def record_claim(call: JudgeCall) -> int:
    """The player who called: a judge is on the way."""
    if call.player_id is None:
        return 0
    facts = {"round": call.round_number, "table": call.table}
    return _player_messages([call.player_id], CLAIMED, facts, call.tournament_id)


def record_new_call(call: JudgeCall) -> int:
    """Every judge of the event who subscribed on the judges' screen (and is still on its
    staff, or its owner): a new call, its table."""
    now = timezone.now()
    t = Tournament.objects.only("owner_id").get(pk=call.tournament_id)
    staff = StaffMember.objects.filter(tournament_id=call.tournament_id).values("user_id")
    facts = {"round": call.round_number, "table": call.table, "note": call.note}
    rows = [
        PushMessage(
            subscription_id=pk, kind=NEW_CALL, facts=facts, created_at=now, next_attempt_at=now
        )
        for pk in PushSubscription.objects.filter(
            Q(user_id=t.owner_id) | Q(user_id__in=staff),
            tournament_id=call.tournament_id,
            user__isnull=False,
        ).values_list("pk", flat=True)
    ]
    PushMessage.objects.bulk_create(rows)
    return len(rows)


def record_clock_warnings(now: datetime | None = None) -> int:
    """The round clock's warning (the sender's tick, not a write's): every subscribed
    player at a table still playing whose time (the round's clock, plus the table's
    extensions) ends within CLOCK_WARNING. Once per player's subscription and round: a
    clock moved after the warning does not warn again."""
    now = now or timezone.now()
    # Rounds whose clock runs and ends soon enough for any table (extensions only ever
    # add time, so a round whose clock ends later than the warning is not yet due).
    rounds = list(
        Round.objects.filter(
            clock_ends_at__isnull=False,
            clock_ends_at__lte=now + CLOCK_WARNING,
            clock_ends_at__gt=now - timedelta(hours=2),
            tournament__status__in=[Status.RUNNING, Status.TOP_CUT],
            tournament__push_subscriptions__player__isnull=False,
        )
        .distinct()
        .values_list("pk", "number", "clock_ends_at")
    )
    made = 0
    for pk, number, ends_at in rounds:
        extra = TimeExtension.objects.filter(match=OuterRef("match")).values("match")
        seats = (
            Seat.objects.filter(
                round_id=pk,
                match__reported=False,
                match__kind=MatchKind.PLAYED,
                player__push_subscriptions__isnull=False,
            )
            .annotate(
                extra_minutes=Coalesce(
                    Subquery(extra.annotate(m=Sum("minutes")).values("m")[:1]), 0
                )
            )
            .values_list("player__push_subscriptions__id", "match__table", "extra_minutes")
        )
        rows = []
        for sub, table, minutes in seats:
            ends = ends_at + timedelta(minutes=minutes)
            if ends - CLOCK_WARNING <= now < ends:
                facts = {"round": number, "table": table, "ends_at": ends.isoformat()}
                rows.append(
                    PushMessage(
                        subscription_id=sub, kind=CLOCK, facts=facts, key=f"clock:{pk}",
                        created_at=now, next_attempt_at=now,
                    )
                )  # fmt: skip
        if rows:
            with transaction.atomic():
                PushMessage.objects.bulk_create(rows, ignore_conflicts=True)
            made += len(rows)
    return made
