"""The public read-only JSON API: standings.json, pairings.json, players/<id>.json."""

from __future__ import annotations

import copy
import json
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from tournaments import services
from tournaments.models import Match, Player, Tournament
from tournaments.services import import_document

pytestmark = pytest.mark.django_db


@pytest.fixture
def event(small_doc: dict[str, Any]) -> Tournament:
    doc = copy.deepcopy(small_doc)
    # A player id with "/" and "." and round 3 in progress: one result in, one to come.
    doc["players"].append({"id": "team/1.x", "name": "Hal Dot"})
    doc["rounds"].append(
        {"number": 3, "matches": [
            {"table": 1, "players": ["p1", "p3"], "wins": [2, 0], "draws": 0},
            {"table": 2, "players": ["p4", "p7"]},
            {"table": 3, "players": ["team/1.x", "p5"], "wins": [1, 2], "draws": 0},
        ]}
    )  # fmt: skip
    # An owner with an address: neither may appear in the public JSON.
    owner = get_user_model().objects.create_user("owner", "owner@example.com")
    t = import_document(doc)
    Tournament.objects.filter(pk=t.pk).update(owner=owner)
    t.refresh_from_db()
    return t


ENDPOINTS = ["standings.json", "pairings.json", "players/p1.json", "players/team/1.x.json"]


def test_standings_json_is_the_same_object_as_the_command_line_prints(
    client: Client, event: Tournament
) -> None:
    response = client.get(f"/t/{event.slug}/standings.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    out = StringIO()
    call_command("standings", event.slug, "--format", "json", stdout=out)
    assert response.json() == json.loads(out.getvalue())
    rows = response.json()["standings"]
    assert [r["rank"] for r in rows][:2] == [1, 2] and {"id", "name", "points"} <= set(rows[0])


def test_pairings_json_gives_the_current_round_with_each_players_own_side(
    client: Client, event: Tournament
) -> None:
    doc = client.get(f"/t/{event.slug}/pairings.json").json()
    assert doc["round"] == 3 and doc["label"] == "Round 3" and doc["playoff"] is False
    by_table = {t["table"]: t for t in doc["tables"]}
    first = by_table[1]
    assert first["result"] == "win 2-0" and first["games"] == [2, 0] and first["draws"] == 0
    assert [(p["id"], p["name"], p["result"]) for p in first["players"]] == [
        ("p1", "Ana Souza", "win 2-0"),
        ("p3", "Cleo Park", "loss 0-2"),
    ]
    pending = by_table[2]
    assert pending["reported"] is False and pending["games"] is None
    assert [p["result"] for p in pending["players"]] == ["not reported", "not reported"]
    third = by_table[3]
    assert [p["result"] for p in third["players"]] == ["loss 1-2", "win 2-1"]


def test_pairings_json_of_an_earlier_round_shows_the_bye_double_loss_and_draw(
    client: Client, event: Tournament
) -> None:
    doc = client.get(f"/t/{event.slug}/pairings.json?round=1").json()
    results = {p["id"]: p["result"] for t in doc["tables"] for p in t["players"]}
    assert results == {
        "p1": "win 2-1",
        "p2": "loss 1-2",
        "p3": "draw 1-1-1",
        "p4": "draw 1-1-1",
        "p5": "loss (double loss)",
        "p6": "loss (double loss)",
        "p7": "bye",
    }


@pytest.mark.parametrize("query", ["?round=x", "?round=9", "?round=²"])
def test_pairings_json_of_no_such_round_is_a_404_that_says_so(
    client: Client, event: Tournament, query: str
) -> None:
    response = client.get(f"/t/{event.slug}/pairings.json{query}")
    assert response.status_code == 404
    assert "round" in response.json()["error"]


def test_a_player_json_lists_their_rounds_from_their_side_and_their_standing(
    client: Client, event: Tournament
) -> None:
    doc = client.get(f"/t/{event.slug}/players/p3.json").json()
    assert doc["player"] == {"id": "p3", "name": "Cleo Park", "dropped_after_round": None}
    rounds = [(r["round"], r["result"], r["games"], r["opponents"]) for r in doc["rounds"]]
    assert rounds == [
        (1, "draw 1-1-1", [1, 1], [{"id": "p4", "name": "Dev Rao"}]),
        (2, "win 2-0", [2, 0], [{"id": "p2", "name": "Ben Ito"}]),
        (3, "loss 0-2", [0, 2], [{"id": "p1", "name": "Ana Souza"}]),
    ]
    standings = client.get(f"/t/{event.slug}/standings.json").json()["standings"]
    row = next(r for r in standings if r["id"] == "p3")
    standing = doc["standing"]
    assert standing["rank"] == row["rank"] and standing["points"] == row["points"] == 4
    assert (standing["wins"], standing["losses"], standing["draws"]) == (1, 1, 1)
    assert standing["tiebreakers"] == row["tiebreakers"]


def test_a_player_id_with_a_slash_and_a_dot_is_found_with_the_json_suffix_stripped(
    client: Client, event: Tournament
) -> None:
    response = client.get(f"/t/{event.slug}/players/team/1.x.json")
    assert response.status_code == 200
    doc = response.json()
    assert doc["player"]["id"] == "team/1.x"
    assert [r["result"] for r in doc["rounds"]] == ["loss 1-2"]
    # The page of the same player is still the page, not the JSON.
    page = client.get(f"/t/{event.slug}/players/team/1.x/")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")


def test_a_bye_player_json_reads_bye(client: Client, event: Tournament) -> None:
    doc = client.get(f"/t/{event.slug}/players/p7.json").json()
    assert doc["rounds"][0]["result"] == "bye" and doc["rounds"][0]["opponents"] == []


@pytest.mark.parametrize(
    "path", ["players/nobody.json", "players/p1.json.json", "players/%00.json"]
)
def test_an_unknown_player_is_a_json_404_naming_the_id(
    client: Client, event: Tournament, path: str
) -> None:
    response = client.get(f"/t/{event.slug}/{path}")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert "No player" in response.json()["error"]
    assert response["Access-Control-Allow-Origin"] == "*"


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_an_unknown_tournament_is_a_json_404(client: Client, endpoint: str) -> None:
    response = client.get(f"/t/no-such-event/{endpoint}")
    assert response.status_code == 404 and "No tournament" in response.json()["error"]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_each_endpoint_answers_304_while_the_version_is_unchanged_and_200_after_a_result(
    client: Client, event: Tournament, endpoint: str
) -> None:
    url = f"/t/{event.slug}/{endpoint}"
    first = client.get(url)
    assert first.status_code == 200
    event.refresh_from_db()
    assert str(event.version) in first["ETag"]
    again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == first["ETag"]
    assert again["Access-Control-Allow-Origin"] == "*"
    match = Match.objects.get(round__tournament=event, round__number=3, table=2)
    services.record_result(match=match, wins=(2, 1), draws=0)
    changed = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]
    assert changed.json() != first.json() or endpoint == "players/team/1.x.json"


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_each_endpoint_is_public_cacheable_cors_readable_and_sets_no_cookie(
    client: Client, event: Tournament, endpoint: str
) -> None:
    response = client.get(f"/t/{event.slug}/{endpoint}", HTTP_ORIGIN="https://example.org")
    assert response.status_code == 200
    assert response["Cache-Control"] == "public, max-age=2"
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "ETag" in response["Access-Control-Expose-Headers"]
    assert not response.cookies, f"cookies set: {list(response.cookies)}"
    assert "Set-Cookie" not in response.headers
    assert "Cookie" not in response.get("Vary", "")


def test_a_logged_in_organizer_gets_the_same_public_json_and_no_cookie(
    client: Client, event: Tournament
) -> None:
    client.force_login(event.owner)
    anonymous = Client().get(f"/t/{event.slug}/standings.json")
    mine = client.get(f"/t/{event.slug}/standings.json")
    assert mine.json() == anonymous.json()
    assert not mine.cookies and mine["Cache-Control"] == "public, max-age=2"


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_no_private_data_appears_in_any_endpoint(
    client: Client, event: Tournament, endpoint: str
) -> None:
    services.start_clock(round=event.rounds.get(number=3), minutes=50)
    body = client.get(f"/t/{event.slug}/{endpoint}").content.decode()
    for secret in ("owner", "example.com", "audit", "password", "seed", "staff", "csrf"):
        assert secret not in body.lower(), secret
    assert str(event.seed) not in body


def test_a_browser_preflight_is_allowed_for_get_with_if_none_match(
    client: Client, event: Tournament
) -> None:
    response = client.options(
        f"/t/{event.slug}/standings.json",
        HTTP_ORIGIN="https://example.org",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="if-none-match",
    )
    assert response.status_code == 204
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "GET" in response["Access-Control-Allow-Methods"]
    assert "If-None-Match" in response["Access-Control-Allow-Headers"]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_write_to_the_api_is_refused_as_read_only(
    client: Client, event: Tournament, endpoint: str
) -> None:
    response = client.post(f"/t/{event.slug}/{endpoint}", {"name": "x"})
    assert response.status_code == 405
    assert "read-only" in response.json()["error"]
    assert Player.objects.filter(tournament=event).count() == 8


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_an_htmx_request_gets_the_same_json_and_etag(
    client: Client, event: Tournament, endpoint: str
) -> None:
    plain = client.get(f"/t/{event.slug}/{endpoint}")
    htmx = client.get(f"/t/{event.slug}/{endpoint}", HTTP_HX_REQUEST="true")
    assert htmx.status_code == 200 and htmx.json() == plain.json()
    assert htmx["ETag"] == plain["ETag"]


def test_pairings_json_before_round_one_has_no_round_and_no_tables(client: Client) -> None:
    t = services.create_tournament(name="Empty Night")
    doc = client.get(f"/t/{t.slug}/pairings.json").json()
    assert doc["round"] is None and doc["tables"] == []
    assert client.get(f"/t/{t.slug}/standings.json").json()["standings"] == []
