"""Time extensions per table (issue 27): a judge adds minutes to one table; that table's
end is the round clock's end plus its extensions, and every screen showing the table's
time (the round screen, both players' pages and clocks, the public pairings, the
projector) shows that end."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.helpers import fresh, play_open_matches
from tournaments import live, services
from tournaments.models import (
    AuditAction,
    AuditEntry,
    ExtensionReason,
    Match,
    MatchKind,
    Round,
    StaffRole,
    TimeExtension,
    Tournament,
)
from tournaments.pages import projector as projector_pages
from tournaments.pages import public as public_pages
from tournaments.pages.audit import Context, Record
from tournaments.pages.common import clock_state
from tournaments.pages.floor import hm, still_playing
from tournaments.pages.floor_audit import extension_sentence
from tournaments.services.clock import pause_clock, start_clock
from tournaments.services.floor import add_extension, remove_extension
from tournaments.services.registration import issue_link
from tournaments.services.writing import ServiceError
from tournaments.tabletime import minutes_taken, round_over, table_time

pytestmark = pytest.mark.django_db

ROLES = ["owner", "scorekeeper", "head_judge", "floor_judge", "stranger", "anonymous"]
STAFF = ["owner", "scorekeeper", "head_judge", "floor_judge"]


@pytest.fixture
def team(django_user_model: Any, owner: Any) -> dict[str, Any]:
    """Nine players, round 1 paired (tables 1-4 played, table 5 the bye), its clock running;
    a scorekeeper, a head judge, a floor judge and a stranger."""
    t = services.create_tournament(name="Floor Open", owner=owner, seed=3)
    services.register_players(tournament=t, names=[f"P{i}" for i in range(1, 10)])
    round_ = services.pair_next_round(tournament=t)
    start_clock(round=round_, minutes=50, by=owner)
    people: dict[str, Any] = {"owner": owner}
    for role in StaffRole:
        user = django_user_model.objects.create_user(role.value)
        services.add_staff(tournament=t, username=user.username, role=role, by=owner)
        people[role.value] = user
    people["stranger"] = django_user_model.objects.create_user("stranger")
    return {"t": fresh(t), "round": Round.objects.get(pk=round_.pk), **people}


def table(t: Tournament, number: int, round_number: int = 1) -> Match:
    return Match.objects.get(round__tournament=t, round__number=round_number, table=number)


def client_of(team: dict[str, Any], role: str) -> Client:
    client = Client()
    if role != "anonymous":
        client.force_login(team[role])
    return client


# --- a table's own time (tournaments.tabletime) ------------------------------------------


NOON = datetime(2025, 6, 14, 12, 0, tzinfo=UTC)


def test_a_tables_end_is_the_rounds_end_plus_its_extensions() -> None:
    found = table_time(
        clock_ends_at=NOON, clock_paused_remaining=None, extension_minutes=5, now=NOON
    )
    assert found is not None
    assert found.ends_at == NOON + timedelta(minutes=5)
    assert found.remaining == timedelta(minutes=5)
    assert not found.paused and not found.over


def test_while_the_clock_is_paused_a_table_has_the_rounds_remainder_plus_its_extensions() -> None:
    found = table_time(
        clock_ends_at=None,
        clock_paused_remaining=timedelta(minutes=12),
        extension_minutes=3,
        now=NOON,
    )
    assert found is not None
    assert found.ends_at is None and found.paused
    assert found.remaining == timedelta(minutes=15)


def test_a_table_is_over_once_its_own_end_has_passed() -> None:
    late = NOON + timedelta(minutes=6)
    found = table_time(
        clock_ends_at=NOON, clock_paused_remaining=None, extension_minutes=5, now=late
    )
    assert found is not None and found.over
    assert found.remaining == timedelta(minutes=-1)
    assert round_over(clock_ends_at=NOON, clock_paused_remaining=None, now=late)
    assert not round_over(clock_ends_at=NOON, clock_paused_remaining=None, now=NOON)


def test_a_round_whose_clock_never_started_has_no_table_time() -> None:
    assert (
        table_time(clock_ends_at=None, clock_paused_remaining=None, extension_minutes=5, now=NOON)
        is None
    )
    assert not round_over(clock_ends_at=None, clock_paused_remaining=None, now=NOON)


@pytest.mark.parametrize(
    ("seconds", "minutes"), [(0, 1), (1, 1), (60, 1), (61, 2), (250, 5), (600, 10)]
)
def test_a_deck_checks_time_is_rounded_up_to_whole_minutes_at_least_one(
    seconds: int, minutes: int
) -> None:
    assert minutes_taken(NOON, NOON + timedelta(seconds=seconds)) == minutes


def test_the_clock_state_of_an_extended_table_counts_to_its_own_end(team: dict[str, Any]) -> None:
    round_: Round = team["round"]
    plain, extended = clock_state(round_), clock_state(round_, 5)
    assert plain is not None and extended is not None
    assert extended["ends"] == round_.clock_ends_at + timedelta(minutes=5)
    assert extended["ends_at"] == extended["ends"].isoformat()
    assert extended["remaining"] - plain["remaining"] in range(299, 302)
    assert extended["extension"] == 5 and plain["extension"] == 0
    paused = pause_clock(round=round_, by=team["owner"])
    stopped = clock_state(paused, 5)
    assert stopped is not None and stopped["paused"] and stopped["ends_at"] is None
    assert stopped["remaining"] == int(paused.clock_paused_remaining.total_seconds()) + 300


# --- the services ----------------------------------------------------------------------


def test_a_judge_adds_minutes_to_a_table_and_the_audit_says_where_and_whom(
    team: dict[str, Any],
) -> None:
    t: Tournament = team["t"]
    match = table(t, 2)
    version = t.version
    extension = add_extension(
        tournament=t, match=match, minutes=5, note="long ruling", by=team["floor_judge"]
    )
    assert extension.minutes == 5 and extension.reason == ExtensionReason.JUDGE
    assert extension.judge == team["floor_judge"] and extension.note == "long ruling"
    assert fresh(t).version == version + 1
    entry = AuditEntry.objects.get(tournament=t, action=AuditAction.EXTENSION)
    assert (entry.round, entry.table, entry.user) == (1, 2, team["floor_judge"])
    assert sorted(entry.players.values_list("name", flat=True)) == sorted(
        match.seats.values_list("player__name", flat=True)
    )
    assert entry.after == {"event": "added", "minutes": 5, "total": 5, "note": "long ruling"}
    add_extension(tournament=t, match=match.pk, minutes=3, by=team["head_judge"])
    assert AuditEntry.objects.filter(action=AuditAction.EXTENSION).first().after["total"] == 8


@pytest.mark.parametrize("minutes", [0, -5, 61, 600])
def test_an_extension_outside_1_to_60_minutes_is_refused(
    team: dict[str, Any], minutes: int
) -> None:
    t: Tournament = team["t"]
    with pytest.raises(ServiceError, match="between 1 and 60 minutes"):
        add_extension(tournament=t, match=table(t, 1), minutes=minutes, by=team["owner"])
    assert not TimeExtension.objects.exists()


def test_a_bye_gets_no_extension(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    bye = Match.objects.get(round__tournament=t, kind=MatchKind.BYE)
    with pytest.raises(ServiceError, match=f"Table {bye.table} is a bye"):
        add_extension(tournament=t, match=bye, minutes=5, by=team["owner"])


def test_a_table_with_its_result_in_gets_no_extension(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    services.record_result(match=table(t, 3), wins=(2, 0))
    with pytest.raises(ServiceError, match="Table 3 has its result already"):
        add_extension(tournament=t, match=table(t, 3), minutes=5, by=team["owner"])


def test_a_table_of_a_round_no_longer_played_gets_no_extension(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    old = table(t, 1)
    play_open_matches(t)
    services.pair_next_round(tournament=t)
    with pytest.raises(ServiceError, match="not being played"):
        add_extension(tournament=t, match=old, minutes=5, by=team["owner"])


def test_a_match_of_another_event_is_refused(team: dict[str, Any], owner: Any) -> None:
    other = services.create_tournament(name="Elsewhere", owner=owner, seed=1)
    services.register_players(tournament=other, names=["A", "B"])
    services.pair_next_round(tournament=other)
    theirs = Match.objects.get(round__tournament=other)
    with pytest.raises(ServiceError, match="not in this event"):
        add_extension(tournament=team["t"], match=theirs, minutes=5, by=team["owner"])


def test_an_overlong_note_is_refused_by_its_length(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    with pytest.raises(ServiceError, match="under 200 characters"):
        add_extension(tournament=t, match=table(t, 1), minutes=2, note="x" * 201, by=None)


def test_a_finished_event_takes_no_extension(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    Tournament.objects.filter(pk=t.pk).update(status="finished")
    with pytest.raises(ServiceError, match="finished"):
        add_extension(tournament=t, match=table(t, 1), minutes=2, by=team["owner"])


def test_a_judge_takes_back_a_mistaken_extension(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    keep = add_extension(tournament=t, match=table(t, 1), minutes=2, by=team["owner"])
    wrong = add_extension(tournament=t, match=table(t, 1), minutes=10, by=team["owner"])
    remove_extension(tournament=t, extension=wrong.pk, by=team["floor_judge"])
    assert list(TimeExtension.objects.values_list("pk", flat=True)) == [keep.pk]
    entry = AuditEntry.objects.filter(action=AuditAction.EXTENSION).first()
    assert entry.after == {"event": "removed", "minutes": 10, "total": 2}
    assert (entry.round, entry.table) == (1, 1)
    with pytest.raises(ServiceError, match="not in this event any more"):
        remove_extension(tournament=t, extension=wrong.pk, by=team["owner"])


def test_a_deck_checks_time_is_not_taken_back(team: dict[str, Any]) -> None:
    from tournaments.services.floor import finish_deck_check, start_deck_check

    t: Tournament = team["t"]
    check = start_deck_check(tournament=t, match=table(t, 1), by=team["owner"])
    finish_deck_check(check=check, by=team["owner"])
    given = TimeExtension.objects.get(deck_check=check)
    with pytest.raises(ServiceError, match="deck check's time stays"):
        remove_extension(tournament=t, extension=given, by=team["owner"])


# --- where the table's end shows -------------------------------------------------------


def test_both_players_private_pages_count_down_to_their_tables_own_end(
    team: dict[str, Any],
) -> None:
    t: Tournament = team["t"]
    match = table(t, 2)
    add_extension(tournament=t, match=match, minutes=5, by=team["floor_judge"])
    ends = (team["round"].clock_ends_at + timedelta(minutes=5)).isoformat()
    for seat in match.seats.select_related("player"):
        page = Client().get(f"/p/{issue_link(player=seat.player)}/").content.decode()
        assert f'data-clock-ends="{ends}"' in page
        assert "+5 min for this table" in page
        assert f">{hm(team['round'].clock_ends_at + timedelta(minutes=5))}<" in page
    elsewhere = table(t, 1).seats.select_related("player").first()
    assert elsewhere is not None
    page = Client().get(f"/p/{issue_link(player=elsewhere.player)}/").content.decode()
    assert f'data-clock-ends="{team["round"].clock_ends_at.isoformat()}"' in page
    assert "for this table" not in page


def test_the_players_public_page_shows_their_tables_end(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    match = table(t, 4)
    add_extension(tournament=t, match=match, minutes=7, by=team["owner"])
    seat = match.seats.select_related("player").first()
    assert seat is not None
    shown = public_pages.player(fresh(t), seat.player)
    assert shown["card"]["clock"]["extension"] == 7
    assert shown["card"]["clock"]["ends"] == team["round"].clock_ends_at + timedelta(minutes=7)


def test_an_extension_moves_the_digests_both_players_phones_are_told_by_at_once(
    team: dict[str, Any],
) -> None:
    t: Tournament = team["t"]
    match = table(t, 3)
    before = live.digests(fresh(t))
    add_extension(tournament=t, match=match, minutes=5, by=team["owner"])
    after = live.digests(fresh(t))
    moved = {key for key in after if before.get(key) != after[key]}
    seated = set(match.seats.values_list("player__external_id", flat=True))
    assert {k for k in moved if k.startswith("own:")} == {f"own:{pid}" for pid in seated}
    assert {f"player:{pid}" for pid in seated} <= moved


def test_the_public_pairings_show_the_extension_beside_the_table(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    add_extension(tournament=t, match=table(t, 2), minutes=5, by=team["owner"])
    by_table = Client().get(reverse("pairings", args=[t.slug])).content.decode()
    row = next(line for line in by_table.splitlines() if '<td class="num">2 ' in line)
    assert 'data-extension="5"' in row and ">+5<" in row
    assert by_table.count("data-extension=") == 1
    by_name = Client().get(reverse("pairings", args=[t.slug]) + "?by=name").content.decode()
    assert by_name.count('data-extension="5"') == 2  # both players' rows


def test_the_projector_shows_the_extension_beside_the_tables_rows(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    match = table(t, 2)
    add_extension(tournament=t, match=match, minutes=5, by=team["owner"])
    shown = projector_pages.projector(fresh(t))
    extended = [r for r in shown["pairings"] if r.extension]
    assert {r.table for r in extended} == {2} and len(extended) == 2
    assert shown["rows_html"].count(">+5</small></span>") == 2
    page = Client().get(reverse("projector", args=[t.slug])).content.decode()
    assert page.count('data-extension="5"') == 2


def test_the_round_screen_marks_an_extended_table_with_its_own_end(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    add_extension(tournament=t, match=table(t, 2), minutes=5, by=team["owner"])
    page = client_of(team, "floor_judge").get(reverse("manage_round", args=[t.slug, 1]))
    html = page.content.decode()
    ends = hm(team["round"].clock_ends_at + timedelta(minutes=5))
    row = re.search(r'<tr id="match-\d+" class="open"><th>2</th>.*?</tr>', html)
    assert row is not None and f"+5 min, ends {ends}" in row.group(0)
    assert html.count('class="ext" data-extension=') == 1
    assert 'id="late-tables"' not in html  # the round is still running


def test_once_the_round_clock_has_run_out_the_tables_still_playing_are_listed_first(
    team: dict[str, Any],
) -> None:
    t: Tournament = team["t"]
    add_extension(tournament=t, match=table(t, 2), minutes=10, by=team["owner"])
    services.record_result(match=table(t, 4), wins=(2, 0))
    Round.objects.filter(pk=team["round"].pk).update(
        clock_ends_at=timezone.now() - timedelta(minutes=3)
    )
    round_ = Round.objects.get(pk=team["round"].pk)
    late = still_playing(
        round_,
        [
            (m.pk, m.table, ["a", "b"], 10 if m.table == 2 else 0)
            for m in [table(t, n) for n in (1, 2, 3)]
        ],
    )
    assert [s.table for s in late] == [1, 3, 2]  # over by 3 min first, table 2 in extra time
    assert late[0].text == "over by 3 min" and not late[2].time.over
    assert late[2].text.startswith("+10 min: ends ")
    html = client_of(team, "head_judge").get(reverse("manage_round", args=[t.slug, 1]))
    section = re.search(r'<section class="late-tables.*?</section>', html.content.decode(), re.S)
    assert section is not None
    listed = re.findall(r'data-table="(\d+)"', section.group(0))
    assert listed == ["1", "3", "2"]  # table 4 reported, the bye never plays
    assert "Still playing past the round's end (3)" in section.group(0)


# --- the judges' tables screen ----------------------------------------------------------


def test_the_tables_screen_lists_the_extended_tables(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    add_extension(tournament=t, match=table(t, 3), minutes=4, note="judge call", by=team["owner"])
    client = client_of(team, "floor_judge")
    page = client.get(reverse("judge_tables", args=[t.slug]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "<html" in html and 'id="judge-tables"' in html
    extended = re.search(r'<ul class="extended".*?</ul>\s*</li></ul>', html, re.S)
    assert extended is not None and "Table 3" in extended.group(0)
    assert "+4 min (judge call) by owner" in extended.group(0)
    partial = client.get(reverse("judge_tables", args=[t.slug]), headers={"HX-Request": "true"})
    assert partial.status_code == 200
    assert "<html" not in partial.content.decode()
    assert partial.content.decode().lstrip().startswith('<section id="judge-tables"')


def test_a_judge_adds_minutes_by_table_number_from_the_quick_form(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    client = client_of(team, "floor_judge")
    url = reverse("judge_extend", args=[t.slug])
    response = client.post(url, {"table": "2", "quick": "5", "minutes": "", "note": ""})
    assert response.status_code == 302 and response["Location"] == reverse(
        "judge_tables", args=[t.slug]
    )
    assert TimeExtension.objects.get().minutes == 5
    followed = client.get(response["Location"]).content.decode()
    ends = hm(team["round"].clock_ends_at + timedelta(minutes=5))
    assert f"Table 2: +5 min, ends {ends}." in followed
    response = client.post(
        url, {"table": "2", "minutes": "7", "note": "slow"}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html and "Table 2: +12 min, ends" in html
    assert sorted(TimeExtension.objects.values_list("minutes", flat=True)) == [5, 7]


@pytest.mark.parametrize(
    ("posted", "message"),
    [
        ({"table": "", "quick": "5"}, "Type a table number."),
        ({"table": "99", "quick": "5"}, "Round 1 has no table 99."),
        ({"table": "5", "quick": "5"}, "Table 5 is a bye"),
        ({"table": "1", "minutes": ""}, "Say how many minutes to add"),
        ({"table": "1", "minutes": "90"}, "between 1 and 60 minutes"),
        ({"table": "1", "minutes": "lots"}, "Say how many minutes to add"),
    ],
)
def test_a_refused_extension_says_why_and_keeps_what_was_typed(
    team: dict[str, Any], posted: dict[str, str], message: str
) -> None:
    t: Tournament = team["t"]
    client = client_of(team, "floor_judge")
    url = reverse("judge_extend", args=[t.slug])
    plain = client.post(url, {"note": "kept", **posted})
    assert plain.status_code == 422
    assert message in plain.content.decode() and "<html" in plain.content.decode()
    assert 'value="kept"' in plain.content.decode()
    hx = client.post(url, {"note": "kept", **posted}, headers={"HX-Request": "true"})
    assert hx.status_code == 422 and message in hx.content.decode()
    assert "<html" not in hx.content.decode()
    assert not TimeExtension.objects.exists()


def test_a_judge_takes_back_an_extension_from_the_tables_screen(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    client = client_of(team, "head_judge")
    first = add_extension(tournament=t, match=table(t, 1), minutes=5, by=team["owner"])
    second = add_extension(tournament=t, match=table(t, 1), minutes=3, by=team["owner"])
    response = client.post(reverse("judge_remove_extension", args=[t.slug, first.pk]))
    assert response.status_code == 302
    response = client.post(
        reverse("judge_remove_extension", args=[t.slug, second.pk]),
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200 and "Extension taken back." in response.content.decode()
    assert not TimeExtension.objects.exists()
    again = client.post(
        reverse("judge_remove_extension", args=[t.slug, second.pk]),
        headers={"HX-Request": "true"},
    )
    assert again.status_code == 422 and "not in this event any more" in again.content.decode()


# --- who may ---------------------------------------------------------------------------


def endpoint(team: dict[str, Any], name: str) -> tuple[str, str, dict[str, str]]:
    t: Tournament = team["t"]
    if name == "judge_tables":
        return "get", reverse(name, args=[t.slug]), {}
    if name == "judge_extend":
        return "post", reverse(name, args=[t.slug]), {"table": "1", "quick": "5"}
    mistaken = add_extension(tournament=t, match=table(t, 3), minutes=2, by=team["owner"])
    return "post", reverse(name, args=[t.slug, mistaken.pk]), {}


@pytest.mark.parametrize("name", ["judge_tables", "judge_extend", "judge_remove_extension"])
@pytest.mark.parametrize("role", ROLES)
def test_only_the_floor_team_may_use_the_extension_screens(
    team: dict[str, Any], name: str, role: str
) -> None:
    method, url, data = endpoint(team, name)
    before = (fresh(team["t"]).version, TimeExtension.objects.count())
    response = getattr(client_of(team, role), method)(url, data)
    if role == "anonymous":
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    elif role == "stranger":
        assert response.status_code == 403
    else:
        assert response.status_code == (200 if method == "get" else 302)
    changed = (fresh(team["t"]).version, TimeExtension.objects.count()) != before
    assert changed == (role in STAFF and method == "post")


# --- the audit log's sentences ------------------------------------------------------------


def test_the_audit_log_says_who_got_how_many_minutes(team: dict[str, Any]) -> None:
    seated = (("Ana Souza", "p1"), ("Ben Ito", "p2"))
    added = Record(
        "extension", "", after={"event": "added", "minutes": 5, "total": 8, "note": "ruling"},
        round=3, table=4, players=seated,
    )  # fmt: skip
    words = "".join(
        p if isinstance(p, str) else p.name for p in extension_sentence(added, Context())
    )
    assert words == "Table 4, round 3 (Ana Souza vs Ben Ito): 5 minutes added (ruling; 8 in all)"
    first = Record("extension", "", after={"event": "added", "minutes": 1, "total": 1, "note": ""},
                   round=3, table=4, players=seated)  # fmt: skip
    words = "".join(
        p if isinstance(p, str) else p.name for p in extension_sentence(first, Context())
    )
    assert words == "Table 4, round 3 (Ana Souza vs Ben Ito): 1 minute added"
    removed = Record("extension", "", after={"event": "removed", "minutes": 5, "total": 3},
                     round=3, table=4, players=seated)  # fmt: skip
    words = "".join(
        p if isinstance(p, str) else p.name for p in extension_sentence(removed, Context())
    )
    assert words.endswith(": extension of 5 minutes taken back (3 left)")
    # The stored entries of the service read the same way.
    t: Tournament = team["t"]
    add_extension(tournament=t, match=table(t, 1), minutes=5, by=team["owner"])
    entry = AuditEntry.objects.get(action=AuditAction.EXTENSION)
    record = Record(
        entry.action, entry.summary, after=entry.after, round=entry.round, table=entry.table,
        players=tuple((p.name, p.external_id) for p in entry.players.all()),
    )  # fmt: skip
    parts = extension_sentence(record, Context())
    assert "".join(p if isinstance(p, str) else p.name for p in parts).startswith(
        "Table 1, round 1 ("
    )


def test_every_table_is_listed_only_when_asked(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    add_extension(tournament=t, match=table(t, 3), minutes=4, by=team["owner"])
    client = client_of(team, "floor_judge")
    url = reverse("judge_tables", args=[t.slug])
    short = client.get(url).content.decode()
    assert 'id="show-all-tables"' in short and "All 5 tables (4 still playing)" in short
    assert 'id="all-tables"' not in short
    for headers in ({}, {"HX-Request": "true"}):
        listed = client.get(url, {"all": "1"}, headers=headers)
        assert listed.status_code == 200
        html = listed.content.decode()
        assert ("<html" in html) == (not headers)
        rows = re.findall(r'<tr class="(open|done)"><th>(\d+)</th>', html)
        assert [n for _c, n in rows] == ["1", "2", "3", "4", "5"]
        assert "+4 min, ends" in html
