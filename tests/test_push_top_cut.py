"""Web Push in the top cut (issue 29): starting the cut tells each subscribed player in it
their table like any pairing (it is paired by playoff.start_top_cut, not by
pair_next_round), and a playoff round's notification names the round as the bracket
does, in the subscriber's language."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from tests.helpers import fresh, swiss_doc
from tests.push_service import Browser
from tournaments import services
from tournaments.models import Player, PushMessage, Seat, Tournament
from tournaments.services import push

pytestmark = pytest.mark.django_db

# Ten players, three Swiss rounds (the first seat wins 2-1): a top 8 leaves two out.
SWISS = [
    "p1-p2 p3-p4 p5-p6 p7-p8 p9-p10",
    "p1-p3 p5-p7 p9-p2 p4-p6 p8-p10",
    "p1-p5 p3-p9 p2-p4 p6-p8 p7-p10",
]


@pytest.fixture
def swiss(owner: User) -> Tournament:
    """Three Swiss rounds played, every player's phone subscribed, the cut not started."""
    t = services.import_document(swiss_doc("Push Cut", SWISS, players=10, seed=5), owner=owner)
    for p in Player.objects.filter(tournament=t):
        subscribe(p)
    return fresh(t)


def subscribe(p: Player, language: str = "") -> None:
    sub = push.check_subscription(
        Browser().subscription(f"https://push.example.net/send/{p.external_id}")
    )
    push.subscribe(tournament=p.tournament, subscription=sub, player=p, language=language)


def pairings(number: int) -> dict[str, PushMessage]:
    """The pairing notifications of round `number`, by their player's name."""
    rows = PushMessage.objects.filter(kind=push.PAIRING, facts__round=number)
    return {m.subscription.player.name: m for m in rows.select_related("subscription__player")}


def test_starting_a_top_8_tells_each_subscribed_player_in_the_cut_their_table_and_no_one_else(
    swiss: Tournament, owner: User
) -> None:
    services.start_top_cut(tournament=swiss, size=8, by=owner)
    cut = Seat.objects.filter(round__tournament=swiss, round__number=4).select_related(
        "player", "match"
    )
    told = pairings(4)
    assert set(told) == {s.player.name for s in cut} and len(told) == 8
    for seat in cut:
        facts = told[seat.player.name].facts
        opponent = cut.filter(match=seat.match).exclude(pk=seat.pk).get().player.name
        assert facts["table"] == seat.match.table and facts["opponent"] == opponent
        assert facts["playoff"]  # (SQLite's JSON keeps the flag as 1)
    assert PushMessage.objects.count() == 8  # the two players left out hear nothing


def test_a_top_cut_refused_records_no_notification(swiss: Tournament, owner: User) -> None:
    services.start_top_cut(tournament=swiss, size=8, by=owner)
    PushMessage.objects.all().delete()
    with pytest.raises(services.ServiceError):  # it has started already
        services.start_top_cut(tournament=fresh(swiss), size=8, by=owner)
    assert PushMessage.objects.count() == 0
