"""Languages on the pages players and registering people read outside the public pages
(issue 29): the private page (round, report panel, drop, link, judge call), the
registration form and its refusals, the refusals a player's report or call gets, the
judges' calls screen, and login. The English pages are tested where they live; here, that
the same pages speak French, German, Spanish, Italian, Portuguese and Japanese."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import translation

from tests.helpers import play_swiss
from tournaments import services
from tournaments.models import Tournament
from tournaments.rules import RoundName
from tournaments.services import calls
from tournaments.services import registration as reg
from tournaments.services.registration import issue_link
from tournaments.templatetags.tourney import round_name

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def words(response: Any) -> str:
    """The response's text, tags and spaces collapsed."""
    page = response.content.decode()
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def in_round_two(owner: User) -> tuple[Tournament, str, str]:
    """Eight players in round 2 (round 1 played); the raw links of table 1's players."""
    t = services.create_tournament(name="Club Night", seed=7, owner=owner)
    services.register_players(tournament=t, names=[f"Player {k}" for k in range(8)])
    play_swiss(t, 1)
    services.pair_next_round(tournament=t)
    seats = list(t.rounds.get(number=2).seats.filter(match__table=1).select_related("player"))
    first, second = (issue_link(player=s.player) for s in seats)
    return t, first, second


def lang(code: str) -> dict[str, str]:
    return {"HTTP_ACCEPT_LANGUAGE": code}


def test_the_private_page_speaks_the_players_language(client: Client, owner: User) -> None:
    _t, token, _other = in_round_two(owner)
    fr = words(client.get(f"/p/{token}/", **lang("fr")))
    for said in ("Votre résultat · Ronde 2, table 1", "combien de manches", "Déclarer",
                 "Appeler un arbitre", "Abandonner après cette ronde", "Votre lien personnel",
                 "Table 1", "Actualiser"):  # fmt: skip
        assert said in fr, said
    assert "Your result" not in fr and "Call a judge" not in fr
    ja = words(client.get(f"/p/{token}/", **lang("ja")))
    for said in ("あなたの結果", "ジャッジを呼ぶ", "このラウンド後にドロップ", "1卓"):
        assert said in ja, said
    en = words(client.get(f"/p/{token}/", **lang("en")))
    assert "Your result · Round 2, table 1" in en and "Call a judge" in en


def test_a_report_its_confirmation_and_the_opponents_notice_in_german(
    client: Client, owner: User
) -> None:
    _t, mine, theirs = in_round_two(owner)
    page = client.get(f"/p/{mine}/report/panel/", **HX, **lang("de"))
    match = re.search(r'name="match" value="(\d+)"', page.content.decode())
    seen = re.search(r'name="seen" value="([^"]+)"', page.content.decode())
    assert match and seen
    data = {"match": match[1], "seen": seen[1], "wins_mine": "2", "wins_theirs": "1"}
    done = client.post(f"/p/{mine}/report/", data, **HX, **lang("de"))
    assert done.status_code == 200
    said = words(done)
    assert "Ihre Meldung ist eingegangen." in said
    assert "Sie haben gemeldet: Sie haben 2-1 gewonnen" in said
    other = words(client.get(f"/p/{theirs}/", **lang("de")))
    assert "hat Ihr Match gemeldet: Sie haben 1-2 verloren." in other
    assert "Bestätigen" in other and "Widersprechen" in other


def test_a_stale_report_is_refused_in_spanish(client: Client, owner: User) -> None:
    _t, mine, _theirs = in_round_two(owner)
    page = client.get(f"/p/{mine}/report/panel/", **HX, **lang("es")).content.decode()
    match = re.search(r'name="match" value="(\d+)"', page)
    assert match
    data = {"match": match[1], "seen": "stale", "wins_mine": "2", "wins_theirs": "0"}
    refused = client.post(f"/p/{mine}/report/", data, **HX, **lang("es"))
    assert refused.status_code == 422
    assert "Esta partida ha cambiado desde que se cargó tu página" in words(refused)


def test_a_judge_call_and_its_second_tap_in_italian(client: Client, owner: User) -> None:
    _t, mine, _theirs = in_round_two(owner)
    first = client.post(f"/p/{mine}/call/", {"note": "trigger"}, **HX, **lang("it"))
    assert first.status_code == 200
    said = words(first)
    assert "In attesa di un giudice (tavolo 1)" in said and "Resta al tuo tavolo." in said
    again = client.post(f"/p/{mine}/call/", {"note": ""}, **HX, **lang("it"))
    assert "Un giudice è già stato chiamato per il tuo tavolo (da te)" in words(again)
    assert "in attesa di un giudice (tavolo 1)" in words(again)


def test_the_judges_screen_in_portuguese(oc: Client, owner: User) -> None:
    t, mine, _theirs = in_round_two(owner)
    player = reg.Player.objects.get(tournament=t, token_hash=reg.token_hash(mine))
    calls.call_judge(player=player, note="")
    said = words(oc.get(f"/t/{t.slug}/judge/", **lang("pt")))
    for text in ("Chamados de juiz", "Chamados abertos", "Mesa 1", "Assumir", "Aguardando um juiz"):
        assert text in said, text
    assert "Rodada 2" in said


def test_the_registration_form_and_a_namesake_refusal_in_french(
    client: Client, owner: User
) -> None:
    t = services.create_tournament(name="Grand Prix Lyon", owner=owner, seed=3)
    reg.set_registration(
        tournament=t, registration_open=True, cap=10, approval=False, check_in=True, by=owner
    )
    url = f"/t/{t.slug}/register/"
    form = words(client.get(url, **lang("fr")))
    assert "S'inscrire à Grand Prix Lyon" in form and "10 places restantes." in form
    assert "Votre nom" in form
    client.post(url, {"name": "Alex Martin"}, **lang("fr"))
    twin = client.post(url, {"name": "Alex Martin"}, **HX, **lang("fr"))
    assert twin.status_code == 422
    said = words(twin)
    assert "Alex Martin est déjà inscrit : si c'est vous" in said
    assert "Comment vous distinguer ?" in said


def test_a_services_refusal_speaks_the_active_language(owner: User) -> None:
    t = services.create_tournament(name="Open", owner=owner, seed=1)
    with translation.override("en"), pytest.raises(reg.ServiceError, match=r"^This event does"):
        reg.drop_no_shows(tournament=t, by=owner)
    with translation.override("it"), pytest.raises(reg.ServiceError, match=r"^Questo evento"):
        reg.drop_no_shows(tournament=t, by=owner)


def test_the_login_page_in_japanese(client: Client) -> None:
    said = words(client.get("/accounts/login/", **lang("ja")))
    assert "ユーザー名" in said and "パスワード" in said and "ログイン" in said


def test_a_judge_calls_audit_sentences_name_the_caller_in_each_language() -> None:
    from tournaments.pages.audit_parts import Context, Mention, Record
    from tournaments.pages.call_audit import call_sentence

    called = Record(
        action="call", summary="", round=3, table=12,
        after={"event": "called", "round": 3, "table": 12, "note": "missed trigger",
               "player": "Ana Souza", "player_id": "p1"},
    )  # fmt: skip
    resolved = Record(
        action="call", summary="", round=5, table=1, by="head",
        after={"event": "resolved", "round": 5, "table": 1, "resolution": "",
               "player": "Ana Souza", "player_id": "p1"},
    )  # fmt: skip

    def cut() -> Context:
        # The log's context holds the playoff rounds' names said in the reader's language.
        return Context(playoff_rounds={5: round_name(RoundName.playoff(1, 5))})

    def said(record: Record, ctx: Context) -> tuple[str, list[Mention]]:
        parts = call_sentence(record, ctx)
        text = "".join(p if isinstance(p, str) else p.name for p in parts)
        return text, [p for p in parts if isinstance(p, Mention)]

    with translation.override("en"):
        assert said(called, Context())[0] == (
            "Table 12, round 3: Ana Souza called a judge: 'missed trigger'"
        )
        assert said(resolved, cut())[0] == "Table 1, Final: Ana Souza's call resolved by head"
    with translation.override("fr"):
        text, mentions = said(called, Context())
        assert text == "Table 12, ronde 3 : Ana Souza a appelé un arbitre : « missed trigger »"
        assert mentions == [Mention("Ana Souza", "p1")]
        assert said(resolved, cut())[0] == "Table 1, Finale : appel de Ana Souza résolu par head"
    with translation.override("ja"):
        assert said(called, Context())[0].startswith("12卓、ラウンド3：Ana Souza がジャッジを")


def test_places_are_written_as_each_language_writes_them() -> None:
    from tournaments.pages.reports import cut_places, place_words

    written = {"en": "3rd", "fr": "3e", "de": "3.", "es": "3.º", "ja": "3位"}
    for code, place in written.items():
        with translation.override(code):
            assert place_words(3) == place
    with translation.override("en"):
        assert cut_places(4) == "5th-8th" and cut_places(1) == "2nd"
    with translation.override("de"):
        assert cut_places(4) == "5.-8."
