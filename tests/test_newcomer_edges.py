"""The edges a newcomer hits first (issue 26 item 8): the README's commands, the error
pages, the demo and the venue mode's messages."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.template.loader import render_to_string
from django.test import Client

from tests.conftest import PROJECT_ROOT
from tests.helpers import free_port, production_env
from tournaments.management.commands import venue as venue_command
from tournaments.models import Tournament
from tournaments.rules import suggested_swiss_rounds
from tournaments.views.auth import DEMO_ONLY_LOCAL


def _section(title: str) -> str:
    readme = (PROJECT_ROOT / "README.md").read_text()
    start = readme.index(f"## {title}\n")
    end = readme.find("\n## ", start + 1)
    return readme[start:end]


def test_a_command_without_its_settings_names_the_missing_one_in_a_line() -> None:
    env = production_env()
    del env["SECRET_KEY"]
    result = subprocess.run(
        [sys.executable, "manage.py", "standings", "any"],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "Configuration error: SECRET_KEY must be set when DEBUG is off (on a laptop at a"
        " venue: make venue; on a development install: DEBUG=1, as make run sets it)"
    ]


def test_the_readme_command_line_runs_with_the_venvs_python_and_debug_settings() -> None:
    section = _section("Command line")
    assert ". .venv/bin/activate && export DEBUG=1" in section
    assert "SECRET_KEY" in section and "DATABASE_URL" in section


def test_the_readme_says_to_update_apt_before_installing_chromium() -> None:
    assert "apt-get update && apt-get install chromium" in _section(
        "Two commands on a fresh machine"
    )


@pytest.mark.django_db
def test_a_missing_page_says_so_and_links_back(client: Client, settings: Any) -> None:
    settings.DEBUG = False
    response = client.get("/t/no-such-event/")
    assert response.status_code == 404
    text = response.content.decode()
    assert "<h1>Not found</h1>" in text and 'href="/"' in text
    assert "No such tournament" in text


@pytest.mark.django_db
def test_a_refused_page_says_why_and_offers_the_login(client: Client, settings: Any) -> None:
    settings.DEBUG = False
    from tournaments.services import create_tournament

    slug = create_tournament(name="Club", system="mtr").slug
    owner_only = client.get(f"/t/{slug}/manage/")
    assert owner_only.status_code == 302  # anonymous: to the login page
    from django.contrib.auth.models import User

    client.force_login(User.objects.create_user("stranger"))
    response = client.get(f"/t/{slug}/manage/")
    assert response.status_code == 403
    text = response.content.decode()
    assert "Not allowed" in text and "You do not manage this tournament." in text
    assert 'href="/manage/' in text or "My tournaments" in text


@pytest.mark.django_db
def test_a_host_not_allowed_is_named_not_blamed_on_utf8(client: Client, settings: Any) -> None:
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["example.org"]
    response = client.get("/", HTTP_HOST="elsewhere.test")
    assert response.status_code == 400
    text = response.content.decode()
    assert "ALLOWED_HOSTS" in text and "UTF-8" not in text and 'href="/"' in text


def test_the_server_error_page_offers_a_way_back() -> None:
    text = render_to_string("500.html")
    assert "Something went wrong" in text and 'href="/"' in text


@pytest.mark.django_db
def test_the_demo_plans_the_rounds_its_screen_suggests() -> None:
    call_command("load_demo", "--force", stdout=io.StringIO())
    demo = Tournament.objects.get()
    assert demo.planned_rounds == suggested_swiss_rounds(demo.players.count())


def test_the_demo_refusal_names_the_command_the_venue_mode_prints() -> None:
    assert "create_organizer" in DEMO_ONLY_LOCAL and "createsuperuser" not in DEMO_ONLY_LOCAL


@pytest.mark.django_db
def test_the_busy_port_hint_says_how_to_pass_the_port_through_make(
    monkeypatch: pytest.MonkeyPatch, settings: Any, tmp_path: Path
) -> None:
    settings.STATIC_ROOT = tmp_path
    (tmp_path / "staticfiles.json").write_text("{}")
    monkeypatch.setattr(venue_command, "serve", lambda argv, env: None)
    monkeypatch.setattr(venue_command.venue, "port_is_free", lambda host, port: False)
    settings.DEBUG = False
    with pytest.raises(Exception, match='VENUE_ARGS="--port 8001"'):
        call_command("venue", address="127.0.0.1", port=8000, stdout=io.StringIO())


@pytest.mark.django_db
def test_a_loopback_address_prints_no_phone_address(
    monkeypatch: pytest.MonkeyPatch, settings: Any, tmp_path: Path
) -> None:
    settings.STATIC_ROOT = tmp_path
    (tmp_path / "staticfiles.json").write_text("{}")
    monkeypatch.setattr(venue_command, "serve", lambda argv, env: None)
    out = io.StringIO()
    port = free_port()
    call_command("venue", address="127.0.0.1", port=port, stdout=out)
    text = out.getvalue()
    assert "Phones: none" in text and f"Phones: http://127.0.0.1:{port}" not in text
