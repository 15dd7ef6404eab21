"""The judges' penalty screens (issue 27): the screen and its actions, plain and with HTMX,
the printable report, and who may open each endpoint."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tournaments import services
from tournaments.models import Match, Penalty, PenaltyKind, Seat, StaffRole, Tournament
from tournaments.services.penalties import issue_penalty

pytestmark = pytest.mark.django_db

HX = {"HX-Request": "true"}


@pytest.fixture
def team(django_user_model: Any, owner: Any) -> dict[str, Any]:
    t = services.create_tournament(name="Floor Open", owner=owner, seed=3)
    services.register_players(tournament=t, names=[f"Player {i}" for i in range(1, 9)])
    services.pair_next_round(tournament=t)
    people: dict[str, Any] = {"t": Tournament.objects.get(pk=t.pk), "owner": owner}
    for role in StaffRole:
        user = django_user_model.objects.create_user(role.value)
        services.add_staff(tournament=t, username=user.username, role=role, by=owner)
        people[role.value] = user
    people["stranger"] = django_user_model.objects.create_user("stranger")
    return people


def client_of(user: Any) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def at_table(t: Tournament, number: int) -> list[Seat]:
    match = Match.objects.get(round__tournament=t, round__number=1, table=number)
    return list(match.seats.select_related("player").order_by("position"))


def screen(t: Tournament) -> str:
    return reverse("judge_penalties", args=[t.slug])


def issue_url(t: Tournament) -> str:
    return reverse("judge_penalty_issue", args=[t.slug])


# --- The screen --------------------------------------------------------------------------


def test_the_screen_offers_the_form_grouped_by_class_and_the_list(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    page = client_of(team["floor_judge"]).get(screen(t))
    assert page.status_code == 200
    html = page.content.decode()
    assert "<html" in html and 'id="penalties-panel"' in html
    for group in ("Game Play Errors", "Tournament Errors", "Unsporting Conduct"):
        assert f'<optgroup label="{group}">' in html
    assert "Tardiness (3.1) · Game Loss" in html
    assert "Missed Trigger (2.1) · No penalty" in html
    assert "Player 1 · table" in html
    assert 'value="dq"' not in html  # a floor judge never disqualifies
    assert "No penalty yet." in html
    assert reverse("print_penalties", args=[t.slug]) in html


def test_the_screen_for_htmx_is_its_panel(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    page = client_of(team["floor_judge"]).get(screen(t), headers=HX)
    html = page.content.decode()
    assert page.status_code == 200 and "<html" not in html
    assert html.lstrip().startswith('<section id="penalties-panel"')


def test_the_head_judge_is_offered_the_disqualification(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    html = client_of(team["head_judge"]).get(screen(t)).content.decode()
    assert '<option value="dq">Disqualification</option>' in html


@pytest.mark.parametrize("htmx", [False, True])
def test_a_table_number_narrows_the_players_to_that_table(team: dict[str, Any], htmx: bool) -> None:
    t: Tournament = team["t"]
    a, b = at_table(t, 2)
    html = (
        client_of(team["floor_judge"])
        .get(screen(t), {"table": "2"}, headers=HX if htmx else {})
        .content.decode()
    )
    options = [line for line in html.split("<option") if "· table" in line]
    assert len(options) == 2
    assert a.player.name in html and b.player.name in html
    missing = client_of(team["floor_judge"]).get(screen(t), {"table": "99"}).content.decode()
    assert "No player still in the event sits at table 99" in missing


@pytest.mark.parametrize("htmx", [False, True])
def test_a_judge_issues_a_warning(team: dict[str, Any], htmx: bool) -> None:
    t: Tournament = team["t"]
    player = at_table(t, 1)[0].player
    form = {"player": str(player.pk), "infraction": "slow_play", "penalty": "", "note": "Tanked"}
    response = client_of(team["floor_judge"]).post(issue_url(t), form, headers=HX if htmx else {})
    penalty = Penalty.objects.get()
    assert (penalty.player, penalty.penalty, penalty.note) == (player, "warning", "Tanked")
    done = f"Warning for {player.name} (Slow Play)."
    if htmx:
        assert response.status_code == 200 and "<html" not in response.content.decode()
        assert done in response.content.decode()
    else:
        assert response.status_code == 302 and response["Location"].startswith(screen(t))
        followed = client_of(team["floor_judge"]).get(screen(t)).content.decode()
        assert f"{player.name}</a> · Slow Play (IPG 3.3)" in followed


@pytest.mark.parametrize("htmx", [False, True])
def test_a_match_loss_from_the_screen_enters_the_result(team: dict[str, Any], htmx: bool) -> None:
    t: Tournament = team["t"]
    loser = at_table(t, 3)[1].player
    form = {"player": str(loser.pk), "infraction": "outside_assistance", "penalty": ""}
    client = client_of(team["floor_judge"])
    response = client.post(issue_url(t), form, headers=HX if htmx else {}, follow=not htmx)
    assert response.status_code == 200
    assert (
        f"Match Loss for {loser.name} (Outside Assistance): table 3 entered, {loser.name} loses 0-2."
        in (response.content.decode())
    )
    assert [s.games_won for s in at_table(t, 3)] == [2, 0]


@pytest.mark.parametrize("htmx", [False, True])
def test_a_refusal_answers_422_naming_the_problem_and_keeping_the_typing(
    team: dict[str, Any], htmx: bool
) -> None:
    t: Tournament = team["t"]
    player = at_table(t, 1)[0].player
    form = {"player": str(player.pk), "infraction": "missed_trigger", "penalty": "",
            "note": "Forgot the upkeep trigger"}  # fmt: skip
    response = client_of(team["floor_judge"]).post(issue_url(t), form, headers=HX if htmx else {})
    html = response.content.decode()
    assert response.status_code == 422
    assert "Missed Trigger carries no penalty (IPG 2.1)" in html
    assert "Forgot the upkeep trigger</textarea>" in html
    assert '<option value="missed_trigger" selected>' in html
    assert f'<option value="{player.pk}" selected>' in html
    assert ("<html" in html) is not htmx
    nobody = client_of(team["floor_judge"]).post(issue_url(t), {"infraction": "slow_play"})
    assert nobody.status_code == 422 and "Pick the player to penalize" in nobody.content.decode()
    assert not Penalty.objects.exists()


def test_a_floor_judge_posting_a_disqualification_is_forbidden(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    player = at_table(t, 1)[0].player
    form = {"player": str(player.pk), "infraction": "cheating", "penalty": "dq"}
    for role in ("floor_judge", "scorekeeper"):
        assert client_of(team[role]).post(issue_url(t), form).status_code == 403
    # The infraction's own penalty is a disqualification too: refused by the service.
    response = client_of(team["floor_judge"]).post(issue_url(t), {**form, "penalty": ""})
    assert response.status_code == 422
    assert "Only the head judge or the organizer disqualifies" in response.content.decode()
    assert not Penalty.objects.exists()
    assert client_of(team["head_judge"]).post(issue_url(t), form).status_code == 302
    player.refresh_from_db()
    assert player.dropped


@pytest.mark.parametrize("htmx", [False, True])
def test_a_players_history_lists_their_penalties_only(team: dict[str, Any], htmx: bool) -> None:
    t: Tournament = team["t"]
    ana, ben = at_table(t, 1)[0].player, at_table(t, 2)[0].player
    for infraction in ("slow_play", "marked_cards"):
        issue_penalty(tournament=t, player=ana, infraction=infraction, penalty=None,
                      by=team["owner"])  # fmt: skip
    issue_penalty(tournament=t, player=ben, infraction="tardiness", penalty=None, by=team["owner"])
    html = (
        client_of(team["floor_judge"])
        .get(screen(t), {"player": str(ana.pk)}, headers=HX if htmx else {})
        .content.decode()
    )
    assert f"Penalties of {ana.name}" in html
    assert html.count('<li id="penalty-') == 2
    # Newest first.
    assert html.index("Marked Cards (IPG 3.8)") < html.index("Slow Play (IPG 3.3)")
    assert "Tardiness (IPG 3.1)" not in html


@pytest.mark.parametrize("htmx", [False, True])
def test_a_penalty_entered_by_mistake_is_withdrawn(team: dict[str, Any], htmx: bool) -> None:
    t: Tournament = team["t"]
    penalty = issue_penalty(tournament=t, player=at_table(t, 1)[0].player,
                            infraction="slow_play", penalty=None, by=team["owner"])  # fmt: skip
    url = reverse("judge_penalty_withdraw", args=[t.slug, penalty.pk])
    response = client_of(team["floor_judge"]).post(url, headers=HX if htmx else {})
    assert response.status_code == (200 if htmx else 302)
    assert not Penalty.objects.exists()
    again = client_of(team["floor_judge"]).post(url, headers=HX if htmx else {})
    assert again.status_code == 422 and "not in this event" in again.content.decode()


@pytest.mark.parametrize("htmx", [False, True])
def test_the_printed_report_lists_every_penalty_without_navigation(
    team: dict[str, Any], htmx: bool
) -> None:
    t: Tournament = team["t"]
    player = at_table(t, 2)[1].player
    issue_penalty(tournament=t, player=player, infraction="decklist_problem", penalty=None,
                  note="40 cards listed, 41 in the deck", by=team["floor_judge"])  # fmt: skip
    response = client_of(team["floor_judge"]).get(
        reverse("print_penalties", args=[t.slug]), headers=HX if htmx else {}
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "Penalty report" in html and "Decklist Problem (IPG 3.4)" in html
    assert "40 cards listed, 41 in the deck" in html and "Game Loss: 1" in html
    assert 'class="site"' not in html  # no site header: print.css pages only
    if htmx:
        assert "<html" not in html
    else:
        assert "css/print.css" in html
        assert reverse("manage_event", args=[t.slug]) not in html  # a judge cannot open it


def test_the_round_screen_row_and_match_form_show_a_game_loss(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    seats = at_table(t, 4)
    issue_penalty(tournament=t, player=seats[0].player, infraction="tardiness", penalty=None,
                  by=team["floor_judge"])  # fmt: skip
    client = client_of(team["floor_judge"])
    note = f"Game loss: {seats[0].player.name} (Tardiness)"
    assert note in client.get(reverse("manage_round", args=[t.slug, 1])).content.decode()
    match_url = reverse("manage_match", args=[t.slug, seats[0].match_id])
    assert note in client.get(match_url).content.decode()
    assert note in client.get(match_url, headers=HX).content.decode()


def test_the_judge_nav_links_to_the_penalties(team: dict[str, Any]) -> None:
    t: Tournament = team["t"]
    html = client_of(team["floor_judge"]).get(reverse("manage_round", args=[t.slug, 1]))
    assert screen(t) in html.content.decode()


# --- Who may open what ----------------------------------------------------------------


ROLES = ["owner", "scorekeeper", "head_judge", "floor_judge", "stranger", "anonymous"]


@pytest.mark.parametrize("role", ROLES)
def test_every_penalty_endpoint_is_for_the_floor_team_only(team: dict[str, Any], role: str) -> None:
    t: Tournament = team["t"]
    user = team.get(role)
    client = client_of(user)
    player = at_table(t, 1)[0].player
    penalty = issue_penalty(tournament=t, player=at_table(t, 2)[0].player,
                            infraction="slow_play", penalty=None, by=team["owner"])  # fmt: skip
    on_team = role not in ("stranger", "anonymous")
    requests = [
        ("get", screen(t), {}, 200),
        ("get", reverse("print_penalties", args=[t.slug]), {}, 200),
        ("post", issue_url(t), {"player": str(player.pk), "infraction": "slow_play"}, 302),
        ("post", reverse("judge_penalty_withdraw", args=[t.slug, penalty.pk]), {}, 302),
    ]
    for method, url, data, allowed in requests:
        response = getattr(client, method)(url, data)
        if role == "anonymous":
            assert response.status_code == 302 and "/accounts/login/" in response["Location"], url
        elif not on_team:
            assert response.status_code == 403, url
        else:
            assert response.status_code == allowed, url
    expected = 1 if on_team else 0  # the issued warning; the fixture's one was withdrawn
    assert Penalty.objects.exclude(pk=penalty.pk).count() == expected
    assert Penalty.objects.filter(pk=penalty.pk).exists() is not on_team


@pytest.mark.parametrize("role", ROLES)
def test_only_the_head_judge_and_the_organizer_disqualify(team: dict[str, Any], role: str) -> None:
    t: Tournament = team["t"]
    player = at_table(t, 1)[0].player
    form = {"player": str(player.pk), "infraction": "cheating", "penalty": "dq"}
    response = client_of(team.get(role)).post(issue_url(t), form)
    if role in ("owner", "head_judge"):
        assert response.status_code == 302
        assert Penalty.objects.get().penalty == PenaltyKind.DISQUALIFICATION
    elif role == "anonymous":
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
        assert not Penalty.objects.exists()
    else:
        assert response.status_code == 403
        assert not Penalty.objects.exists()


def test_the_screen_of_another_event_is_not_shown_to_its_judges(
    team: dict[str, Any], owner: Any
) -> None:
    other = services.create_tournament(name="Other Open", owner=owner, seed=4)
    assert client_of(team["head_judge"]).get(screen(other)).status_code == 403
    assert (
        client_of(team["head_judge"]).get(reverse("judge_penalties", args=["nope"])).status_code
        == 404
    )
