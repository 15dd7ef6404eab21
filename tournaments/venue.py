"""The venue mode's plumbing: the laptop's network address, the kept secret key, the
public URL phones open, and the environment of the server that `manage.py venue` starts.

Standard library only: settings.py imports this module before Django is configured.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
import secrets
import socket
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

BASE_DIR = Path(__file__).resolve().parent.parent

# The account load_demo creates in debug mode. Its password is printed in README, so it
# must never open the event to another machine (tournaments.views.auth refuses it there).
DEMO_USERNAME = "organizer"
DEMO_PASSWORD = "organizer"

SECRET_FILE_NAME = "secret_key"
SECRET_MIN_LENGTH = 50  # Django's own check (security.W009) asks for at least 50 characters

# Any routable address will do: a UDP "connect" sends nothing, it only makes the kernel
# pick the route and so the source address that the default route would use.
ROUTE_PROBE = ("8.8.8.8", 53)

LOCAL_HOSTS = ("localhost", "127.0.0.1")

_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_HOSTNAME = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*$", re.IGNORECASE)


class VenueError(ValueError):
    """A venue setting or file that cannot be used; the message says what to do."""


def _usable(address: str) -> bool:
    """An IPv4 address another machine on the network could reach."""
    try:
        ip = ipaddress.IPv4Address(address)
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_unspecified or ip.is_multicast)


def lan_address() -> str | None:
    """The laptop's IPv4 address on the network of its default route (the venue's Wi-Fi),
    or None when it has no network: never a loopback address."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(ROUTE_PROBE)
            address = probe.getsockname()[0]
        if _usable(address):
            return address
    except OSError:
        pass  # no default route (a Wi-Fi without internet still has one, usually)
    # Without a default route, any non-loopback address the host name resolves to.
    try:
        _, _, addresses = socket.gethostbyname_ex(socket.gethostname())
    except OSError:
        return None
    return next((a for a in addresses if _usable(a)), None)


def check_address(address: str) -> str:
    """An address given with --address: an IPv4 address or a host name (IPv6 is not
    served: the server binds IPv4)."""
    address = address.strip()
    try:
        return str(ipaddress.IPv4Address(address))
    except ValueError:
        pass
    if ":" in address or not _HOSTNAME.match(address) or address.replace(".", "").isdigit():
        raise VenueError(
            f"{address!r} is not an IPv4 address or a host name (for example 192.168.1.23)"
        )
    return address.lower()


def local_zone_name(environ: Mapping[str, str] | None = None) -> str:
    """The machine's time zone by its IANA name ("Europe/Paris"), for TIME_ZONE's default:
    a laptop at a venue is set to the venue's zone, and times the organizer reads (the
    audit log) should be the venue's. TZ, then /etc/timezone, then the /etc/localtime
    link; "UTC" when none names a zone this Python knows."""
    from zoneinfo import available_timezones

    known = available_timezones()
    env = os.environ if environ is None else environ
    candidates = [env.get("TZ", "").lstrip(":")]
    with contextlib.suppress(OSError):
        candidates.append(Path("/etc/timezone").read_text().strip())
    try:
        target = str(Path("/etc/localtime").resolve())
        candidates.append(target.partition("zoneinfo/")[2])
    except OSError:
        pass
    return next((c for c in candidates if c in known), "UTC")


def is_loopback(address: str) -> bool:
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def state_dir(environ: Mapping[str, str]) -> Path:
    """Where the venue mode keeps what must survive a restart (the secret key):
    SWISS_STATE_DIR, or var/ in the project (ignored by git)."""
    return Path(environ.get("SWISS_STATE_DIR") or BASE_DIR / "var").resolve()


def secret_key_path(directory: Path) -> Path:
    return directory / SECRET_FILE_NAME


def kept_secret_key(directory: Path) -> str:
    """The secret key in `directory`, generated on first use and kept (mode 0600), so
    that sessions and password-reset links survive a restart of the laptop. Written whole
    to a file of its own, then linked into place: workers starting at once all read the
    one key that won, never a file still being written (one read it empty and stopped)."""
    path = secret_key_path(directory)
    if not directory.exists():
        directory.mkdir(parents=True, mode=0o700, exist_ok=True)
    if not path.exists():
        draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="ascii") as file:
                os.fchmod(file.fileno(), 0o600)  # whatever the umask says
                file.write(secrets.token_urlsafe(SECRET_MIN_LENGTH) + "\n")
            with contextlib.suppress(FileExistsError):  # another worker made it first: theirs
                os.link(draft, path)
        finally:
            draft.unlink(missing_ok=True)
    return _read_secret(path)


def _read_secret(path: Path) -> str:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise VenueError(
            f"{path} is readable by other users (mode {mode:o}): run `chmod 600 {path}`"
        )
    key = path.read_text(encoding="ascii").strip()
    if len(key) < SECRET_MIN_LENGTH:
        raise VenueError(
            f"{path} holds no usable secret key (fewer than {SECRET_MIN_LENGTH} characters):"
            " delete it and a new one is generated"
        )
    return key


def public_origin(raw: str, *, allowed_hosts: list[str]) -> str:
    """PUBLIC_URL as an origin without a trailing slash (http://192.168.1.23:8000), or
    VenueError naming what is wrong with it."""
    parts = urlsplit(raw.strip())
    if parts.scheme not in ("http", "https"):
        raise VenueError("must start with http:// or https://")
    try:
        port = parts.port
    except ValueError as exc:
        raise VenueError(f"has a bad port ({exc})") from exc
    if not parts.hostname:
        raise VenueError("names no host (for example http://192.168.1.23:8000)")
    if parts.username or parts.password:
        raise VenueError("must not carry a user name or password")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        # Pages are reversed from the site root: a prefix would give links that 404.
        raise VenueError("must be the site's root, without a path, query or fragment")
    host = parts.hostname
    if not host_allowed(host, allowed_hosts):
        raise VenueError(
            f"names a host that is not in ALLOWED_HOSTS {allowed_hosts}: phones scanning"
            " the QR code would get 400 Bad Request"
        )
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")


def host_allowed(host: str, allowed: list[str]) -> bool:
    """Whether Django's ALLOWED_HOSTS matching would serve `host` (exact, '*', '.domain')."""
    host = host.lower()
    for pattern in (p.lower() for p in allowed):
        if pattern == "*" or pattern == host:
            return True
        if pattern.startswith(".") and (host.endswith(pattern) or host == pattern[1:]):
            return True
    return False


def public_url(address: str, port: int) -> str:
    return f"http://{address}:{port}"


def served_hosts(address: str) -> list[str]:
    """Exactly the host names the venue server answers to."""
    return list(dict.fromkeys([address, *LOCAL_HOSTS]))


def bind_host(address: str) -> str:
    """All interfaces, unless the address phones use is this machine's loopback."""
    return "127.0.0.1" if is_loopback(address) else "0.0.0.0"


def server_environment(
    environ: Mapping[str, str], *, address: str, port: int, debug: bool
) -> dict[str, str]:
    """The environment of the venue server: settings.py reads these."""
    env = dict(environ)
    hosts = served_hosts(address)
    env.update(
        DEBUG="1" if debug else "0",
        VENUE="1",
        ALLOWED_HOSTS=",".join(hosts),
        # Over plain HTTP Django's CSRF check compares Origin with Host, so these are not
        # needed; they are set so that a value inherited from the shell cannot widen them.
        CSRF_TRUSTED_ORIGINS=",".join(public_url(h, port) for h in hosts),
        PUBLIC_URL=public_url(address, port),
        SWISS_STATE_DIR=str(state_dir(environ)),
    )
    return env


def gunicorn_argv(python: str, *, address: str, port: int, workers: int) -> list[str]:
    """gunicorn with uvicorn workers (tournaments/asgi.py): the phones' live pages keep an
    event stream open each, which a threaded WSGI worker could not hold by the hundred."""
    return [
        python, "-m", "gunicorn", "tournaments.asgi:application",
        "--chdir", str(BASE_DIR),
        "--bind", f"{bind_host(address)}:{port}",
        "--worker-class", "uvicorn_worker.UvicornWorker", "--workers", str(workers),
    ]  # fmt: skip


def port_is_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def phone_url(request: Any, path: str) -> str:
    """The absolute URL phones open: on settings.PUBLIC_URL (the venue mode's network
    address) when set, else on the host the organizer's browser used."""
    from django.conf import settings

    base = getattr(settings, "PUBLIC_URL", "")
    return base + path if base else request.build_absolute_uri(path)
