"""A Swiss result corrected after the top cut was seeded (issue 12 item 3): the notice
names the seeds it changes, the organizer re-seeds (while no playoff result is in) or
keeps the cut, the choice is audited and remembered, and the public bracket says so."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.template.loader import render_to_string
from django.test import Client

from tests.helpers import fresh, swiss_doc
from tournaments import services
from tournaments.labels import seed_change_english
from tournaments.models import AuditAction, AuditEntry, Match, Seat, Tournament
from tournaments.pages import public
from tournaments.pages.bracket import cut_note
from tournaments.pages.corrections import cut_check, cut_state
from tournaments.services import ServiceError
from tournaments.services.corrections import CUT_DECISION

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


# The four Swiss rounds, as the engine once paired them (tournament seed 3); written out
# so that the scenario below does not move when the pairing engine picks another of the
# equally good pairings. The first seat wins every match 2-1.
ROUNDS = [
    "p11-p1 p5-p4 p8-p2 p13-p15 p6-p12 p16-p9 p10-p7 p3-p14",
    "p10-p5 p6-p13 p11-p16 p8-p3 p15-p1 p7-p2 p4-p9 p12-p14",
    "p8-p6 p10-p11 p12-p5 p4-p16 p15-p7 p3-p13 p2-p9 p14-p1",
    "p10-p8 p12-p15 p6-p11 p4-p3 p16-p14 p13-p7 p2-p5 p1-p9",
]


@pytest.fixture
def cut(owner: User) -> Tournament:
    """16 players, 4 Swiss rounds (the first seat wins 2-1), the top 8 seeded.

    Round 4, table 2 is Player 12 (seed 4, 9 points) beating Player 15 (9th, 6 points).
    """
    doc = swiss_doc("Cut Correction", ROUNDS, players=16, seed=3, names="Player {i:02}")
    t = services.import_document(doc, owner=owner)
    services.start_top_cut(tournament=t, size=8, by=owner)
    return fresh(t)


def swiss_match(t: Tournament, number: int, table: int) -> Match:
    return Match.objects.get(round__tournament=t, round__number=number, table=table)


def correct(t: Tournament, wins: tuple[int, int] = (1, 2), table: int = 2) -> Tournament:
    """Correct round 4's result at `table` (table 2 by default: Player 12 now loses)."""
    services.record_result(match=swiss_match(t, 4, table), wins=wins)
    return fresh(t)


def quarterfinal_players(t: Tournament) -> list[tuple[str, str]]:
    seats = Seat.objects.filter(round__tournament=t, round__playoff=True).order_by(
        "match__table", "position"
    )
    names = [s.player.name for s in seats.select_related("player")]
    return list(zip(names[0::2], names[1::2], strict=True))


def enter_a_playoff_result(t: Tournament) -> None:
    first = Match.objects.filter(round__tournament=t, round__playoff=True).order_by("table")[0]
    services.record_result(match=first, wins=(2, 0))


def decisions(t: Tournament) -> list[AuditEntry]:
    return [
        e
        for e in AuditEntry.objects.filter(tournament=t, action=AuditAction.TOP_CUT)
        if isinstance(e.after, dict) and CUT_DECISION in e.after
    ]


# --- The notice ---------------------------------------------------------------------------------


def test_no_notice_while_the_seeds_still_match_the_standings(cut: Tournament) -> None:
    assert cut_check(cut) is None
    state = cut_state(cut)
    assert state is not None and state["changes"] == [] and state["size"] == 8


def test_outside_a_top_cut_the_notice_costs_no_query(
    owner: User, django_assert_num_queries: Any
) -> None:
    t = services.create_tournament(name="No Cut", owner=owner, seed=1)
    with django_assert_num_queries(0):
        assert cut_check(t) is None


def test_a_correction_names_who_falls_out_and_who_enters_the_cut(cut: Tournament) -> None:
    t = correct(cut)
    check = cut_check(t)
    assert check is not None
    texts = [seed_change_english(c["message"]) for c in check["changes"]]
    assert any(text.startswith("Player 12 (seed 4) would now be") for text in texts)
    assert any(text.endswith(": out of the cut") for text in texts)
    assert "Player 15 (9 points, now 4th) would enter as seed 4" in texts or any(
        text.startswith("Player 15 (9 points, now") and "would enter as seed" in text
        for text in texts
    )
    assert check["correction"]["round"] == 4 and check["correction"]["table"] == 2
    assert check["reseed_blocked"] is None


def test_the_pending_notice_costs_a_few_queries(
    cut: Tournament, django_assert_max_num_queries: Any
) -> None:
    t = correct(cut)
    with django_assert_max_num_queries(4):
        assert cut_check(t) is not None


def test_a_correction_below_the_cut_raises_no_notice(cut: Tournament) -> None:
    # Round 4 table 8 is two 0-3 / 3-pointers far below the cut: nothing moves in the top 8.
    t = correct(cut, table=8)
    assert cut_check(t) is None


def test_the_notice_template_links_to_the_review(cut: Tournament) -> None:
    t = correct(cut)
    html = render_to_string("tournaments/manage/_cut_notice.html", {"cut_check": cut_check(t)})
    assert "A correction changed the top cut's seeds" in html
    assert f'href="/t/{t.slug}/manage/corrections/"' in html
    assert (
        render_to_string("tournaments/manage/_cut_notice.html", {"cut_check": None}).strip() == ""
    )


# --- Re-seed ------------------------------------------------------------------------------------


def test_reseed_pairs_the_quarterfinals_again_from_the_current_standings(
    cut: Tournament, owner: User
) -> None:
    t = correct(cut)
    before = quarterfinal_players(t)
    state = cut_state(t)
    assert state is not None
    services.reseed_top_cut(tournament=t, seen=state["seen"], by=owner)
    t = fresh(t)
    after = quarterfinal_players(t)
    assert after != before
    names = dict(t.players.values_list("external_id", "name"))
    order = [names[p] for p in state["order"][:8]]
    assert after == [(order[a - 1], order[b - 1]) for a, b in ((1, 8), (4, 5), (2, 7), (3, 6))]
    assert all("Player 12" not in pair for pair in after)
    assert cut_check(t) is None and t.status == "top_cut"
    (entry,) = decisions(t)
    assert entry.after[CUT_DECISION] == "reseed" and entry.user == owner
    assert entry.summary.startswith("Re-seeded the top 8 after a correction to round 4 (table 2)")


def test_reseed_is_refused_once_a_playoff_result_is_entered(cut: Tournament) -> None:
    enter_a_playoff_result(cut)
    t = correct(cut)
    before = quarterfinal_players(t)
    state = cut_state(t)
    assert state is not None and state["changes"] and state["reseed_blocked"]
    with pytest.raises(ServiceError, match="playoff result is already entered"):
        services.reseed_top_cut(tournament=t)
    assert quarterfinal_players(t) == before and decisions(t) == []
    services.keep_top_cut(tournament=t)  # keeping stays possible
    assert cut_check(fresh(t)) is None


def test_the_seed_changes_read_the_same_before_and_after_a_playoff_result(
    cut: Tournament,
) -> None:
    t = correct(cut)
    without = cut_state(t)
    enter_a_playoff_result(t)
    with_result = cut_state(fresh(t))
    assert without is not None and with_result is not None
    assert with_result["fingerprint"] == without["fingerprint"]


def test_nothing_to_decide_is_refused_with_a_message(cut: Tournament) -> None:
    with pytest.raises(ServiceError, match="nothing to decide"):
        services.reseed_top_cut(tournament=cut)
    with pytest.raises(ServiceError, match="nothing to decide"):
        services.keep_top_cut(tournament=cut)


def test_a_choice_made_on_a_stale_review_is_refused(cut: Tournament) -> None:
    t = correct(cut)
    seen = cut_state(t)["seen"]  # type: ignore[index]
    t = correct(t, table=3)  # Player 06 (seed 3) loses too: the picture changed meanwhile
    with pytest.raises(ServiceError, match="changed since you looked"):
        services.keep_top_cut(tournament=t, seen=seen)
    assert decisions(t) == []


# --- Keep ---------------------------------------------------------------------------------------


def test_keep_is_audited_and_remembered_until_a_further_correction(
    cut: Tournament, owner: User
) -> None:
    t = correct(cut)
    services.keep_top_cut(tournament=t, seen=cut_state(t)["seen"], by=owner)  # type: ignore[index]
    t = fresh(t)
    assert cut_check(t) is None
    (entry,) = decisions(t)
    assert entry.after[CUT_DECISION] == "keep" and entry.user == owner
    assert entry.summary.startswith("Kept the top 8 as seeded after a correction to round 4")
    assert "Player 12 (seed 4)" in entry.summary
    # A further correction that changes the seeds' picture raises the notice again.
    t = correct(t, table=3)
    again = cut_check(t)
    assert again is not None and again["correction"]["table"] == 3
    assert any(
        seed_change_english(c["message"]).startswith("Player 06 (seed 3)") for c in again["changes"]
    )


def test_keeping_twice_writes_one_entry(cut: Tournament) -> None:
    t = correct(cut)
    services.keep_top_cut(tournament=t)
    version = fresh(t).version
    services.keep_top_cut(tournament=fresh(t))
    assert len(decisions(t)) == 1 and fresh(t).version == version


def test_undoing_the_correction_clears_the_notice(cut: Tournament) -> None:
    t = correct(cut)
    assert cut_check(t) is not None
    t = correct(t, wins=(2, 1))
    assert cut_check(t) is None


# --- The public bracket -------------------------------------------------------------------------


def public_bracket_html(t: Tournament) -> str:
    context = {**public.bracket(t), "tournament": t}
    return render_to_string("tournaments/_bracket.html", context)


def test_the_public_bracket_says_the_seeds_were_kept_after_a_correction(cut: Tournament) -> None:
    assert cut_note(cut) is None
    assert "cut-note" not in public_bracket_html(cut)
    t = correct(cut)
    services.keep_top_cut(tournament=t)
    html = public_bracket_html(fresh(t))
    assert "Seeds kept as of the cut after a correction to round 4 (table 2) at " in html


def test_the_public_bracket_says_the_cut_was_reseeded_after_a_correction(cut: Tournament) -> None:
    t = correct(cut)
    services.reseed_top_cut(tournament=t)
    note = cut_note(fresh(t))
    assert note is not None and (note["decision"], note["round"], note["table"]) == ("reseed", 4, 2)
    assert "Re-seeded after a correction to round 4 (table 2) at " in public_bracket_html(fresh(t))


# --- Views --------------------------------------------------------------------------------------


def review_url(t: Tournament, tail: str = "") -> str:
    return f"/t/{t.slug}/manage/corrections/{tail}"


def test_the_review_page_lists_the_seed_changes_and_both_choices(
    oc: Client, cut: Tournament
) -> None:
    t = correct(cut)
    response = oc.get(review_url(t))
    page = response.content.decode()
    assert response.status_code == 200 and "<html" in page
    assert "Player 12 (seed 4) would now be" in page
    assert 'id="cut-reseed"' in page and 'id="cut-keep"' in page
    assert f'action="{review_url(t, "reseed/")}"' in page


def test_the_review_answers_htmx_with_its_panel(oc: Client, cut: Tournament) -> None:
    t = correct(cut)
    response = oc.get(review_url(t), **HX)
    page = response.content.decode()
    assert response.status_code == 200 and "<html" not in page
    assert page.startswith('<section id="cut-check"') and "out of the cut" in page


def test_the_review_disables_reseed_with_the_reason_after_a_playoff_result(
    oc: Client, cut: Tournament
) -> None:
    enter_a_playoff_result(cut)
    t = correct(cut)
    page = oc.get(review_url(t)).content.decode()
    assert 'id="cut-reseed" disabled' in page and "playoff result is already entered" in page


def test_the_review_says_so_when_the_seeds_match(oc: Client, cut: Tournament) -> None:
    page = oc.get(review_url(cut)).content.decode()
    assert "seeds match the current standings" in page and 'id="cut-keep"' not in page


def test_keep_by_a_plain_post_redirects_to_the_review(oc: Client, cut: Tournament) -> None:
    t = correct(cut)
    response = oc.post(review_url(t, "keep/"), {"seen": cut_state(t)["seen"]})  # type: ignore[index]
    assert response.status_code == 302 and response["Location"] == review_url(t)
    assert len(decisions(t)) == 1 and cut_check(fresh(t)) is None
    page = oc.get(response["Location"]).content.decode()
    assert "stays as seeded" in page and "You kept the cut as seeded" in page


def test_keep_by_htmx_answers_the_panel(oc: Client, cut: Tournament) -> None:
    t = correct(cut)
    response = oc.post(review_url(t, "keep/"), {"seen": cut_state(t)["seen"]}, **HX)  # type: ignore[index]
    page = response.content.decode()
    assert response.status_code == 200 and page.startswith('<section id="cut-check"')
    assert "stays as seeded" in page and len(decisions(t)) == 1


def test_reseed_by_a_plain_post_and_by_htmx(oc: Client, cut: Tournament) -> None:
    t = correct(cut)
    response = oc.post(review_url(t, "reseed/"), {"seen": cut_state(t)["seen"]})  # type: ignore[index]
    assert response.status_code == 302 and decisions(t)[0].after[CUT_DECISION] == "reseed"
    t = correct(t, table=3)
    response = oc.post(review_url(t, "reseed/"), {"seen": cut_state(t)["seen"]}, **HX)  # type: ignore[index]
    assert response.status_code == 200 and "re-seeded from the current standings" in (
        response.content.decode()
    )
    assert len(decisions(t)) == 2 and cut_check(fresh(t)) is None


@pytest.mark.parametrize("headers", [{}, HX])
def test_a_refused_reseed_answers_422_with_the_reason(
    oc: Client, cut: Tournament, headers: dict[str, str]
) -> None:
    enter_a_playoff_result(cut)
    t = correct(cut)
    response = oc.post(review_url(t, "reseed/"), {"seen": "garbage"}, **headers)
    assert response.status_code == 422
    assert "changed since you looked" in response.content.decode()
    response = oc.post(review_url(t, "reseed/"), {}, **headers)
    assert response.status_code == 422
    assert "playoff result is already entered" in response.content.decode()
    assert decisions(t) == []


@pytest.mark.parametrize("tail", ["", "keep/", "reseed/"])
def test_only_the_event_managers_reach_the_corrections(
    client: Client, cut: Tournament, django_user_model: type[User], tail: str
) -> None:
    t = correct(cut)
    send = client.get if not tail else client.post
    response = send(review_url(t, tail))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    client.force_login(django_user_model.objects.create_user("mallory"))
    assert send(review_url(t, tail)).status_code == 403
    assert decisions(t) == []


def test_a_correction_from_the_round_screen_raises_the_notice_with_its_row(
    oc: Client, cut: Tournament
) -> None:
    m = swiss_match(cut, 4, 2)
    page = oc.post(
        f"/t/{cut.slug}/manage/rounds/4/quick/", {"entry": "2 1-2"}, **HX
    ).content.decode()
    assert f'<tr id="match-{m.pk}" class="done" data-won="b" hx-swap-oob="true">' in page
    assert "A correction changed the top cut's seeds" in page
    assert f"/t/{cut.slug}/manage/corrections/" in page
    screen = oc.get(f"/t/{cut.slug}/manage/rounds/4/").content.decode()
    assert "A correction changed the top cut's seeds" in screen


def test_the_public_bracket_page_says_the_cut_was_kept_after_a_correction(
    client: Client, owner: User, cut: Tournament
) -> None:
    t = correct(cut)
    state = cut_state(t)
    assert state is not None
    services.keep_top_cut(tournament=t, seen=state["seen"], by=owner)
    page = client.get(f"/t/{t.slug}/bracket/").content.decode()
    assert "after a correction" in page


# --- The decision is stored on the tournament ---------------------------------------------------


def test_a_kept_decision_survives_without_its_audit_entry(cut: Tournament) -> None:
    t = correct(cut)
    fingerprint = cut_state(t)["fingerprint"]  # type: ignore[index]
    services.keep_top_cut(tournament=t)
    AuditEntry.objects.filter(tournament=t).delete()
    t = fresh(t)
    assert (t.cut_decision, t.cut_decision_changes) == ("keep", fingerprint)
    assert (t.cut_correction_round, t.cut_correction_table) == (4, 2)
    assert cut_check(t) is None and cut_state(t)["decided"]  # type: ignore[index]
    note = cut_note(t)
    assert note is not None and (note["decision"], note["round"], note["table"]) == ("keep", 4, 2)
    assert "Seeds kept as of the cut after a correction to round 4 (table 2)" in (
        public_bracket_html(t)
    )


def test_a_reseed_decision_survives_without_its_audit_entry(cut: Tournament) -> None:
    t = correct(cut)
    services.reseed_top_cut(tournament=t)
    AuditEntry.objects.filter(tournament=t, action=AuditAction.TOP_CUT).delete()
    note = cut_note(fresh(t))
    assert note is not None and (note["decision"], note["round"], note["table"]) == ("reseed", 4, 2)


def test_an_audit_entry_alone_decides_nothing(cut: Tournament) -> None:
    t = correct(cut)
    state = cut_state(t)
    assert state is not None
    AuditEntry.objects.create(
        tournament=t,
        action=AuditAction.TOP_CUT,
        summary="Kept the top 8 as seeded after a correction",
        after={CUT_DECISION: "keep", "changes": state["fingerprint"]},
    )
    assert cut_check(fresh(t)) is not None and cut_note(fresh(t)) is None


def test_starting_the_cut_again_clears_the_decision(cut: Tournament) -> None:
    t = correct(cut)
    services.keep_top_cut(tournament=t)
    assert fresh(t).cut_decision == "keep"
    services.undo_round(tournament=fresh(t))
    services.start_top_cut(tournament=fresh(t), size=8)
    t = fresh(t)
    assert t.cut_decision == "" and t.cut_decided_at is None and cut_note(t) is None


def test_the_database_refuses_a_decision_without_its_time_and_changes(cut: Tournament) -> None:
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        Tournament.objects.filter(pk=cut.pk).update(cut_decision="keep")
    with pytest.raises(IntegrityError), transaction.atomic():
        Tournament.objects.filter(pk=cut.pk).update(cut_decision="maybe")
    with pytest.raises(IntegrityError), transaction.atomic():
        Tournament.objects.filter(pk=cut.pk).update(cut_correction_round=4)


def test_a_backup_carries_the_decision(cut: Tournament, owner: User) -> None:
    from tournaments.interchange import export_document

    t = correct(cut)
    services.keep_top_cut(tournament=t)
    doc = export_document(fresh(t), backup=True)
    assert doc["event"]["cut"]["decision"] == "keep"
    doc["event"]["audit"] = []  # the decision does not come back from the log
    restored = services.import_document(doc, owner=owner)
    fields = ["cut_started_at", "cut_decision", "cut_decided_at", "cut_decision_changes"]
    fields += ["cut_correction_round", "cut_correction_table", "cut_correction_at"]
    assert [getattr(restored, f) for f in fields] == [getattr(fresh(t), f) for f in fields]
    note = cut_note(restored)
    assert cut_check(restored) is None and note is not None and note["decision"] == "keep"


def test_a_backup_from_before_the_columns_restores_the_decision_from_its_audit_trail(
    cut: Tournament, owner: User
) -> None:
    from tournaments.interchange import export_document

    t = correct(cut)
    services.keep_top_cut(tournament=t)
    doc = export_document(fresh(t), backup=True)
    del doc["event"]["cut"]
    restored = services.import_document(doc, owner=owner)
    assert restored.cut_decision == "keep"
    assert restored.cut_decision_changes == fresh(t).cut_decision_changes
    assert restored.cut_started_at is not None
    assert cut_check(restored) is None and cut_note(restored)["round"] == 4  # type: ignore[index]


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_the_decision_from_the_audit_entries(
    migrate: Callable[[str], Any],
) -> None:
    apps = migrate("0005_cut_decision")
    old_tournament = apps.get_model("tournaments", "Tournament")
    old_entry = apps.get_model("tournaments", "AuditEntry")

    def event(slug: str, *afters: dict[str, Any]) -> int:
        t = old_tournament.objects.create(name=slug, slug=slug, seed=1, status="top_cut")
        for after in afters:
            old_entry.objects.create(tournament=t, action="top_cut", summary="-", after=after)
        return int(t.pk)

    start = {"round": 5, "seeds": ["p1", "p2"]}
    changes = [["p12", 4, 9, None], ["p15", None, 4, 4]]
    correction = {"round": 4, "table": 2, "at": "2026-05-01T12:30:00+00:00"}
    kept = event(
        "kept", start, {"cut_decision": "keep", "changes": changes, "correction": correction}
    )
    reseeded = event("reseeded", start, {"cut_decision": "reseed", "changes": changes})
    restarted = event("restarted", start, {"cut_decision": "keep", "changes": changes}, start)
    none = event("none")

    # Read through the models as of that migration: later ones add columns.
    Filled = migrate("0006_fill_cut_decision").get_model("tournaments", "Tournament")

    def times(t: Any) -> list[Any]:  # the audit's times (no later column read)
        return list(AuditEntry.objects.filter(tournament_id=t.pk).order_by("id").values_list("at"))

    t = Filled.objects.get(pk=kept)
    (started,), (decided,) = times(t)
    assert (t.cut_decision, t.cut_decision_changes) == ("keep", changes)
    assert t.cut_decided_at == decided and t.cut_started_at == started
    assert (t.cut_correction_round, t.cut_correction_table) == (4, 2)
    assert t.cut_correction_at is not None and t.cut_correction_at.isoformat() == correction["at"]
    t = Filled.objects.get(pk=reseeded)
    assert t.cut_decision == "reseed" and t.cut_correction_round is None
    note = cut_note(t)
    assert note is not None and note["at"] == t.cut_decided_at
    t = Filled.objects.get(pk=restarted)
    assert t.cut_decision == "" and t.cut_decision_changes is None
    assert (t.cut_started_at,) == times(t)[-1]
    t = Filled.objects.get(pk=none)
    assert t.cut_decision == "" and t.cut_started_at is None
