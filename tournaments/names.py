"""What a player's name may hold, and when two names look alike (issue 24 item 12).

Pure functions, no Django: self-registration (services.registration), the organizer's
add and rename (services.players) and the import (interchange, services.imports) all
use them, so a name refused in one place is refused everywhere.

Names are stored in Unicode NFC, not NFKC: NFC only joins what is the same character
written two ways (e + combining acute = é), so the name stays as its owner typed it;
NFKC would also rewrite characters that are merely compatible (ligatures, superscripts,
full-width letters, "Ⅳ" into "IV"). That folding is what a look-alike test needs, so
it happens in `skeleton`, which compares names and is never stored or shown.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TypeVar

import regex
from django.utils.translation import gettext as _
from django.utils.translation import pgettext, pgettext_lazy

K = TypeVar("K")  # a player's id as the caller holds it (external id, pk)

# Every character that shows as nothing, or moves what follows. Cc: control characters
# (NUL, escape codes, line breaks a split() left); Cf: format characters, all invisible
# (zero-width space and joiners, BOM, soft hyphen, word joiner, the bidi embeddings,
# overrides and isolates that reorder what follows, tags); Cs/Co/Cn: surrogates, private
# use and unassigned code points, which draw as boxes or nothing; then the fillers that
# render as nothing though Unicode files them as letters or symbols (COMBINING GRAPHEME
# JOINER, HANGUL FILLERs, BRAILLE PATTERN BLANK) and the variation selectors, which only
# change how the previous character is drawn.
#
# The `regex` module's Unicode data, not `unicodedata`'s: Python 3.11 knows Unicode 14,
# where every emoji added since (U+1FAE8 SHAKING FACE ...) is unassigned; `regex` follows
# each new Unicode version and has the emoji properties (UTS #51) that `_EMOJI` reads.
_HIDDEN = regex.compile(
    r"[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}"
    r"\u034f\u115f\u1160\u3164\uffa0\u2800\ufe00-\ufe0f\U000e0100-\U000e01ef]"
)

# A complete emoji sequence as Unicode defines it (UTS #51 section 1.4), the only place
# where a zero-width joiner, a variation selector or a tag may stand in a name: each
# draws one picture there (a family, a flag of Scotland), where anywhere else it hides in
# the text (the usual way to forge a twin name). A joiner stands only between two
# pictographs (each with its skin tone or its emoji variation selector): `_EMOJI` matches
# a family (man, joiner, woman, joiner, girl) but leaves alone, refused, the joiner after
# a letter or at the end of an emoji. A variation selector follows a character that has
# emoji forms (⭕, ©, the digits of a keycap); regional indicators go in pairs (a flag);
# tags follow a pictograph and end with CANCEL TAG.
_PICTURE = r"[\p{Extended_Pictographic}--\p{Cn}]"
_ELEMENT = rf"(?:{_PICTURE}\p{{Emoji_Modifier}}|(?=\p{{Emoji}}){_PICTURE}\ufe0f|{_PICTURE})"
_EMOJI = (
    rf"{_ELEMENT}(?:\u200d{_ELEMENT})+"  # a ZWJ sequence
    rf"|{_ELEMENT}[\U000e0020-\U000e007e]+\U000e007f"  # a tag sequence
    r"|[0-9#*]\ufe0f?\u20e3"  # a keycap
    r"|\p{Regional_Indicator}{2}"  # a flag
    r"|\p{Emoji}[\ufe0e\ufe0f]"  # a text or emoji presentation sequence
)
# The text in pieces: each emoji sequence whole (`emoji`), every other character alone.
_PIECES = regex.compile(rf"(?P<emoji>{_EMOJI})|.", regex.V1 | regex.DOTALL)
# A flag of a region's subdivision (UTS #51 ED-14c, CLDR's subdivision ids: "gbsct"):
# its tags draw a different flag, so look-alike tests keep them; other tags draw nothing.
_SUBDIVISION = regex.compile(
    rf"{_ELEMENT}(?:[\U000e0061-\U000e007a]{{2}}|[\U000e0030-\U000e0039]{{3}})"
    r"[\U000e0030-\U000e0039\U000e0061-\U000e007a]{1,4}\U000e007f",
    regex.V1,
)


class NameRefused(ValueError):
    """A name refused; the message names the field and the character."""


def _character(ch: str) -> str:
    label = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X} {label}".rstrip()


def invisible(ch: str) -> bool:
    """A character that shows as nothing (or moves what follows) in a name, unless it
    is part of an emoji sequence (`hidden`)."""
    return _HIDDEN.match(ch) is not None


def hidden(text: str) -> str | None:
    """The first character of `text` that hides or reorders text: an invisible one
    (`invisible`) outside a complete emoji sequence, or None."""
    if _HIDDEN.search(text) is None:
        return None
    for piece in _PIECES.finditer(text):
        if piece.group("emoji") is None and invisible(piece[0]):
            return piece[0]
    return None


def problem(text: str) -> str | None:
    """Why `text` cannot be a name (its first control or invisible character outside an
    emoji sequence), or None; the end of a sentence that starts with what the text is
    ("The name ...")."""
    if (ch := hidden(text)) is None:
        return None
    if unicodedata.category(ch) == "Cc":
        why = _("holds a control character (%(character)s): type it again without it")
    else:
        why = _("holds an invisible character (%(character)s): type it again without it")
    return why % {"character": _character(ch)}


# The fields whose text `clean` checks, marked for the catalogues (translated at use).
FIELDS = (
    pgettext_lazy("field", "name"),
    pgettext_lazy("field", "word that tells you apart"),
    pgettext_lazy("field", "note"),
    pgettext_lazy("field", "resolution"),
    pgettext_lazy("field", "contact"),
)


def normal(text: str) -> str:
    """NFC, every run of whitespace (any Unicode space) one plain space, none at the ends."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def clean(text: str, *, field: str = "name", maximum: int = 200, required: bool = True) -> str:
    """`text` as it is stored (`normal`), or NameRefused: empty, too long, or holding a
    control or invisible character."""
    out = normal(text)
    word = pgettext("field", field)
    if required and not out:
        raise NameRefused(_("Give your %(field)s.") % {"field": word})
    if len(out) > maximum:
        raise NameRefused(
            _("The %(field)s is longer than %(maximum)s characters.")
            % {"field": word, "maximum": maximum}
        )
    if (why := problem(out)) is not None:
        raise NameRefused(_("The %(field)s %(why)s.") % {"field": word, "why": why})
    return out


@lru_cache(maxsize=65_536)  # as `skeleton`'s
def key(name: str) -> str:
    """Two names with the same key are the same name (case and spacing aside)."""
    return normal(name).casefold()


# Cyrillic and Greek letters drawn like a Latin one, by case (a lower-case letter can
# look Latin where its capital does not: Cyrillic small ve does not look like "b", its
# capital looks like "B"). Case matters, so the map applies before casefolding. After Unicode's
# confusables list (UTS #39), letters only.
_CONFUSABLES = str.maketrans(
    {
        # Cyrillic capitals
        "А": "A", "В": "B", "Е": "E", "З": "3", "К": "K", "М": "M", "Н": "H", "О": "O",
        "Р": "P", "С": "C", "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J",
        "Ԁ": "D", "Ԛ": "Q", "Ԝ": "W", "Ү": "Y", "Һ": "H", "Ӏ": "I",
        # Cyrillic small letters
        "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "ѕ": "s",
        "і": "i", "ј": "j", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ү": "y",
        "ɡ": "g",
        # Greek capitals
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
        "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
        # Greek small letters
        "α": "a", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "υ": "u", "χ": "x",
        "γ": "y",
    }
)  # fmt: skip


# Each registration compares its name with every name of the event, inside the event's
# lock: the event's names are the same from one registration to the next, so their
# skeletons (and keys) are remembered (10,000 names: 47 ms computed, 2 ms remembered).
@lru_cache(maxsize=65_536)
def skeleton(name: str) -> str:
    """What `name` looks like: what draws nothing dropped (`_drawn`), compatibility forms
    folded (full-width, ligatures), the Cyrillic and Greek letters drawn like Latin ones
    made Latin, then casefolded. Two names with one skeleton are hard to tell apart on a
    printed list or a phone."""
    if name.isascii():
        return " ".join(name.lower().split())
    drawn = _drawn(normal(name))
    folded = unicodedata.normalize("NFKD", drawn).translate(_CONFUSABLES).casefold()
    return " ".join(unicodedata.normalize("NFKD", folded).split())


def _drawn(text: str) -> str:
    """`text` without the characters that draw nothing: "Ana ⭕" prints alike with or
    without its emoji variation selector, and a ZWJ sequence with or without its joiners
    (a phone that does not know the sequence draws its pictographs side by side). A flag's
    emoji stay ("Ana ⭕" and "Ana 🇧🇷" differ), and so do the tags of a subdivision's
    flag (Scotland is not England); other tags draw nothing. Only `skeleton` uses it:
    an imported name may hold any of these outside an emoji (services.imports)."""
    if _HIDDEN.search(text) is None:
        return text
    kept = []
    for piece in _PIECES.finditer(text):
        if _SUBDIVISION.fullmatch(piece[0]):
            kept.append("".join(ch for ch in piece[0] if ch not in "\ufe0e\ufe0f\u200d"))
        else:
            kept.append("".join(ch for ch in piece[0] if not invisible(ch)))
    return "".join(kept)


def lookalike(name: str, existing: Iterable[str]) -> str | None:
    """The first of `existing` that looks like `name` without being the same name (the
    same name is a duplicate, which callers refuse or ask about on their own)."""
    own_key, own_skeleton = key(name), skeleton(name)
    for other in existing:
        if skeleton(other) == own_skeleton and key(other) != own_key:
            return other
    return None


def lookalikes(new: Sequence[str], existing: Iterable[str]) -> list[tuple[str, str]]:
    """(new name, the name it looks like) for each of `new` that looks like one of
    `existing` or an earlier one of `new` (`lookalike`, for a pasted list: each name's
    skeleton computed once)."""
    seen: dict[str, str] = {}
    for name in existing:
        seen.setdefault(skeleton(name), name)
    found = []
    for name in new:
        other = seen.setdefault(skeleton(name), name)
        if key(other) != key(name):
            found.append((name, other))
    return found


def display_names(players: Iterable[tuple[K, str]]) -> dict[K, str]:
    """Each player's name as every page, print-out and export shows it: the name itself,
    unless another of `players` has one with the same `skeleton` (the same name, or one
    that prints alike): then the name and its number among them, "Alex Martin (2)".

    `players` comes in the order the players entered the event (Player pk), which never
    changes: a number stays with its player for the whole event. A namesake entering later
    takes the next number; only the first of a name gains "(1)" when a second arrives
    (usually before round 1). The number is what people say at the venue ("I'm Alex
    Martin two"), shorter than an id and steadier than a rank or a seat, which move every
    round. A number whose label is already someone's name ("Alex Martin (2)" chosen as a
    name at registration) is skipped, so that every label shown is distinct.
    """
    listed = list(players)
    groups: dict[str, list[tuple[K, str]]] = {}
    for pid, name in listed:
        groups.setdefault(skeleton(name), []).append((pid, name))
    shown = {pid: name for pid, name in listed}
    taken = set(groups)
    for group in groups.values():
        if len(group) < 2:
            continue
        number = 0
        for pid, name in group:
            while True:
                number += 1
                label = f"{name} ({number})"
                if skeleton(label) not in taken:
                    break
            taken.add(skeleton(label))
            shown[pid] = label
    return shown
