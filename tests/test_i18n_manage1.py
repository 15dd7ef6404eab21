"""The organizer's screens for rounds, results, standings and the top cut speak the
reader's language (issue 29): the event screen, the round screen and its rows, a result
refused, the standings screen; English stays as it was."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tournaments.models import Match, Tournament

pytestmark = pytest.mark.django_db
FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}
JA = {"HTTP_ACCEPT_LANGUAGE": "ja"}
DE = {"HTTP_ACCEPT_LANGUAGE": "de"}
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def _english_afterwards() -> Any:
    """A request activates its reader's language in this thread and leaves it there: the
    next test in the same worker would read French refusals from the services."""
    yield
    translation.deactivate()


@pytest.fixture
def event(playing_event: Tournament, owner: User) -> Tournament:
    """Round 3 in progress (conftest), owned by `owner`."""
    playing_event.owner = owner
    playing_event.save(update_fields=["owner"])
    return playing_event


def text(response: Any) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", response.content.decode()))


def manage(t: Tournament, name: str, *args: Any) -> str:
    return reverse(name, args=[t.slug, *args])


def test_the_event_screen_speaks_french_and_japanese(oc: Client, event: Tournament) -> None:
    page = text(oc.get(manage(event, "manage_event"), **FR))
    for words in (
        "Mes tournois",
        "Classement public",
        "Journal",
        "Ronde suisse 3",
        "Chrono de la ronde",
    ):
        assert words in page, words
    assert "résultats manquants" in page and "Trouver un joueur" in page
    assert "Round clock" not in page and "Find a player" not in page
    page = text(oc.get(manage(event, "manage_event"), **JA))
    assert "ラウンドタイマー" in page and "プレイヤーを検索" in page and "ラウンド3" in page


def test_the_round_screen_and_its_rows_speak_french(oc: Client, event: Tournament) -> None:
    html = oc.get(manage(event, "manage_round", 3), **FR).content.decode()
    page = unescape(re.sub(r"<[^>]+>", " ", html))
    assert "Table et résultat" in page and "Aller à la table" in page
    assert ">Modifier</a>" in html and 'class="pending">manquant</span>' in html
    assert "Appariements et résultats de la ronde 3" in page
    assert "Edit</a>" not in html and ">missing<" not in html


def test_a_refused_result_and_a_service_refusal_read_in_the_readers_language(
    oc: Client, event: Tournament
) -> None:
    # The quick entry: a table that does not exist, in German.
    url = manage(event, "manage_quick", 3)
    answer = oc.post(url, {"entry": "99 2-1"}, **HX, **DE)
    assert answer.status_code == 422 and "Runde 3 hat keinen Tisch 99." in text(answer)
    # Pairing the next round while results are missing: the service's refusal.
    answer = oc.post(manage(event, "manage_pair"), **HX, **FR)
    assert answer.status_code == 422
    assert "Il manque encore 2 résultat(s) à la ronde 3" in text(answer)


def test_the_match_form_speaks_japanese_and_english_stays(oc: Client, event: Tournament) -> None:
    match = Match.objects.get(round__tournament=event, round__number=3, table=2)
    page = text(oc.get(manage(event, "manage_match", match.pk), **JA))
    assert "引き分けたゲーム" in page and "両者敗北" in page and "閉じる" in page
    page = text(oc.get(manage(event, "manage_match", match.pk), HTTP_ACCEPT_LANGUAGE="en"))
    assert "Drawn games" in page and "Double loss" in page and "Table 2, round 3" in page


def test_the_standings_screen_speaks_french(oc: Client, event: Tournament) -> None:
    page = text(oc.get(manage(event, "manage_standings"), **FR))
    assert "après la ronde" in page and "Télécharger le classement en CSV" in page
