"""A round-robin pod is paired all at once: its pages follow the round being played, and
its standings count only rounds that have started (shared/spec/scoring.md section 3)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.test import Client

from scoring.models import Standing, StandingsState
from scoring.services import forget_snapshots, recompute
from tournaments import services
from tournaments.models import Match, MatchKind, Round, Tournament
from tournaments.pages.common import current_round, last_round, missing_results
from tournaments.services import import_document

pytestmark = pytest.mark.django_db

NAMES = ["Andy", "Bernie", "Derek", "Jorge", "Mariano", "Scott", "Tino"]


@pytest.fixture
def pod() -> Tournament:
    t = services.create_tournament(name="Thursday Cube", system="pod", seed=7)
    services.register_players(tournament=t, names=NAMES)
    services.pair_next_round(tournament=t)
    t.refresh_from_db()
    return t


def records(t: Tournament) -> dict[str, tuple[int, int, int, Any]]:
    return {
        s.player.name: (s.wins, s.losses, s.draws, s.points)
        for s in Standing.objects.filter(tournament=t).select_related("player")
    }


def play(match: Match, wins: tuple[int, int] = (1, 0)) -> None:
    services.record_result(match=match, wins=wins, draws=0)


def played_matches(t: Tournament, number: int) -> list[Match]:
    return list(
        Match.objects.filter(
            round__tournament=t, round__number=number, kind=MatchKind.PLAYED
        ).order_by("table")
    )


def bye_player(t: Tournament, number: int) -> str:
    match = Match.objects.get(round__tournament=t, round__number=number, kind=MatchKind.BYE)
    return match.seats.get().player.name


def test_right_after_pairing_the_current_round_is_1_and_nobody_has_played(
    pod: Tournament,
) -> None:
    assert pod.rounds.count() == 7
    round_ = current_round(pod)
    assert round_ is not None and round_.number == 1
    assert last_round(pod).number == 7  # type: ignore[union-attr]
    assert set(records(pod).values()) == {(0, 0, 0, 0)}
    assert StandingsState.objects.get(tournament=pod).after_round is None


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
def test_right_after_pairing_the_public_pages_say_round_1_and_every_player_stands_0_0(
    client: Client, pod: Tournament, htmx: bool
) -> None:
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    home = client.get(f"/t/{pod.slug}/", **headers).content.decode()
    assert "Round 1" in home and "Round 7" not in home and "3 results to come" in home
    pairings = client.get(f"/t/{pod.slug}/pairings/", **headers).content.decode()
    assert "Round 1 pairings" in pairings
    standings = client.get(f"/t/{pod.slug}/standings/", **headers).content.decode()
    assert "1-0-0" not in standings and standings.count("0-0-0") == 7
    bye = Match.objects.get(round__tournament=pod, round__number=1, kind=MatchKind.BYE)
    pid = bye.seats.get().player.external_id
    page = client.get(f"/t/{pod.slug}/players/{pid}/", **headers)
    assert page.status_code == 200
    assert "Record 0-0-0 over 0 rounds" in page.content.decode()


def test_right_after_pairing_the_json_api_gives_round_1_and_empty_records(
    client: Client, pod: Tournament
) -> None:
    assert client.get(f"/t/{pod.slug}/pairings.json").json()["round"] == 1
    doc = client.get(f"/t/{pod.slug}/standings.json").json()
    assert doc["after_round"] is None
    assert {(r["wins"], r["losses"], r["points"]) for r in doc["standings"]} == {(0, 0, 0)}


def test_a_rounds_bye_counts_once_the_round_has_a_result(pod: Tournament) -> None:
    bye = bye_player(pod, 1)
    first, *rest = played_matches(pod, 1)
    play(first, (1, 0))
    winner = first.seats.order_by("position")[0].player.name
    loser = first.seats.order_by("position")[1].player.name
    stood = records(pod)
    assert stood[bye] == (1, 0, 0, 3) and stood[winner] == (1, 0, 0, 3)
    assert stood[loser] == (0, 1, 0, 0)
    assert sum(w for w, _l, _d, _p in stood.values()) == 2  # no later bye counted
    assert StandingsState.objects.get(tournament=pod).after_round == 1
    assert current_round(pod).number == 1  # type: ignore[union-attr]
    for match in rest:
        play(match, (0, 1))
    assert current_round(pod).number == 2  # type: ignore[union-attr]
    assert sum(w for w, _l, _d, _p in records(pod).values()) == 4


def test_a_result_entered_in_a_later_round_starts_only_that_round(pod: Tournament) -> None:
    match = played_matches(pod, 3)[0]
    play(match, (1, 0))
    winner = match.seats.order_by("position")[0].player.name
    stood = records(pod)
    assert stood[bye_player(pod, 3)][0] == 1
    # Round 1's bye does not count: its player has a win only if they won in round 3.
    assert stood[bye_player(pod, 1)][0] == (1 if bye_player(pod, 1) == winner else 0)
    assert sum(w for w, _l, _d, _p in stood.values()) == 2
    # Round 1 is still the first with a game to play, but it comes before the last
    # round with a result: the pod is being played at round 3.
    assert current_round(pod).number == 3  # type: ignore[union-attr]


def test_clearing_a_rounds_only_result_uncounts_its_bye_again(pod: Tournament) -> None:
    match = played_matches(pod, 1)[0]
    play(match)
    services.record_result(match=match, wins=None)
    assert set(records(pod).values()) == {(0, 0, 0, 0)}
    assert StandingsState.objects.get(tournament=pod).after_round is None


def test_the_organizer_still_refuses_a_second_pairing_and_can_undo_before_any_result(
    pod: Tournament,
) -> None:
    with pytest.raises(services.ServiceError, match="Round 1 still has 3 result"):
        services.pair_next_round(tournament=pod)
    assert missing_results(current_round(pod)) == 3  # type: ignore[arg-type]
    services.undo_round(tournament=pod)
    assert not Round.objects.filter(tournament=pod).exists()


def test_stored_pod_standings_always_equal_a_full_recompute(pod: Tournament) -> None:
    rng = random.Random(13)
    matches = list(Match.objects.filter(round__tournament=pod, kind=MatchKind.PLAYED))
    outcomes = [(1, 0), (0, 1), (0, 0), None]
    for _ in range(40):
        match = rng.choice(matches)
        chosen = rng.choice(outcomes)
        if chosen == (0, 0):
            services.record_result(match=match, wins=(0, 0), draws=1)
        else:
            services.record_result(match=match, wins=chosen)
        pod.refresh_from_db()
        incremental = sorted(
            Standing.objects.filter(tournament=pod).values_list(
                "player_id", "position", "rank", "points_exact", "wins", "losses", "draws",
                "played", "tiebreakers",
            )
        )  # fmt: skip
        forget_snapshots()
        recompute(pod)
        full = sorted(
            Standing.objects.filter(tournament=pod).values_list(
                "player_id", "position", "rank", "points_exact", "wins", "losses", "draws",
                "played", "tiebreakers",
            )
        )  # fmt: skip
        assert incremental == full
        # Independently: wins are the games won plus the byes of started rounds only.
        started = {
            m.round.number
            for m in Match.objects.filter(
                round__tournament=pod, kind=MatchKind.PLAYED, reported=True
            ).select_related("round")
        }
        byes = Match.objects.filter(
            round__tournament=pod, kind=MatchKind.BYE, round__number__in=started
        ).count()
        won = sum(
            1
            for m in Match.objects.filter(
                round__tournament=pod, kind=MatchKind.PLAYED, reported=True
            ).prefetch_related("seats")
            if len({s.games_won for s in m.seats.all()}) == 2
        )
        assert sum(row[4] for row in full) == won + byes


def test_a_complete_imported_pod_still_scores_as_the_spec_says(
    client: Client, pod7: dict[str, Any]
) -> None:
    t = import_document(pod7)
    assert current_round(t).number == 7  # type: ignore[union-attr]
    doc = client.get(f"/t/{t.slug}/standings.json").json()
    assert [r["name"].split()[0] for r in doc["standings"]] == [
        "Scott", "Tino", "Andy", "Derek", "Bernie", "Jorge", "Mariano",
    ]  # fmt: skip
    assert doc["after_round"] == 7
    assert doc["standings"][0]["wins"] == 6 and doc["standings"][0]["losses"] == 1


def test_a_swiss_events_current_round_is_still_its_last_round(small_doc: dict) -> None:
    t = import_document(small_doc)
    assert current_round(t).number == 2  # type: ignore[union-attr]
    services.pair_next_round(tournament=t)
    assert current_round(t).number == 3 == last_round(t).number  # type: ignore[union-attr]
