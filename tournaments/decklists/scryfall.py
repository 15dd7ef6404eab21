"""Scryfall's bulk file of oracle cards (https://scryfall.com/docs/api/bulk-data, "Oracle
Cards"): reading it a card at a time, and what the checks need of each card.

The file is a JSON array of about 30,000 card objects, some 150 MB: json.load would hold
the whole text and every object at once, so `read_array` decodes one element at a time
from chunks (json.JSONDecoder.raw_decode), holding a chunk and one card.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any, TextIO

from tournaments.decklists.parse import MAX_NAME, card_key
from tournaments.decklists.types import CardInfo

CHUNK = 1 << 20

# Not cards a deck holds: tokens, emblems, the art cards of art series, and the oversized
# cards of Planechase, Archenemy and Vanguard.
SKIPPED_LAYOUTS = frozenset(
    {"token", "double_faced_token", "emblem", "art_series", "planar", "scheme", "vanguard"}
)
SKIPPED_SET_TYPES = frozenset({"token"})

_ANY_NUMBER = re.compile(r"a deck can have any number of cards named", re.IGNORECASE)
_UP_TO = re.compile(r"a deck can have up to (\w+) cards named", re.IGNORECASE)
_NUMBERS = {
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
_WHITESPACE = " \t\r\n"


class BadFile(ValueError):
    """The file is not what it should be; the message says how, for the installer."""


def read_array(stream: TextIO, *, chunk: int = CHUNK) -> Iterator[Any]:
    """The elements of the JSON array the stream holds, one at a time."""
    decoder = json.JSONDecoder()
    buffer = ""
    pos = 0
    consumed = 0  # characters dropped from the buffer's front, for messages
    eof = False

    def more() -> bool:
        nonlocal buffer, pos, consumed, eof
        if eof:
            return False
        text = stream.read(chunk)
        if not text:
            eof = True
            return False
        if pos > len(buffer) // 2:
            consumed += pos
            buffer, pos = buffer[pos:], 0
        buffer += text
        return True

    def skip_space() -> bool:
        """Past whitespace; False at the end of the file."""
        nonlocal pos
        while True:
            while pos < len(buffer) and buffer[pos] in _WHITESPACE:
                pos += 1
            if pos < len(buffer):
                return True
            if not more():
                return False

    if not skip_space():
        raise BadFile("the file is empty")
    if buffer[pos] == "\ufeff":
        pos += 1
        if not skip_space():
            raise BadFile("the file is empty")
    if buffer[pos] != "[":
        raise BadFile("the file is not a JSON array of cards (Scryfall's Oracle Cards file is one)")
    pos += 1
    first = True
    while True:
        if not skip_space():
            raise BadFile("the file ends before the array of cards is closed")
        if buffer[pos] == "]":
            pos += 1
            if skip_space():
                raise BadFile(
                    f"unexpected text after the array of cards at character {consumed + pos}"
                )
            return
        if not first:
            if buffer[pos] != ",":
                raise BadFile(f"a ',' or ']' is missing at character {consumed + pos}")
            pos += 1
            if not skip_space():
                raise BadFile("the file ends before the array of cards is closed")
        first = False
        while True:
            try:
                value, end = decoder.raw_decode(buffer, pos)
            except json.JSONDecodeError as error:
                # Perhaps only cut off by the chunk's end: read on, then try again.
                if more():
                    continue
                raise BadFile(
                    f"the file is not valid JSON at character {consumed + error.pos}: {error.msg}"
                ) from None
            # A number or literal ending exactly at the chunk's end may go on in the next.
            if end == len(buffer) and more():
                continue
            break
        pos = end
        yield value


def _oracle_text(card: Mapping[str, Any]) -> str:
    texts = [card.get("oracle_text")]
    faces = card.get("card_faces")
    if isinstance(faces, list):
        texts += [face.get("oracle_text") for face in faces if isinstance(face, dict)]
    return "\n".join(t for t in texts if isinstance(t, str))


def _type_line(card: Mapping[str, Any]) -> str:
    type_line = card.get("type_line")
    if isinstance(type_line, str):
        return type_line
    faces = card.get("card_faces")
    if isinstance(faces, list):
        return " // ".join(
            f["type_line"]
            for f in faces
            if isinstance(f, dict) and isinstance(f.get("type_line"), str)
        )
    return ""


def card_info(card: Any) -> CardInfo | None:
    """What the checks need of one Scryfall card object; None for what is not a card a
    deck can hold (tokens, emblems, art cards, ...) or not a card object at all."""
    if not isinstance(card, dict):
        return None
    name = card.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME or not card_key(name):
        return None
    if card.get("layout") in SKIPPED_LAYOUTS or card.get("set_type") in SKIPPED_SET_TYPES:
        return None
    type_line = _type_line(card)
    if type_line.startswith(("Token", "Emblem", "Card")):
        return None
    raw = card.get("legalities")
    legalities = (
        {str(k): v for k, v in raw.items() if isinstance(v, str)} if isinstance(raw, dict) else {}
    )
    text = _oracle_text(card)
    front_types = type_line.split("//")[0].split()
    any_number = "Basic" in front_types or bool(_ANY_NUMBER.search(text))
    max_copies: int | None = None
    up_to = _UP_TO.search(text)
    if up_to and not any_number:
        word = up_to.group(1).lower()
        max_copies = int(word) if word.isdigit() else _NUMBERS.get(word)
    return CardInfo(name.strip(), type_line[:MAX_NAME], legalities, any_number, max_copies)


def _is_legal_somewhere(info: CardInfo) -> bool:
    return any(v in ("legal", "restricted") for v in info.legalities.values())


def oracle_cards(stream: TextIO) -> Iterator[tuple[str, CardInfo]]:
    """(key, card) for each card of the file a deck can hold, one per name: where two
    objects share a name, a playable one is kept over one legal nowhere."""
    kept: dict[str, CardInfo] = {}
    for element in read_array(stream):
        info = card_info(element)
        if info is None:
            continue
        key = card_key(info.name)
        earlier = kept.get(key)
        if earlier is None or (not _is_legal_somewhere(earlier) and _is_legal_somewhere(info)):
            kept[key] = info
    yield from kept.items()
