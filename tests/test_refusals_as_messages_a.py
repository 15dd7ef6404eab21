"""The services' refusals are Messages (issue 36): raised untranslated, said in whichever
language is active where they are shown (`str(exc)`), never in the one active where they
were raised. One refusal of each converted module: its code, its English, its Japanese."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.db import transaction
from django.utils import translation

from tournaments.messages import Message
from tournaments.models import Match, MatchKind, Tournament
from tournaments.services import ServiceError
from tournaments.services.clock import start_clock
from tournaments.services.corrections import keep_top_cut
from tournaments.services.language import set_event_language
from tournaments.services.lifecycle import create_tournament, finish
from tournaments.services.players import DuplicateNames, register_players
from tournaments.services.playoff import start_top_cut
from tournaments.services.registration import set_registration
from tournaments.services.results import record_game
from tournaments.services.rounds import pair_next_round
from tournaments.services.writing import Finished, lock

pytestmark = pytest.mark.django_db


def refused(act: Callable[[], Any], kind: type[ServiceError] = ServiceError) -> ServiceError:
    with pytest.raises(kind) as caught:
        act()
    return caught.value


def said(exc: ServiceError, language: str) -> str:
    with translation.override(language):
        return str(exc)


def test_a_refusal_raised_in_french_is_shown_in_german_when_german_is_active(
    playing_event: Tournament,
) -> None:
    """Round 3 has two results missing: refused while a French request was being
    served, the refusal is said in the language of whoever shows it."""
    translation.activate("fr")
    exc = refused(lambda: pair_next_round(tournament=playing_event))
    translation.activate("de")
    assert str(exc) == "In Runde 3 fehlen noch 2 Ergebnis(se): Tragen Sie sie zuerst ein."
    assert said(exc, "fr") == "Il manque encore 2 résultat(s) à la ronde 3 : saisissez-les d'abord."
    assert isinstance(exc.message, Message)
    assert exc.message.code == "rounds.still_missing"
    assert dict(exc.message.params) == {"number": 3, "count": 2}


def _open_match(t: Tournament) -> Match:
    return Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED).first()  # type: ignore[return-value]


# (module, how to be refused by it, the code, English, Japanese). The event is round 3
# being played (conftest's playing_event): tables 2 and 3 without a result.
CASES: list[tuple[str, Callable[[Tournament], Any], str, str, str]] = [
    (
        "registration",
        lambda t: set_registration(
            tournament=t, registration_open=True, cap=0, approval=False, check_in=False
        ),
        "registration.cap_range",
        "The cap is a number of players from 1 to 100000, or empty.",
        "定員は1〜100000人で指定するか、空欄にしてください。",
    ),
    (
        "players",
        lambda t: register_players(tournament=t, names=["Ana Souza"]),
        "players.already_registered",
        "Already registered: Ana Souza. Add it again only for a different person with the "
        "same name.",
        "登録済み: Ana Souza。同じ名前の別人の場合にのみ、もう一度追加してください。",
    ),
    (
        "rounds",
        lambda t: pair_next_round(tournament=t),
        "rounds.still_missing",
        "Round 3 still has 2 result(s) missing: enter them first.",
        "ラウンド3にまだ未入力の結果が2件あります。先に入力してください。",
    ),
    (
        "results",
        lambda t: record_game(match=_open_match(t), places=[1, 2], scores=[3, 1]),
        "results.league_only",
        "Only a league table takes places and scores.",
        "順位と得点を入力できるのはリーグの卓だけです。",
    ),
    (
        "playoff",
        lambda t: start_top_cut(tournament=t, size=3),
        "playoff.cut_size",
        "The top cut is 2, 4 or 8 players.",
        "決勝トーナメントの人数は2、4、8人のいずれかです。",
    ),
    (
        "corrections",
        lambda t: keep_top_cut(tournament=t),
        "corrections.no_cut",
        "There is no top cut in progress to check.",
        "確認する進行中の決勝トーナメントはありません。",
    ),
    (
        "lifecycle",
        lambda t: create_tournament(name="  "),
        "lifecycle.needs_name",
        "The tournament needs a name.",
        "大会名が必要です。",
    ),
    (
        "clock",
        lambda t: start_clock(round=t.rounds.get(number=3), minutes=0),
        "clock.round_length",
        "A round lasts between 1 and 600 minutes.",
        "ラウンドの長さは1～600分です。",
    ),
    (
        "writing",
        lambda t: _locked_nowhere(),
        "writing.no_event",
        "That event no longer exists.",
        "その大会は存在しません。",
    ),
]


def _locked_nowhere() -> None:
    with transaction.atomic():
        lock(10**9)


@pytest.mark.parametrize(
    ("act", "code", "english", "japanese"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
def test_each_modules_refusal_is_a_message_said_in_english_and_japanese(
    playing_event: Tournament,
    act: Callable[[Tournament], Any],
    code: str,
    english: str,
    japanese: str,
) -> None:
    translation.activate("ja")  # where it is raised does not matter
    exc = refused(lambda: act(playing_event))
    assert isinstance(exc.message, Message)
    assert exc.message.code == code
    assert said(exc, "en") == english
    assert said(exc, "ja") == japanese


def test_the_language_services_refusal_names_the_languages_shipped(
    playing_event: Tournament,
) -> None:
    exc = refused(lambda: set_event_language(tournament=playing_event, language="xx"))
    known = ", ".join(sorted(code for code, _name in settings.LANGUAGES))
    assert isinstance(exc.message, Message)
    assert exc.message.code == "language.not_spoken"
    assert said(exc, "en") == f"'xx' is not a language these pages speak: pick one of {known}."
    assert said(exc, "ja") == f"'xx' はこのページの言語ではありません。{known} から選んでください。"


def test_a_finished_event_refuses_every_write_with_finished_said_where_shown(
    event: Tournament,
) -> None:
    finish(tournament=event)
    translation.activate("fr")
    exc = refused(lambda: register_players(tournament=event, names=["Zoe Kim"]), Finished)
    assert isinstance(exc.message, Message)
    assert exc.message.code == "writing.finished"
    assert said(exc, "en") == (
        "The tournament is finished: its owner can reopen it to change anything."
    )
    assert said(exc, "ja") == (
        "大会は終了しています。変更するには主催者が大会を再開する必要があります。"
    )


def test_duplicate_names_is_one_message_of_its_parts_in_each_language(
    playing_event: Tournament,
) -> None:
    """Both parts (a name taken, two look-alikes) in one refusal, as before: the parts and
    the pairs joined the same way in every language."""
    exc = refused(
        lambda: register_players(
            tournament=playing_event, names=["Ana Souza", "\u0410na Souza", "Cle\u043e Park"]
        ),
        DuplicateNames,
    )
    assert exc.message.code == "players.sentences"  # type: ignore[union-attr]
    assert said(exc, "en") == (
        "Already registered: Ana Souza. Add it again only for a different person with the "
        "same name. \u0410na Souza looks like Ana Souza; Cle\u043e Park looks like Cleo Park "
        "(different letters that print alike). Add them only if that is right."
    )
    assert said(exc, "ja") == (
        "登録済み: Ana Souza。同じ名前の別人の場合にのみ、もう一度追加してください。 "
        "\u0410na SouzaはAna Souzaに似ています; Cle\u043e ParkはCleo Parkに似ています"
        "（見た目が同じ別の文字）。正しい場合にのみ追加してください。"
    )
