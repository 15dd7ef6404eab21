"""Words as data until the edge (issue 36): a message is a code and its parameters.

Pure (no Django). The pure cores (tournaments.rules, tournaments.parsing, the decklist
checker) build `Message`s; what is stored (a decklist's problems) holds their `data()`,
never a sentence; the shell says them in the reader's language (tournaments.labels.
spoken, the `said` template filter) and the exports in English (`english`). Nothing reads
a sentence back into a message: a parameter is only ever a value, so a card named "Bolt
is banned in Modern" stays a card name in every language.

`CATALOGUE` is the one catalogue of templates: each `Template` registers its code when it
is made. The templates are marked for makemessages by two local no-ops that xgettext knows
by name (its keywords gettext_noop, and ngettext:1,2 for the counting ones).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


def gettext_noop(message: str) -> str:
    """Marks `message` for makemessages; the shell translates it when it says it."""
    return message


def ngettext(singular: str, plural: str, count: str) -> tuple[str, str, str]:
    """Marks a counting message for makemessages (as Django's ngettext is found): its two
    English forms and the parameter holding the count."""
    return singular, plural, count


@dataclass(frozen=True)
class Template:
    """One message of the catalogue: its English text with named placeholders; a counting
    one has its plural form and the parameter that holds the count."""

    code: str
    singular: str
    plural: str | None = None
    count: str = ""

    def forms(self) -> tuple[str, ...]:
        return (self.singular,) if self.plural is None else (self.singular, self.plural)

    def __call__(self, **params: Any) -> Message:
        return Message(self.code, params)


CATALOGUE: dict[str, Template] = {}


def template(code: str, text: str | tuple[str, str, str]) -> Template:
    """A template of the catalogue: `text` is gettext_noop(...) or ngettext(...)."""
    if code in CATALOGUE:
        raise ValueError(f"message code {code!r} is defined twice")
    made = Template(code, text) if isinstance(text, str) else Template(code, *text)
    CATALOGUE[code] = made
    return made


class UnknownMessage(LookupError):
    """Stored data names a code no template has (a newer version wrote it)."""


@dataclass(frozen=True)
class Message:
    """What to say: a template's code and the values of its placeholders. A value may be
    another Message (said in its turn). `count` is the number that picks a counting
    template's form."""

    code: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def template(self) -> Template:
        found = CATALOGUE.get(self.code)
        if found is None:
            raise UnknownMessage(self.code)
        return found

    @property
    def count(self) -> int | None:
        key = self.template.count
        return int(self.params[key]) if key else None

    def render(self, translate: Any, plural: Any) -> str:
        """The message in a language: `translate(text)` and `plural(singular, plural, n)`
        are that language's gettext and ngettext (the shell's), applied to the template
        and to every parameter that is itself a Message."""
        values = {
            k: v.render(translate, plural) if isinstance(v, Message) else v
            for k, v in self.params.items()
        }
        t = self.template
        if t.plural is not None:
            text = plural(t.singular, t.plural, self.count)
        else:
            text = translate(t.singular)
        return text % values if values else text

    def english(self) -> str:
        return self.render(lambda s: s, lambda s, p, n: s if n == 1 else p)

    def __str__(self) -> str:
        return self.english()

    def data(self) -> dict[str, Any]:
        """As stored (JSON): {"code": ..., "params": {...}}, nested messages as data."""
        params = {k: v.data() if isinstance(v, Message) else v for k, v in self.params.items()}
        return {"code": self.code, "params": params}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Message:
        params = {
            k: cls.from_data(v) if isinstance(v, Mapping) and "code" in v else v
            for k, v in dict(data.get("params") or {}).items()
        }
        return cls(str(data["code"]), params)
