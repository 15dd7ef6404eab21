"""Pairing restrictions (issue 27, casual events only): two players the organizer asks
not to be paired, and the Rules Enforcement Level that allows it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import play_open_matches
from tournaments import services
from tournaments.models import (
    AuditAction,
    AuditEntry,
    Enforcement,
    Match,
    MatchKind,
    PairingRestriction,
    Player,
    System,
    Tournament,
)
from tournaments.pages.audit import Record
from tournaments.pages.seating_audit import restriction_sentence
from tournaments.services.restrictions import (
    forbidden_pairs,
    lift_restriction,
    restrict_pairing,
    set_enforcement,
)
from tournaments.services.writing import ServiceError

pytestmark = pytest.mark.django_db


def new_event(players: int, *, seed: int = 5, name: str = "Family Open", **kw: Any) -> Tournament:
    t = services.create_tournament(name=name, seed=seed, **kw)
    services.register_players(tournament=t, names=[f"Player {i}" for i in range(1, players + 1)])
    return t


def player(t: Tournament, name: str) -> Player:
    return t.players.get(name=name)


def opponents_in(t: Tournament, number: int) -> set[frozenset[str]]:
    out = set()
    for m in Match.objects.filter(round__tournament=t, round__number=number, kind=MatchKind.PLAYED):
        out.add(frozenset(s.player.name for s in m.seats.select_related("player")))
    return out


def sentence(entry: AuditEntry) -> str:
    record = Record(
        action=entry.action,
        summary=entry.summary,
        before=entry.before,
        after=entry.after,
        round=entry.round,
        table=entry.table,
        players=tuple((p.name, p.external_id) for p in entry.players.all()),
    )
    parts = restriction_sentence(record, None)  # type: ignore[arg-type]
    return "".join(p if isinstance(p, str) else p.name for p in parts)


def last(action: str = AuditAction.RESTRICTION) -> AuditEntry:
    entry = AuditEntry.objects.filter(action=action).order_by("-id").first()
    assert entry is not None
    return entry


# --- The services -------------------------------------------------------------------------


def test_a_restriction_is_stored_once_smaller_id_first_and_audited(owner: Any) -> None:
    t = new_event(6)
    b, a = player(t, "Player 2"), player(t, "Player 5")
    row = restrict_pairing(tournament=t, player_a=a, player_b=b, reason="siblings", by=owner)
    assert (row.player_a_id, row.player_b_id, row.reason) == (b.pk, a.pk, "siblings")
    entry = last()
    assert entry.user == owner
    assert sentence(entry) == "Player 2 and Player 5 are not to be paired (siblings)"
    assert forbidden_pairs(t) == [(b.external_id, a.external_id)]


def test_the_same_player_twice_is_refused() -> None:
    t = new_event(4)
    a = player(t, "Player 1")
    with pytest.raises(
        ServiceError, match="Choose two different players: Player 1 was given twice"
    ):
        restrict_pairing(tournament=t, player_a=a, player_b=a)


def test_a_pair_restricted_already_is_refused_in_either_order() -> None:
    t = new_event(4)
    a, b = player(t, "Player 1"), player(t, "Player 2")
    restrict_pairing(tournament=t, player_a=a, player_b=b)
    with pytest.raises(ServiceError, match="Player 1 and Player 2 are kept apart already"):
        restrict_pairing(tournament=t, player_a=b, player_b=a)
    assert PairingRestriction.objects.count() == 1


def test_a_player_of_another_event_is_refused() -> None:
    t = new_event(4)
    other = new_event(4, name="Other Open")
    with pytest.raises(ServiceError, match="not a player of this event"):
        restrict_pairing(
            tournament=t, player_a=player(t, "Player 1"), player_b=player(other, "Player 2")
        )


@pytest.mark.parametrize("level", [Enforcement.COMPETITIVE, Enforcement.PROFESSIONAL])
def test_restrictions_are_refused_at_competitive_and_professional_events(level: str) -> None:
    t = new_event(4, enforcement=level)
    with pytest.raises(ServiceError) as caught:
        restrict_pairing(
            tournament=t, player_a=player(t, "Player 1"), player_b=player(t, "Player 2")
        )
    message = str(caught.value)
    assert "casual events (Regular enforcement) only" in message
    assert "only to fix an error" in message
    assert Enforcement(level).label in message
    assert not PairingRestriction.objects.exists()


def test_lifting_a_restriction_deletes_it_and_audits_it() -> None:
    t = new_event(4)
    a, b = player(t, "Player 1"), player(t, "Player 2")
    restrict_pairing(tournament=t, player_a=a, player_b=b)
    lift_restriction(tournament=t, player_a=b, player_b=a)
    assert not PairingRestriction.objects.exists()
    assert sentence(last()) == "Player 1 and Player 2 may be paired again"
    with pytest.raises(ServiceError, match="Player 1 and Player 2 are not kept apart"):
        lift_restriction(tournament=t, player_a=a, player_b=b)


def test_the_enforcement_level_changes_and_is_audited(owner: Any) -> None:
    t = new_event(4)
    t = set_enforcement(tournament=t, enforcement=Enforcement.COMPETITIVE, by=owner)
    assert Tournament.objects.get(pk=t.pk).enforcement == Enforcement.COMPETITIVE
    assert sentence(last()) == "Rules Enforcement Level set to Competitive (was Regular (casual))"
    # The same level again records nothing.
    count = AuditEntry.objects.count()
    set_enforcement(tournament=t, enforcement=Enforcement.COMPETITIVE, by=owner)
    assert AuditEntry.objects.count() == count


def test_going_competitive_with_restrictions_is_refused_naming_them() -> None:
    t = new_event(6)
    restrict_pairing(tournament=t, player_a=player(t, "Player 1"), player_b=player(t, "Player 2"))
    restrict_pairing(tournament=t, player_a=player(t, "Player 3"), player_b=player(t, "Player 6"))
    with pytest.raises(ServiceError) as caught:
        set_enforcement(tournament=t, enforcement=Enforcement.PROFESSIONAL)
    message = str(caught.value)
    assert (
        "Lift the pairing restrictions first (Player 1 and Player 2; Player 3 and Player 6)"
        in message
    )
    assert Tournament.objects.get(pk=t.pk).enforcement == Enforcement.REGULAR


def test_an_unknown_enforcement_level_is_refused() -> None:
    t = new_event(4)
    with pytest.raises(ServiceError, match="'strict' is not an enforcement level"):
        set_enforcement(tournament=t, enforcement="strict")


def test_the_create_service_takes_the_level_and_refuses_an_unknown_one() -> None:
    t = services.create_tournament(name="Comp", enforcement=Enforcement.COMPETITIVE)
    assert t.enforcement == Enforcement.COMPETITIVE
    with pytest.raises(ServiceError, match="Unknown Rules Enforcement Level 'loose'"):
        services.create_tournament(name="Loose", enforcement="loose")


# --- Pairing ------------------------------------------------------------------------------


def test_a_restricted_pair_is_kept_apart_where_the_plain_pairing_would_pair_them() -> None:
    t = new_event(8, seed=17)
    services.pair_next_round(tournament=t)
    pair = sorted(next(iter(opponents_in(t, 1))))
    services.undo_round(tournament=t)
    a, b = player(t, pair[0]), player(t, pair[1])
    restrict_pairing(tournament=t, player_a=a, player_b=b, reason="teammates")
    services.pair_next_round(tournament=t)
    assert frozenset(pair) not in opponents_in(t, 1)
    entry = last()
    assert entry.round == 1
    assert sorted(p.name for p in entry.players.all()) == pair
    assert sentence(entry) == (
        f"Round 1: {pair[0]} and {pair[1]} kept apart as restricted (the pairing without "
        "restrictions paired them)"
    )
    assert len(opponents_in(t, 1)) == 4  # everyone still plays


def test_restricted_players_never_meet_over_a_whole_event() -> None:
    for seed in range(4):
        t = new_event(10, seed=seed, name=f"Club Night {seed}")
        restrict_pairing(
            tournament=t, player_a=player(t, "Player 1"), player_b=player(t, "Player 2")
        )
        restrict_pairing(
            tournament=t, player_a=player(t, "Player 3"), player_b=player(t, "Player 4")
        )
        for number in range(1, 6):
            services.pair_next_round(tournament=t)
            met = opponents_in(t, number)
            assert frozenset({"Player 1", "Player 2"}) not in met
            assert frozenset({"Player 3", "Player 4"}) not in met
            play_open_matches(t)


def test_a_round_the_restriction_did_not_change_logs_nothing_about_it() -> None:
    t = new_event(8, seed=17)
    services.pair_next_round(tournament=t)
    met = opponents_in(t, 1)
    names = [f"Player {i}" for i in range(1, 9)]
    apart = next((a, b) for a in names for b in names if a < b and frozenset((a, b)) not in met)
    services.undo_round(tournament=t)
    restrict_pairing(tournament=t, player_a=player(t, apart[0]), player_b=player(t, apart[1]))
    before = AuditEntry.objects.filter(action=AuditAction.RESTRICTION).count()
    services.pair_next_round(tournament=t)
    assert opponents_in(t, 1) == met  # the same pairing as without the restriction
    assert AuditEntry.objects.filter(action=AuditAction.RESTRICTION).count() == before


def test_when_no_pairing_keeps_them_apart_they_play_and_the_log_says_why() -> None:
    t = new_event(2)
    restrict_pairing(tournament=t, player_a=player(t, "Player 1"), player_b=player(t, "Player 2"))
    services.pair_next_round(tournament=t)
    assert opponents_in(t, 1) == {frozenset({"Player 1", "Player 2"})}
    assert sentence(last()) == (
        "Round 1: Player 1 and Player 2 paired despite their restriction (no pairing of the "
        "field kept every restricted pair apart)"
    )


def test_a_restriction_with_a_dropped_player_changes_nothing() -> None:
    t = new_event(6)
    a, b = player(t, "Player 1"), player(t, "Player 2")
    restrict_pairing(tournament=t, player_a=a, player_b=b)
    services.drop_player(player=b)
    services.pair_next_round(tournament=t)
    assert not AuditEntry.objects.filter(action=AuditAction.RESTRICTION, round=1).exists()


def test_pods_and_leagues_pair_as_before_with_restrictions() -> None:
    # Restrictions are for the Swiss engine: a pod plays everyone, a league table seats
    # by its own rule. They are stored and shown; the schedule is unchanged.
    for system in (System.POD, System.LEAGUE):
        t = new_event(6, system=system, name=f"{system} night")
        restrict_pairing(
            tournament=t, player_a=player(t, "Player 1"), player_b=player(t, "Player 2")
        )
        services.pair_next_round(tournament=t)
        assert t.rounds.exists()
        assert not AuditEntry.objects.filter(
            tournament=t, action=AuditAction.RESTRICTION, round__isnull=False
        ).exists()


def test_an_event_marked_competitive_behind_the_services_back_ignores_stored_restrictions() -> None:
    t = new_event(2)
    restrict_pairing(tournament=t, player_a=player(t, "Player 1"), player_b=player(t, "Player 2"))
    Tournament.objects.filter(pk=t.pk).update(enforcement=Enforcement.COMPETITIVE)
    t.refresh_from_db()
    assert forbidden_pairs(t) == []
    services.pair_next_round(tournament=t)
    assert not AuditEntry.objects.filter(action=AuditAction.RESTRICTION, round=1).exists()
