"""Words as data (issues 29 and 36): the pure cores' refusals (tournaments.rules,
tournaments.parsing) are messages, a code and its parameters, said in English where they
are logged and exported and in the reader's language where they are shown."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

# Every module that defines templates, so that the whole catalogue is checked below.
import scoring.engine.outlook  # noqa: F401
import tournaments.decklists.messages
import tournaments.services  # noqa: F401
from tournaments.labels import spoken
from tournaments.messages import CATALOGUE, Message, Template
from tournaments.parsing import QuickEntryError, parse_quick_entry
from tournaments.rules import TOO_MANY_WON, check_two_player_result


def test_a_message_is_a_code_and_parameters_said_in_english_by_its_template() -> None:
    message = TOO_MANY_WON(best_of=3, most=2)
    assert message == Message("result.too_many_won", {"best_of": 3, "most": 2})
    assert str(message) == "In a best-of-3 nobody wins more than 2 games."
    assert CATALOGUE["result.too_many_won"] is TOO_MANY_WON


def test_a_message_stored_as_data_comes_back_the_same_nested_messages_included() -> None:
    with pytest.raises(QuickEntryError) as refused:
        parse_quick_entry("12 abc")
    message = refused.value.args[0]
    data = message.data()
    assert data["code"] == "quick.not_a_result" and data["params"]["help"]["code"] == "quick.help"
    assert Message.from_data(data) == message


def test_a_result_no_match_can_produce_is_said_in_the_readers_language() -> None:
    problem = check_two_player_result(best_of=3, wins=(3, 0), draws=0)
    assert str(problem) == "In a best-of-3 nobody wins more than 2 games."
    with translation.override("fr"):
        assert spoken(problem) == "Dans un match en 3 manches, personne ne gagne plus de 2 parties."
    with translation.override("de"):
        assert spoken(problem) == "In einem Best-of-3 gewinnt niemand mehr als 2 Spiele."


def test_a_quick_entry_refusal_says_its_help_in_the_same_language() -> None:
    with pytest.raises(QuickEntryError) as refused:
        parse_quick_entry("12 abc")
    english = str(refused.value)
    assert english.startswith('Table 12: "abc" is not a result. Type a table and its result')
    with translation.override("es"):
        said = spoken(refused.value.args[0])
    assert said.startswith("Mesa 12: «abc» no es un resultado. Escribe una mesa")


def test_text_that_is_not_said_is_shown_as_it_is() -> None:
    with translation.override("fr"):
        assert spoken("Ana Lopez") == "Ana Lopez"


@pytest.mark.django_db
def test_the_round_screens_quick_entry_refuses_in_french_plain_and_with_htmx(
    oc: Client, playing_event: Any, owner: Any
) -> None:
    playing_event.owner = owner
    playing_event.save(update_fields=["owner"])
    url = f"/t/{playing_event.slug}/manage/rounds/3/quick/"
    for extra in ({}, {"HTTP_HX_REQUEST": "true"}):
        response = oc.post(url, {"entry": "2 9-9"}, HTTP_ACCEPT_LANGUAGE="fr", **extra)
        body = response.content.decode()
        assert response.status_code == 422, body[:300]
        assert "personne ne gagne plus de 2 parties" in body


LANGUAGES = ("en", "fr", "de", "es", "it", "pt", "ja")
PLACEHOLDER = re.compile(r"%\((\w+)\)([a-z])")  # %(name)s, %(name)r, %(count)d
ENGLISH = sorted({form for t in CATALOGUE.values() for form in t.forms()})


def _placeholders(t: Template) -> dict[str, str]:
    """Each placeholder's name and conversion (s, r, d)."""
    return {name: kind for form in t.forms() for name, kind in PLACEHOLDER.findall(form)}


def _said_as_values(code: str, language: str, text: str) -> None:
    t = CATALOGUE[code]
    names = _placeholders(t)
    # Text wherever the template takes text; a number where it formats one (%(max)d).
    params: dict[str, Any] = {name: 2 if kind == "d" else text for name, kind in names.items()}
    if t.count:
        params[t.count] = 2
    with translation.override(language):
        said = spoken(Message(code, params))
        if t.plural is not None:
            expected = translation.ngettext(t.singular, t.plural, 2)
        else:
            expected = translation.gettext(t.singular)
    values = {name: params[name] for name in names}
    assert said == (expected % values if values else expected)


def test_every_template_in_every_language_says_another_messages_words_as_a_value() -> None:
    tricky = "Bolt is banned in Modern; Round 4 %(name)s"
    for code in sorted(CATALOGUE):
        for language in LANGUAGES:
            _said_as_values(code, language, tricky)


def test_the_catalogue_holds_the_templates_of_every_core_and_service() -> None:
    prefixes = {code.split(".")[0] for code in CATALOGUE}
    assert {"result", "quick", "decklist", "outlook", "registration", "reports"} <= prefixes
    assert len(CATALOGUE) > 200


@settings(max_examples=60, deadline=None)
@given(
    code=st.sampled_from(sorted(CATALOGUE)),
    language=st.sampled_from(LANGUAGES),
    text=st.one_of(st.text(max_size=40), st.sampled_from(ENGLISH)),
)
def test_any_text_in_a_parameter_is_said_as_a_value_in_every_language(
    code: str, language: str, text: str
) -> None:
    """Words are data: a parameter holding arbitrary text, or another message's English,
    is never read as a message; the rendering is the template's own translation with the
    values put in."""
    _said_as_values(code, language, text)
