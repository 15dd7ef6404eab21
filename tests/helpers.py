"""Helpers more than one test module uses (fixtures live in conftest.py).

A test module imports what it needs from here, never from another test module."""

from __future__ import annotations

import copy
import itertools
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.db import connection, transaction
from django.test import Client, TestCase

from scoring.models import Standing
from scoring.services import forget_snapshots, recompute
from tests.conftest import PROJECT_ROOT
from tournaments import services
from tournaments.models import Match, MatchKind, Tournament
from tournaments.services import import_document

# --- Events of many players (tests/test_projector.py, tests/browser/test_projector.py) ---

FIRST = ["Ana", "Ben", "Cleo", "Dev", "Eva", "Finn", "Gil", "Hana", "Ivo", "Juno", "Kai",
         "Lea", "Maximilian", "Nia", "Oskar", "Priya", "Quentin", "Rosalind", "Sven", "Tomasz"]  # fmt: skip
LAST = ["Souza", "Ito", "Park", "Rao", "Lund", "Moe", "Ray", "Oberhauser-Kowalczyk", "Nguyen",
        "Abernathy", "Ferreira da Silva", "Li", "Okonkwo", "Van der Berg", "Yilmaz", "Kim",
        "Delacroix"]  # fmt: skip


def paired_doc(
    players: int,
    name: str = "Saturday Open",
    *,
    played: bool = False,
    names: Sequence[str] | None = None,
) -> dict[str, Any]:
    """An event of `players` (unique names of varied length, or `names`) with round 1
    paired, no result in yet (or, `played`, every result in: the first-seated player won
    2-1); an odd count gives the last player the bye."""
    names = list(names or [f"{f} {last}" for last, f in itertools.product(LAST, FIRST)])
    assert players <= len(names)
    ids = [f"p{i}" for i in range(1, players + 1)]
    matches: list[dict[str, Any]] = [
        {"table": k + 1, "players": [ids[2 * k], ids[2 * k + 1]]} for k in range(players // 2)
    ]
    if played:
        for match in matches:
            match.update(wins=[2, 1], draws=0)
    if players % 2:
        matches.append({"table": players // 2 + 1, "players": [ids[-1]], "bye": True})
    return {
        "format": "swiss-tournament/1",
        "name": name,
        "system": "mtr",
        "best_of": 3,
        "seed": 7,
        "players": [{"id": pid, "name": n} for pid, n in zip(ids, names, strict=False)],
        "rounds": [{"number": 1, "phase": 1, "matches": matches}],
    }


def swiss_doc(
    name: str, rounds: list[str], *, players: int, seed: int, names: str = "Player {i}"
) -> dict[str, Any]:
    """An event whose Swiss rounds are written one line each ("p1-p2 p3-p4": tables in
    order, the first seat winning 2-1), of `players` players named by `names`."""
    return {
        "format": "swiss-tournament/1", "name": name, "system": "mtr", "best_of": 3,
        "seed": seed,
        "players": [{"id": f"p{i}", "name": names.format(i=i)} for i in range(1, players + 1)],
        "rounds": [
            {"number": number, "matches": [
                {"table": table, "players": pair.split("-"), "wins": [2, 1], "draws": 0}
                for table, pair in enumerate(line.split(), start=1)
            ]}
            for number, line in enumerate(rounds, start=1)
        ],
    }  # fmt: skip


def fresh(t: Tournament) -> Tournament:
    """The event as stored now (services return the row as they wrote it)."""
    return Tournament.objects.get(pk=t.pk)


def play_open_matches(t: Tournament, **filters: Any) -> None:
    """Every open played match of `t` (narrowed by `filters`) won 2-1 by its first seat."""
    for m in Match.objects.filter(
        round__tournament=t, kind=MatchKind.PLAYED, reported=False
    ).filter(**filters):
        services.record_result(match=m, wins=(2, 1))


def play_swiss(t: Tournament, rounds: int) -> None:
    """`rounds` Swiss rounds paired and played (`play_open_matches`)."""
    for _ in range(rounds):
        services.pair_next_round(tournament=t)
        play_open_matches(t)


def play_to_top_cut_round(t: Tournament, rounds: int) -> None:
    """Three Swiss rounds played, then `rounds` playoff rounds of a top 8 paired and played."""
    play_swiss(t, 3)
    services.start_top_cut(tournament=t, size=8)
    play_open_matches(t, round__playoff=True)
    for _ in range(rounds - 1):
        services.pair_next_round(tournament=t)
        play_open_matches(t, round__playoff=True)


# --- Real threads and connections (tests/test_concurrency.py and its neighbours) ---------


def require_postgres() -> None:
    if connection.vendor != "postgresql":
        pytest.skip(f"PostgreSQL only (this run uses {connection.vendor})")


def stored_standings(t: Tournament) -> list[tuple[Any, ...]]:
    return list(
        Standing.objects.filter(tournament=t)
        .order_by("position")
        .values_list(
            "player_id",
            "position",
            "rank",
            "points",
            "points_exact",
            "wins",
            "losses",
            "draws",
            "played",
            "tiebreakers",
        )
    )


def full_recompute(t: Tournament) -> list[tuple[Any, ...]]:
    """The standings a recompute from scratch stores (no snapshot to patch)."""
    forget_snapshots()
    with transaction.atomic():
        recompute(Tournament.objects.get(pk=t.pk))
    return stored_standings(t)


def event_with_open_round(players: int, *, name: str = "Concurrent Open") -> Tournament:
    """One round of players/2 unreported matches (players p1-p2, p3-p4, ...)."""
    doc = {
        "format": "swiss-tournament/1",
        "name": name,
        "system": "mtr",
        "best_of": 3,
        "seed": 4242,
        "players": [{"id": f"p{k}", "name": f"Player {k}"} for k in range(1, players + 1)],
        "rounds": [
            {
                "number": 1,
                "phase": 1,
                "matches": [
                    {"table": k, "players": [f"p{2 * k - 1}", f"p{2 * k}"]}
                    for k in range(1, players // 2 + 1)
                ],
            }
        ],
    }
    return import_document(doc)


def run_threads(workers: list[Callable[[], None]]) -> list[BaseException]:
    """Start every worker at once; each closes its own connection. Returns their errors."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(workers))

    def wrap(work: Callable[[], None]) -> None:
        try:
            barrier.wait(timeout=30)
            work()
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=wrap, args=(w,)) for w in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a staff thread hung"
    return errors


# 30 players, 5 Swiss rounds, a top 8: "What do I need?" on a real event.
REAL = "data/real/melee-406270.json"


def cut_back(doc: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The event as it stood once its last Swiss round was paired: no playoff, no result
    of that round (byes stay), and no drop from that round on."""
    doc = copy.deepcopy(doc)
    swiss = [r for r in doc["rounds"] if not r.get("playoff")]
    last = swiss[-1]
    for match in last["matches"]:
        if len(match["players"]) == 2:
            for key in ("wins", "draws", "result"):
                match.pop(key, None)
    doc["rounds"] = swiss
    doc.pop("event", None)
    for player in doc["players"]:
        if (player.get("dropped_after_round") or 0) >= last["number"]:
            del player["dropped_after_round"]
    return doc, len(swiss)


# --- the app as it ships, in processes of its own ----------------------------------


def production_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "DATABASE_URL")}
    env.update(
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",
    )
    env.update(extra)
    return env


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(
    command: list[str], *, port: int, env: dict[str, str], cwd: Path = PROJECT_ROOT
) -> Iterator[str]:
    """The app started by `command` on 127.0.0.1:`port`, once its /healthz answers 200
    (within 30 s, or the server's exit, fails): its base URL; stopped afterwards."""
    server = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=2) as response:
                    assert response.status == 200 and response.read().startswith(b"ok")
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.2)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            # gunicorn waits for open connections (a page's event stream held by a browser
            # still open) up to its graceful timeout: the test's work is done, stop it.
            server.kill()
            server.wait(timeout=10)


def gunicorn(port: int, workers: int) -> list[str]:
    """The README's production command: uvicorn workers hold the event streams."""
    return [
        sys.executable, "-m", "gunicorn", "tournaments.asgi:application",
        "--worker-class", "uvicorn_worker.UvicornWorker",
        "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
    ]  # fmt: skip


# --- The live hub ticked by hand (tests/test_live_streams.py, test_judge_calls.py, ...) --


class Inbox:
    """Stands in for a stream: what the hub told it, taken in turn."""

    def __init__(self) -> None:
        self.told: list[list[str]] = []

    def __call__(self, pages: list[str]) -> None:
        self.told.append(pages)

    def take(self) -> list[list[str]]:
        told, self.told = self.told, []
        return told


@contextmanager
def committed() -> Iterator[None]:
    """Run what a write hands to `transaction.on_commit` when the block ends, as the
    server's commit does: a test in one transaction (django_db) otherwise never runs the
    callbacks, and the scoring snapshots and the change log they keep (scoring.services)
    would never exist. Cheaper than transaction=True, which empties every table after
    each test (seconds on PostgreSQL)."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        yield


class CommittingClient(Client):
    """A test client whose every request ends as a committed request does (`committed`)."""

    def request(self, **request: Any) -> Any:
        with committed():
            return super().request(**request)
