"""The client's address: one rule for every limiter, the login lockout, the audit log,
the event streams' cap and the logs (issue 24 item 2).

Without a proxy the client is the peer of the connection (REMOTE_ADDR). Behind
`TRUSTED_PROXIES` proxies, each appends the address it received the request from to
X-Forwarded-For (nginx: `$proxy_add_x_forwarded_for`), so the chain read from the right
is: the peer (the last proxy), then what each trusted proxy wrote. The client is the
entry the outermost trusted proxy wrote: the right-most one no trusted proxy could have
been told by the client. Anything to its left came from the client and may be forged.

Standard library only, and no Django below `of_request`: the ASGI event-stream layer
(tournaments/stream.py) reads the same rule from the raw scope.
"""

from __future__ import annotations

import ipaddress
import logging
from typing import Any

log = logging.getLogger(__name__)

# Longest text kept as an address (an IPv6 address with a zone fits); anything longer
# is not an address, and keys and log lines stay short.
MAX_LENGTH = 64
UNKNOWN = "unknown"


class _Warned:
    missing_header = False


def _clean(entry: str) -> str | None:
    """An address as written in X-Forwarded-For or REMOTE_ADDR, normalised (IPv4 mapped
    into IPv6 read as IPv4, a port or brackets dropped); None for anything else."""
    text = entry.strip().strip('"')
    if not text or len(text) > MAX_LENGTH:
        return None
    if text.startswith("["):  # "[2001:db8::1]:443"
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:  # "203.0.113.9:51234"
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return str(address)


def from_headers(remote_addr: str | None, forwarded_for: str | None, *, proxies: int) -> str:
    """The client's address given the connection's peer, the X-Forwarded-For header (all
    its occurrences joined by commas, as WSGI and ASGI servers give them) and the number
    of trusted proxies in front of the app.

    With fewer entries than trusted proxies (a proxy that does not set the header) the
    client cannot be told: the left-most address a trusted proxy wrote stands for it,
    and the misconfiguration is logged once per process.
    """
    peer = _clean(remote_addr or "") or UNKNOWN
    if proxies <= 0:
        return peer
    written = [e for e in (forwarded_for or "").split(",") if e.strip()]
    if len(written) < proxies:
        if not _Warned.missing_header:
            _Warned.missing_header = True
            log.warning(
                "TRUSTED_PROXIES=%d but a request came with %d X-Forwarded-For entries: "
                "the proxy must append the client's address (see README, nginx)",
                proxies,
                len(written),
            )
        if not written:
            return peer
        return _clean(written[0]) or peer
    # written[-1] is what the last proxy (our peer) wrote; written[-proxies] what the
    # outermost trusted proxy wrote: the address it received the request from.
    return _clean(written[-proxies]) or peer


def trusted_proxies() -> int:
    from django.conf import settings

    return int(getattr(settings, "TRUSTED_PROXIES", 0))


def of_request(request: Any) -> str:
    """The client's address of a Django request."""
    meta = request.META
    return from_headers(
        meta.get("REMOTE_ADDR"), meta.get("HTTP_X_FORWARDED_FOR"), proxies=trusted_proxies()
    )


def for_axes(request: Any) -> str | None:
    """django-axes' AXES_CLIENT_IP_CALLABLE: the address, None when there is none (axes
    stores it in an address column)."""
    address = of_request(request)
    return None if address == UNKNOWN else address


def of_scope(scope: dict[str, Any], *, proxies: int) -> str:
    """The client's address of an ASGI scope (the event streams)."""
    client = scope.get("client")
    peer = str(client[0]) if client else None
    forwarded = b",".join(v for k, v in scope.get("headers", ()) if k == b"x-forwarded-for")
    return from_headers(peer, forwarded.decode("latin-1") if forwarded else None, proxies=proxies)
