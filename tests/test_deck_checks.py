"""Deck checks (issue 27): a judge takes a table's decks (a suggested table whose players
have not been checked this event, or any table), then gives them back; the time the check
took is added to the table's time, rounded up to whole minutes."""

from __future__ import annotations

import random
import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.helpers import fresh, play_open_matches
from tournaments import services
from tournaments.models import (
    AuditAction,
    AuditEntry,
    DeckCheck,
    ExtensionReason,
    Match,
    MatchKind,
    Player,
    Round,
    StaffRole,
    TimeExtension,
    Tournament,
)
from tournaments.pages.audit import Context, Record
from tournaments.pages.floor_audit import deck_check_sentence
from tournaments.services.clock import start_clock
from tournaments.services.floor import (
    deck_check_history,
    finish_deck_check,
    start_deck_check,
    suggest_deck_check_tables,
)
from tournaments.services.writing import ServiceError

pytestmark = pytest.mark.django_db

ROLES = ["owner", "scorekeeper", "head_judge", "floor_judge", "stranger", "anonymous"]
STAFF = ["owner", "scorekeeper", "head_judge", "floor_judge"]


@pytest.fixture
def team(django_user_model: Any, owner: Any) -> dict[str, Any]:
    """Seventeen players, round 1 paired (tables 1-8 played, table 9 the bye), its clock
    running; a scorekeeper, a head judge, a floor judge and a stranger."""
    t = services.create_tournament(name="Check Open", owner=owner, seed=11)
    services.register_players(tournament=t, names=[f"P{i}" for i in range(1, 18)])
    round_ = services.pair_next_round(tournament=t)
    start_clock(round=round_, minutes=50, by=owner)
    people: dict[str, Any] = {"owner": owner}
    for role in StaffRole:
        user = django_user_model.objects.create_user(role.value)
        services.add_staff(tournament=t, username=user.username, role=role, by=owner)
        people[role.value] = user
    people["stranger"] = django_user_model.objects.create_user("stranger")
    return {"t": fresh(t), **people}


def table(t: Tournament, number: int, round_number: int = 1) -> Match:
    return Match.objects.get(round__tournament=t, round__number=round_number, table=number)


def client_of(team: dict[str, Any], role: str) -> Client:
    client = Client()
    if role != "anonymous":
        client.force_login(team[role])
    return client


def started_ago(check: DeckCheck, seconds: int) -> None:
    """The check began `seconds` ago (as if the judge had been counting cards meanwhile)."""
    DeckCheck.objects.filter(pk=check.pk).update(
        started_at=timezone.now() - timedelta(seconds=seconds)
    )


# --- the services ----------------------------------------------------------------------


def test_a_finished_check_gives_the_table_its_time_back_rounded_up(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    check = start_deck_check(tournament=t, match=table(t, 3), by=team["floor_judge"])
    assert check.finished_at is None and check.judge == team["floor_judge"]
    started = AuditEntry.objects.get(action=AuditAction.DECK_CHECK)
    assert (started.round, started.table, started.after) == (1, 3, {"event": "started"})
    assert started.players.count() == 2
    started_ago(check, 4 * 60 + 10)
    version = fresh(t).version
    done = finish_deck_check(check=check.pk, by=team["head_judge"], note="  sideboard  ok ")
    assert done.finished_at is not None and done.note == "sideboard ok"
    given = TimeExtension.objects.get(match=table(t, 3))
    assert (given.minutes, given.reason, given.deck_check_id) == (
        5,
        ExtensionReason.DECK_CHECK,
        check.pk,
    )
    assert fresh(t).version == version + 1
    finished = AuditEntry.objects.filter(action=AuditAction.DECK_CHECK).first()
    assert finished.after == {
        "event": "finished",
        "minutes": 5,
        "extension": 5,
        "note": "sideboard ok",
    }
    assert (finished.round, finished.table, finished.user) == (1, 3, team["head_judge"])


def test_a_check_of_a_few_seconds_still_gives_one_minute(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    check = start_deck_check(tournament=t, match=table(t, 1), by=team["owner"])
    finish_deck_check(check=check, by=team["owner"])
    assert TimeExtension.objects.get(deck_check=check).minutes == 1


def test_the_checks_minutes_move_the_tables_own_end(team: dict[str, Any]) -> None:
    from tournaments.pages.common import clock_state
    from tournaments.pages.public import player as player_page

    t: Tournament = team["t"]
    match = table(t, 2)
    check = start_deck_check(tournament=t, match=match, by=team["owner"])
    started_ago(check, 6 * 60 + 50)
    finish_deck_check(check=check, by=team["owner"])
    seat = match.seats.select_related("player").first()
    assert seat is not None
    card = player_page(fresh(t), seat.player)["card"]
    round_ = Round.objects.get(pk=match.round_id)
    assert card["clock"]["ends"] == round_.clock_ends_at + timedelta(minutes=7)
    assert card["clock"] == {**card["clock"], **{"extension": 7}}
    assert clock_state(round_, 7)["ends_at"] == card["clock"]["ends_at"]


def test_a_table_already_being_checked_is_not_checked_twice(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    start_deck_check(tournament=t, match=table(t, 4), by=team["owner"])
    with pytest.raises(ServiceError, match="Table 4 is being deck checked already"):
        start_deck_check(tournament=t, match=table(t, 4), by=team["floor_judge"])


def test_a_bye_a_reported_table_or_another_events_match_is_not_checked(
    team: dict[str, Any], owner: Any
) -> None:
    t: Tournament = team["t"]
    bye = Match.objects.get(round__tournament=t, kind=MatchKind.BYE)
    with pytest.raises(ServiceError, match="is a bye"):
        start_deck_check(tournament=t, match=bye, by=team["owner"])
    services.record_result(match=table(t, 5), wins=(2, 1))
    with pytest.raises(ServiceError, match="Table 5 has its result already"):
        start_deck_check(tournament=t, match=table(t, 5), by=team["owner"])
    other = services.create_tournament(name="Elsewhere", owner=owner, seed=1)
    services.register_players(tournament=other, names=["A", "B"])
    services.pair_next_round(tournament=other)
    with pytest.raises(ServiceError, match="not in this event"):
        start_deck_check(
            tournament=t, match=Match.objects.get(round__tournament=other), by=team["owner"]
        )
    assert not DeckCheck.objects.exists()


def test_a_finished_check_is_not_finished_again(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    check = start_deck_check(tournament=t, match=table(t, 1), by=team["owner"])
    finish_deck_check(check=check, by=team["owner"])
    with pytest.raises(ServiceError, match="finished already"):
        finish_deck_check(check=check, by=team["owner"])
    with pytest.raises(ServiceError, match="not in this event any more"):
        finish_deck_check(check=check.pk + 1000, by=team["owner"])
    with pytest.raises(ServiceError, match="under 300 characters"):
        finish_deck_check(check=check, by=team["owner"], note="x" * 301)
    assert TimeExtension.objects.count() == 1


def test_a_check_finished_after_the_tables_result_adds_no_time(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    check = start_deck_check(tournament=t, match=table(t, 6), by=team["owner"])
    services.record_result(match=table(t, 6), wins=(2, 0))
    finish_deck_check(check=check, by=team["owner"])
    assert not TimeExtension.objects.exists()
    entry = AuditEntry.objects.filter(action=AuditAction.DECK_CHECK).first()
    assert entry.after["extension"] == 0


# --- the suggestion ----------------------------------------------------------------------


def test_the_suggestion_is_the_same_for_the_same_seed(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    picks = [
        [m.table for m in suggest_deck_check_tables(tournament=t, count=3, rng=random.Random(s))]
        for s in (1, 1, 2)
    ]
    assert picks[0] == picks[1] and len(picks[0]) == 3
    assert picks[0] == sorted(picks[0])
    many = {
        tuple(m.table for m in suggest_deck_check_tables(tournament=t, rng=random.Random(s)))
        for s in range(40)
    }
    assert len(many) > 1  # the seed decides: not always the same table


def test_the_suggestion_never_picks_a_table_whose_players_were_checked(
    team: dict[str, Any],
) -> None:
    t: Tournament = team["t"]
    check = start_deck_check(tournament=t, match=table(t, 1), by=team["owner"])
    finish_deck_check(check=check, by=team["owner"])
    start_deck_check(tournament=t, match=table(t, 2), by=team["owner"])  # under way
    services.record_result(match=table(t, 3), wins=(2, 0))
    for seed in range(60):
        picked = suggest_deck_check_tables(tournament=t, count=8, rng=random.Random(seed))
        assert {m.table for m in picked} == {4, 5, 6, 7, 8}  # all that are left, no bye


def test_a_player_checked_in_an_earlier_round_is_not_suggested_again(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    checked = table(t, 1)
    finish_deck_check(check=start_deck_check(tournament=t, match=checked, by=None), by=None)
    play_open_matches(t)
    services.pair_next_round(tournament=t)
    people = set(checked.seats.values_list("player_id", flat=True))
    theirs = set(
        Match.objects.filter(
            round__tournament=t, round__number=2, seats__player_id__in=people
        ).values_list("table", flat=True)
    )
    assert theirs
    for seed in range(60):
        picked = suggest_deck_check_tables(tournament=t, count=2, rng=random.Random(seed))
        assert len(picked) == 2 and not {m.table for m in picked} & theirs
        assert all(m.round.number == 2 for m in picked)


def test_no_suggestion_once_every_open_table_was_checked(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    for number in range(1, 9):
        start_deck_check(tournament=t, match=table(t, number), by=None)
    assert suggest_deck_check_tables(tournament=t, count=1, rng=random.Random(0)) == []


# --- history per player -------------------------------------------------------------------


def test_a_players_history_lists_the_checks_of_their_tables_this_event(
    team: dict[str, Any],
) -> None:
    t: Tournament = team["t"]
    first = table(t, 1)
    player = Player.objects.get(seats__match=first, seats__position=0)
    finish_deck_check(check=start_deck_check(tournament=t, match=first, by=None), by=None)
    finish_deck_check(check=start_deck_check(tournament=t, match=table(t, 2), by=None), by=None)
    play_open_matches(t)
    services.pair_next_round(tournament=t)
    again = Match.objects.get(round__tournament=t, round__number=2, seats__player=player)
    start_deck_check(tournament=t, match=again, by=None)
    history = deck_check_history(player)
    assert [(c.match.round.number, c.match_id) for c in history] == [(1, first.pk), (2, again.pk)]
    stranger = Player.objects.get(seats__match=table(t, 2), seats__position=0)
    assert [c.match_id for c in deck_check_history(stranger)] == [table(t, 2).pk]


# --- the screen ----------------------------------------------------------------------------


def test_the_screen_suggests_a_table_and_shows_checks_under_way(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    check = start_deck_check(tournament=t, match=table(t, 7), by=team["floor_judge"])
    started_ago(check, 125)
    client = client_of(team, "floor_judge")
    page = client.get(reverse("judge_deck_checks", args=[t.slug]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "<html" in html and 'id="suggestion"' in html
    suggested = re.search(r'class="card suggestion" id="suggestion" data-table="(\d+)"', html)
    assert suggested is not None and suggested.group(1) != "7"
    running = re.search(r'<ul class="checks-running".*?</ul>', html, re.S)
    assert running is not None and "Table 7" in running.group(0)
    assert "2:0" in running.group(0) and "data-since=" in running.group(0)
    hx = client.get(reverse("judge_deck_checks", args=[t.slug]), headers={"HX-Request": "true"})
    assert hx.status_code == 200 and "<html" not in hx.content.decode()
    assert hx.content.decode().lstrip().startswith('<section id="deck-checks"')


def test_a_judge_starts_and_finishes_a_check_from_the_screen(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    client = client_of(team, "head_judge")
    url = reverse("judge_deck_check_start", args=[t.slug])
    response = client.post(url, {"table": "3"})
    assert response.status_code == 302
    check = DeckCheck.objects.get()
    assert check.match == table(t, 3)
    followed = client.get(response["Location"]).content.decode()
    assert "Deck check of table 3 started" in followed
    response = client.post(url, {"table": "4"}, headers={"HX-Request": "true"})
    assert (
        response.status_code == 200 and "Deck check of table 4 started" in response.content.decode()
    )
    started_ago(check, 90)
    finish = reverse("judge_deck_check_finish", args=[t.slug, check.pk])
    response = client.post(finish, {"note": "all fine"})
    assert response.status_code == 302
    assert TimeExtension.objects.get(deck_check=check).minutes == 2
    other = DeckCheck.objects.get(match=table(t, 4))
    response = client.post(
        reverse("judge_deck_check_finish", args=[t.slug, other.pk]), {"note": ""},
        headers={"HX-Request": "true"},
    )  # fmt: skip
    html = response.content.decode()
    assert response.status_code == 200 and "+1 min for the table." in html
    history = re.search(r'<table class="pairings compact checks-history".*?</table>', html, re.S)
    assert history is not None and "all fine" in history.group(0) and "(+2 min)" in history.group(0)


@pytest.mark.parametrize(
    ("typed", "message"),
    [("", "Type a table number."), ("42", "Round 1 has no table 42."), ("9", "Table 9 is a bye")],
)
def test_a_refused_start_says_why(team: dict[str, Any], typed: str, message: str) -> None:
    t: Tournament = team["t"]
    client = client_of(team, "floor_judge")
    url = reverse("judge_deck_check_start", args=[t.slug])
    plain = client.post(url, {"table": typed})
    assert plain.status_code == 422 and message in plain.content.decode()
    assert "<html" in plain.content.decode()
    hx = client.post(url, {"table": typed}, headers={"HX-Request": "true"})
    assert hx.status_code == 422 and message in hx.content.decode()
    assert "<html" not in hx.content.decode()
    assert not DeckCheck.objects.exists()


def test_a_refused_finish_says_why(team: dict[str, Any], owner: Any) -> None:
    t: Tournament = team["t"]
    client = client_of(team, "floor_judge")
    check = start_deck_check(tournament=t, match=table(t, 1), by=None)
    finish_deck_check(check=check, by=None)
    url = reverse("judge_deck_check_finish", args=[t.slug, check.pk])
    plain = client.post(url, {"note": ""})
    assert plain.status_code == 422 and "finished already" in plain.content.decode()
    hx = client.post(url, {"note": ""}, headers={"HX-Request": "true"})
    assert hx.status_code == 422 and "<html" not in hx.content.decode()
    # Another event's check is not this event's to finish.
    other = services.create_tournament(name="Elsewhere", owner=owner, seed=1)
    services.register_players(tournament=other, names=["A", "B"])
    services.pair_next_round(tournament=other)
    theirs = start_deck_check(
        tournament=other, match=Match.objects.get(round__tournament=other), by=None
    )
    response = client.post(reverse("judge_deck_check_finish", args=[t.slug, theirs.pk]))
    assert response.status_code == 422 and "not in this event" in response.content.decode()
    theirs.refresh_from_db()
    assert theirs.finished_at is None


def test_the_history_of_one_player(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    first = table(t, 1)
    finish_deck_check(check=start_deck_check(tournament=t, match=first, by=None), by=None)
    finish_deck_check(check=start_deck_check(tournament=t, match=table(t, 2), by=None), by=None)
    player = Player.objects.get(seats__match=first, seats__position=0)
    client = client_of(team, "floor_judge")
    url = reverse("judge_deck_checks", args=[t.slug])
    everyone = client.get(url).content.decode()
    assert f"?player={player.external_id}" in everyone  # each name links to their history
    theirs = client.get(url, {"player": player.external_id}).content.decode()
    assert f"Deck checks of {player.name}'s tables" in theirs
    history = re.search(r'<table class="pairings compact checks-history".*?</table>', theirs, re.S)
    assert history is not None
    assert history.group(0).count("<tr>") == 2  # the header and their one check
    hx = client.get(url, {"player": player.external_id}, headers={"HX-Request": "true"})
    assert hx.status_code == 200 and "<html" not in hx.content.decode()
    unknown = client.get(url, {"player": "nobody"})
    assert unknown.status_code == 404 and "No player with the id" in unknown.content.decode()


# --- who may --------------------------------------------------------------------------------


def endpoint(team: dict[str, Any], name: str) -> tuple[str, str, dict[str, str]]:
    t: Tournament = team["t"]
    if name == "judge_deck_checks":
        return "get", reverse(name, args=[t.slug]), {}
    if name == "judge_deck_check_start":
        return "post", reverse(name, args=[t.slug]), {"table": "2"}
    check = start_deck_check(tournament=t, match=table(t, 5), by=team["owner"])
    return "post", reverse(name, args=[t.slug, check.pk]), {"note": ""}


@pytest.mark.parametrize(
    "name", ["judge_deck_checks", "judge_deck_check_start", "judge_deck_check_finish"]
)
@pytest.mark.parametrize("role", ROLES)
def test_only_the_floor_team_may_use_the_deck_check_screens(
    team: dict[str, Any], name: str, role: str
) -> None:
    method, url, data = endpoint(team, name)
    before = (fresh(team["t"]).version, DeckCheck.objects.filter(finished_at=None).count())
    response = getattr(client_of(team, role), method)(url, data)
    if role == "anonymous":
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    elif role == "stranger":
        assert response.status_code == 403
    else:
        assert response.status_code == (200 if method == "get" else 302)
    after = (fresh(team["t"]).version, DeckCheck.objects.filter(finished_at=None).count())
    assert (after != before) == (role in STAFF and method == "post")


# --- the audit log's sentences --------------------------------------------------------------


def words(parts: tuple[Any, ...]) -> str:
    return "".join(p if isinstance(p, str) else p.name for p in parts)


def test_the_audit_log_says_which_table_was_checked_and_what_it_got() -> None:
    seated = (("Ana Souza", "p1"), ("Ben Ito", "p2"))
    started = Record("deck_check", "", after={"event": "started"}, round=2, table=7, players=seated)
    assert words(deck_check_sentence(started, Context())) == (
        "Table 7, round 2 (Ana Souza vs Ben Ito): deck check started"
    )
    finished = Record(
        "deck_check", "", after={"event": "finished", "minutes": 6, "extension": 6, "note": "ok"},
        round=2, table=7, players=seated,
    )  # fmt: skip
    assert words(deck_check_sentence(finished, Context())) == (
        "Table 7, round 2 (Ana Souza vs Ben Ito): deck check finished after 6 minutes, "
        "6 added to the table (ok)"
    )
    late = Record(
        "deck_check", "", after={"event": "finished", "minutes": 1, "extension": 0, "note": ""},
        round=2, table=7, players=seated,
    )  # fmt: skip
    assert words(deck_check_sentence(late, Context())).endswith(
        "finished after 1 minute, no time added (result in)"
    )
    mentions = [p for p in deck_check_sentence(started, Context()) if not isinstance(p, str)]
    assert [(m.name, m.ext) for m in mentions] == [("Ana Souza", "p1"), ("Ben Ito", "p2")]
