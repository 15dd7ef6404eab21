"""Bad input at every organizer form: random values posted by the owner.

Never a 500; a refusal (422) carries a message (role="alert" with text, or a flashed
error on a redirect); after a refusal the database is exactly as before. The number of
generated posts is printed at the end of the module and written to
test-artifacts/fuzz-counts.json.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.models import Standing
from tests.conftest import store_fuzz_counts
from tournaments import services
from tournaments.models import AuditEntry, Match, MatchKind, Player, Round, Seat, Tournament

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
# Whole for the module: pytest-xdist runs a file on one worker (--dist loadfile).
COUNTS: Counter[str] = Counter()
ALERT = re.compile(r'role="alert">\s*(?:<[^>]+>\s*)*([^<\s][^<]*)')
FUZZ = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)

# Values a person (or a script) might type or send: text, unicode, huge and negative
# numbers, empties, lookalikes of valid input.
value = st.one_of(
    st.text(max_size=30),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=300),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(
        [
            "",
            " ",
            "0",
            "-1",
            "2-1",
            "0-0-3",
            "9-9-9",
            "99-99",
            "1e9",
            "NaN",
            "Infinity",
            "1.5",
            "٣",
            "２",
            "save",
            "clear",
            "double_loss",
            "points",
            "top",
            "start",
            "pause",
            "resume",
            "add",
            "mtr",
            "league",
            "8",
            "4",
            "x" * 201,
            "\x00",
            "a\x00b",
            "<script>",
            "99999999999999999999",
        ]
    ),
)


def fields(*names: str) -> st.SearchStrategy[dict[str, str]]:
    """Any subset of the form's fields with random values, plus a stray field now and then."""
    return st.fixed_dictionaries({}, optional=dict.fromkeys(names, value)).map(dict) | (
        st.fixed_dictionaries({"stray": value}, optional=dict.fromkeys(names, value))
    )


def fingerprint() -> tuple[Any, ...]:
    """Everything a form can change: row counts, versions, names, results, drops."""
    return (
        tuple(
            m.objects.count()
            for m in (Tournament, Player, Round, Match, Seat, Standing, AuditEntry, User)
        ),
        tuple(Tournament.objects.order_by("pk").values_list("version", "status", "phase")),
        tuple(Player.objects.order_by("pk").values_list("name", "dropped_after_round")),
        tuple(Match.objects.order_by("pk").values_list("reported", "draws", "kind")),
        tuple(Seat.objects.order_by("pk").values_list("games_won", "place", "score", "absent")),
        tuple(Round.objects.order_by("pk").values_list("clock_ends_at", "clock_paused_remaining")),
        tuple(
            (t.pk, tuple(t.staff.values_list("pk", flat=True))) for t in Tournament.objects.all()
        ),
    )


def post(client: Client, url: str, data: dict[str, str], htmx: bool, label: str) -> None:
    COUNTS[label] += 1
    before = fingerprint()
    response = client.post(url, data, **(HX if htmx else {}))
    assert response.status_code < 500, (label, data, response.status_code)
    body = response.content.decode()
    if response.status_code == 422:
        COUNTS[f"{label}: refused"] += 1
        assert ALERT.search(body), (label, data, "a refusal without a message")
        assert fingerprint() == before, (label, data, "a refused post changed the database")
    elif response.status_code in (301, 302):
        notes = [str(m) for m in get_messages(response.wsgi_request)]
        if any(m.level_tag == "error" for m in get_messages(response.wsgi_request)):
            COUNTS[f"{label}: refused"] += 1
            assert all(notes), (label, data)
            assert fingerprint() == before, (label, data, "a refused post changed the database")
        else:
            COUNTS[f"{label}: accepted"] += 1
    else:
        assert response.status_code in (200, 204, 403, 404, 405), (label, response.status_code)
        COUNTS[f"{label}: {response.status_code}"] += 1


@pytest.fixture
def swiss(owner: User) -> Tournament:
    """8 players, round 1 paired, one result in."""
    t = services.create_tournament(name="Fuzz Modern", owner=owner, seed=7, top_cut=4)
    services.register_players(tournament=t, names=[f"Player {i}" for i in range(1, 9)])
    services.pair_next_round(tournament=t)
    first = Match.objects.filter(round__tournament=t).select_related("round").order_by("table")[0]
    services.record_result(match=first, wins=(2, 1))
    return t


@pytest.fixture
def league(owner: User) -> Tournament:
    t = services.create_tournament(name="Fuzz League", owner=owner, system="league", seed=3)
    services.register_players(tournament=t, names=[f"Gamer {i}" for i in range(1, 9)])
    services.pair_next_round(tournament=t)
    return t


def manage(t: Tournament, tail: str) -> str:
    return f"/t/{t.slug}/manage/{tail}"


# --- Property tests ----------------------------------------------------------------------


@settings(FUZZ, max_examples=60)
@given(data=fields("name", "system", "best_of", "planned_rounds", "top_cut"), htmx=st.booleans())
def test_random_values_for_a_new_tournament_never_give_a_500(
    oc: Client, data: dict[str, str], htmx: bool
) -> None:
    post(oc, "/manage/create/", data, htmx, "create")


@settings(FUZZ, max_examples=60)
@given(
    endpoint=st.sampled_from(["add", "paste", "rename", "drop", "readmit"]),
    data=fields("name", "names"),
    htmx=st.booleans(),
)
def test_random_values_for_players_never_give_a_500(
    oc: Client, swiss: Tournament, endpoint: str, data: dict[str, str], htmx: bool
) -> None:
    player = Player.objects.filter(tournament=swiss).order_by("pk")[1]
    tail = {
        "add": "players/add/",
        "paste": "players/paste/",
        "rename": f"players/{player.pk}/rename/",
        "drop": f"players/{player.pk}/drop/",
        "readmit": f"players/{player.pk}/readmit/",
    }[endpoint]
    post(oc, manage(swiss, tail), data, htmx, f"players {endpoint}")


@settings(FUZZ, max_examples=120)
@given(
    pick=st.integers(0, 3),
    data=fields("result", "wins_a", "wins_b", "draws", "action"),
    htmx=st.booleans(),
)
def test_random_values_for_a_result_never_give_a_500(
    oc: Client, swiss: Tournament, pick: int, data: dict[str, str], htmx: bool
) -> None:
    matches = list(
        Match.objects.filter(round__tournament=swiss, kind=MatchKind.PLAYED).order_by("table")
    )
    match = matches[pick % len(matches)]
    post(oc, manage(swiss, f"matches/{match.pk}/result/"), data, htmx, "result")


@settings(FUZZ, max_examples=80)
@given(raw=st.lists(st.tuples(st.sampled_from(["place", "score", "absent"]), value), max_size=12),
       action=st.sampled_from([None, "save", "clear", "bogus"]), htmx=st.booleans())  # fmt: skip
def test_random_values_for_a_league_table_never_give_a_500(
    oc: Client,
    league: Tournament,
    raw: list[tuple[str, str]],
    action: str | None,
    htmx: bool,
) -> None:
    match = Match.objects.filter(round__tournament=league, kind=MatchKind.GAME).first()
    assert match is not None
    seats = list(match.seats.order_by("position").values_list("pk", flat=True))
    data = {f"{kind}_{seats[k % len(seats)]}": v for k, (kind, v) in enumerate(raw)}
    if action is not None:
        data["action"] = action
    post(oc, manage(league, f"matches/{match.pk}/game/"), data, htmx, "league table")


@settings(FUZZ, max_examples=100)
@given(
    endpoint=st.sampled_from(["cut/", "top-cut/", "pair/", "undo/", "finish/", "clock/"]),
    data=fields("mode", "value", "size", "action", "minutes"),
    htmx=st.booleans(),
)
def test_random_values_for_the_round_actions_never_give_a_500(
    oc: Client, swiss: Tournament, endpoint: str, data: dict[str, str], htmx: bool
) -> None:
    post(oc, manage(swiss, endpoint), data, htmx, f"board {endpoint.rstrip('/')}")


@settings(FUZZ, max_examples=50)
@given(data=fields("username", "remove"), htmx=st.booleans())
def test_random_values_for_the_staff_list_never_give_a_500(
    oc: Client, swiss: Tournament, data: dict[str, str], htmx: bool, django_user_model: type[User]
) -> None:
    django_user_model.objects.get_or_create(username="helper")
    post(oc, manage(swiss, "staff/"), data, htmx, "staff")


@pytest.fixture(scope="module", autouse=True)
def _report_counts() -> Iterator[None]:
    yield
    total = sum(v for k, v in COUNTS.items() if ":" not in k)
    figures = {"generated posts": total, **dict(sorted(COUNTS.items()))}
    print("\nfuzz forms:", json.dumps(figures, indent=1))
    store_fuzz_counts("forms", figures)
