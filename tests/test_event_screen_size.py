"""The organizer's event screen at size (issue 26 item 2): the leaders of the standings and
a count of the players, with the whole lists on screens of their own, paged and searched
by name; the player actions work from the players screen."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.helpers import FIRST, LAST
from tournaments import services
from tournaments.models import Entry, Player, Tournament
from tournaments.services import import_document

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
TARGET_BYTES = 300 * 1024


def played_doc(players: int, name: str) -> dict[str, Any]:
    """`players` with names as long as real ones, round 1 played (the first-seated player
    won 2-1), round 2 paired: standings with ranks, and a round being played."""
    names = [f"{FIRST[i % len(FIRST)]} {LAST[(i // len(FIRST)) % len(LAST)]} {i + 1}"
             for i in range(players)]  # fmt: skip
    ids = [f"p{i}" for i in range(1, players + 1)]
    first = [
        {"table": k + 1, "players": [ids[2 * k], ids[2 * k + 1]], "wins": [2, 1], "draws": 0}
        for k in range(players // 2)
    ]
    # Round 2: winners meet winners, losers meet losers.
    order = ids[0::2] + ids[1::2]
    second = [
        {"table": k + 1, "players": [order[2 * k], order[2 * k + 1]]} for k in range(players // 2)
    ]
    return {
        "format": "swiss-tournament/1",
        "name": name,
        "system": "mtr",
        "best_of": 3,
        "seed": 7,
        "players": [{"id": pid, "name": n} for pid, n in zip(ids, names, strict=True)],
        "rounds": [
            {"number": 1, "phase": 1, "matches": first},
            {"number": 2, "phase": 1, "matches": second},
        ],
    }


def imported(players: int, owner: User, name: str = "Saturday Open") -> Tournament:
    return import_document(played_doc(players, name), owner=owner)


def html(response: Any) -> str:
    return response.content.decode()


def section(page: str, element_id: str) -> str:
    start = page.index(f'id="{element_id}"')
    return page[start : page.index("</section>", start)]


def standings_rows(page: str) -> list[tuple[int, str]]:
    """(rank, name) of each standings row shown."""
    return [
        (int(rank), name)
        for rank, name in re.findall(
            r'<td class="num">(\d+)</td><th scope="row"><a href="[^"]+">([^<]+)</a>', page
        )
    ]


def player_rows(page: str) -> list[str]:
    return re.findall(r'<tr id="player-\d+"[^>]*>\s*<th scope="row">([^<]+)</th>', page)


@pytest.fixture
def field(owner: User) -> Tournament:
    """230 players: three pages of standings (100 a page), five of players (50 a page)."""
    return imported(230, owner, "Club Championship")


def url(t: Tournament, tail: str = "") -> str:
    return f"/t/{t.slug}/manage/{tail}"


# --- The event screen ---------------------------------------------------------------------


def test_the_event_screen_of_2048_players_is_under_300_kb_with_the_leaders_and_links_to_the_lists(
    oc: Client, owner: User
) -> None:
    t = imported(2048, owner)
    response = oc.get(url(t))
    page = html(response)
    assert response.status_code == 200
    assert len(response.content) <= TARGET_BYTES, f"{len(response.content) / 1024:.0f} kB"
    leaders = standings_rows(section(page, "standings-panel"))
    assert [rank for rank, _ in leaders] == list(range(1, 17))
    assert f'href="{url(t, "standings/")}"' in page and "All 2048 players' standings" in page
    players = section(page, "players-panel")
    assert f'href="{url(t, "players/")}"' in players and "All 2048 players" in players
    assert player_rows(players) == [] and "/rename/" not in page
    # The organizer still adds a late entry from the event screen.
    assert f'action="{url(t, "players/add/")}"' in players


def test_the_event_screen_counts_the_entries_waiting_for_approval_and_links_to_the_desk(
    oc: Client, field: Tournament
) -> None:
    Player.objects.filter(pk__in=field.players.order_by("-id").values("pk")[:3]).update(
        entry=Entry.PENDING
    )
    players = section(html(oc.get(url(field))), "players-panel")
    assert "3 entries wait for approval" in players
    assert f'href="{url(field, "registration/")}#pending-title"' in players


def test_the_event_screens_leaders_refetch_themselves_from_their_own_small_fragment(
    oc: Client, field: Tournament
) -> None:
    board = html(oc.get(url(field)))
    top = url(field, "standings/top/")
    assert f'hx-get="{top}"' in section(board, "standings-panel")
    fragment = html(oc.get(top, **HX))
    assert "<html" not in fragment and f'hx-get="{top}"' in fragment
    assert [rank for rank, _ in standings_rows(fragment)] == list(range(1, 17))


def test_the_event_screens_quick_entry_takes_the_focus_without_scrolling(
    oc: Client, field: Tournament
) -> None:
    """`autofocus` scrolls a field below the fold into view, and the title and the event's
    status with it off screen; the event screen's script focuses it with preventScroll."""
    board = html(oc.get(url(field)))
    quick = re.search(r'<input id="quick-entry"[^>]*>', board)
    assert quick is not None
    assert "data-autofocus" in quick[0] and " autofocus" not in quick[0]
    assert "js/organizer" in board
    # The round screen keeps its entry tools on top: autofocus scrolls nothing there.
    assert " autofocus " in html(oc.get(url(field, "rounds/2/")))


# --- The standings screen -----------------------------------------------------------------


def test_the_standings_screen_pages_the_whole_table_a_hundred_places_at_a_time(
    oc: Client, field: Tournament
) -> None:
    first = html(oc.get(url(field, "standings/")))
    assert [rank for rank, _ in standings_rows(first)][:1] == [1]
    assert len(standings_rows(first)) == 100 and "page 1 of 3" in first
    assert f'href="{url(field, "standings/")}?page=2"' in first
    last = oc.get(url(field, "standings/"), {"page": "3"})
    rows = standings_rows(html(last))
    assert len(rows) == 30 and "Places 201–230 of 230" in html(last)
    partial = html(oc.get(url(field, "standings/"), {"page": "2"}, **HX))
    assert "<html" not in partial and partial.startswith('<section id="standings-list"')
    assert len(standings_rows(partial)) == 100 and "Places 101–200" in partial


def test_the_standings_screen_finds_a_player_by_name_with_their_place_in_the_field(
    oc: Client, field: Tournament
) -> None:
    whole = standings_rows(html(oc.get(url(field, "standings/"), {"page": "3"})))
    rank, name = whole[-1]
    for extra in ({}, HX):
        found = html(oc.get(url(field, "standings/"), {"q": f"  {name.upper()} "}, **extra))
        assert standings_rows(found) == [(rank, name)]
        assert "1 player named" in found


@pytest.mark.parametrize("page", ["abc", "0", "99999", "9" * 5000, "２"])
def test_a_page_that_is_not_there_shows_a_page_of_the_list_not_an_error(
    oc: Client, field: Tournament, page: str
) -> None:
    for tail in ("standings/", "players/"):
        response = oc.get(url(field, tail), {"page": page})
        assert response.status_code == 200


# --- The players screen -------------------------------------------------------------------


def test_the_players_screen_pages_the_list_in_entry_order_and_finds_by_name(
    oc: Client, field: Tournament
) -> None:
    names = list(field.players.order_by("id").values_list("name", flat=True))
    first = html(oc.get(url(field, "players/")))
    assert player_rows(first) == names[:50] and "page 1 of 5" in first
    assert f'href="{url(field, "players/")}?page=5"' in first
    fifth = html(oc.get(url(field, "players/"), {"page": "5"}))
    assert player_rows(fifth) == names[200:]
    partial = html(oc.get(url(field, "players/"), {"page": "2"}, **HX))
    assert partial.lstrip().startswith('<section id="players-panel"') and "<html" not in partial
    assert player_rows(partial) == names[50:100]
    wanted = [n for n in names if "Oberhauser" in n]
    for extra in ({}, HX):
        found = html(oc.get(url(field, "players/"), {"q": "oberhauser"}, **extra))
        assert player_rows(found) == wanted[:50] and f"{len(wanted)} players named" in found


def test_dropping_from_the_players_screen_comes_back_to_its_page_and_search(
    oc: Client, field: Tournament
) -> None:
    player = field.players.order_by("id")[60]
    query = f"?on=players&page=2&q={player.name.split()[0]}"
    response = oc.post(url(field, f"players/{player.pk}/drop/") + query)
    assert response.status_code == 302
    assert response["Location"] == (
        url(field, "players/") + f"?page=2&q={player.name.split()[0]}#players-panel"
    )
    player.refresh_from_db()
    assert player.dropped
    readmit = f"players/{player.pk}/readmit/"
    page = html(oc.post(url(field, readmit) + "?on=players&page=2", **HX))
    player.refresh_from_db()
    assert not player.dropped and f"{player.name} is back in." in page
    # The players screen's own panel: this page of the list, no other panel swapped.
    assert page.lstrip().startswith('<section id="players-panel"') and "hx-swap-oob" not in page
    assert player.name in player_rows(page)
    assert f'action="{url(field, readmit)}?on=players&amp;page=2"' not in page  # dropped no more
    assert f'action="{url(field, f"players/{player.pk}/drop/")}?on=players&amp;page=2"' in page


def test_renaming_adding_and_removing_from_the_players_screen(
    oc: Client, field: Tournament
) -> None:
    player = field.players.order_by("id")[0]
    on = "?on=players"
    page = html(oc.post(url(field, f"players/{player.pk}/rename/") + on, {"name": "Zed"}, **HX))
    assert "Renamed to Zed." in page and "Zed" in player_rows(page)
    page = html(oc.post(url(field, "players/add/") + on + "&q=late", {"name": "Late Larry"}, **HX))
    assert "Added Late Larry (late entry" in page and player_rows(page) == ["Late Larry"]
    larry = field.players.get(name="Late Larry")
    remove = url(field, f"players/{larry.pk}/remove/")
    assert f'action="{remove}?on=players&amp;q=late"' in page  # never paired: removable
    response = oc.post(remove + on + "&q=late")
    assert response["Location"] == url(field, "players/") + "?q=late#players-panel"
    assert not field.players.filter(name="Late Larry").exists()


def test_a_refused_action_on_the_players_screen_shows_its_message_on_that_screen(
    oc: Client, field: Tournament
) -> None:
    player = field.players.order_by("id")[120]
    response = oc.post(url(field, f"players/{player.pk}/rename/") + "?on=players&page=3",
                       {"name": "   "})  # fmt: skip
    page = html(response)
    assert response.status_code == 422 and '<p class="error" role="alert">' in page
    assert "· players</h1>" in page and player.name in player_rows(page)
    duplicate = oc.post(url(field, "players/add/") + "?on=players", {"name": player.name}, **HX)
    page = html(duplicate)
    assert duplicate.status_code == 422 and 'id="add-anyway"' in page
    assert f'action="{url(field, "players/add/")}?on=players"' in page


def test_the_organizer_nav_opens_the_players_and_standings_screens(
    oc: Client, field: Tournament
) -> None:
    board = html(oc.get(url(field)))
    nav = board[board.index('<nav class="event"') : board.index("</nav>")]
    assert f'href="{url(field, "players/")}"' in nav and f'href="{url(field, "standings/")}"' in nav


def test_a_stranger_sees_neither_list(
    client: Client, field: Tournament, django_user_model: Any
) -> None:
    client.force_login(django_user_model.objects.create_user("mallory"))
    for tail in ("players/", "standings/", "standings/top/"):
        assert client.get(url(field, tail)).status_code == 403


def test_a_small_field_keeps_its_whole_list_on_the_event_screen_beside_a_link_to_its_screen(
    oc: Client, owner: User
) -> None:
    t = services.create_tournament(name="Club Night", owner=owner)
    services.register_players(tournament=t, names=[f"Player {i}" for i in range(1, 17)])
    players = section(html(oc.get(url(t))), "players-panel")
    assert len(player_rows(players)) == 16 and "All 16 players" not in players
    assert f'<a href="{url(t, "players/")}">The players screen</a>' in players
