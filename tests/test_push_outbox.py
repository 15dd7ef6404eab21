"""Web Push's outbox (issue 29): the writes players and judges hear about record what to
send, in their own transaction, for subscribers only: the pairing (table and opponent),
the opponent's report, a judge taking a call, a new call for the judges. And the
subscriptions a page posts: checked, moved, forgotten."""

from __future__ import annotations

from typing import Any

import pytest

from tests.push_service import Browser
from tournaments import services
from tournaments.models import (
    Match,
    MatchKind,
    Player,
    PushMessage,
    PushSubscription,
    Seat,
    StaffRole,
    Tournament,
)
from tournaments.services import calls, push, reports
from tournaments.services.writing import ServiceError

pytestmark = pytest.mark.django_db
NAMES = ["Ana Souza", "Ben Ito", "Cleo Park", "Dev Rao", "Eva Lund"]


@pytest.fixture
def event(owner: Any) -> Tournament:
    t = services.create_tournament(name="Push Open", owner=owner, seed=5)
    services.register_players(tournament=t, names=NAMES)
    return t


def endpoint(name: str) -> str:
    return f"https://push.example.net/send/{name}"


def subscribe(t: Tournament, *, player: Player | None = None, user: Any = None, name: str) -> None:
    sub = push.check_subscription(Browser().subscription(endpoint(name)))
    push.subscribe(tournament=t, subscription=sub, player=player, user=user)


def by_name(t: Tournament, name: str) -> Player:
    return Player.objects.get(tournament=t, name=name)


def messages(kind: str) -> list[tuple[str, dict[str, Any]]]:
    rows = PushMessage.objects.filter(kind=kind).select_related(
        "subscription__player", "subscription__user"
    )
    return [
        (
            m.subscription.player.name if m.subscription.player else m.subscription.user.username,
            m.facts,
        )
        for m in rows.order_by("id")
    ]


def test_pairing_records_one_message_per_subscribed_player_with_table_and_opponent(
    event: Tournament,
) -> None:
    for name in ("Ana Souza", "Ben Ito", "Eva Lund"):
        subscribe(event, player=by_name(event, name), name=name)
    services.pair_next_round(tournament=event)
    got = dict(messages("pairing"))
    assert set(got) == {"Ana Souza", "Ben Ito", "Eva Lund"}
    for name, facts in got.items():
        seat = Seat.objects.select_related("match").get(player__name=name, round__number=1)
        others = list(
            Seat.objects.filter(match=seat.match)
            .exclude(pk=seat.pk)
            .values_list("player__name", flat=True)
        )
        assert facts["round"] == 1 and facts["table"] == seat.match.table
        assert facts["match"] == seat.match.kind
        assert facts["opponent"] == (others[0] if others else None)
    assert PushMessage.objects.filter(sent_at__isnull=True, attempts=0).count() == 3


def test_a_player_with_two_phones_gets_a_message_on_each(event: Tournament) -> None:
    ana = by_name(event, "Ana Souza")
    subscribe(event, player=ana, name="ana-phone")
    subscribe(event, player=ana, name="ana-tablet")
    services.pair_next_round(tournament=event)
    assert PushMessage.objects.filter(kind="pairing").count() == 2


def test_nothing_is_recorded_for_players_without_a_subscription(event: Tournament) -> None:
    services.pair_next_round(tournament=event)
    assert PushMessage.objects.count() == 0


def test_the_bye_is_told_as_a_bye(event: Tournament) -> None:
    for name in NAMES:
        subscribe(event, player=by_name(event, name), name=name)
    services.pair_next_round(tournament=event)
    byes = [f for _n, f in messages("pairing") if f["match"] == MatchKind.BYE]
    assert len(byes) == 1 and byes[0]["opponent"] is None


def test_a_refused_pairing_records_nothing(event: Tournament) -> None:
    subscribe(event, player=by_name(event, "Ana Souza"), name="ana")
    services.pair_next_round(tournament=event)
    PushMessage.objects.all().delete()
    with pytest.raises(ServiceError):  # round 1's results are not in
        services.pair_next_round(tournament=event)
    assert PushMessage.objects.count() == 0


def test_another_events_subscription_is_not_told_of_this_pairing(
    event: Tournament, owner: Any
) -> None:
    other = services.create_tournament(name="Other Open", owner=owner, seed=2)
    services.register_players(tournament=other, names=["Zoe", "Yan"])
    subscribe(other, player=Player.objects.get(tournament=other, name="Zoe"), name="zoe")
    services.pair_next_round(tournament=event)
    assert PushMessage.objects.count() == 0


def played_table(t: Tournament) -> tuple[Match, Player, Player]:
    match = Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED).order_by("table")[0]
    a, b = (s.player for s in match.seats.select_related("player").order_by("position"))
    return match, a, b


def test_a_report_records_one_message_for_the_opponent_from_their_side(
    event: Tournament,
) -> None:
    services.pair_next_round(tournament=event)
    match, a, b = played_table(event)
    subscribe(event, player=a, name="a")
    subscribe(event, player=b, name="b")
    reports.report(player=a, match=match, wins_mine=2, wins_theirs=1)
    assert messages("reported") == [
        (b.name, {"round": 1, "table": match.table, "by": a.name, "score": "1-2"})
    ]


def test_a_changed_report_tells_the_opponent_again_and_a_confirmation_does_not(
    event: Tournament,
) -> None:
    services.pair_next_round(tournament=event)
    match, a, b = played_table(event)
    subscribe(event, player=a, name="a")
    subscribe(event, player=b, name="b")
    reports.report(player=a, match=match, wins_mine=2, wins_theirs=1)
    reports.report(player=a, match=match, wins_mine=2, wins_theirs=0)
    assert [f["score"] for _n, f in messages("reported")] == ["1-2", "0-2"]
    reports.report(player=b, match=match, wins_mine=0, wins_theirs=2)  # confirms
    assert len(messages("reported")) == 2


def test_a_report_records_nothing_when_the_opponent_has_no_subscription(
    event: Tournament,
) -> None:
    services.pair_next_round(tournament=event)
    match, a, _b = played_table(event)
    subscribe(event, player=a, name="a")
    reports.report(player=a, match=match, wins_mine=2, wins_theirs=1)
    assert PushMessage.objects.filter(kind="reported").count() == 0


@pytest.fixture
def judges(event: Tournament, owner: Any, django_user_model: Any) -> dict[str, Any]:
    services.pair_next_round(tournament=event)
    people = {"owner": owner}
    for role in (StaffRole.HEAD_JUDGE, StaffRole.FLOOR_JUDGE, StaffRole.SCOREKEEPER):
        user = django_user_model.objects.create_user(role.value)
        services.add_staff(tournament=event, username=user.username, role=role, by=owner)
        people[role.value] = user
    return people


def test_a_new_call_is_told_to_every_subscribed_judge_and_to_no_player(
    event: Tournament, judges: dict[str, Any]
) -> None:
    subscribe(event, user=judges["head_judge"], name="head")
    subscribe(event, user=judges["floor_judge"], name="floor")
    subscribe(event, user=judges["owner"], name="owner")
    match, a, b = played_table(event)
    subscribe(event, player=b, name="b")
    calls.call_judge(player=a, note="Wrong deck")
    got = messages("new_call")
    assert {n for n, _f in got} == {"head_judge", "floor_judge", "owner"}
    assert all(f == {"round": 1, "table": match.table, "note": "Wrong deck"} for _n, f in got)


def test_a_call_a_judge_opens_is_told_too_and_a_removed_judge_hears_nothing(
    event: Tournament, judges: dict[str, Any]
) -> None:
    subscribe(event, user=judges["floor_judge"], name="floor")
    subscribe(event, user=judges["head_judge"], name="head")
    services.remove_staff(tournament=event, user_id=judges["floor_judge"].pk, by=judges["owner"])
    match, _a, _b = played_table(event)
    calls.open_call(tournament=event, table=match.table, by=judges["head_judge"])
    assert [n for n, _f in messages("new_call")] == ["head_judge"]


def test_a_judge_taking_a_call_tells_the_player_who_called(
    event: Tournament, judges: dict[str, Any]
) -> None:
    match, a, b = played_table(event)
    subscribe(event, player=a, name="a")
    subscribe(event, player=b, name="b")
    call = calls.call_judge(player=a)
    calls.claim_call(call=call, by=judges["floor_judge"])
    assert messages("claimed") == [(a.name, {"round": 1, "table": match.table})]
    calls.claim_call(call=call, by=judges["floor_judge"])  # a second tap: nothing new
    assert len(messages("claimed")) == 1


def test_a_call_a_judge_opened_tells_no_player_when_taken(
    event: Tournament, judges: dict[str, Any]
) -> None:
    match, a, _b = played_table(event)
    subscribe(event, player=a, name="a")
    call = calls.open_call(tournament=event, table=match.table, by=judges["head_judge"])
    calls.claim_call(call=call, by=judges["floor_judge"])
    assert messages("claimed") == []


# --- subscriptions ---------------------------------------------------------------------------


def test_subscribing_the_same_browser_again_moves_it_and_unsubscribing_forgets_it(
    event: Tournament,
) -> None:
    ana, ben = by_name(event, "Ana Souza"), by_name(event, "Ben Ito")
    browser = Browser()
    sub = push.check_subscription(browser.subscription(endpoint("shared")))
    push.subscribe(tournament=event, subscription=sub, player=ana, language="fr")
    push.subscribe(tournament=event, subscription=sub, player=ben)
    found = PushSubscription.objects.get()
    assert found.player == ben
    assert push.subscribed(tournament=event, player=ana) == 0
    assert not push.unsubscribe(tournament=event, endpoint=sub.endpoint, player=ana)
    assert push.unsubscribe(tournament=event, endpoint=sub.endpoint, player=ben)
    assert PushSubscription.objects.count() == 0


def test_a_finished_event_takes_no_subscription(event: Tournament) -> None:
    Tournament.objects.filter(pk=event.pk).update(status="finished")
    event.refresh_from_db()
    sub = push.check_subscription(Browser().subscription(endpoint("late")))
    with pytest.raises(ServiceError, match="finished"):
        push.subscribe(tournament=event, subscription=sub, player=by_name(event, "Ana Souza"))


GOOD = Browser()


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ([], "The subscription is not a JSON object."),
        ({"keys": {}}, "The subscription has no endpoint."),
        ({"endpoint": "https://x.example/" + "a" * 1000, "keys": {}}, "longer than 1000"),
        ({"endpoint": "http://push.example.net/x", "keys": {}}, "not an https:// URL"),
        ({"endpoint": "https://127.0.0.1/x", "keys": {}}, "not on the internet"),
        ({"endpoint": "https://10.0.0.5/x", "keys": {}}, "not on the internet"),
        ({"endpoint": "https://localhost:8000/x", "keys": {}}, "not on the internet"),
        ({"endpoint": "https://push.example.net/x"}, "has no keys"),
        ({"endpoint": "https://push.example.net/x", "keys": {"auth": "x"}}, "need both"),
        (
            {
                "endpoint": "https://push.example.net/x",
                "keys": {"p256dh": "AAAA", "auth": GOOD.auth},
            },
            "p256dh key is not a P-256 public key",
        ),
        (
            {
                "endpoint": "https://push.example.net/x",
                "keys": {"p256dh": GOOD.p256dh, "auth": "AAAA"},
            },
            "auth secret is not 16 bytes",
        ),
    ],
)
def test_a_subscription_that_cannot_be_used_is_refused_naming_the_problem(
    data: Any, said: str
) -> None:
    with pytest.raises(push.SubscriptionRefused, match=said.replace(".", r"\.")):
        push.check_subscription(data)


def test_a_local_push_service_is_taken_only_where_the_setting_allows_it(settings: Any) -> None:
    data = GOOD.subscription("http://127.0.0.1:9/push/x")
    with pytest.raises(push.SubscriptionRefused):
        push.check_subscription(data)
    settings.PUSH_LOCAL_ENDPOINTS = True
    assert push.check_subscription(data).endpoint == "http://127.0.0.1:9/push/x"
