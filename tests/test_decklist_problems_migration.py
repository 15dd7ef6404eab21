"""Migration 0017 (issue 36): the decklist problems stored as English sentences become
messages' data once, each saying in English exactly what was stored; backwards, the
sentences come back."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from tournaments.decklists import messages as m
from tournaments.decklists.check import check_decklist
from tournaments.decklists.parse import parse_decklist, parse_dek
from tournaments.messages import CATALOGUE
from tournaments.pages.decklists import english_problems

BEFORE = "0016_merge_0014_push_0015_language"
AFTER = "0017_decklist_problems_as_data"
# What the checker wrote before: a list with every kind of line problem, a .dek's, the
# list-wide ones, and the sentences no template makes (a refusal a recheck stored).
MESSY = (
    "4 Lightning Bolt\nBolt is banned in Modern\n0 Island\n\u0663 Shock\n9999 Forest\n"
    "7\n4x\nline 3: a count of 0: leave the card out instead\n"
    "'Opt' is not a card; did you mean Opt?\n"
)
DEK = '<Deck><Cards Quantity="x" Name="Opt"/><Cards Name="Duress"/><Cards Quantity="1"/></Deck>'
REFUSED = "No card could be read from this list: line 1: 'x' has no count: write it as '1 x'."
SAMPLES = {
    "line": 12,
    "count": 5,
    "most": 4,
    "least": 60,
    "text": "'Fire // Ice'",
    "name": "Bolt is banned in Modern",
    "error": "ExpatError",
    "quantity": "'4x'",
    "suggestion": "Lightning Bolt",
    "format": "Modern",
    "problem": m.COUNT_ZERO(),
}
NEW = {"decklist.stored_text", "decklist.list_empty", "decklist.list_too_long"}


def old_sentences() -> list[list[str]]:
    """Rows of problems as the checker stored them (their English, unchanged since)."""
    parsed = parse_decklist(MESSY)
    checked = [str(p) for p in check_decklist(parsed, deck_format="modern", cards=None)]
    dek = [str(m.DEK_FILE(problem=p.said())) for p in parse_dek(DEK).problems]
    every = []
    for code, template in CATALOGUE.items():
        if code.startswith("decklist.") and code not in NEW:
            forms = (1, 5) if template.plural else (5,)
            for count in forms:
                values = {k: SAMPLES[k] for k in SAMPLES if f"%({k})s" in "".join(template.forms())}
                if template.count:
                    values[template.count] = count
                every.append(str(template(**values)))
    return [checked, dek, every, [REFUSED, "line 2: something an older version wrote"], []]


@pytest.mark.django_db(transaction=True)
def test_every_stored_problem_is_migrated_to_data_that_says_the_same_english(
    migrate: Callable[[str], Any],
) -> None:
    apps = migrate(BEFORE)
    tournament = apps.get_model("tournaments", "Tournament")
    player = apps.get_model("tournaments", "Player")
    decklist = apps.get_model("tournaments", "Decklist")
    t = tournament.objects.create(name="Old", slug="old", seed=1)
    now = datetime(2026, 5, 2, 10, tzinfo=UTC)
    stored = old_sentences()
    assert len(stored[2]) >= 30  # every template the checker had
    ids = []
    for k, problems in enumerate(stored):
        p = player.objects.create(tournament=t, name=f"P{k}", external_id=f"p{k}")
        row = decklist.objects.create(
            player=p, text="x", problems=problems, submitted_at=now, updated_at=now
        )
        ids.append(row.pk)

    migrated = migrate(AFTER).get_model("tournaments", "Decklist")
    rows = [migrated.objects.get(pk=pk).problems for pk in ids]
    for before, after in zip(stored, rows, strict=True):
        assert all(isinstance(p, dict) and set(p) == {"code", "params"} for p in after)
        assert english_problems(after) == before
    # Read as the checker made them: the card named like a ban stays a missing count,
    # the numbers are numbers; what no template makes is kept whole.
    assert rows[0][0] == m.LINE(line=2, problem=m.NO_COUNT(
        text="'Bolt is banned in Modern'", name="Bolt is banned in Modern")).data()  # fmt: skip
    assert rows[0][-1] == m.MAIN_TOO_SMALL(count=4, least=60).data()
    checked = [p.said().data() for p in check_decklist(
        parse_decklist(MESSY), deck_format="modern", cards=None)]  # fmt: skip
    assert rows[0] == checked
    assert rows[1] == [m.DEK_FILE(problem=p.said()).data() for p in parse_dek(DEK).problems]
    assert rows[3][0] == m.STORED_TEXT(text=REFUSED).data()
    assert (
        rows[3][1]
        == m.LINE(line=2, problem=m.STORED_TEXT(text="something an older version wrote")).data()
    )

    back = migrate(BEFORE).get_model("tournaments", "Decklist")
    assert [back.objects.get(pk=pk).problems for pk in ids] == stored
