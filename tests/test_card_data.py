"""Card data (issue 28): loading Scryfall's oracle-cards file (a small file made for the
tests, never a download), `manage.py load_cards`, and the lookup the checks read."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tournaments.decklists.check import check_decklist, deck_check_order
from tournaments.decklists.parse import parse_decklist
from tournaments.decklists.scryfall import BadFile, card_info, read_array
from tournaments.models import Card
from tournaments.services.cards import card_lookup, load_cards
from tournaments.services.writing import ServiceError

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).parent / "fixtures" / "cards-small.json"
LOADED = 40  # 45 objects: 4 tokens, emblems and art cards, and a second "Lightning Bolt"


def fixture_cards() -> list[dict[str, Any]]:
    return json.loads(FIXTURE.read_text("utf-8"))


def write(tmp_path: Path, content: str | bytes, name: str = "cards.json") -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, "utf-8")
    return path


# --- loading ----------------------------------------------------------------------------


def test_loading_the_fixture_keeps_one_row_per_card_a_deck_can_hold() -> None:
    assert load_cards(path=FIXTURE) == LOADED
    assert Card.objects.count() == LOADED
    names = set(Card.objects.values_list("name", flat=True))
    assert {
        "Fire // Ice",
        "Delver of Secrets // Insectile Aberration",
        "Æther Vial",
        "Nazgûl",
    } <= names
    assert (
        not {
            "Goblin",
            "Elspeth, Sun's Champion Emblem",
            "Goblin Guide // Goblin Guide",
            "Human Wizard // Insect",
        }
        & names
    )


def test_rows_are_keyed_by_the_normalised_name() -> None:
    load_cards(path=FIXTURE)
    assert Card.objects.get(key="aether vial").name == "Æther Vial"
    assert Card.objects.get(key="fire // ice").type_line == "Instant // Instant"
    assert Card.objects.get(key="lim-dul's vault").name == "Lim-Dûl's Vault"


def test_a_name_printed_twice_keeps_the_playable_object() -> None:
    load_cards(path=FIXTURE)
    bolt = Card.objects.get(key="lightning bolt")
    assert bolt.legalities["modern"] == "legal"


def test_basics_and_any_number_cards_are_marked_from_type_and_text() -> None:
    load_cards(path=FIXTURE)
    free = set(Card.objects.filter(any_number=True).values_list("name", flat=True))
    assert free == {
        "Plains",
        "Island",
        "Swamp",
        "Mountain",
        "Forest",
        "Wastes",
        "Snow-Covered Island",
        "Snow-Covered Forest",
        "Relentless Rats",
        "Shadowborn Apostle",
        "Persistent Petitioners",
        "Rat Colony",
        "Dragon's Approach",
        "Slime Against Humanity",
    }


def test_up_to_n_cards_are_marked_from_text() -> None:
    load_cards(path=FIXTURE)
    limited = dict(Card.objects.exclude(max_copies=None).values_list("name", "max_copies"))
    assert limited == {"Seven Dwarves": 7, "Nazgûl": 9}


def test_legalities_are_scryfalls() -> None:
    load_cards(path=FIXTURE)
    lotus = Card.objects.get(key="black lotus")
    assert (
        lotus.legalities["vintage"],
        lotus.legalities["legacy"],
        lotus.legalities["modern"],
    ) == (
        "restricted",
        "banned",
        "not_legal",
    )


def test_a_load_replaces_the_earlier_cards(tmp_path: Path) -> None:
    load_cards(path=FIXTURE)
    few = [c for c in fixture_cards() if c["name"] in ("Island", "Duress")]
    assert load_cards(path=write(tmp_path, json.dumps(few))) == 2
    assert sorted(Card.objects.values_list("name", flat=True)) == ["Duress", "Island"]


def test_a_gzipped_file_loads_the_same(tmp_path: Path) -> None:
    path = write(tmp_path, gzip.compress(FIXTURE.read_bytes()), "cards.json.gz")
    assert load_cards(path=path) == LOADED


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "the file is empty"),
        ('{"object": "list"}', "not a JSON array"),
        ('[{"name": "Island"', "not valid JSON"),
        ('[{"name": "Island"} {"name": "Swamp"}]', "',' or ']' is missing"),
        ('[{"name": "Island"}', "ends before the array"),
        ('[{"name": "Island"}] trailing', "unexpected text"),
        ("[]", "no cards in the file"),
        ('[{"oracle_id": "x", "comment": "a ruling"}]', "no cards in the file"),
        (b"\xff\xfe[\x00]\x00\xff", "not UTF-8"),
        (b"\x1f\x8b\x08garbage", "cannot be read"),
    ],
)
def test_a_bad_file_is_refused_by_name_and_leaves_the_cards(
    tmp_path: Path, content: str | bytes, message: str
) -> None:
    load_cards(path=FIXTURE)
    path = write(tmp_path, content)
    with pytest.raises(ServiceError) as refused:
        load_cards(path=path)
    assert message in str(refused.value)
    assert str(path) in str(refused.value)
    assert Card.objects.count() == LOADED


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ServiceError, match="no such file"):
        load_cards(path=tmp_path / "nowhere.json")
    with pytest.raises(ServiceError, match="a directory"):
        load_cards(path=tmp_path)


# --- the incremental reader -------------------------------------------------------------


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 1 << 20])
def test_the_reader_gives_every_element_whatever_the_chunk_size(chunk: int) -> None:
    text = FIXTURE.read_text("utf-8")
    assert list(read_array(io.StringIO(text), chunk=chunk)) == json.loads(text)


@pytest.mark.parametrize("chunk", [1, 2, 5])
def test_the_reader_reads_numbers_and_literals_cut_at_a_chunk_end(chunk: int) -> None:
    text = ' [12345, true , null,"a,b]" ,[1,[2]], {"x": -1.5e3}, 0 ]  \n'
    assert list(read_array(io.StringIO(text), chunk=chunk)) == json.loads(text)


def test_the_reader_names_where_a_file_breaks() -> None:
    with pytest.raises(BadFile, match="character 9"):
        list(read_array(io.StringIO('[{"a": 1}{"b": 2}]'), chunk=4))


def test_non_card_elements_are_skipped() -> None:
    assert card_info(["a list"]) is None
    assert card_info({"name": 5}) is None
    assert card_info({"name": "x" * 201, "type_line": "Instant"}) is None
    info = card_info(
        {"name": "Odd", "type_line": "Instant", "legalities": {"modern": 3, "legacy": "legal"}}
    )
    assert info is not None and dict(info.legalities) == {"legacy": "legal"}


def test_a_card_without_a_top_level_type_line_takes_its_faces() -> None:
    info = card_info(
        {
            "name": "Front // Back",
            "layout": "reversible_card",
            "card_faces": [{"type_line": "Creature \u2014 Elf"}, {"type_line": "Land"}],
        }
    )
    assert info is not None and info.type_line == "Creature \u2014 Elf // Land"


# --- the command ------------------------------------------------------------------------


def test_the_command_prints_how_many_cards_were_loaded() -> None:
    out = io.StringIO()
    call_command("load_cards", str(FIXTURE), stdout=out)
    assert out.getvalue().strip() == f"{LOADED} cards loaded from {FIXTURE}"
    assert Card.objects.count() == LOADED


def test_the_command_refuses_a_missing_file_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(CommandError) as refused:
        call_command("load_cards", str(tmp_path / "nowhere.json"))
    assert "\n" not in str(refused.value)
    assert "no such file" in str(refused.value)
    assert "left as it was" in str(refused.value)


def test_the_command_refuses_a_bad_file_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(CommandError) as refused:
        call_command("load_cards", str(write(tmp_path, "<html>not json</html>")))
    assert "\n" not in str(refused.value)
    assert "not a JSON array" in str(refused.value)


# --- the lookup -------------------------------------------------------------------------


def test_without_card_data_there_is_no_lookup() -> None:
    assert card_lookup() is None


def test_the_lookup_finds_cards_by_name_and_front_face() -> None:
    load_cards(path=FIXTURE)
    cards = card_lookup()
    assert cards is not None
    fire = cards.get("fire")
    assert fire is not None and fire is cards.get("fire // ice")
    delver = cards.get("delver of secrets")
    assert delver is not None and delver.name == "Delver of Secrets // Insectile Aberration"
    giant = cards.get("bonecrusher giant")
    assert giant is not None and giant.type_line.startswith("Creature")
    assert cards.get("goblin") is None
    assert cards.suggest("lightning blot") == "Lightning Bolt"


def test_the_lookup_is_built_once_and_then_costs_one_query() -> None:
    load_cards(path=FIXTURE)
    first = card_lookup()
    with CaptureQueriesContext(connection) as queries:
        again = card_lookup()
    assert again is first
    assert len(queries) == 1


def test_the_lookup_sees_a_new_load(tmp_path: Path) -> None:
    load_cards(path=FIXTURE)
    before = card_lookup()
    assert before is not None and before.get("lightning bolt") is not None
    few = [c for c in fixture_cards() if c["name"] in ("Island", "Duress")]
    load_cards(path=write(tmp_path, json.dumps(few)))
    after = card_lookup()
    assert after is not None and after is not before
    assert after.get("lightning bolt") is None
    assert after.get("duress") is not None


def test_the_lookup_sees_a_reload_of_the_same_size(tmp_path: Path) -> None:
    cards = fixture_cards()
    load_cards(path=FIXTURE)
    assert card_lookup().get("duress").type_line == "Sorcery"  # type: ignore[union-attr]
    for card in cards:
        if card["name"] == "Duress":
            card["type_line"] = "Instant"
    load_cards(path=write(tmp_path, json.dumps(cards)))
    assert card_lookup().get("duress").type_line == "Instant"  # type: ignore[union-attr]


def test_the_lookup_shares_legalities_between_cards() -> None:
    load_cards(path=FIXTURE)
    cards = card_lookup()
    assert cards is not None
    island, plains = cards.get("island"), cards.get("plains")
    assert island is not None and plains is not None
    assert island.legalities is plains.legalities


def test_a_list_checked_against_the_loaded_cards() -> None:
    load_cards(path=FIXTURE)
    parsed = parse_decklist(
        "4 Delver of Secrets\n4 Lightning Blot\n4 Brainstorm\n4 Ponder\n1 Black Lotus\n"
        "4 Fire/Ice\n4 Aether Vial\n7 Seven Dwarves\n24 Island\n4 Relentless Rats\n\n"
        "2 Snow-Covered Island\n4 Rest in Peace"
    )
    problems = [str(p) for p in check_decklist(parsed, deck_format="vintage", cards=card_lookup())]
    assert problems == [
        "line 2: 'Lightning Blot' is not a card; did you mean Lightning Bolt?",
        "line 3: Brainstorm is restricted in Vintage: at most 1 copy, the list has 4",
        "line 4: Ponder is restricted in Vintage: at most 1 copy, the list has 4",
    ]
    order = deck_check_order(parsed.main, card_lookup())
    assert [kind for kind, _ in order] == [
        "Creature",
        "Instant",
        "Sorcery",
        "Artifact",
        "Land",
        "Other",
    ]
