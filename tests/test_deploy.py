"""Production settings and the production stack (gunicorn + whitenoise + PostgreSQL)."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT
from tests.helpers import free_port, gunicorn, manage, production_env, serving

# The machine's PostgreSQL server (trust auth); CI has it too.
POSTGRES_ADMIN_URL = os.environ.get(
    "POSTGRES_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres"
)


def test_check_deploy_passes_in_production_mode() -> None:
    result = manage("check", "--deploy", "--fail-level", "WARNING",
                    env=production_env(SECURE_SSL_REDIRECT="1"))  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_production_without_a_secret_key_fails_loudly() -> None:
    env = production_env()
    del env["SECRET_KEY"]
    result = manage("check", env=env)
    assert result.returncode != 0 and "SECRET_KEY must be set" in result.stderr


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [("DEBUG", "maybe", "is not a boolean"), ("DATABASE_URL", "mysq1://x", "DATABASE_URL")],
)
def test_a_malformed_setting_is_named(name: str, value: str, message: str) -> None:
    result = manage("check", env=production_env(**{name: value}))
    assert result.returncode != 0 and message in result.stderr


@pytest.fixture
def fresh_postgres() -> Iterator[str]:
    import psycopg

    name = f"swiss_stack_{uuid.uuid4().hex[:8]}"
    admin = POSTGRES_ADMIN_URL
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield admin.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_gunicorn_whitenoise_and_postgresql_serve_the_app(
    fresh_postgres: str, tmp_path: Path
) -> None:
    # Static files collected into this test's directory, not the project's staticfiles/:
    # a developer's `make venue` serves that one, and parallel workers must not share it.
    # No REDIS_URL: a memory cache in each worker, as the venue mode runs.
    env = production_env(
        DATABASE_URL=fresh_postgres, BEHIND_PROXY="1", STATIC_ROOT=str(tmp_path / "static"),
        REDIS_URL="",
    )  # fmt: skip
    for step in (
        ("migrate", "--noinput"),
        ("collectstatic", "--noinput"),
        ("load_demo", "--force"),
    ):
        result = manage(*step, env=env)
        assert result.returncode == 0, result.stderr
    port = free_port()
    with serving(gunicorn(port, workers=2), port=port, env=env) as base:
        # Behind the TLS-terminating proxy: HSTS and secure cookies apply.
        request = urllib.request.Request(f"{base}/", headers={"X-Forwarded-Proto": "https"})
        with urllib.request.urlopen(request, timeout=5) as response:
            assert response.status == 200 and b"Tournaments" in response.read()
            assert "max-age=31536000" in response.headers.get("Strict-Transport-Security", "")
            # The server's part of the trip (tournaments/timing.py), for bench_phones.
            assert response.headers["Server-Timing"].startswith("app;dur=")
        with urllib.request.urlopen(f"{base}/static/css/app.css", timeout=5) as response:
            assert response.status == 200 and b"prefers-color-scheme" in response.read()
        # A live page's event stream, answered on the event loop (tournaments/asgi.py).
        with urllib.request.urlopen(
            f"{base}/t/demo-friday-night-magic/live/", timeout=5
        ) as response:
            assert response.headers["Content-Type"] == "text/event-stream"
            assert response.readline() == b"retry: 3000\n"
        try:
            urllib.request.urlopen(f"{base}/t/no-such-event/live/", timeout=5)
            raise AssertionError("an unknown event's stream was answered")
        except urllib.error.HTTPError as exc:
            assert exc.code == 404
        every_stream_hears_of_a_write_from_elsewhere(base, fresh_postgres)


def every_stream_hears_of_a_write_from_elsewhere(base: str, database_url: str) -> None:
    """Streams held by either worker are told of a write committed by another process (here
    the version moved by hand): each worker reads it from the database, not from a mark in
    its own memory cache, which the writer's worker alone would see."""
    import psycopg

    streams = [
        urllib.request.urlopen(f"{base}/t/demo-friday-night-magic/live/", timeout=10)
        for _ in range(6)
    ]
    try:
        for response in streams:
            assert response.readline() == b"retry: 3000\n"
        time.sleep(1.5)  # each worker's hub has had its first look
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute(
                "UPDATE tournaments_tournament SET version = version + 1"
                " WHERE slug = 'demo-friday-night-magic'"
            )
        for response in streams:
            while (line := response.readline()) != b"event: shared\n":
                assert line, "the stream ended before it was told"
    finally:
        for response in streams:
            response.close()


def dockerfile_steps() -> tuple[dict[str, str], list[str], str]:
    """The Dockerfile's ENV, its RUN commands after the project is copied in, and CMD."""
    import json
    import re

    env: dict[str, str] = {}
    runs: list[str] = []
    cmd = ""
    copied = False
    for line in (PROJECT_ROOT / "Dockerfile").read_text().splitlines():
        if line.startswith("ENV "):
            env.update(re.findall(r"(\w+)=(\S+)", line[4:]))
        elif line.startswith("COPY . ."):
            copied = True
        elif line.startswith("RUN ") and copied:
            runs.append(line[4:])
        elif line.startswith("CMD "):
            cmd = json.loads(line[4:])[-1]
    assert runs and cmd, "the Dockerfile lost its build steps or its command"
    return env, runs, cmd


def test_the_production_image_steps_build_static_files_that_serve_with_debug_off(
    tmp_path: Path, small_doc: dict
) -> None:
    """Docker is not on every machine, so the Dockerfile's own steps run here in a clean
    copy of the repository (the image's `pip install .` is this interpreter's install),
    then its command serves the app with DEBUG off, and every public page is fetched."""
    import json
    import shutil

    env_vars, runs, cmd = dockerfile_steps()
    app = tmp_path / "app"
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=PROJECT_ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    for name in files:
        if (PROJECT_ROOT / name).is_file():
            (app / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(PROJECT_ROOT / name, app / name)
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "DATABASE_URL")}
    env.update(env_vars, PATH=f"{Path(sys.executable).parent}:{env.get('PATH', '')}")
    for step in runs:
        result = subprocess.run(
            step.replace("python ", f"{sys.executable} ", 1), shell=True, cwd=app, env=env,
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert result.returncode == 0, f"{step}\n{result.stdout}{result.stderr}"
    assert (app / "staticfiles" / "staticfiles.json").is_file(), "no manifest was written"

    port = free_port()
    env.update(
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="0",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        WEB_CONCURRENCY="2",
    )
    document = tmp_path / "event.json"
    document.write_text(json.dumps(small_doc))
    command = (
        cmd.replace("python ", f"{sys.executable} ")
        .replace("exec gunicorn", f"exec {sys.executable} -m gunicorn")
        .replace("0.0.0.0:8000", f"127.0.0.1:{port}")
    )
    imported = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"], cwd=app, env=env,
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    imported = subprocess.run(
        [sys.executable, "manage.py", "import_tournament", str(document)], cwd=app, env=env,
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    slug = imported.stdout.strip().splitlines()[-1]
    with serving(["sh", "-c", command], port=port, env=env, cwd=app) as base:
        pages = ["/", "/accounts/login/", f"/t/{slug}/", f"/t/{slug}/standings/",
                 f"/t/{slug}/pairings/", f"/t/{slug}/players/p1/", f"/t/{slug}/bracket/",
                 f"/t/{slug}/projector/", f"/t/{slug}/qr.svg"]  # fmt: skip
        statics: set[str] = set()
        for page in pages:
            with urllib.request.urlopen(base + page, timeout=10) as response:
                body = response.read().decode()
                assert response.status == 200, page
                assert "Content-Security-Policy" in response.headers, page
                statics.update(re.findall(r'(?:href|src)="(/static/[^"]+)"', body))
        assert statics, "no page referred to a static file"
        for static in statics:
            with urllib.request.urlopen(base + static, timeout=10) as response:
                assert response.status == 200 and response.read(), static


@pytest.mark.parametrize(
    ("behind", "trusted"), [("0", "None"), ("1", "('HTTP_X_FORWARDED_PROTO', 'https')")]
)
def test_the_forwarded_proto_header_is_trusted_only_behind_a_configured_proxy(
    behind: str, trusted: str
) -> None:
    result = manage(
        "shell", "-c", "from django.conf import settings; print(settings.SECURE_PROXY_SSL_HEADER)",
        env=production_env(BEHIND_PROXY=behind),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == trusted


def test_compose_publishes_the_app_to_the_host_only_with_https_on() -> None:
    compose = (PROJECT_ROOT / "docker-compose.yml").read_text()
    assert '"127.0.0.1:8000:8000"' in compose and '"8000:8000"' not in compose
    assert "SECURE_SSL_REDIRECT: ${SECURE_SSL_REDIRECT:-1}" in compose
    assert 'BEHIND_PROXY: "1"' in compose
