"""Reading a decklist: the pasted text forms players use and MTGO's .dek file.

Nothing here raises on any input: whatever cannot be read becomes a Problem naming its
line, so a player sees every mistake at once and the page never fails.

Forms read (mixed freely):
- "4 Lightning Bolt", "4x Lightning Bolt", "4 x Lightning Bolt";
- MTGO's .txt export: the main deck, a blank line, the sideboard;
- Arena's export: "Deck", "Sideboard", "Companion", "Commander" (and "About" with the
  deck's name) headers, "4 Lightning Bolt (M10) 146" with set code and collector number;
- a "Sideboard" / "Sideboard:" / "SB:" header line, or "SB: 2 Duress" on one line;
- comments starting with "//" or "#", and group headers such as "Creatures (20)".
"""

from __future__ import annotations

import re
import unicodedata
from xml.parsers import expat

from tournaments.decklists import messages as m
from tournaments.decklists.types import Line, Parsed, Problem, Section
from tournaments.messages import Message

MAX_LINES = 250
MAX_COUNT = 250
MAX_NAME = 200  # the card table's key and name columns

# Characters NFKD leaves alone but players type either way.
_FOLD = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u02bc": "'",
        "\u00b4": "'",
        "`": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u00c6": "ae",
        "\u00e6": "ae",
        "\u0152": "oe",
        "\u0153": "oe",
        "\u00d8": "o",
        "\u00f8": "o",
        "\u2013": "-",
        "\u2014": "-",
    }
)
_SLASHES = re.compile(r"\s*/{1,2}\s*")
_SPACES = re.compile(r"\s+")


def card_key(name: str) -> str:
    """The name as card data is matched against it: accents removed, case folded, spaces
    collapsed, curly quotes straightened, Æ as "ae", and the faces of split and
    double-faced cards joined by " // " however they were written ("Fire/Ice",
    "Fire // ice" and "Fire // Ice" are one key)."""
    text = name.translate(_FOLD)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = text.casefold().translate(_FOLD)  # casefold can bring back "æ" from other forms
    text = _SLASHES.sub(" // ", text)
    return _SPACES.sub(" ", text).strip()


def front_face(key: str) -> str | None:
    """The front face's key of a split or double-faced card's key, else None."""
    front, sep, _ = key.partition(" // ")
    return front if sep and front else None


# --- the text forms ---------------------------------------------------------------------

_NEWLINES = re.compile(r"\r\n|\r|\n")
# Section headers, with an optional colon and card count: "Sideboard", "SB:", "Deck (60)".
_HEADER = re.compile(
    r"^(?P<word>deck|main|main ?deck|maindeck|mainboard|sideboard|side|sb|companion|commander"
    r"|about)\s*:?\s*(?:\(\s*\d*\s*\)|\d+)?\s*$",
    re.IGNORECASE,
)
# Group headers some sites write inside a section; they change nothing.
_GROUP = re.compile(
    r"^(?:creatures?|planeswalkers?|instants?|sorcer(?:y|ies)|artifacts?|enchantments?"
    r"|battles?|lands?|spells?|others?|non-?creature spells?)\s*:?\s*(?:\(\s*\d*\s*\)|\d+)?\s*$",
    re.IGNORECASE,
)
_SIDE_WORDS = frozenset({"sideboard", "side", "sb", "companion", "commander"})
_SB_PREFIX = re.compile(r"^sb\s*:\s*", re.IGNORECASE)
# "4 Lightning Bolt", "4x Lightning Bolt", "4 x Lightning Bolt"; \d also takes other
# scripts' digits so that they can be refused by name rather than read as a card name.
_COUNTED = re.compile(r"^(?P<count>\d+)(?:\s*[xX](?=\s)|[xX](?=\s))?\s+(?P<name>\S.*)$")
# Arena's and Moxfield's " (M10) 146" / " (PLST) DOM-130 *F*" after the name.
_PRINTING = re.compile(
    r"\s+\([A-Za-z0-9]{2,8}\)(?:\s+[A-Za-z0-9\u2605\-]{1,12})?(?:\s+\*[A-Za-z]\*)?\s*$"
)
_COUNT_ONLY = re.compile(r"^\d+\s*[xX]?$")
_FOIL = re.compile(r"\s+\*[A-Za-z]\*\s*$")


def _quote(text: str, limit: int = 60) -> str:
    """A piece of what the player wrote, short enough for a message."""
    text = text.strip()
    return f"'{text}'" if len(text) <= limit else f"'{text[: limit - 1]}\u2026'"


def _read_count(raw: str) -> tuple[int | None, Message | None]:
    """The count as a number, or the problem with it."""
    if not raw.isascii():
        return None, m.COUNT_DIGITS(count=_quote(raw))
    if len(raw.lstrip("0")) > 3:  # no int() of a thousand-digit string
        return None, m.COUNT_TOO_BIG(count=_quote(raw, 12), most=MAX_COUNT)
    count = int(raw)
    if count == 0:
        return None, m.COUNT_ZERO()
    if count > MAX_COUNT:
        return None, m.COUNT_TOO_BIG(count=count, most=MAX_COUNT)
    return count, None


def _card_line(number: int, text: str, section: Section) -> tuple[Line | None, Problem | None]:
    """One "4 Lightning Bolt" line, read or refused."""
    match = _COUNTED.match(text)
    if match is None and _COUNT_ONLY.match(text):
        return None, Problem(number, m.NO_NAME())
    if match is None:
        return None, Problem(number, m.NO_COUNT(text=_quote(text), name=text[:60]))
    count, why = _read_count(match["count"])
    if count is None:
        return None, Problem(number, why or m.COUNT_UNREADABLE())
    name = _FOIL.sub("", _PRINTING.sub("", " " + match["name"])).strip()
    if not name:
        return None, Problem(number, m.NO_NAME())
    if len(name) > MAX_NAME:
        return None, Problem(number, m.NAME_TOO_LONG(most=MAX_NAME))
    return Line(number, count, name, section), None


def _has_sideboard_marker(lines: list[str]) -> bool:
    """Whether the list says where its sideboard starts; if it does, a blank line is only
    spacing (between groups of the main deck), not the start of the sideboard."""
    for raw in lines:
        text = raw.strip()
        header = _HEADER.match(text)
        if header and header["word"].lower() in _SIDE_WORDS:
            return True
        if _SB_PREFIX.match(text):
            return True
    return False


def parse_decklist(text: str) -> Parsed:
    """The pasted (or .txt uploaded) list: its main deck and sideboard lines, and a
    problem for each line that could not be read."""
    try:
        return _parse_text(text)
    except Exception as error:  # a defect here must not cost the player their page
        return Parsed(problems=(Problem(None, m.LIST_UNREADABLE(error=type(error).__name__)),))


def _parse_text(text: str) -> Parsed:
    if not isinstance(text, str):
        return Parsed(problems=(Problem(None, m.LIST_NOT_TEXT()),))
    text = text.lstrip("\ufeff").rstrip()
    lines = _NEWLINES.split(text) if text else []
    if len(lines) > MAX_LINES:
        return Parsed(problems=(Problem(None, m.TOO_MANY_LINES(most=MAX_LINES)),))
    blank_starts_side = not _has_sideboard_marker(lines)
    section: Section = "main"
    ignoring = False  # inside Arena's "About" block (the deck's name)
    main: list[Line] = []
    side: list[Line] = []
    problems: list[Problem] = []
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            ignoring = False
            if blank_starts_side and section == "main" and main:
                section = "side"
            continue
        if line.startswith(("//", "#")):
            continue
        header = _HEADER.match(line)
        if header:
            word = header["word"].lower()
            ignoring = word == "about"
            if not ignoring:
                section = "side" if word in _SIDE_WORDS else "main"
            continue
        if ignoring or _GROUP.match(line):
            continue
        this_section = section
        prefix = _SB_PREFIX.match(line)
        if prefix:
            this_section = "side"
            line = line[prefix.end() :]
        card, problem = _card_line(number, line, this_section)
        if problem is not None:
            problems.append(problem)
        elif card is not None:
            (main if this_section == "main" else side).append(card)
    return Parsed(tuple(main), tuple(side), tuple(problems))


# --- MTGO's .dek ------------------------------------------------------------------------


class _Refused(Exception):
    """The file declares a DOCTYPE or entities: refused rather than expanded."""


def parse_dek(xml_text: str) -> Parsed:
    """MTGO's .dek file: <Deck><Cards Quantity="4" Sideboard="false" Name="..."/>...</Deck>.
    Line numbers are the XML's. A DOCTYPE or entity declaration is refused (no entity
    expansion, no external resources); a malformed file is one problem."""
    try:
        return _parse_dek(xml_text)
    except Exception as error:
        return Parsed(problems=(Problem(None, m.DEK_UNREADABLE(error=type(error).__name__)),))


def _parse_dek(xml_text: str) -> Parsed:
    if not isinstance(xml_text, str):
        return Parsed(problems=(Problem(None, m.DEK_NOT_TEXT()),))
    main: list[Line] = []
    side: list[Line] = []
    problems: list[Problem] = []
    elements = 0
    root: list[str] = []
    parser = expat.ParserCreate()

    def refuse(*_args: object) -> None:
        raise _Refused

    def start(tag: str, attributes: dict[str, str]) -> None:
        nonlocal elements
        if not root:
            root.append(tag)
        if tag != "Cards":
            return
        elements += 1
        if elements > MAX_LINES:
            raise _Refused("too many")
        number = parser.CurrentLineNumber
        name = (attributes.get("Name") or "").strip()
        quantity = (attributes.get("Quantity") or "").strip()
        section: Section = (
            "side" if (attributes.get("Sideboard") or "").strip().lower() == "true" else "main"
        )
        if not name:
            problems.append(Problem(number, m.DEK_NO_NAME()))
            return
        if not quantity:
            problems.append(Problem(number, m.DEK_NO_QUANTITY(name=_quote(name))))
            return
        if not quantity.isdigit():
            problems.append(
                Problem(
                    number,
                    m.DEK_QUANTITY(quantity=_quote(quantity), name=_quote(name)),
                )
            )
            return
        count, why = _read_count(quantity)
        if count is None:
            problems.append(Problem(number, why or m.DEK_QUANTITY_UNREADABLE()))
            return
        if len(name) > MAX_NAME:
            problems.append(Problem(number, m.NAME_TOO_LONG(most=MAX_NAME)))
            return
        (main if section == "main" else side).append(Line(number, count, name, section))

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    parser.StartElementHandler = start
    try:
        parser.Parse(xml_text.lstrip("\ufeff"), True)
    except _Refused as refused:
        if refused.args == ("too many",):
            return Parsed(problems=(Problem(None, m.DEK_TOO_MANY(most=MAX_LINES)),))
        return Parsed(problems=(Problem(None, m.DEK_ENTITIES()),))
    except expat.ExpatError as error:
        return Parsed(
            problems=(
                Problem(
                    None,
                    m.DEK_NOT_XML(line=error.lineno, error=expat.ErrorString(error.code)),
                ),
            )
        )
    if root != ["Deck"]:
        return Parsed(problems=(Problem(None, m.DEK_NOT_DEK()),))
    return Parsed(tuple(main), tuple(side), tuple(problems))
