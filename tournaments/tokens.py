"""Players' private links: an unguessable token in the URL, stored only as its hash.

A token is 32 random bytes (256 bits; issue 14 asks for at least 128), URL-safe base64.
The database keeps SHA-256 of it, so a leaked database or backup holds no usable link;
a plain hash suffices (no salt, no slow hash) because the token is random, not chosen.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tournaments.models import Player

TOKEN_BYTES = 32


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def player_for_token(token: str) -> Player | None:
    """The player whose private link this is (tournament loaded), or None."""
    from tournaments.models import Player

    if not token or len(token) > 100:
        return None
    return Player.objects.select_related("tournament").filter(token_hash=token_hash(token)).first()
