from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# Property tests explore new examples on every developer run; CI replays a fixed set
# (HYPOTHESIS_PROFILE=ci in .ci/run) so that a landing never depends on luck.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Test data stays outside the repo, beside it: ../shared (relative to the project root).
# CI always has it, so a missing file fails the test rather than skipping it.
PROJECT_ROOT = Path(__file__).resolve().parents[1]
SHARED = PROJECT_ROOT.parent / "shared"
REAL_EVENTS = sorted(
    p for p in (SHARED / "data" / "real").glob("*.json") if not p.name.endswith(".expected.json")
)


def store_fuzz_counts(section: str, figures: dict[str, Any]) -> None:
    """Write one module's figures into test-artifacts/fuzz-counts.json, beside the other's.

    Under pytest-xdist the two fuzz modules can finish at the same moment on two workers:
    the read-modify-write holds a lock, and the file is replaced whole, so neither loses
    the other's section nor reads a half-written file."""
    import fcntl

    artifacts = PROJECT_ROOT / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    path = artifacts / "fuzz-counts.json"
    with (artifacts / "fuzz-counts.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the lock file closes
        stored = json.loads(path.read_text()) if path.is_file() else {}
        stored[section] = figures
        written = path.with_name(f"fuzz-counts.{os.getpid()}.tmp")
        written.write_text(json.dumps(stored, indent=1))
        written.replace(path)


def load_shared(relative: str) -> dict[str, Any]:
    path = SHARED / relative
    assert path.is_file(), f"missing test data {path}: ../shared must sit beside the project"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def pod7() -> dict[str, Any]:
    return load_shared("data/pod-7.json")


@pytest.fixture
def small_doc() -> dict[str, Any]:
    """A 6-player mtr event, 2 rounds, with a bye, a draw, a double loss and a no-show."""
    return {
        "format": "swiss-tournament/1",
        "name": "Friday Night Modern",
        "system": "mtr",
        "best_of": 3,
        "seed": 90210,
        "players": [
            {"id": "p1", "name": "Ana Souza"},
            {"id": "p2", "name": "Ben Ito", "dropped_after_round": 2},
            {"id": "p3", "name": "Cleo Park"},
            {"id": "p4", "name": "Dev Rao"},
            {"id": "p5", "name": "Eva Lund"},
            {"id": "p6", "name": "Finn Moe"},
            {"id": "p7", "name": "Gil Ray"},
        ],
        "rounds": [
            {
                "number": 1,
                "phase": 1,
                "matches": [
                    {"table": 1, "players": ["p1", "p2"], "wins": [2, 1], "draws": 0},
                    {"table": 2, "players": ["p3", "p4"], "wins": [1, 1], "draws": 1},
                    {
                        "table": 3,
                        "players": ["p5", "p6"],
                        "wins": [0, 0],
                        "draws": 0,
                        "result": "double_loss",
                    },
                    {"table": 4, "players": ["p7"], "bye": True},
                ],
            },
            {
                "number": 2,
                "phase": 1,
                "matches": [
                    {"table": 1, "players": ["p1", "p7"], "wins": [2, 0], "draws": 0},
                    {"table": 2, "players": ["p2", "p3"], "wins": [0, 2], "draws": 0},
                    {"table": 3, "players": ["p4", "p5"], "wins": [0, 0], "draws": 3},
                    {"table": 4, "players": ["p6"], "loss": True},
                ],
            },
        ],
    }


@pytest.fixture
def owner(django_user_model: Any) -> Any:
    """An organizer's account, "owner", with no password (force_login logs it in). A
    module whose tests log in through the form, or read its name, has its own."""
    return django_user_model.objects.create_user("owner")


@pytest.fixture
def oc(client: Any, owner: Any) -> Any:
    """The owner's logged-in client: pytest-django's `client`, so a test asking for both
    gets this same logged-in client."""
    client.force_login(owner)
    return client


@pytest.fixture
def event(small_doc: dict[str, Any]) -> Any:
    """small_doc imported: two rounds, every result in. Modules whose tests need another
    event (round 3 being played, an owner's own, ...) define their own `event`."""
    import copy

    from tournaments.services import import_document

    return import_document(copy.deepcopy(small_doc))


@pytest.fixture
def playing_event(small_doc: dict[str, Any], db: Any) -> Any:
    """small_doc with round 3 in progress: table 1 reported, tables 2 and 3 still open."""
    import copy

    from tournaments.services import import_document

    doc = copy.deepcopy(small_doc)
    doc["rounds"].append(
        {"number": 3, "matches": [
            {"table": 1, "players": ["p1", "p3"], "wins": [2, 0], "draws": 0},
            {"table": 2, "players": ["p4", "p7"]},
            {"table": 3, "players": ["p5", "p6"]},
        ]}
    )  # fmt: skip
    return import_document(doc)


@pytest.fixture(autouse=True)
def _english_after_each_test() -> Any:
    """A request leaves its language active in the thread (tournaments.locale.speaking, on
    purpose: LocaleMiddleware names it in Content-Language); a test calling services
    directly after a Japanese request would read Japanese refusals. Each test starts in
    the default language."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _empty_caches() -> Any:
    """Rendered fragments are cached per tournament version; each test starts afresh."""
    from django.core.cache import cache

    from scoring.services import forget_snapshots
    from tournaments.services.cards import forget_card_lookup

    cache.clear()
    forget_snapshots()
    forget_card_lookup()
    yield


@pytest.fixture(autouse=True)
def _outlooks_in_the_foreground(settings: Any) -> None:
    """'What do I need?' is computed after every write of an event near its top cut; in
    tests it runs in the writing request (no thread against the test database) with few
    simulations. tests/test_outlook_app.py covers the background thread."""
    settings.OUTLOOK_BACKGROUND = False
    settings.OUTLOOK_SIMULATIONS = 100
    settings.OUTLOOK_EVERY_SECONDS = 0


@pytest.fixture
def migrate() -> Iterator[Callable[[str], Any]]:
    """Migrate the tournaments app to a migration (its models' state then is returned);
    the database goes back to the latest migrations afterwards, whatever happened."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    def to(name: str) -> Any:
        target = [("tournaments", name)]
        executor = MigrationExecutor(connection)
        executor.migrate(target)
        return executor.loader.project_state(target).apps

    yield to
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.fixture
def hub(monkeypatch: Any) -> Any:
    """A hub of its own whose thread never ticks: each test ticks it by hand. The warm-ups
    it asks for are only written down (`h.warmed`): tests refresh the record themselves."""
    from tournaments import stream

    h = stream.Hub()
    monkeypatch.setattr(h, "_run", lambda: None)
    monkeypatch.setattr(stream, "hub", h)
    warmed: list[tuple[str, int, str]] = []
    h.warm = lambda base, version, part: warmed.append((base, version, part))
    h.warmed = warmed  # type: ignore[attr-defined]
    return h
