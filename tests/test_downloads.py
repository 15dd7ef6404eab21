"""Downloads: the standings and a round's pairings as CSV, from the browser."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from tournaments import services
from tournaments.models import Player, Tournament

pytestmark = pytest.mark.django_db


def test_the_standings_csv_is_the_command_lines_bytes_served_as_text_csv(
    client: Client, event: Tournament
) -> None:
    response = client.get(f"/t/{event.slug}/standings.csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    out = StringIO()
    call_command("standings", event.slug, "--format", "csv", stdout=out)
    assert response.content.decode() == out.getvalue()
    assert response.content.decode().splitlines()[0].startswith("rank,id,name,points")


def test_a_name_a_spreadsheet_would_run_is_escaped_in_both_downloads(
    client: Client, event: Tournament
) -> None:
    player = Player.objects.get(tournament=event, external_id="p1")
    services.rename_player(player=player, name="@SUM(A1:A9)")
    standings = client.get(f"/t/{event.slug}/standings.csv").content.decode()
    pairings = client.get(f"/t/{event.slug}/pairings.csv?round=1").content.decode()
    for body in (standings, pairings):
        assert "'@SUM(A1:A9)" in body and ",@SUM" not in body


def test_the_pairings_csv_lists_every_player_of_the_round_alphabetically(
    client: Client, event: Tournament
) -> None:
    lines = client.get(f"/t/{event.slug}/pairings.csv?round=1").content.decode().splitlines()
    assert lines[0] == "round,table,id,name,opponent,result"
    names = [line.split(",")[3] for line in lines[1:]]
    assert names == sorted(names, key=str.casefold) and len(names) >= 6
    assert any("(bye)" in line for line in lines[1:])


@pytest.mark.parametrize("query", ["?round=²", "?round=99", "?round=-1"])
def test_a_pairings_csv_for_no_such_round_is_not_found(
    client: Client, event: Tournament, query: str
) -> None:
    assert client.get(f"/t/{event.slug}/pairings.csv{query}").status_code == 404


def test_the_standings_and_pairings_pages_link_their_downloads(
    client: Client, event: Tournament
) -> None:
    assert (
        f"/t/{event.slug}/standings.csv"
        in client.get(f"/t/{event.slug}/standings/").content.decode()
    )
    assert (
        f"/t/{event.slug}/pairings.csv?round="
        in client.get(f"/t/{event.slug}/pairings/").content.decode()
    )
