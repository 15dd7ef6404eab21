"""Players with the same name told apart everywhere (issue 25 item 4).

Two "Alex Martin"s played each other as "Alex Martin vs Alex Martin". One rule
(tournaments/names.py display_names, read through pages.event.display_names) numbers
namesakes in the order they entered ("Alex Martin (1)", "Alex Martin (2)"), and every
page, print-out, the projector, the exports and the audit log show it. Self-registration
of a name already taken asks for a word that tells the player apart instead of refusing.
"""

from __future__ import annotations

import copy
import csv
import io
import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tournaments import names, services
from tournaments.interchange import export_document
from tournaments.models import Match, Player, Tournament
from tournaments.pages import event as event_pages
from tournaments.pages import public
from tournaments.services import registration as reg

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
CYRILLIC_A = "\u0410"  # prints as a Latin capital A

ONE, TWO = "Alex Martin (1)", "Alex Martin (2)"


# --- The rule ------------------------------------------------------------------------


def test_a_name_nobody_shares_is_shown_as_it_is() -> None:
    assert names.display_names([("a", "Ana Souza"), ("b", "Ben Ito")]) == {
        "a": "Ana Souza",
        "b": "Ben Ito",
    }


def test_namesakes_are_numbered_in_the_order_they_entered() -> None:
    shown = names.display_names([("x", "Alex Martin"), ("b", "Ben Ito"), ("a", "Alex Martin")])
    assert shown == {"x": ONE, "b": "Ben Ito", "a": TWO}


def test_names_differing_in_case_spacing_or_look_alike_letters_are_namesakes() -> None:
    shown = names.display_names(
        [("a", "Alex Martin"), ("b", "alex  martin"), ("c", CYRILLIC_A + "lex Martin")]
    )
    assert shown == {"a": ONE, "b": "alex  martin (2)", "c": CYRILLIC_A + "lex Martin (3)"}


def test_a_late_namesake_takes_the_next_number_and_the_others_keep_theirs() -> None:
    before = names.display_names([("a", "Alex Martin"), ("b", "Alex Martin")])
    after = names.display_names([("a", "Alex Martin"), ("b", "Alex Martin"), ("c", "Alex Martin")])
    assert (after["a"], after["b"]) == (before["a"], before["b"]) == (ONE, TWO)
    assert after["c"] == "Alex Martin (3)"


def test_a_number_whose_label_is_already_a_name_is_skipped() -> None:
    shown = names.display_names(
        [("a", "Alex Martin"), ("b", "Alex Martin (2)"), ("c", "Alex Martin")]
    )
    assert shown == {"a": ONE, "b": "Alex Martin (2)", "c": "Alex Martin (3)"}
    assert len(set(shown.values())) == 3


def test_a_rejected_double_registration_gives_the_real_one_no_number(owner: User) -> None:
    t = open_event(owner)
    alex, _ = reg.register_self(tournament=t, name="Alex Martin")
    services.register_players(tournament=t, names=["Alex Martin"], allow_duplicates=True, by=owner)
    twin = Player.objects.get(tournament=t, name="Alex Martin", pk__gt=alex.pk)
    assert event_pages.display_names(fresh(t))[alex.external_id] == ONE
    reg.reject_entry(player=twin, by=owner)
    assert event_pages.display_names(fresh(t))[alex.external_id] == "Alex Martin"


# --- An event where the two Alex Martins meet ------------------------------------------


def namesakes_doc() -> dict[str, Any]:
    """Round 1 played; round 2 being played, the two Alex Martins at table 1."""
    return {
        "format": "swiss-tournament/1",
        "name": "Namesakes Open",
        "system": "mtr",
        "best_of": 3,
        "seed": 7,
        "players": [
            {"id": "p1", "name": "Alex Martin"},
            {"id": "p2", "name": "Ben Ito"},
            {"id": "p3", "name": "Alex Martin"},
            {"id": "p4", "name": "Cleo Park"},
        ],
        "rounds": [
            {"number": 1, "matches": [
                {"table": 1, "players": ["p1", "p2"], "wins": [2, 0], "draws": 0},
                {"table": 2, "players": ["p3", "p4"], "wins": [2, 1], "draws": 0},
            ]},
            {"number": 2, "matches": [
                {"table": 1, "players": ["p1", "p3"]},
                {"table": 2, "players": ["p2", "p4"]},
            ]},
        ],
    }  # fmt: skip


@pytest.fixture
def twins(owner: User) -> Tournament:
    return services.import_document(copy.deepcopy(namesakes_doc()), owner=owner)


def fresh(t: Tournament) -> Tournament:
    return Tournament.objects.get(pk=t.pk)


def open_event(owner: User) -> Tournament:
    t = services.create_tournament(name="Open Modern", owner=owner, seed=11)
    return reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=False, check_in=False, by=owner
    )


def body(response: Any) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def both(text: str) -> bool:
    return ONE in text and TWO in text


# --- Each surface ------------------------------------------------------------------------


@pytest.mark.parametrize("extra", [{}, HX])
def test_the_pairings_show_the_two_alex_martins_apart(
    client: Client, twins: Tournament, extra: dict[str, str]
) -> None:
    by_table = body(client.get(f"/t/{twins.slug}/pairings/", **extra))
    assert both(by_table)
    assert f">{ONE}</a>" in by_table and f">{TWO}</a>" in by_table
    by_name = body(client.get(f"/t/{twins.slug}/pairings/?by=name", **extra))
    assert both(by_name) and f'data-opponent="{TWO}"' in by_name


@pytest.mark.parametrize("extra", [{}, HX])
def test_the_standings_show_the_two_alex_martins_apart(
    client: Client, twins: Tournament, extra: dict[str, str]
) -> None:
    assert both(body(client.get(f"/t/{twins.slug}/standings/", **extra)))


@pytest.mark.parametrize("extra", [{}, HX])
def test_a_player_page_names_the_player_and_their_namesake_opponent_apart(
    client: Client, twins: Tournament, extra: dict[str, str]
) -> None:
    page = body(client.get(f"/t/{twins.slug}/players/p1/", **extra))
    assert f">{TWO}</a>" in page  # the card's opponent, and round 2's row
    if not extra:
        assert f"<h1>{ONE}</h1>" in page
        tiebreakers = body(client.get(f"/t/{twins.slug}/tiebreakers/p3/"))
        assert f"<h1>{TWO}</h1>" in tiebreakers and f"Back to {TWO}'s page" in tiebreakers


def test_the_player_page_of_the_first_alex_moves_when_a_namesake_joins(
    owner: User,
) -> None:
    t = open_event(owner)
    alex, _ = reg.register_self(tournament=t, name="Alex Martin")
    reg.register_self(tournament=t, name="Ben Ito")
    before = public.player_depends(fresh(t), event_pages.event_view(fresh(t)), alex)
    services.register_players(tournament=t, names=["Alex Martin"], allow_duplicates=True, by=owner)
    after_t = fresh(t)
    view = event_pages.event_view(after_t)
    assert public.player_depends(after_t, view, alex) != before
    assert public.near_depends(after_t, view, alex) != public.near_depends(
        after_t, view, Player.objects.get(tournament=t, name="Ben Ito")
    )
    assert public.player(after_t, alex)["me_name"] == ONE


@pytest.mark.parametrize("extra", [{}, HX])
def test_the_private_page_names_the_namesake_opponent_apart(
    client: Client, twins: Tournament, extra: dict[str, str]
) -> None:
    token = reg.issue_link(player=Player.objects.get(tournament=twins, external_id="p1"))
    response = client.get(f"/p/{token}/", **extra)
    page = body(response)
    assert f'<span class="vs">vs</span> {TWO}' in page  # the status card (issue 25 item 2)
    assert response.context["player_name"] == ONE
    assert response.context["report"]["opponent_name"] == TWO


@pytest.mark.parametrize("extra", [{}, HX])
def test_the_round_screen_and_the_settle_form_show_the_two_alex_martins_apart(
    oc: Client, twins: Tournament, extra: dict[str, str]
) -> None:
    screen = body(oc.get(f"/t/{twins.slug}/manage/rounds/2/", **extra))
    assert f"<td>{ONE}</td><td>{TWO}</td>" in screen
    match = Match.objects.get(round__tournament=twins, round__number=2, table=1)
    form = body(oc.get(f"/t/{twins.slug}/manage/matches/{match.pk}/", **extra))
    assert f"<strong>{ONE}</strong> vs <strong>{TWO}</strong>" in form


def test_the_event_screen_lists_the_two_alex_martins_apart(oc: Client, twins: Tournament) -> None:
    page = body(oc.get(f"/t/{twins.slug}/manage/"))
    assert f'<th scope="row">{ONE}</th>' in page and f'<th scope="row">{TWO}</th>' in page
    # The rename form still starts from the stored name, never the label.
    assert 'name="name" value="Alex Martin"' in page


@pytest.mark.parametrize(
    "view", ["pairings/by-name/", "pairings/by-table/", "slips/", "standings/"]
)
def test_print_outs_show_the_two_alex_martins_apart(
    oc: Client, twins: Tournament, view: str
) -> None:
    assert both(body(oc.get(f"/t/{twins.slug}/manage/print/{view}?round=2")))


@pytest.mark.parametrize("extra", [{}, HX])
def test_the_projector_shows_the_two_alex_martins_apart(
    client: Client, twins: Tournament, extra: dict[str, str]
) -> None:
    page = body(client.get(f"/t/{twins.slug}/projector/", **extra))
    assert f'<span class="proj-name">{ONE}</span>' in page
    assert f'<span class="proj-opp">{TWO}</span>' in page


def test_the_projector_before_round_1_lists_namesakes_apart(owner: User, client: Client) -> None:
    t = open_event(owner)
    services.register_players(
        tournament=t, names=["Alex Martin", "Alex Martin"], allow_duplicates=True, by=owner
    )
    assert both(body(client.get(f"/t/{t.slug}/projector/")))


def test_the_csv_exports_keep_the_stored_name_and_add_the_display_name(
    client: Client, twins: Tournament, event: Any
) -> None:
    rows = list(
        csv.DictReader(io.StringIO(body(client.get(f"/t/{twins.slug}/pairings.csv?round=2"))))
    )
    alex = next(r for r in rows if r["id"] == "p1")
    assert alex["name"] == "Alex Martin" and alex["display_name"] == ONE
    assert alex["opponent"] == TWO
    ben = next(r for r in rows if r["id"] == "p2")
    assert ben["name"] == ben["display_name"] == "Ben Ito"
    standings = list(
        csv.DictReader(io.StringIO(body(client.get(f"/t/{twins.slug}/standings.csv"))))
    )
    assert {r["display_name"] for r in standings if r["id"] in ("p1", "p3")} == {ONE, TWO}
    assert all(r["name"] in ("Alex Martin", "Ben Ito", "Cleo Park") for r in standings)
    # An event without namesakes keeps its columns as they were.
    assert "display_name" not in body(client.get(f"/t/{event.slug}/standings.csv")).splitlines()[0]


def test_the_json_exports_keep_the_stored_name_and_add_the_display_name_where_it_differs(
    client: Client, twins: Tournament
) -> None:
    standings = json.loads(body(client.get(f"/t/{twins.slug}/standings.json")))["standings"]
    by_id = {r["id"]: r for r in standings}
    assert by_id["p1"]["name"] == by_id["p3"]["name"] == "Alex Martin"
    assert {by_id["p1"]["display_name"], by_id["p3"]["display_name"]} == {ONE, TWO}
    assert "display_name" not in by_id["p2"]
    pairings = json.loads(body(client.get(f"/t/{twins.slug}/pairings.json?round=2")))
    first = pairings["tables"][0]["players"]
    assert [(p["name"], p["display_name"]) for p in first] == [
        ("Alex Martin", ONE),
        ("Alex Martin", TWO),
    ]
    me = json.loads(body(client.get(f"/t/{twins.slug}/players/p1.json")))
    assert me["player"] == {
        "id": "p1",
        "name": "Alex Martin",
        "display_name": ONE,
        "dropped_after_round": None,
    }
    assert me["rounds"][1]["opponents"] == [
        {"id": "p3", "name": "Alex Martin", "display_name": TWO}
    ]
    # The interchange document (import, export, backups) keeps the names as stored.
    assert [p["name"] for p in export_document(twins)["players"]] == [
        "Alex Martin", "Ben Ito", "Alex Martin", "Cleo Park",
    ]  # fmt: skip


def test_the_audit_log_names_the_two_alex_martins_apart(
    oc: Client, twins: Tournament, owner: User
) -> None:
    match = Match.objects.get(round__tournament=twins, round__number=2, table=1)
    services.record_result(match=match, wins=[2, 1], by=owner)
    page = body(oc.get(f"/t/{twins.slug}/manage/audit/"))
    assert f"{ONE}</a>" in page and f"{TWO}</a>" in page
    assert "Alex Martin</a>" not in page


# --- Self-registration of a namesake -------------------------------------------------------


def test_a_namesake_is_asked_for_a_word_instead_of_being_refused(owner: User) -> None:
    t = open_event(owner)
    reg.register_self(tournament=t, name="Alex Martin")
    with pytest.raises(reg.NamesakeRefused, match="Add a word below that tells you apart"):
        reg.register_self(tournament=t, name="alex martin")
    second, _token = reg.register_self(tournament=t, name="alex martin", suffix=" (Lyon) ")
    assert second.name == "alex martin (Lyon)"
    assert list(t.players.order_by("pk").values_list("name", flat=True)) == [
        "Alex Martin",
        "alex martin (Lyon)",
    ]


def test_a_look_alike_with_a_word_that_makes_it_distinct_is_registered(owner: User) -> None:
    t = open_event(owner)
    reg.register_self(tournament=t, name="Alex Martin")
    with pytest.raises(reg.NamesakeRefused, match="looks like Alex Martin"):
        reg.register_self(tournament=t, name=CYRILLIC_A + "lex Martin")
    player, _ = reg.register_self(tournament=t, name=CYRILLIC_A + "lex Martin", suffix="Kyiv")
    assert player.name == CYRILLIC_A + "lex Martin (Kyiv)"


def test_a_word_that_leaves_the_name_taken_is_refused_beside_the_word(owner: User) -> None:
    t = open_event(owner)
    reg.register_self(tournament=t, name="Alex Martin")
    reg.register_self(tournament=t, name="Alex Martin", suffix="Lyon")
    with pytest.raises(reg.FieldRefused, match="choose another word") as refused:
        reg.register_self(tournament=t, name="Alex Martin", suffix="lyon")
    assert refused.value.field == "suffix"
    with pytest.raises(reg.FieldRefused, match="invisible character") as hidden:
        reg.register_self(tournament=t, name="Alex Martin", suffix="Ly\u200bon")
    assert hidden.value.field == "suffix"


@pytest.mark.parametrize("extra", [{}, HX])
def test_the_registration_form_offers_the_word_and_registers_the_namesake(
    client: Client, owner: User, extra: dict[str, str]
) -> None:
    t = open_event(owner)
    url = f"/t/{t.slug}/register/"
    assert 'name="suffix"' not in body(client.get(url))  # no question before it is needed
    reg.register_self(tournament=t, name="Alex Martin")
    asked = client.post(url, {"name": "Alex Martin", "contact": "a@x"}, **extra)
    assert asked.status_code == 422
    page = asked.content.decode()
    assert 'name="suffix"' in page and "How should we tell you apart?" in page
    assert 'id="name-error"' in page and 'value="Alex Martin"' in page
    assert ("<html" in page) is not bool(extra)
    done = client.post(url, {"name": "Alex Martin", "contact": "a@x", "suffix": "Lyon"}, **extra)
    if extra:
        assert done.status_code == 200 and done["HX-Redirect"].startswith("/p/")
    else:
        assert done.status_code == 302 and done["Location"].startswith("/p/")
    assert t.players.filter(name="Alex Martin (Lyon)").exists()


@pytest.mark.parametrize("extra", [{}, HX])
def test_a_word_still_taken_is_refused_beside_the_word_field(
    client: Client, owner: User, extra: dict[str, str]
) -> None:
    t = open_event(owner)
    reg.register_self(tournament=t, name="Alex Martin")
    reg.register_self(tournament=t, name="Alex Martin", suffix="Lyon")
    refused = client.post(
        f"/t/{t.slug}/register/", {"name": "Alex Martin", "suffix": "Lyon"}, **extra
    )
    assert refused.status_code == 422
    page = refused.content.decode()
    assert 'id="suffix-error"' in page and "choose another word" in page
    assert 'value="Lyon"' in page


@pytest.mark.parametrize("extra", [{}, HX])
def test_the_bracket_shows_the_two_alex_martins_apart(
    client: Client, owner: User, extra: dict[str, str]
) -> None:
    doc = namesakes_doc()
    doc["rounds"][1] = {"number": 2, "playoff": True, "matches": [
        {"table": 1, "players": ["p1", "p3"]},
        {"table": 2, "players": ["p2", "p4"]},
    ]}  # fmt: skip
    t = services.import_document(doc, owner=owner)
    assert both(body(client.get(f"/t/{t.slug}/bracket/", **extra)))
