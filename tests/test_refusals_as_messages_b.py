"""Refusals are raised as Messages (issue 36): a service says nothing when it refuses, the
page says the refusal in its reader's language. For each of reports, decklists, floor,
penalties, calls, staff, fixed_seats, restrictions and push: one refusal, its code, and
its words in English and in Japanese."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.utils import translation

from tests.test_reports import open_event
from tournaments import ratelimit
from tournaments.models import Player, Tournament
from tournaments.services import ServiceError
from tournaments.services.calls import TooManyCalls, call_limit
from tournaments.services.decklists import read_upload
from tournaments.services.fixed_seats import fix_seat
from tournaments.services.floor import add_extension
from tournaments.services.penalties import issue_penalty
from tournaments.services.push import SubscriptionRefused, check_subscription
from tournaments.services.reports import _player_writing
from tournaments.services.restrictions import restrict_pairing
from tournaments.services.staff import create_account


def refused(act: Callable[[], object]) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        act()
    return caught.value


def test_a_refusal_raised_in_french_is_shown_in_german() -> None:
    with translation.override("fr"):
        exc = refused(lambda: add_extension(tournament=1, table=4, minutes=999, by=None))
    with translation.override("de"):
        assert str(exc) == "Füge einem Tisch jeweils 1 bis 60 Minuten hinzu."
    assert str(exc) == "Add between 1 and 60 minutes to a table at a time."


def _finished_event_refusal() -> None:
    t = open_event()
    Tournament.objects.filter(pk=t.pk).update(status="finished")
    with _player_writing(t.pk):
        pass


def _too_many_calls() -> None:
    player = Player(pk=1, name="Ana")
    raise TooManyCalls(ratelimit.Refused(call_limit(player), 150))


ANA = Player(pk=1, name="Ana", tournament_id=1)

# (the refusal, its code, its English, its Japanese)
CASES: list[tuple[str, Callable[[], object], str, str, str]] = [
    (
        "reports",
        _finished_event_refusal,
        "reports.event_finished",
        "The event is finished: reports are closed. See the organizer.",
        "大会は終了しました。報告は締め切られています。主催者に相談してください。",
    ),
    (
        "decklists",
        lambda: read_upload(name="deck.pdf", data=b"4 Island"),
        "decklists.not_a_file",
        "'deck.pdf' is not a decklist file: choose a .txt (text) or .dek (MTGO) file.",
        "'deck.pdf' はデッキリストのファイルではありません：.txt（テキスト）または .dek"
        "（MTGO）ファイルを選んでください。",
    ),
    (
        "floor",
        lambda: add_extension(tournament=1, table=4, minutes=0, by=None),
        "floor.minutes",
        "Add between 1 and 60 minutes to a table at a time.",
        "1 回に卓へ追加できるのは 1〜60 分です。",
    ),
    (
        "penalties",
        lambda: issue_penalty(
            tournament=Tournament(pk=1), player=1, infraction="nope", penalty=None, by=None
        ),
        "penalties.not_an_infraction",
        "'nope' is not an infraction of the Infraction Procedure Guide: pick one from the list.",
        "'nope' は違反処置指針の違反ではありません：一覧から選んでください。",
    ),
    (
        "calls",
        _too_many_calls,
        "calls.too_many",
        "Too many judge calls from this link (at most 5 in 10 minutes): wait 3 minutes, "
        "then call again, or find a judge on the floor.",
        "このリンクからのジャッジ呼び出しが多すぎます（10分間に最大5回）。3分待ってから"
        "もう一度呼ぶか、会場内でジャッジを探してください。",
    ),
    (
        "staff",
        lambda: create_account(username="  "),
        "staff.no_username",
        "Give a username for the new account.",
        "新しいアカウントのユーザー名を入力してください。",
    ),
    (
        "fixed_seats",
        lambda: fix_seat(tournament=Tournament(pk=1), player=ANA, table=4, reason="x" * 101),
        "seats.reason_too_long",
        "The reason has at most 100 characters.",
        "理由は100文字以内です。",
    ),
    (
        "restrictions",
        lambda: restrict_pairing(tournament=Tournament(pk=1), player_a=ANA, player_b=ANA),
        "restrictions.twice",
        "Choose two different players: Ana was given twice.",
        "異なる二人のプレイヤーを選んでください: Anaが2回指定されています。",
    ),
    (
        "push",
        lambda: check_subscription(["not", "an", "object"]),
        "push.not_an_object",
        "The subscription is not a JSON object.",
        "購読データが JSON オブジェクトではありません。",
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("module", "act", "code", "english", "japanese"), CASES, ids=[c[0] for c in CASES]
)
def test_each_modules_refusal_is_a_message_said_where_it_is_shown(
    module: str, act: Callable[[], object], code: str, english: str, japanese: str
) -> None:
    with translation.override("ja"):
        exc = refused(act)
    assert exc.message.code == code
    with translation.override("en"):
        assert str(exc) == english
    with translation.override("ja"):
        assert str(exc) == japanese
    if module == "push":
        assert isinstance(exc, SubscriptionRefused)
    if module == "calls":
        assert isinstance(exc, TooManyCalls) and exc.message.count == 3
