"""Judge calls (issue 27) on the app as it ships and under real concurrency.

- Production mode: gunicorn's uvicorn workers (two, each with its own memory cache and no
  Redis, as the venue mode runs) and PostgreSQL. Judges' screens' streams held by either
  worker hear "floor" within 2 s of a player's call POSTed to the other, and the calling
  player's page stream hears "player": the hub reads the calls from the database.
- PostgreSQL's row locks: two judges claiming at once leave one judge with the call and
  tell the other who has it; a double tap makes one call.
"""

from __future__ import annotations

import http.cookiejar
import re
import threading
import time
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import (
    free_port,
    gunicorn,
    manage,
    production_env,
    require_postgres,
    run_threads,
    serving,
)
from tournaments import services
from tournaments.models import JudgeCall, Match, MatchKind, StaffRole
from tournaments.services import calls
from tournaments.services.writing import ServiceError
from tournaments.tokens import new_token, token_hash

POSTGRES_ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres"
DEMO = "demo-friday-night-magic"
TOLD_WITHIN_S = 2.0


@pytest.fixture
def fresh_postgres() -> Iterator[str]:
    import psycopg

    name = f"calls_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield POSTGRES_ADMIN_URL.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def seated_player_with_link(database_url: str) -> tuple[str, str]:
    """A player of the demo's round in progress, with a private link: (id, token)."""
    import psycopg

    token = new_token()
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT p.id, p.external_id FROM tournaments_player p"
            " JOIN tournaments_seat s ON s.player_id = p.id"
            " JOIN tournaments_match m ON m.id = s.match_id"
            " JOIN tournaments_tournament t ON t.id = p.tournament_id"
            " WHERE t.slug = %s AND m.kind = 'played' AND NOT m.reported"
            " ORDER BY m.table LIMIT 1",
            [DEMO],
        ).fetchone()
        assert row is not None, "the demo has no match in progress"
        conn.execute(
            "UPDATE tournaments_player SET token_hash = %s WHERE id = %s",
            [token_hash(token), row[0]],
        )
    return row[1], token


class Listener(threading.Thread):
    """One open stream, noting when it first hears `event`."""

    def __init__(self, url: str, event: str) -> None:
        super().__init__(daemon=True)
        self.response = urllib.request.urlopen(url, timeout=20)
        assert self.response.readline() == b"retry: 3000\n"
        self.event = f"event: {event}\n".encode()
        self.heard: float | None = None

    def run(self) -> None:
        try:
            while line := self.response.readline():
                if line == self.event:
                    self.heard = time.monotonic()
                    return
        except OSError:
            return


def call_over_http(base: str, token: str) -> float:
    """The player's "Call a judge" as a browser without JavaScript sends it: when the
    answer came."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{base}/p/{token}/", timeout=10).read().decode()
    assert "Call a judge" in page
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert csrf is not None
    body = urllib.parse.urlencode({"csrfmiddlewaretoken": csrf[1], "note": "missed trigger"})
    request = urllib.request.Request(f"{base}/p/{token}/call/", data=body.encode())
    with opener.open(request, timeout=10) as response:  # the redirect is followed
        assert response.status == 200
        answered = time.monotonic()
        assert "Waiting for a judge" in response.read().decode()
    return answered


def test_judges_screens_on_both_workers_hear_a_call_made_through_either_within_two_seconds(
    fresh_postgres: str, tmp_path: Any
) -> None:
    env = production_env(
        DATABASE_URL=fresh_postgres, STATIC_ROOT=str(tmp_path / "static"), REDIS_URL="",
        SECURE_COOKIES="0",
    )  # fmt: skip
    for step in (
        ("migrate", "--noinput"),
        ("collectstatic", "--noinput"),
        ("load_demo", "--force"),
    ):
        result = manage(*step, env=env)
        assert result.returncode == 0, result.stderr
    player_id, token = seated_player_with_link(fresh_postgres)
    port = free_port()
    with serving(gunicorn(port, workers=2), port=port, env=env) as base:
        judges = [Listener(f"{base}/t/{DEMO}/live/?floor=1", "floor") for _ in range(6)]
        phone = Listener(f"{base}/t/{DEMO}/live/?player={player_id}", "player")
        listeners = [*judges, phone]
        for listener in listeners:
            listener.start()
        time.sleep(1.5)  # each worker's hub has had its first look at the calls
        answered = call_over_http(base, token)
        for listener in listeners:
            listener.join(timeout=10)
            listener.response.close()
        late = [round(j.heard - answered, 2) if j.heard else None for j in judges]
        assert all(j.heard is not None and j.heard - answered < TOLD_WITHIN_S for j in judges), late
        assert phone.heard is not None and phone.heard - answered < TOLD_WITHIN_S


# --- PostgreSQL's row locks -----------------------------------------------------------------


@pytest.fixture
def floor_team(transactional_db: None, django_user_model: Any) -> dict[str, Any]:
    owner = django_user_model.objects.create_user("owner")
    t = services.create_tournament(name="Race Open", owner=owner, seed=3)
    services.register_players(tournament=t, names=[f"Player {k}" for k in range(8)])
    services.pair_next_round(tournament=t)
    people: dict[str, Any] = {"t": t, "owner": owner}
    for k in range(4):
        user = django_user_model.objects.create_user(f"judge{k}")
        services.add_staff(tournament=t, username=user.username, role=StaffRole.FLOOR_JUDGE)
        people[f"judge{k}"] = user
    return people


@pytest.mark.postgres
def test_four_judges_claiming_at_once_leave_one_with_the_call_and_the_others_told_who(
    floor_team: dict[str, Any],
) -> None:
    require_postgres()
    t = floor_team["t"]
    match = Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED).first()
    assert match is not None
    call = calls.call_judge(player=match.seats.first().player)  # type: ignore[union-attr]
    judges = [floor_team[f"judge{k}"] for k in range(4)]
    refusals: list[str] = []

    def claim(judge: Any) -> None:
        try:
            calls.claim_call(call=call.pk, by=judge, tournament=t)
        except ServiceError as exc:
            refusals.append(str(exc))

    assert run_threads([lambda j=j: claim(j) for j in judges]) == []
    stored = JudgeCall.objects.get(pk=call.pk)
    assert stored.judge in judges and len(refusals) == 3
    assert all(r == f"{stored.judge.username} has this call already." for r in refusals)  # type: ignore[union-attr]


@pytest.mark.postgres
def test_a_double_tap_both_players_and_a_judge_at_once_make_one_call_for_the_table(
    floor_team: dict[str, Any],
) -> None:
    require_postgres()
    t = floor_team["t"]
    match = Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED).first()
    assert match is not None
    a, b = (s.player for s in match.seats.select_related("player").order_by("position"))
    told: list[str] = []

    def tap(player: Any) -> None:
        try:
            calls.call_judge(player=player)
        except calls.AlreadyCalled as exc:
            told.append(str(exc))

    def judge() -> None:
        try:
            calls.open_call(tournament=t, table=match.table or 0, by=floor_team["judge0"])
        except calls.AlreadyCalled as exc:
            told.append(str(exc))

    assert run_threads([lambda: tap(a), lambda: tap(a), lambda: tap(b), judge]) == []
    assert JudgeCall.objects.filter(tournament=t).count() == 1 and len(told) == 3
