"""Penalties by the Magic Infraction Procedure Guide (issue 27): the infractions' table,
what each penalty does to the match and the standings, who may disqualify, the refusals,
withdrawing a penalty entered by mistake, and the audit log's sentence."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from scoring.models import Standing
from tests.conftest import PROJECT_ROOT
from tests.helpers import play_open_matches, play_swiss
from tournaments import services
from tournaments.infractions import (
    CATEGORIES,
    DISQUALIFICATION,
    GAME_LOSS,
    INFRACTIONS,
    MATCH_LOSS,
    PENALTY_NAMES,
    WARNING,
    by_category,
)
from tournaments.models import (
    AuditAction,
    AuditEntry,
    Match,
    MatchKind,
    Penalty,
    PenaltyKind,
    Player,
    Seat,
    StaffRole,
    Tournament,
)
from tournaments.pages.audit import Context, Record, describe
from tournaments.pages.penalty_audit import penalty_sentence
from tournaments.rules import INFRACTIONS as RULES_INFRACTIONS
from tournaments.services.penalties import HEAD_ONLY, issue_penalty, withdraw_penalty
from tournaments.services.writing import ServiceError

pytestmark = pytest.mark.django_db


def make_event(
    owner: Any, name: str = "Penalty Open", *, players: int = 8, best_of: int = 3
) -> Tournament:
    t = services.create_tournament(name=name, owner=owner, seed=11, best_of=best_of)
    services.register_players(tournament=t, names=[f"Player {i}" for i in range(1, players + 1)])
    services.pair_next_round(tournament=t)
    return Tournament.objects.get(pk=t.pk)


@pytest.fixture
def team(django_user_model: Any, owner: Any) -> dict[str, Any]:
    t = make_event(owner)
    people: dict[str, Any] = {"t": t, "owner": owner}
    for role in StaffRole:
        user = django_user_model.objects.create_user(role.value)
        services.add_staff(tournament=t, username=user.username, role=role, by=owner)
        people[role.value] = user
    return people


def table(t: Tournament, number: int, round_number: int = 1) -> Match:
    return Match.objects.get(round__tournament=t, round__number=round_number, table=number)


def seated(match: Match) -> list[Seat]:
    return list(match.seats.select_related("player").order_by("position"))


def standings(t: Tournament) -> list[tuple[Any, ...]]:
    return list(
        Standing.objects.filter(tournament=t)
        .order_by("position")
        .values_list("player__name", "rank", "points", "wins", "losses", "draws", "tiebreakers")
    )


def figures(t: Tournament) -> dict[str, tuple[Any, ...]]:
    """Each player's standing without their place: two events' seeded draws (the last
    tiebreak) order tied players apart."""
    return {name: rest for name, _rank, *rest in standings(t)}


# --- The infractions ------------------------------------------------------------------


def test_the_table_holds_the_ipg_infractions_with_their_default_penalties() -> None:
    assert RULES_INFRACTIONS is INFRACTIONS
    assert len(INFRACTIONS) == 23
    assert [c for c, _ in by_category()] == list(CATEGORIES)
    defaults = {i.name: i.penalty for i in INFRACTIONS.values()}
    assert defaults["Missed Trigger"] is None  # IPG 2.1: no penalty
    assert defaults["Tardiness"] == GAME_LOSS
    assert defaults["Outside Assistance"] == MATCH_LOSS
    assert defaults["Decklist Problem"] == GAME_LOSS
    assert defaults["Deck Problem"] == WARNING
    assert defaults["Unsporting Conduct — Major"] == MATCH_LOSS
    assert defaults["Cheating"] == DISQUALIFICATION
    assert defaults["Stalling"] == DISQUALIFICATION
    sections = [i.section for i in INFRACTIONS.values()]
    assert len(set(sections)) == len(sections)
    assert all(len(key) <= 40 for key in INFRACTIONS)  # Penalty.infraction's max_length
    assert set(PENALTY_NAMES) == set(PenaltyKind.values)
    assert {i.penalty for i in INFRACTIONS.values()} - {None} <= set(PenaltyKind.values)


def test_the_infractions_module_imports_nothing_but_the_standard_library() -> None:
    tree = ast.parse(Path(PROJECT_ROOT, "tournaments", "infractions.py").read_text())
    imported = {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
    } | {
        a.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for a in node.names
    }
    assert imported <= {"__future__", "dataclasses"}


# --- Each penalty's effect ------------------------------------------------------------


def test_a_warning_is_recorded_and_changes_no_result(team: dict[str, Any]) -> None:
    t = Tournament.objects.get(pk=team["t"].pk)
    match = table(t, 2)
    player = seated(match)[0].player
    before = standings(t)
    version = t.version
    penalty = issue_penalty(
        tournament=t, player=player, infraction="game_rule_violation", penalty=None,
        note="Untapped a land twice", by=team["floor_judge"],
    )  # fmt: skip
    assert penalty.penalty == PenaltyKind.WARNING
    assert (penalty.match_id, penalty.round_number, penalty.table) == (match.pk, 1, 2)
    assert penalty.judge == team["floor_judge"] and penalty.note == "Untapped a land twice"
    match.refresh_from_db()
    assert not match.reported
    assert standings(t) == before
    assert Tournament.objects.get(pk=t.pk).version == version + 1
    entry = AuditEntry.objects.get(tournament=t, action=AuditAction.PENALTY)
    assert (entry.round, entry.table, entry.user) == (1, 2, team["floor_judge"])
    assert [p.name for p in entry.players.all()] == [player.name]
    assert (
        entry.after["penalty"] == "warning" and entry.after["infraction"] == "game_rule_violation"
    )


def test_a_game_loss_is_recorded_and_shown_on_the_match_without_a_result(
    team: dict[str, Any], client: Any
) -> None:
    t: Tournament = team["t"]
    match = table(t, 3)
    player = seated(match)[1].player
    penalty = issue_penalty(
        tournament=t, player=player, infraction="tardiness", penalty=None, by=team["owner"]
    )
    assert penalty.penalty == PenaltyKind.GAME_LOSS
    match.refresh_from_db()
    assert not match.reported  # the match goes on: nobody invents its result
    client.force_login(team["floor_judge"])
    note = f"Game loss: {player.name} (Tardiness)"
    form = client.get(f"/t/{t.slug}/manage/matches/{match.pk}/").content.decode()
    assert note in form
    row = client.get(f"/t/{t.slug}/manage/rounds/1/").content.decode()
    assert note in row
    # Entering the result keeps the note on the row the response carries.
    response = client.post(
        f"/t/{t.slug}/manage/matches/{match.pk}/result/", {"result": "2-1"},
        headers={"HX-Request": "true"},
    )  # fmt: skip
    assert response.status_code == 200 and note in response.content.decode()


def test_a_match_loss_enters_the_result_the_organizer_would(
    owner: Any, django_user_model: Any
) -> None:
    penalized_event = make_event(owner, "Twin A")
    organized_event = make_event(owner, "Twin B")
    judge = django_user_model.objects.create_user("judge")
    services.add_staff(tournament=penalized_event, username="judge", role="floor_judge", by=owner)
    a, b = table(penalized_event, 1), table(organized_event, 1)
    assert [s.player.name for s in seated(a)] == [s.player.name for s in seated(b)]
    loser = seated(a)[0].player
    issue_penalty(
        tournament=penalized_event, player=loser, infraction="outside_assistance",
        penalty=None, by=judge,
    )  # fmt: skip
    services.record_result(match=b, wins=(0, 2), by=owner)
    a.refresh_from_db()
    assert a.reported and [s.games_won for s in seated(a)] == [0, 2]
    assert figures(penalized_event) == figures(organized_event)
    loser_row = figures(penalized_event)[loser.name]
    assert (loser_row[0], list(loser_row[1:4])) == (0, [0, 1, 0])  # 0 points, 0-1-0
    result = AuditEntry.objects.get(tournament=penalized_event, action=AuditAction.RESULT)
    assert result.after["wins"] == [0, 2]
    penalty = AuditEntry.objects.get(tournament=penalized_event, action=AuditAction.PENALTY)
    assert penalty.after["result"] == "0-2"


def test_a_match_loss_in_a_best_of_one_is_lost_0_1(owner: Any) -> None:
    t = make_event(owner, "Bo1 Open", best_of=1)
    match = table(t, 2)
    loser = seated(match)[1].player
    issue_penalty(
        tournament=t, player=loser, infraction="unsporting_conduct_major", penalty=None, by=owner
    )
    match.refresh_from_db()
    assert [s.games_won for s in seated(match)] == [1, 0]


def test_an_upgraded_penalty_does_what_the_chosen_penalty_does(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    match = table(t, 4)
    loser = seated(match)[0].player
    penalty = issue_penalty(
        tournament=t, player=loser, infraction="game_rule_violation",
        penalty=PenaltyKind.MATCH_LOSS, note="Third GRV today", by=team["head_judge"],
    )  # fmt: skip
    assert penalty.penalty == PenaltyKind.MATCH_LOSS
    match.refresh_from_db()
    assert match.reported and [s.games_won for s in seated(match)] == [0, 2]


def test_a_disqualification_drops_the_player_and_concedes_their_match(
    team: dict[str, Any],
) -> None:
    t: Tournament = team["t"]
    match = table(t, 1)
    cheat = seated(match)[1].player
    penalty = issue_penalty(
        tournament=t, player=cheat, infraction="cheating", penalty=None,
        note="Drew an extra card on purpose", by=team["head_judge"],
    )  # fmt: skip
    assert penalty.penalty == PenaltyKind.DISQUALIFICATION
    cheat.refresh_from_db()
    assert cheat.dropped_after_round == 1 and not cheat.dropped_by_player
    match.refresh_from_db()
    assert match.reported and [s.games_won for s in seated(match)] == [2, 0]
    drop = AuditEntry.objects.get(tournament=t, action=AuditAction.DROP)
    assert drop.after["reason"] == "disqualified: Cheating"
    assert AuditEntry.objects.get(tournament=t, action=AuditAction.PENALTY).after["result"] == "0-2"
    # The next round pairs everyone else.
    play_open_matches(t)
    services.pair_next_round(tournament=t)
    assert not Seat.objects.filter(round__number=2, player=cheat).exists()


def test_the_organizer_disqualifies_as_the_head_judge_does(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    player = seated(table(t, 2))[0].player
    issue_penalty(
        tournament=t, player=player, infraction="aggressive_behavior", penalty=None,
        by=team["owner"],
    )  # fmt: skip
    player.refresh_from_db()
    assert player.dropped


@pytest.mark.parametrize("role", ["floor_judge", "scorekeeper"])
def test_a_disqualification_is_refused_to_anyone_but_the_head_judge(
    team: dict[str, Any], role: str
) -> None:
    t: Tournament = team["t"]
    player = seated(table(t, 1))[0].player
    with pytest.raises(ServiceError, match="Only the head judge or the organizer"):
        issue_penalty(
            tournament=t, player=player, infraction="cheating", penalty=None, by=team[role]
        )
    assert HEAD_ONLY.startswith("Only the head judge")
    player.refresh_from_db()
    assert not player.dropped and not Penalty.objects.exists()
    assert not table(t, 1).reported


def test_a_disqualification_in_the_top_cut_concedes_the_playoff_match(
    owner: Any, django_user_model: Any
) -> None:
    t = services.create_tournament(name="Cut Open", owner=owner, seed=5)
    services.register_players(tournament=t, names=[f"Player {i}" for i in range(1, 9)])
    play_swiss(t, 3)
    services.start_top_cut(tournament=t, size=4)
    t = Tournament.objects.get(pk=t.pk)
    final_four = Match.objects.filter(round__tournament=t, round__playoff=True).order_by("table")
    match = final_four[0]
    cheat, opponent = (s.player for s in seated(match))
    issue_penalty(tournament=t, player=cheat, infraction="stalling", penalty=None, by=owner)
    match.refresh_from_db()
    wins = {s.player_id: s.games_won for s in seated(match)}
    assert match.reported and wins == {cheat.pk: 0, opponent.pk: 2}
    cheat.refresh_from_db()
    assert cheat.dropped
    play_open_matches(t, round__playoff=True)
    services.pair_next_round(tournament=t)
    final = Match.objects.get(round__tournament=t, round__playoff=True, round__number=5)
    assert opponent.pk in {s.player_id for s in seated(final)}


# --- Refusals ---------------------------------------------------------------------------


def test_an_unknown_infraction_is_refused_by_name(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    player = seated(table(t, 1))[0].player
    with pytest.raises(ServiceError, match="'card_theft' is not an infraction"):
        issue_penalty(tournament=t, player=player, infraction="card_theft", penalty=None,
                      by=team["owner"])  # fmt: skip
    with pytest.raises(ServiceError, match="'banishment' is not a penalty"):
        issue_penalty(tournament=t, player=player, infraction="tardiness", penalty="banishment",
                      by=team["owner"])  # fmt: skip
    assert not Penalty.objects.exists()


def test_a_missed_trigger_carries_no_penalty_unless_the_judge_upgrades_it(
    team: dict[str, Any],
) -> None:
    t: Tournament = team["t"]
    player = seated(table(t, 1))[0].player
    with pytest.raises(ServiceError, match="Missed Trigger carries no penalty"):
        issue_penalty(tournament=t, player=player, infraction="missed_trigger", penalty=None,
                      by=team["floor_judge"])  # fmt: skip
    upgraded = issue_penalty(
        tournament=t, player=player, infraction="missed_trigger", penalty="warning",
        by=team["floor_judge"],
    )  # fmt: skip
    assert upgraded.penalty == "warning"


def test_a_player_of_another_event_is_refused(team: dict[str, Any], owner: Any) -> None:
    t: Tournament = team["t"]
    other = make_event(owner, "Elsewhere Open")
    stranger = Player.objects.filter(tournament=other).first()
    with pytest.raises(ServiceError, match="not in this event"):
        issue_penalty(tournament=t, player=stranger, infraction="tardiness", penalty=None,
                      by=owner)  # fmt: skip
    with pytest.raises(ServiceError, match="not in this event"):
        issue_penalty(tournament=t, player=10**9, infraction="tardiness", penalty=None, by=owner)


def test_a_dropped_player_is_refused(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    player = seated(table(t, 1))[0].player
    services.drop_player(player=player, by=team["owner"])
    with pytest.raises(ServiceError, match="has dropped from the event"):
        issue_penalty(tournament=t, player=player, infraction="slow_play", penalty=None,
                      by=team["owner"])  # fmt: skip


def test_a_match_loss_needs_a_match_that_can_take_it(owner: Any) -> None:
    t = make_event(owner, "Odd Open", players=7)
    bye = Match.objects.get(round__tournament=t, kind=MatchKind.BYE)
    with pytest.raises(ServiceError, match="has a bye this round"):
        issue_penalty(tournament=t, player=seated(bye)[0].player, infraction="outside_assistance",
                      penalty=None, by=owner)  # fmt: skip
    played = table(t, 1)
    services.record_result(match=played, wins=(2, 1), by=owner)
    with pytest.raises(ServiceError, match=r"already has a result: by IPG 1\.1"):
        issue_penalty(tournament=t, player=seated(played)[1].player,
                      infraction="outside_assistance", penalty=None, by=owner)  # fmt: skip
    (late,) = services.register_players(tournament=t, names=["Late Larry"])
    with pytest.raises(ServiceError, match="has no match in the round being played"):
        issue_penalty(tournament=t, player=late, infraction="outside_assistance", penalty=None,
                      by=owner)  # fmt: skip
    # A warning for them is fine: it needs no match.
    warned = issue_penalty(tournament=t, player=late, infraction="slow_play", penalty=None,
                           by=owner)  # fmt: skip
    assert warned.match is None and warned.round_number == 1
    assert not Penalty.objects.filter(penalty=PenaltyKind.MATCH_LOSS).exists()


def test_a_match_given_must_seat_the_player(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    player = seated(table(t, 1))[0].player
    with pytest.raises(ServiceError, match="does not play in that match"):
        issue_penalty(tournament=t, player=player, infraction="slow_play", penalty=None,
                      match=table(t, 2), by=team["owner"])  # fmt: skip


def test_a_long_note_and_a_finished_event_are_refused(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    player = seated(table(t, 1))[0].player
    with pytest.raises(ServiceError, match="500 at most"):
        issue_penalty(tournament=t, player=player, infraction="slow_play", penalty=None,
                      note="x" * 501, by=team["owner"])  # fmt: skip
    play_open_matches(t)
    services.finish(tournament=t, by=team["owner"])
    with pytest.raises(ServiceError, match="The tournament is finished"):
        issue_penalty(tournament=t, player=player, infraction="slow_play", penalty=None,
                      by=team["owner"])  # fmt: skip


# --- Withdrawing a penalty entered by mistake --------------------------------------------


def test_withdrawing_a_warning_deletes_it_and_the_audit_log_keeps_both(
    team: dict[str, Any],
) -> None:
    t: Tournament = team["t"]
    player = seated(table(t, 1))[0].player
    penalty = issue_penalty(tournament=t, player=player, infraction="slow_play", penalty=None,
                            by=team["floor_judge"])  # fmt: skip
    withdraw_penalty(tournament=t, penalty=penalty.pk, by=team["floor_judge"])
    assert not Penalty.objects.exists()
    events = list(
        AuditEntry.objects.filter(tournament=t, action=AuditAction.PENALTY)
        .order_by("id")
        .values_list("after__event", flat=True)
    )
    assert events == ["issued", "withdrawn"]


def test_withdrawing_a_match_loss_clears_the_result_it_entered(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    match = table(t, 2)
    before = standings(t)
    penalty = issue_penalty(tournament=t, player=seated(match)[0].player,
                            infraction="outside_assistance", penalty=None, by=team["owner"])  # fmt: skip
    withdraw_penalty(tournament=t, penalty=penalty, by=team["owner"])
    match.refresh_from_db()
    assert not match.reported and [s.games_won for s in seated(match)] == [None, None]
    assert standings(t) == before
    entry = AuditEntry.objects.filter(action=AuditAction.PENALTY).order_by("-id").first()
    assert entry is not None and entry.after["result_cleared"] is True


def test_withdrawing_a_match_loss_leaves_a_result_changed_since(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    match = table(t, 2)
    penalty = issue_penalty(tournament=t, player=seated(match)[0].player,
                            infraction="outside_assistance", penalty=None, by=team["owner"])  # fmt: skip
    services.record_result(match=match, wins=(1, 2), by=team["owner"])
    withdraw_penalty(tournament=t, penalty=penalty, by=team["owner"])
    match.refresh_from_db()
    assert match.reported and [s.games_won for s in seated(match)] == [1, 2]
    assert not Penalty.objects.exists()


def test_a_match_loss_of_an_earlier_round_is_not_cleared_behind_a_later_pairing(
    team: dict[str, Any],
) -> None:
    t: Tournament = team["t"]
    match = table(t, 2)
    penalty = issue_penalty(tournament=t, player=seated(match)[0].player,
                            infraction="outside_assistance", penalty=None, by=team["owner"])  # fmt: skip
    play_open_matches(t)
    services.pair_next_round(tournament=t)
    with pytest.raises(ServiceError, match="no longer the last round paired"):
        withdraw_penalty(tournament=t, penalty=penalty, by=team["owner"])
    assert Penalty.objects.filter(pk=penalty.pk).exists()


def test_a_disqualification_is_not_withdrawn_here(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    penalty = issue_penalty(tournament=t, player=seated(table(t, 1))[0].player,
                            infraction="cheating", penalty=None, by=team["head_judge"])  # fmt: skip
    with pytest.raises(ServiceError, match="A disqualification is not withdrawn here"):
        withdraw_penalty(tournament=t, penalty=penalty, by=team["head_judge"])
    with pytest.raises(ServiceError, match="not in this event"):
        withdraw_penalty(tournament=t, penalty=10**9, by=team["head_judge"])


# --- The audit log's sentence -------------------------------------------------------------


def record_of(entry: AuditEntry) -> Record:
    return Record(
        action=entry.action, summary=entry.summary, before=entry.before, after=entry.after,
        round=entry.round, table=entry.table,
        players=tuple((p.name, p.external_id) for p in entry.players.all()),
    )  # fmt: skip


def test_the_audit_sentence_names_the_penalty_the_player_and_the_infraction(
    team: dict[str, Any],
) -> None:
    t: Tournament = team["t"]
    match = table(t, 3)
    player = seated(match)[0].player
    issue_penalty(tournament=t, player=player, infraction="outside_assistance", penalty=None,
                  note="Got advice from a friend", by=team["owner"])  # fmt: skip
    entry = AuditEntry.objects.get(tournament=t, action=AuditAction.PENALTY)
    sentence = "".join(str(p) if isinstance(p, str) else p.name
                       for p in penalty_sentence(record_of(entry), Context()))  # fmt: skip
    assert sentence == (
        f"Table 3, round 1: {player.name} received a Match Loss for Outside Assistance "
        "(IPG 3.2); the match conceded 0-2 — “Got advice from a friend”"
    )
    # The shape pages.audit's describe() runs it in (wired by the lead): no fallback.
    from tournaments.pages import audit

    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(audit.RENDERERS, AuditAction.PENALTY, penalty_sentence)
        described = describe(record_of(entry))
    assert not described.fallback and [m.name for m in described.mentions] == [player.name]


def test_the_audit_sentence_of_a_disqualification_and_a_withdrawal(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    cheat = seated(table(t, 1))[0].player
    issue_penalty(tournament=t, player=cheat, infraction="cheating", penalty=None,
                  by=team["head_judge"])  # fmt: skip
    warned = seated(table(t, 2))[0].player
    penalty = issue_penalty(tournament=t, player=warned, infraction="slow_play", penalty=None,
                            by=team["floor_judge"])  # fmt: skip
    withdraw_penalty(tournament=t, penalty=penalty, by=team["floor_judge"])
    texts = [
        "".join(
            p if isinstance(p, str) else p.name for p in penalty_sentence(record_of(e), Context())
        )
        for e in AuditEntry.objects.filter(tournament=t, action=AuditAction.PENALTY).order_by("id")
    ]
    assert texts == [
        f"Table 1, round 1: {cheat.name} disqualified for Cheating (IPG 4.8); the match conceded 0-2",
        f"Table 2, round 1: {warned.name} received a Warning for Slow Play (IPG 3.3)",
        f"Table 2, round 1: Warning for {warned.name} withdrawn (Slow Play)",
    ]
