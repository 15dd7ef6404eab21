"""Players report their own results, the opponent confirms or disputes, self-drop
(issue 14 items 4-7): services, views (plain and HTMX), audit sentences, limits."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments import services
from tournaments.models import (
    AuditAction,
    AuditEntry,
    Match,
    Player,
    Report,
    ReportState,
    Tournament,
)
from tournaments.pages import reports as pages
from tournaments.pages.audit import Record, describe
from tournaments.services import reports
from tournaments.services.writing import ServiceError
from tournaments.tokens import new_token, token_hash


def open_event(players: int = 4, *, name: str = "Report Night") -> Tournament:
    """One round paired, no result: p1-p2 at table 1, p3-p4 at table 2, ..."""
    return services.import_document(
        {
            "format": "swiss-tournament/1",
            "name": name,
            "system": "mtr",
            "best_of": 3,
            "seed": 7,
            "players": [
                {"id": f"p{k}", "name": n}
                for k, n in enumerate(
                    ["Ana Lopez", "Ben Ortiz", "Cleo Park", "Dev Rao"][:players], 1
                )
            ],
            "rounds": [
                {
                    "number": 1,
                    "phase": 1,
                    "matches": [
                        {"table": k, "players": [f"p{2 * k - 1}", f"p{2 * k}"]}
                        for k in range(1, players // 2 + 1)
                    ],
                }
            ],
        }
    )


def link(player: Player) -> str:
    token = new_token()
    Player.objects.filter(pk=player.pk).update(token_hash=token_hash(token))
    return token


@pytest.fixture
def event() -> dict[str, Any]:
    t = open_event()
    ana, ben, cleo, _dev = list(t.players.order_by("external_id"))
    match = Match.objects.get(round__tournament=t, table=1)
    return {"t": t, "ana": ana, "ben": ben, "cleo": cleo, "match": match}


def games(match: Match) -> list[int | None]:
    return list(match.seats.order_by("position").values_list("games_won", flat=True))


def version(t: Tournament) -> int:
    return Tournament.objects.get(pk=t.pk).version


def sentences(t: Tournament, action: str = AuditAction.REPORT) -> list[str]:
    rows = AuditEntry.objects.filter(tournament=t, action=action).order_by("at", "id")
    return [
        str(
            describe(
                Record(e.action, e.summary, e.before, e.after, None, e.user and e.user.username)
            )
        )
        for e in rows
    ]


# --- Services -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_report_and_the_opponents_confirmation_enter_the_result_and_standings(event: Any) -> None:
    t, ana, ben, match = event["t"], event["ana"], event["ben"], event["match"]
    reports.report(player=ana, match=match, wins_mine=2, wins_theirs=1)
    match.refresh_from_db()
    assert not match.reported and Report.objects.get(match=match).state == ReportState.REPORTED
    reports.confirm(player=ben, match=match)
    match.refresh_from_db()
    assert match.reported and games(match) == [2, 1]
    from scoring.models import Standing

    assert Standing.objects.get(player=ana).wins == 1
    assert sentences(t) == [
        "Table 1, round 1: Ana Lopez reported 2-1",
        "Table 1, round 1: Ana Lopez reported 2-1, confirmed by Ben Ortiz",
    ]


@pytest.mark.django_db
def test_the_second_seat_reports_from_their_own_side(event: Any) -> None:
    ben, ana, match = event["ben"], event["ana"], event["match"]
    reports.report(player=ben, match=match, wins_mine=2, wins_theirs=0)
    reports.confirm(player=ana, match=match)
    match.refresh_from_db()
    assert games(match) == [0, 2]


@pytest.mark.django_db
def test_the_opponent_reporting_the_same_result_confirms_it(event: Any) -> None:
    ana, ben, match = event["ana"], event["ben"], event["match"]
    reports.report(player=ana, match=match, wins_mine=2, wins_theirs=1)
    reports.report(player=ben, match=match, wins_mine=1, wins_theirs=2)
    match.refresh_from_db()
    assert match.reported and Report.objects.get(match=match).state == ReportState.CONFIRMED


@pytest.mark.django_db
def test_a_different_result_from_the_opponent_disputes_the_report(event: Any) -> None:
    t, ana, ben, match = event["t"], event["ana"], event["ben"], event["match"]
    reports.report(player=ana, match=match, wins_mine=2, wins_theirs=1)
    reports.report(player=ben, match=match, wins_mine=2, wins_theirs=0)
    match.refresh_from_db()
    assert not match.reported
    assert Report.objects.get(match=match).state == ReportState.DISPUTED
    assert sentences(t)[-1] == (
        "Table 1, round 1: Ana Lopez reported 2-1, disputed by Ben Ortiz (Ben Ortiz reported 2-0)"
    )
    assert pages.to_check_match_ids(match.round) == {match.pk}
    assert pages.report_notes(match.round) == {
        match.pk: "Ana Lopez reported 2-1, Ben Ortiz disputed"
    }


@pytest.mark.django_db
def test_repeating_the_same_report_changes_nothing(event: Any) -> None:
    t, ana, ben, match = event["t"], event["ana"], event["ben"], event["match"]
    reports.report(player=ana, match=match, wins_mine=2, wins_theirs=1)
    before, entries = version(t), AuditEntry.objects.count()
    reports.report(player=ana, match=match, wins_mine=2, wins_theirs=1)
    assert (version(t), AuditEntry.objects.count()) == (before, entries)
    reports.confirm(player=ben, match=match)
    after, entries = version(t), AuditEntry.objects.count()
    reports.confirm(player=ben, match=match)
    reports.report(player=ana, match=match, wins_mine=2, wins_theirs=1)
    assert (version(t), AuditEntry.objects.count()) == (after, entries)


@pytest.mark.django_db
def test_a_report_and_a_dispute_leave_the_version_the_live_pages_follow_alone(
    event: Any,
) -> None:
    t, ana, ben, match = event["t"], event["ana"], event["ben"], event["match"]
    before = version(t)
    reports.report(player=ana, match=match, wins_mine=2, wins_theirs=1)
    reports.report(player=ana, match=match, wins_mine=2, wins_theirs=0)
    reports.dispute(player=ben, match=match)
    assert version(t) == before  # nothing public changed: no page, fragment or ETag moves
    assert len(sentences(t)) == 3  # but every step is in the audit log
    reports.confirm(player=ben, match=match)  # "confirm after all": the standings change
    assert version(t) == before + 1 and Match.objects.get(pk=match.pk).reported


@pytest.mark.django_db
def test_a_reporter_may_correct_their_report_before_it_is_confirmed(event: Any) -> None:
    t, ana, match = event["t"], event["ana"], event["match"]
    reports.report(player=ana, match=match, wins_mine=2, wins_theirs=1)
    reports.report(player=ana, match=match, wins_mine=2, wins_theirs=0)
    assert (Report.objects.get(match=match).wins_b) == 0
    assert sentences(t)[-1] == "Table 1, round 1: Ana Lopez reported 2-0 (was 2-1)"


@pytest.mark.django_db
def test_a_player_cannot_report_a_match_they_are_not_in(event: Any) -> None:
    with pytest.raises(ServiceError, match="not playing in this match"):
        reports.report(player=event["cleo"], match=event["match"], wins_mine=2, wins_theirs=0)
    assert not Report.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("mine", "theirs", "draws", "message"),
    [(3, 0, 0, "nobody wins more than 2"), (2, 2, 0, "Both players"), (2, 1, 1, "at most 3")],
)
def test_impossible_games_are_refused_with_the_rule(
    event: Any, mine: int, theirs: int, draws: int, message: str
) -> None:
    with pytest.raises(ServiceError, match=message):
        reports.report(player=event["ana"], match=event["match"], wins_mine=mine,
                       wins_theirs=theirs, draws=draws)  # fmt: skip


@pytest.mark.django_db
def test_reports_close_when_the_next_round_is_paired(event: Any) -> None:
    t = event["t"]
    for m in Match.objects.filter(round__tournament=t):
        services.record_result(match=m, wins=(2, 0))
    services.pair_next_round(tournament=t)
    with pytest.raises(ServiceError, match="closed"):
        reports.report(player=event["ana"], match=event["match"], wins_mine=2, wins_theirs=0)


@pytest.mark.django_db
def test_reports_are_refused_on_a_finished_event(event: Any) -> None:
    Tournament.objects.filter(pk=event["t"].pk).update(status="finished")
    with pytest.raises(ServiceError, match="finished"):
        reports.report(player=event["ana"], match=event["match"], wins_mine=2, wins_theirs=0)


@pytest.mark.django_db
def test_the_organizers_entry_overrides_an_open_report_and_wins(event: Any) -> None:
    ana, ben, match = event["ana"], event["ben"], event["match"]
    reports.report(player=ana, match=match, wins_mine=2, wins_theirs=1)
    organizer = get_user_model().objects.create_user("alice")
    services.record_result(match=match, wins=(0, 2), by=organizer)
    assert Report.objects.get(match=match).state == ReportState.OVERRIDDEN
    with pytest.raises(ServiceError, match="organizer has entered"):
        reports.confirm(player=ben, match=match)
    with pytest.raises(ServiceError, match="already in"):
        reports.report(player=ana, match=match, wins_mine=2, wins_theirs=1)
    match.refresh_from_db()
    assert games(match) == [0, 2]


@pytest.mark.django_db
def test_confirm_and_dispute_belong_to_the_reporters_opponent(event: Any) -> None:
    ana, ben, match = event["ana"], event["ben"], event["match"]
    with pytest.raises(ServiceError, match="no report"):
        reports.confirm(player=ben, match=match)
    reports.report(player=ana, match=match, wins_mine=2, wins_theirs=1)
    with pytest.raises(ServiceError, match="You reported"):
        reports.confirm(player=ana, match=match)
    with pytest.raises(ServiceError, match="not playing"):
        reports.dispute(player=event["cleo"], match=match)
    reports.dispute(player=ben, match=match)
    assert Report.objects.get(match=match).state == ReportState.DISPUTED
    assert sentences(event["t"])[-1] == (
        "Table 1, round 1: Ana Lopez reported 2-1, disputed by Ben Ortiz"
    )


@pytest.mark.django_db
def test_a_stale_page_is_refused(event: Any) -> None:
    ana, ben, match = event["ana"], event["ben"], event["match"]
    reports.report(player=ana, match=match, wins_mine=2, wins_theirs=1)
    seen = pages.player_panel(Player.objects.get(pk=ben.pk))["stamp"]
    reports.report(player=ana, match=match, wins_mine=2, wins_theirs=0)
    with pytest.raises(reports.StalePage):
        reports.confirm(player=ben, match=match, seen=seen)
    assert not Match.objects.get(pk=match.pk).reported


@pytest.mark.django_db
def test_the_organizer_resets_a_report_and_the_players_report_again(event: Any) -> None:
    t, ana, ben, match = event["t"], event["ana"], event["ben"], event["match"]
    reports.report(player=ana, match=match, wins_mine=2, wins_theirs=1)
    reports.dispute(player=ben, match=match)
    organizer = get_user_model().objects.create_user("alice")
    reports.reset_report(match=match, by=organizer)
    assert not Report.objects.filter(match=match).exists()
    assert sentences(t)[-1] == "Table 1, round 1: Ana Lopez's report (2-1) reset by alice"
    with pytest.raises(ServiceError, match="no report"):
        reports.reset_report(match=match, by=organizer)
    reports.report(player=ben, match=match, wins_mine=1, wins_theirs=2)
    assert Report.objects.get(match=match).reporter_id == ben.pk


@pytest.mark.django_db
def test_a_player_drops_after_this_round_and_the_organizer_takes_them_back(event: Any) -> None:
    t, ana = event["t"], event["ana"]
    reports.self_drop(player=ana)
    ana.refresh_from_db()
    assert (ana.dropped_after_round, ana.dropped_by_player) == (1, True)
    entries = AuditEntry.objects.count()
    reports.self_drop(player=ana)
    assert AuditEntry.objects.count() == entries
    assert sentences(t, AuditAction.DROP) == ["Ana Lopez dropped after round 1 (own request)"]
    services.readmit_player(player=ana)
    assert Player.objects.get(pk=ana.pk).dropped_after_round is None


@pytest.mark.django_db
def test_a_one_sided_report_is_flagged_after_the_wait(event: Any) -> None:
    from datetime import timedelta

    from django.utils import timezone

    match = event["match"]
    reports.report(player=event["ana"], match=match, wins_mine=2, wins_theirs=1)
    assert pages.to_check_match_ids(match.round) == set()
    old = timezone.now() - timedelta(minutes=pages.ONE_SIDED_MINUTES + 1)
    Report.objects.filter(match=match).update(updated_at=old)
    assert pages.to_check_match_ids(match.round) == {match.pk}
    assert pages.report_notes(match.round)[match.pk] == "Ana Lopez reported 2-1, not yet confirmed"


# --- Views ----------------------------------------------------------------------------------


def post(client: Client, url: str, data: dict[str, Any], *, htmx: bool = False) -> Any:
    extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    return client.post(url, data, **extra)


def form_of(player: Player) -> dict[str, Any]:
    panel = pages.player_panel(Player.objects.select_related("tournament").get(pk=player.pk))
    return {"match": panel["match"].pk, "seen": panel["stamp"]}


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_report_then_confirm_through_the_private_links(event: Any, htmx: bool) -> None:
    ana, ben, match = event["ana"], event["ben"], event["match"]
    ta, tb = link(ana), link(ben)
    client = Client()
    page = client.get(f"/p/{ta}/report/panel/", **({"HTTP_HX_REQUEST": "true"} if htmx else {}))
    assert page.status_code == 200 and b"Games I won" in page.content
    assert page["Cache-Control"] == "private, no-store"
    r = post(client, f"/p/{ta}/report/", {**form_of(ana), "wins_mine": "2", "wins_theirs": "1",
                                          "draws": "0"}, htmx=htmx)  # fmt: skip
    if htmx:
        assert r.status_code == 200 and b"Waiting for Ben Ortiz" in r.content
    else:
        assert r.status_code == 302 and r["Location"] == f"/p/{ta}/"
    opponent = client.get(f"/p/{tb}/report/panel/", HTTP_HX_REQUEST="true")
    assert b"Ana Lopez reported: you lost 1-2" in opponent.content
    r = post(client, f"/p/{tb}/confirm/", form_of(ben), htmx=htmx)
    assert r.status_code == (200 if htmx else 302)
    match.refresh_from_db()
    assert match.reported and games(match) == [2, 1]


@pytest.mark.django_db
def test_an_htmx_report_answers_with_its_panel_alone_in_a_few_queries(
    event: Any, django_assert_max_num_queries: Any
) -> None:
    ta = link(event["ana"])
    form = {**form_of(event["ana"]), "wins_mine": "2", "wins_theirs": "1", "draws": "0"}
    # The link, the report under its locks (transaction included), its audit entry and the
    # players it names (tournaments.services.writing.store_audit), then its panel alone
    # with the event's names (namesakes told apart: pages.event.display_names).
    with django_assert_max_num_queries(14):
        r = post(Client(), f"/p/{ta}/report/", form, htmx=True)
    assert r.status_code == 200 and b'id="report-panel"' in r.content
    assert b'id="drop-panel"' not in r.content and b"<html" not in r.content


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_impossible_games_answer_422_naming_the_problem(event: Any, htmx: bool) -> None:
    ta = link(event["ana"])
    r = post(Client(), f"/p/{ta}/report/", {**form_of(event["ana"]), "wins_mine": "3",
                                             "wins_theirs": "0"}, htmx=htmx)  # fmt: skip
    assert r.status_code == 422 and b"nobody wins more than 2 games" in r.content


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_a_stale_page_and_a_closed_round_answer_422(event: Any, htmx: bool) -> None:
    ana, ben = event["ana"], event["ben"]
    ta, tb = link(ana), link(ben)
    stale = form_of(ben)
    reports.report(player=ana, match=event["match"], wins_mine=2, wins_theirs=1)
    r = post(Client(), f"/p/{tb}/dispute/", stale, htmx=htmx)
    assert r.status_code == 422 and b"changed since your page was loaded" in r.content
    old = form_of(ana)
    for m in Match.objects.filter(round__tournament=event["t"]):
        services.record_result(match=m, wins=(2, 0))
    services.pair_next_round(tournament=event["t"])
    r = post(Client(), f"/p/{ta}/report/", {**old, "wins_mine": "2", "wins_theirs": "0"}, htmx=htmx)
    assert r.status_code == 422 and b"closed" in r.content


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_an_unknown_token_answers_404(htmx: bool) -> None:
    r = post(Client(), "/p/not-a-real-token/report/", {"match": "1"}, htmx=htmx)
    assert r.status_code == 404 and b"not valid" in r.content


@pytest.mark.django_db
def test_forms_need_the_csrf_token(event: Any) -> None:
    ta = link(event["ana"])
    r = Client(enforce_csrf_checks=True).post(f"/p/{ta}/report/", form_of(event["ana"]))
    assert r.status_code == 403


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_too_many_writes_from_one_link_answer_429(
    event: Any, htmx: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tournaments import ratelimit

    # The limit counts in fixed one-minute windows: on the real clock a slow run could
    # cross into the next window mid-loop and start counting again (seen in CI: 422).
    monkeypatch.setattr("tournaments.ratelimit._now", lambda: 1_800_000_010.0)
    cache.clear()
    tb = link(event["ben"])
    client = Client()
    for _ in range(ratelimit.TOKEN_LIMIT):
        post(client, f"/p/{tb}/confirm/", form_of(event["ben"]), htmx=htmx)
    r = post(client, f"/p/{tb}/confirm/", form_of(event["ben"]), htmx=htmx)
    assert r.status_code == 429 and b"Too many" in r.content


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_self_drop_asks_first_then_drops(event: Any, htmx: bool) -> None:
    ana = event["ana"]
    ta = link(ana)
    client = Client()
    ask = post(client, f"/p/{ta}/drop/", {}, htmx=htmx)
    assert ask.status_code == 200 and b"Drop after round 1?" in ask.content
    assert Player.objects.get(pk=ana.pk).dropped_after_round is None
    r = post(client, f"/p/{ta}/drop/", {"confirm": "yes"}, htmx=htmx)
    assert r.status_code == (200 if htmx else 302)
    assert Player.objects.get(pk=ana.pk).dropped_by_player


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [False, True])
def test_the_organizer_sees_a_dispute_and_resets_it(event: Any, htmx: bool) -> None:
    t, match = event["t"], event["match"]
    reports.report(player=event["ana"], match=match, wins_mine=2, wins_theirs=1)
    reports.dispute(player=event["ben"], match=match)
    user = get_user_model().objects.create_user("alice", password="pw")
    Tournament.objects.filter(pk=t.pk).update(owner=user)
    client = Client()
    client.force_login(user)
    extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    page = client.get(f"/t/{t.slug}/manage/rounds/1/reports/", **extra)
    assert page.status_code == 200 and b"Ana Lopez reported 2-1, Ben Ortiz disputed" in page.content
    r = client.post(f"/t/{t.slug}/manage/matches/{match.pk}/report/reset/", **extra)
    assert r.status_code == (200 if htmx else 302)
    assert not Report.objects.filter(match=match).exists()
    again = client.post(f"/t/{t.slug}/manage/matches/{match.pk}/report/reset/", **extra)
    assert again.status_code == (422 if htmx else 302)


@pytest.mark.django_db
def test_the_private_page_includes_the_report_and_drop_panels(event: Any) -> None:
    ta = link(event["ana"])
    page = Client().get(f"/p/{ta}/")
    assert page.status_code == 200
    assert b'id="report-panel"' in page.content and b'id="drop-panel"' in page.content


@pytest.mark.django_db
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=st.dictionaries(
        st.sampled_from(["match", "seen", "wins_mine", "wins_theirs", "draws"]),
        st.one_of(st.text(max_size=12), st.integers(-5, 200).map(str)),
    ),
    htmx=st.booleans(),
)
def test_whatever_the_report_form_carries_the_answer_is_never_a_500(
    event: Any, data: dict[str, str], htmx: bool
) -> None:
    cache.clear()
    ta = link(event["ana"])
    base = form_of(event["ana"])
    r = post(Client(), f"/p/{ta}/report/", {**base, **data}, htmx=htmx)
    assert r.status_code in (200, 302, 422)
    Report.objects.all().delete()
