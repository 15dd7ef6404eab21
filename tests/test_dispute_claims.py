"""Disputes show both claims (issue 25 item 3): when Dev answers Ivo's 2-1 with "Report this
instead" 2-0, both results are kept on the report; each player reads both with their own
games first, the organizer reads both in table order on the round screen and in the
match's form, and enters either with one click (through the results service, audited).

Ivo sits first at table 1, Dev second: Ivo's 2-1 reads 2-1 in table order, Dev's 2-0 reads
0-2 there, and 1-2 from Dev's side for Ivo's report."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

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
from tournaments.tokens import new_token, token_hash

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def open_event() -> Tournament:
    """Round 1 paired, no result: Ivo Ng vs Dev Rao at table 1, Ana vs Ben at table 2."""
    names = ["Ivo Ng", "Dev Rao", "Ana Lopez", "Ben Ortiz"]
    return services.import_document(
        {
            "format": "swiss-tournament/1",
            "name": "Dispute Night",
            "system": "mtr",
            "best_of": 3,
            "seed": 7,
            "players": [{"id": f"p{k}", "name": n} for k, n in enumerate(names, 1)],
            "rounds": [
                {
                    "number": 1,
                    "phase": 1,
                    "matches": [
                        {"table": 1, "players": ["p1", "p2"]},
                        {"table": 2, "players": ["p3", "p4"]},
                    ],
                }
            ],
        }
    )


@pytest.fixture
def table() -> dict[str, Any]:
    t = open_event()
    ivo, dev = t.players.get(external_id="p1"), t.players.get(external_id="p2")
    match = Match.objects.get(round__tournament=t, table=1)
    return {"t": t, "ivo": ivo, "dev": dev, "match": match}


@pytest.fixture
def disputed(table: dict[str, Any]) -> dict[str, Any]:
    """Ivo reported 2-1; Dev answered "Report this instead" 2-0."""
    reports.report(player=table["ivo"], match=table["match"], wins_mine=2, wins_theirs=1)
    reports.report(player=table["dev"], match=table["match"], wins_mine=2, wins_theirs=0)
    return table


@pytest.fixture
def organizer(disputed: dict[str, Any]) -> Client:
    user = get_user_model().objects.create_user("td", password="pw")
    Tournament.objects.filter(pk=disputed["t"].pk).update(owner=user)
    client = Client()
    client.force_login(user)
    return client


def link(player: Player) -> str:
    token = new_token()
    Player.objects.filter(pk=player.pk).update(token_hash=token_hash(token))
    return token


def the_report(match: Match) -> Report:
    return Report.objects.get(match=match)


def games(match: Match) -> list[int | None]:
    return list(match.seats.order_by("position").values_list("games_won", flat=True))


def sentences(t: Tournament, action: str = AuditAction.REPORT) -> list[str]:
    rows = AuditEntry.objects.filter(tournament=t, action=action).order_by("at", "id")
    return [str(describe(Record(e.action, e.summary, e.before, e.after, None, None))) for e in rows]


def claims_on(html: str) -> list[tuple[str, str, str]]:
    """The private panel's claims: (whose: mine/theirs, who, score), in page order."""
    return re.findall(
        r'data-claim="(mine|theirs)"><dt>([^<]*)</dt><dd>([^<]*)</dd>', html.replace("&#x27;", "'")
    )


def form_of(player: Player) -> dict[str, Any]:
    panel = pages.player_panel(Player.objects.select_related("tournament").get(pk=player.pk))
    return {"match": panel["match"].pk, "seen": panel["stamp"]}


# --- The service ------------------------------------------------------------------------


def test_report_this_instead_keeps_both_results_on_the_report(disputed: Any) -> None:
    report = the_report(disputed["match"])
    assert report.state == ReportState.DISPUTED
    assert report.reporter_id == disputed["ivo"].pk and report.answered_by_id == disputed["dev"].pk
    assert report.claim == (2, 1, 0)  # Ivo's, table order
    assert report.counter_claim == (0, 2, 0)  # Dev's 2-0, table order
    assert sentences(disputed["t"])[-1] == (
        "Table 1, round 1: Ivo Ng reported 2-1, disputed by Dev Rao (Dev Rao reported 2-0)"
    )


def test_a_plain_dispute_keeps_no_result_of_the_disputers(table: Any) -> None:
    reports.report(player=table["ivo"], match=table["match"], wins_mine=2, wins_theirs=1)
    reports.dispute(player=table["dev"], match=table["match"])
    report = the_report(table["match"])
    assert report.state == ReportState.DISPUTED and report.counter_claim is None
    assert [c.value for c in pages.open_claims(report, list(table["match"].seats.all()))] == ["2-1"]


def test_the_disputer_giving_another_result_replaces_their_claim_and_is_audited(
    disputed: Any,
) -> None:
    reports.report(player=disputed["dev"], match=disputed["match"], wins_mine=2, wins_theirs=1)
    report = the_report(disputed["match"])
    assert report.state == ReportState.DISPUTED and report.counter_claim == (1, 2, 0)
    assert sentences(disputed["t"])[-1] == (
        "Table 1, round 1: Ivo Ng reported 2-1, disputed by Dev Rao (Dev Rao reported 2-1)"
    )
    entries = AuditEntry.objects.count()
    reports.report(player=disputed["dev"], match=disputed["match"], wins_mine=2, wins_theirs=1)
    assert AuditEntry.objects.count() == entries  # the same claim again writes nothing


def test_the_reporter_taking_the_opponents_result_enters_it(disputed: Any) -> None:
    match = disputed["match"]
    reports.report(player=disputed["ivo"], match=match, wins_mine=0, wins_theirs=2)
    match.refresh_from_db()
    assert match.reported and games(match) == [0, 2]
    report = the_report(match)
    assert report.state == ReportState.CONFIRMED and report.reporter_id == disputed["dev"].pk
    assert report.counter_claim is None
    assert sentences(disputed["t"])[-1] == (
        "Table 1, round 1: Dev Rao reported 2-0, confirmed by Ivo Ng"
    )


def test_the_reporter_changing_to_a_third_result_leaves_the_dispute_standing(
    disputed: Any,
) -> None:
    match = disputed["match"]
    reports.report(player=disputed["ivo"], match=match, wins_mine=2, wins_theirs=0)
    report = the_report(match)
    assert report.state == ReportState.DISPUTED
    assert (report.claim, report.counter_claim) == ((2, 0, 0), (0, 2, 0))
    assert not Match.objects.get(pk=match.pk).reported


def test_the_disputer_confirming_after_all_enters_the_report_and_drops_their_claim(
    disputed: Any,
) -> None:
    match = disputed["match"]
    reports.confirm(player=disputed["dev"], match=match)
    match.refresh_from_db()
    assert match.reported and games(match) == [2, 1]
    assert the_report(match).counter_claim is None


def test_a_page_showing_an_older_claim_is_stale(disputed: Any) -> None:
    ivo, match = disputed["ivo"], disputed["match"]
    seen = form_of(ivo)["seen"]
    reports.report(player=disputed["dev"], match=match, wins_mine=2, wins_theirs=1)
    with pytest.raises(reports.StalePage):
        # Ivo's page still offered Dev's 2-0: Dev no longer claims it.
        reports.report(player=ivo, match=match, wins_mine=0, wins_theirs=2, seen=seen)
    assert not Match.objects.get(pk=match.pk).reported


def test_the_organizers_entry_keeps_both_claims_on_record(disputed: Any) -> None:
    services.record_result(match=disputed["match"], wins=(0, 2))
    report = the_report(disputed["match"])
    assert report.state == ReportState.OVERRIDDEN
    assert (report.claim, report.counter_claim) == ((2, 1, 0), (0, 2, 0))


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_the_claim_of_a_dispute_open_at_the_upgrade(
    disputed: Any, migrate: Any
) -> None:
    match = disputed["match"]
    Report.objects.filter(match=match).update(
        counter_wins_a=None, counter_wins_b=None, counter_draws=None
    )
    migrate("0009_account_origin")
    migrate("0010_report_counter_claim")
    assert the_report(match).counter_claim == (0, 2, 0)


# --- The players' pages -------------------------------------------------------------------


@pytest.mark.parametrize("htmx", [False, True])
def test_each_player_reads_both_claims_with_their_own_games_first(
    disputed: Any, htmx: bool
) -> None:
    client = Client()
    seen = {}
    for who in ("ivo", "dev"):
        token = link(disputed[who])
        url = f"/p/{token}/report/panel/" if htmx else f"/p/{token}/"
        page = client.get(url, **(HX if htmx else {}))
        assert page.status_code == 200
        assert (b"<html" in page.content) is not htmx
        seen[who] = claims_on(page.content.decode())
    assert seen["ivo"] == [("mine", "You", "2-1"), ("theirs", "Dev Rao", "0-2")]
    assert seen["dev"] == [("mine", "You", "2-0"), ("theirs", "Ivo Ng", "1-2")]


@pytest.mark.parametrize("htmx", [False, True])
def test_report_this_instead_answers_with_both_claims(table: Any, htmx: bool) -> None:
    ivo, dev = table["ivo"], table["dev"]
    reports.report(player=ivo, match=table["match"], wins_mine=2, wins_theirs=1)
    token = link(dev)
    form = {**form_of(dev), "wins_mine": "2", "wins_theirs": "0", "draws": "0"}
    client = Client()
    r = client.post(f"/p/{token}/report/", form, **(HX if htmx else {}))
    if not htmx:
        assert r.status_code == 302
        r = client.get(r["Location"])
    assert r.status_code == 200
    html = r.content.decode()
    assert claims_on(html) == [("mine", "You", "2-0"), ("theirs", "Ivo Ng", "1-2")]
    assert "You and Ivo Ng reported different results" in html
    assert "Take Ivo Ng's result (you lost 1-2)" in html


@pytest.mark.parametrize("htmx", [False, True])
def test_the_reporter_takes_the_opponents_result_with_one_click(disputed: Any, htmx: bool) -> None:
    ivo, match = disputed["ivo"], disputed["match"]
    token = link(ivo)
    page = Client().get(f"/p/{token}/report/panel/", **HX).content.decode()
    take = page[page.index('name="wins_mine" value=') :][:200]
    assert 'value="0"' in take and 'name="wins_theirs" value="2"' in take
    form = {**form_of(ivo), "wins_mine": "0", "wins_theirs": "2", "draws": "0"}
    r = Client().post(f"/p/{token}/report/", form, **(HX if htmx else {}))
    assert r.status_code == (200 if htmx else 302)
    match.refresh_from_db()
    assert match.reported and games(match) == [0, 2]


# --- The organizer ------------------------------------------------------------------------


@pytest.mark.parametrize("htmx", [False, True])
def test_the_round_screen_shows_both_claims_in_table_order(
    disputed: Any, organizer: Client, htmx: bool
) -> None:
    t, match = disputed["t"], disputed["match"]
    page = organizer.get(f"/t/{t.slug}/manage/rounds/1/", **(HX if htmx else {}))
    assert page.status_code == 200 and (b"<html" in page.content) is not htmx
    html = page.content.decode().replace("&#x27;", "'")
    row = html[html.index(f'<tr id="match-{match.pk}"') :]
    row = row[: row.index("</tr>")]
    assert '· disputed: <span data-claim="2-1">Ivo Ng\'s <strong>2-1</strong></span>' in row
    assert 'or <span data-claim="0-2">Dev Rao\'s <strong>0-2</strong></span>' in row
    panel = html[html.index('id="reports-panel"') :]
    assert re.search(r'name="result" value="2-1"[^>]*>Ivo Ng\'s 2-1</button>', panel)
    assert re.search(r'name="result" value="0-2"[^>]*>Dev Rao\'s 0-2</button>', panel)


@pytest.mark.parametrize("htmx", [False, True])
def test_the_settle_form_offers_both_claims_in_one_click(
    disputed: Any, organizer: Client, htmx: bool
) -> None:
    t, match = disputed["t"], disputed["match"]
    page = organizer.get(f"/t/{t.slug}/manage/matches/{match.pk}/", **(HX if htmx else {}))
    assert page.status_code == 200 and (b"<html" in page.content) is not htmx
    html = page.content.decode().replace("&#x27;", "'")
    assert "The players disagree (table order, Ivo Ng first)" in html
    assert re.search(r'value="2-1" class="primary"[^>]*>Enter Ivo Ng\'s 2-1</button>', html)
    assert re.search(r'value="0-2" class="primary"[^>]*>Enter Dev Rao\'s 0-2</button>', html)
    # The row closed again still shows the dispute.
    row = organizer.get(f"/t/{t.slug}/manage/matches/{match.pk}/row/", **HX)
    assert b'data-claim="0-2">Dev Rao\'s <strong>0-2' in row.content


@pytest.mark.parametrize("htmx", [False, True])
@pytest.mark.parametrize(("value", "wins"), [("2-1", [2, 1]), ("0-2", [0, 2])])
def test_entering_either_claim_settles_the_dispute(
    disputed: Any, organizer: Client, htmx: bool, value: str, wins: list[int]
) -> None:
    t, match = disputed["t"], disputed["match"]
    before = organizer.get(f"/t/{t.slug}/manage/rounds/1/").content.decode()
    assert f'data-claim="{value}"' in before  # the button this click comes from
    r = organizer.post(
        f"/t/{t.slug}/manage/matches/{match.pk}/result/",
        {"result": value},
        **(HX if htmx else {}),
    )
    assert r.status_code == (200 if htmx else 302)
    match.refresh_from_db()
    assert match.reported and games(match) == wins
    assert the_report(match).state == ReportState.OVERRIDDEN
    assert AuditEntry.objects.filter(tournament=t, action=AuditAction.RESULT).count() == 1
    screen = organizer.get(f"/t/{t.slug}/manage/rounds/1/")
    assert b"disputed:" not in screen.content and b'id="reports-panel"' not in screen.content
    dev = Client().get(f"/p/{link(disputed['dev'])}/report/panel/", **HX).content.decode()
    assert "entered by the organizer" in dev.lower() and claims_on(dev) == []
