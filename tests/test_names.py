"""Names (issue 24 item 12): stored in NFC with whitespace collapsed, control and
invisible characters refused with a message naming the field, and a name that only looks
like one already in the event refused to a player and shown to the organizer, who may
add it anyway. The rules are tournaments/names.py, used by every way a name comes in."""

from __future__ import annotations

import copy
import unicodedata
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments import names, services
from tournaments.models import Player, Tournament
from tournaments.services import registration as reg
from tournaments.services.imports import restore_document
from tournaments.services.writing import ServiceError

# Each looks like nothing, or moves what follows; all went into names before.
INVISIBLE = {
    "\u200b": "ZERO WIDTH SPACE",
    "\u200c": "ZERO WIDTH NON-JOINER",
    "\u200d": "ZERO WIDTH JOINER",
    "\ufeff": "ZERO WIDTH NO-BREAK SPACE",  # the BOM
    "\u202e": "RIGHT-TO-LEFT OVERRIDE",
    "\u2066": "LEFT-TO-RIGHT ISOLATE",
    "\u200f": "RIGHT-TO-LEFT MARK",
    "\u00ad": "SOFT HYPHEN",
    "\u2060": "WORD JOINER",
    "\u3164": "HANGUL FILLER",
    "\u034f": "COMBINING GRAPHEME JOINER",
    "\ufe0f": "VARIATION SELECTOR-16",
    "\U000e0041": "TAG LATIN CAPITAL LETTER A",
}

CYRILLIC_A = "\u0410"  # prints as a Latin capital A
GREEK_CAPITALS = "\u0391\u0392\u0395"  # ALPHA BETA EPSILON: "ABE" on paper


@pytest.fixture
def event(owner: Any) -> Tournament:
    t = services.create_tournament(name="Names Open", owner=owner, seed=3)
    return reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=False, check_in=False, by=owner
    )


# --- The rules (no database) -----------------------------------------------------------


@given(st.text(max_size=40))
def test_a_cleaned_name_is_nfc_single_spaced_visible_and_stays_as_it_is_cleaned_again(
    text: str,
) -> None:
    try:
        cleaned = names.clean(text)
    except names.NameRefused as exc:
        assert str(exc).startswith(("Give your name", "The name "))
        return
    assert cleaned == unicodedata.normalize("NFC", cleaned) == names.clean(cleaned)
    assert cleaned == cleaned.strip() and "  " not in cleaned
    # An invisible character only inside an emoji sequence (tests/test_names_emoji.py).
    assert names.hidden(cleaned) is None
    assert not any(ch.isspace() and ch != " " for ch in cleaned)


@given(st.text(alphabet="AaBEeHKMOoPpCcTXxYy ", min_size=1, max_size=20), st.data())
def test_a_name_with_cyrillic_letters_for_latin_ones_has_the_latin_names_skeleton(
    latin: str, data: st.DataObject
) -> None:
    twins = dict(zip("AaBEeHKMOoPpCcTXxYy", "АаВЕеНКМОоРрСсТХхУу", strict=True))
    mixed = "".join(twins.get(ch, ch) if data.draw(st.booleans()) else ch for ch in latin)
    assert names.skeleton(mixed) == names.skeleton(latin)


def test_look_alikes_are_found_and_different_names_are_not() -> None:
    assert names.lookalike(CYRILLIC_A + "lex", ["Ana", "Alex"]) == "Alex"
    assert names.lookalike(GREEK_CAPITALS, ["Alex", "Abe"]) == "Abe"
    assert names.lookalike("\uff21\uff4c\uff45\uff58", ["Alex"]) == "Alex"  # full-width
    assert names.lookalike("ALEX", ["Alex"]) is None  # the same name: a duplicate
    assert names.lookalike("José", ["Jose"]) is None  # an accent is seen
    assert names.lookalike("Ian", ["Lan", "Jan"]) is None
    # A pasted list: against the event's names and the list's own earlier ones.
    pasted = ["Ben", CYRILLIC_A + "lex", "B\u0435n", "ben"]  # Cyrillic small ie in the third
    assert names.lookalikes(pasted, ["Alex"]) == [(CYRILLIC_A + "lex", "Alex"), ("B\u0435n", "Ben")]
    # What the organizer may have typed is shown as typed: only comparisons fold.
    assert names.clean("\uff21lex") == "\uff21lex"


# --- Self-registration ------------------------------------------------------------------


@pytest.mark.parametrize("ch", list(INVISIBLE), ids=list(INVISIBLE.values()))
def test_a_name_with_an_invisible_character_is_refused_naming_the_field_and_character(
    event: Tournament, ch: str
) -> None:
    with pytest.raises(reg.FieldRefused) as refused:
        reg.register_self(tournament=event, name=f"Ana{ch} Lopez")
    assert refused.value.field == "name"
    assert str(refused.value).startswith("The name holds an invisible character")
    assert INVISIBLE[ch] in str(refused.value)
    assert not event.players.exists()


def test_a_name_is_stored_in_nfc_with_its_whitespace_collapsed(event: Tournament) -> None:
    player, _token = reg.register_self(tournament=event, name=" Jose\u0301\u00a0\u2003Lopez ")
    assert player.name == "José Lopez" == Player.objects.get(pk=player.pk).name
    with pytest.raises(reg.FieldRefused, match="already registered"):
        reg.register_self(tournament=event, name="JOSE\u0301 LOPEZ")  # the same name


def test_a_look_alike_of_a_registered_name_is_refused_naming_the_existing_player(
    event: Tournament,
) -> None:
    reg.register_self(tournament=event, name="Alex Smith")
    with pytest.raises(reg.FieldRefused) as refused:
        reg.register_self(tournament=event, name=CYRILLIC_A + "lex Smith")
    assert refused.value.field == "name"
    assert "looks like Alex Smith, who is already registered" in str(refused.value)
    assert list(event.players.values_list("name", flat=True)) == ["Alex Smith"]


def test_the_registration_page_shows_the_refusal_beside_the_name(
    client: Any, event: Tournament
) -> None:
    reg.register_self(tournament=event, name="Alex")
    response = client.post(f"/t/{event.slug}/register/", {"name": CYRILLIC_A + "lex"})
    assert response.status_code == 422
    assert "looks like Alex, who is already registered" in response.content.decode()
    response = client.post(f"/t/{event.slug}/register/", {"name": "Bo\u200bb"})
    assert response.status_code == 422
    assert "The name holds an invisible character" in response.content.decode()


# --- The organizer ----------------------------------------------------------------------


def test_the_organizer_is_warned_of_a_look_alike_and_may_add_it(
    event: Tournament, owner: Any
) -> None:
    services.register_players(tournament=event, names=["Alex"], by=owner)
    with pytest.raises(services.DuplicateNames) as warned:
        services.register_players(tournament=event, names=["Ben", CYRILLIC_A + "lex"], by=owner)
    assert warned.value.lookalikes == [(CYRILLIC_A + "lex", "Alex")]
    assert f"{CYRILLIC_A}lex looks like Alex" in str(warned.value)
    added = services.register_players(
        tournament=event, names=["Ben", CYRILLIC_A + "lex"], allow_duplicates=True, by=owner
    )
    assert [p.name for p in added] == ["Ben", CYRILLIC_A + "lex"]


def test_the_organizers_add_screen_shows_the_look_alike_warning_then_adds_it(
    oc: Any, event: Tournament, owner: Any
) -> None:
    services.register_players(tournament=event, names=["Alex"], by=owner)
    url = f"/t/{event.slug}/manage/players/add/"
    response = oc.post(url, {"name": CYRILLIC_A + "lex"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 422
    assert "looks like Alex" in response.content.decode()
    response = oc.post(
        url, {"name": CYRILLIC_A + "lex", "allow_duplicates": "yes"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    assert event.players.filter(name=CYRILLIC_A + "lex").exists()


def test_the_organizers_names_are_cleaned_and_invisible_characters_refused_by_line(
    event: Tournament, owner: Any
) -> None:
    (ana,) = services.register_players(tournament=event, names=["  Ana\u3000  Lopez "], by=owner)
    assert ana.name == "Ana Lopez"
    with pytest.raises(ServiceError, match=r"^Line 2: the name holds an invisible character"):
        services.register_players(tournament=event, names=["Ben", "Cleo\u200d"], by=owner)
    with pytest.raises(ServiceError, match="ZERO WIDTH SPACE"):
        services.rename_player(player=ana, name="Ana\u200b", by=owner)
    services.rename_player(player=ana, name="Ana  Lo\u0301pez", by=owner)
    assert Player.objects.get(pk=ana.pk).name == "Ana L\u00f3pez"


# --- The import -------------------------------------------------------------------------


def test_an_imported_name_with_an_invisible_character_is_imported_as_written_and_named(
    small_doc: dict[str, Any], db: None
) -> None:
    # Issue 36: an import never refuses an event for its players' names (typing the name
    # would be refused); the organizer is told which names hide characters, and which
    # print like another ("Ben<RLO> Ito" prints like nobody here but itself).
    doc = copy.deepcopy(small_doc)
    doc["players"][1]["name"] = "Ben\u202e Ito"
    done = restore_document(doc)
    assert done.tournament.players.get(external_id="p2").name == "Ben\u202e Ito"
    assert [n for n in done.notes if "Ben\\u202e Ito" in n] == [
        "Imported as written, these names hold a character that shows as nothing or reorders "
        "the text around it: 'Ben\\u202e Ito'. Rename these players if that is not how they "
        "write their names."
    ]
    doc["players"][1]["name"] = " Ben\u00a0 Ito"
    t = services.import_document(doc)
    assert t.players.get(external_id=doc["players"][1]["id"]).name == "Ben Ito"
