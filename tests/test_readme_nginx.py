"""The README's nginx block, run as written in front of the shipped app (issue 24: "the
README's production and nginx sections are the configuration the tests use").

Only what a test machine cannot have is replaced: the TLS listener (a plain port), the
upstreams' ports and the cache's directory. nginx comes from Debian (`apt-get install
nginx`, as .ci/run does); without it these tests fail, saying so.
"""

from __future__ import annotations

import http.client
import re
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PROJECT_ROOT
from tests.helpers import free_port, gunicorn, manage, production_env, serving

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def readme_nginx_block() -> str:
    """The nginx configuration in README.md's "Behind a cache" section, as printed."""
    readme = (PROJECT_ROOT / "README.md").read_text()
    section = readme[readme.index("## Behind a cache") :]
    lines = section.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("    proxy_cache_path"))
    end = next(k for k in range(start, len(lines)) if lines[k] == "    }")
    return "\n".join(line[4:] for line in lines[start : end + 1])


def _config(tmp: Path, *, listen: int, app: int) -> str:
    block = readme_nginx_block()
    for old, new in (
        ("listen 443 ssl http2;", f"listen 127.0.0.1:{listen};"),
        ("/var/cache/nginx/swiss", str(tmp / "cache")),
        ("127.0.0.1:8000", f"127.0.0.1:{app}"),
        ("127.0.0.1:8001", f"127.0.0.1:{app}"),  # one server plays both pools here
    ):
        assert old in block, f"the README's nginx block no longer has {old!r}"
        block = block.replace(old, new)
    temp = " ".join(
        f"{kind}_temp_path {tmp / kind};" for kind in ("client_body", "proxy", "fastcgi")
    )
    return f"""
user root;
worker_processes 1;
pid {tmp / "nginx.pid"};
error_log {tmp / "error.log"};
events {{ worker_connections 256; }}
http {{
    access_log {tmp / "access.log"};
    {temp} uwsgi_temp_path {tmp / "uwsgi"}; scgi_temp_path {tmp / "scgi"};
{block}
}}
"""


@pytest.fixture(scope="module")
def behind_nginx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    if not Path(NGINX).exists():
        pytest.fail("nginx is needed: apt-get update && apt-get install nginx (.ci/run does)")
    tmp = tmp_path_factory.mktemp("nginx")
    database = tmp / "db.sqlite3"
    env = production_env(
        DATABASE_URL=f"sqlite:///{database}", STATIC_ROOT=str(tmp / "static"), BEHIND_PROXY="1"
    )
    for step in (("migrate", "--noinput"), ("collectstatic", "--noinput")):
        result = manage(*step, env=env)
        assert result.returncode == 0, result.stderr
    demo = manage("load_demo", "--force", env=env)
    slug = re.search(r"/t/([^/]+)/", demo.stdout)
    assert slug, demo.stderr
    app, port = free_port(), free_port()
    (tmp / "nginx.conf").write_text(_config(tmp, listen=port, app=app))
    checked = subprocess.run(
        [NGINX, "-t", "-c", str(tmp / "nginx.conf")], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr
    with serving(gunicorn(app, workers=1), port=app, env=env):
        proxy = subprocess.Popen([NGINX, "-c", str(tmp / "nginx.conf"), "-g", "daemon off;"])
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    _get(port, "/healthz")
                    break
                except OSError:
                    assert time.monotonic() < deadline, (tmp / "error.log").read_text()
                    time.sleep(0.1)
            yield {"port": port, "tmp": tmp, "slug": slug.group(1), "database": database}
        finally:
            proxy.terminate()
            proxy.wait(timeout=10)


def _request(
    port: int, method: str, path: str, headers: dict[str, str] | None = None, body: str = ""
) -> tuple[int, dict[str, str], str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, path, body=body or None, headers=headers or {})
        response = connection.getresponse()
        text = response.read().decode("utf-8", "replace")
        return response.status, {k.lower(): v for k, v in response.getheaders()}, text
    finally:
        connection.close()


def _get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict, str]:
    return _request(port, "GET", path, headers)


def test_the_readme_nginx_block_is_a_valid_configuration(behind_nginx: dict[str, Any]) -> None:
    status, _, body = _get(behind_nginx["port"], f"/t/{behind_nginx['slug']}/standings/")
    assert status == 200 and "Standings" in body


def test_behind_it_forged_addresses_never_spare_an_attacker_the_login_lockout(
    behind_nginx: dict[str, Any],
) -> None:
    port = behind_nginx["port"]
    status, headers, page = _get(port, "/accounts/login/")
    assert status == 200
    cookie = re.search(r"csrftoken=([^;]+)", headers.get("set-cookie", ""))
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert cookie and token
    statuses = []
    for n in range(8):
        status, _, _ = _request(
            port,
            "POST",
            "/accounts/login/",
            {
                "Content-Type": "application/x-www-form-urlencoded",
                "Cookie": f"csrftoken={cookie[1]}",
                "X-Forwarded-For": f"10.0.{n}.{n}",  # a new forged address each time
            },
            f"csrfmiddlewaretoken={token[1]}&username=organizer&password=wrong{n}",
        )
        statuses.append(status)
    assert statuses[:4] == [200] * 4 and 429 in statuses[4:], statuses
    with sqlite3.connect(behind_nginx["database"]) as db:
        stored = {row[0] for row in db.execute("SELECT ip_address FROM axes_accessattempt")}
    assert stored == {"127.0.0.1"}  # the address nginx saw, never one the client wrote


def test_behind_it_junk_in_the_query_string_is_sent_to_the_canonical_page(
    behind_nginx: dict[str, Any],
) -> None:
    slug = behind_nginx["slug"]
    for n in range(3):
        status, headers, _ = _get(behind_nginx["port"], f"/t/{slug}/standings/?junk={n}")
        assert status == 301 and headers["location"].endswith(f"/t/{slug}/standings/")
    cached = list((behind_nginx["tmp"] / "cache").rglob("*"))
    assert not any("junk" in p.read_bytes().decode("latin-1") for p in cached if p.is_file())


def test_behind_it_no_private_or_set_password_link_reaches_the_access_log(
    behind_nginx: dict[str, Any],
) -> None:
    port = behind_nginx["port"]
    _get(port, "/p/a-private-token-never-logged/")
    _get(port, "/accounts/set-password/MQ/a-set-password-token-never-logged/")
    _get(port, f"/t/{behind_nginx['slug']}/")
    time.sleep(0.2)
    log = (behind_nginx["tmp"] / "access.log").read_text()
    assert f"/t/{behind_nginx['slug']}/" in log
    assert "never-logged" not in log


def test_behind_it_each_language_gets_its_own_copy_and_other_cookies_share_it(
    behind_nginx: dict[str, Any],
) -> None:
    """Public pages vary on the reader's language (issue 29): nginx keys on the language
    cookie and Accept-Language, never hands one language to another reader, and a phone
    that carries some other cookie still gets the shared copy."""
    port, slug = behind_nginx["port"], behind_nginx["slug"]
    path = f"/t/{slug}/standings/"
    _, _, english = _get(port, path, {"Accept-Language": "en"})
    _, _, french = _get(port, path, {"Accept-Language": "fr"})
    _, _, by_cookie = _get(port, path, {"Accept-Language": "en", "Cookie": "django_language=fr"})
    assert '<html lang="en">' in english and "<h1>Standings" in english
    assert '<html lang="fr">' in french and '<html lang="fr">' in by_cookie
    _, _, again = _get(port, path, {"Accept-Language": "en", "Cookie": "csrftoken=abc"})
    assert '<html lang="en">' in again
