"""Checking decklists (issue 28): sizes, copies, card names and legality per format, and
the order a deck check counts a list in. Card data is an in-memory CardIndex."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.decklists import messages as m
from tournaments.decklists.check import check_decklist, deck_check_order
from tournaments.decklists.lookup import CardIndex
from tournaments.decklists.parse import card_key, parse_decklist
from tournaments.decklists.types import CardInfo, Line, Parsed, Problem

FORMATS = ("standard", "pioneer", "modern", "legacy", "vintage", "pauper")


def legal(
    *,
    banned: tuple[str, ...] = (),
    restricted: tuple[str, ...] = (),
    not_legal: tuple[str, ...] = (),
) -> dict[str, str]:
    result = {f: "legal" for f in FORMATS}
    result.update({f: "banned" for f in banned})
    result.update({f: "restricted" for f in restricted})
    result.update({f: "not_legal" for f in not_legal})
    return result


CARDS = CardIndex(
    [
        CardInfo("Lightning Bolt", "Instant", legal(not_legal=("standard", "pioneer"))),
        CardInfo("Counterspell", "Instant", legal(not_legal=("standard", "pioneer", "modern"))),
        CardInfo(
            "Goblin Guide", "Creature \u2014 Goblin Scout", legal(not_legal=("standard", "pauper"))
        ),
        CardInfo("Fire // Ice", "Instant // Instant", legal(not_legal=("standard", "pioneer"))),
        CardInfo(
            "Delver of Secrets // Insectile Aberration",
            "Creature \u2014 Human Wizard // Creature \u2014 Human Insect",
            legal(not_legal=("standard", "pioneer")),
        ),
        CardInfo(
            "Black Lotus",
            "Artifact",
            legal(
                banned=("legacy",),
                restricted=("vintage",),
                not_legal=("standard", "pioneer", "modern", "pauper"),
            ),
        ),
        CardInfo("Mountain", "Basic Land \u2014 Mountain", legal(), any_number=True),
        CardInfo("Snow-Covered Island", "Basic Snow Land \u2014 Island", legal(), any_number=True),
        CardInfo(
            "Relentless Rats",
            "Creature \u2014 Rat",
            legal(not_legal=("standard",)),
            any_number=True,
        ),
        CardInfo(
            "Seven Dwarves",
            "Creature \u2014 Dwarf",
            legal(not_legal=("standard", "pioneer")),
            max_copies=7,
        ),
        CardInfo(
            "Nazg\u00fbl",
            "Creature \u2014 Wraith Knight",
            legal(not_legal=("standard", "pioneer")),
            max_copies=9,
        ),
        CardInfo("\u00c6ther Vial", "Artifact", legal(not_legal=("standard", "pioneer", "pauper"))),
        CardInfo(
            "Liliana of the Veil",
            "Legendary Planeswalker \u2014 Liliana",
            legal(not_legal=("standard", "pioneer", "pauper")),
        ),
        CardInfo("Duress", "Sorcery", legal()),
        CardInfo("Rest in Peace", "Enchantment", legal(not_legal=("pauper",))),
        CardInfo(
            "Dryad Arbor",
            "Land Creature \u2014 Forest Dryad",
            legal(not_legal=("standard", "pioneer", "pauper")),
        ),
        CardInfo(
            "Invasion of Zendikar // Awakened Skyclave",
            "Battle \u2014 Siege // Creature \u2014 Elemental",
            legal(),
        ),
        CardInfo("Conspiracy Thing", "Conspiracy", legal(not_legal=FORMATS)),
    ]
)


def messages(problems: list[Problem]) -> list[str]:
    return [str(p) for p in problems]


def deck(*lines: str, side: tuple[str, ...] = ()) -> Parsed:
    text = "\n".join(lines)
    if side:
        text += "\n\nSideboard\n" + "\n".join(side)
    return parse_decklist(text)


# --- sizes ------------------------------------------------------------------------------


def test_a_sixty_card_main_deck_and_fifteen_card_sideboard_is_legal() -> None:
    parsed = deck("4 Lightning Bolt", "56 Mountain", side=("4 Duress", "11 Mountain"))
    assert check_decklist(parsed, deck_format="modern", cards=None) == []
    assert check_decklist(parsed, deck_format="legacy", cards=CARDS) == []


def test_a_constructed_main_deck_under_sixty_is_a_list_wide_problem() -> None:
    problems = check_decklist(
        deck("4 Lightning Bolt", "54 Mountain"), deck_format="modern", cards=None
    )
    assert problems == [Problem(None, m.MAIN_TOO_SMALL(count=58, least=60))]


def test_a_constructed_sideboard_over_fifteen_is_a_problem() -> None:
    parsed = deck("60 Mountain", side=("4 Duress", "12 Mountain"))
    assert messages(check_decklist(parsed, deck_format="legacy", cards=None)) == [
        "the sideboard has 16 cards: at most 15 are allowed"
    ]


def test_no_format_is_checked_as_constructed_without_legality() -> None:
    parsed = deck("4 Lightning Bolt", "4 Lightning Bolt", "52 Mountain")
    assert messages(check_decklist(parsed, deck_format="", cards=CARDS)) == [
        "line 1: 8 copies of Lightning Bolt (main deck and sideboard): at most 4 allowed"
    ]


def test_a_limited_main_deck_needs_forty_cards() -> None:
    assert messages(check_decklist(deck("39 Mountain"), deck_format="limited", cards=None)) == [
        "the main deck has 39 cards: at least 40 are needed"
    ]
    assert check_decklist(deck("40 Mountain"), deck_format="limited", cards=None) == []


def test_a_limited_pool_of_any_size_is_the_sideboard_and_has_no_copy_limit() -> None:
    parsed = deck("9 Goblin Guide", "31 Mountain", side=("45 Duress",))
    assert check_decklist(parsed, deck_format="limited", cards=CARDS) == []
    assert check_decklist(parsed, deck_format="limited", cards=None) == []


def test_an_empty_list_is_too_small() -> None:
    assert messages(check_decklist(Parsed(), deck_format="standard", cards=None)) == [
        "the main deck has 0 cards: at least 60 are needed"
    ]


# --- copies -----------------------------------------------------------------------------


def test_five_copies_across_main_and_sideboard_is_a_problem_on_the_first_line() -> None:
    parsed = deck("3 Lightning Bolt", "57 Mountain", side=("2 Lightning Bolt",))
    for cards in (None, CARDS):
        assert messages(check_decklist(parsed, deck_format="modern", cards=cards)) == [
            "line 1: 5 copies of Lightning Bolt (main deck and sideboard): at most 4 allowed"
        ]


def test_names_written_differently_are_one_card_for_counting() -> None:
    parsed = deck("2 Lightning Bolt", "2 lightning  bolt", "1 LIGHTNING BOLT", "55 Mountain")
    assert messages(check_decklist(parsed, deck_format="", cards=None)) == [
        "line 1: 5 copies of Lightning Bolt (main deck and sideboard): at most 4 allowed"
    ]


def test_a_front_face_and_the_full_name_are_one_card() -> None:
    parsed = deck("3 Fire // Ice", "2 Fire", "55 Mountain")
    assert messages(check_decklist(parsed, deck_format="legacy", cards=CARDS)) == [
        "line 1: 5 copies of Fire // Ice (main deck and sideboard): at most 4 allowed"
    ]


def test_basic_lands_have_no_limit_with_or_without_card_data() -> None:
    parsed = deck(
        "20 Mountain",
        "20 Snow-Covered Island",
        "20 Wastes",
        side=("10 Plains", "5 Snow-Covered Forest"),
    )
    assert check_decklist(parsed, deck_format="modern", cards=None) == []


def test_cards_that_allow_any_number_have_no_limit() -> None:
    parsed = deck("40 Relentless Rats", "20 Mountain")
    assert check_decklist(parsed, deck_format="modern", cards=CARDS) == []


def test_without_card_data_only_basics_are_free_of_the_limit() -> None:
    parsed = deck("40 Relentless Rats", "20 Mountain")
    assert messages(check_decklist(parsed, deck_format="modern", cards=None)) == [
        "line 1: 40 copies of Relentless Rats (main deck and sideboard): at most 4 allowed"
    ]


def test_cards_that_allow_up_to_n_copies() -> None:
    ok = deck("7 Seven Dwarves", "9 Nazgul", "44 Mountain")
    assert check_decklist(ok, deck_format="legacy", cards=CARDS) == []
    too_many = deck("8 Seven Dwarves", "10 Nazgûl", "42 Mountain")
    assert messages(check_decklist(too_many, deck_format="legacy", cards=CARDS)) == [
        "line 1: 8 copies of Seven Dwarves (main deck and sideboard): at most 7 allowed",
        "line 2: 10 copies of Nazgûl (main deck and sideboard): at most 9 allowed",
    ]


# --- names and legality -----------------------------------------------------------------


def test_an_unknown_name_is_a_problem_with_a_suggestion() -> None:
    parsed = deck("4 Lightning Blot", "56 Mountain")
    assert messages(check_decklist(parsed, deck_format="modern", cards=CARDS)) == [
        "line 1: 'Lightning Blot' is not a card; did you mean Lightning Bolt?"
    ]


def test_an_unknown_name_far_from_every_card_has_no_suggestion() -> None:
    parsed = deck("4 Zzyzx Qwerty", "56 Mountain")
    assert messages(check_decklist(parsed, deck_format="modern", cards=CARDS)) == [
        "line 1: 'Zzyzx Qwerty' is not a card"
    ]


def test_an_unknown_name_on_several_lines_is_one_problem() -> None:
    parsed = deck("2 Lightning Blot", "54 Mountain", side=("2 Lightning Blot",))
    assert [p.line for p in check_decklist(parsed, deck_format="modern", cards=CARDS)] == [1, None]


def test_names_match_whatever_the_case_accents_and_apostrophes() -> None:
    parsed = deck("4 aether vial", "4 nazgul", "4 FIRE/ICE", "4 Delver of Secrets", "44 mountain")
    assert check_decklist(parsed, deck_format="legacy", cards=CARDS) == []


def test_a_banned_card_is_a_problem_naming_the_format() -> None:
    parsed = deck("1 Black Lotus", "59 Mountain")
    assert messages(check_decklist(parsed, deck_format="legacy", cards=CARDS)) == [
        "line 1: Black Lotus is banned in Legacy"
    ]


def test_a_card_not_legal_in_the_format_is_a_problem() -> None:
    parsed = deck("4 Lightning Bolt", "56 Mountain")
    assert messages(check_decklist(parsed, deck_format="pioneer", cards=CARDS)) == [
        "line 1: Lightning Bolt is not legal in Pioneer"
    ]
    conspiracy = deck("1 Conspiracy Thing", "59 Mountain")
    assert messages(check_decklist(conspiracy, deck_format="vintage", cards=CARDS)) == [
        "line 1: Conspiracy Thing is not legal in Vintage"
    ]


def test_a_restricted_card_allows_one_copy() -> None:
    one = deck("1 Black Lotus", "59 Mountain")
    assert check_decklist(one, deck_format="vintage", cards=CARDS) == []
    two = deck("1 Black Lotus", "59 Mountain", side=("1 Black Lotus",))
    assert messages(check_decklist(two, deck_format="vintage", cards=CARDS)) == [
        "line 1: Black Lotus is restricted in Vintage: at most 1 copy, the list has 2"
    ]


def test_a_card_without_a_legality_for_the_format_is_not_legal() -> None:
    cards = CardIndex(
        [
            CardInfo("Odd Card", "Instant", {}),
            CardInfo("Mountain", "Basic Land", legal(), any_number=True),
        ]
    )
    parsed = deck("1 Odd Card", "59 Mountain")
    assert messages(check_decklist(parsed, deck_format="modern", cards=cards)) == [
        "line 1: Odd Card is not legal in Modern"
    ]


def test_limited_does_not_check_legality_but_does_check_names() -> None:
    parsed = deck("1 Black Lotus", "1 Lightning Blot", "39 Mountain")
    assert messages(check_decklist(parsed, deck_format="limited", cards=CARDS)) == [
        "line 2: 'Lightning Blot' is not a card; did you mean Lightning Bolt?"
    ]


def test_without_card_data_names_are_not_checked() -> None:
    parsed = deck("4 Lightning Blot", "1 Black Lotus", "55 Mountain")
    assert check_decklist(parsed, deck_format="legacy", cards=None) == []


def test_problems_of_reading_come_first_then_lines_in_order_then_the_whole_list() -> None:
    parsed = deck(
        "5 Lightning Bolt", "Counterspell", "1 Black Lotus", "4 Lightning Blot", side=("0 Duress",)
    )
    assert messages(check_decklist(parsed, deck_format="legacy", cards=CARDS)) == [
        "line 2: 'Counterspell' has no count: write it as '1 Counterspell'",
        "line 7: a count of 0: leave the card out instead",
        "line 1: 5 copies of Lightning Bolt (main deck and sideboard): at most 4 allowed",
        "line 3: Black Lotus is banned in Legacy",
        "line 4: 'Lightning Blot' is not a card; did you mean Lightning Bolt?",
        "the main deck has 10 cards: at least 60 are needed",
    ]


def test_a_misspelled_front_face_suggests_the_front_face() -> None:
    assert CARDS.suggest(card_key("Delver of Secret")) == "Delver of Secrets"
    assert CARDS.suggest(card_key("Fire // Ise")) == "Fire // Ice"
    assert CARDS.suggest("") is None


# --- the deck check's order -------------------------------------------------------------


def test_a_deck_check_groups_by_card_type_then_name() -> None:
    parsed = deck(
        "20 Mountain",
        "4 Lightning Bolt",
        "4 Goblin Guide",
        "1 Dryad Arbor",
        "4 Duress",
        "1 Black Lotus",
        "4 Delver of Secrets",
        "2 Liliana of the Veil",
        "1 Rest in Peace",
        "1 Invasion of Zendikar",
        "2 Fire // Ice",
        "1 Conspiracy Thing",
        "3 Lightning Blot",
    )
    order = deck_check_order(parsed.main, CARDS)
    assert [(kind, [line.name for line in lines]) for kind, lines in order] == [
        ("Creature", ["Delver of Secrets", "Dryad Arbor", "Goblin Guide"]),
        ("Planeswalker", ["Liliana of the Veil"]),
        ("Instant", ["Fire // Ice", "Lightning Bolt"]),
        ("Sorcery", ["Duress"]),
        ("Artifact", ["Black Lotus"]),
        ("Enchantment", ["Rest in Peace"]),
        ("Battle", ["Invasion of Zendikar"]),
        ("Land", ["Mountain"]),
        ("Other", ["Conspiracy Thing", "Lightning Blot"]),
    ]


def test_without_card_data_a_deck_check_is_one_group_by_name() -> None:
    lines = [
        Line(1, 4, "lightning bolt", "main"),
        Line(2, 4, "Goblin Guide", "main"),
        Line(3, 1, "Æther Vial", "main"),
    ]
    assert deck_check_order(lines, None) == [("Cards", [lines[2], lines[1], lines[0]])]


def test_an_empty_section_has_no_groups() -> None:
    assert deck_check_order([], None) == []
    assert deck_check_order([], CARDS) == []


def test_the_index_finds_cards_by_key_and_front_face() -> None:
    assert CARDS.get("fire // ice") is CARDS.get("fire")
    assert CARDS.get("delver of secrets") is not None
    assert CARDS.get("insectile aberration") is None
    assert len(CARDS) == 18


def test_a_card_named_like_another_cards_front_face_stays_itself() -> None:
    cards = CardIndex([CardInfo("Fire // Ice", "Instant // Instant"), CardInfo("Fire", "Sorcery")])
    info = cards.get("fire")
    assert info is not None and info.name == "Fire"


def _crowd() -> CardIndex:
    """Thousands of names sharing common trigrams ("of the", "er "), as real card data
    has, so the suggestion's prefilter meets the crowd it is built for."""
    firsts = [
        "Arcane",
        "Burning",
        "Elder",
        "Grim",
        "Hidden",
        "Molten",
        "Silent",
        "Storm",
        "Wild",
        "Vengeful",
    ]
    nouns = [
        "Archer",
        "Drake",
        "Giant",
        "Herald",
        "Keeper",
        "Ranger",
        "Seeker",
        "Warder",
        "Walker",
        "Zealot",
    ]
    places = [
        "the Deep",
        "the Forge",
        "the Meek",
        "the Spire",
        "the Tides",
        "the Void",
        "Dawn",
        "Dusk",
        "Winter",
        "Thorns",
    ]
    names = [f"{a} {n} of {p}" for a in firsts for n in nouns for p in places]
    names += [f"{n} of {p}" for n in nouns for p in places] + [
        f"{a} {n}" for a in firsts for n in nouns
    ]
    return CardIndex(
        [CardInfo(name, "Creature") for name in names] + [CardInfo("Lightning Bolt", "Instant")]
    )


def test_suggestions_find_the_right_name_in_a_crowd_of_similar_ones() -> None:
    crowd = _crowd()
    assert len(crowd) == 1000 + 100 + 100 + 1
    typos = {
        "Grim Keeper of the Spier": "Grim Keeper of the Spire",
        "Molten Zealotof Dusk": "Molten Zealot of Dusk",
        "wild drake of the forge": "Wild Drake of the Forge",
        "Elder Rangr": "Elder Ranger",
        "Storm Warder of th Void": "Storm Warder of the Void",
        "Lightnig Bolt": "Lightning Bolt",
        "Herald of Winterr": "Herald of Winter",
    }
    for typo, meant in typos.items():
        assert crowd.suggest(card_key(typo)) == meant, typo


def test_a_name_made_only_of_common_trigrams_still_gets_an_answer() -> None:
    crowd = _crowd()
    assert crowd.suggest(card_key("of the")) is None
    assert crowd.suggest(card_key("xyzzy")) is None
    answer = crowd.suggest(card_key("Keeper of the"))
    assert answer is not None and answer.startswith("Keeper of ")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=1000), st.sampled_from(["", "standard", "vintage", "limited", "unknown"]))
def test_any_text_is_checked_without_raising(text: str, deck_format: str) -> None:
    parsed = parse_decklist(text)
    for cards in (None, CARDS):
        problems = check_decklist(parsed, deck_format=deck_format, cards=cards)
        assert problems[: len(parsed.problems)] == list(parsed.problems)
        deck_check_order(parsed.main, cards)
