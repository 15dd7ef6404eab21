"""The organizer's setup screens (players, registration desk, staff, seating, decklists,
restore, audit log, the QR code page) speak the reader's language (issue 29): each
rendered in French and Japanese with its words translated, and a refusal raised by a
service said in the request's language too."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tournaments.models import Tournament

pytestmark = pytest.mark.django_db
FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}
JA = {"HTTP_ACCEPT_LANGUAGE": "ja"}
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def back_to_english() -> Any:
    """LocaleMiddleware leaves the last request's language active in this thread: a later
    test calling a service directly would read its refusals in Japanese."""
    yield
    translation.deactivate()


@pytest.fixture
def mine(playing_event: Tournament, owner: Any) -> Tournament:
    playing_event.owner = owner
    playing_event.save(update_fields=["owner"])
    return playing_event


# (url name, words the French page says, words the Japanese page says)
SCREENS = [
    (
        "manage_players",
        ["Coller une liste", "Ajouter une inscription tardive"],
        ["リストを貼り付け"],
    ),
    ("manage_registration", ["Liens privés", "Valider chaque inscription"], ["個人用リンク"]),
    ("manage_staff", ["Ajouter à l'équipe", "Nom d'utilisateur"], ["スタッフに追加"]),
    ("manage_seating", ["Places fixes", "Joueurs à ne pas apparier"], ["固定席"]),
    ("manage_decklists", ["Enregistrer les règles"], ["ルールを保存"]),
    ("manage_audit", ["Journal d'audit", "Toutes les rondes", "les plus récentes"], ["監査ログ"]),
    ("manage_share", ["Appariements, votre table et classement"], ["QRコード"]),
]


@pytest.mark.parametrize(("name", "french", "japanese"), SCREENS)
def test_a_setup_screen_reads_in_french_and_japanese(
    oc: Client, mine: Tournament, name: str, french: list[str], japanese: list[str]
) -> None:
    url = reverse(name, args=[mine.slug])
    fr = oc.get(url, **FR)
    assert fr.status_code == 200 and fr["Content-Language"] == "fr"
    body = fr.content.decode()
    for words in french:
        assert words in body, (name, words)
    ja = oc.get(url, **JA).content.decode()
    for words in japanese:
        assert words in ja, (name, words)


def test_the_restore_screen_reads_in_german(oc: Client, mine: Tournament) -> None:
    body = oc.get(reverse("manage_restore"), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Turnier aus einer Sicherung wiederherstellen" in body


def test_a_seating_refusal_is_said_in_the_readers_language(oc: Client, mine: Tournament) -> None:
    url = reverse("manage_seating_fix", args=[mine.slug])
    refused = oc.post(url, {"player": "nobody at all", "table": "3"}, **HX, **FR)
    assert refused.status_code == 422
    assert "Aucun joueur nommé « nobody at all » dans cet événement." in refused.content.decode()
    too_far = oc.post(url, {"player": "", "table": "100001"}, **HX, HTTP_ACCEPT_LANGUAGE="es")
    assert "Indica el nombre o el id de un jugador." in too_far.content.decode()


def test_the_players_count_is_one_message_with_its_plural(oc: Client, mine: Tournament) -> None:
    body = oc.get(reverse("manage_players", args=[mine.slug]), **FR).content.decode()
    assert " actifs" in body or " actif" in body
    english = oc.get(reverse("manage_players", args=[mine.slug])).content.decode()
    assert " active" in english


def test_the_audit_log_reads_as_sentences_in_the_readers_language(
    oc: Client, mine: Tournament, owner: Any
) -> None:
    from tournaments.services.fixed_seats import fix_seat
    from tournaments.services.players import rename_player

    ana = mine.players.get(name="Ana Souza")
    rename_player(player=ana, name="Ana Lima", by=owner)
    fix_seat(tournament=mine, player=ana, table=7, reason="stream", by=owner)
    url = reverse("manage_audit", args=[mine.slug])
    french = oc.get(url, **FR).content.decode()
    assert "renommé en" in french and "fixé à la table 7 (stream)" in french
    assert " par owner à " in french and "Importé depuis un fichier (7 joueurs, 3 rondes)" in french
    japanese = oc.get(url, **JA).content.decode()
    assert "を7卓に固定（stream）" in japanese
    english = oc.get(url).content.decode()
    assert "fixed to table 7 (stream) by owner at " in english


def test_a_refused_backup_names_its_problems_in_the_readers_language(
    oc: Client, mine: Tournament
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    def upload(text: bytes, **headers: str) -> str:
        document = SimpleUploadedFile("backup.json", text, content_type="application/json")
        return oc.post(
            reverse("manage_restore"), {"document": document}, **headers
        ).content.decode()

    assert "document: objet attendu, reçu une liste" in upload(b"[1, 2]", **FR)
    assert "document: expected an object, got a list" in upload(b"[1, 2]")
    assert "name: 空にできません" in upload(
        b'{"format": "swiss-tournament/1", "name": " ", "system": "mtr", "players": []}', **JA
    )
