"""Web Push in the top cut (issue 29): starting the cut tells each subscribed player in it
their table like any pairing (it is paired by playoff.start_top_cut, not by
pair_next_round), and a playoff round's notification names the round as the bracket
does, in the subscriber's language."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User

from tests.helpers import fresh, play_open_matches, swiss_doc
from tests.push_service import Browser
from tournaments import services, webpush
from tournaments.models import Player, PushMessage, PushSubscription, Seat, Tournament
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


def titles(number: int) -> dict[str, str]:
    """What each subscribed player's phone shows as the title of round `number`'s
    pairing, in their own language, by their name."""
    return {name: json.loads(webpush.payload(m))["title"] for name, m in pairings(number).items()}


def table_of(t: Tournament, name: str, number: int) -> int:
    seat = Seat.objects.select_related("match").get(
        round__tournament=t, round__number=number, player__name=name
    )
    return seat.match.table


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


def test_starting_a_top_8_names_the_quarterfinals_and_each_players_table(
    swiss: Tournament, owner: User
) -> None:
    services.start_top_cut(tournament=swiss, size=8, by=owner)
    got = titles(4)
    assert len(got) == 8
    for name, title in got.items():
        assert title == f"Quarterfinals: table {table_of(swiss, name, 4)}"


def test_the_semifinals_and_the_final_name_themselves(swiss: Tournament, owner: User) -> None:
    services.start_top_cut(tournament=swiss, size=8, by=owner)
    play_open_matches(swiss, round__number=4)
    services.pair_next_round(tournament=fresh(swiss), by=owner)
    semifinals = titles(5)
    assert sorted(semifinals.values()) == ["Semifinals: table 1"] * 2 + ["Semifinals: table 2"] * 2
    play_open_matches(swiss, round__number=5)
    services.pair_next_round(tournament=fresh(swiss), by=owner)
    assert list(titles(6).values()) == ["Final: table 1"] * 2


def test_a_top_4_starts_at_the_semifinals(swiss: Tournament, owner: User) -> None:
    services.start_top_cut(tournament=swiss, size=4, by=owner)
    got = titles(4)
    assert len(got) == 4
    assert sorted(got.values()) == ["Semifinals: table 1"] * 2 + ["Semifinals: table 2"] * 2


def test_a_french_or_japanese_subscriber_reads_the_playoff_rounds_name_in_their_language(
    swiss: Tournament, owner: User
) -> None:
    seeds = Player.objects.filter(tournament=swiss, external_id__in=["p1", "p3"])
    PushSubscription.objects.filter(player__in=seeds).delete()
    french, japanese = (seeds.get(external_id=e) for e in ("p1", "p3"))
    subscribe(french, "fr")
    subscribe(japanese, "ja")
    services.start_top_cut(tournament=swiss, size=8, by=owner)
    got = titles(4)
    assert got[french.name] == f"Quarts de finale : table {table_of(swiss, french.name, 4)}"
    assert got[japanese.name] == f"準々決勝: {table_of(swiss, japanese.name, 4)}卓"
    # The others subscribed without a language: the site's own, English.
    others = [title for name, title in got.items() if name not in (french.name, japanese.name)]
    assert len(others) == 6 and all(t.startswith("Quarterfinals: table ") for t in others)


def test_a_swiss_round_and_a_message_recorded_before_the_count_say_the_rounds_number() -> None:
    """The outbox keeps facts: a playoff message recorded before it kept the round's
    number of matches (a sender updated with messages waiting) still reads as it did."""
    swiss_round = {"round": 3, "playoff": False, "table": 2, "match": "played", "opponent": "B"}
    assert webpush.words(push.PAIRING, swiss_round)[0] == "Round 3: table 2"
    older = {**swiss_round, "round": 4, "playoff": True}
    assert webpush.words(push.PAIRING, older)[0] == "Round 4: table 2"
    final = {**older, "playoff_matches": 1}
    assert webpush.words(push.PAIRING, final)[0] == "Final: table 2"
    assert webpush.words(push.PAIRING, {**final, "table": None})[0] == "Final"
