"""No secret link in a log line (issue 24 item 9).

A player's private link (/p/<token>/...) and a staff set-password link
(/accounts/set-password/<uid>/<token>/) hold their key in the path, and Django logs the
path of refused requests: a CSRF failure (django.security.csrf), a 405 or a 404
(django.request). MaskTokens rewrites each record's message with the token replaced,
whatever logged it; settings.LOGGING puts it on those loggers (so every handler, Django's
own included, gets the masked record) and on the root's handler (for any other logger).
"""

from __future__ import annotations

import logging
import re

MASK = "[token]"
# The path as logged (decoded), or percent-encoded inside a query string (?next=...).
_SLASH = r"(?:/|%2F)"
_TOKEN = r"[^/\s?#&\"'<>%]+"
TOKEN_IN_PATH = re.compile(
    rf"(?P<head>{_SLASH}p{_SLASH}|{_SLASH}accounts{_SLASH}set-password{_SLASH}[^/\s?#&%]+{_SLASH})"
    rf"(?P<token>{_TOKEN})",
    re.IGNORECASE,
)


def mask_tokens(text: str) -> str:
    return TOKEN_IN_PATH.sub(lambda m: m["head"] + MASK, text)


class MaskTokens(logging.Filter):
    """Never drops a record: rewrites its message when it holds a private token."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a malformed call: logging reports it as it would
            return True
        masked = mask_tokens(message)
        if masked != message:
            # The formatted message, without its arguments: the token was in one of them.
            record.msg, record.args = masked, ()
        return True
