"""Numbers from URLs and forms: ASCII digits only.

`str.isdigit()` is true for "²" and other Unicode digits that int() refuses or reads
differently, so every number a request carries goes through here (the views answer 404
or 422 when it is None).
"""

from __future__ import annotations

MAX_DIGITS = 9  # no id, round or minute count here needs more


def ascii_int(value: object, *, maximum: int = 10**MAX_DIGITS - 1) -> int | None:
    """The whole number `value` spells in ASCII digits, or None."""
    if not isinstance(value, str) or not 0 < len(value) <= MAX_DIGITS:
        return None
    if not (value.isascii() and value.isdigit()):
        return None
    number = int(value)
    return number if number <= maximum else None
