"""A player's private page is their home (issue 25 item 2): on a 390 x 844 phone its
first screen (the viewport's top 844 px, read from the elements' boxes) shows the round,
their table and opponent, their record, points and rank, and the report form; in the top
cut the round they went out in, "Champion", and once the event is over their final place.

Screenshots go to test-artifacts/private-home-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import ARTIFACTS
from tests.helpers import play_swiss, play_to_top_cut_round
from tournaments import services
from tournaments.models import Match, MatchKind, Player, Seat, Tournament
from tournaments.pages.bracket import placings
from tournaments.services.registration import issue_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH, HEIGHT = 390, 844
# Long names: what pushes the form down first on a narrow screen.
NAMES = [
    "Maximiliana Wolfeschlegelstein-Hausenberger", "Bartholomew Featherstonehaugh",
    "Anastasia Papadopoulou-Konstantinidou", "Dev Rao", "Guðrún Sigurðardóttir",
    "Jean-Baptiste de la Rochefoucauld", "Siddharthanarayanaswamy Venkataraghavan", "Li Na",
    "Oluwaseun Adeyemi-Babatunde", "Eva Lund", "Finn Moe", "Gil Ray",
    "Hiroshi Takahashi", "Ingrid Bergström", "Kwame Mensah", "Zoë Ólafsdóttir",
]  # fmt: skip
EVENT_NAME = "Regional Championship Qualifier, Spring Season"
PLAYING = ("[data-round]", "[data-table]", "[data-opponent]")
STANDING = ("[data-record]", "[data-points]", "[data-rank]")
REPORT_FORM = "#report-panel form.report-form"


@pytest.fixture(params=[True, False], ids=["js", "no-js"])
def phone(request: pytest.FixtureRequest, browser: Any, live_server: Any) -> Iterator[Any]:
    context = browser.new_context(
        viewport={"width": WIDTH, "height": HEIGHT},
        device_scale_factor=2,
        is_mobile=True,
        java_script_enabled=request.param,
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.base_url = live_server.url  # type: ignore[attr-defined]
    page.js = request.param  # type: ignore[attr-defined]
    yield page
    context.close()


def club() -> Tournament:
    t = services.create_tournament(name=EVENT_NAME, seed=7, top_cut=8, planned_rounds=3)
    services.register_players(tournament=t, names=NAMES)
    return t


def seated(t: Tournament, number: int) -> Player:
    """A player at the highest-numbered table of round `number`: the longest way down."""
    seat = (
        Seat.objects.filter(match__round__tournament=t, match__round__number=number)
        .select_related("player")
        .order_by("-match__table", "position")
        .first()
    )
    assert seat is not None
    return seat.player


def open_home(phone: Any, player: Player, token: str = "") -> None:
    phone.goto(f"{phone.base_url}/p/{token or issue_link(player=player)}/")


def on_first_screen(phone: Any, *selectors: str) -> None:
    for selector in selectors:
        element = phone.locator(selector).first
        assert element.is_visible(), selector
        box = element.bounding_box()
        assert box is not None and box["y"] >= 0, selector
        assert box["y"] + box["height"] <= HEIGHT, (selector, box)


def no_page_scroll_sideways(phone: Any) -> None:
    assert phone.evaluate("document.scrollingElement.scrollWidth") <= WIDTH


def shot(phone: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    suffix = "" if phone.js else "-no-js"
    phone.screenshot(path=str(ARTIFACTS / f"private-home-{name}{suffix}.png"), full_page=True)


def test_at_round_1_the_first_screen_shows_the_round_table_opponent_standing_and_report_form(
    phone: Any,
) -> None:
    t = club()
    services.pair_next_round(tournament=t)
    me = seated(t, 1)
    open_home(phone, me)
    on_first_screen(phone, *PLAYING, *STANDING, REPORT_FORM)
    assert phone.locator("[data-round]").inner_text() == "Round 1"
    assert phone.locator("[data-rank]").inner_text() == "no rank before your first result"
    assert "You are in." not in phone.locator("main").inner_text()
    # "What do I need?" comes after the form, the drop last of all.
    order = phone.evaluate(
        """() => ['#private-status', '#report-panel', '#private-outlook', '#drop-panel']
          .map((s) => document.querySelector(s).getBoundingClientRect().top)"""
    )
    assert order == sorted(order)
    no_page_scroll_sideways(phone)
    shot(phone, "round-1")


def test_at_the_last_swiss_round_the_first_screen_shows_the_record_points_and_rank(
    phone: Any,
) -> None:
    t = club()
    play_swiss(t, 2)
    services.pair_next_round(tournament=t)
    me = seated(t, 3)
    open_home(phone, me)
    on_first_screen(phone, *PLAYING, *STANDING, REPORT_FORM)
    assert phone.locator("[data-round]").inner_text() == "Round 3"
    standing = me.standing
    assert phone.locator("[data-record]").inner_text() == (
        f"{standing.wins}-{standing.losses}-{standing.draws}"
    )
    assert phone.locator("[data-rank]").inner_text() == str(standing.rank)
    # The model behind the figures stays folded away.
    details = phone.locator("#private-outlook details")
    if details.count():
        assert details.first.get_attribute("open") is None
    no_page_scroll_sideways(phone)
    shot(phone, "last-swiss")


def test_a_player_out_in_the_quarterfinal_reads_so_with_their_places_on_the_first_screen(
    phone: Any,
) -> None:
    t = club()
    play_to_top_cut_round(t, 2)  # the semifinals are played: the quarterfinal loser has no table
    qf = Match.objects.filter(round__tournament=t, round__playoff=True).order_by("round__number")
    loser = qf.first().seats.order_by("-games_won").last().player  # type: ignore[union-attr]
    open_home(phone, loser)
    on_first_screen(phone, "[data-round]", "[data-place]", *STANDING, "#report-panel")
    assert phone.locator("[data-place]").inner_text() == "Eliminated in the quarterfinal (5th-8th)"
    no_page_scroll_sideways(phone)
    shot(phone, "eliminated")


def test_the_champion_reads_champion_on_the_first_screen(phone: Any) -> None:
    t = club()
    play_to_top_cut_round(t, 3)
    champion = Player.objects.get(tournament=t, external_id=placings(t)[0]["id"])
    open_home(phone, champion)
    on_first_screen(phone, "[data-round]", "[data-place]", *STANDING, "#report-panel")
    assert phone.locator("[data-place]").inner_text() == "Champion"
    assert phone.locator("[data-round]").inner_text() == "Final"
    shot(phone, "champion")


def test_after_the_event_the_first_screen_shows_the_final_place(phone: Any) -> None:
    t = club()
    play_to_top_cut_round(t, 3)
    last = Player.objects.get(tournament=t, standing__rank=16)
    token = issue_link(player=last)  # a finished event takes no write
    services.finish(tournament=t)
    open_home(phone, last, token)
    on_first_screen(phone, "[data-place]", *STANDING)
    assert phone.locator("[data-place]").inner_text() == "Finished 16th of 16"
    shot(phone, "finished")


def test_the_rank_follows_another_tables_result_without_a_reload(phone: Any) -> None:
    """The live section asks for itself again (polling here: the test server streams
    nothing) and shows the rank another table's result gave."""
    if not phone.js:
        pytest.skip("without JavaScript the page shows what it had when it was loaded")
    t = club()
    play_swiss(t, 1)
    services.pair_next_round(tournament=t)
    me = seated(t, 2)
    open_home(phone, me)
    before = phone.locator("[data-rank]").inner_text()
    assert before == str(me.standing.rank)
    phone.select_option("#report-panel select[name=wins_mine]", "2")  # a report half typed
    mine = Seat.objects.get(player=me, match__round__number=2).match_id
    others = Match.objects.filter(round__tournament=t, round__number=2, kind=MatchKind.PLAYED)
    for match in others.exclude(pk=mine).order_by("table"):
        services.record_result(match=match, wins=(2, 0))
        now = Player.objects.get(pk=me.pk).standing.rank
        if str(now) != before:
            break
    else:
        pytest.fail("no other table's result moved this player's rank")
    phone.locator(f'[data-rank]:text-is("{now}")').wait_for(timeout=10_000)
    assert phone.locator("[data-table]").is_visible()
    # The section swapped itself alone: the report being typed beside it is kept.
    for section in ("#private-status", "#report-panel", "#private-outlook", "#drop-panel"):
        assert phone.locator(section).count() == 1, section
    assert phone.input_value("#report-panel select[name=wins_mine]") == "2"
