"""The server's VAPID key pair (RFC 8292): what identifies this server to the browsers'
push services. Made on first start and kept in the state directory beside the venue
mode's secret key (mode 0600), so that a restart keeps every phone's subscription
working (a subscription is bound to the public key it was made with); VAPID_PRIVATE_KEY
and VAPID_PUBLIC_KEY in the environment override the kept pair.

The private key is the raw 32-byte P-256 scalar, base64url without padding (as
`vapid --applicationServerKey` and the Push API's tools print it); the public key is the
uncompressed point (65 bytes), base64url: what the page hands to PushManager.subscribe
as its applicationServerKey.

Django only inside the functions of the running site: settings.py may import the module
before Django is configured.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
import secrets
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

KEY_FILE_NAME = "vapid_private_key"
_B64URL = re.compile(r"[A-Za-z0-9_-]*")


class VapidError(ValueError):
    """A key that cannot be used; the message (one line) says what to do."""


@dataclass(frozen=True)
class VapidKeys:
    private_key: str  # base64url of the raw 32-byte scalar
    public_key: str  # base64url of the uncompressed 65-byte point


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Strict: a character outside the base64url alphabet is a ValueError, not skipped."""
    text = text.strip().rstrip("=")
    if not _B64URL.fullmatch(text):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _public_of(private: ec.EllipticCurvePrivateKey) -> str:
    point = private.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(point)


def private_from_raw(raw: str) -> ec.EllipticCurvePrivateKey:
    """The private key from its base64url scalar, or VapidError."""
    try:
        scalar = b64url_decode(raw)
    except ValueError:
        raise VapidError("is not base64url") from None
    if len(scalar) != 32:
        raise VapidError(f"is {len(scalar)} bytes, not the 32 of a P-256 private key")
    try:
        return ec.derive_private_key(int.from_bytes(scalar, "big"), ec.SECP256R1())
    except ValueError as exc:
        raise VapidError(f"is not a P-256 private key ({exc})") from None


def new_private_key() -> str:
    private = ec.generate_private_key(ec.SECP256R1())
    return b64url(private.private_numbers().private_value.to_bytes(32, "big"))


def from_environment(environ: Mapping[str, str]) -> VapidKeys | None:
    """VAPID_PRIVATE_KEY (and VAPID_PUBLIC_KEY, which must match it when given), or None
    when the environment sets neither."""
    raw = environ.get("VAPID_PRIVATE_KEY", "").strip()
    public = environ.get("VAPID_PUBLIC_KEY", "").strip()
    if not raw:
        if public:
            raise VapidError("VAPID_PUBLIC_KEY is set without VAPID_PRIVATE_KEY")
        return None
    try:
        private = private_from_raw(raw)
    except VapidError as exc:
        raise VapidError(f"VAPID_PRIVATE_KEY {exc}") from None
    derived = _public_of(private)
    if public and public != derived:
        raise VapidError(
            "VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY (leave it unset:"
            " it is derived)"
        )
    return VapidKeys(raw, derived)


def kept_keys(directory: Path) -> VapidKeys:
    """The key pair kept in `directory`, made on first use (mode 0600). Written whole to
    a file of its own, then linked into place: several processes (or threads) starting
    at once all read the one pair that won, never a file still being written."""
    path = directory / KEY_FILE_NAME
    if not directory.exists():
        directory.mkdir(parents=True, mode=0o700, exist_ok=True)
    if not path.exists():
        draft = directory / f".{KEY_FILE_NAME}.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="ascii") as file:
                os.fchmod(file.fileno(), 0o600)  # whatever the umask says
                file.write(new_private_key() + "\n")
            with contextlib.suppress(FileExistsError):  # another made it first: theirs
                os.link(draft, path)
        finally:
            draft.unlink(missing_ok=True)
    return _read(path)


def _read(path: Path) -> VapidKeys:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise VapidError(
            f"{path} is readable by other users (mode {mode:o}): run `chmod 600 {path}`"
        )
    raw = path.read_text(encoding="ascii").strip()
    try:
        private = private_from_raw(raw)
    except VapidError as exc:
        raise VapidError(
            f"{path} {exc}: delete it and a new one is made (phones then subscribe again)"
        ) from None
    return VapidKeys(raw, _public_of(private))


def keys(environ: Mapping[str, str], state_dir: Path) -> VapidKeys:
    """The environment's pair, else the one kept in the state directory."""
    return from_environment(environ) or kept_keys(state_dir)


# --- in the running site (Django configured) -------------------------------------------


@lru_cache(maxsize=1)
def server_keys() -> VapidKeys:
    """The server's VAPID pair: settings.VAPID_PRIVATE_KEY when settings give one, else
    the environment's, else the one kept in the state directory (made on first use).
    ImproperlyConfigured (one line) when unusable."""
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured

    raw = getattr(settings, "VAPID_PRIVATE_KEY", "")
    environ = (
        {"VAPID_PRIVATE_KEY": raw, "VAPID_PUBLIC_KEY": getattr(settings, "VAPID_PUBLIC_KEY", "")}
        if raw
        else os.environ
    )
    try:
        return keys(environ, settings.STATE_DIR)
    except (OSError, VapidError) as exc:
        raise ImproperlyConfigured(f"Web Push's VAPID key: {exc}") from exc


def subject() -> str:
    """The contact push services are given (VAPID's `sub`): VAPID_SUBJECT, else the
    site's PUBLIC_URL when it is https, else a mailto: on the first allowed host."""
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured

    given = getattr(settings, "VAPID_SUBJECT", "") or os.environ.get("VAPID_SUBJECT", "")
    if given:
        if not given.startswith(("mailto:", "https://")):
            raise ImproperlyConfigured(
                f"VAPID_SUBJECT={given!r} must start with mailto: or https://"
            )
        return given
    public = getattr(settings, "PUBLIC_URL", "")
    if public.startswith("https://"):
        return public
    hosts = [h.lstrip(".") for h in settings.ALLOWED_HOSTS if h not in ("*", "") and "." in h]
    return f"mailto:webpush@{hosts[0] if hosts else 'localhost'}"
