"""A drop during the top cut (issue 24 item 4): it concedes the player's current playoff
match (their opponent wins it 2-0, entered as a result: standings, bracket and audit log
follow), and a dropped player never has a later playoff match to play: when their match
already had a result, the opponent they would meet next wins by a walkover as that round
is paired. Both the player's own drop and the organizer's; the private page's and the
organizer's drop confirmations say what the drop concedes."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.helpers import fresh, full_recompute, stored_standings, swiss_doc
from tournaments import services
from tournaments.domain import played_bracket
from tournaments.models import (
    AuditAction,
    AuditEntry,
    Match,
    Player,
    Report,
    ReportState,
    Status,
    Tournament,
)
from tournaments.pages import reports as pages
from tournaments.pages.bracket import bracket_rounds, placings
from tournaments.services import ServiceError, reports
from tournaments.tokens import new_token, token_hash

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}

# Three Swiss rounds of eight players; the first seat wins 2-1.
ROUNDS = ["p1-p2 p3-p4 p5-p6 p7-p8", "p1-p3 p5-p7 p2-p4 p6-p8", "p1-p5 p3-p7 p2-p6 p4-p8"]
QUARTERFINALS = 4  # round number of the quarterfinals


@pytest.fixture
def cut(owner: User) -> Tournament:
    """Eight players, three Swiss rounds, the top 8 started: four quarterfinals, no result."""
    doc = swiss_doc("Top Cut Drop", ROUNDS, players=8, seed=11)
    t = services.import_document(doc, owner=owner)
    services.start_top_cut(tournament=t, size=8, by=owner)
    return fresh(t)


def table(t: Tournament, number: int, at: int) -> tuple[Match, Player, Player]:
    """A match of round `number` with its two players (first seat first)."""
    match = Match.objects.get(round__tournament=t, round__number=number, table=at)
    a, b = (s.player for s in match.seats.select_related("player").order_by("position"))
    return match, a, b


def games(match: Match) -> list[int | None]:
    return list(match.seats.order_by("position").values_list("games_won", flat=True))


def play(t: Tournament, number: int, *, skip: tuple[int, ...] = ()) -> None:
    """Every match of round `number` without a result (but tables `skip`): first seat 2-1."""
    for m in Match.objects.filter(round__tournament=t, round__number=number, reported=False):
        if m.table not in skip:
            services.record_result(match=m, wins=(2, 1))


def self_drop(player: Player, owner: User) -> None:
    reports.self_drop(player=player)


def organizer_drop(player: Player, owner: User) -> None:
    services.drop_player(player=player, by=owner)


DROPS = pytest.mark.parametrize(
    "drop", [self_drop, organizer_drop], ids=["the players own drop", "the organizers drop"]
)
Drop = Callable[[Player, User], None]


def drop_entry(t: Tournament) -> AuditEntry:
    return AuditEntry.objects.filter(tournament=t, action=AuditAction.DROP).latest("id")


# --- The current match is conceded ------------------------------------------------------


@DROPS
def test_a_drop_during_a_quarterfinal_concedes_it_to_the_opponent(
    cut: Tournament, owner: User, drop: Drop
) -> None:
    match, high, low = table(cut, QUARTERFINALS, 1)
    drop(high, owner)
    match.refresh_from_db()
    assert match.reported and games(match) == [0, 2]
    assert Player.objects.get(pk=high.pk).dropped_after_round == QUARTERFINALS
    # The bracket has the opponent through; the standings were recomputed as for any result.
    assert played_bracket(cut)[0][0].winner == low.external_id
    assert stored_standings(cut) == full_recompute(cut)
    # Audited: the drop says what it conceded, then the result itself.
    entry = drop_entry(cut)
    assert entry.after["top_cut"] == {
        "concedes": True, "match": "quarterfinal", "opponent": low.name, "score": "2-0"
    }  # fmt: skip
    result = AuditEntry.objects.filter(tournament=cut, action=AuditAction.RESULT).latest("id")
    assert result.id > entry.id and result.round == QUARTERFINALS and result.table == 1
    assert result.after["wins"] == [0, 2]


@DROPS
def test_the_second_seat_concedes_as_well(cut: Tournament, owner: User, drop: Drop) -> None:
    match, _high, low = table(cut, QUARTERFINALS, 3)
    drop(low, owner)
    match.refresh_from_db()
    assert match.reported and games(match) == [2, 0]


@DROPS
def test_a_drop_in_the_final_concedes_it_and_decides_the_event(
    cut: Tournament, owner: User, drop: Drop
) -> None:
    play(cut, QUARTERFINALS)
    services.pair_next_round(tournament=cut)
    play(cut, QUARTERFINALS + 1)
    services.pair_next_round(tournament=cut)
    final, high, low = table(cut, QUARTERFINALS + 2, 1)
    drop(low, owner)
    final.refresh_from_db()
    assert final.reported and games(final) == [2, 0]
    ranked = [p["id"] for p in placings(fresh(cut))]
    assert ranked[:2] == [high.external_id, low.external_id]
    services.finish(tournament=cut, by=owner)
    assert fresh(cut).status == Status.FINISHED


def test_an_open_report_on_the_conceded_match_gives_way(cut: Tournament, owner: User) -> None:
    match, high, low = table(cut, QUARTERFINALS, 1)
    reports.report(player=low, match=match.pk, wins_mine=2, wins_theirs=1)
    reports.self_drop(player=high)
    assert Report.objects.get(match=match).state == ReportState.OVERRIDDEN
    assert games(Match.objects.get(pk=match.pk)) == [0, 2]


@DROPS
def test_a_drop_of_a_player_out_of_the_cut_concedes_nothing(
    cut: Tournament, owner: User, drop: Drop
) -> None:
    match, _high, low = table(cut, QUARTERFINALS, 1)
    services.record_result(match=match, wins=(2, 0))  # low is out
    results = AuditEntry.objects.filter(tournament=cut, action=AuditAction.RESULT).count()
    drop(low, owner)
    assert AuditEntry.objects.filter(tournament=cut, action=AuditAction.RESULT).count() == results
    assert "top_cut" not in drop_entry(cut).after
    assert games(Match.objects.get(pk=match.pk)) == [2, 0]


# --- A result already in: the next round is a walkover -----------------------------------


@DROPS
def test_a_drop_after_winning_the_quarterfinal_gives_the_semifinal_opponent_a_walkover(
    cut: Tournament, owner: User, drop: Drop
) -> None:
    first, winner, _ = table(cut, QUARTERFINALS, 1)
    services.record_result(match=first, wins=(2, 1))
    drop(winner, owner)
    assert games(Match.objects.get(pk=first.pk)) == [2, 1]  # the result played stands
    assert drop_entry(cut).after["top_cut"]["concedes"] is False
    play(cut, QUARTERFINALS)
    _, next_opponent, _ = table(cut, QUARTERFINALS, 2)
    services.pair_next_round(tournament=cut, by=owner)
    semifinal, a, b = table(cut, QUARTERFINALS + 1, 1)
    assert {a, b} == {winner, next_opponent}
    # No match to play for the dropped player: the opponent's walkover is in at pairing.
    semifinal.refresh_from_db()
    assert semifinal.reported
    assert games(semifinal) == [2 if p == next_opponent else 0 for p in (a, b)]
    other, _, _ = table(cut, QUARTERFINALS + 1, 2)
    assert not Match.objects.get(pk=other.pk).reported
    assert stored_standings(cut) == full_recompute(cut)
    # The pairing's audit entry comes before the walkover's result.
    actions = list(
        AuditEntry.objects.filter(tournament=cut).order_by("-id").values_list("action", flat=True)
    )[:2]
    assert actions == [AuditAction.RESULT, AuditAction.PAIR]


def test_the_bracket_after_a_drop_never_pairs_the_dropped_player_again(
    cut: Tournament, owner: User
) -> None:
    first, dropped, _ = table(cut, QUARTERFINALS, 1)
    services.record_result(match=first, wins=(2, 1))
    reports.self_drop(player=dropped)
    play(cut, QUARTERFINALS)
    services.pair_next_round(tournament=cut)
    play(cut, QUARTERFINALS + 1)
    services.pair_next_round(tournament=cut)
    final, a, b = table(cut, QUARTERFINALS + 2, 1)
    assert dropped not in (a, b) and not final.reported
    services.record_result(match=final, wins=(2, 0))
    bracket = played_bracket(fresh(cut))
    assert [len(r) for r in bracket] == [4, 2, 1]
    semifinal = bracket[1][0]
    assert dropped.external_id in (semifinal.high, semifinal.low)
    assert semifinal.winner not in (None, dropped.external_id)
    # The dropped player places among the semifinal losers, not with the champion.
    ranked = [p["id"] for p in placings(fresh(cut))]
    assert ranked[0] == a.external_id and dropped.external_id in ranked[2:4]
    screen = bracket_rounds(fresh(cut))
    assert screen[1][0]["winner"].player_id != dropped.pk
    services.finish(tournament=cut, by=owner)


def test_two_dropped_players_who_would_meet_are_refused_with_a_message(
    cut: Tournament, owner: User
) -> None:
    play(cut, QUARTERFINALS)
    _, one, _ = table(cut, QUARTERFINALS, 1)
    _, two, _ = table(cut, QUARTERFINALS, 2)
    reports.self_drop(player=one)
    services.drop_player(player=two, by=owner)
    with pytest.raises(ServiceError, match="both dropped: re-admit one of them"):
        services.pair_next_round(tournament=cut, by=owner)
    services.readmit_player(player=two, by=owner)
    services.pair_next_round(tournament=cut, by=owner)
    semifinal, a, b = table(cut, QUARTERFINALS + 1, 1)
    assert semifinal.reported and {a, b} == {one, two}


# --- What the drop confirmations say -----------------------------------------------------


def link(player: Player) -> str:
    token = new_token()
    Player.objects.filter(pk=player.pk).update(token_hash=token_hash(token))
    return token


def test_the_drop_panel_says_what_a_drop_during_the_cut_concedes(cut: Tournament) -> None:
    first, high, low = table(cut, QUARTERFINALS, 1)
    shown = pages.drop_panel(Player.objects.select_related("tournament").get(pk=high.pk))
    assert shown["cut"].sentence() == (
        f"You concede your quarterfinal against {low.name}: {low.name} wins it 2-0."
    )
    services.record_result(match=first, wins=(2, 1))
    shown = pages.drop_panel(Player.objects.select_related("tournament").get(pk=high.pk))
    assert shown["cut"].sentence() == (
        "You will not play your semifinal: your opponent there advances without playing."
    )
    play(cut, QUARTERFINALS)
    _, next_opponent, _ = table(cut, QUARTERFINALS, 2)
    shown = pages.drop_panel(Player.objects.select_related("tournament").get(pk=high.pk))
    assert shown["cut"].sentence() == (
        f"You will not play your semifinal: {next_opponent.name} advances without playing."
    )
    out = pages.drop_panel(Player.objects.select_related("tournament").get(pk=low.pk))
    assert out["cut"] is None


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_the_private_drop_asks_naming_the_quarterfinal_then_concedes_it(
    cut: Tournament, htmx: bool
) -> None:
    match, high, low = table(cut, QUARTERFINALS, 1)
    token = link(high)
    client = Client()
    extra = HX if htmx else {}
    ask = client.post(f"/p/{token}/drop/", {}, **extra)
    assert ask.status_code == 200
    assert (
        f"You concede your quarterfinal against {low.name}: {low.name} wins it 2-0."
        in ask.content.decode()
    )
    assert not Match.objects.get(pk=match.pk).reported
    done = client.post(f"/p/{token}/drop/", {"confirm": "yes"}, **extra)
    if htmx:
        assert done.status_code == 200 and b'id="drop-panel"' in done.content
        assert f"You dropped after round {QUARTERFINALS}" in done.content.decode()
    else:
        assert done.status_code == 302 and done["Location"] == f"/p/{token}/"
    assert games(Match.objects.get(pk=match.pk)) == [0, 2]


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_the_organizers_drop_asks_naming_the_quarterfinal_then_concedes_it(
    oc: Client, cut: Tournament, htmx: bool
) -> None:
    match, high, low = table(cut, QUARTERFINALS, 1)
    extra = HX if htmx else {}
    # The Drop button's confirmation step (issue 26: a page, or the row in place).
    ask = oc.get(f"/t/{cut.slug}/manage/players/{high.pk}/drop/", **extra).content.decode()
    assert (
        f"{high.name} concedes the quarterfinal against {low.name}: {low.name} wins it 2-0."
    ) in ask
    assert not Match.objects.get(pk=match.pk).reported
    r = oc.post(f"/t/{cut.slug}/manage/players/{high.pk}/drop/", **extra)
    assert r.status_code == (200 if htmx else 302)
    assert games(Match.objects.get(pk=match.pk)) == [0, 2]
    # Out of the cut now: nothing left for the confirmation to warn about.
    ask = oc.get(f"/t/{cut.slug}/manage/players/{low.pk}/drop/", **extra).content.decode()
    assert f"Drop {low.name} after round {QUARTERFINALS}?" in ask and "concedes" not in ask
    again = oc.get(f"/t/{cut.slug}/manage/players/{high.pk}/drop/", **extra).content.decode()
    assert f"{high.name} has already dropped" in again and "concedes" not in again


def test_every_quarterfinalist_s_drop_button_says_what_it_concedes(
    oc: Client, cut: Tournament
) -> None:
    asked = [
        oc.get(f"/t/{cut.slug}/manage/players/{p.pk}/drop/").content.decode()
        for p in cut.players.all()
    ]
    assert sum("concedes the quarterfinal against" in page for page in asked) == 8
