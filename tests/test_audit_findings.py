"""What an outside audit broke (issue 16): each test here failed before its fix."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tournaments import services
from tournaments.models import Match, MatchKind, Player, Tournament
from tournaments.parsing import ascii_int
from tournaments.services import ServiceError, import_document

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("value", ["²", "١", "1.5", "-1", "", " 1", "9" * 40, "1e3", "\x00"])
def test_only_ascii_digits_make_a_number(value: str) -> None:
    assert ascii_int(value) is None


def test_ascii_digits_make_a_number() -> None:
    assert (ascii_int("0"), ascii_int("12"), ascii_int("007")) == (0, 12, 7)


@pytest.mark.parametrize("round_", ["%C2%B2", "%D9%A1", "99999999999999999999", "x", "-1"])
def test_a_round_number_that_is_not_ascii_digits_is_not_found(
    client: Client, event: Tournament, round_: str
) -> None:
    assert client.get(f"/t/{event.slug}/pairings/?round={round_}").status_code == 404
    assert (
        client.get(f"/t/{event.slug}/pairings/?round={round_}", HTTP_HX_REQUEST="true").status_code
        == 404
    )


@pytest.mark.parametrize("pid", ["a%00b", "%00", "x" * 300])
def test_a_player_id_no_player_can_have_is_not_found(
    client: Client, event: Tournament, pid: str
) -> None:
    assert client.get(f"/t/{event.slug}/players/{pid}/").status_code == 404


def test_a_player_id_with_a_slash_has_a_page_and_is_linked_from_the_standings(
    client: Client, small_doc: dict
) -> None:
    doc = copy.deepcopy(small_doc)
    doc["players"][0]["id"] = "team/ana"
    for rnd in doc["rounds"]:
        for m in rnd["matches"]:
            m["players"] = ["team/ana" if p == "p1" else p for p in m["players"]]
    t = import_document(doc)
    standings = client.get(f"/t/{t.slug}/standings/").content.decode()
    assert "/players/team%2Fana/" in standings
    page = client.get(f"/t/{t.slug}/players/team%2Fana/")
    assert page.status_code == 200 and "Ana Souza" in page.content.decode()
    # Every opponent's page links back to it without failing.
    for p in Player.objects.filter(tournament=t):
        assert client.get(f"/t/{t.slug}/players/{p.external_id}/").status_code == 200


def test_two_events_with_one_name_get_two_slugs(small_doc: dict) -> None:
    a = import_document(copy.deepcopy(small_doc))
    b = import_document(copy.deepcopy(small_doc))
    assert a.slug != b.slug and b.slug.startswith(a.slug)


def test_a_slug_taken_between_the_check_and_the_insert_takes_the_next_one(
    small_doc: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race of two simultaneous restores, played out in one process."""
    from tournaments.services import lifecycle

    first = import_document(copy.deepcopy(small_doc))
    real_filter = Tournament.objects.filter
    seen: list[str] = []

    def blind(**kwargs: Any) -> Any:
        # The check sees a free slug even though another restore has just taken it.
        if "slug" in kwargs and not seen:
            seen.append(kwargs["slug"])
            return real_filter(slug="-no-such-slug-")
        return real_filter(**kwargs)

    monkeypatch.setattr(Tournament.objects, "filter", blind)
    second = lifecycle.insert_tournament(name=first.name, system="mtr", seed=1)
    assert second.slug != first.slug


def finished_cut(owner: Any) -> Tournament:
    t = services.create_tournament(name="Cut", owner=owner, seed=2, top_cut=4)
    services.register_players(tournament=t, names=[f"P{i}" for i in range(1, 9)])
    for _ in range(2):
        services.pair_next_round(tournament=t)
        for m in Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED, reported=False):
            services.record_result(match=m, wins=(2, 1))
    services.start_top_cut(tournament=t, size=4)
    for m in Match.objects.filter(round__tournament=t, round__playoff=True):
        services.record_result(match=m, wins=(2, 0))
    services.pair_next_round(tournament=t)
    return t


def test_a_semifinal_result_cannot_flip_once_the_final_is_paired(
    django_user_model: type[User],
) -> None:
    t = finished_cut(None)
    semi = Match.objects.filter(round__tournament=t, round__playoff=True).order_by("id")[0]
    with pytest.raises(ServiceError, match="later playoff round"):
        services.record_result(match=semi, wins=(0, 2))
    services.record_result(match=semi, wins=(2, 1))  # the same winner: allowed


def test_a_finished_event_takes_no_result_and_no_drop_until_the_owner_reopens_it(
    django_user_model: type[User],
) -> None:
    owner = django_user_model.objects.create_user("owner")
    t = finished_cut(owner)
    final = Match.objects.filter(round__tournament=t, round__playoff=True).order_by("-id")[0]
    services.record_result(match=final, wins=(2, 0))
    services.finish(tournament=t, by=owner)
    player = Player.objects.filter(tournament=t).first()
    assert player is not None
    with pytest.raises(ServiceError, match="finished"):
        services.record_result(match=final, wins=(0, 2))
    with pytest.raises(ServiceError, match="finished"):
        services.drop_player(player=player)
    services.reopen(tournament=t, by=owner)
    services.drop_player(player=player)
    assert Tournament.objects.get(pk=t.pk).status == "top_cut"


def test_a_restored_top_cut_without_its_size_pairs_its_next_round(
    django_user_model: type[User],
) -> None:
    from tournaments.interchange import export_document

    t = finished_cut(None)
    final = Match.objects.filter(round__tournament=t, round__playoff=True).order_by("-id")[0]
    doc = export_document(t)
    doc["rounds"] = doc["rounds"][:-1]  # back to after the semifinals, no "event" section
    restored = import_document(doc)
    assert restored.status == "top_cut"
    round_ = services.pair_next_round(tournament=restored)
    assert round_.playoff and round_.matches.count() == 1
    assert final.pk


def test_password_reset_is_not_offered_without_a_mail_server(client: Client) -> None:
    assert client.get("/accounts/password_reset/").status_code == 404
    assert client.get("/accounts/login/").status_code == 200


@pytest.mark.parametrize(
    ("wins", "draws", "message"),
    [
        ([99, 99], 99, "nobody wins more than 3 games"),
        ([2, 2], 0, "Both players cannot win"),
        ([3, 0], 4, "at most 6 games"),
    ],
)
def test_an_import_refuses_a_result_no_match_could_produce(
    small_doc: dict, wins: list[int], draws: int, message: str
) -> None:
    from tournaments.interchange import DocumentError

    doc = copy.deepcopy(small_doc)
    doc["rounds"][0]["matches"][0].update(wins=wins, draws=draws)
    with pytest.raises(DocumentError) as refused:
        import_document(doc)
    assert any(
        p.startswith("rounds[0].matches[0].wins:") and message in p for p in refused.value.problems
    ), refused.value.problems


def test_an_import_keeps_what_real_events_recorded_beyond_a_best_of_three(
    small_doc: dict,
) -> None:
    doc = copy.deepcopy(small_doc)
    doc["rounds"][0]["matches"][0].update(wins=[3, 0], draws=0)
    doc["rounds"][1]["matches"][0].update(wins=[2, 1], draws=3)
    assert import_document(doc).pk


def test_an_import_refuses_a_round_nobody_played(small_doc: dict) -> None:
    from tournaments.interchange import DocumentError

    doc = copy.deepcopy(small_doc)
    doc["rounds"].insert(1, {"number": 9, "phase": 1, "matches": []})
    with pytest.raises(DocumentError) as refused:
        import_document(doc)
    assert any(p.startswith("rounds[1].matches:") for p in refused.value.problems)


@pytest.mark.parametrize("charset", ["utf-16", "utf-32", "latin-1"])
def test_a_form_sent_in_another_charset_is_a_bad_request_not_a_crash(
    event: Tournament, charset: str
) -> None:
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    client.get("/accounts/login/")  # the CSRF cookie, as a browser would have it
    token = client.cookies["csrftoken"].value
    response = client.post(
        "/accounts/login/",
        f"csrfmiddlewaretoken={token}&username=a&password=b",
        content_type=f"application/x-www-form-urlencoded; charset={charset}",
    )
    assert response.status_code == 400 and b"UTF-8" in response.content
