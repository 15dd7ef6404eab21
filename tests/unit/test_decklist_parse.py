"""Reading decklists (issue 28): the text forms players paste, MTGO's and Arena's
exports, MTGO's .dek file, and names as card data matches them."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.decklists import messages as m
from tournaments.decklists.parse import MAX_LINES, card_key, front_face, parse_decklist, parse_dek
from tournaments.decklists.types import Line, Parsed, Problem


def cards(lines: tuple[Line, ...]) -> list[tuple[int, str]]:
    return [(line.count, line.name) for line in lines]


# --- card_key ---------------------------------------------------------------------------


def test_a_key_folds_case_and_collapses_spaces() -> None:
    assert card_key("  Lightning   BOLT ") == card_key("lightning bolt") == "lightning bolt"


def test_a_key_removes_accents() -> None:
    assert card_key("Nazgûl") == card_key("Nazgul") == "nazgul"
    assert card_key("Lim-Dûl's Vault") == card_key("Lim-Dul's Vault")


def test_ae_is_written_either_way() -> None:
    assert card_key("Æther Vial") == card_key("Aether Vial") == card_key("æther vial")


def test_curly_apostrophes_are_straight() -> None:
    assert card_key("Gaea’s Cradle") == card_key("Gaea's Cradle") == "gaea's cradle"


def test_split_cards_are_one_key_however_the_faces_are_joined() -> None:
    keys = {
        card_key(n) for n in ("Fire // Ice", "Fire/Ice", "Fire // ice", "fire//ice", "Fire  /  Ice")
    }
    assert keys == {"fire // ice"}


def test_the_front_face_of_a_split_key() -> None:
    assert front_face(card_key("Delver of Secrets // Insectile Aberration")) == "delver of secrets"
    assert front_face("lightning bolt") is None


# --- the plain text form ----------------------------------------------------------------


def test_a_count_then_a_name() -> None:
    parsed = parse_decklist("4 Lightning Bolt\n4x Counterspell\n2 x Duress\n1\tBrainstorm")
    assert cards(parsed.main) == [
        (4, "Lightning Bolt"),
        (4, "Counterspell"),
        (2, "Duress"),
        (1, "Brainstorm"),
    ]
    assert parsed.side == ()
    assert parsed.problems == ()


def test_lines_keep_their_line_numbers_and_sections() -> None:
    parsed = parse_decklist("4 Lightning Bolt\n\n2 Duress")
    assert parsed.main == (Line(1, 4, "Lightning Bolt", "main"),)
    assert parsed.side == (Line(3, 2, "Duress", "side"),)


def test_a_name_without_a_count_is_a_problem_naming_its_line() -> None:
    parsed = parse_decklist("4 Lightning Bolt\nCounterspell")
    assert cards(parsed.main) == [(4, "Lightning Bolt")]
    assert [str(p) for p in parsed.problems] == [
        "line 2: 'Counterspell' has no count: write it as '1 Counterspell'"
    ]


def test_a_blank_line_starts_the_sideboard() -> None:
    parsed = parse_decklist("4 Lightning Bolt\n56 Mountain\n\n2 Duress\n\n1 Negate")
    assert cards(parsed.main) == [(4, "Lightning Bolt"), (56, "Mountain")]
    assert cards(parsed.side) == [(2, "Duress"), (1, "Negate")]


def test_blank_lines_before_the_first_card_start_nothing() -> None:
    parsed = parse_decklist("\n\n4 Lightning Bolt\n\n2 Duress")
    assert cards(parsed.main) == [(4, "Lightning Bolt")]
    assert cards(parsed.side) == [(2, "Duress")]


def test_a_sideboard_header_in_any_of_its_forms_starts_the_sideboard() -> None:
    for header in (
        "Sideboard",
        "Sideboard:",
        "SB:",
        "sideboard",
        "SIDEBOARD (15)",
        "Sideboard: 15",
    ):
        parsed = parse_decklist(f"4 Lightning Bolt\n{header}\n2 Duress")
        assert cards(parsed.main) == [(4, "Lightning Bolt")], header
        assert cards(parsed.side) == [(2, "Duress")], header
        assert parsed.problems == (), header


def test_with_a_sideboard_header_blank_lines_are_only_spacing() -> None:
    parsed = parse_decklist("4 Goblin Guide\n\n4 Lightning Bolt\n\nSideboard\n2 Duress")
    assert cards(parsed.main) == [(4, "Goblin Guide"), (4, "Lightning Bolt")]
    assert cards(parsed.side) == [(2, "Duress")]


def test_sb_on_a_line_puts_that_card_in_the_sideboard() -> None:
    parsed = parse_decklist("4 Lightning Bolt\nSB: 2 Duress\nSB:1 Negate\n4 Counterspell")
    assert cards(parsed.main) == [(4, "Lightning Bolt"), (4, "Counterspell")]
    assert cards(parsed.side) == [(2, "Duress"), (1, "Negate")]


def test_comments_are_ignored() -> None:
    parsed = parse_decklist(
        "// Burn by Ann\n# creatures\n4 Goblin Guide\n// spells\n4 Lightning Bolt"
    )
    assert cards(parsed.main) == [(4, "Goblin Guide"), (4, "Lightning Bolt")]
    assert parsed.problems == ()


def test_group_headers_of_deck_sites_are_ignored() -> None:
    parsed = parse_decklist(
        "Creatures (4)\n4 Goblin Guide\nInstants\n4 Lightning Bolt\nLands: 20\n20 Mountain"
    )
    assert cards(parsed.main) == [(4, "Goblin Guide"), (4, "Lightning Bolt"), (20, "Mountain")]
    assert parsed.problems == ()


def test_a_count_of_zero_is_a_problem() -> None:
    parsed = parse_decklist("4 Lightning Bolt\n0 Counterspell")
    assert [str(p) for p in parsed.problems] == ["line 2: a count of 0: leave the card out instead"]


def test_a_count_over_250_is_a_problem() -> None:
    parsed = parse_decklist(
        "251 Relentless Rats\n250 Shadowborn Apostle\n99999999999999999999999 Island"
    )
    assert cards(parsed.main) == [(250, "Shadowborn Apostle")]
    assert [p.line for p in parsed.problems] == [1, 3]
    assert "more than 250" in str(parsed.problems[0].message)
    assert "more than 250" in str(parsed.problems[1].message)


def test_a_count_in_other_digits_is_a_problem() -> None:
    parsed = parse_decklist("٤ Lightning Bolt\n４ Counterspell")
    assert parsed.main == ()
    assert [p.line for p in parsed.problems] == [1, 2]
    assert all("digits 0-9" in str(p.message) for p in parsed.problems)


def test_a_count_without_a_name_is_a_problem() -> None:
    parsed = parse_decklist("4 (M10) 146")
    assert parsed.main == ()
    assert [str(p) for p in parsed.problems] == ["line 1: the line has a count but no card name"]


def test_a_very_long_name_is_a_problem() -> None:
    parsed = parse_decklist("4 " + "a" * 201)
    assert parsed.main == ()
    assert parsed.problems[0].line == 1


def test_duplicate_names_keep_their_lines() -> None:
    parsed = parse_decklist("2 Lightning Bolt\n2 Lightning Bolt")
    assert parsed.main == (
        Line(1, 2, "Lightning Bolt", "main"),
        Line(2, 2, "Lightning Bolt", "main"),
    )


def test_a_list_of_250_lines_is_read() -> None:
    parsed = parse_decklist("\n".join(["1 Island"] * MAX_LINES))
    assert len(parsed.main) == MAX_LINES
    assert parsed.problems == ()


def test_a_list_of_more_than_250_lines_is_one_problem_and_nothing_else() -> None:
    parsed = parse_decklist("\n".join(["1 Island"] * (MAX_LINES + 1)))
    assert parsed == Parsed(problems=(Problem(None, m.TOO_MANY_LINES(most=250)),))


def test_trailing_blank_lines_do_not_count_towards_the_limit() -> None:
    parsed = parse_decklist("\n".join(["1 Island"] * MAX_LINES) + "\n\n\n\n")
    assert len(parsed.main) == MAX_LINES


def test_windows_and_old_mac_line_ends() -> None:
    parsed = parse_decklist("4 Lightning Bolt\r\n\r\n2 Duress\r1 Negate")
    assert cards(parsed.main) == [(4, "Lightning Bolt")]
    assert parsed.side == (Line(3, 2, "Duress", "side"), Line(4, 1, "Negate", "side"))


def test_a_byte_order_mark_is_not_part_of_the_first_line() -> None:
    assert cards(parse_decklist("\ufeff4 Lightning Bolt").main) == [(4, "Lightning Bolt")]


def test_an_empty_list_is_empty() -> None:
    assert parse_decklist("") == Parsed()
    assert parse_decklist("  \n\n ") == Parsed()


# --- real-world exports -----------------------------------------------------------------

MTGO_TXT = """4 Goblin Guide
4 Monastery Swiftspear
4 Eidolon of the Great Revel
4 Lightning Bolt
4 Lava Spike
4 Rift Bolt
4 Skewer the Critics
4 Boros Charm
4 Lightning Helix
4 Searing Blaze
2 Skullcrack
4 Inspiring Vantage
4 Sacred Foundry
4 Arid Mesa
2 Bloodstained Mire
4 Mountain

3 Path to Exile
2 Deflecting Palm
4 Kor Firewalker
3 Rest in Peace
3 Smash to Smithereens
"""


def test_an_mtgo_txt_export() -> None:
    parsed = parse_decklist(MTGO_TXT)
    assert sum(line.count for line in parsed.main) == 60
    assert sum(line.count for line in parsed.side) == 15
    assert parsed.side[0] == Line(18, 3, "Path to Exile", "side")
    assert parsed.problems == ()


ARENA = """Companion
1 Lurrus of the Dream-Den (IKO) 226

Deck
4 Delver of Secrets (MID) 47
4 Consider (MID) 44
4 Fire // Ice (MH2) 290
3 Expressive Iteration (STX) 186
18 Island (ZNR) 381
27 Mountain (ZNR) 391

Sideboard
2 Aether Gust (M20) 42
1 Lurrus of the Dream-Den (IKO) 226
"""


def test_an_arena_export_with_set_codes_and_a_companion() -> None:
    parsed = parse_decklist(ARENA)
    assert cards(parsed.main) == [
        (4, "Delver of Secrets"),
        (4, "Consider"),
        (4, "Fire // Ice"),
        (3, "Expressive Iteration"),
        (18, "Island"),
        (27, "Mountain"),
    ]
    assert cards(parsed.side) == [
        (1, "Lurrus of the Dream-Den"),
        (2, "Aether Gust"),
        (1, "Lurrus of the Dream-Den"),
    ]
    assert parsed.side[0].number == 2
    assert parsed.problems == ()


def test_an_arena_export_with_about_and_commander() -> None:
    text = "About\nName Izzet Tempo\n\nCommander\n1 Niv-Mizzet, Parun (GRN) 192\n\nDeck\n59 Island (ZNR) 381\n"
    parsed = parse_decklist(text)
    assert cards(parsed.main) == [(59, "Island")]
    assert cards(parsed.side) == [(1, "Niv-Mizzet, Parun")]
    assert parsed.problems == ()


def test_set_codes_with_letters_in_collector_numbers_and_foil_marks() -> None:
    parsed = parse_decklist(
        "1 Lightning Bolt (PLST) 2XM-123 *F*\n1 Brainstorm (STA) 13★\n2 Counterspell *F*"
    )
    assert cards(parsed.main) == [(1, "Lightning Bolt"), (1, "Brainstorm"), (2, "Counterspell")]


def test_a_name_with_parentheses_of_its_own_is_kept() -> None:
    parsed = parse_decklist("1 B.F.M. (Big Furry Monster)")
    assert cards(parsed.main) == [(1, "B.F.M. (Big Furry Monster)")]


def test_names_starting_with_digits() -> None:
    assert cards(parse_decklist("1 1996 World Champion").main) == [(1, "1996 World Champion")]


# --- MTGO's .dek ------------------------------------------------------------------------

DEK = """<?xml version="1.0" encoding="utf-8"?>
<Deck xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <NetDeckID>0</NetDeckID>
  <PreconstructedDeckID>0</PreconstructedDeckID>
  <Cards CatID="49472" Quantity="4" Sideboard="false" Name="Lightning Bolt" Annotation="0" />
  <Cards CatID="53873" Quantity="56" Sideboard="false" Name="Mountain" Annotation="0" />
  <Cards CatID="34290" Quantity="2" Sideboard="true" Name="Duress" Annotation="0" />
  <Cards CatID="12345" Quantity="1" Sideboard="false" Name="Fire/Ice" Annotation="0" />
</Deck>
"""


def test_an_mtgo_dek_file() -> None:
    parsed = parse_dek(DEK)
    assert parsed.main == (
        Line(5, 4, "Lightning Bolt", "main"),
        Line(6, 56, "Mountain", "main"),
        Line(8, 1, "Fire/Ice", "main"),
    )
    assert parsed.side == (Line(7, 2, "Duress", "side"),)
    assert parsed.problems == ()


def test_a_dek_file_with_bad_quantities_names_their_lines() -> None:
    text = (
        '<Deck>\n<Cards Quantity="0" Sideboard="false" Name="Island"/>\n'
        '<Cards Quantity="four" Sideboard="false" Name="Bolt"/>\n'
        '<Cards Quantity="2" Sideboard="false"/>\n'
        '<Cards Sideboard="false" Name="Duress"/>\n</Deck>'
    )
    parsed = parse_dek(text)
    assert parsed.main == ()
    assert [p.line for p in parsed.problems] == [2, 3, 4, 5]


def test_a_dek_file_declaring_entities_is_refused() -> None:
    bomb = (
        '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
        '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>\n'
        '<Deck><Cards Quantity="1" Sideboard="false" Name="&lol2;"/></Deck>'
    )
    parsed = parse_dek(bomb)
    assert parsed.main == ()
    assert [p.line for p in parsed.problems] == [None]
    assert "DOCTYPE" in str(parsed.problems[0].message)


def test_a_dek_file_with_an_external_entity_is_refused() -> None:
    text = '<!DOCTYPE Deck SYSTEM "file:///etc/passwd"><Deck/>'
    assert "DOCTYPE" in str(parse_dek(text).problems[0].message)


def test_a_malformed_dek_file_is_one_problem() -> None:
    parsed = parse_dek('<Deck><Cards Quantity="4" Name="Lightning Bolt">')
    assert parsed.main == ()
    assert len(parsed.problems) == 1
    assert "not well-formed XML" in str(parsed.problems[0].message)


def test_xml_that_is_not_a_deck_is_one_problem() -> None:
    parsed = parse_dek('<html><Cards Quantity="4" Name="Lightning Bolt"/></html>')
    assert parsed == Parsed(problems=(Problem(None, m.DEK_NOT_DEK()),))


def test_a_dek_file_with_more_than_250_entries_is_one_problem() -> None:
    entries = "".join(
        '<Cards Quantity="1" Sideboard="false" Name="Island"/>' for _ in range(MAX_LINES + 1)
    )
    parsed = parse_dek(f"<Deck>{entries}</Deck>")
    assert parsed.main == ()
    assert len(parsed.problems) == 1


# --- properties -------------------------------------------------------------------------


def _line_count(text: str) -> int:
    return len(re.split(r"\r\n|\r|\n", text))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=2000))
def test_any_text_is_read_without_raising_and_every_line_is_sound(text: str) -> None:
    parsed = parse_decklist(text)
    for line in (*parsed.main, *parsed.side):
        assert 1 <= line.count <= 250
        assert 1 <= line.number <= _line_count(text)
        assert line.name == line.name.strip() and line.name
    for problem in parsed.problems:
        assert problem.line is None or 1 <= problem.line <= _line_count(text)


_LINE_ALPHABET = st.sampled_from(
    [
        "4 ",
        "1 ",
        "250 ",
        "0 ",
        "SB: ",
        "Sideboard",
        "\n",
        "\n\n",
        " (M10) 1",
        "//",
        "x",
        "Bolt",
        "Æ",
        "٤",
        " ",
        "#",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE_ALPHABET, max_size=60).map("".join))
def test_list_like_text_is_read_without_raising(text: str) -> None:
    parsed = parse_decklist(text)
    for line in (*parsed.main, *parsed.side):
        assert 1 <= line.count <= 250
        assert 1 <= line.number <= _line_count(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=500))
def test_any_dek_text_is_read_without_raising(text: str) -> None:
    parse_dek(text)
    parse_dek(f"<Deck>{text}</Deck>")


_WORD = st.text(
    alphabet="abcdefghijklmnopqrstuvwyzABCDEFGHIJKLMNOPQRSTUVWYZ',-", min_size=2, max_size=10
).filter(lambda w: w[0].isalpha())
_NAME = (
    st.lists(_WORD, min_size=1, max_size=4)
    .map(" ".join)
    .filter(lambda n: parse_decklist(f"1 {n}").main == (Line(1, 1, n, "main"),))
)
_SECTION = st.lists(st.tuples(st.integers(1, 250), _NAME), max_size=20)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 250), _NAME), min_size=1, max_size=20),
    _SECTION,
    st.booleans(),
)
def test_generated_lists_read_back_as_written(
    main: list[tuple[int, str]], side: list[tuple[int, str]], header: bool
) -> None:
    text = "\n".join(f"{count} {name}" for count, name in main)
    if side:
        separator = "\n\nSideboard\n" if header else "\n\n"
        text += separator + "\n".join(f"{count}x {name}" for count, name in side)
    parsed = parse_decklist(text)
    assert cards(parsed.main) == main
    assert cards(parsed.side) == side
    assert parsed.problems == ()


def test_a_count_alone_is_a_problem() -> None:
    parsed = parse_decklist("4\n3x")
    assert [str(p) for p in parsed.problems] == [
        "line 1: the line has a count but no card name",
        "line 2: the line has a count but no card name",
    ]


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=80))
def test_a_key_is_its_own_key(name: str) -> None:
    assert card_key(card_key(name)) == card_key(name)
