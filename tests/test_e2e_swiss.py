"""A whole 40-player event run only through HTTP requests, the way an organizer's browser
would without JavaScript: log in, create, paste the players, pair and report six Swiss
rounds (seeded random results, a few drops, one correction), a top 8, finish. The stored
final standings must equal a fresh engine computation, and the top 8 follow the bracket."""

from __future__ import annotations

import random
import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from scoring.engine import compute_standings
from scoring.services import edge, event_record, points_edge, standings_document
from tournaments.models import Match, MatchKind, Player, Seat, Status, Tournament
from tournaments.pairing.bracket import BRACKET_SEEDS, BracketMatch, final_placings

pytestmark = pytest.mark.django_db

SWISS_RESULTS = ["2-0", "2-1", "1-2", "0-2", "2-0", "2-1", "1-2", "0-2", "1-1", "0-0-3"]
OPEN_ROW = re.compile(r'<tr id="match-(\d+)" class="open')
BRACKET_FORM = re.compile(r'hx-post="[^"]*/matches/(\d+)/result/" hx-target="#bracket-panel"')


def ok(response: object, status: int = 302) -> str:
    code = response.status_code  # type: ignore[attr-defined]
    body = response.content.decode()  # type: ignore[attr-defined]
    assert code == status, body[:2000]
    return body


def test_a_forty_player_six_round_swiss_with_drops_and_a_top_8_over_http(
    client: Client, django_user_model: type[User], settings: object
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # type: ignore[attr-defined]
    django_user_model.objects.create_user("td", password="judge-me-42")
    rng = random.Random(20240601)

    ok(client.post("/accounts/login/", {"username": "td", "password": "judge-me-42"}))
    ok(
        client.post(
            "/manage/create/",
            {"name": "Regional Qualifier", "system": "mtr", "best_of": "3"}
            | {"planned_rounds": "6", "top_cut": "8"},
        )
    )
    t = Tournament.objects.get(name="Regional Qualifier")
    base = f"/t/{t.slug}/manage/"
    names = "\n".join(f"Player {k:02d}" for k in range(1, 41))
    ok(client.post(base + "players/paste/", {"names": names}))
    assert "suggested for 40 players: 6" in ok(client.get(base), 200)
    # Past 16 players the list (and its drop buttons) is on the players screen.
    screen = ok(client.get(base + "players/"), 200)
    assert "Player 40" in screen

    player_ids = [int(pk) for pk in re.findall(r'action="[^"]*/players/(\d+)/drop/[^"]*"', screen)]
    assert len(player_ids) == 40
    drops = {2: player_ids[3:5], 4: player_ids[17:18]}  # after rounds 2 and 4
    dropped: set[int] = set()

    for number in range(1, 7):
        ok(client.post(base + "pair/"))
        page = ok(client.get(f"{base}rounds/{number}/"), 200)
        open_matches = [int(pk) for pk in OPEN_ROW.findall(page)]
        active = 40 - len(dropped)
        assert len(open_matches) == active // 2
        assert f"{active // 2}</strong> results still missing" in page
        for k, pk in enumerate(open_matches):
            if rng.random() < 0.03:
                data = {"action": "double_loss"}
            else:
                data = {"result": rng.choice(SWISS_RESULTS)}
            ok(client.post(f"{base}matches/{pk}/result/", data))
            if k == 0:  # the missing count goes down as results arrive
                after = ok(client.get(base), 200)
                assert f"{active // 2 - 1}</strong> result" in after
        assert "All results are in" in ok(client.get(base), 200)
        if number == 3:
            # Correct a round-2 result after round 3 was paired and played.
            old = Match.objects.filter(round__tournament=t, round__number=2, kind="played")[0]
            page = ok(
                client.post(f"{base}matches/{old.pk}/result/", {"result": "0-2"}, follow=True), 200
            )
            assert "Round 3 was already paired on the old standings" in page
        for pk in drops.get(number, []):
            ok(client.post(f"{base}players/{pk}/drop/"))
            dropped.add(pk)

    ok(client.post(base + "top-cut/", {"size": "8"}))
    for expected_matches in (4, 2, 1):
        screen = ok(client.get(base), 200)
        bracket_matches = [int(pk) for pk in BRACKET_FORM.findall(screen)]
        assert len(bracket_matches) == expected_matches
        for pk in bracket_matches:
            ok(
                client.post(
                    f"{base}matches/{pk}/result/",
                    {"result": rng.choice(["2-0", "2-1", "1-2", "0-2"])},
                )
            )
        if expected_matches > 1:
            ok(client.post(base + "pair/"))
    ok(client.post(base + "finish/", {"confirm": "yes"}))
    final_page = ok(client.get(base), 200)
    assert "Final standings" in final_page

    t.refresh_from_db()
    assert t.status == Status.FINISHED and t.rounds.count() == 9

    # Swiss sanity: no rematch, nobody paired after dropping, at most one bye each.
    seats = list(
        Seat.objects.filter(round__tournament=t, round__playoff=False).select_related(
            "match", "round", "player"
        )
    )
    pairs = [
        frozenset(s.player_id for s in seats if s.match_id == m)
        for m in {s.match_id for s in seats if s.match.kind != MatchKind.BYE}
    ]
    assert len(pairs) == len(set(pairs))
    for s in seats:
        if s.player.dropped_after_round is not None:
            assert s.round.number <= s.player.dropped_after_round
    byes = [s.player_id for s in seats if s.match.kind == MatchKind.BYE]
    assert len(byes) == len(set(byes))
    assert {
        p.pk for p in Player.objects.filter(tournament=t, dropped_after_round__isnull=False)
    } == dropped

    # The stored final standings equal a fresh engine computation.
    stored = standings_document(t)["standings"]
    fresh = compute_standings(event_record(t))
    expected = [
        {
            "rank": row.rank,
            "id": row.player,
            "points": points_edge(row.points),
            "wins": row.wins,
            "losses": row.losses,
            "draws": row.draws,
            "tiebreakers": {k: edge(v) for k, v in row.tiebreakers.items()},
        }
        for row in fresh.rows
    ]
    assert [{k: r[k] for k in expected[0]} for r in stored] == expected
    assert len(stored) == 40

    # The top 8 placings follow the bracket.
    seed_of: dict[str, int] = {}
    rounds: list[list[BracketMatch]] = []
    for k, rnd in enumerate(t.rounds.filter(playoff=True).order_by("number")):
        matches = []
        for m in rnd.matches.order_by("table"):
            a, b = m.seats.order_by("position").select_related("player")
            if k == 0:
                seed_of[a.player.external_id], seed_of[b.player.external_id] = BRACKET_SEEDS[8][
                    m.table - 1
                ]
            high, low = sorted((a, b), key=lambda s: seed_of[s.player.external_id])
            won = a if (a.games_won or 0) > (b.games_won or 0) else b
            matches.append(
                BracketMatch(
                    high.player.external_id,
                    low.player.external_id,
                    seed_of[high.player.external_id],
                    seed_of[low.player.external_id],
                    winner=won.player.external_id,
                )
            )
        rounds.append(matches)
    assert [r["id"] for r in stored[:8]] == list(final_placings(rounds))
    assert not any(Player.objects.get(tournament=t, external_id=pid).dropped for pid in seed_of)
