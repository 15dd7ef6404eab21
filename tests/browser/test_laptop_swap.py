"""The laptop swap in Chromium (issue 26 item 7): an event backed up from one
installation (`export_tournament --backup`) and restored on a fresh one (its own SQLite
file, `import_tournament`) keeps its players' private links: a phone's link opens the
player's page, with their table and opponent, on the new laptop's server.

Both installations are the app as it ships (DEBUG off, gunicorn), each with its own
database and secret key. A screenshot goes to test-artifacts/laptop-swap.png.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import ARTIFACTS
from tests.conftest import PROJECT_ROOT
from tests.helpers import free_port, gunicorn, manage, production_env, serving

pytestmark = pytest.mark.browser

# The old laptop: an organizer, self-registered players with their links, check-in,
# round 1 paired and its clock running. Prints the tokens the phones hold.
OLD_LAPTOP = """
import json
from django.contrib.auth import get_user_model
from tournaments import services
from tournaments.models import Round
from tournaments.services import registration as reg
owner = get_user_model().objects.create_user("alice")
t = services.create_tournament(name="Club Night", owner=owner, seed=11)
reg.set_registration(tournament=t, registration_open=True, cap=None, approval=True,
                     check_in=True, by=owner)
tokens = {}
for name in ("Ana Lopez", "Ben Ito", "Cleo Park", "Dev Rao"):
    player, tokens[name] = reg.register_self(tournament=t, name=name, contact=name + "@x")
    reg.accept_entry(player=player, by=owner)
    reg.check_in(player=player)
_late, tokens["Eva Late"] = reg.register_self(tournament=t, name="Eva Late")
services.pair_next_round(tournament=t, by=owner)
services.start_clock(round=Round.objects.get(tournament=t, number=1), minutes=50, by=owner)
print("SWAP" + json.dumps({"slug": t.slug, "tokens": tokens}))
"""


def install(tmp_path: Path, name: str) -> dict[str, str]:
    env = production_env(
        DATABASE_URL=f"sqlite:///{tmp_path / (name + '.sqlite3')}",
        STATIC_ROOT=str(tmp_path / "static"),
        REDIS_URL="",
    )
    result = manage("migrate", "--noinput", env=env)
    assert result.returncode == 0, result.stderr
    return env


def test_a_restore_on_a_fresh_install_keeps_the_players_links_working(
    browser: Any, tmp_path: Path
) -> None:
    old = install(tmp_path, "old")
    setup = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", OLD_LAPTOP],
        cwd=PROJECT_ROOT, env=old, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert setup.returncode == 0, setup.stderr
    swap = json.loads(setup.stdout.split("SWAP", 1)[1])
    backup = manage("export_tournament", swap["slug"], "--backup", env=old)
    assert backup.returncode == 0, backup.stderr
    for token in swap["tokens"].values():
        assert token not in backup.stdout
    (tmp_path / "backup.json").write_text(backup.stdout)

    new = install(tmp_path, "new")  # another laptop: its own database and secret key
    assert manage("collectstatic", "--noinput", env=new).returncode == 0
    assert manage("create_organizer", "alice", env=new).returncode == 0
    restored = manage("import_tournament", str(tmp_path / "backup.json"), env=new)
    assert restored.returncode == 0, restored.stderr
    assert restored.stderr == ""  # the owner's account is here: nothing left behind
    slug = restored.stdout.strip().splitlines()[-1]

    port = free_port()

    with serving(gunicorn(port, workers=1), port=port, env=new) as base:
        context = browser.new_context(
            viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True
        )
        context.set_default_timeout(10_000)
        phone = context.new_page()
        response = phone.goto(f"{base}/p/{swap['tokens']['Ana Lopez']}/")
        assert response is not None and response.status == 200
        shown = phone.locator("main").inner_text()
        assert "Ana Lopez" in shown and "You are checked in." in shown  # the check-in came too
        assert "Time left" in shown  # and the round's clock
        assert phone.locator("[data-table]").first.is_visible()
        assert phone.locator("[data-opponent]").first.is_visible()
        ARTIFACTS.mkdir(exist_ok=True)
        phone.screenshot(path=str(ARTIFACTS / "laptop-swap.png"))
        pending = phone.goto(f"{base}/p/{swap['tokens']['Eva Late']}/")
        assert pending is not None and pending.status == 200
        assert "Eva Late" in phone.locator("main").inner_text()
        unknown = phone.goto(f"{base}/p/{'x' * 43}/")
        assert unknown is not None and unknown.status == 404
        event = phone.goto(f"{base}/t/{slug}/")
        assert event is not None and event.status == 200
        context.close()
