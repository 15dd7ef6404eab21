"""Issue 36: the "What do I need?" card, a result read from one side and a top-cut finish
are data until the page says them: codes and values stored, said in the reader's
language, in English only in the exports and the API; nothing reads English back."""

from __future__ import annotations

import importlib
import re
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext, ngettext, pgettext
from hypothesis import given
from hypothesis import strategies as st

from scoring import outlooks
from scoring.engine.outlook import MODEL, PROOFS, verdict
from scoring.models import Outlook
from tests.helpers import REAL, cut_back
from tournaments import services
from tournaments.labels import finish_text, side_result_text, spoken
from tournaments.messages import CATALOGUE, Message, Template
from tournaments.models import Round, Tournament
from tournaments.rules import NOT_REPORTED, Finish, SideResult
from tournaments.services.lifecycle import update_plan

SHIPPED = [code for code, _name in settings.LANGUAGES]
OUTLOOK_TEMPLATES = sorted(
    (t for t in CATALOGUE.values() if t.code.startswith("outlook.")), key=lambda t: t.code
)
PLACEHOLDER = re.compile(r"%\((\w+)\)s")
# Any text a parameter may hold, "%" and another message's English included.
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30)


def placeholders(t: Template) -> set[str]:
    return {name for form in t.forms() for name in PLACEHOLDER.findall(form)}


def expected(t: Template, params: dict[str, Any]) -> str:
    """The template said by Django's own gettext in the active language."""
    if t.plural is not None:
        return ngettext(t.singular, t.plural, int(params[t.count])) % params
    return gettext(t.singular) % params if params else gettext(t.singular)


# --- The outlook's templates, with any text as a parameter ------------------------------


def test_the_outlook_card_has_its_templates_in_the_catalogue() -> None:
    codes = {t.code for t in OUTLOOK_TEMPLATES}
    assert {"outlook.simulated", "outlook.proofs", "outlook.in", "outlook.result_in"} <= codes
    assert [m.code for m in MODEL] == ["outlook.simulated", "outlook.proofs"]


@pytest.mark.parametrize("language", SHIPPED)
@pytest.mark.parametrize("tmpl", OUTLOOK_TEMPLATES, ids=lambda t: t.code)
@given(text=TEXT, count=st.integers(min_value=0, max_value=5))
def test_every_outlook_template_says_a_text_parameter_as_it_is_in_every_language(
    tmpl: Template, language: str, text: str, count: int
) -> None:
    params: dict[str, Any] = {name: text for name in placeholders(tmpl)}
    if tmpl.count:
        params[tmpl.count] = count
    message = Message(tmpl.code, params)
    with translation.override(language):
        said = spoken(message)
        assert said == expected(tmpl, params)
        if text and any(k != tmpl.count for k in params):
            assert text in said


@pytest.mark.parametrize("language", SHIPPED)
@pytest.mark.parametrize("tmpl", OUTLOOK_TEMPLATES, ids=lambda t: t.code)
def test_another_templates_english_as_a_parameter_stays_that_text(
    tmpl: Template, language: str
) -> None:
    """A parameter that happens to read like a message is only a value: never translated
    as if it were one (the old card matched English sentences)."""
    english = MODEL[0].english()
    params: dict[str, Any] = {name: english for name in placeholders(tmpl)}
    if tmpl.count:
        params[tmpl.count] = 2
    with translation.override(language):
        said = spoken(Message(tmpl.code, params))
        assert said == expected(tmpl, params)
        if set(params) - {tmpl.count}:
            assert english in said


def test_the_model_says_its_figures_from_the_engines_constants_in_every_language() -> None:
    for language in SHIPPED:
        with translation.override(language):
            said = outlooks.model_text([m.data() for m in MODEL])
        assert "45 %" in said and "10 %" in said and "%%" not in said and "%(" not in said
    assert MODEL[0].params == {"first": 45, "second": 45, "draw": 10}


def test_the_old_english_model_converts_to_exactly_the_engines_messages() -> None:
    """Migration 0004 turns the one English the engine stored into the engine's data."""
    migration = importlib.import_module("scoring.migrations.0004_outlook_model_as_messages")
    assert [m.data() for m in MODEL] == migration._AS_MESSAGES
    assert " ".join(m.english() for m in MODEL) == migration._STORED_BEFORE


def test_the_verdict_is_said_in_french_and_japanese() -> None:
    with translation.override("fr"):
        assert spoken(verdict(certain="in", needs=None, result=None, cut=8, after=0)) == (
            "Dans le top 8 quoi qu'il arrive"
        )
    with translation.override("ja"):
        assert spoken(verdict(certain="in", needs=None, result=None, cut=8, after=0)) == (
            "何があってもトップ8入り"
        )
    said = verdict(certain=None, needs="win", result=None, cut=4, after=2)
    assert said.english() == (
        "A win puts you in the top 4 whatever the other tables do, even losing the 2 rounds after"
    )
    assert verdict(certain=None, needs=None, result="win 2-1", cut=8, after=0).english() == (
        "Your result is in (win 2-1): the rest decides"
    )


# --- The card from stored data -------------------------------------------------------


@pytest.fixture
def real(owner: User, db: Any, settings: Any) -> Tournament:
    from tests.conftest import load_shared

    settings.OUTLOOK_SIMULATIONS = 200
    settings.OUTLOOK_BACKGROUND = False
    doc, rounds = cut_back(load_shared(REAL))
    t = services.import_document(doc, owner=owner)
    t = update_plan(tournament=t, planned_rounds=rounds, top_cut=8)
    outlooks.compute_now(tournament_id=t.pk)
    return Tournament.objects.get(pk=t.pk)


def _card(t: Tournament, pid: str, language: str) -> dict[str, Any]:
    round_ = Round.objects.filter(tournament=t).order_by("-number")[0]
    with translation.override(language):
        card = outlooks.player_card(t, round_, pid)
    assert card is not None
    return card


@pytest.mark.django_db
def test_the_outlook_card_is_said_from_stored_data_in_english_french_and_japanese(
    real: Tournament,
) -> None:
    row = Outlook.objects.get(tournament=real)
    assert row.model == [m.data() for m in MODEL]  # codes and values, no sentence
    players = row.data["players"]
    sure = next(p for p, a in players.items() if a["certain"] is not None)
    cards = {lang: _card(real, sure, lang) for lang in ("en", "fr", "ja")}
    said = {
        "in": (
            "In the top 8 whatever happens",
            "Dans le top 8 quoi qu'il arrive",
            "何があってもトップ8入り",
        ),
        "out": (
            "Out of the top 8 whatever happens",
            "Hors du top 8 quoi qu'il arrive",
            "何があってもトップ8には入れません",
        ),
    }[players[sure]["certain"]]
    assert tuple(cards[lang]["answer"]["sentence"] for lang in ("en", "fr", "ja")) == said
    assert cards["en"]["model"].startswith("Each unfinished match: 45 % first player wins")
    assert cards["fr"]["model"].startswith("Chaque match en cours : 45 % ")
    assert cards["ja"]["model"].startswith("未終了の各対戦：先手プレイヤーの勝ち 45 %")
    for lang, card in cards.items():
        with translation.override(lang):
            assert card["answer"]["proof"] == spoken(PROOFS)
            assert card["model"].endswith(spoken(PROOFS))
    # The API keeps English.
    assert outlooks.document(real)["model"] == " ".join(m.english() for m in MODEL)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "stored",
    [
        MODEL[0].english() + " " + PROOFS.english(),  # English, as before issue 36
        "an older engine's words",
        [{"code": "outlook.from_a_newer_version", "params": {}}],
        [{"code": "outlook.simulated", "params": {}}],  # a placeholder without its value
        {"not": "a list"},
    ],
)
def test_an_old_or_unknown_stored_model_never_fails_a_page(
    real: Tournament, stored: Any, client: Any
) -> None:
    Outlook.objects.filter(tournament=real).update(model=stored)
    sure = next(p for p, a in Outlook.objects.get(tournament=real).data["players"].items())
    for lang in ("en", "fr", "ja"):
        card = _card(real, sure, lang)
        assert card["model"] == "" and card["answer"]["sentence"]
    api = client.get(f"/t/{real.slug}/outlook.json").json()
    assert api["model"] == (stored if isinstance(stored, str) else "")
    page = client.get(reverse("player", kwargs={"slug": real.slug, "pid": sure}))
    assert page.status_code == 200


# --- A result read from one side, and finishes, from data -------------------------------


def test_result_cells_are_said_from_data_in_french_german_and_japanese() -> None:
    place = SideResult("place", place=2, size=4)
    double = SideResult("loss", double_loss=True)
    win = SideResult("win", score="2-1")
    assert [r.english for r in (place, double, win)] == [
        "place 2 of 4",
        "loss (double loss)",
        "win 2-1",
    ]
    with translation.override("fr"):
        assert side_result_text(place) == "place 2 sur 4"
        assert side_result_text(double) == "défaite (double défaite)"
        assert side_result_text(win) == "victoire 2-1"
    with translation.override("de"):
        assert side_result_text(place) == "Platz 2 von 4"
        assert side_result_text(double) == "Niederlage (doppelte Niederlage)"
    with translation.override("ja"):
        assert side_result_text(place) == "順位 2 / 4人"
        assert side_result_text(double) == "負け （両者敗北）"
        assert side_result_text(SideResult(NOT_REPORTED)) == pgettext(
            "a match's result", "not reported"
        )


@pytest.mark.parametrize("language", SHIPPED)
@given(score=TEXT)
def test_a_score_is_said_as_it_is_even_when_it_reads_like_a_message(
    language: str, score: str
) -> None:
    """The score is a value: "(double loss)" or "2 of 4" as a score is not translated (the
    old page matched the English after the outcome word)."""
    for text in (score, "(double loss)", "2 of 4"):
        result = SideResult("win", score=text)
        with translation.override(language):
            word = pgettext("a match's outcome", "win")
            assert side_result_text(result) == (f"{word} {text}" if text else word)
        assert result.english == (f"win {text}" if text else "win")


@pytest.mark.parametrize("language", SHIPPED)
@given(first=st.integers(min_value=1, max_value=64), span=st.integers(min_value=0, max_value=64))
def test_a_finish_is_said_from_its_numbers_in_every_language(
    language: str, first: int, span: int
) -> None:
    finish = Finish(first, first + span)
    with translation.override(language):
        said = finish_text(finish)
        if span == 0:
            assert said == finish_text(Finish(first, first))
        assert str(first) in said and str(first + span) in said
    assert finish.english.count("-") == (1 if span else 0)


def test_finishes_in_french_german_and_japanese() -> None:
    with translation.override("fr"):
        assert finish_text(Finish(5, 8)) == "5e-8e" and finish_text(Finish(1, 1)) == "1er"
    with translation.override("de"):
        assert finish_text(Finish(3, 4)) == "3.–4."
    with translation.override("ja"):
        assert finish_text(Finish(2, 2)) == "2位"
    assert [Finish(1, 1).english, Finish(3, 4).english, Finish(5, 8).english] == [
        "1st",
        "3rd-4th",
        "5th-8th",
    ]
