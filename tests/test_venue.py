"""The venue mode: a laptop serves phones on its network with the production stack."""

from __future__ import annotations

import http.cookiejar
import io
import json
import os
import re
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from tests.conftest import PROJECT_ROOT
from tournaments import venue
from tournaments.management.commands import venue as venue_command
from tournaments.models import Tournament
from tournaments.services import import_document

LAN = "192.168.1.23"


# --- the laptop's address ---------------------------------------------------------


class FakeSocket:
    """A UDP socket whose kernel would pick `source` for the default route."""

    connected: list[tuple[str, int]] = []

    def __init__(self, family: int, kind: int, source: str | None) -> None:
        assert (family, kind) == (socket.AF_INET, socket.SOCK_DGRAM)
        self.source = source

    def __enter__(self) -> FakeSocket:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def connect(self, destination: tuple[str, int]) -> None:
        if self.source is None:
            raise OSError(101, "Network is unreachable")
        FakeSocket.connected.append(destination)

    def getsockname(self) -> tuple[str, int]:
        assert self.source is not None
        return (self.source, 40123)


def fake_network(
    monkeypatch: pytest.MonkeyPatch, *, route_source: str | None, host_addresses: list[str]
) -> None:
    FakeSocket.connected = []
    monkeypatch.setattr(
        venue.socket, "socket", lambda family, kind: FakeSocket(family, kind, route_source)
    )
    monkeypatch.setattr(venue.socket, "gethostname", lambda: "laptop")
    monkeypatch.setattr(
        venue.socket, "gethostbyname_ex", lambda name: (name, [], list(host_addresses))
    )


def test_the_laptop_address_is_the_source_address_of_its_default_route(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_network(monkeypatch, route_source=LAN, host_addresses=["127.0.1.1"])
    assert venue.lan_address() == LAN
    # A UDP connect to a public address: the fake has no send, so nothing could be sent.
    assert FakeSocket.connected == [venue.ROUTE_PROBE]


def test_without_a_default_route_the_address_comes_from_the_host_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_network(monkeypatch, route_source=None, host_addresses=["127.0.1.1", "10.0.0.5"])
    assert venue.lan_address() == "10.0.0.5"


def test_a_laptop_without_a_network_has_no_address_never_a_loopback_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_network(monkeypatch, route_source="127.0.0.1", host_addresses=["127.0.1.1"])
    assert venue.lan_address() is None
    fake_network(monkeypatch, route_source=None, host_addresses=[])
    assert venue.lan_address() is None


def test_the_command_asks_for_a_network_when_the_laptop_has_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(venue, "lan_address", lambda: None)
    with pytest.raises(CommandError, match=r"no network address.*--address"):
        call_command("venue")


@pytest.mark.parametrize("given", ["fe80::1", "192.168.1", "not an address", "-x.lan"])
def test_an_address_that_cannot_be_served_is_refused_by_name(given: str) -> None:
    with pytest.raises(CommandError, match=re.escape(repr(given))):
        call_command("venue", address=given)


# --- the kept secret --------------------------------------------------------------


def test_the_secret_key_is_created_once_then_kept_readable_only_by_its_owner(
    tmp_path: Path,
) -> None:
    state = tmp_path / "var"
    old_umask = os.umask(0)  # the most permissive umask: the file must still be 0600
    try:
        first = venue.kept_secret_key(state)
    finally:
        os.umask(old_umask)
    path = venue.secret_key_path(state)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert len(first) >= 50
    assert venue.kept_secret_key(state) == first  # kept across restarts
    assert venue.kept_secret_key(tmp_path / "elsewhere") != first  # random, not fixed


def test_workers_starting_at_once_all_read_the_one_kept_key(tmp_path: Path) -> None:
    """A venue's workers start together: none may read the key file half-written (one
    stopped on an empty file) or keep a key of its own (sessions would not carry over)."""
    from concurrent.futures import ThreadPoolExecutor

    state = tmp_path / "var"
    with ThreadPoolExecutor(16) as pool:
        keys = set(pool.map(lambda _: venue.kept_secret_key(state), range(64)))
    assert len(keys) == 1
    assert [p.name for p in state.iterdir()] == [venue.secret_key_path(state).name]


def test_a_secret_key_file_others_can_read_is_refused(tmp_path: Path) -> None:
    venue.kept_secret_key(tmp_path)
    venue.secret_key_path(tmp_path).chmod(0o644)
    with pytest.raises(venue.VenueError, match="chmod 600"):
        venue.kept_secret_key(tmp_path)


# --- the settings the venue server gets -------------------------------------------


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without the settings a test sets (pytest runs DEBUG=1)."""
    dropped = {"DEBUG", "VENUE", "SECRET_KEY", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS",
               "PUBLIC_URL", "DATABASE_URL", "REDIS_URL", "SWISS_STATE_DIR", "STATIC_ROOT",
               "SECURE_SSL_REDIRECT", "SECURE_COOKIES", "SECURE_HSTS_SECONDS", "BEHIND_PROXY"}  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(extra)
    return env


def manage(*args: str, env: dict[str, str], timeout: int = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


SHOW_SETTINGS = (
    "import json; from django.conf import settings as s; print(json.dumps({k: getattr(s, k)"
    " for k in ('DEBUG', 'ALLOWED_HOSTS', 'CSRF_TRUSTED_ORIGINS', 'PUBLIC_URL',"
    " 'SECURE_SSL_REDIRECT', 'SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', 'SECRET_KEY')}))"
)


def loaded_settings(env: dict[str, str]) -> dict[str, Any]:
    result = manage("shell", "-c", SHOW_SETTINGS, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_venue_server_serves_exactly_its_addresses_over_plain_http_with_debug_off(
    tmp_path: Path,
) -> None:
    env = venue.server_environment(
        clean_env(SWISS_STATE_DIR=str(tmp_path)), address=LAN, port=8123, debug=False
    )
    loaded = loaded_settings(env)
    assert loaded["DEBUG"] is False
    assert loaded["ALLOWED_HOSTS"] == [LAN, "localhost", "127.0.0.1"]
    assert loaded["CSRF_TRUSTED_ORIGINS"] == [
        f"http://{LAN}:8123", "http://localhost:8123", "http://127.0.0.1:8123"
    ]  # fmt: skip
    assert loaded["PUBLIC_URL"] == f"http://{LAN}:8123"
    # Plain HTTP on the LAN: no redirect to HTTPS, cookies that come back over HTTP.
    assert loaded["SECURE_SSL_REDIRECT"] is False
    assert loaded["SESSION_COOKIE_SECURE"] is False and loaded["CSRF_COOKIE_SECURE"] is False
    assert loaded["SECRET_KEY"] == venue.secret_key_path(tmp_path).read_text().strip()


def test_outside_the_venue_mode_production_keeps_https_and_needs_a_secret_key() -> None:
    loaded = loaded_settings(clean_env(SECRET_KEY="k" * 60, ALLOWED_HOSTS="example.org"))
    assert loaded["SECURE_SSL_REDIRECT"] is True
    assert loaded["SESSION_COOKIE_SECURE"] is True and loaded["CSRF_COOKIE_SECURE"] is True
    assert loaded["PUBLIC_URL"] == ""
    result = manage("check", env=clean_env(ALLOWED_HOSTS="example.org"))
    assert result.returncode != 0 and "SECRET_KEY must be set" in result.stderr


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("192.168.1.23:8000", "http:// or https://"),
        ("ftp://192.168.1.23/", "http:// or https://"),
        ("http://", "names no host"),
        ("http://192.168.1.23:99999", "bad port"),
        ("http://192.168.1.23:8000/events/", "without a path"),
        ("http://me:secret@192.168.1.23/", "user name or password"),
        ("http://10.0.0.9:8000", "not in ALLOWED_HOSTS"),
    ],
)
def test_a_malformed_public_url_is_refused_saying_what_is_wrong(raw: str, problem: str) -> None:
    with pytest.raises(venue.VenueError, match=re.escape(problem)):
        venue.public_origin(raw, allowed_hosts=[LAN])


def test_a_malformed_public_url_stops_the_settings_loudly() -> None:
    result = manage("check", env=clean_env(DEBUG="1", PUBLIC_URL="192.168.1.23:8000"))
    assert result.returncode != 0
    assert "PUBLIC_URL='192.168.1.23:8000' must start with http://" in result.stderr
    assert venue.public_origin(f"http://{LAN}:8000/", allowed_hosts=[LAN]) == f"http://{LAN}:8000"


# --- the command ------------------------------------------------------------------


def test_the_command_refuses_to_serve_the_network_with_debug_on() -> None:
    result = manage("venue", "--address", LAN, env=clean_env(DEBUG="1"), timeout=60)
    assert result.returncode == 1
    assert "DEBUG is on" in result.stderr and "will not serve 192.168.1.23" in result.stderr


def free_port(host: str = "0.0.0.0") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[str], dict[str, str]]]:
    """What the command would exec, instead of exec'ing it."""
    calls: list[tuple[list[str], dict[str, str]]] = []
    monkeypatch.setattr(venue_command, "serve", lambda argv, env: calls.append((argv, env)))
    return calls


@pytest.fixture
def collected(settings: Any, tmp_path: Path) -> Path:
    """A static root with the manifest collectstatic writes."""
    settings.STATIC_ROOT = tmp_path / "static"
    settings.STATIC_ROOT.mkdir()
    (settings.STATIC_ROOT / "staticfiles.json").write_text("{}")
    return settings.STATIC_ROOT


@pytest.mark.django_db
def test_the_command_starts_gunicorn_on_every_interface_and_says_where_phones_go(
    started: list[Any], collected: Path, small_doc: dict, settings: Any
) -> None:
    settings.DEBUG = False
    event = import_document(small_doc)
    User.objects.create_user(venue.DEMO_USERNAME, password=venue.DEMO_PASSWORD)
    port = free_port()
    out = io.StringIO()
    call_command("venue", address=LAN, port=port, workers=2, stdout=out)
    text = out.getvalue()
    assert f"Phones: http://{LAN}:{port}/" in text
    assert f"{event.name}: http://{LAN}:{port}/t/{event.slug}/" in text
    assert f"http://localhost:{port}/t/{event.slug}/manage/share/" in text  # the QR code
    assert f"log in on this laptop at http://localhost:{port}/accounts/login/" in text
    assert "organizer / organizer works from this laptop only" in text
    assert "VENUE=1 " in text and " manage.py create" in text  # create_organizer or createsuperuser
    [(argv, env)] = started
    assert argv[:4] == [sys.executable, "-m", "gunicorn", "tournaments.asgi:application"]
    assert argv[argv.index("--worker-class") + 1] == "uvicorn_worker.UvicornWorker"
    assert argv[argv.index("--bind") + 1] == f"0.0.0.0:{port}"
    assert argv[argv.index("--workers") + 1] == "2"
    assert env["DEBUG"] == "0" and env["VENUE"] == "1"
    assert env["ALLOWED_HOSTS"] == f"{LAN},localhost,127.0.0.1"
    assert env["PUBLIC_URL"] == f"http://{LAN}:{port}"


@pytest.mark.django_db
def test_with_debug_on_the_command_serves_this_laptop_only(
    started: list[Any], settings: Any
) -> None:
    settings.DEBUG = True
    with pytest.raises(CommandError, match="DEBUG is on"):
        call_command("venue", address=LAN, port=free_port(), stdout=io.StringIO())
    assert started == []
    port = free_port("127.0.0.1")
    call_command("venue", address="127.0.0.1", port=port, stdout=io.StringIO())
    [(argv, env)] = started
    assert argv[argv.index("--bind") + 1] == f"127.0.0.1:{port}"
    assert env["ALLOWED_HOSTS"] == "127.0.0.1,localhost"


@pytest.mark.django_db
def test_the_command_refuses_a_port_already_in_use(
    started: list[Any], collected: Path, settings: Any
) -> None:
    settings.DEBUG = False
    with socket.socket() as busy:
        busy.bind(("0.0.0.0", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(CommandError, match=f"Port {port} is already in use"):
            call_command("venue", address=LAN, port=port, stdout=io.StringIO())
    assert started == []


@pytest.mark.django_db
def test_the_command_refuses_to_serve_without_collected_static_files(
    started: list[Any], settings: Any, tmp_path: Path
) -> None:
    settings.DEBUG = False
    settings.STATIC_ROOT = tmp_path / "nothing-collected"
    with pytest.raises(CommandError, match="collectstatic"):
        call_command("venue", address=LAN, port=free_port(), stdout=io.StringIO())
    assert started == []


# --- the QR code ------------------------------------------------------------------


def qr_svg(url: str) -> bytes:
    """The QR code the event screen shows, as qr_code draws it."""
    import segno

    buffer = io.BytesIO()
    segno.make(url, error="m").save(
        buffer, kind="svg", scale=8, dark="#000", light="#fff", border=2, xmldecl=False
    )
    return buffer.getvalue()


@pytest.mark.django_db
def test_the_qr_code_encodes_the_public_url_when_it_is_set(
    client: Client, event: Tournament, settings: Any
) -> None:
    settings.PUBLIC_URL = f"http://{LAN}:8000"
    response = client.get(f"/t/{event.slug}/qr.svg")
    assert response.status_code == 200
    assert response.content == qr_svg(f"http://{LAN}:8000/t/{event.slug}/")


@pytest.mark.django_db
def test_without_a_public_url_the_qr_code_encodes_the_host_the_browser_used(
    client: Client, event: Tournament, settings: Any
) -> None:
    settings.PUBLIC_URL = ""
    response = client.get(f"/t/{event.slug}/qr.svg")
    assert response.content == qr_svg(f"http://testserver/t/{event.slug}/")


@pytest.mark.django_db
def test_a_cached_qr_code_is_replaced_as_soon_as_the_address_changes(
    client: Client, event: Tournament, settings: Any
) -> None:
    settings.PUBLIC_URL = f"http://{LAN}:8000"
    first = client.get(f"/t/{event.slug}/qr.svg")
    assert "no-cache" in first["Cache-Control"]
    again = client.get(f"/t/{event.slug}/qr.svg", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    settings.PUBLIC_URL = "http://10.0.0.7:8000"  # the next venue's network
    moved = client.get(f"/t/{event.slug}/qr.svg", HTTP_IF_NONE_MATCH=first["ETag"])
    assert moved.status_code == 200 and moved["ETag"] != first["ETag"]
    assert moved.content == qr_svg(f"http://10.0.0.7:8000/t/{event.slug}/")


# --- the demo login -----------------------------------------------------------------


@pytest.fixture
def demo_account(django_user_model: type[User]) -> User:
    return django_user_model.objects.create_user(
        venue.DEMO_USERNAME, password=venue.DEMO_PASSWORD, is_staff=True, is_superuser=True
    )


DEMO_LOGIN = {"username": venue.DEMO_USERNAME, "password": venue.DEMO_PASSWORD}


@pytest.mark.django_db
@pytest.mark.parametrize("address", ["192.168.1.50", "10.0.0.2", "2001:db8::5"])
def test_the_demo_login_is_refused_from_another_machine(demo_account: User, address: str) -> None:
    phone = Client(REMOTE_ADDR=address)
    response = phone.post("/accounts/login/", DEMO_LOGIN)
    assert response.status_code == 422
    html = response.content.decode()
    assert "works only on the laptop that runs the server" in html
    assert "http://localhost:80/accounts/login/" in html
    assert "_auth_user_id" not in phone.session


@pytest.mark.django_db
@pytest.mark.parametrize("address", ["127.0.0.1", "::1", "::ffff:127.0.0.1"])
def test_the_demo_login_works_on_the_laptop_itself(demo_account: User, address: str) -> None:
    laptop = Client(REMOTE_ADDR=address)
    response = laptop.post("/accounts/login/", DEMO_LOGIN)
    assert response.status_code == 302
    assert laptop.session["_auth_user_id"] == str(demo_account.pk)


@pytest.mark.django_db
def test_behind_a_proxy_the_demo_login_is_refused_even_from_the_proxy_on_this_machine(
    demo_account: User, settings: Any
) -> None:
    settings.BEHIND_PROXY = True
    response = Client(REMOTE_ADDR="127.0.0.1").post("/accounts/login/", DEMO_LOGIN)
    assert response.status_code == 422


@pytest.mark.django_db
def test_other_accounts_and_a_changed_demo_password_log_in_from_any_machine(
    demo_account: User, django_user_model: type[User]
) -> None:
    django_user_model.objects.create_user("td", password="judge-me-42")
    phone = Client(REMOTE_ADDR="192.168.1.50")
    assert (
        phone.post("/accounts/login/", {"username": "td", "password": "judge-me-42"}).status_code
        == 302
    )
    demo_account.set_password("a-password-of-our-own")
    demo_account.save()
    response = Client(REMOTE_ADDR="192.168.1.50").post(
        "/accounts/login/", {"username": venue.DEMO_USERNAME, "password": "a-password-of-our-own"}
    )
    assert response.status_code == 302


# --- end to end: the real server, reached through the machine's network address ------


def network_address() -> str | None:
    """The machine's own non-loopback IPv4, found as the command finds it."""
    return venue.lan_address()


class _Headers(dict[str, str]):
    """Header names are case-insensitive (uvicorn sends them in lower case)."""

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and super().__contains__(name.lower())

    def __getitem__(self, name: str) -> str:
        return super().__getitem__(name.lower())

    def get(self, name: str, default: object = None) -> object:  # type: ignore[override]
        return super().get(name.lower(), default)


def _headers(message: object) -> _Headers:
    return _Headers((k.lower(), v) for k, v in message.items())  # type: ignore[attr-defined]


class Browser:
    """A phone or the laptop: urllib with cookies, which keeps a Secure cookie off HTTP."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), NoRedirect()
        )

    def get(self, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
        return self._open(urllib.request.Request(self.base + path, headers=headers))

    def post(self, path: str, data: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        body = urllib.parse.urlencode(data).encode()
        request = urllib.request.Request(
            self.base + path, data=body, headers={"Origin": self.base}, method="POST"
        )
        return self._open(request)

    def _open(self, request: urllib.request.Request) -> tuple[int, dict[str, str], bytes]:
        try:
            with self.opener.open(request, timeout=10) as response:
                return response.status, _headers(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, _headers(error.headers), error.read()

    def log_in(self, username: str, password: str) -> int:
        _, _, page = self.get("/accounts/login/")
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token, "the login page carries no CSRF token"
        status, _, _ = self.post(
            "/accounts/login/",
            {"csrfmiddlewaretoken": token.group(1).decode(), "username": username,
             "password": password},
        )  # fmt: skip
        return status


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def answers(browser: Browser) -> bool:
    try:
        return browser.get("/healthz")[0] == 200
    except OSError:  # not listening yet
        return False


@pytest.fixture
def venue_site(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A database with the demo event and two accounts, and its static files collected."""
    env = clean_env(
        DEBUG="0", VENUE="1", SWISS_STATE_DIR=str(tmp_path / "var"),
        STATIC_ROOT=str(tmp_path / "static"), DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    )  # fmt: skip
    for step in (("migrate", "--noinput"), ("collectstatic", "--noinput")):
        result = manage(*step, env=env)
        assert result.returncode == 0, result.stderr
    demo = manage("load_demo", "--force", env=env)
    assert demo.returncode == 0, demo.stderr
    slug = re.search(r"/t/([^/]+)/", demo.stdout)
    assert slug, demo.stdout
    accounts = manage(
        "shell", "-c",
        "from django.contrib.auth.models import User;"
        f"User.objects.create_superuser({venue.DEMO_USERNAME!r}, password={venue.DEMO_PASSWORD!r});"
        "User.objects.create_user('td', password='judge-me-42')",
        env=env,
    )  # fmt: skip
    assert accounts.returncode == 0, accounts.stderr
    yield {"env": env, "slug": slug.group(1), "state": tmp_path / "var", "log": tmp_path / "log"}


def test_the_venue_server_serves_phones_through_the_network_address(
    venue_site: dict[str, Any],
) -> None:
    address = network_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address to reach the server by")
    port = free_port()
    slug = venue_site["slug"]
    with venue_site["log"].open("w") as log:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "venue", "--port", str(port), "--workers", "1"],
            cwd=PROJECT_ROOT, env=venue_site["env"], stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    phone = Browser(f"http://{address}:{port}")
    try:
        deadline = time.monotonic() + 30
        while not answers(phone):
            assert server.poll() is None, venue_site["log"].read_text()
            assert time.monotonic() < deadline, "the server did not answer in 30 s"
            time.sleep(0.2)

        status, headers, page = phone.get(f"/t/{slug}/")
        assert status == 200 and b"Demo Friday Night Magic" in page
        assert "Content-Security-Policy" in headers
        static = re.search(rb'(?:href|src)="(/static/[^"]+)"', page)
        assert static, "the event page refers to no static file"
        # Collected by the manifest storage (a hashed name), served by whitenoise.
        assert re.search(rb"\.[0-9a-f]{12}\.\w+$", static.group(1)), static.group(1)
        status, headers, body = phone.get(static.group(1).decode())
        assert status == 200 and body and "immutable" in headers.get("Cache-Control", "")

        status, _, svg = phone.get(f"/t/{slug}/qr.svg")
        assert status == 200 and svg == qr_svg(f"http://{address}:{port}/t/{slug}/")

        # No debug page, and no answer to a host name it does not serve.
        status, _, body = phone.get("/no-such-page/")
        assert status == 404 and b"URLconf" not in body and b"DEBUG" not in body
        assert phone.get(f"/t/{slug}/", Host="evil.example")[0] == 400

        # Logins work over plain HTTP (cookies not Secure-only), the demo's only here.
        assert phone.log_in(venue.DEMO_USERNAME, venue.DEMO_PASSWORD) == 422
        assert Browser(f"http://{address}:{port}").log_in("td", "judge-me-42") == 302
        assert Browser(f"http://127.0.0.1:{port}").log_in(
            venue.DEMO_USERNAME, venue.DEMO_PASSWORD
        ) == 302  # fmt: skip
    finally:
        server.terminate()  # the gunicorn master: the command exec'd into it
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, 9)  # the session this test started, and nothing else
            server.wait(timeout=5)
    printed = venue_site["log"].read_text()
    assert f"Phones: http://{address}:{port}/" in printed
    assert f"Demo Friday Night Magic: http://{address}:{port}/t/{slug}/" in printed
    secret = venue.secret_key_path(venue_site["state"])
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
