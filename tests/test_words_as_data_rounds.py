"""Words are data until the edge (issue 36): a round's name, what the standings are after,
a finished event's refusal and the top cut's seed changes are values, said in the
reader's language where they are shown; nothing reads English back."""

from __future__ import annotations

import pytest
from django.utils import translation
from django.utils.translation import gettext
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_reports import open_event
from tournaments.labels import seed_change_english, seed_change_text
from tournaments.messages import Message
from tournaments.models import Tournament
from tournaments.pages.audit import _seed_changes
from tournaments.pages.organizer import DROPPED_AFTER, after_text
from tournaments.pages.projector import standings_title
from tournaments.rules import (
    CUT_ENTERS,
    CUT_MOVES,
    CUT_OUT,
    CUT_OUT_UNRANKED,
    RoundName,
)
from tournaments.services import ServiceError
from tournaments.services.reports import EVENT_FINISHED, _player_writing
from tournaments.services.rounds import say_round
from tournaments.templatetags.tourney import after_round, round_name
from tournaments.views.organizer import PAIRED

SWISS_4 = RoundName(4)
ROUND_OF_16 = RoundName.playoff(8, 5)
QUARTERFINALS = RoundName.playoff(4, 5)
SEMIFINALS = RoundName.playoff(2, 6)
FINAL = RoundName.playoff(1, 7)
ROUNDS = (SWISS_4, ROUND_OF_16, QUARTERFINALS, SEMIFINALS, FINAL)

# What each language's catalogue says for those five rounds, then "After ..." for each.
NAMES = {
    "en": ("Round 4", "Round of 16", "Quarterfinals", "Semifinals", "Final"),
    "fr": ("Ronde 4", "Tour à 16", "Quarts de finale", "Demi-finales", "Finale"),
    "de": ("Runde 4", "Runde der letzten 16", "Viertelfinale", "Halbfinale", "Finale"),
    "ja": ("ラウンド4", "ベスト16", "準々決勝", "準決勝", "決勝"),
}
AFTER = {
    "en": (
        "After round 4",
        "After the Round of 16",
        "After the Quarterfinals",
        "After the Semifinals",
        "After the Final",
    ),
    "fr": (
        "Après la ronde 4",
        "Après : Tour à 16",
        "Après : Quarts de finale",
        "Après : Demi-finales",
        "Après : Finale",
    ),
    "de": (
        "Nach Runde 4",
        "Nach: Runde der letzten 16",
        "Nach: Viertelfinale",
        "Nach: Halbfinale",
        "Nach: Finale",
    ),
    "ja": (
        "ラウンド4終了時点",
        "ベスト16終了時点",
        "準々決勝終了時点",
        "準決勝終了時点",
        "決勝終了時点",
    ),
}


@pytest.mark.parametrize("language", sorted(NAMES))
def test_a_rounds_name_is_said_from_its_number_and_size_in_each_language(language: str) -> None:
    with translation.override(language):
        assert tuple(round_name(r) for r in ROUNDS) == NAMES[language]
        assert tuple(after_round(r) for r in ROUNDS) == AFTER[language]


def test_the_exports_english_comes_from_the_same_data() -> None:
    with translation.override("fr"):
        assert tuple(str(r) for r in ROUNDS) == NAMES["en"]


def test_the_standings_headings_are_picked_from_the_data() -> None:
    with translation.override("en"):
        assert standings_title(None) == "Standings"
        assert standings_title(SWISS_4) == "Standings after round 4"
        assert standings_title(SEMIFINALS) == "Standings after the Semifinals"
        assert after_text(4, SWISS_4) == "after round 4"
        assert after_text(6, SEMIFINALS) == "after the Semifinals"
        assert after_text(None, None) == ""


def test_the_paired_sentence_agrees_with_the_rounds_size_not_its_words() -> None:
    assert SEMIFINALS.plural and QUARTERFINALS.plural and not FINAL.plural
    assert not SWISS_4.plural
    with translation.override("en"):
        assert say_round(SEMIFINALS, 6, PAIRED) == "The Semifinals are paired."
        assert say_round(FINAL, 7, PAIRED) == "The Final is paired."
        assert say_round(None, 4, PAIRED) == "Round 4 is paired."
        assert say_round(SWISS_4, 4, PAIRED) == "Round 4 is paired."
    with translation.override("fr"):
        assert say_round(SEMIFINALS, 6, PAIRED) == "Les demi-finales sont appariées."
        assert say_round(FINAL, 7, PAIRED) == "La finale est appariée."
    with translation.override("de"):
        assert say_round(FINAL, 7, PAIRED) == "Das Finale ist gepaart."


def test_the_dropped_after_sentence_is_whole_in_each_language() -> None:
    with translation.override("en"):
        assert say_round(SWISS_4, 4, DROPPED_AFTER) == "Dropped after round 4"
        assert say_round(QUARTERFINALS, 5, DROPPED_AFTER) == "Dropped after the Quarterfinals"
    with translation.override("fr"):
        assert say_round(SEMIFINALS, 6, DROPPED_AFTER) == "Abandon après les demi-finales"


@pytest.mark.parametrize("language", sorted(NAMES))
@pytest.mark.parametrize("text", ["Round 4", "the Semifinals", "Final", "round 5", "Round of 16"])
def test_a_text_that_reads_like_a_round_is_never_turned_into_one(language: str, text: str) -> None:
    with translation.override(language):
        assert round_name(text) == text
        assert after_round(text) == text
        said = seed_change_text(CUT_OUT_UNRANKED(name=text, seed=3))
        assert said.startswith(text)


@settings(max_examples=60, deadline=None)
@given(name=st.text(min_size=1, max_size=40))
def test_any_players_name_in_a_seed_change_is_said_verbatim_in_every_language(name: str) -> None:
    changes = (
        CUT_ENTERS(name=name, points="9", place=4, new_seed=4),
        CUT_OUT(name=name, seed=4, place=9),
        CUT_OUT_UNRANKED(name=name, seed=4),
        CUT_MOVES(name=name, seed=3, place=2, new_seed=2),
    )
    for language in ("en", "fr", "de", "ja"):
        with translation.override(language):
            for change in changes:
                assert name in seed_change_text(change)
    for change in changes:
        assert name in seed_change_english(change)


def test_the_seed_changes_are_said_in_french_and_german() -> None:
    enters = CUT_ENTERS(name="Ana", points="9", place=3, new_seed=4)
    moves = CUT_MOVES(name="Ben", seed=3, place=2, new_seed=2)
    out = CUT_OUT(name="Cleo", seed=4, place=9)
    assert seed_change_english(enters) == "Ana (9 points, now 3rd) would enter as seed 4"
    assert seed_change_english(out) == "Cleo (seed 4) would now be 9th: out of the cut"
    with translation.override("fr"):
        assert seed_change_text(enters) == (
            "Ana (9 points, maintenant 3e) entrerait comme tête de série 4"
        )
        assert seed_change_text(moves) == (
            "Ben (tête de série 3) serait maintenant 2e : tête de série 2"
        )
    with translation.override("de"):
        assert seed_change_text(out) == "Cleo (Setzplatz 4) wäre jetzt 9.: nicht mehr im Top Cut"


def test_a_seed_change_survives_storage_as_data() -> None:
    change = CUT_MOVES(name="Round 4", seed=3, place=2, new_seed=2)
    stored = {"change_messages": [change.data()]}
    assert Message.from_data(change.data()) == change
    with translation.override("fr"):
        assert _seed_changes(stored) == seed_change_text(change)
        assert _seed_changes(stored).startswith("Round 4 (tête de série 3)")


def test_an_audit_entry_stored_with_english_sentences_shows_them_as_written() -> None:
    old = {"change_texts": ["Player 12 (seed 4) would now be 9th: out of the cut"]}
    with translation.override("fr"):
        assert _seed_changes(old) == "Player 12 (seed 4) would now be 9th: out of the cut"
    assert _seed_changes({}) == ""


@pytest.mark.django_db
def test_a_finished_events_refusal_is_known_by_its_type_in_french() -> None:
    t = open_event()
    Tournament.objects.filter(pk=t.pk).update(status="finished")
    with translation.override("fr"):
        with pytest.raises(ServiceError) as refused, _player_writing(t.pk):
            pass
        assert str(refused.value) == gettext(EVENT_FINISHED)
        assert str(refused.value) != EVENT_FINISHED  # said in French, recognised anyway
