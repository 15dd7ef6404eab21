"""The round screen for 1,000+ tables: compact rows, quick entry by keyboard, the missing
results only, jump to a table, find a player; every refusal beside what caused it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.test import Client

from tournaments import services
from tournaments.models import Match, MatchKind, Round, Tournament

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
ROW = re.compile(r'<tr id="match-(\d+)" class="(open|done)"')


@pytest.fixture
def paired(owner: User) -> Tournament:
    t = services.create_tournament(name="Big Friday", owner=owner, seed=11)
    services.register_players(
        tournament=t, names=[f"Player {i:03d}" for i in range(1, 22)] + ["Zoë d'Arc <b>"]
    )
    services.pair_next_round(tournament=t)
    return t


def screen(t: Tournament, tail: str = "") -> str:
    return f"/t/{t.slug}/manage/rounds/1/{tail}"


def at(t: Tournament, table: int) -> Match:
    return Match.objects.get(round__tournament=t, round__number=1, table=table)


def body(response: Any) -> str:
    return response.content.decode()


def version(t: Tournament) -> int:
    return Tournament.objects.get(pk=t.pk).version


def test_the_round_screen_shows_one_compact_row_per_table(oc: Client, paired: Tournament) -> None:
    page = body(oc.get(screen(paired)))
    rows = ROW.findall(page)
    assert len(rows) == Match.objects.filter(round__tournament=paired).count() == 11
    assert 'id="quick-entry"' in page and "autofocus" in page
    # Names are escaped, and nothing per row but the row: no form, no button.
    assert "Zoë d&#x27;Arc &lt;b&gt;" in page and "<b>" not in page.split("<tbody")[1]
    assert page.split("<tbody")[1].split("</tbody>")[0].count("<form") == 0


def test_the_round_screen_for_htmx_is_its_panel(oc: Client, paired: Tournament) -> None:
    response = oc.get(screen(paired), **HX)
    page = body(response)
    assert response.status_code == 200 and "<html" not in page
    assert page.lstrip().startswith('<section id="rounds-panel"')


def test_a_row_costs_well_under_300_bytes(oc: Client, paired: Tournament) -> None:
    page = body(oc.get(screen(paired)))
    tbody = page.split('hx-push-url="false">')[1].split("</tbody>")[0]
    assert len(tbody.encode()) / 11 < 300


def test_quick_entry_records_the_result_and_answers_with_the_row_and_an_empty_field(
    oc: Client, paired: Tournament
) -> None:
    m = at(paired, 3)
    response = oc.post(screen(paired, "quick/"), {"entry": "3 2-1"}, **HX)
    page = body(response)
    assert response.status_code == 200
    m.refresh_from_db()
    seats = list(m.seats.order_by("position"))
    assert m.reported and [s.games_won for s in seats] == [2, 1]
    assert page.lstrip().startswith('<form id="quick"')
    assert 'name="entry" value=""' in page and "autofocus" in page
    assert f"Table 3: {seats[0].player.name} 2-1 {seats[1].player.name}" in page
    assert f'<tr id="match-{m.pk}" class="done" data-won="a" hx-swap-oob="true">' in page
    assert 'id="missing"' in page and "10</strong> results still missing" in page


@pytest.mark.parametrize(
    ("typed", "wins", "draws", "kind"),
    [
        ("4 d", [0, 0], 3, MatchKind.PLAYED),
        ("4 2-0-1", [2, 0], 1, MatchKind.PLAYED),
        ("4 1-1", [1, 1], 0, MatchKind.PLAYED),
        ("4 dl", [0, 0], 0, MatchKind.DOUBLE_LOSS),
    ],
)
def test_quick_entry_takes_draws_drawn_games_and_double_losses(
    oc: Client, paired: Tournament, typed: str, wins: list[int], draws: int, kind: str
) -> None:
    oc.post(screen(paired, "quick/"), {"entry": typed}, **HX)
    m = at(paired, 4)
    assert m.reported and m.kind == kind and m.draws == draws
    assert [s.games_won for s in m.seats.order_by("position")] == wins


def test_quick_entry_clears_a_result(oc: Client, paired: Tournament) -> None:
    services.record_result(match=at(paired, 5), wins=(2, 0))
    oc.post(screen(paired, "quick/"), {"entry": "5 clear"}, **HX)
    assert not at(paired, 5).reported


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("3 3-0", "Table 3: "),
        ("99 2-1", "Round 1 has no table 99."),
        ("3 two-one", "Table 3: &quot;two-one&quot; is not a result"),
        ("", "Type a table number and a result"),
        ("3", "Table 3: add its result"),
    ],
)
@pytest.mark.parametrize("extra", [{}, HX])
def test_a_refused_quick_entry_says_why_beside_the_field_and_keeps_what_was_typed(
    oc: Client, paired: Tournament, typed: str, message: str, extra: dict[str, str]
) -> None:
    before = version(paired)
    response = oc.post(screen(paired, "quick/"), {"entry": typed}, **extra)
    page = body(response)
    assert response.status_code == 422
    form = page.split('<form id="quick"')[1].split("</form>")[0]
    assert message in form and 'role="alert"' in form and 'aria-invalid="true"' in form
    assert f'name="entry" value="{typed}"' in form
    assert version(paired) == before
    if extra:
        assert "<html" not in page


def test_a_plain_quick_entry_goes_back_to_the_round_screen_with_what_was_saved(
    oc: Client, paired: Tournament
) -> None:
    m = at(paired, 2)
    response = oc.post(screen(paired, "quick/") + "?missing=1", {"entry": "2 0-2"})
    assert response.status_code == 302
    assert response["Location"] == screen(paired) + f"?missing=1#match-{m.pk}"
    notes = [str(n) for n in get_messages(response.wsgi_request)]
    assert notes and notes[0].startswith("Table 2: ")
    assert at(paired, 2).reported


def test_a_bye_has_nothing_to_enter_by_quick_entry(oc: Client, owner: User) -> None:
    t = services.create_tournament(name="Odd", owner=owner, seed=3)
    services.register_players(tournament=t, names=["A", "B", "C"])
    services.pair_next_round(tournament=t)
    bye = Match.objects.get(round__tournament=t, kind=MatchKind.BYE)
    response = oc.post(
        f"/t/{t.slug}/manage/rounds/1/quick/", {"entry": f"{bye.table or 2} 2-0"}, **HX
    )
    assert response.status_code == 422


def test_the_missing_only_filter_shows_the_tables_without_a_result(
    oc: Client, paired: Tournament
) -> None:
    for table in (1, 2, 3):
        services.record_result(match=at(paired, table), wins=(2, 0))
    for extra in ({}, HX):
        page = body(oc.get(screen(paired) + "?missing=1", **extra))
        rows = ROW.findall(page)
        assert len(rows) == 8 and {state for _, state in rows} == {"open"}
        assert "8 of 11 tables shown" in page


def test_find_a_player_shows_their_table(oc: Client, paired: Tournament) -> None:
    m = Match.objects.get(round__tournament=paired, seats__player__name="Player 007")
    for extra in ({}, HX):
        page = body(oc.get(screen(paired) + "?find=player 007", **extra))
        assert [int(pk) for pk, _ in ROW.findall(page)] == [m.pk]


def test_jump_to_a_table_opens_its_form_in_place_or_on_its_own_screen(
    oc: Client, paired: Tournament
) -> None:
    m = at(paired, 7)
    plain = oc.get(screen(paired, "table/") + "?table=7")
    assert (
        plain.status_code == 302 and plain["Location"] == f"/t/{paired.slug}/manage/matches/{m.pk}/"
    )
    page = body(oc.get(plain["Location"]))
    assert "Table 7, round 1" in page and 'name="wins_a"' in page
    hx = body(oc.get(screen(paired, "table/") + "?table=7", **HX))
    assert f'<tr id="match-{m.pk}" class="edit" hx-swap-oob="true">' in hx
    assert "autofocus" in hx and "<html" not in hx


@pytest.mark.parametrize("extra", [{}, HX])
def test_jump_to_a_table_that_is_not_there_says_so(
    oc: Client, paired: Tournament, extra: dict[str, str]
) -> None:
    response = oc.get(screen(paired, "table/") + "?table=77", **extra)
    assert response.status_code == 422 and "Round 1 has no table 77." in body(response)


def test_a_match_row_closes_back_to_its_compact_row(oc: Client, paired: Tournament) -> None:
    m = at(paired, 1)
    url = f"/t/{paired.slug}/manage/matches/{m.pk}/row/"
    assert body(oc.get(url, **HX)).startswith(f'<tr id="match-{m.pk}" class="open"')
    plain = oc.get(url)
    assert plain.status_code == 302 and plain["Location"].endswith(f"rounds/1/#match-{m.pk}")


def test_a_match_form_in_place_for_htmx(oc: Client, paired: Tournament) -> None:
    m = at(paired, 1)
    page = body(oc.get(f"/t/{paired.slug}/manage/matches/{m.pk}/", **HX))
    assert page.startswith(f'<tr id="match-{m.pk}" class="edit"') and "<html" not in page


def test_a_result_typed_wrong_in_a_row_keeps_its_form_open_with_the_message(
    oc: Client, paired: Tournament
) -> None:
    m = at(paired, 6)
    response = oc.post(
        f"/t/{paired.slug}/manage/matches/{m.pk}/result/",
        {"wins_a": "3", "wins_b": "0", "action": "save"},
        **HX,
    )
    page = body(response)
    assert response.status_code == 422
    assert page.startswith(f'<tr id="match-{m.pk}" class="edit refused"')
    assert 'name="wins_a" min="0" max="3" inputmode="numeric" value="3"' in page


def test_the_event_screen_shows_the_same_compact_rows(oc: Client, paired: Tournament) -> None:
    page = body(oc.get(f"/t/{paired.slug}/manage/"))
    assert len(ROW.findall(page)) == 11 and 'id="quick-entry"' in page


def test_the_round_screen_of_a_finished_event_offers_no_entry(
    oc: Client, paired: Tournament
) -> None:
    for m in Match.objects.filter(round__tournament=paired, kind=MatchKind.PLAYED):
        services.record_result(match=m, wins=(2, 0))
    services.finish(tournament=paired)
    page = body(oc.get(screen(paired)))
    assert 'id="quick-entry"' not in page and ">Edit</a>" not in page
    assert Round.objects.filter(tournament=paired).count() == 1


def test_the_to_check_filter_shows_the_tables_whose_players_disagree(
    oc: Client, paired: Tournament
) -> None:
    from tournaments.services import reports

    m = at(paired, 5)
    a, b = (s.player for s in m.seats.order_by("position"))
    reports.report(player=a, match=m, wins_mine=2, wins_theirs=0)
    reports.dispute(player=b, match=m)
    for extra in ({}, HX):
        page = body(oc.get(screen(paired) + "?check=1", **extra))
        assert [int(pk) for pk, _ in ROW.findall(page)] == [m.pk]
        assert "To check (1)" in page and f"{a.name} reported 2-0" in page
    # The organizer's entry settles it: the table leaves the list.
    oc.post(screen(paired, "quick/"), {"entry": "5 0-2"}, **HX)
    page = body(oc.get(screen(paired) + "?check=1"))
    assert ROW.findall(page) == []
