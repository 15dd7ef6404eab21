"""What parsing and checking a decklist hand around: plain frozen dataclasses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

from tournaments.decklists.messages import LINE
from tournaments.messages import Message

Section = Literal["main", "side"]


@dataclass(frozen=True)
class Line:
    """One card line of a list: its line number in the text as submitted (1-based), the
    count, the card's name as written (trimmed) and the section it is in."""

    number: int
    count: int
    name: str
    section: Section


@dataclass(frozen=True)
class Problem:
    """A problem with the list; `line` None when it is about the whole list ("the main
    deck has 58 cards: at least 60 are needed")."""

    line: int | None
    message: Message

    def said(self) -> Message:
        """The problem as stored and shown: naming its line, when it has one."""
        if self.line is None:
            return self.message
        return LINE(line=self.line, problem=self.message)

    def __str__(self) -> str:
        return self.said().english()


@dataclass(frozen=True)
class Parsed:
    main: tuple[Line, ...] = ()
    side: tuple[Line, ...] = ()
    problems: tuple[Problem, ...] = ()  # lines that could not be read


@dataclass(frozen=True)
class CardInfo:
    """A card as the checks need it (from tournaments.models.Card)."""

    name: str
    type_line: str = ""
    legalities: Mapping[str, str] = field(default_factory=dict)
    any_number: bool = False  # basic lands and "any number of cards named ..."
    max_copies: int | None = None  # "up to seven cards named ..."


class CardLookup(Protocol):
    """The card data the checks read: by normalised name (parse.card_key)."""

    def get(self, key: str) -> CardInfo | None: ...

    def suggest(self, key: str) -> str | None:
        """The closest known card's name to an unknown one, or None."""
        ...
