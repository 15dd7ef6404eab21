"""Bad input at the importer: random and malformed `swiss-tournament/1` documents.

Whatever arrives, parse_document/import_document either import it (and the event then
exports back) or raise DocumentError whose problems read 'place: message', with the
database exactly as before. The number of generated inputs is printed at the end of the
module and written to test-artifacts/fuzz-counts.json.

The tests at the bottom pin the shapes that once escaped as other exceptions.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.models import Standing
from tests.conftest import store_fuzz_counts
from tournaments.interchange import (
    DocumentError,
    export_document,
    parse_document,
    validate_document,
)
from tournaments.models import Match, Player, Round, Seat, Tournament
from tournaments.services import import_document

pytestmark = pytest.mark.django_db

# Whole for the module: pytest-xdist runs a file on one worker (--dist loadfile).
COUNTS: Counter[str] = Counter()
PROBLEM = re.compile(r"^(document|[A-Za-z_]+(\[\d+\])?(\.[A-Za-z_]+(\[\d+\])?)*): \S.*", re.S)
FUZZ = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)

MTR_DOC: dict[str, Any] = {
    "format": "swiss-tournament/1",
    "name": "Friday Night Modern",
    "system": "mtr",
    "best_of": 3,
    "seed": 90210,
    "players": [
        {"id": "p1", "name": "Ana Souza"},
        {"id": "p2", "name": "Ben Ito", "dropped_after_round": 2},
        {"id": "p3", "name": "Cleo Park"},
        {"id": "p4", "name": "Dev Rao"},
        {"id": "p5", "name": "Eva Lund"},
    ],
    "rounds": [
        {
            "number": 1,
            "phase": 1,
            "matches": [
                {"table": 1, "players": ["p1", "p2"], "wins": [2, 1], "draws": 0},
                {"table": 2, "players": ["p3", "p4"], "wins": [0, 0], "result": "double_loss"},
                {"table": 3, "players": ["p5"], "bye": True},
            ],
        },
        {
            "number": 2,
            "phase": 1,
            "matches": [
                {"table": 1, "players": ["p1", "p5"], "wins": [1, 1], "draws": 1},
                {"table": 2, "players": ["p2", "p3"]},
                {"table": 3, "players": ["p4"], "loss": True},
            ],
        },
        {
            "number": 3,
            "phase": 1,
            "playoff": True,
            "matches": [{"table": 1, "players": ["p1", "p3"], "wins": [2, 0], "draws": 0}],
        },
    ],
}
LEAGUE_DOC: dict[str, Any] = {
    "format": "swiss-tournament/1",
    "name": "Tuesday Board Games",
    "system": "league",
    "seed": 7,
    "players": [{"id": f"g{k}", "name": f"Gamer {k}"} for k in range(1, 9)],
    "rounds": [
        {
            "number": 1,
            "matches": [
                {
                    "table": 1,
                    "players": ["g1", "g2", "g3", "g4"],
                    "places": [1, 2, 2, 4],
                    "scores": [40, 31.5, 31.5, -2],
                },
                {"table": 2, "players": ["g5", "g6", "g7"], "absent": ["g8"]},
            ],
        }
    ],
}
POD_DOC: dict[str, Any] = {
    "format": "swiss-tournament/1",
    "name": "Cube Pod",
    "system": "pod",
    "best_of": 1,
    "players": [{"id": c, "name": c.upper()} for c in "abcd"],
    "rounds": [
        {
            "number": 1,
            "matches": [
                {"players": ["a", "b"], "wins": [1, 0], "draws": 0},
                {"players": ["c", "d"], "wins": [0, 1], "draws": 0},
            ],
        }
    ],
}
BASES = [MTR_DOC, LEAGUE_DOC, POD_DOC]


def counts() -> tuple[int, ...]:
    return tuple(m.objects.count() for m in (Tournament, Player, Round, Match, Seat, Standing))


def check_refusal(exc: DocumentError, before: tuple[int, ...]) -> None:
    assert exc.problems, "a refusal must say what is wrong"
    for problem in exc.problems:
        assert isinstance(problem, str) and PROBLEM.match(problem), problem
    assert counts() == before, "a refused document changed the database"


def attempt(doc_or_text: Any, label: str) -> None:
    """Import (from text, bytes or a parsed document); check whichever way it goes."""
    COUNTS[label] += 1
    before = counts()
    doc = doc_or_text
    try:
        with transaction.atomic():
            if isinstance(doc_or_text, str | bytes):
                doc = parse_document(doc_or_text)
            tournament = import_document(doc)
    except DocumentError as exc:
        COUNTS[f"{label}: refused"] += 1
        check_refusal(exc, before)
        return
    COUNTS[f"{label}: imported"] += 1
    exported = export_document(tournament)
    validate_document(copy.deepcopy(exported))  # what we export, we can import again
    json.dumps(exported)


# --- Strategies --------------------------------------------------------------------------

junk = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from([0, -1, 1, 2, 3, 99, 100, 2**15, 2**31, 2**63, -(2**63) - 1, 10**11])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["p1", "p99", "g9", "", " ", "mtr", "double_loss", "a"]),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from paths(value, (*prefix, key))
    elif isinstance(node, list):
        for k, value in enumerate(node):
            yield from paths(value, (*prefix, k))


def at(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


MUTATIONS = ["replace", "delete", "duplicate", "unknown id", "edge number", "add key", "wrap"]


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    doc = copy.deepcopy(draw(st.sampled_from(BASES)))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(list(paths(doc))))
        kind = draw(st.sampled_from(MUTATIONS))
        if not path:
            if kind == "add key":
                doc[draw(st.text(max_size=8))] = draw(junk)
            continue
        parent, key = at(doc, path[:-1]), path[-1]
        if kind == "replace":
            parent[key] = draw(junk)
        elif kind == "delete":
            del parent[key]
        elif kind == "duplicate":
            if isinstance(parent, list):
                parent.append(copy.deepcopy(parent[key]))
            else:
                parent[key] = [parent[key], copy.deepcopy(parent[key])]
        elif kind == "unknown id":
            parent[key] = draw(st.sampled_from(["nobody", "p1", "g1", "a", "P1", "p1 "]))
        elif kind == "edge number":
            parent[key] = draw(
                st.sampled_from([-1, 0, 1, 2, 4, 10_001, 100_001, 2**31, 2**64, 1.5, 1e300])
            )
        elif kind == "add key":
            target = parent[key]
            if isinstance(target, dict):
                target[draw(st.sampled_from(["bye", "loss", "wins", "places", "x", "result"]))] = (
                    draw(junk)
                )
        elif kind == "wrap":
            parent[key] = {"value": parent[key]} if draw(st.booleans()) else [parent[key]]
    return doc


# --- Property tests ----------------------------------------------------------------------


@settings(FUZZ, max_examples=250)
@given(doc=mutated())
def test_a_mutated_document_is_imported_and_exports_back_or_is_refused_with_placed_problems(
    doc: dict[str, Any],
) -> None:
    attempt(doc, "mutated document")


@settings(FUZZ, max_examples=60)
@given(doc=mutated())
def test_a_mutated_document_sent_as_json_text_behaves_as_the_document(
    doc: dict[str, Any],
) -> None:
    attempt(json.dumps(doc), "mutated document as JSON text")


@settings(FUZZ, max_examples=120)
@given(
    base=st.sampled_from(BASES),
    cuts=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 8), st.text(max_size=3))),
)
def test_mangled_json_text_is_refused_with_a_document_problem(
    base: dict[str, Any], cuts: list[tuple[int, int, str]]
) -> None:
    text = json.dumps(base)
    for position, length, insert in cuts:
        position %= len(text) + 1
        text = text[:position] + insert + text[position + length :]
    attempt(text, "mangled JSON text")


@settings(FUZZ, max_examples=80)
@given(raw=st.binary(max_size=300) | st.text(max_size=100).map(lambda s: s.encode("utf-16")))
def test_random_bytes_are_refused_with_a_document_problem(raw: bytes) -> None:
    attempt(raw, "random bytes")


@settings(FUZZ, max_examples=60)
@given(value=junk)
def test_any_json_value_as_the_whole_document_is_refused_with_a_problem(value: Any) -> None:
    attempt(json.dumps(value), "random JSON value")


@settings(FUZZ, max_examples=40)
@given(depth=st.integers(1, 400), base=st.sampled_from(BASES), key=st.sampled_from(["x", "name"]))
def test_nested_junk_inside_a_document_is_ignored_or_refused(
    depth: int, base: dict[str, Any], key: str
) -> None:
    doc = copy.deepcopy(base)
    doc[key] = json.loads("[" * depth + "{}" + "]" * depth)
    attempt(json.dumps(doc), "nested junk")


@pytest.fixture(scope="module", autouse=True)
def _report_counts() -> Iterator[None]:
    yield
    total = sum(v for k, v in COUNTS.items() if ":" not in k)
    figures = {"generated inputs": total, **dict(sorted(COUNTS.items()))}
    print("\nfuzz import:", json.dumps(figures, indent=1))
    store_fuzz_counts("import", figures)


# --- Known bugs ----------------------------------------------------------------------------


def refused(doc_or_text: Any) -> DocumentError:
    before = counts()
    with pytest.raises(DocumentError) as caught, transaction.atomic():
        doc = parse_document(doc_or_text) if isinstance(doc_or_text, str) else doc_or_text
        import_document(doc)
    check_refusal(caught.value, before)
    return caught.value


def test_a_document_nested_100000_deep_is_refused_with_a_document_problem() -> None:
    refused('{"name": "x", "junk": ' + "[" * 100_000 + "]" * 100_000 + "}")


def test_an_integer_of_5000_digits_is_refused_with_a_document_problem() -> None:
    refused('{"name": "x", "system": "mtr", "players": [], "seed": ' + "7" * 5000 + "}")


def league_with(match: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(LEAGUE_DOC)
    doc["rounds"][0]["matches"].append(match)
    doc["players"] += [{"id": "x1", "name": "X1"}, {"id": "x2", "name": "X2"}]
    return doc


def test_a_two_player_match_with_wins_in_a_league_is_refused_with_a_document_problem() -> None:
    refused(league_with({"table": 3, "players": ["x1", "x2"], "wins": [1, 0]}))


def test_a_loss_in_a_league_is_refused_with_a_document_problem() -> None:
    refused(league_with({"table": 3, "players": ["x1"], "loss": True}))


def test_a_league_score_of_ten_billion_is_refused_with_a_document_problem() -> None:
    doc = copy.deepcopy(LEAGUE_DOC)
    doc["rounds"][0]["matches"][0]["scores"][0] = 5e10
    refused(doc)


def test_a_tournament_name_over_200_characters_is_refused_with_a_document_problem() -> None:
    refused({**copy.deepcopy(POD_DOC), "name": "x" * 300})


def test_a_nul_character_in_a_player_name_is_refused_with_a_document_problem() -> None:
    doc = copy.deepcopy(POD_DOC)
    doc["players"][0]["name"] = "A\x00"
    refused(doc)
