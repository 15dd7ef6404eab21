"""Decklists' screens (issue 28): the player's section and form (plain and HTMX, files,
refusals, the lock), the organizer's screen and its actions and exports, a judge's deck
check view and edit, the published lists; who may open each endpoint; and no list on
any public page or in the API before the organizer publishes."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tournaments import services
from tournaments.models import (
    AuditAction,
    AuditEntry,
    Decklist,
    Match,
    MatchKind,
    Player,
    StaffRole,
    Tournament,
)
from tournaments.services.decklists import publish_decklists, set_decklist_rules, submit_decklist
from tournaments.services.registration import issue_link

pytestmark = pytest.mark.django_db

HX = {"HX-Request": "true"}
LEGAL = "4 Lightning Bolt\n56 Mountain\n\nSideboard\n2 Fire // Ice\n13 Mountain\n"
SHORT = "4 Lightning Bolt\n50 Mountain\n"
ROLES = ["owner", "scorekeeper", "head_judge", "floor_judge", "stranger", "anonymous"]
MANAGERS = {"owner", "scorekeeper"}
FLOOR = {"owner", "scorekeeper", "head_judge", "floor_judge"}


@pytest.fixture
def team(django_user_model: Any, owner: Any) -> dict[str, Any]:
    t = services.create_tournament(name="Deck Open", owner=owner, seed=3, time_zone="Europe/Paris")
    services.register_players(tournament=t, names=[f"Player {i}" for i in range(1, 9)])
    set_decklist_rules(tournament=t, deck_format="modern", deadline=None, by=owner)
    people: dict[str, Any] = {"t": Tournament.objects.get(pk=t.pk), "owner": owner}
    for role in StaffRole:
        user = django_user_model.objects.create_user(role.value)
        services.add_staff(tournament=t, username=user.username, role=role, by=owner)
        people[role.value] = user
    people["stranger"] = django_user_model.objects.create_user("stranger")
    people["anonymous"] = None
    return people


def client_of(user: Any) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def first(t: Tournament) -> Player:
    return t.players.order_by("pk").first()  # type: ignore[return-value]


def token_of(player: Player) -> str:
    return issue_link(player=player)


def deck_url(token: str) -> str:
    return reverse("private_decklist", args=[token])


def fresh(t: Tournament) -> Tournament:
    return Tournament.objects.get(pk=t.pk)


# --- The player's section ----------------------------------------------------------------


def test_the_private_page_has_the_decklist_section_with_its_form(team: dict[str, Any]) -> None:
    token = token_of(first(team["t"]))
    html = Client().get(reverse("private_page", args=[token])).content.decode()
    assert 'id="decklist-panel"' in html and "No decklist registered yet." in html
    assert f'action="{deck_url(token)}"' in html and 'enctype="multipart/form-data"' in html
    assert "you may edit it until round 1 is paired" in html
    assert "Card names are not checked" in html  # no card data loaded


def test_an_event_without_decklists_has_no_section_and_no_form(
    team: dict[str, Any], owner: Any
) -> None:
    t = team["t"]
    set_decklist_rules(tournament=t, deck_format="", deadline=None, by=owner)
    token = token_of(first(t))
    html = Client().get(reverse("private_page", args=[token])).content.decode()
    assert "decklist-panel" not in html
    assert Client().get(deck_url(token)).status_code == 404


def test_the_decklist_page_and_its_panel(team: dict[str, Any]) -> None:
    token = token_of(first(team["t"]))
    page = Client().get(deck_url(token))
    assert page.status_code == 200 and "<html" in page.content.decode()
    assert page["Cache-Control"] == "private, no-store"
    panel = Client().get(deck_url(token), headers=HX)
    html = panel.content.decode()
    assert panel.status_code == 200 and "<html" not in html
    assert html.startswith('<section id="decklist-panel"')


def test_a_pasted_list_registers_and_the_plain_form_goes_back_to_the_private_page(
    team: dict[str, Any],
) -> None:
    player = first(team["t"])
    token = token_of(player)
    client = Client()
    answer = client.post(deck_url(token), {"text": LEGAL})
    assert answer.status_code == 302
    assert answer["Location"] == reverse("private_page", args=[token]) + "#decklist-panel"
    assert Decklist.objects.get(player=player).legal
    html = client.get(answer["Location"]).content.decode()
    assert "Your decklist is registered: it is legal." in html
    assert 'data-state="legal"' in html and "60 cards in the main deck, 15 in the sideboard" in html


def test_a_pasted_list_with_htmx_answers_the_panel_with_its_problems(
    team: dict[str, Any],
) -> None:
    token = token_of(first(team["t"]))
    answer = Client().post(deck_url(token), {"text": SHORT}, headers=HX)
    html = answer.content.decode()
    assert answer.status_code == 200 and html.startswith('<section id="decklist-panel"')
    assert 'data-state="illegal"' in html
    assert "the main deck has 54 cards: at least 60 are needed" in html
    assert "4 Lightning Bolt\n50 Mountain" in html  # the form holds the list to fix


@pytest.mark.parametrize("htmx", [False, True])
def test_an_empty_list_is_refused_with_422_and_the_message(
    team: dict[str, Any], htmx: bool
) -> None:
    token = token_of(first(team["t"]))
    answer = Client().post(deck_url(token), {"text": "  "}, headers=HX if htmx else {})
    html = answer.content.decode()
    assert answer.status_code == 422
    assert "The list is empty" in html and ("<html" in html) != htmx
    assert not Decklist.objects.exists()


def test_a_refused_list_is_kept_in_the_form(team: dict[str, Any]) -> None:
    token = token_of(first(team["t"]))
    answer = Client().post(deck_url(token), {"text": "nothing\nreadable here"}, headers=HX)
    assert answer.status_code == 422
    assert "nothing\nreadable here</textarea>" in answer.content.decode()


def test_a_txt_file_registers(team: dict[str, Any]) -> None:
    player = first(team["t"])
    token = token_of(player)
    upload = SimpleUploadedFile("deck.txt", LEGAL.encode(), content_type="text/plain")
    answer = Client().post(deck_url(token), {"text": "", "file": upload})
    assert answer.status_code == 302
    assert Decklist.objects.get(player=player).main == [[4, "Lightning Bolt"], [56, "Mountain"]]


@pytest.mark.parametrize(
    ("name", "data", "said"),
    [
        ("deck.pdf", b"%PDF-1.4", "is not a decklist file"),
        ("deck.txt", b"1 Mountain\n" * 7000, "at most 64 kB"),
        ("deck.dek", b"<Deck><Cards Quantity=", "This .dek file could not be used"),
        ("deck.txt", b"\x00\x01\x02", "not a text file"),
    ],
)
@pytest.mark.parametrize("htmx", [False, True])
def test_a_bad_file_gets_a_message_never_a_500(
    team: dict[str, Any], name: str, data: bytes, said: str, htmx: bool
) -> None:
    token = token_of(first(team["t"]))
    upload = SimpleUploadedFile(name, data)
    answer = Client().post(deck_url(token), {"file": upload}, headers=HX if htmx else {})
    assert answer.status_code == 422
    assert said in answer.content.decode()


def test_after_round_1_is_paired_the_section_is_locked_and_a_post_refused(
    team: dict[str, Any],
) -> None:
    t = team["t"]
    player = first(t)
    token = token_of(player)
    Client().post(deck_url(token), {"text": SHORT})
    services.pair_next_round(tournament=t)
    html = Client().get(reverse("private_page", args=[token])).content.decode()
    assert "Your list is locked as registered. To change it, see a judge." in html
    assert f'action="{deck_url(token)}"' not in html
    answer = Client().post(deck_url(token), {"text": LEGAL}, headers=HX)
    assert answer.status_code == 422 and "Decklists are locked" in answer.content.decode()
    assert Decklist.objects.get(player=player).text == SHORT


def test_the_deadline_shows_in_the_events_time_zone(team: dict[str, Any], owner: Any) -> None:
    t = team["t"]
    client = client_of(owner)
    client.post(
        reverse("manage_decklist_rules", args=[t.slug]),
        {"format": "modern", "deadline": "2099-05-02T10:00"},
    )
    token = token_of(first(t))
    html = Client().get(reverse("private_page", args=[token])).content.decode()
    assert "you may edit it until Sat 2 May 2099, 10:00 (Europe/Paris)" in html


def test_an_unknown_link_answers_404(team: dict[str, Any]) -> None:
    assert Client().post(deck_url("not-a-token"), {"text": LEGAL}).status_code == 404


# --- The organizer's screen --------------------------------------------------------------------


def manage_url(t: Tournament) -> str:
    return reverse("manage_decklists", args=[t.slug])


def test_the_screen_lists_who_has_no_list_and_who_has_problems(
    team: dict[str, Any], owner: Any
) -> None:
    t = team["t"]
    players = list(t.players.order_by("pk"))
    submit_decklist(player=players[0], text=LEGAL)
    submit_decklist(player=players[1], text=SHORT)
    page = client_of(owner).get(manage_url(t))
    html = page.content.decode()
    assert page.status_code == 200 and "<html" in html
    assert re.search(r"<strong>1</strong> legal · <strong>1</strong> with problems · "
                     r"<strong>6</strong> missing · 8 players", html)  # fmt: skip
    missing = html.split('id="decklist-missing"')[1].split("</ul>")[0]
    assert "Player 3" in missing and "Player 1<" not in missing
    judge_link = reverse("judge_decklist", args=[t.slug, players[2].pk])
    assert judge_link in missing
    assert "the main deck has 54 cards" in html
    assert "Decklist Problem" not in html  # not locked yet


def test_the_screen_for_htmx_is_its_panel(team: dict[str, Any], owner: Any) -> None:
    page = client_of(owner).get(manage_url(team["t"]), headers=HX)
    html = page.content.decode()
    assert page.status_code == 200 and html.startswith('<section id="decklists-panel"')


def test_after_the_deadline_a_missing_list_is_a_decklist_problem_to_settle(
    team: dict[str, Any], owner: Any
) -> None:
    t = team["t"]
    players = list(t.players.order_by("pk"))
    submit_decklist(player=players[1], text=SHORT)
    services.pair_next_round(tournament=t)
    html = client_of(owner).get(manage_url(t)).content.decode()
    assert "each missing or illegal list below is a Decklist Problem (IPG 3.4)" in html
    settle = reverse("judge_penalties", args=[t.slug])
    assert f"{settle}?player={players[0].pk}" in html  # missing
    assert f"{settle}?player={players[1].pk}" in html  # illegal
    # The penalty screen opens with that player picked.
    penalties = client_of(owner).get(f"{settle}?player={players[0].pk}").content.decode()
    assert f'<option value="{players[0].pk}" selected>' in penalties


@pytest.mark.parametrize("htmx", [False, True])
def test_the_organizer_sets_the_format_and_the_deadline(
    team: dict[str, Any], owner: Any, htmx: bool
) -> None:
    t = team["t"]
    answer = client_of(owner).post(
        reverse("manage_decklist_rules", args=[t.slug]),
        {"format": "pioneer", "deadline": "2099-05-02T10:00"},
        headers=HX if htmx else {},
    )
    if htmx:
        assert answer.status_code == 200
        assert "Decklists: Pioneer, until Sat 2 May 2099, 10:00 (Europe/Paris)." in (
            answer.content.decode()
        )
    else:
        assert answer.status_code == 302 and answer["Location"].startswith(manage_url(t))
    t = fresh(t)
    assert t.deck_format == "pioneer"
    assert t.decklist_deadline is not None and t.decklist_deadline.hour == 8  # UTC


@pytest.mark.parametrize(
    ("form", "said"),
    [
        ({"format": "modern", "deadline": "next tuesday"}, "is not a date and time"),
        ({"format": "commander", "deadline": ""}, "is not a format"),
    ],
)
@pytest.mark.parametrize("htmx", [False, True])
def test_bad_rules_are_refused_with_422(
    team: dict[str, Any], owner: Any, form: dict[str, str], said: str, htmx: bool
) -> None:
    t = team["t"]
    answer = client_of(owner).post(
        reverse("manage_decklist_rules", args=[t.slug]), form, headers=HX if htmx else {}
    )
    assert answer.status_code == 422 and said in answer.content.decode()
    assert fresh(t).deck_format == "modern"


@pytest.mark.parametrize("htmx", [False, True])
def test_the_organizer_publishes_and_unpublishes(
    team: dict[str, Any], owner: Any, htmx: bool
) -> None:
    t = team["t"]
    url = reverse("manage_decklists_publish", args=[t.slug])
    answer = client_of(owner).post(url, {"published": "yes"}, headers=HX if htmx else {})
    assert answer.status_code == (200 if htmx else 302)
    assert fresh(t).decklists_published
    if htmx:
        assert "The top cut&#x27;s decklists are public." in answer.content.decode()
    client_of(owner).post(url, {"published": "no"})
    assert not fresh(t).decklists_published
    refused = client_of(owner).post(url, {"published": "maybe"}, headers=HX if htmx else {})
    assert refused.status_code == 422


def test_the_exports_hold_every_list(team: dict[str, Any], owner: Any) -> None:
    t = team["t"]
    submit_decklist(player=first(t), text=LEGAL)
    as_json = client_of(owner).get(reverse("manage_decklists_json", args=[t.slug]))
    assert as_json["Content-Disposition"] == f'attachment; filename="{t.slug}-decklists.json"'
    data = json.loads(as_json.content)
    assert data["decklists"][0]["main"][0] == {"count": 4, "name": "Lightning Bolt"}
    as_text = client_of(owner).get(reverse("manage_decklists_txt", args=[t.slug]))
    assert as_text["Content-Type"] == "text/plain; charset=utf-8"
    assert as_text.content.decode().startswith("// Player 1 (")
    assert "4 Lightning Bolt\n56 Mountain\n\nSideboard\n2 Fire // Ice" in as_text.content.decode()


# --- A judge's deck check -------------------------------------------------------------------


def check_url(t: Tournament, player: Player) -> str:
    return reverse("judge_decklist", args=[t.slug, player.pk])


def test_the_deck_check_view_shows_the_list_counted_and_printable(
    team: dict[str, Any],
) -> None:
    t = team["t"]
    submit_decklist(player=first(t), text="56 Mountain\n4 Lightning Bolt\n\n2 Fire // Ice\n")
    page = client_of(team["floor_judge"]).get(check_url(t, first(t)))
    html = page.content.decode()
    assert page.status_code == 200 and "<html" in html
    assert "Main deck: 60" in html and "Sideboard: 2" in html
    # Without card data one group, by name.
    assert html.index("Lightning Bolt") < html.index("Mountain")
    assert "css/decklists.css" in html and "data-print" in html


def test_the_deck_check_view_for_htmx_is_its_panel(team: dict[str, Any]) -> None:
    t = team["t"]
    page = client_of(team["head_judge"]).get(check_url(t, first(t)), headers=HX)
    html = page.content.decode()
    assert page.status_code == 200 and html.startswith('<section id="deck-check-panel"')
    assert "No decklist registered." in html


@pytest.mark.parametrize("htmx", [False, True])
def test_the_floor_finds_every_players_list_from_the_deck_checks_screen(
    team: dict[str, Any], htmx: bool
) -> None:
    t = team["t"]
    submit_decklist(player=first(t), text=SHORT)
    client = client_of(team["floor_judge"])
    index = reverse("judge_decklists", args=[t.slug])
    assert index in client.get(reverse("judge_deck_checks", args=[t.slug])).content.decode()
    answer = client.get(index, headers=HX if htmx else {})
    html = answer.content.decode()
    assert answer.status_code == 200 and ("<html" in html) != htmx
    assert check_url(t, first(t)) in html and "1 problem" in html and "no list" in html


def test_a_player_of_another_event_is_not_found(team: dict[str, Any], owner: Any) -> None:
    other = services.create_tournament(name="Other", owner=owner, seed=1)
    stranger = services.register_players(tournament=other, names=["Zed"])[0]
    t = team["t"]
    url = reverse("judge_decklist", args=[t.slug, stranger.pk])
    assert client_of(owner).get(url).status_code == 404


@pytest.mark.parametrize("htmx", [False, True])
def test_a_judge_changes_a_list_after_the_lock(team: dict[str, Any], htmx: bool) -> None:
    t = team["t"]
    player = first(t)
    submit_decklist(player=player, text=SHORT)
    services.pair_next_round(tournament=t)
    judge = team["floor_judge"]
    url = reverse("judge_decklist_edit", args=[t.slug, player.pk])
    answer = client_of(judge).post(url, {"text": LEGAL}, headers=HX if htmx else {})
    if htmx:
        assert answer.status_code == 200
        assert "Player 1&#x27;s decklist is saved: it is legal." in answer.content.decode()
    else:
        assert answer.status_code == 302 and answer["Location"] == check_url(t, player)
    row = Decklist.objects.get(player=player)
    assert row.legal and row.updated_by == judge
    entry = AuditEntry.objects.filter(tournament=t, action=AuditAction.DECKLIST).latest("pk")
    assert entry.after["event"] == "changed" and entry.user == judge


@pytest.mark.parametrize("htmx", [False, True])
def test_a_judges_empty_list_is_refused_with_422(team: dict[str, Any], htmx: bool) -> None:
    t = team["t"]
    url = reverse("judge_decklist_edit", args=[t.slug, first(t).pk])
    answer = client_of(team["owner"]).post(url, {"text": ""}, headers=HX if htmx else {})
    assert answer.status_code == 422 and "The list is empty" in answer.content.decode()


# --- Who may open each endpoint -------------------------------------------------------------------


def endpoints(
    t: Tournament, player: Player
) -> list[tuple[str, str, str, dict[str, str], set[str]]]:
    """(name, method, path, form, allowed roles) of every team endpoint of decklists."""
    slug = t.slug
    return [
        ("manage_decklists", "GET", reverse("manage_decklists", args=[slug]), {}, MANAGERS),
        ("manage_decklist_rules", "POST", reverse("manage_decklist_rules", args=[slug]),
         {"format": "pioneer", "deadline": ""}, MANAGERS),
        ("manage_decklists_publish", "POST", reverse("manage_decklists_publish", args=[slug]),
         {"published": "yes"}, MANAGERS),
        ("manage_decklists_json", "GET", reverse("manage_decklists_json", args=[slug]), {},
         MANAGERS),
        ("manage_decklists_txt", "GET", reverse("manage_decklists_txt", args=[slug]), {},
         MANAGERS),
        ("judge_decklists", "GET", reverse("judge_decklists", args=[slug]), {}, FLOOR),
        ("judge_decklist", "GET", reverse("judge_decklist", args=[slug, player.pk]), {}, FLOOR),
        ("judge_decklist_edit", "POST", reverse("judge_decklist_edit", args=[slug, player.pk]),
         {"text": LEGAL}, FLOOR),
    ]  # fmt: skip


CASES = [(name, role) for name in (
    "manage_decklists", "manage_decklist_rules", "manage_decklists_publish",
    "manage_decklists_json", "manage_decklists_txt", "judge_decklists", "judge_decklist",
    "judge_decklist_edit",
) for role in ROLES]  # fmt: skip


def test_the_permission_cases_cover_every_team_endpoint_of_the_module() -> None:
    from tournaments.urls_decklists import urlpatterns

    team_names = {
        p.name
        for p in urlpatterns
        if isinstance(p, URLPattern)
        and ("/manage/" in str(p.pattern) or "/judge/" in str(p.pattern))
    }
    assert team_names == {name for name, _ in CASES}


@pytest.mark.parametrize(("name", "role"), CASES)
def test_each_role_may_use_only_its_decklist_endpoints(
    team: dict[str, Any], name: str, role: str
) -> None:
    t = team["t"]
    player = first(t)
    _, method, path, form, allowed = next(e for e in endpoints(t, player) if e[0] == name)
    client = client_of(team[role])
    before = (fresh(t).version, fresh(t).deck_format, Decklist.objects.count())
    answer = client.post(path, form) if method == "POST" else client.get(path)
    if role == "anonymous":
        assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")
    elif role in allowed:
        assert answer.status_code in (200, 302), answer.status_code
    else:
        assert answer.status_code == 403
    if role not in allowed:
        assert (fresh(t).version, fresh(t).deck_format, Decklist.objects.count()) == before


# --- Publishing and privacy ---------------------------------------------------------------------


def played(team: dict[str, Any]) -> Tournament:
    """Round 1 played, every player with a list of their own (a card only they play)."""
    t = team["t"]
    for k, p in enumerate(t.players.order_by("pk"), start=1):
        submit_decklist(player=p, text=f"4 Secret Tech {k}\n56 Mountain\n", by=team["owner"])
    services.pair_next_round(tournament=t)
    for match in Match.objects.filter(round__tournament=t, kind=MatchKind.PLAYED):
        services.record_result(match=match, wins=[2, 0])
    return fresh(t)


def public_paths(t: Tournament) -> list[str]:
    """Every public page and API endpoint of the event (the URL patterns walked), for
    each player where the pattern names one. The event stream (live/) holds no page."""
    out: list[str] = []
    pids = list(t.players.values_list("external_id", flat=True))

    def walk(patterns: list[Any], prefix: str) -> None:
        for p in patterns:
            route = prefix + str(p.pattern)
            if isinstance(p, URLResolver):
                walk(p.url_patterns, route)
                continue
            if route.startswith(("admin", "accounts", "p/", "manage/")):
                continue
            if "/manage/" in route or "/judge/" in route or route.endswith("/live/"):
                continue
            if "<" in route and not route.startswith("t/<slug:slug>/"):
                continue
            for pid in pids if "<path:pid>" in route else [""]:
                filled = route.replace("<slug:slug>", t.slug).replace("<path:pid>", pid)
                assert "<" not in filled, route
                out.append("/" + filled)

    walk(get_resolver().url_patterns, "")
    return out


def test_before_publishing_no_public_page_or_api_shows_a_list(team: dict[str, Any]) -> None:
    t = played(team)
    paths = public_paths(t)
    assert f"/t/{t.slug}/decklists/" in paths and f"/t/{t.slug}/decklists.json" in paths
    pid = first(t).external_id
    assert f"/t/{t.slug}/players/{pid}/" in paths and f"/t/{t.slug}/players/{pid}.json" in paths
    client = Client()
    for path in paths:
        for headers in ({}, HX):
            answer = client.get(path, headers=headers)
            assert answer.status_code in (200, 301, 302, 404), (path, answer.status_code)
            body = answer.content.decode(errors="replace")
            assert "Secret Tech" not in body, path
    assert json.loads(client.get(f"/t/{t.slug}/decklists.json").content)["decklists"] == []


def test_once_published_the_top_8_lists_are_public_and_the_others_not(
    team: dict[str, Any], owner: Any
) -> None:
    t = played(team)
    # This event has 8 players: everyone's list, in standings order.
    before = Client().get(f"/t/{t.slug}/decklists.json")
    publish_decklists(tournament=t, published=True, by=owner)
    after = Client().get(f"/t/{t.slug}/decklists.json", headers={"If-None-Match": before["ETag"]})
    assert after.status_code == 200  # publishing moved the version
    data = json.loads(after.content)
    assert data["published"] is True and len(data["decklists"]) == 8
    winner = data["decklists"][0]
    assert winner["main"][0]["name"].startswith("Secret Tech")
    page = Client().get(reverse("decklists", args=[t.slug])).content.decode()
    assert "Secret Tech 1" in page and "Main deck (60)" in page
    nav = Client().get(reverse("event_home", args=[t.slug])).content.decode()
    assert reverse("decklists", args=[t.slug]) in nav
    pid = winner["player"]
    player_page = Client().get(reverse("player", args=[t.slug, pid])).content.decode()
    assert 'id="player-decklist"' in player_page


def test_with_a_top_cut_only_its_players_lists_are_published(
    team: dict[str, Any], owner: Any
) -> None:
    t = played(team)
    services.start_top_cut(tournament=t, size=4)
    publish_decklists(tournament=t, published=True, by=owner)
    data = json.loads(Client().get(f"/t/{t.slug}/decklists.json").content)
    cut = set(
        Player.objects.filter(tournament=t, seats__round__playoff=True).values_list(
            "external_id", flat=True
        )
    )
    assert {d["player"] for d in data["decklists"]} == cut and len(cut) == 4
    out = next(p for p in t.players.all() if p.external_id not in cut)
    page = Client().get(reverse("player", args=[t.slug, out.external_id])).content.decode()
    assert 'id="player-decklist"' not in page
    listed = Client().get(reverse("decklists", args=[t.slug])).content.decode()
    number = out.decklist.main[0][1]
    assert number not in listed


def test_the_public_decklists_page_and_its_partial(team: dict[str, Any], owner: Any) -> None:
    t = team["t"]
    page = Client().get(reverse("decklists", args=[t.slug]))
    assert page.status_code == 200 and "The decklists are not public." in page.content.decode()
    partial = Client().get(reverse("decklists", args=[t.slug]), headers=HX)
    html = partial.content.decode()
    assert partial.status_code == 200 and html.startswith('<section id="public-decklists"')


# --- With card data -----------------------------------------------------------------------------


@pytest.fixture
def cards() -> None:
    from pathlib import Path

    from tournaments.services.cards import load_cards

    load_cards(path=Path(__file__).parent / "fixtures" / "cards-small.json")


def test_with_card_data_a_misspelt_name_is_shown_with_its_line_and_suggestion(
    team: dict[str, Any], cards: None
) -> None:
    token = token_of(first(team["t"]))
    answer = Client().post(deck_url(token), {"text": "4 Lightning Blot\n56 Mountain\n"}, headers=HX)
    html = answer.content.decode()
    assert "line 1: &#x27;Lightning Blot&#x27; is not a card; did you mean Lightning Bolt?" in html
    assert "Card names are not checked" not in html


def test_with_card_data_the_deck_check_groups_by_type(team: dict[str, Any], cards: None) -> None:
    t = team["t"]
    text = "20 Mountain\n4 Goblin Guide\n4 Lightning Bolt\n4 Monastery Swiftspear\n28 Mountain\n"
    submit_decklist(player=first(t), text=text + "\n2 Rest in Peace\n2 Fire // Ice\n")
    html = client_of(team["floor_judge"]).get(check_url(t, first(t))).content.decode()
    main = html.split('id="deck-main-title"')[1].split('id="deck-side-title"')[0]
    order = [main.index(w) for w in ("Creature", "Goblin Guide", "Monastery Swiftspear",
                                     "Instant", "Lightning Bolt", "Land", "Mountain")]  # fmt: skip
    assert order == sorted(order)
    assert "Creature <small>(8)</small>" in main and "Land <small>(48)</small>" in main
    assert main.count("Mountain") == 1  # its two lines counted as one: 48
    side = html.split('id="deck-side-title"')[1]
    assert side.index("Instant") < side.index("Enchantment")
