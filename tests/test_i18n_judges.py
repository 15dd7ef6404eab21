"""The judges' screens speak the reader's language (issue 29): time extensions, deck checks,
penalties and decklists, their refusals, the IPG's names, the audit sentences, and the
decklist checker's problems (stored in English, shown translated)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tournaments import services
from tournaments.decklists import messages as m
from tournaments.decklists.check import check_decklist
from tournaments.decklists.messages import problem_text, read
from tournaments.decklists.parse import parse_decklist
from tournaments.models import Decklist, Match, StaffRole, Tournament
from tournaments.pages.audit_parts import Mention
from tournaments.pages.audit_parts import said as fill
from tournaments.pages.decklists import shown_problem
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


def test_the_decklist_problems_stay_english_in_the_database_and_read_in_portuguese(
    floor: dict[str, Any],
) -> None:
    t: Tournament = floor["t"]
    player = t.players.order_by("pk").first()
    with translation.override("pt"):
        submit_decklist(player=player, text="4 Lightning Bolt\n0 Island\n", by=floor["owner"])
    stored = Decklist.objects.get(player=player).problems
    assert "line 2: a count of 0: leave the card out instead" in stored
    url = reverse("judge_decklist", args=[t.slug, player.pk])
    html = speaking(floor["judge"], "pt").get(url).content.decode()
    assert "linha 2: uma quantidade de 0: retire a carta em vez disso" in html
    assert "o deck principal tem 4 cartas: são necessárias pelo menos 60" in html
    assert "Deck principal: 4" in html


# --- The checker's problems: English templates, read back to be translated ---------------


SAMPLES: dict[str, Any] = {
    "line": 3,
    "problem": "the list is not text",
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


@pytest.mark.parametrize("template", m.TEMPLATES, ids=lambda t: t.singular[:40])
def test_every_problem_reads_back_into_its_template_and_values(template: m.Template) -> None:
    keys = {k for form in template.forms() for k in m._PLACEHOLDER.findall(form)}
    values = {k: SAMPLES[k] for k in keys}
    for count in (1, 5) if template.plural else (5,):
        if template.count:
            values[template.count] = count
        text = problem_text(template, **values)
        found = read(text)
        assert found is not None, text
        assert found[0] == template
        assert {k: str(v) for k, v in found[1].items()} == {k: str(v) for k, v in values.items()}


def test_a_problem_no_template_makes_is_shown_as_stored() -> None:
    assert read("something an older version wrote") is None
    with translation.override("fr"):
        assert shown_problem("something an older version wrote") == (
            "something an older version wrote"
        )


def test_the_checkers_problems_read_in_french_and_japanese() -> None:
    parsed = parse_decklist("4 Lightning Bolt\n1\n")
    problems = [str(p) for p in check_decklist(parsed, deck_format="modern", cards=None)]
    assert problems == [
        "line 2: the line has a count but no card name",
        "the main deck has 4 cards: at least 60 are needed",
    ]
    with translation.override("fr"):
        assert [shown_problem(p) for p in problems] == [
            "ligne 2 : la ligne a un nombre mais pas de nom de carte",
            "le deck principal a 4 cartes : il en faut au moins 60",
        ]
        # French counts 0 and 1 as singular: Django's ngettext picks the form.
        assert shown_problem(problem_text(m.MAIN_TOO_SMALL, count=1, least=60)) == (
            "le deck principal a 1 carte : il en faut au moins 60"
        )
        assert shown_problem(problem_text(m.MAIN_TOO_SMALL, count=0, least=60)) == (
            "le deck principal a 0 carte : il en faut au moins 60"
        )
    with translation.override("ja"):
        hint = problem_text(m.NOT_A_CARD_HINT, name="Lightnig Bolt", suggestion="Lightning Bolt")
        assert shown_problem(f"line 7: {hint}") == (
            "7行目：「Lightnig Bolt」というカードはありません。Lightning Bolt のことですか？"
        )


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
