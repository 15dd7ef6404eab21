"""A fake Web Push service for the tests and the bench (issue 29): a local HTTP server
that takes what the sender posts as a browser's push service would, and a fake browser's
subscription (a real P-256 key pair and auth secret) to read it with.

What it checks of each post is what a real service (and the browser behind it) checks:
the VAPID token (RFC 8292: an ES256 JWT for this service's origin, signed by the key in
`k`, not expired), and the body, decrypted as RFC 8291 says (aes128gcm, RFC 8188) with
the subscription's private key and auth secret.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Browser:
    """A browser's side of one subscription: its key pair and auth secret."""

    private_key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth_secret: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def p256dh(self) -> str:
        return b64url(
            self.private_key.public_key().public_bytes(
                serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
            )
        )

    @property
    def auth(self) -> str:
        return b64url(self.auth_secret)

    def subscription(self, endpoint: str) -> dict[str, Any]:
        """What PushSubscription.toJSON() gives a page."""
        return {"endpoint": endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}

    def decrypt(self, body: bytes) -> dict[str, Any]:
        plain = http_ece.decrypt(
            body, private_key=self.private_key, auth_secret=self.auth_secret, version="aes128gcm"
        )
        return json.loads(plain.decode("utf-8"))


class VapidRefused(AssertionError):
    pass


def check_vapid(authorization: str, *, audience: str, public_key: str) -> dict[str, Any]:
    """The claims of a `vapid t=<JWT>, k=<key>` header, once its signature is checked
    with `k` (which must be the server's public key) and its audience and expiry are
    right; VapidRefused otherwise."""
    if not authorization.startswith("vapid "):
        raise VapidRefused(f"not a vapid Authorization: {authorization[:40]!r}")
    parts = dict(item.strip().split("=", 1) for item in authorization[len("vapid ") :].split(","))
    token, key = parts.get("t", ""), parts.get("k", "")
    if key != public_key:
        raise VapidRefused("k is not the server's VAPID public key")
    head, claims_b64, signature_b64 = token.split(".")
    header = json.loads(unb64url(head))
    if header.get("alg") != "ES256":
        raise VapidRefused(f"alg {header.get('alg')!r}, not ES256")
    signature = unb64url(signature_b64)
    if len(signature) != 64:
        raise VapidRefused("an ES256 signature is 64 bytes (r || s)")
    der = encode_dss_signature(
        int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    )
    verifier = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
    verifier.verify(der, f"{head}.{claims_b64}".encode("ascii"), ec.ECDSA(hashes.SHA256()))
    claims = json.loads(unb64url(claims_b64))
    if claims.get("aud") != audience:
        raise VapidRefused(f"aud {claims.get('aud')!r}, not {audience!r}")
    if not time.time() < claims.get("exp", 0) <= time.time() + 24 * 3600:
        raise VapidRefused("exp is not within the next 24 hours (RFC 8292 section 2)")
    if not str(claims.get("sub", "")).startswith(("mailto:", "https://")):
        raise VapidRefused("sub is not a mailto: or https: contact")
    return claims


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    status: int


class FakePushService:
    """Answers POST /push/<name> with the next status scripted for <name> (201 once the
    script is used up), and keeps what it was sent."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.script: dict[str, list[int]] = {}
        self.retry_after: dict[str, str] = {}
        self._lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                name = self.path.rsplit("/", 1)[-1]
                with service._lock:
                    queue = service.script.get(name) or []
                    status = queue.pop(0) if queue else 201
                    service.received.append(
                        Received(self.path, {k.lower(): v for k, v in self.headers.items()},
                                 body, status)
                    )  # fmt: skip
                self.send_response(status)
                if name in service.retry_after and status == 429:
                    self.send_header("Retry-After", service.retry_after[name])
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"

    def endpoint(self, name: str) -> str:
        return f"{self.origin}/push/{name}"

    def delivered(self) -> list[Received]:
        with self._lock:
            return [r for r in self.received if r.status in (200, 201, 202)]


@contextmanager
def fake_push_service() -> Iterator[FakePushService]:
    service = FakePushService()
    thread = threading.Thread(target=service.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield service
    finally:
        service.server.shutdown()
        service.server.server_close()
