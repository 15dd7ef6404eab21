"""The phone layout (issue 13 item 3) at 390 x 844 and 360 x 740: a header that leaves the
screen to the page, the player's own card first, a top-cut bracket that fits.

Screenshots go to test-artifacts/phone-layout-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import ARTIFACTS
from tournaments import services
from tournaments.models import Match, MatchKind, Player, Round, Seat, Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONES = {"390x844": (390, 844), "360x740": (360, 740)}
# Long names, unbreakable words and accents: what clips first on a narrow screen.
NAMES = [
    "Maximiliana Wolfeschlegelstein-Hausenberger", "Bartholomew Featherstonehaugh",
    "Anastasia Papadopoulou-Konstantinidou", "Dev Rao", "Guðrún Sigurðardóttir",
    "Jean-Baptiste de la Rochefoucauld", "Siddharthanarayanaswamy Venkataraghavan", "Li Na",
    "Oluwaseun Adeyemi-Babatunde", "Eva Lund", "Finn Moe", "Gil Ray",
    "Hiroshi Takahashi", "Ingrid Bergström", "Kwame Mensah", "Zoë Ólafsdóttir",
]  # fmt: skip
EVENT_NAME = "Regional Championship Qualifier, Spring Season"

# Elements reaching past the right edge of the screen, except inside a box that scrolls
# or clips sideways on its own (the header's links): those make the page scroll sideways.
# The width is the phone's, not innerWidth: a mobile browser widens its layout viewport
# (and innerWidth with it) to whatever the page needs, zooming the page out.
WIDER_THAN_SCREEN = """(width) => {
  const inBox = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== "visible") return true;
    }
    return false;
  };
  return [...document.body.querySelectorAll("*")]
    .filter((el) => el.getBoundingClientRect().right > width + 0.5 && !inBox(el))
    .map((el) => el.tagName + "." + el.className + ": " + el.textContent.trim().slice(0, 40));
}"""


@pytest.fixture(params=list(PHONES), ids=list(PHONES))
def phone(request: pytest.FixtureRequest, browser: Any, live_server: Any) -> Iterator[Any]:
    width, height = PHONES[request.param]
    context = browser.new_context(
        viewport={"width": width, "height": height}, device_scale_factor=2, is_mobile=True
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.base_url = live_server.url  # type: ignore[attr-defined]
    page.size_name = request.param  # type: ignore[attr-defined]
    yield page
    context.close()


def play_swiss_round(t: Tournament) -> None:
    services.pair_next_round(tournament=t)
    for m in Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED, reported=False):
        services.record_result(match=m, wins=(2, 1))


@pytest.fixture
def open_round() -> Tournament:
    """Round 2 of 16 players being played, its clock running, no result in yet."""
    t = services.create_tournament(name=EVENT_NAME, seed=7, top_cut=8)
    services.register_players(tournament=t, names=NAMES)
    play_swiss_round(t)
    services.pair_next_round(tournament=t)
    services.start_clock(round=Round.objects.get(tournament=t, number=2), minutes=50)
    return Tournament.objects.get(pk=t.pk)


@pytest.fixture
def top_eight() -> Tournament:
    """Three Swiss rounds, a top 8: quarterfinals played, semifinals paired."""
    t = services.create_tournament(name=EVENT_NAME, seed=7, top_cut=8)
    services.register_players(tournament=t, names=NAMES)
    for _ in range(3):
        play_swiss_round(t)
    services.start_top_cut(tournament=t, size=8)
    for m in Match.objects.filter(round__tournament=t, round__playoff=True):
        services.record_result(match=m, wins=(2, 0))
    services.pair_next_round(tournament=t)
    return Tournament.objects.get(pk=t.pk)


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"phone-layout-{name}-{page.size_name}.png"
    page.screenshot(path=str(path), full_page=True)


def no_page_scroll_sideways(page: Any) -> None:
    width = page.viewport_size["width"]
    assert page.evaluate(WIDER_THAN_SCREEN, width) == []
    assert page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]") == [width, width]


def second_seat(t: Tournament, number: int) -> tuple[Seat, Seat]:
    """The first and second seats of a played match of round `number`, by table."""
    match = (
        Match.objects.filter(round__tournament=t, round__number=number, kind=MatchKind.PLAYED)
        .order_by("table")
        .first()
    )
    assert match is not None
    first, second = match.seats.select_related("player").order_by("position")
    return first, second


@pytest.mark.parametrize(
    "path",
    ["", "pairings/", "pairings/?by=name", "standings/", "players/{pid}/", "bracket/"],
    ids=["home", "pairings", "find-me", "standings", "player", "bracket"],
)
def test_the_header_takes_at_most_a_fifth_of_the_screen_on_every_public_page(
    phone: Any, top_eight: Tournament, path: str
) -> None:
    pid = Player.objects.filter(tournament=top_eight).order_by("pk")[0].external_id
    phone.goto(f"{phone.base_url}/t/{top_eight.slug}/{path.format(pid=pid)}")
    header = phone.locator("header.site").bounding_box()
    viewport = phone.viewport_size
    assert header["height"] <= 0.2 * viewport["height"], header
    assert header["width"] <= viewport["width"]
    # Every link of the header can be reached: the event's links scroll inside their nav.
    for link in phone.locator("header.site nav a").all():
        link.scroll_into_view_if_needed()
        box = link.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"] + 0.5
    no_page_scroll_sideways(phone)
    shot(phone, path.split("/")[0].split("?")[0] or "home")


def test_the_event_home_shows_event_round_and_clock_at_the_top_of_the_screen(
    phone: Any, open_round: Tournament
) -> None:
    phone.goto(f"{phone.base_url}/t/{open_round.slug}/")
    height = phone.viewport_size["height"]
    now = phone.locator("#event-home .now")
    assert "Round 2" in now.inner_text() and now.locator(".clock-time").is_visible()
    assert now.bounding_box()["y"] + now.bounding_box()["height"] <= 0.4 * height
    no_page_scroll_sideways(phone)
    shot(phone, "home-clock")


def test_the_pairings_fit_the_screen_by_table_and_by_name(
    phone: Any, open_round: Tournament
) -> None:
    for query, rows in (("", 8), ("?by=name", 16)):
        phone.goto(f"{phone.base_url}/t/{open_round.slug}/pairings/{query}")
        assert phone.locator("#pairings tbody tr").count() == rows
        no_page_scroll_sideways(phone)
    shot(phone, "pairings-by-name")


def test_the_card_shows_my_table_opponent_and_then_my_result_from_my_side(
    phone: Any, open_round: Tournament
) -> None:
    first, second = second_seat(open_round, 2)
    table = first.match.table
    phone.goto(f"{phone.base_url}/t/{open_round.slug}/players/{second.player.external_id}/")
    card = phone.locator("#player [data-card]")
    assert card.get_attribute("data-card") == "table"
    assert card.locator(".card-table").inner_text() == f"Table {table}"
    assert card.locator(".card-opponent a").inner_text() == first.player.name
    assert "Result not in yet" in card.inner_text()
    assert card.locator(".card-round").inner_text() == "Round 2"
    assert card.locator(".clock-time").is_visible()
    # The card is the first thing under the player's name, in full on the first screen.
    box = card.bounding_box()
    assert box["y"] + box["height"] <= phone.viewport_size["height"]
    no_page_scroll_sideways(phone)
    shot(phone, "card-playing")

    # The first seat wins 2-1: this player's phone reads "loss 1-2" on its next poll.
    services.record_result(match=first.match, wins=(2, 1))
    result = card.locator(".card-result")
    result.and_(phone.locator('[data-result="loss 1-2"]')).wait_for(timeout=10_000)
    assert result.inner_text().lower() == "loss 1-2"
    assert card.locator(".card-table").inner_text() == f"Table {table}"
    shot(phone, "card-result")


def test_the_top_eight_bracket_fits_the_screen_with_every_name_in_full(
    phone: Any, top_eight: Tournament
) -> None:
    phone.goto(f"{phone.base_url}/t/{top_eight.slug}/bracket/")
    names = phone.locator("#bracket .bracket-name")
    assert names.count() == 8 + 4  # the quarterfinals and the paired semifinals
    no_page_scroll_sideways(phone)
    width = phone.viewport_size["width"]
    clipped = phone.evaluate(
        """(width) => [...document.querySelectorAll('#bracket .bracket-name')]
          .filter((a) => { const r = a.getBoundingClientRect();
            return a.scrollWidth > a.clientWidth || r.left < 0 || r.right > width; })
          .map((a) => a.textContent)""",
        width,
    )
    assert clipped == []
    shown = {names.nth(i).inner_text() for i in range(names.count())}
    seeded = set(
        Seat.objects.filter(round__tournament=top_eight, round__playoff=True).values_list(
            "player__name", flat=True
        )
    )
    assert shown == seeded
    shot(phone, "bracket")


def test_the_owners_header_on_a_phone_stays_one_short_line_with_every_link_reachable(
    phone: Any, top_eight: Tournament, django_user_model: Any
) -> None:
    from django.test import Client

    owner = django_user_model.objects.create_user("maximiliana-organizer", password="x")
    Tournament.objects.filter(pk=top_eight.pk).update(owner=owner)
    client = Client()
    client.force_login(owner)
    phone.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": phone.base_url}]
    )
    phone.goto(f"{phone.base_url}/t/{top_eight.slug}/standings/")
    header = phone.locator("header.site")
    assert "Manage" in header.locator("nav").inner_text()
    assert header.bounding_box()["height"] <= 0.2 * phone.viewport_size["height"]
    logout = header.locator("form button")
    assert logout.is_visible()
    box = logout.bounding_box()
    assert box["width"] >= 44 and box["x"] + box["width"] <= phone.viewport_size["width"] + 0.5
    no_page_scroll_sideways(phone)
    shot(phone, "owner-header")


def test_on_a_wide_screen_the_rounds_stand_side_by_side_as_a_bracket(
    page: Any, live_server: Any, top_eight: Tournament
) -> None:
    page.goto(f"{live_server.url}/t/{top_eight.slug}/bracket/")
    quarters, semis = (r.bounding_box() for r in page.locator(".bracket-round").all())
    assert quarters["y"] == semis["y"] and semis["x"] > quarters["x"] + quarters["width"]
    # Each semifinal sits between the two quarterfinals it follows.
    qf = [m.bounding_box() for m in page.locator(".bracket-round").nth(0).locator("ol").all()]
    sf = [m.bounding_box() for m in page.locator(".bracket-round").nth(1).locator("ol").all()]
    for i, match in enumerate(sf):
        middle = match["y"] + match["height"] / 2
        assert qf[2 * i]["y"] < middle < qf[2 * i + 1]["y"] + qf[2 * i + 1]["height"]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "phone-layout-bracket-desktop.png"), full_page=True)
