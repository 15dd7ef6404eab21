"""Judge calls (issue 27), the screens: the player's "Call a judge" on their private page
and the judges' screen, each plain (no JavaScript: POST, redirect) and for htmx (the
section again); refusals with their message and status; who may open each endpoint."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from tournaments import services
from tournaments.models import CallState, JudgeCall, Match, MatchKind, Player, StaffRole, Tournament
from tournaments.services import calls
from tournaments.services.registration import issue_link

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
NAMES = ["Ana Souza", "Ben Ito", "Cleo Park", "Dev Rao", "Eva Lund"]
ROLES = ["owner", "scorekeeper", "head_judge", "floor_judge", "stranger", "anonymous"]
TEAM = ROLES[:4]


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def team(django_user_model: Any, owner: Any) -> dict[str, Any]:
    t = services.create_tournament(name="Calls Open", owner=owner, seed=3)
    services.register_players(tournament=t, names=NAMES)
    services.pair_next_round(tournament=t)
    people: dict[str, Any] = {"t": t, "owner": owner}
    for role in StaffRole:
        user = django_user_model.objects.create_user(role.value)
        services.add_staff(tournament=t, username=user.username, role=role, by=owner)
        people[role.value] = user
    people["stranger"] = django_user_model.objects.create_user("stranger")
    return people


def at_table(t: Tournament, table: int = 1) -> Player:
    match = Match.objects.get(round__tournament=t, round__number=1, table=table)
    return match.seats.order_by("position").first().player  # type: ignore[union-attr]


def link(player: Player) -> str:
    token = issue_link(player=player)
    player.refresh_from_db()
    return token


def client_of(people: dict[str, Any], role: str) -> Client:
    client = Client()
    if role != "anonymous":
        client.force_login(people[role])
    return client


def text(response: Any) -> str:
    html = response.content.decode()
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


# --- The player's page ------------------------------------------------------------------------


def test_a_player_with_a_table_sees_the_button_and_a_player_with_the_bye_does_not(
    team: dict[str, Any], client: Client
) -> None:
    t = team["t"]
    seated = link(at_table(t))
    bye = Match.objects.get(round__tournament=t, kind=MatchKind.BYE).seats.get().player
    page = client.get(f"/p/{seated}/")
    assert "Call a judge" in text(page) and 'id="private-call"' in page.content.decode()
    assert "Call a judge" not in text(client.get(f"/p/{link(bye)}/"))


def test_calling_without_javascript_posts_and_comes_back_to_a_page_that_says_waiting(
    team: dict[str, Any], client: Client
) -> None:
    ana = at_table(team["t"])
    token = link(ana)
    response = client.post(f"/p/{token}/call/", {"note": "missed trigger"})
    assert response.status_code == 302 and response["Location"] == f"/p/{token}/"
    assert response["Cache-Control"] == "private, no-store"
    page = text(client.get(f"/p/{token}/"))
    assert "Waiting for a judge (table 1)" in page and "missed trigger" in page
    assert "Call a judge" not in page
    assert JudgeCall.objects.get().player == ana


def test_calling_with_htmx_answers_the_call_panel_saying_waiting(
    team: dict[str, Any], client: Client
) -> None:
    token = link(at_table(team["t"]))
    response = client.post(f"/p/{token}/call/", {"note": ""}, **HX)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.startswith('<section id="private-call"') or 'id="private-call"' in html[:400]
    assert "<html" not in html and "Waiting for a judge (table 1)" in text(response)


def test_once_claimed_the_players_page_names_the_judge_on_the_way_and_then_says_resolved(
    team: dict[str, Any], client: Client
) -> None:
    ana = at_table(team["t"])
    token = link(ana)
    call = calls.call_judge(player=ana)
    calls.claim_call(call=call, by=team["floor_judge"])
    live = client.get(f"/p/{token}/", HTTP_HX_TARGET="private-call", **HX)
    assert "A judge is on the way: floor_judge" in text(live)
    assert "<html" not in live.content.decode() and live["ETag"]
    calls.resolve_call(call=call, by=team["floor_judge"])
    after = text(client.get(f"/p/{token}/"))
    assert "Your table's last call: resolved by floor_judge." in after
    assert "Call a judge" in after


def test_the_opponent_sees_the_tables_call_and_calling_again_shows_it_instead(
    team: dict[str, Any], client: Client
) -> None:
    t = team["t"]
    match = Match.objects.get(round__tournament=t, round__number=1, table=1)
    a, b = (s.player for s in match.seats.select_related("player").order_by("position"))
    calls.call_judge(player=a)
    token = link(b)
    assert "Your opponent called the judge" in text(client.get(f"/p/{token}/"))
    response = client.post(f"/p/{token}/call/", {}, **HX)
    assert response.status_code == 200
    assert "A judge is called for your table already" in text(response)
    plain = client.post(f"/p/{token}/call/", {})
    assert plain.status_code == 302
    assert "A judge is called for your table already" in text(client.get(plain["Location"]))
    assert JudgeCall.objects.count() == 1


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_a_refused_call_says_why_with_422_and_keeps_the_note(
    team: dict[str, Any], client: Client, headers: dict[str, str]
) -> None:
    token = link(at_table(team["t"]))
    response = client.post(f"/p/{token}/call/", {"note": "a" * 201}, **headers)
    assert response.status_code == 422
    assert "The note is longer than 200 characters" in text(response)
    assert 'value="' + "a" * 201 in response.content.decode()
    assert ("<html" in response.content.decode()) is not bool(headers)
    assert not JudgeCall.objects.exists()


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_button_mashing_is_answered_429_with_how_long_to_wait(
    team: dict[str, Any], client: Client, headers: dict[str, str]
) -> None:
    ana = at_table(team["t"])
    token = link(ana)
    for _ in range(calls.CALL_TOKEN_LIMIT):
        client.post(f"/p/{token}/call/", {}, **headers)
    response = client.post(f"/p/{token}/call/", {}, **headers)
    assert response.status_code == 429 and int(response["Retry-After"]) > 0
    assert "Too many judge calls from this link" in text(response)
    assert response["Cache-Control"] == "private, no-store"


def test_a_player_with_the_bye_who_posts_anyway_is_refused_with_422(
    team: dict[str, Any], client: Client
) -> None:
    bye = Match.objects.get(round__tournament=team["t"], kind=MatchKind.BYE).seats.get().player
    response = client.post(f"/p/{link(bye)}/call/", {}, **HX)
    assert response.status_code == 422 and "You have no table in round 1" in text(response)


@pytest.mark.parametrize("role", ROLES)
def test_a_bad_link_is_not_found_whoever_asks(team: dict[str, Any], role: str) -> None:
    response = client_of(team, role).post("/p/not-a-real-token/call/", {})
    assert response.status_code == 404
    assert "This private link is not valid" in text(response)
    assert not JudgeCall.objects.exists()


@pytest.mark.parametrize("role", ROLES)
def test_a_players_own_link_calls_whoever_is_logged_in(team: dict[str, Any], role: str) -> None:
    token = link(at_table(team["t"]))
    response = client_of(team, role).post(f"/p/{token}/call/", {})
    assert response.status_code == 302 and JudgeCall.objects.count() == 1


def test_getting_the_call_endpoint_is_not_allowed(team: dict[str, Any], client: Client) -> None:
    token = link(at_table(team["t"]))
    assert client.get(f"/p/{token}/call/").status_code == 405


# --- The judges' screen -----------------------------------------------------------------------


def test_the_judges_screen_lists_open_calls_oldest_first_with_table_players_note_and_wait(
    team: dict[str, Any],
) -> None:
    t = team["t"]
    first = calls.call_judge(player=at_table(t, 2), note="slow play?")
    calls.call_judge(player=at_table(t, 1))
    page = client_of(team, "floor_judge").get(f"/t/{t.slug}/judge/")
    assert page.status_code == 200
    html, words = page.content.decode(), text(page)
    assert html.index('data-table="2"') < html.index('data-table="1"')
    seated = [s.player.name for s in first.player.seats.get().match.seats.order_by("position")]
    assert f"{seated[0]} vs {seated[1]}" in words
    assert "“slow play?”" in words and "just now" in words and "Waiting for a judge" in words
    assert f'data-live="/t/{t.slug}/live/?floor=1"' in html
    assert 'id="floor-links"' in html and f"/t/{t.slug}/judge/" in html  # the refresh link


def test_the_judges_screen_gives_its_script_the_waits_words_in_the_readers_language(
    team: dict[str, Any],
) -> None:
    """calls.js counts each call's wait on from these, so the wait stays in German."""
    t = team["t"]
    calls.call_judge(player=at_table(t, 2))
    page = client_of(team, "floor_judge").get(f"/t/{t.slug}/judge/", HTTP_ACCEPT_LANGUAGE="de")
    body = page.content.decode()
    assert 'data-wait-now="gerade eben"' in body
    assert 'data-wait-minutes="%(minutes)s Min."' in body
    english = client_of(team, "floor_judge").get(f"/t/{t.slug}/judge/").content.decode()
    assert 'data-wait-now="just now"' in english
    assert 'data-wait-hours="%(hours)s h %(minutes)s min"' in english


def test_the_head_judges_screen_shows_calls_handed_up_first_and_marked(
    team: dict[str, Any],
) -> None:
    t = team["t"]
    calls.call_judge(player=at_table(t, 1))
    handed = calls.call_judge(player=at_table(t, 2))
    calls.hand_to_head(call=handed, by=team["floor_judge"])
    head = client_of(team, "head_judge").get(f"/t/{t.slug}/judge/").content.decode()
    assert head.index('data-table="2"') < head.index('data-table="1"')
    assert 'class="call handed unclaimed"' in head and "Head judge</span>" in head
    floor = client_of(team, "floor_judge").get(f"/t/{t.slug}/judge/").content.decode()
    assert floor.index('data-table="1"') < floor.index('data-table="2"')  # oldest first
    assert "Waiting for the head judge" in floor
    # A floor judge may not take it: no Claim button on that call for them.
    table_two = floor[floor.index('data-table="2"') :]
    assert "/claim/" not in table_two.split("</article>")[0]


def test_the_judges_screen_for_htmx_is_the_section_alone(team: dict[str, Any]) -> None:
    t = team["t"]
    calls.call_judge(player=at_table(t, 1))
    response = client_of(team, "floor_judge").get(f"/t/{t.slug}/judge/", **HX)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert html.lstrip().startswith('<section id="judge-calls"')


def test_claiming_without_javascript_redirects_to_the_screen_which_says_who_has_it(
    team: dict[str, Any],
) -> None:
    t = team["t"]
    call = calls.call_judge(player=at_table(t, 1))
    judge = client_of(team, "floor_judge")
    response = judge.post(f"/t/{t.slug}/judge/calls/{call.pk}/claim/")
    assert response.status_code == 302 and response["Location"] == f"/t/{t.slug}/judge/"
    page = text(judge.get(response["Location"]))
    assert "Table 1: the call is yours." in page and "You have this call" in page
    other = text(client_of(team, "head_judge").get(f"/t/{t.slug}/judge/"))
    assert "floor_judge has this call" in other


def test_claiming_with_htmx_answers_the_section_and_a_second_claim_is_422_naming_the_judge(
    team: dict[str, Any],
) -> None:
    t = team["t"]
    call = calls.call_judge(player=at_table(t, 1))
    url = f"/t/{t.slug}/judge/calls/{call.pk}/claim/"
    first = client_of(team, "floor_judge").post(url, **HX)
    assert first.status_code == 200 and "You have this call" in text(first)
    second = client_of(team, "scorekeeper").post(url, **HX)
    assert second.status_code == 422
    assert "floor_judge has this call already" in text(second)
    session = client_of(team, "scorekeeper")  # plain: the message follows the redirect
    assert session.post(url).status_code == 302
    assert "floor_judge has this call already" in text(session.get(f"/t/{t.slug}/judge/"))


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_handing_up_releasing_and_resolving_from_the_screen(
    team: dict[str, Any], headers: dict[str, str]
) -> None:
    t = team["t"]
    call = calls.call_judge(player=at_table(t, 1))
    judge, head = client_of(team, "floor_judge"), client_of(team, "head_judge")
    base = f"/t/{t.slug}/judge/calls/{call.pk}"
    assert judge.post(f"{base}/claim/", **headers).status_code in (200, 302)
    assert judge.post(f"{base}/release/", **headers).status_code in (200, 302)
    assert JudgeCall.objects.get().state == CallState.OPEN
    handed = judge.post(f"{base}/head/", **headers)
    assert handed.status_code in (200, 302)
    assert JudgeCall.objects.get().state == CallState.HEAD
    refused = judge.post(f"{base}/resolve/", {"resolution": "done"}, **headers)
    if headers:
        assert refused.status_code == 422
        assert "only the head judge or the organizer resolves it" in text(refused)
    else:
        assert refused.status_code == 302
    done = head.post(f"{base}/resolve/", {"resolution": "warning for looking"}, **headers)
    assert done.status_code in (200, 302)
    stored = JudgeCall.objects.get()
    assert (stored.state, stored.resolution) == (CallState.RESOLVED, "warning for looking")
    page = text(head.get(f"/t/{t.slug}/judge/"))
    assert "No open calls." in page
    assert "resolved by head_judge: “warning for looking”" in page


@pytest.mark.parametrize("headers", [{}, HX], ids=["plain", "htmx"])
def test_a_judge_opens_a_call_for_a_table_and_a_bad_table_is_refused_with_422(
    team: dict[str, Any], headers: dict[str, str]
) -> None:
    t = team["t"]
    judge = client_of(team, "floor_judge")
    url = f"/t/{t.slug}/judge/calls/new/"
    bad = judge.post(url, {"table": "twelve", "note": "look"}, **headers)
    assert bad.status_code == 422 and "Give the table as a number" in text(bad)
    assert 'value="twelve"' in bad.content.decode()
    missing = judge.post(url, {"table": "9"}, **headers)
    assert missing.status_code == 422 and "There is no table 9 in round 1" in text(missing)
    opened = judge.post(url, {"table": "2", "note": "slow play"}, **headers)
    assert opened.status_code == (200 if headers else 302)
    if headers:  # the form again, and the calls out of band with the new one
        assert 'hx-swap-oob="outerHTML"' in opened.content.decode()
        assert (
            "Table 2: call opened." in text(opened) and 'data-table="2"' in opened.content.decode()
        )
    assert JudgeCall.objects.get().table == 2


def test_a_call_of_another_event_is_not_found_on_this_ones_screen(
    team: dict[str, Any], owner: Any
) -> None:
    call = calls.call_judge(player=at_table(team["t"], 1))
    other = services.create_tournament(name="Elsewhere", owner=owner, seed=2)
    response = client_of(team, "owner").post(f"/t/{other.slug}/judge/calls/{call.pk}/claim/")
    assert response.status_code == 404


# --- Who may open each judges' endpoint --------------------------------------------------------

JUDGE_ENDPOINTS = ["judge_floor", "judge_open_call", "judge_claim_call", "judge_release_call",
                   "judge_hand_call", "judge_resolve_call"]  # fmt: skip


def _request(people: dict[str, Any], role: str, name: str, call: JudgeCall) -> Any:
    t = people["t"]
    kwargs: dict[str, Any] = {"slug": t.slug}
    if name not in ("judge_floor", "judge_open_call"):
        kwargs["pk"] = call.pk
    url = reverse(name, kwargs=kwargs)
    client = client_of(people, role)
    if name == "judge_floor":
        return client.get(url)
    return client.post(url, {"table": "2", "resolution": "ok"})


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", JUDGE_ENDPOINTS)
def test_every_judges_endpoint_is_the_floor_teams_alone(
    team: dict[str, Any], role: str, name: str
) -> None:
    call = calls.call_judge(player=at_table(team["t"], 1))
    before = list(JudgeCall.objects.values_list("state", "judge_id"))
    response = _request(team, role, name, call)
    if role in TEAM:
        assert response.status_code in (200, 302)
        assert response.status_code == 200 or response["Location"] == f"/t/{team['t'].slug}/judge/"
    elif role == "stranger":
        assert response.status_code == 403
        assert list(JudgeCall.objects.values_list("state", "judge_id")) == before
    else:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
        assert list(JudgeCall.objects.values_list("state", "judge_id")) == before


def test_the_permission_cases_cover_every_url_of_this_module() -> None:
    from tournaments.urls_calls import urlpatterns

    names = {p.name for p in urlpatterns}  # type: ignore[union-attr]
    assert names == {*JUDGE_ENDPOINTS, "private_call"}
