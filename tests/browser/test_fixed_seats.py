"""A fixed seat in a real browser: the organizer of a 64-player event fixes a player to
table 50 on the seating screen, keeps two teammates apart, then pairs five Swiss rounds
from the event screen and types every result on the round screen; each round the public
pairings page shows the player at table 50, and the teammates never meet."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User

from tournaments import services
from tournaments.models import Match, MatchKind, Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PLAYERS = 64
FIXED_TABLE = 50


def test_a_fixed_seat_holds_for_five_rounds_of_a_64_player_event(
    page: Any, live_server: Any, django_user_model: type[User]
) -> None:
    from playwright.sync_api import expect

    owner = django_user_model.objects.create_user("td")
    t = services.create_tournament(name="Stream Open", owner=owner, seed=64)
    services.register_players(
        tournament=t, names=[f"Player {i:02d}" for i in range(1, PLAYERS + 1)]
    )
    page.context.add_cookies([_session_cookie(live_server, owner)])
    base = f"{live_server.url}/t/{t.slug}"

    # The seating screen: one fixed seat and one restriction, typed by name (HTMX).
    page.goto(f"{base}/manage/seating/")
    fix = page.get_by_role("form", name="Fix a player to a table")
    fix.get_by_label("Player (name or id)").fill("player 17")
    fix.get_by_label("Table").fill(str(FIXED_TABLE))
    fix.get_by_label("Reason").fill("wheelchair access")
    fix.get_by_role("button", name="Fix the seat").click()
    expect(page.locator("#seating-panel [role=status]")).to_have_text(
        f"Player 17 is fixed to table {FIXED_TABLE}."
    )
    apart = page.get_by_role("form", name="Keep two players from being paired")
    apart.get_by_label("Player (name or id)").fill("Player 01")
    apart.get_by_label("and player").fill("Player 02")
    apart.get_by_role("button", name="Do not pair them").click()
    expect(page.locator("#seating-panel [role=status]")).to_have_text(
        "Player 01 and Player 02 will not be paired."
    )
    # A refusal shows beside its field: the table is Player 17's.
    fix = page.get_by_role("form", name="Fix a player to a table")
    fix.get_by_label("Player (name or id)").fill("Player 18")
    fix.get_by_label("Table").fill(str(FIXED_TABLE))
    fix.get_by_role("button", name="Fix the seat").click()
    expect(page.locator("#fix-table-error")).to_contain_text(
        f"Table {FIXED_TABLE} is fixed for Player 17 already"
    )

    for number in range(1, 6):
        page.goto(f"{base}/manage/")
        page.locator("#pair-button").click()
        expect(page.locator("#rounds-panel h3")).to_contain_text(f"Round {number}")

        # The public pairings, by name: Player 17 at table 50.
        page.goto(f"{base}/pairings/?round={number}&by=name")
        row = page.locator('tr[data-name="player 17"]')
        expect(row).to_have_attribute("data-table", str(FIXED_TABLE))
        by_table = page.goto(f"{base}/pairings/?round={number}")
        assert by_table is not None and by_table.ok
        fixed_row = page.locator("table.by-table tr", has_text="Player 17")
        expect(fixed_row.locator("td.num")).to_have_text(str(FIXED_TABLE))

        # Every result typed on the round screen's quick entry.
        page.goto(f"{base}/manage/rounds/{number}/")
        page.wait_for_function("() => window.htmx !== undefined")
        tables = _open_tables(t, number)
        assert FIXED_TABLE in tables
        assert sorted(tables) == [*range(1, PLAYERS // 2), FIXED_TABLE]
        for k, table in enumerate(tables):
            entry = page.locator("#quick-entry")
            entry.fill(f"{table} {'2-0' if k % 3 else '2-1'}")
            # The screen refreshes itself as results come in (its message may be redrawn
            # empty): each entry's own answer says it was saved.
            with page.expect_response(
                lambda r: r.url.endswith("/quick/") and r.request.method == "POST"
            ) as answer:
                entry.press("Enter")
            # A self-refresh of the screen may land just as Enter is pressed: the form
            # is then sent as a plain POST (the screen works without JavaScript too) and
            # answered by a redirect back to the round screen. Either way it is saved.
            assert answer.value.status in (200, 302)
            if answer.value.status == 200:
                assert f"Table {table}:" in answer.value.text()
            else:
                page.wait_for_load_state()
                page.wait_for_function("() => window.htmx !== undefined")
            assert Match.objects.filter(
                round__tournament=t, round__number=number, table=table, reported=True
            ).exists()
            # The answer's form has replaced the one typed in: the next entry types there.
            expect(page.locator("#quick-entry")).to_have_value("")
        assert not Match.objects.filter(
            round__tournament=t, round__number=number, kind=MatchKind.PLAYED, reported=False
        ).exists()
        assert not _met(t, number, "Player 01", "Player 02")

    page.goto(f"{base}/manage/audit/")
    expect(page.locator("body")).to_contain_text(re.compile(r"Player 17"))


def _open_tables(t: Tournament, number: int) -> list[int]:
    return list(
        Match.objects.filter(round__tournament=t, round__number=number, kind=MatchKind.PLAYED)
        .order_by("table")
        .values_list("table", flat=True)
    )


def _met(t: Tournament, number: int, a: str, b: str) -> bool:
    for m in Match.objects.filter(round__tournament=t, round__number=number):
        if {s.player.name for s in m.seats.select_related("player")} == {a, b}:
            return True
    return False


def _session_cookie(live_server: Any, user: Any) -> dict[str, Any]:
    """The organizer logged in without the login form (tests/browser/test_organizer_flow
    drives that form)."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    return {
        "name": settings.SESSION_COOKIE_NAME,
        "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
        "url": live_server.url,
    }
