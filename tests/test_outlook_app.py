""" "What do I need?" in the app (issue 15): the stored figures (scoring/outlooks.py), the
player's card, the organizer's top tables and the JSON API.

Figures are computed synchronously here (OUTLOOK_BACKGROUND off) with few simulations,
except where the background thread itself is under test: there the computation is
replaced by a stand-in that touches no database, so the test stays deterministic.
"""

from __future__ import annotations

import json
import random
import re
import threading
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db.models import F
from django.test import Client

from scoring import outlooks
from scoring.engine.outlook import MODEL, chance_margin, compute_outlook, margin_of_error
from scoring.models import Outlook
from scoring.services import event_record
from tests.helpers import REAL, cut_back
from tournaments import services
from tournaments.models import Match, MatchKind, Player, Round, Status, Tournament
from tournaments.services.lifecycle import update_plan

SIMULATIONS = 120
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def _outlook_settings(settings: Any) -> None:
    settings.OUTLOOK_SIMULATIONS = SIMULATIONS
    settings.OUTLOOK_BACKGROUND = False


@pytest.fixture
def real(owner: User, db: Any) -> Tournament:
    """The real event cut back to its last Swiss round, a top 8 planned after it."""
    from tests.conftest import load_shared

    doc, rounds = cut_back(load_shared(REAL))
    t = services.import_document(doc, owner=owner)
    return update_plan(tournament=t, planned_rounds=rounds, top_cut=8)


def fresh(t: Tournament) -> Tournament:
    return Tournament.objects.get(pk=t.pk)


def last_round(t: Tournament) -> Round:
    return Round.objects.filter(tournament=t).order_by("-number")[0]


def row_of(t: Tournament) -> Outlook:
    return Outlook.objects.get(tournament=t, round=last_round(t))


def engine_json(t: Tournament, row: Outlook) -> dict[str, Any]:
    """What compute_outlook gives for the stored row's seed, as the row stores it."""
    t = fresh(t)
    result = compute_outlook(
        event_record(t),
        rounds_after=row.rounds_after,
        cut=t.top_cut,
        rng=random.Random(row.seed),
        simulations=row.simulations,
    )
    tables = list(
        Match.objects.filter(round=last_round(t))
        .order_by("table", "id")
        .values_list("table", flat=True)
    )
    return outlooks.to_json(result, tables)


# --- When it applies -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("system", "top_cut", "planned", "status", "number", "playoff", "expected"),
    [
        ("mtr", 8, 5, Status.RUNNING, 5, False, 0),
        ("dci", 8, 5, Status.RUNNING, 4, False, 1),
        ("melee", 4, 5, Status.RUNNING, 3, False, 2),
        ("mtr", 8, 5, Status.RUNNING, 2, False, None),  # too early
        ("mtr", 8, 5, Status.RUNNING, 6, False, 0),  # beyond the plan: the last one
        ("mtr", 0, 5, Status.RUNNING, 5, False, None),  # no top cut
        ("mtr", 8, None, Status.RUNNING, 5, False, None),  # no plan: rounds to come unknown
        ("pod", 8, 5, Status.RUNNING, 5, False, None),
        ("league", 8, 5, Status.RUNNING, 5, False, None),
        ("mtr", 8, 5, Status.TOP_CUT, 6, True, None),  # a playoff round
        ("mtr", 8, 5, Status.FINISHED, 5, False, None),
    ],
)
def test_applies_from_two_rounds_before_the_end_of_the_plan_in_a_running_swiss_event_with_a_cut(
    system: str,
    top_cut: int,
    planned: int | None,
    status: str,
    number: int,
    playoff: bool,
    expected: int | None,
) -> None:
    t = Tournament(system=system, top_cut=top_cut, planned_rounds=planned, status=status)
    round_ = Round(number=number, playoff=playoff)
    assert outlooks.rounds_after(t, round_) == expected
    assert outlooks.applies(t, round_) is (expected is not None)
    assert outlooks.applies(t, None) is False


def test_a_seed_is_derived_from_the_event_the_round_and_the_version_reproducibly() -> None:
    seed = outlooks.derive_seed(7, 5, 40)
    assert seed == outlooks.derive_seed(7, 5, 40)
    assert 0 <= seed < 2**63
    assert len({seed, outlooks.derive_seed(7, 5, 41), outlooks.derive_seed(7, 4, 40)}) == 3


# --- Computing and storing ------------------------------------------------------------------


def test_compute_now_stores_ready_figures_equal_to_the_engines_for_the_stored_seed(
    real: Tournament,
) -> None:
    row = outlooks.compute_now(tournament_id=real.pk)
    assert row is not None and row.state == Outlook.State.READY
    t = fresh(real)
    assert row.version == t.version and row.round_id == last_round(t).pk
    assert (row.simulations, row.cut, row.rounds_after) == (SIMULATIONS, 8, 0)
    # Computed for the version before: storing them moved the version (a write of its own,
    # so that the pages showing them are told), and nothing else changed in between.
    assert row.seed == outlooks.derive_seed(t.seed, last_round(t).number, t.version - 1)
    assert row.took_ms is not None and row.computed_at is not None and row.model
    stored = Outlook.objects.get(pk=row.pk).data  # as read back from the database
    assert stored == json.loads(json.dumps(engine_json(t, row)))
    # Plain JSON: chances are "in", "out" or hits of runs with the figure's own margin.
    for answer in stored["players"].values():
        for chance in [answer["chance"], *answer["chance_after"].values()]:
            assert chance in ("in", "out") or set(chance) == {"hits", "runs", "margin"}
    # The same version again: nothing recomputed.
    assert outlooks.compute_now(tournament_id=real.pk).computed_at == row.computed_at


def test_a_result_entered_in_the_current_round_is_fixed_in_the_recomputed_figures(
    real: Tournament,
) -> None:
    outlooks.schedule(real.pk)
    before = row_of(real)
    match = (
        Match.objects.filter(round=last_round(real), kind=MatchKind.PLAYED, reported=False)
        .order_by("table")
        .first()
    )
    a, b = (s.player.external_id for s in match.seats.order_by("position"))
    assert before.data["players"][a]["result"] is None
    services.record_result(match=match, wins=(2, 0))
    outlooks.schedule(real.pk)  # what the writing service does once the write committed
    after = row_of(real)
    assert after.pk == before.pk and after.version == fresh(real).version > before.version
    assert after.data["players"][a]["result"] == "win"
    assert list(after.data["players"][a]["chance_after"]) == ["win"]
    assert after.data["players"][b]["result"] == "loss"
    assert match.table not in {x["table"] for x in after.data["tables"]}
    assert after.data == json.loads(json.dumps(engine_json(real, after)))


def test_figures_of_an_older_version_never_replace_those_of_a_newer_one(real: Tournament) -> None:
    row = outlooks.compute_now(tournament_id=real.pk)
    t = fresh(real)
    kept = outlooks._store(t, last_round(t), row.version - 1, state=Outlook.State.READY, data={})
    assert kept.version == row.version and row_of(t).data == row.data


def test_a_failed_computation_is_stored_as_failed_and_the_card_says_so(
    real: Tournament, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("broken engine")

    monkeypatch.setattr(outlooks, "compute_outlook", broken)
    outlooks.schedule(real.pk)  # never raises
    row = row_of(real)
    assert row.state == Outlook.State.FAILED and "broken engine" in row.error
    pid = Player.objects.filter(tournament=real).first().external_id
    page = client.get(f"/t/{real.slug}/players/{pid}/").content.decode()
    assert 'data-outlook="failed"' in page


def test_a_plan_that_no_longer_applies_marks_the_figures_not_applicable(
    real: Tournament, client: Client
) -> None:
    outlooks.schedule(real.pk)
    update_plan(tournament=real, planned_rounds=None, top_cut=8)
    outlooks.schedule(real.pk)
    assert row_of(real).state == Outlook.State.NOT_APPLICABLE
    pid = Player.objects.filter(tournament=real).first().external_id
    assert 'id="outlook"' not in client.get(f"/t/{real.slug}/players/{pid}/").content.decode()
    body = client.get(f"/t/{real.slug}/outlook.json").json()
    assert body["state"] == "not_applicable" and body["players"] == []


def test_an_event_it_does_not_apply_to_gets_no_row(db: Any, owner: User) -> None:
    t = services.create_tournament(name="Casual", owner=owner, seed=3)
    services.register_players(tournament=t, names=[f"P{i}" for i in range(8)])
    services.pair_next_round(tournament=t)
    outlooks.schedule(t.pk)
    assert outlooks.compute_now(tournament_id=t.pk) is None
    assert not Outlook.objects.filter(tournament=t).exists()


# --- In the background ------------------------------------------------------------------------


def test_schedule_marks_computing_at_once_then_runs_one_at_a_time_coalescing_writes(
    real: Tournament, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.OUTLOOK_BACKGROUND = True
    release = threading.Event()
    started = threading.Semaphore(0)
    calls: list[int] = []

    def stand_in(*, tournament_id: int) -> None:
        calls.append(tournament_id)
        started.release()
        assert release.wait(10)

    monkeypatch.setattr(outlooks, "compute_now", stand_in)
    outlooks.schedule(real.pk)
    assert row_of(real).state == Outlook.State.COMPUTING  # said before any run
    assert started.acquire(timeout=10)
    for _ in range(5):  # writes while the run is under way: one more run covers them all
        outlooks.schedule(real.pk)
    release.set()
    assert outlooks.wait_idle(10)
    assert calls == [real.pk, real.pk]
    outlooks.schedule(real.pk)  # after the runs: a new thread
    assert outlooks.wait_idle(10) and len(calls) == 3


def test_background_runs_of_an_event_start_at_most_every_few_seconds(
    real: Tournament, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    settings.OUTLOOK_BACKGROUND = True
    settings.OUTLOOK_EVERY_SECONDS = 1
    starts: list[float] = []
    first = threading.Event()

    def stand_in(*, tournament_id: int) -> None:
        starts.append(time.monotonic())
        first.set()

    monkeypatch.setattr(outlooks, "compute_now", stand_in)
    outlooks.schedule(real.pk)
    assert first.wait(10)
    for _ in range(3):  # results right after the run: one more, a second after the first
        outlooks.schedule(real.pk)
    assert outlooks.wait_idle(10)
    assert len(starts) == 2 and starts[1] - starts[0] >= 0.99


def test_schedule_never_raises_whatever_fails(
    real: Tournament, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(**kwargs: Any) -> None:
        raise RuntimeError("down")

    monkeypatch.setattr(outlooks, "compute_now", broken)
    outlooks.schedule(real.pk)  # in the caller
    settings.OUTLOOK_BACKGROUND = True
    outlooks.schedule(real.pk)  # in a thread, which ends all the same
    assert outlooks.wait_idle(10)
    monkeypatch.setattr(outlooks, "mark_computing", lambda tournament_id: 1 / 0)
    outlooks.schedule(real.pk)
    outlooks.schedule(10**9)  # no such event


def test_the_background_run_stores_the_figures_in_a_file_database(tmp_path: Any) -> None:
    """A real thread with its own connection, in a child process owning a file database
    (a test database inside a transaction is invisible to other connections)."""
    import os
    import subprocess
    import sys

    from tests.conftest import PROJECT_ROOT

    script = f"""
import django, json
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.test.utils import override_settings
from scoring import outlooks
from scoring.models import Outlook
from tests.test_outlook_app import cut_back
from tests.conftest import load_shared
from tournaments import services
from tournaments.services.lifecycle import update_plan
doc, rounds = cut_back(load_shared({REAL!r}))
t = services.import_document(doc)
update_plan(tournament=t, planned_rounds=rounds, top_cut=8)
with override_settings(OUTLOOK_BACKGROUND=True, OUTLOOK_SIMULATIONS=50):
    outlooks.schedule(t.pk)
    assert outlooks.wait_idle(60)
row = Outlook.objects.get(tournament=t)
print("ROW", json.dumps([row.state, row.version == type(t).objects.get(pk=t.pk).version]))
"""
    env = {
        **os.environ,
        "DEBUG": "1",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'event.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "tournaments.settings",
    }
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("ROW "))
    assert json.loads(line.removeprefix("ROW ")) == ["ready", True]


# --- The player's page ---------------------------------------------------------------------


def answer_kind(page: str) -> str:
    match = re.search(r'<p class="big outlook-sentence" data-outlook="([^"]+)">([^<]+)</p>', page)
    assert match is not None, "no answer on the page"
    return match.group(1)


def test_the_player_page_says_computing_then_the_card_asks_for_itself_until_ready(
    real: Tournament, client: Client
) -> None:
    outlooks.mark_computing(real.pk)
    pid = Player.objects.filter(tournament=real).order_by("id").first().external_id
    page = client.get(f"/t/{real.slug}/players/{pid}/").content.decode()
    assert 'data-outlook="computing"' in page and "Computing" in page
    card_url = f"/t/{real.slug}/outlook/{pid}/"
    assert f'hx-get="{card_url}"' in page
    assert f'href="/t/{real.slug}/players/{pid}/"' in page  # without JavaScript: reload
    outlooks.compute_now(tournament_id=real.pk)
    card = client.get(card_url, **HX)
    assert card.status_code == 200 and card["Cache-Control"] == "no-cache"
    html = card.content.decode()
    assert html.lstrip().startswith('<section id="outlook"') and "hx-get" not in html
    answer_kind(html)
    plain = client.get(card_url)
    assert plain.status_code == 302 and plain["Location"] == f"/t/{real.slug}/players/{pid}/"
    assert client.get(f"/t/{real.slug}/outlook/nobody/", **HX).status_code == 404


def test_figures_updating_after_a_result_stay_on_the_card_without_it_polling(
    real: Tournament, client: Client
) -> None:
    """Only a card with nothing to show asks for itself: in the last rounds figures are
    "updating" after nearly every result, and every phone would poll every few seconds."""
    outlooks.compute_now(tournament_id=real.pk)
    Tournament.objects.filter(pk=real.pk).update(version=F("version") + 1)  # a result
    outlooks.mark_computing(real.pk)  # the next run is due: the figures are updating
    pid = Player.objects.filter(tournament=real).order_by("id").first().external_id
    page = client.get(f"/t/{real.slug}/players/{pid}/").content.decode()
    assert 'data-outlook="updating"' in page
    assert f'hx-get="/t/{real.slug}/outlook/{pid}/"' not in page
    answer_kind(page)  # the figures of the run before are shown meanwhile


def test_the_player_page_shows_the_answer_plain_and_for_htmx(
    real: Tournament, client: Client
) -> None:
    row = outlooks.compute_now(tournament_id=real.pk)
    chances = [
        p for p, a in row.data["players"].items() if a["certain"] is None and a["needs"] is None
    ]
    pid = chances[0]
    for headers in ({}, HX):
        page = client.get(f"/t/{real.slug}/players/{pid}/", **headers).content.decode()
        assert answer_kind(page) == "chances"
        assert re.search(r"after a win: .+, draw: .+, loss: ", page)
        assert f"From {SIMULATIONS} simulations" in page and "45 % first player wins" in page
    assert ("<html" in page) is False


def test_the_model_and_the_card_say_what_the_proofs_assume(
    real: Tournament, client: Client
) -> None:
    """Issue 23: proofs count double losses among the other tables' outcomes and assume no
    further drops and no corrections; the simulations draw no double loss. The stored
    `model` says all that, and so does a card with a proven answer (which shows no model)."""
    row = outlooks.compute_now(tournament_id=real.pk)
    model = outlooks.model_english(row.model)
    assert "double losses, drops and corrections are not simulated" in model
    assert "a double loss included" in model
    assert "no further drops, no correction of a result already entered" in model
    answers = row.data["players"]
    proven = next(p for p, a in answers.items() if a["certain"] is not None)
    chances = next(p for p, a in answers.items() if a["certain"] is None)
    page = client.get(f"/t/{real.slug}/players/{proven}/").content.decode()
    assert "No simulation needed" in page and "no further drops" in page
    assert "a double loss included" in page
    page = client.get(f"/t/{real.slug}/players/{chances}/").content.decode()
    assert "double losses, drops and corrections are not simulated" in page


def test_a_card_is_found_for_ids_of_digits_and_ids_holding_slashes_and_dots(
    owner: User, client: Client
) -> None:
    """The page reads only the player's part of the figures by a JSON path: an id of
    digits must not be taken for an array index, nor "/" or "." for path syntax."""
    from tests.conftest import load_shared

    doc, rounds = cut_back(load_shared(REAL))
    renamed = {"p1": "12", "p3": "team/3.x", "p4": "0"}
    text = json.dumps(doc)
    for old, new in renamed.items():
        text = text.replace(f'"{old}"', f'"{new}"')
    t = services.import_document(json.loads(text), owner=owner)
    update_plan(tournament=t, planned_rounds=rounds, top_cut=8)
    row = outlooks.compute_now(tournament_id=t.pk)
    for pid in renamed.values():
        assert pid in row.data["players"]
        page = client.get(f"/t/{t.slug}/players/{pid}/").content.decode()
        engine = row.data["players"][pid]
        assert answer_kind(page) == engine["certain"] or (
            f"needs-{engine['needs']}" if engine["needs"] else "chances"
        )


def test_a_players_page_reads_the_figures_once_per_version_not_once_per_player(
    real: Tournament, client: Client
) -> None:
    """The round's figures come with the event's view (pages.event), read once per
    version in a process: a hall of phones asking after each result costs one read."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    outlooks.compute_now(tournament_id=real.pk)
    with CaptureQueriesContext(connection) as queries:
        for pid in ("p3", "p4", "p5"):
            assert client.get(f"/t/{real.slug}/players/{pid}/").status_code == 200
    reads = [q["sql"] for q in queries if "scoring_outlook" in q["sql"]]
    assert len(reads) == 1


def test_words_for_certain_answers_and_for_chances() -> None:
    words = outlooks.answer_words(
        {"certain": "in", "needs": None, "result": None, "chance_after": {}, "chance": "in"},
        cut=8,
        after=0,
    )
    assert words["sentence"] == "In the top 8 whatever happens" and words["chances"] == []
    words = outlooks.answer_words(
        {"certain": "out", "needs": None, "result": None, "chance_after": {}, "chance": "out"},
        cut=4,
        after=0,
    )
    assert words["sentence"] == "Out of the top 4 whatever happens"
    needs_draw = {
        "certain": None,
        "needs": "draw",
        "result": None,
        "chance_after": {"win": "in", "draw": "in", "loss": {"hits": 930, "runs": 2000}},
        "chance": {"hits": 1950, "runs": 2000},
    }
    words = outlooks.answer_words(needs_draw, cut=8, after=0)
    assert words["sentence"] == "A draw puts you in the top 8 whatever the other tables do"
    assert [c["text"] for c in words["chances"]] == ["in for sure", "in for sure", "46 % (± 2.2 %)"]
    # A figure resting on fewer runs than the overall chance (a round still to come: the
    # runs with that result only) gives its own, wider margin and says on how many runs.
    fewer = {**needs_draw, "chance_after": {"win": "in", "loss": {"hits": 74, "runs": 196}}}
    words = outlooks.answer_words(fewer, cut=8, after=1)
    assert [c["text"] for c in words["chances"]] == [
        "in for sure",
        "38 % (± 7.0 %, from 196 of 2,000 simulations)",
    ]
    assert words["now"] == "98 % (± 0.8 %)"
    words = outlooks.answer_words({**needs_draw, "needs": "win"}, cut=8, after=1)
    assert words["sentence"] == (
        "A win puts you in the top 8 whatever the other tables do, even losing the round after"
    )
    assert (
        outlooks.chance_text({"hits": 0, "runs": 500})
        == "very unlikely (0 of 500 simulated finishes)"
    )
    assert outlooks.chance_text({"hits": 3, "runs": 2000}) == "<1 % (± 0.3 %)"
    # The margin is recomputed from hits and runs: rows stored before "margin" was in the
    # JSON read the same.
    assert outlooks.chance_text({"hits": 3, "runs": 2000, "margin": 0.003}) == "<1 % (± 0.3 %)"
    assert outlooks.chance_text({"hits": 0, "runs": 0}).startswith("no estimate")


# --- The organizer's top tables -------------------------------------------------------------


def top_tables_url(t: Tournament) -> str:
    return f"/t/{t.slug}/manage/top-tables/"


def test_top_tables_needs_a_login_and_a_manager_of_the_event(
    real: Tournament, client: Client, django_user_model: type[User]
) -> None:
    response = client.get(top_tables_url(real))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    other = django_user_model.objects.create_user("other")
    client.force_login(other)
    assert client.get(top_tables_url(real)).status_code == 403
    assert client.get(top_tables_url(real), **HX).status_code == 403
    judge = django_user_model.objects.create_user("judge")
    real.staff.add(judge)
    client.force_login(judge)
    assert client.get(top_tables_url(real)).status_code == 200
    assert client.get("/t/no-such-event/manage/top-tables/").status_code == 404


def test_top_tables_plain_and_htmx_list_the_tables_that_matter_draws_putting_both_in_first(
    real: Tournament, oc: Client
) -> None:
    computing = oc.get(top_tables_url(real)).content.decode()
    assert "Computing" in computing or "not" in computing
    row = outlooks.compute_now(tournament_id=real.pk)
    plain = oc.get(top_tables_url(real))
    partial = oc.get(top_tables_url(real), **HX)
    assert plain.status_code == partial.status_code == 200
    assert "<html" in plain.content.decode() and "<html" not in partial.content.decode()
    page = partial.content.decode()
    listed = re.findall(r'<tr data-table="(\d*)"( class="draw-both-in")?', page)
    both_in = [int(n) for n, flag in listed if flag]
    others = [int(n) for n, flag in listed if not flag]
    assert listed[: len(both_in)] == [(str(n), ' class="draw-both-in"') for n in both_in]
    assert both_in == sorted(both_in) and others == sorted(others)
    players = row.data["players"]
    matter = [
        x["table"]
        for x in row.data["tables"]
        if any(players.get(p, {}).get("certain", "out") != "out" for p in x["players"])
    ]
    assert sorted(both_in + others) == sorted(matter)
    assert "A draw puts both in" in page if both_in else "No table where a draw" in page


def test_the_round_screen_links_to_the_top_tables(real: Tournament, oc: Client) -> None:
    page = oc.get(f"/t/{real.slug}/manage/rounds/{last_round(real).number}/").content.decode()
    assert f'href="{top_tables_url(real)}"' in page


# --- JSON -----------------------------------------------------------------------------------


def test_outlook_json_gives_the_figures_and_moves_its_etag_when_they_are_ready(
    real: Tournament, client: Client
) -> None:
    url = f"/t/{real.slug}/outlook.json"
    empty = client.get(url)
    assert empty.status_code == 200 and empty["Access-Control-Allow-Origin"] == "*"
    computing = empty
    assert computing.json()["state"] == "computing"  # said by the import's own transaction
    assert client.get(url, HTTP_IF_NONE_MATCH=empty["ETag"]).status_code == 304
    row = outlooks.compute_now(tournament_id=real.pk)
    ready = client.get(url, HTTP_IF_NONE_MATCH=computing["ETag"])
    assert ready.status_code == 200 and ready["Cache-Control"].startswith("public")
    body = ready.json()
    assert body["state"] == "ready" and body["current"] is True
    assert (body["simulations"], body["cut"], body["rounds_after"]) == (SIMULATIONS, 8, 0)
    assert body["seed"] == str(row.seed)
    # The row holds the model as messages (issue 36); the API says it in English.
    assert body["model"] == " ".join(m.english() for m in MODEL)
    assert row.model == [m.data() for m in MODEL]
    assert {p["id"]: {k: v for k, v in p.items() if k != "id"} for p in body["players"]} == (
        row.data["players"]
    )
    assert body["tables"] == row.data["tables"]
    assert client.get(url, HTTP_IF_NONE_MATCH=ready["ETag"]).status_code == 304


def test_each_figure_has_its_own_margin_in_the_json_and_on_the_card(
    real: Tournament, client: Client, oc: Client
) -> None:
    """Issue 23: with a round still to come a chance after a result rests on the runs with
    that result only. Each chance object carries its own margin (from its hits and runs);
    the top-level one stays, the worst case of a figure on every run; the card shows each
    figure's own margin and no longer one "at most" for all."""
    update_plan(tournament=real, planned_rounds=last_round(real).number + 1, top_cut=8)
    row = outlooks.compute_now(tournament_id=real.pk)
    assert row.rounds_after == 1
    body = client.get(f"/t/{real.slug}/outlook.json").json()
    assert body["margin"] == round(margin_of_error(SIMULATIONS), 6)
    fewer = []
    for player in body["players"]:
        chances = [player["chance"], *player["chance_after"].values()]
        for chance in chances:
            if isinstance(chance, dict):
                assert chance["margin"] == round(chance_margin(chance["hits"], chance["runs"]), 6)
                assert chance["runs"] <= SIMULATIONS
        if isinstance(player["chance"], dict):
            assert player["chance"]["runs"] == SIMULATIONS
            assert player["chance"]["margin"] <= body["margin"]
        fewer += [
            (player["id"], c)
            for c in player["chance_after"].values()
            if isinstance(c, dict) and 0 < c["hits"] < c["runs"] < SIMULATIONS
        ]
    for table in body["tables"]:
        for chance in table["draw_chances"]:
            if isinstance(chance, dict):
                assert chance["margin"] == round(chance_margin(chance["hits"], chance["runs"]), 6)
    assert fewer and any(c["margin"] > body["margin"] for _, c in fewer)
    pid, chance = max(fewer, key=lambda item: item[1]["margin"])
    page = client.get(f"/t/{real.slug}/players/{pid}/").content.decode()
    own = f"± {chance['margin'] * 100:.1f} %, from {chance['runs']} of {SIMULATIONS} simulations"
    assert own in page
    assert "at most ±" not in page and "its own 95 % margin of error" in page
    top = oc.get(f"/t/{real.slug}/manage/top-tables/").content.decode()
    assert "at most ±" not in top and "its own 95 % margin of error" in top


def test_a_players_json_carries_their_outlook(real: Tournament, client: Client) -> None:
    row = outlooks.compute_now(tournament_id=real.pk)
    pid = next(iter(row.data["players"]))
    body = client.get(f"/t/{real.slug}/players/{pid}.json").json()
    assert body["outlook"]["state"] == "ready"
    assert body["outlook"]["answer"] == row.data["players"][pid]
    assert body["outlook"]["round"] == last_round(real).number


# --- Done when (issue 15) ----------------------------------------------------------------------


def test_before_the_last_round_of_a_real_event_every_player_page_answers_and_top_tables_list_draws(
    real: Tournament, client: Client, oc: Client
) -> None:
    """A real event cut back to before its last Swiss round: every player still in it is
    told what they need, and the top tables list exactly the tables where the engine says
    a draw puts both players in."""
    outlooks.schedule(real.pk)
    row = row_of(real)
    assert row.state == Outlook.State.READY
    t = fresh(real)
    result = compute_outlook(
        event_record(t), rounds_after=0, cut=8, rng=random.Random(row.seed), simulations=SIMULATIONS
    )
    active = set(
        Player.objects.filter(tournament=t, dropped_after_round__isnull=True).values_list(
            "external_id", flat=True
        )
    )
    seated = {p.player for p in result.players}
    assert seated and seated <= active
    for pid in sorted(seated):
        page = client.get(f"/t/{t.slug}/players/{pid}/").content.decode()
        kind = answer_kind(page)
        engine = next(p for p in result.players if p.player == pid)
        expected = engine.certain or (f"needs-{engine.needs}" if engine.needs else "chances")
        assert kind == expected, pid
    tables = list(
        Match.objects.filter(round=last_round(t))
        .order_by("table", "id")
        .values_list("table", flat=True)
    )
    proven = sorted(tables[x.table - 1] for x in result.tables if x.draw_puts_both_in)
    assert proven  # this event has such tables before its last round
    page = oc.get(top_tables_url(t)).content.decode()
    flagged = [int(n) for n in re.findall(r'<tr data-table="(\d+)" class="draw-both-in"', page)]
    assert flagged == proven


def test_the_private_page_answers_what_do_i_need_too(real: Tournament, client: Client) -> None:
    from tournaments.services.registration import issue_link

    row = outlooks.compute_now(tournament_id=real.pk)
    assert row is not None
    pid = next(iter(row.data["players"]))
    token = issue_link(player=Player.objects.get(tournament=real, external_id=pid))
    for headers in ({}, HX):
        page = client.get(f"/p/{token}/", **headers).content.decode()
        assert 'id="outlook"' in page and "What do I need?" in page
        answer_kind(page)
