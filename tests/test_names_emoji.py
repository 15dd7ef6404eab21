"""Emoji in names (issue 36): a name may hold any complete emoji sequence as Unicode
defines it (UTS #51), an import stores every name as its event wrote it and tells the
organizer of the names that print alike, and what hides or reorders text outside an
emoji is still refused where a name is typed. The rules are tournaments/names.py."""

from __future__ import annotations

import copy
import json
import unicodedata
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import regex
from django.core.management import call_command
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import SHARED
from tournaments import names, services
from tournaments.interchange import export_document, parse_document
from tournaments.models import Tournament
from tournaments.services import registration as reg
from tournaments.services.imports import restore_document

ZWJ, VS15, VS16, KEYCAP, CANCEL_TAG = "\u200d", "\ufe0e", "\ufe0f", "\u20e3", "\U000e007f"


def tags(text: str) -> str:
    """`text` (ASCII) spelled in tag characters."""
    return "".join(chr(0xE0000 + ord(ch)) for ch in text)


SCOTLAND = "\U0001f3f4" + tags("gbsct") + CANCEL_TAG
ENGLAND = "\U0001f3f4" + tags("gbeng") + CANCEL_TAG

# One player per form an emoji takes (UTS #51 section 1.4).
EVERY_FORM = {
    "a presentation sequence (VS16)": "Ana \u2b55\ufe0f",  # the name issue 36 met
    "a tent with VS16 first": "\u26fa\ufe0f Bruno",
    "a text presentation sequence (VS15)": "Clara \u2b55\ufe0e",
    "a flag": "Davi \U0001f1e7\U0001f1f7",
    "a skin tone": "Eva \U0001f44d\U0001f3fd",
    "a family (ZWJ sequence)": "Fumi \U0001f468\u200d\U0001f469\u200d\U0001f467",
    "a rainbow flag (ZWJ with VS16)": "Gil \U0001f3f3\ufe0f\u200d\U0001f308",
    "a handshake of two skin tones": "Hana \U0001faf1\U0001f3fb\u200d\U0001faf2\U0001f3ff",
    "a subdivision flag (tag sequence)": f"Ian {SCOTLAND}",
    "a keycap": "Jo 1\ufe0f\u20e3",
    "a keycap without VS16": "Kai #\u20e3",
    "an emoji newer than Python's Unicode data": "Lia \U0001fae8",
    "a ZWJ sequence newer than Python's": "Max \U0001f426\u200d\U0001f525",
    "a kiss of two skin tones": (
        "Noa \U0001f9d1\U0001f3fb\u200d\u2764\ufe0f\u200d\U0001f48b\u200d\U0001f9d1\U0001f3fc"
    ),
    "emoji between the names": "Olu \U0001f988 Rodriguez",
}

# Each hides in the text or moves it, outside any emoji sequence.
REFUSED = {
    "a right-to-left override": ("Ana\u202e Lopez", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    "a left-to-right isolate": ("Ana \u2066Lopez", "U+2066 LEFT-TO-RIGHT ISOLATE"),
    "a joiner between letters": ("An\u200da", "U+200D ZERO WIDTH JOINER"),
    "a zero-width space between letters": ("An\u200ba", "U+200B ZERO WIDTH SPACE"),
    "a non-joiner between emoji": ("\U0001f468\u200c\U0001f469", "U+200C ZERO WIDTH NON-JOINER"),
    "a VS16 after a letter": ("Ana\ufe0f", "U+FE0F VARIATION SELECTOR-16"),
    "a VS16 at the start": ("\ufe0fAna", "U+FE0F VARIATION SELECTOR-16"),
    "a VS16 after a joiner": ("\U0001f468\u200d\ufe0f", "U+200D ZERO WIDTH JOINER"),
    "a control character": ("Ana\x07", "U+0007"),
    "a dangling joiner after an emoji": ("Ana \u2b55\ufe0f\u200d", "U+200D ZERO WIDTH JOINER"),
    "a dangling joiner after a family": (
        "\U0001f468\u200d\U0001f469\u200d",
        "U+200D ZERO WIDTH JOINER",
    ),
    "a joiner between digits": ("1\u200d2", "U+200D ZERO WIDTH JOINER"),
    "an unterminated tag sequence": (
        "Ian \U0001f3f4" + tags("gbsct"),
        "U+E0067 TAG LATIN SMALL LETTER G",
    ),
    "tags after a letter": ("Ian" + tags("gbsct") + CANCEL_TAG, "U+E0067 TAG LATIN SMALL LETTER G"),
    "a cancel tag alone": ("Ian \U0001f3f4" + CANCEL_TAG, "U+E007F CANCEL TAG"),
    "a Hangul filler after an emoji": ("Ana \u2b55\ufe0f\u3164", "U+3164 HANGUL FILLER"),
}


# --- The shared test data ----------------------------------------------------------------

DATA = SHARED / "data"
EVENT_DIRS = (DATA / "real", DATA / "decklists")


def event_files() -> list[Path]:
    """Every event document of ../shared/data (not the standings or decklists beside it)."""
    found = [DATA / "pod-7.json"] if (DATA / "pod-7.json").is_file() else []
    for folder in EVENT_DIRS:
        found += sorted(
            p
            for p in folder.glob("*.json")
            if not p.name.endswith((".expected.json", ".decklists.json"))
        )
    return found


def test_the_shared_event_files_are_all_there() -> None:
    for folder in EVENT_DIRS:
        assert folder.is_dir(), f"missing test data {folder}: ../shared must sit beside the project"
    assert (DATA / "pod-7.json").is_file()
    assert len(event_files()) >= 15


@pytest.mark.parametrize("path", event_files(), ids=lambda p: p.stem)
def test_every_player_name_in_the_shared_events_passes_the_imports_validation_and_typing_it(
    path: Path,
) -> None:
    doc = parse_document(path.read_bytes())  # validate_document: raises if refused
    for player in doc["players"]:
        assert names.problem(player["name"]) is None, player
        assert names.clean(player["name"]) == player["name"], player


# The real events that hold emoji (and accents, Japanese, full-width brackets): small enough
# to import in a second together.
WRITTEN_IN_EVERY_SCRIPT = ["real/melee-387525", "real/melee-409399", "decklists/melee-236512"]


@pytest.mark.django_db
@pytest.mark.parametrize("stem", WRITTEN_IN_EVERY_SCRIPT)
def test_a_real_event_with_emoji_names_imports_and_exports_every_name_byte_for_byte(
    stem: str,
) -> None:
    text = (DATA / f"{stem}.json").read_bytes()
    doc = parse_document(text)
    assert any(not p["name"].isascii() for p in doc["players"])
    done = restore_document(doc)
    exported = export_document(done.tournament)
    assert [p["id"] for p in exported["players"]] == [p["id"] for p in doc["players"]]
    for mine, theirs in zip(exported["players"], doc["players"], strict=True):
        assert mine["name"].encode() == theirs["name"].encode()
    # As the export command writes it (json.dumps, ensure_ascii=False): the same bytes.
    written = json.dumps([p["name"] for p in exported["players"]], ensure_ascii=False)
    assert (
        written.encode()
        == json.dumps([p["name"] for p in doc["players"]], ensure_ascii=False).encode()
    )


def test_one_of_the_real_events_holds_emoji_names() -> None:
    doc = parse_document((DATA / "real/melee-387525.json").read_bytes())
    assert "Michael \U0001f988 Rodriguez" in [p["name"] for p in doc["players"]]


def every_form_document() -> dict[str, Any]:
    players = [{"id": f"p{i}", "name": name} for i, name in enumerate(EVERY_FORM.values())]
    ids = [p["id"] for p in players]
    return {
        "format": "swiss-tournament/1",
        "name": "Emoji Open \U0001f3c6",
        "system": "mtr",
        "best_of": 3,
        "seed": 36,
        "players": players,
        "rounds": [
            {
                "number": 1,
                "matches": [
                    {"table": t + 1, "players": [a, b], "wins": [2, 0], "draws": 0}
                    for t, (a, b) in enumerate(zip(ids[::2], ids[1::2], strict=False))
                ],
            }
        ],
    }


@pytest.mark.django_db
def test_a_document_with_one_player_per_emoji_form_imports_as_written_and_exports_the_same() -> (
    None
):
    doc = every_form_document()
    done = restore_document(copy.deepcopy(doc))
    assert done.notes == []  # none prints like another, none hides a character
    t = done.tournament
    assert t.name == doc["name"]
    assert list(t.players.order_by("id").values_list("name", flat=True)) == list(
        EVERY_FORM.values()
    )
    exported = export_document(t)
    assert [p["name"] for p in exported["players"]] == list(EVERY_FORM.values())
    assert (
        json.dumps(exported["players"], ensure_ascii=False).encode()
        == json.dumps(doc["players"], ensure_ascii=False).encode()
    )


# --- Typed names: every emoji form accepted, hidden characters refused --------------------


@pytest.mark.parametrize("name", list(EVERY_FORM.values()), ids=list(EVERY_FORM))
def test_every_emoji_form_is_accepted_as_typed_and_stored_unchanged(name: str) -> None:
    assert names.problem(name) is None
    assert names.clean(name) == name == unicodedata.normalize("NFC", name)


@pytest.mark.parametrize("name", [v[0] for v in REFUSED.values()], ids=list(REFUSED))
def test_what_hides_or_reorders_text_outside_an_emoji_is_refused_naming_the_character(
    name: str,
) -> None:
    character = next(v[1] for v in REFUSED.values() if v[0] == name)
    with pytest.raises(names.NameRefused) as refused:
        names.clean(name)
    assert str(refused.value).startswith(
        ("The name holds an invisible character", "The name holds a control character")
    )
    assert f"({character})" in str(refused.value)


@pytest.fixture
def open_event(owner: Any) -> Tournament:
    t = services.create_tournament(name="Emoji Open", owner=owner, seed=36)
    return reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=False, check_in=False, by=owner
    )


def test_a_player_registers_with_an_emoji_and_one_with_a_hidden_joiner_is_refused(
    open_event: Tournament,
) -> None:
    player, _token = reg.register_self(tournament=open_event, name="Ana \u2b55\ufe0f")
    assert player.name == "Ana \u2b55\ufe0f"
    with pytest.raises(reg.FieldRefused, match="invisible character") as refused:
        reg.register_self(tournament=open_event, name="Bo\u200db")
    assert refused.value.field == "name"


def test_the_organizer_adds_and_renames_players_with_emoji(
    open_event: Tournament, owner: Any
) -> None:
    (fumi,) = services.register_players(
        tournament=open_event, names=[EVERY_FORM["a family (ZWJ sequence)"]], by=owner
    )
    services.rename_player(player=fumi, name=f"Fumi {ENGLAND}", by=owner)
    fumi.refresh_from_db()
    assert fumi.name == f"Fumi {ENGLAND}"


# --- Look-alikes -------------------------------------------------------------------------


def test_a_name_with_or_without_its_variation_selector_looks_alike_and_a_flag_does_not() -> None:
    assert names.skeleton("Ana \u2b55\ufe0f") == names.skeleton("Ana \u2b55")
    assert names.skeleton("Ana \u2b55\ufe0e") == names.skeleton("Ana \u2b55")
    assert names.lookalike("Ana \u2b55", ["Ana \U0001f1e7\U0001f1f7", "Ana \u2b55\ufe0f"]) == (
        "Ana \u2b55\ufe0f"
    )
    assert names.lookalike("Ana \u2b55\ufe0f", ["Ana \U0001f1e7\U0001f1f7", "Ana"]) is None
    assert names.lookalike(f"Ian {SCOTLAND}", [f"Ian {ENGLAND}", "Ian \U0001f3f4"]) is None
    # Tags that spell no subdivision draw a plain black flag.
    assert names.lookalike("Ian \U0001f3f4" + tags("zz") + CANCEL_TAG, ["Ian \U0001f3f4"]) == (
        "Ian \U0001f3f4"
    )
    # A ZWJ sequence a phone does not know draws as its pictographs side by side.
    assert names.lookalike("\U0001f422\u200d\U0001f422", ["\U0001f422\U0001f422"]) == (
        "\U0001f422\U0001f422"
    )


def test_namesakes_that_differ_only_in_an_emoji_are_told_apart_and_look_alikes_numbered() -> None:
    shown = names.display_names(
        [(1, "Ana \u2b55\ufe0f"), (2, "Ana \U0001f1e7\U0001f1f7"), (3, "Ana \u2b55"), (4, "Ana")]
    )
    assert shown == {
        1: "Ana \u2b55\ufe0f (1)",
        2: "Ana \U0001f1e7\U0001f1f7",
        3: "Ana \u2b55 (2)",
        4: "Ana",
    }


def test_a_look_alike_of_a_registered_emoji_name_is_refused_to_the_player(
    open_event: Tournament,
) -> None:
    reg.register_self(tournament=open_event, name="Ana \u2b55\ufe0f")
    reg.register_self(tournament=open_event, name="Ana \U0001f1e7\U0001f1f7")  # told apart
    with pytest.raises(reg.FieldRefused, match="looks like Ana \u2b55\ufe0f"):
        reg.register_self(tournament=open_event, name="Ana \u2b55")


LOOK_ALIKE_NOTE = (
    "Imported as written, these names print alike: 'Ana \u2b55' looks like 'Ana \u2b55\ufe0f'; "
    "'Ben Ito' looks like 'B\u0435n Ito'. The pages tell them apart by a number after the "
    "name; rename a player if a name is wrong."
)


def look_alike_document(small_doc: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(small_doc)
    doc["players"][0]["name"] = "Ana \u2b55\ufe0f"
    doc["players"][1]["name"] = "B\u0435n Ito"  # a Cyrillic small ie
    doc["players"][2]["name"] = "Ana \u2b55"
    doc["players"][3]["name"] = "Ben Ito"
    doc["players"][4]["name"] = "Ana \U0001f1e7\U0001f1f7"
    return doc


@pytest.mark.django_db
def test_an_import_with_look_alike_names_succeeds_and_names_the_pairs(
    small_doc: dict[str, Any],
) -> None:
    done = restore_document(look_alike_document(small_doc))
    assert done.notes == [LOOK_ALIKE_NOTE]
    assert done.tournament.players.get(external_id="p3").name == "Ana \u2b55"


@pytest.mark.django_db
def test_the_command_line_import_prints_the_look_alikes_as_a_note(
    small_doc: dict[str, Any], tmp_path: Path
) -> None:
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(look_alike_document(small_doc), ensure_ascii=False), "utf-8")
    out, err = StringIO(), StringIO()
    call_command("import_tournament", str(path), stdout=out, stderr=err)
    assert f"Note: {LOOK_ALIKE_NOTE}" in err.getvalue()
    assert Tournament.objects.get(slug=out.getvalue().strip()).players.count() == 7


def test_the_restore_screen_shows_the_look_alikes_as_a_warning(
    oc: Client, small_doc: dict[str, Any]
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    body = json.dumps(look_alike_document(small_doc), ensure_ascii=False).encode()
    response = oc.post(
        "/manage/restore/",
        {"document": SimpleUploadedFile("b.json", body, "application/json")},
        follow=True,
    )
    assert response.status_code == 200
    shown = [(m.level_tag, str(m)) for m in response.context["messages"]]
    assert ("warning", LOOK_ALIKE_NOTE) in shown


# --- Properties over generated emoji sequences -------------------------------------------


def _chars(pattern: str, *ranges: tuple[int, int]) -> list[str]:
    """The assigned characters of `ranges` with the properties `pattern` names, NFC as
    they stand (a name is stored in NFC)."""
    match = regex.compile(pattern, regex.V1).fullmatch
    return [
        chr(c)
        for lo, hi in ranges
        for c in range(lo, hi + 1)
        if match(chr(c)) and unicodedata.is_normalized("NFC", chr(c))
    ]


_BLOCKS = ((0x00A9, 0x00AE), (0x2000, 0x2BFF), (0x3000, 0x33FF), (0x1F000, 0x1FAFF))
PICTOGRAPHS = _chars(r"[\p{Extended_Pictographic}--\p{Cn}]", *_BLOCKS)
WITH_EMOJI_FORMS = _chars(r"[\p{Emoji}--\p{Cn}--\p{Regional_Indicator}]", (0x23, 0x39), *_BLOCKS)
EMOJI_PICTOGRAPHS = _chars(r"[\p{Extended_Pictographic}&&\p{Emoji}]", *_BLOCKS)
MODIFIER_BASES = _chars(r"\p{Emoji_Modifier_Base}", *_BLOCKS)
MODIFIERS = _chars(r"\p{Emoji_Modifier}", *_BLOCKS)
REGIONAL_INDICATORS = [chr(c) for c in range(0x1F1E6, 0x1F200)]
TAG_SPEC = [chr(c) for c in range(0xE0020, 0xE007F)]

pictograph = st.sampled_from(PICTOGRAPHS)
modified = st.builds(str.__add__, st.sampled_from(MODIFIER_BASES), st.sampled_from(MODIFIERS))
presented = st.builds(str.__add__, st.sampled_from(WITH_EMOJI_FORMS), st.sampled_from([VS15, VS16]))
element = st.one_of(  # what a joiner may join
    pictograph, modified, st.builds(str.__add__, st.sampled_from(EMOJI_PICTOGRAPHS), st.just(VS16))
)
flag = st.builds(
    str.__add__, st.sampled_from(REGIONAL_INDICATORS), st.sampled_from(REGIONAL_INDICATORS)
)
keycap = st.builds(
    lambda base, vs: base + vs + KEYCAP,
    st.sampled_from("0123456789#*"),
    st.sampled_from(["", VS16]),
)
zwj_sequence = st.lists(element, min_size=2, max_size=5).map(ZWJ.join)
tag_sequence = st.builds(
    lambda base, spec: base + "".join(spec) + CANCEL_TAG,
    element,
    st.lists(st.sampled_from(TAG_SPEC), min_size=1, max_size=7),
)
emoji = st.one_of(pictograph, modified, presented, flag, keycap, zwj_sequence, tag_sequence)
word = st.text(st.characters(categories=("Lu", "Ll")), min_size=1, max_size=8).filter(
    lambda w: unicodedata.is_normalized("NFC", w)
)


@st.composite
def emoji_names(draw: st.DrawFn) -> str:
    """A name with one to three emoji sequences before, between, after or inside its
    words, as melee.gg's players write them."""
    parts = draw(st.lists(st.one_of(word, emoji), min_size=1, max_size=4))
    parts.insert(draw(st.integers(0, len(parts))), draw(emoji))
    glue = draw(st.sampled_from([" ", ""]))
    return glue.join(parts)


def test_the_generated_sequences_cover_every_category() -> None:
    assert "\u2b55" in PICTOGRAPHS and "\u2b55" in WITH_EMOJI_FORMS
    assert "1" in WITH_EMOJI_FORMS and "\u00a9" in WITH_EMOJI_FORMS
    assert "\U0001f44d" in MODIFIER_BASES and len(MODIFIERS) == 5
    assert "\U0001fae8" in PICTOGRAPHS  # Unicode 15: newer than Python 3.11's data


@given(emoji_names())
def test_a_name_with_any_emoji_sequence_is_accepted_and_stored_unchanged(name: str) -> None:
    assert names.problem(name) is None, ascii(name)
    assert names.clean(name) == name, ascii(name)
    assert unicodedata.is_normalized("NFC", names.clean(name))


@given(emoji_names(), st.sampled_from("\u202e\u2066\u200b\u200c\u2060\ufeff\x07"), st.data())
def test_a_hidden_character_anywhere_in_an_emoji_name_is_refused(
    name: str, hidden: str, data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(name)))
    with pytest.raises(names.NameRefused):
        names.clean(name[:at] + hidden + name[at:])


@given(emoji_names())
def test_an_emoji_name_without_its_variation_selectors_looks_like_it(name: str) -> None:
    plain = name.replace(VS16, "").replace(VS15, "")
    assert names.skeleton(plain) == names.skeleton(name)
    if plain != name:
        assert names.lookalike(plain, [name]) == name


FLAGS = ["\U0001f1e7\U0001f1f7", "\U0001f1eb\U0001f1f7", SCOTLAND, ENGLAND]


@given(st.sampled_from([p for p in EMOJI_PICTOGRAPHS if p != "\u2b55"] + FLAGS), presented)
def test_names_that_differ_in_their_emoji_do_not_look_alike(picture: str, other: str) -> None:
    assert names.lookalike(f"Ana {picture}", ["Ana \u2b55\ufe0f", "Ana", "Ana \U0001f3f4"]) is None
    if other.rstrip(VS15 + VS16) != picture:
        assert names.lookalike(f"Ana {picture}", [f"Ana {other}"]) is None
