"""The judges' screens speak the reader's language (issue 29): time extensions, deck checks,
penalties and decklists, their refusals, the IPG's names, the audit sentences, and the
decklist checker's problems (stored as codes and values, shown translated)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as dj_gettext
from django.utils.translation import ngettext as dj_ngettext
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments import services
from tournaments.decklists import messages as m
from tournaments.decklists.check import check_decklist
from tournaments.decklists.parse import parse_decklist
from tournaments.messages import CATALOGUE, Message, Template
from tournaments.models import Decklist, Match, StaffRole, Tournament
from tournaments.pages.audit_parts import Mention
from tournaments.pages.audit_parts import said as fill
from tournaments.pages.decklists import english_problems, shown_problem
from tournaments.services.decklists import set_decklist_rules, submit_decklist
from tournaments.services.floor import add_extension

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english_afterwards() -> Any:
    """A request's LocaleMiddleware leaves its language active in the thread: the tests
    run after these (services called directly) expect English."""
    yield
    translation.deactivate()


@pytest.fixture
def floor(django_user_model: Any, owner: Any) -> dict[str, Any]:
    t = services.create_tournament(name="Floor Open", owner=owner, seed=3)
    services.register_players(tournament=t, names=[f"Player {i}" for i in range(1, 9)])
    set_decklist_rules(tournament=t, deck_format="modern", deadline=None, by=owner)
    services.pair_next_round(tournament=t)
    judge = django_user_model.objects.create_user("judge")
    services.add_staff(tournament=t, username="judge", role=StaffRole.FLOOR_JUDGE, by=owner)
    return {"t": Tournament.objects.get(pk=t.pk), "judge": judge, "owner": owner}


def speaking(user: Any, language: str) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def test_the_tables_screen_speaks_french_and_japanese(floor: dict[str, Any]) -> None:
    t: Tournament = floor["t"]
    add_extension(tournament=t, table=1, minutes=5, note="ruling", by=floor["judge"])
    url = reverse("judge_tables", args=[t.slug])
    fr = speaking(floor["judge"], "fr").get(url).content.decode()
    assert "Temps supplémentaire" in fr and "Tables avec temps supplémentaire (1)" in fr
    assert "+5 min" in fr and " contre " in fr and "Annuler" in fr
    assert "Extended tables" not in fr
    ja = speaking(floor["judge"], "ja").get(url).content.decode()
    assert "時間延長" in ja and "延長した卓（1）" in ja and "1卓" in ja


def test_a_refusal_on_the_floor_is_in_the_judges_language(floor: dict[str, Any]) -> None:
    t: Tournament = floor["t"]
    url = reverse("judge_extend", args=[t.slug])
    page = speaking(floor["judge"], "de").post(url, {"table": "99", "quick": "5"})
    assert page.status_code == 422
    assert "Runde 1 hat keinen Tisch 99." in page.content.decode()


def test_the_deck_checks_screen_speaks_spanish(floor: dict[str, Any]) -> None:
    t: Tournament = floor["t"]
    client = speaking(floor["judge"], "es")
    done = client.post(
        reverse("judge_deck_check_start", args=[t.slug]),
        {"table": "2"},
        headers={"HX-Request": "true"},
    )
    html = done.content.decode()
    assert "Revisión de mazo de la mesa 2 empezada" in html
    assert "Revisiones de mazo" in html and "En curso (1)" in html


def test_the_penalty_screen_shows_the_ipg_names_in_the_judges_language(
    floor: dict[str, Any],
) -> None:
    t: Tournament = floor["t"]
    html = speaking(floor["judge"], "fr").get(reverse("judge_penalties", args=[t.slug]))
    text = html.content.decode()
    assert '<optgroup label="Erreurs de tournoi">' in text
    assert "Retard (3.1) · Perte de partie" in text
    assert "Capacité déclenchée oubliée (2.1) · Aucune pénalité" in text
    assert "Infliger une pénalité" in text
    ja = speaking(floor["judge"], "ja").get(reverse("judge_penalties", args=[t.slug]))
    assert "遅刻 (3.1) · ゲームの敗北" in ja.content.decode()


def test_a_penalty_issued_is_told_and_listed_in_the_judges_language(
    floor: dict[str, Any],
) -> None:
    t: Tournament = floor["t"]
    player = Match.objects.get(round__tournament=t, table=1).seats.first().player
    client = speaking(floor["judge"], "it")
    page = client.post(
        reverse("judge_penalty_issue", args=[t.slug]),
        {"player": player.pk, "infraction": "tardiness"},
        headers={"HX-Request": "true"},
    )
    html = page.content.decode()
    assert f"Perdita della partita per {player.name} (Ritardo)." in html
    assert "Ritardo (IPG 3.1)" in html


def test_the_decklist_problems_are_stored_as_codes_and_read_in_portuguese(
    floor: dict[str, Any],
) -> None:
    t: Tournament = floor["t"]
    player = t.players.order_by("pk").first()
    with translation.override("pt"):
        submit_decklist(player=player, text="4 Lightning Bolt\n0 Island\n", by=floor["owner"])
    stored = Decklist.objects.get(player=player).problems
    assert stored == [
        m.LINE(line=2, problem=m.COUNT_ZERO()).data(),
        m.MAIN_TOO_SMALL(count=4, least=60).data(),
    ]
    assert english_problems(stored)[0] == "line 2: a count of 0: leave the card out instead"
    url = reverse("judge_decklist", args=[t.slug, player.pk])
    html = speaking(floor["judge"], "pt").get(url).content.decode()
    assert "linha 2: uma quantidade de 0: retire a carta em vez disso" in html
    assert "o deck principal tem 4 cartas: são necessárias pelo menos 60" in html
    assert "Deck principal: 4" in html


# --- The checker's problems: messages of the catalogue, said in the reader's language -----


SHIPPED = [code for code, _name in django_settings.LANGUAGES]
DECKLIST = sorted(
    (t for code, t in CATALOGUE.items() if code.startswith("decklist.")), key=lambda t: t.code
)
SAMPLES: dict[str, Any] = {
    "line": 3,
    "problem": m.LIST_NOT_TEXT(),
    "count": 5,
    "most": 4,
    "least": 60,
    "text": "'Bolt'",
    "name": "Lightning Bolt",
    "error": "ValueError",
    "quantity": "'x'",
    "suggestion": "Lightning Bolt",
    "format": "Modern",
}
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def placeholders(template: Template) -> set[str]:
    return {k for form in template.forms() for k in PLACEHOLDER.findall(form)}


def said_in(language: str, template: Template, params: dict[str, Any]) -> str:
    """What the catalogue of `language` says for the template, its values put in, each
    nested message said first: the expected text, from the .mo files directly."""
    values = {
        k: said_in(language, v.template, dict(v.params)) if isinstance(v, Message) else v
        for k, v in params.items()
    }
    with translation.override(language):
        if template.plural is not None:
            text = dj_ngettext(template.singular, template.plural, int(params[template.count]))
        else:
            text = dj_gettext(template.singular)
    return text % values if values else text


@pytest.mark.parametrize("template", DECKLIST, ids=lambda t: t.code)
def test_every_problem_stored_as_data_comes_back_the_same_and_says_its_english(
    template: Template,
) -> None:
    values = {k: SAMPLES[k] for k in placeholders(template)}
    for count in (1, 5) if template.plural else (5,):
        if template.count:
            values[template.count] = count
        message = template(**values)
        data = json.loads(json.dumps(message.data()))  # as the JSON column keeps it
        assert Message.from_data(data) == message
        form = template.singular if template.plural is None or count == 1 else template.plural
        nested = {k: str(v) if isinstance(v, Message) else v for k, v in values.items()}
        assert english_problems([data]) == [form % nested if nested else form]


def test_a_problem_an_older_version_stored_as_text_is_shown_as_it_was_written() -> None:
    kept = m.STORED_TEXT(text="something an older version wrote").data()
    with translation.override("fr"):
        assert shown_problem(kept) == "something an older version wrote"
        # Not data at all, or a code this version does not know: shown, never an error.
        assert shown_problem("a bare sentence") == "a bare sentence"
        assert "decklist.from_the_future" in shown_problem(
            {"code": "decklist.from_the_future", "params": {}}
        )


def test_the_checkers_problems_read_in_french_and_japanese() -> None:
    parsed = parse_decklist("4 Lightning Bolt\n1\n")
    problems = [p.said() for p in check_decklist(parsed, deck_format="modern", cards=None)]
    assert [str(p) for p in problems] == [
        "line 2: the line has a count but no card name",
        "the main deck has 4 cards: at least 60 are needed",
    ]
    with translation.override("fr"):
        assert [shown_problem(p.data()) for p in problems] == [
            "ligne 2 : la ligne a un nombre mais pas de nom de carte",
            "le deck principal a 4 cartes : il en faut au moins 60",
        ]
        # French counts 0 and 1 as singular: Django's ngettext picks the form.
        assert shown_problem(m.MAIN_TOO_SMALL(count=1, least=60).data()) == (
            "le deck principal a 1 carte : il en faut au moins 60"
        )
        assert shown_problem(m.MAIN_TOO_SMALL(count=0, least=60).data()) == (
            "le deck principal a 0 carte : il en faut au moins 60"
        )
    with translation.override("ja"):
        hint = m.NOT_A_CARD_HINT(name="Lightnig Bolt", suggestion="Lightning Bolt")
        assert shown_problem(m.LINE(line=7, problem=hint).data()) == (
            "7行目：「Lightnig Bolt」というカードはありません。Lightning Bolt のことですか？"
        )


def test_a_card_named_like_another_problem_stays_whole_in_german() -> None:
    """Issue 36's case: the old reader took "Bolt is banned in Modern" for a ban."""
    (problem,) = parse_decklist("4 Lightning Bolt\nBolt is banned in Modern\n").problems
    stored = json.loads(json.dumps(problem.said().data()))
    assert english_problems([stored]) == [
        "line 2: 'Bolt is banned in Modern' has no count: write it as '1 Bolt is banned in Modern'"
    ]
    with translation.override("de"):
        assert shown_problem(stored) == (
            "Zeile 2: 'Bolt is banned in Modern' hat keine Anzahl: "
            "schreibe „1 Bolt is banned in Modern“"
        )


# Values a player can put in a problem: any text, or the English of any other problem.
ENGLISH = [str(t(**{k: SAMPLES[k] for k in placeholders(t)})) for t in DECKLIST]
VALUE = st.one_of(st.text(max_size=80), st.sampled_from(ENGLISH))


def values_of(draw: st.DrawFn, template: Template) -> dict[str, Any]:
    """Values for the template's placeholders: numbers where the checker puts numbers,
    another problem (any, its own values drawn in turn) where it nests one, else any
    text or another problem's English."""
    values: dict[str, Any] = {}
    for key in sorted(placeholders(template)):
        if key == template.count or key in {"line", "most", "least"}:
            values[key] = draw(st.integers(min_value=0, max_value=300))
        elif key == "problem":
            inner = draw(st.sampled_from([t for t in DECKLIST if "problem" not in placeholders(t)]))
            values[key] = inner(**values_of(draw, inner))
        else:
            values[key] = draw(VALUE)
    return values


@st.composite
def problems(draw: st.DrawFn) -> tuple[Template, dict[str, Any]]:
    template = draw(st.sampled_from(DECKLIST))
    return template, values_of(draw, template)


@settings(max_examples=60, deadline=None)
@given(problem=problems(), language=st.sampled_from(SHIPPED))
def test_any_value_in_a_problem_is_said_as_that_value_in_every_language(
    problem: tuple[Template, dict[str, Any]], language: str
) -> None:
    template, values = problem
    stored = json.loads(json.dumps(template(**values).data()))
    expected = said_in(language, template, values)
    with translation.override(language):
        assert shown_problem(stored) == expected
    for value in values.values():
        if isinstance(value, str):
            assert value in expected  # the player's text stays whole


def test_the_pure_core_still_imports_no_django() -> None:
    for path in Path("tournaments/decklists").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not any(n.split(".")[0] == "django" for n in names), path


def test_an_audit_sentence_keeps_its_mention_where_the_language_puts_it() -> None:
    ana = Mention("Ana", "p1")
    assert fill("%(player)s registered (%(cards)s)", player=ana, cards="60 cards") == (
        ana,
        " registered (60 cards)",
    )
    assert fill("Liste de %(player)s : 100%%", player=ana) == ("Liste de ", ana, " : 100%")
