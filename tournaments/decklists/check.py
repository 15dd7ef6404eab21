"""Checking a read list against the event's format (Magic Tournament Rules 7.x and the
formats' deck-construction rules) and, when loaded, the card data.

- Constructed (every format but limited): a main deck of at least 60 cards, a sideboard
  of at most 15, at most 4 copies of a card counting main deck and sideboard together,
  except basic lands and the cards whose text allows any number (or up to N).
- Limited: a main deck of at least 40; the sideboard is the rest of the pool, any size,
  and there is no copy limit.
- With card data: every line names a known card, legal in the format ("restricted": at
  most one copy).
"""

from __future__ import annotations

from collections.abc import Iterable

from tournaments.decklists import messages as m
from tournaments.decklists.parse import card_key
from tournaments.decklists.types import CardInfo, CardLookup, Line, Parsed, Problem
from tournaments.messages import gettext_noop

LIMITED = "limited"
COPIES = 4
MAIN_CONSTRUCTED = 60
SIDE_CONSTRUCTED = 15
MAIN_LIMITED = 40

FORMAT_NAMES = {
    "standard": "Standard",
    "pioneer": "Pioneer",
    "modern": "Modern",
    "legacy": "Legacy",
    "vintage": "Vintage",
    "pauper": "Pauper",
    "limited": "Limited",
}

# Without card data: the cards any number of which a deck may hold, by name.
_BASICS = ("Plains", "Island", "Swamp", "Mountain", "Forest")
BASIC_KEYS = frozenset(
    [card_key(n) for n in _BASICS]
    + [card_key(f"Snow-Covered {n}") for n in _BASICS]
    + [card_key("Wastes"), card_key("Snow-Covered Wastes")]
)

# The deck check's groups: the type line's words, English as the card data has them
# (marked: the deck-check page shows them translated).
CARD_TYPES = (
    gettext_noop("Creature"),
    gettext_noop("Planeswalker"),
    gettext_noop("Instant"),
    gettext_noop("Sorcery"),
    gettext_noop("Artifact"),
    gettext_noop("Enchantment"),
    gettext_noop("Battle"),
    gettext_noop("Land"),
)
OTHER = gettext_noop("Other")
CARDS = gettext_noop("Cards")  # the one group without card data


def format_name(deck_format: str) -> str:
    return FORMAT_NAMES.get(deck_format, deck_format.capitalize() or "this event")


def check_decklist(parsed: Parsed, *, deck_format: str, cards: CardLookup | None) -> list[Problem]:
    """Every problem with the list: the lines parsing could not read first, then the
    problems of single cards in the order of their (first) lines, then the list-wide
    ones (line None). A card named on several lines is counted once, on its first line."""
    limited = deck_format == LIMITED
    line_problems: list[Problem] = []
    # The card each line names, merged across lines and sections: key -> first line, total.
    first: dict[str, Line] = {}
    totals: dict[str, int] = {}
    infos: dict[str, CardInfo | None] = {}
    for line in (*parsed.main, *parsed.side):
        key = card_key(line.name)
        info = cards.get(key) if cards is not None else None
        if cards is not None and info is None:
            if key not in infos:
                infos[key] = None
                suggestion = cards.suggest(key)
                said = (
                    m.NOT_A_CARD_HINT(name=line.name, suggestion=suggestion)
                    if suggestion
                    else m.NOT_A_CARD(name=line.name)
                )
                line_problems.append(Problem(line.number, said))
            continue
        if info is not None:
            key = card_key(info.name)  # "Fire" and "Fire // Ice" are one card
        infos.setdefault(key, info)
        first.setdefault(key, line)
        totals[key] = totals.get(key, 0) + line.count
    for key, line in first.items():
        info = infos[key]
        total = totals[key]
        name = info.name if info is not None else line.name
        if info is not None and not limited and deck_format:
            status = info.legalities.get(deck_format, "not_legal")
            where = format_name(deck_format)
            if status == "banned":
                line_problems.append(Problem(line.number, m.BANNED(name=name, format=where)))
                continue
            if status == "restricted":
                if total > 1:
                    line_problems.append(
                        Problem(
                            line.number,
                            m.RESTRICTED(name=name, format=where, count=total),
                        )
                    )
                continue
            if status != "legal":
                line_problems.append(Problem(line.number, m.NOT_LEGAL(name=name, format=where)))
                continue
        if limited:
            continue
        limit = _copy_limit(key, info)
        if limit is not None and total > limit:
            line_problems.append(
                Problem(
                    line.number,
                    m.TOO_MANY_COPIES(count=total, name=name, most=limit),
                )
            )
    line_problems.sort(key=lambda p: p.line or 0)
    return [*parsed.problems, *line_problems, *_size_problems(parsed, limited=limited)]


def _copy_limit(key: str, info: CardInfo | None) -> int | None:
    if info is None:
        return None if key in BASIC_KEYS else COPIES
    if info.any_number:
        return None
    return info.max_copies if info.max_copies is not None else COPIES


def _size_problems(parsed: Parsed, *, limited: bool) -> list[Problem]:
    main = sum(line.count for line in parsed.main)
    side = sum(line.count for line in parsed.side)
    problems: list[Problem] = []
    least = MAIN_LIMITED if limited else MAIN_CONSTRUCTED
    if main < least:
        problems.append(Problem(None, m.MAIN_TOO_SMALL(count=main, least=least)))
    if not limited and side > SIDE_CONSTRUCTED:
        problems.append(Problem(None, m.SIDE_TOO_BIG(count=side, most=SIDE_CONSTRUCTED)))
    return problems


def card_group(info: CardInfo | None) -> str:
    """The deck-check group of a card: the first of CARD_TYPES its type line names (an
    artifact creature is a creature, a land creature a creature), else Other."""
    if info is None:
        return OTHER
    # Only the front face's types: a creature that transforms into a planeswalker is
    # counted as the creature it is in the deck.
    front = info.type_line.split("//")[0]
    words = set(front.replace("\u2014", " ").split())
    for kind in CARD_TYPES:
        if kind in words:
            return kind
    return OTHER


def deck_check_order(
    lines: Iterable[Line], cards: CardLookup | None
) -> list[tuple[str, list[Line]]]:
    """The lines of a main deck or sideboard as a deck check counts them: grouped by card
    type (creatures, planeswalkers, instants, sorceries, artifacts, enchantments, battles,
    lands, then others and unknown names), each group by name. Without card data one
    group, "Cards", by name. Empty groups are left out."""
    lines = list(lines)
    if cards is None:
        return [(CARDS, sorted(lines, key=lambda line: card_key(line.name)))] if lines else []
    groups: dict[str, list[Line]] = {}
    for line in lines:
        groups.setdefault(card_group(cards.get(card_key(line.name))), []).append(line)
    return [
        (kind, sorted(groups[kind], key=lambda line: card_key(line.name)))
        for kind in (*CARD_TYPES, OTHER)
        if kind in groups
    ]
