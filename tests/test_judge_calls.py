"""Judge calls (issue 27), the services: a player calls a judge from their table, judges
claim, hand to the head judge, release and resolve; every refusal says why; every change
is audited (and read back as a sentence); none bumps the event's version; a link calls
at most a few times in ten minutes. Then the hub: a judges' screen, and the players at
the table, are told when the calls move."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache

from tests.helpers import Inbox
from tournaments import live, services, stream
from tournaments.models import (
    AuditAction,
    AuditEntry,
    CallState,
    JudgeCall,
    Match,
    MatchKind,
    Player,
    StaffRole,
    Tournament,
)
from tournaments.pages.audit import Context, Record
from tournaments.pages.call_audit import call_sentence
from tournaments.services import calls
from tournaments.services.registration import issue_link
from tournaments.services.writing import ServiceError

pytestmark = pytest.mark.django_db
NAMES = ["Ana Souza", "Ben Ito", "Cleo Park", "Dev Rao", "Eva Lund"]


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    cache.clear()  # the per-link counters live there
    yield
    cache.clear()


@pytest.fixture
def team(django_user_model: Any, owner: Any) -> dict[str, Any]:
    """Five players in round 1 (one has the bye), and a judge of each role."""
    t = services.create_tournament(name="Calls Open", owner=owner, seed=3)
    services.register_players(tournament=t, names=NAMES)
    services.pair_next_round(tournament=t)
    people: dict[str, Any] = {"t": t, "owner": owner}
    for role in StaffRole:
        user = django_user_model.objects.create_user(role.value)
        services.add_staff(tournament=t, username=user.username, role=role, by=owner)
        people[role.value] = user
    people["judge2"] = django_user_model.objects.create_user("judge2")
    services.add_staff(tournament=t, username="judge2", role="floor_judge", by=owner)
    return people


def seated(t: Tournament, table: int = 1) -> list[Player]:
    match = Match.objects.get(round__tournament=t, round__number=1, table=table)
    return [s.player for s in match.seats.select_related("player").order_by("position")]


def bye_player(t: Tournament) -> Player:
    match = Match.objects.get(round__tournament=t, kind=MatchKind.BYE)
    return match.seats.get().player


def version(t: Tournament) -> int:
    return Tournament.objects.get(pk=t.pk).version


def entries(t: Tournament) -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(tournament=t, action=AuditAction.CALL).order_by("id"))


def sentence(entry: AuditEntry, ctx: Context | None = None) -> str:
    record = Record(
        action=entry.action,
        summary=entry.summary,
        before=entry.before,
        after=entry.after,
        by=entry.user.get_username() if entry.user else None,
        round=entry.round,
        table=entry.table,
        players=tuple((p.name, p.external_id) for p in entry.players.all()),
    )
    return "".join(
        p if isinstance(p, str) else p.name for p in call_sentence(record, ctx or Context())
    )


# --- A player calls -------------------------------------------------------------------------


def test_a_player_calls_a_judge_to_their_table_with_a_short_word_and_it_is_audited(
    team: dict[str, Any],
) -> None:
    t = team["t"]
    ana, ben = seated(t, 1)
    call = calls.call_judge(player=ana, note="  missed   trigger ")
    call.refresh_from_db()
    assert (call.state, call.round_number, call.table, call.note) == (
        "open",
        1,
        1,
        "missed trigger",
    )
    assert call.player == ana and call.judge is None
    (entry,) = entries(t)
    assert (entry.round, entry.table, entry.user) == (1, 1, None)
    assert [p.name for p in entry.players.all()] == [ana.name, ben.name]
    assert entry.after["event"] == "called" and entry.after["player_id"] == ana.external_id
    assert sentence(entry) == f"Table 1, round 1: {ana.name} called a judge: 'missed trigger'"


def test_a_call_bumps_no_version_and_nothing_a_judge_does_to_it_does(
    team: dict[str, Any],
) -> None:
    t = team["t"]
    before = version(t)
    call = calls.call_judge(player=seated(t, 1)[0])
    calls.claim_call(call=call, by=team["floor_judge"])
    calls.release_call(call=call, by=team["floor_judge"])
    calls.hand_to_head(call=call, by=team["floor_judge"])
    calls.claim_call(call=call, by=team["head_judge"])
    calls.resolve_call(call=call, by=team["head_judge"], resolution="warning")
    calls.open_call(tournament=t, table=2, note="slow play", by=team["floor_judge"])
    assert version(t) == before
    assert len(entries(t)) == 7


def test_a_note_is_cleaned_as_other_text_and_refused_when_too_long_or_holding_controls(
    team: dict[str, Any],
) -> None:
    ana = seated(team["t"], 1)[0]
    with pytest.raises(ServiceError, match="longer than 200 characters"):
        calls.call_judge(player=ana, note="x" * 201)
    with pytest.raises(ServiceError, match="control character"):
        calls.call_judge(player=ana, note="ring\x07ring")
    assert not JudgeCall.objects.exists()
    call = calls.call_judge(player=ana, note="x" * 200)
    assert len(call.note) == 200


def test_a_player_with_the_bye_has_no_table_to_call_a_judge_to(team: dict[str, Any]) -> None:
    with pytest.raises(ServiceError, match="You have no table in round 1"):
        calls.call_judge(player=bye_player(team["t"]))
    assert not JudgeCall.objects.exists() and not entries(team["t"])


def test_a_dropped_player_is_told_to_find_a_judge_on_the_floor(team: dict[str, Any]) -> None:
    ana = seated(team["t"], 1)[0]
    services.drop_player(player=ana, by=team["owner"])
    with pytest.raises(ServiceError, match="You have dropped"):
        calls.call_judge(player=Player.objects.get(pk=ana.pk))


def test_before_round_one_is_paired_there_is_nothing_to_call_a_judge_to(owner: Any) -> None:
    t = services.create_tournament(name="Not Yet", owner=owner, seed=1)
    (ana,) = services.register_players(tournament=t, names=["Ana Souza"])
    with pytest.raises(ServiceError, match="No round is being played"):
        calls.call_judge(player=ana)


def test_a_finished_event_takes_no_calls(team: dict[str, Any]) -> None:
    t = team["t"]
    ana = seated(t, 1)[0]
    for match in Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED):
        services.record_result(match=match, wins=(2, 0))
    services.finish(tournament=t, by=team["owner"])
    with pytest.raises(ServiceError, match="The event is finished"):
        calls.call_judge(player=ana)


def test_a_second_tap_gets_the_open_call_back_instead_of_a_second_call(
    team: dict[str, Any],
) -> None:
    ana = seated(team["t"], 1)[0]
    first = calls.call_judge(player=ana, note="missed trigger")
    with pytest.raises(calls.AlreadyCalled, match="by you") as refused:
        calls.call_judge(player=ana, note="again")
    assert refused.value.call.pk == first.pk
    assert "waiting for a judge (table 1)" in str(refused.value)
    assert JudgeCall.objects.count() == 1 and len(entries(team["t"])) == 1


def test_the_opponent_of_a_player_who_called_gets_that_call_too(team: dict[str, Any]) -> None:
    ana, ben = seated(team["t"], 1)
    first = calls.call_judge(player=ana)
    calls.claim_call(call=first, by=team["floor_judge"])
    with pytest.raises(calls.AlreadyCalled, match="by your table") as refused:
        calls.call_judge(player=ben)
    assert refused.value.call.pk == first.pk
    assert "a judge is on the way: floor_judge" in str(refused.value)


def test_once_resolved_the_table_may_call_again(team: dict[str, Any]) -> None:
    ana = seated(team["t"], 1)[0]
    first = calls.call_judge(player=ana)
    calls.resolve_call(call=first, by=team["floor_judge"])
    second = calls.call_judge(player=ana)
    assert second.pk != first.pk and second.state == CallState.OPEN


def test_a_link_calls_at_most_a_few_times_in_ten_minutes_and_other_links_are_not_counted(
    team: dict[str, Any],
) -> None:
    t = team["t"]
    ana, ben = seated(t, 1)
    issue_link(player=ana)
    ana.refresh_from_db()
    for _ in range(calls.CALL_TOKEN_LIMIT):
        calls.resolve_call(call=calls.call_judge(player=ana), by=team["floor_judge"])
    with pytest.raises(calls.TooManyCalls, match="at most 5 in 10 minutes") as refused:
        calls.call_judge(player=ana)
    assert 0 < refused.value.refused.retry_after_s <= calls.CALL_WINDOW_SECONDS
    assert JudgeCall.objects.filter(player=ana).count() == calls.CALL_TOKEN_LIMIT
    assert calls.call_judge(player=ben).player == ben  # another link, its own count


def test_a_new_link_is_a_new_count_and_a_failing_cache_lets_calls_through(
    team: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    ana = seated(team["t"], 1)[0]

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("redis is away")

    monkeypatch.setattr(cache, "add", broken)
    for _ in range(calls.CALL_TOKEN_LIMIT + 2):
        calls.resolve_call(call=calls.call_judge(player=ana), by=team["floor_judge"])
    assert JudgeCall.objects.filter(player=ana).count() == calls.CALL_TOKEN_LIMIT + 2


# --- Judges ---------------------------------------------------------------------------------


def test_a_judge_claims_a_call_and_a_second_judge_is_told_who_has_it(
    team: dict[str, Any],
) -> None:
    t = team["t"]
    call = calls.call_judge(player=seated(t, 1)[0])
    claimed = calls.claim_call(call=call, by=team["floor_judge"])
    assert (claimed.state, claimed.judge, claimed.claimed_at is not None) == (
        "claimed", team["floor_judge"], True,
    )  # fmt: skip
    with pytest.raises(ServiceError, match="floor_judge has this call already"):
        calls.claim_call(call=call, by=team["judge2"])
    calls.claim_call(call=call, by=team["floor_judge"])  # their own again: nothing changes
    assert [e.after["event"] for e in entries(t)] == ["called", "claimed"]
    caller = seated(t, 1)[0].name
    assert sentence(entries(t)[1]) == f"Table 1, round 1: {caller}'s call claimed by floor_judge"


def test_a_call_handed_to_the_head_judge_is_theirs_to_take_and_resolve(
    team: dict[str, Any],
) -> None:
    t = team["t"]
    call = calls.call_judge(player=seated(t, 1)[0], note="appeal")
    calls.claim_call(call=call, by=team["floor_judge"])
    handed = calls.hand_to_head(call=call, by=team["floor_judge"])
    assert (handed.state, handed.judge) == (CallState.HEAD, None)
    calls.hand_to_head(call=call, by=team["judge2"])  # handed up already: nothing changes
    with pytest.raises(ServiceError, match="only the head judge or the organizer takes it"):
        calls.claim_call(call=call, by=team["judge2"])
    with pytest.raises(ServiceError, match="only the head judge or the organizer resolves it"):
        calls.resolve_call(call=call, by=team["floor_judge"])
    taken = calls.claim_call(call=call, by=team["head_judge"])
    assert (taken.state, taken.judge) == (CallState.HEAD, team["head_judge"])
    done = calls.resolve_call(call=call, by=team["head_judge"], resolution="Game Loss upheld")
    assert (done.state, done.resolution) == (CallState.RESOLVED, "Game Loss upheld")
    said, caller = [sentence(e) for e in entries(t)], seated(t, 1)[0].name
    assert said[2] == f"Table 1, round 1: {caller}'s call handed to the head judge by floor_judge"
    assert (
        said[-1] == f"Table 1, round 1: {caller}'s call resolved by head_judge: 'Game Loss upheld'"
    )


def test_the_organizer_takes_a_call_handed_up_as_the_head_judge_does(
    team: dict[str, Any],
) -> None:
    call = calls.call_judge(player=seated(team["t"], 1)[0])
    calls.hand_to_head(call=call, by=team["scorekeeper"])
    assert calls.claim_call(call=call, by=team["owner"]).judge == team["owner"]


def test_a_judge_releases_their_call_and_only_they_or_the_head_judge_may(
    team: dict[str, Any],
) -> None:
    t = team["t"]
    call = calls.call_judge(player=seated(t, 1)[0])
    calls.claim_call(call=call, by=team["floor_judge"])
    with pytest.raises(ServiceError, match="floor_judge has this call: only they release it"):
        calls.release_call(call=call, by=team["judge2"])
    released = calls.release_call(call=call, by=team["floor_judge"])
    assert (released.state, released.judge, released.claimed_at) == (CallState.OPEN, None, None)
    calls.release_call(call=call, by=team["floor_judge"])  # nobody has it: nothing changes
    calls.claim_call(call=call, by=team["judge2"])
    assert calls.release_call(call=call, by=team["head_judge"]).judge is None
    caller = seated(t, 1)[0].name
    assert sentence(entries(t)[2]) == f"Table 1, round 1: {caller}'s call released by floor_judge"


def test_a_resolved_call_refuses_every_further_change_and_says_who_resolved_it(
    team: dict[str, Any],
) -> None:
    call = calls.call_judge(player=seated(team["t"], 1)[0])
    calls.resolve_call(call=call, by=team["floor_judge"], resolution="  explained the  rule ")
    call.refresh_from_db()
    assert call.resolution == "explained the rule" and call.resolved_at is not None
    for act in (calls.claim_call, calls.hand_to_head, calls.release_call):
        with pytest.raises(ServiceError, match=r"resolved already \(by floor_judge\)"):
            act(call=call, by=team["judge2"])
    with pytest.raises(ServiceError, match="resolved already"):
        calls.resolve_call(call=call, by=team["judge2"])
    calls.resolve_call(call=call, by=team["floor_judge"])  # the same judge again: nothing
    assert len(entries(team["t"])) == 2
    with pytest.raises(ServiceError, match="longer than 200"):
        calls.resolve_call(call=call, by=team["floor_judge"], resolution="y" * 201)


def test_a_judge_opens_a_call_for_a_table_and_the_table_must_exist_and_have_none_open(
    team: dict[str, Any],
) -> None:
    t = team["t"]
    call = calls.open_call(tournament=t, table=2, note="slow play", by=team["floor_judge"])
    assert (call.player, call.table, call.round_number, call.state) == (None, 2, 1, "open")
    entry = entries(t)[0]
    assert entry.user == team["floor_judge"]
    assert [p.name for p in entry.players.all()] == [p.name for p in seated(t, 2)]
    assert sentence(entry) == "Table 2, round 1: floor_judge opened a call: 'slow play'"
    with pytest.raises(calls.AlreadyCalled, match="Table 2 has an open call already"):
        calls.open_call(tournament=t, table=2, by=team["judge2"])
    with pytest.raises(ServiceError, match="There is no table 9 in round 1"):
        calls.open_call(tournament=t, table=9, by=team["judge2"])
    claimed = calls.claim_call(call=call, by=team["judge2"])
    assert sentence(entries(t)[-1]) == "Table 2, round 1: the call claimed by judge2"
    assert claimed.judge == team["judge2"]


def test_a_call_of_another_event_is_refused(team: dict[str, Any], owner: Any) -> None:
    call = calls.call_judge(player=seated(team["t"], 1)[0])
    other = services.create_tournament(name="Elsewhere", owner=owner, seed=2)
    services.register_players(tournament=other, names=["X One", "Y Two"])
    services.pair_next_round(tournament=other)
    with pytest.raises(ServiceError, match="not one of this event's"):
        calls.claim_call(call=call, by=owner, tournament=other)


def test_the_audit_sentence_names_a_playoff_round_and_refuses_an_unknown_shape(
    team: dict[str, Any],
) -> None:
    call = calls.call_judge(player=seated(team["t"], 1)[0])
    (entry,) = entries(team["t"])
    assert sentence(entry, Context(playoff_rounds={1: "Final"})).startswith("Table 1, Final: ")
    entry.after = {**entry.after, "event": "teleported"}
    from tournaments.pages.audit import Unknown

    with pytest.raises(Unknown):
        sentence(entry)
    assert call.pk


# --- The hub: judges' screens and the players concerned are told -----------------------------


def test_a_judges_screen_is_told_at_once_of_a_new_call_a_claim_and_a_resolution(
    team: dict[str, Any], hub: stream.Hub
) -> None:
    t = team["t"]
    base = live.record_base(t)
    judge, shared = Inbox(), Inbox()
    hub.subscribe(base, stream.following({"floor": "1"})[0], judge)
    hub.subscribe(base, (), shared)
    hub.tick(now=0)  # the starting point: nothing to tell
    assert judge.take() == []
    call = calls.call_judge(player=seated(t, 1)[0])
    hub.tick(now=0.1)
    assert judge.take() == [["floor"]]
    hub.tick(now=0.2)
    assert judge.take() == []  # nothing moved since
    calls.claim_call(call=call, by=team["floor_judge"])
    hub.tick(now=0.3)
    calls.resolve_call(call=call, by=team["floor_judge"])
    hub.tick(now=0.4)
    assert judge.take() == [["floor"], ["floor"]]
    hub.tick(now=10)
    assert shared.take() == []  # a call is no write the public pages hear of


def test_the_players_at_the_table_are_told_when_their_call_moves_and_no_one_else(
    team: dict[str, Any], hub: stream.Hub
) -> None:
    t = team["t"]
    base = live.record_base(t)
    (ana, ben), (cleo, _dev) = seated(t, 1), seated(t, 2)
    inboxes = {p.external_id: Inbox() for p in (ana, ben, cleo)}
    for pid, inbox in inboxes.items():
        hub.subscribe(base, (("player", pid),), inbox)
    hub.tick(now=0)
    call = calls.call_judge(player=ana)
    hub.tick(now=0.5)  # no judges' screen here: players' pages look once a second
    assert [inbox.take() for inbox in inboxes.values()] == [[], [], []]
    hub.tick(now=stream.CALLS_EVERY_SECONDS)
    assert inboxes[ana.external_id].take() == [["player"]]
    assert inboxes[ben.external_id].take() == [["player"]]
    assert inboxes[cleo.external_id].take() == []
    calls.claim_call(call=call, by=team["floor_judge"])
    hub.tick(now=2 * stream.CALLS_EVERY_SECONDS)
    assert inboxes[ana.external_id].take() == [["player"]]


def test_with_a_judges_screen_open_the_players_are_told_at_the_next_look(
    team: dict[str, Any], hub: stream.Hub
) -> None:
    t = team["t"]
    base = live.record_base(t)
    ana = seated(t, 1)[0]
    judge, phone = Inbox(), Inbox()
    hub.subscribe(base, (("floor", ""),), judge)
    hub.subscribe(base, (("player", ana.external_id),), phone)
    hub.tick(now=0)
    calls.call_judge(player=ana)
    hub.tick(now=0.1)
    assert (judge.take(), phone.take()) == ([["floor"]], [["player"]])


def test_a_closed_judges_screen_is_told_nothing_more(team: dict[str, Any], hub: stream.Hub) -> None:
    t = team["t"]
    judge = Inbox()
    token = hub.subscribe(live.record_base(t), (("floor", ""),), judge)
    hub.tick(now=0)
    hub.unsubscribe(token)
    calls.call_judge(player=seated(t, 1)[0])
    hub.tick(now=1)
    assert judge.take() == [] and hub.count() == 0


def test_the_stream_query_asks_for_the_floor_beside_a_players_page() -> None:
    assert stream.following({"floor": "1"}) == ((("floor", ""),), "")
    assert stream.following({"player": "p1", "floor": "1", "at": "7"}) == (
        (("player", "p1"), ("floor", "")), "7",
    )  # fmt: skip
    assert stream.following({}) == ((), "")
