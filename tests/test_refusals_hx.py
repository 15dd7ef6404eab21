"""A refused player write answers with its message in place (issue 25 item 1), plain and
over HTMX: the plain form gets a whole page with the message; HTMX gets the fragment its
form targets, with the message in an element screen readers announce (role="alert"),
which static/js/refusals.js swaps in although its status is 4xx. What carries no fragment
(a dead link's 404 page) holds its message in a role="alert" the script shows in place."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.contrib.staticfiles import finders
from django.test import Client

from tests.helpers import paired_doc
from tournaments import services
from tournaments.models import Match, Player, Status, Tournament
from tournaments.pages import reports as report_pages
from tournaments.permissions import UNKNOWN_LINK
from tournaments.services import registration as reg
from tournaments.services import reports

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
INSTANT = 1_800_000_010.0  # 10 s into a minute: one limit window, a wait of 50 s


@pytest.fixture(autouse=True)
def _one_minute(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tournaments.ratelimit._now", lambda: INSTANT)


@dataclass
class Refusal:
    url: str
    data: dict[str, str]
    status: int
    message: str
    fragment_id: str  # the element the form's hx-target names


def registration_event(owner: User) -> Tournament:
    t = services.create_tournament(name="Thursday Draft", owner=owner, seed=5)
    return reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=False, check_in=True
    )


def paired_event(owner: User) -> dict[str, Any]:
    """Round 1 paired: Ana Lopez - Ben Ortiz at table 1, each with a private link."""
    t = services.import_document(
        paired_doc(4, "Report Night", names=["Ana Lopez", "Ben Ortiz", "Cleo Park", "Dev Rao"]),
        owner=owner,
    )
    ana, ben = t.players.get(external_id="p1"), t.players.get(external_id="p2")
    return {
        "t": t,
        "ana": ana,
        "ben": ben,
        "ana_link": reg.issue_link(player=ana),
        "ben_link": reg.issue_link(player=ben),
        "match": Match.objects.get(round__tournament=t, table=1),
    }


def report_form(player: Player, **games: str) -> dict[str, str]:
    panel = report_pages.player_panel(player)
    return {"match": str(panel["match"].pk), "seen": panel["stamp"], **games}


# --- Each refusal: (client, owner, monkeypatch) -> the request and what it must answer ----


def duplicate_name(client: Client, owner: User, mp: pytest.MonkeyPatch) -> Refusal:
    t = registration_event(owner)
    reg.register_self(tournament=t, name="Alex Martin")
    message = f"Alex Martin is {reg.DUPLICATE}."
    return Refusal(f"/t/{t.slug}/register/", {"name": "Alex Martin"}, 422, message, "register-form")


def registration_limit(client: Client, owner: User, mp: pytest.MonkeyPatch) -> Refusal:
    mp.setattr("tournaments.ratelimit.REGISTER_EVENT_LIMIT", 1)
    t = registration_event(owner)
    url = f"/t/{t.slug}/register/"
    assert client.post(url, {"name": "Ana Lopez"}).status_code == 302
    message = "Too many registrations for this event (at most 1 a minute): wait 50 seconds"
    return Refusal(url, {"name": "Ben Ortiz"}, 429, message, "register-form")


def check_in_closed(client: Client, owner: User, mp: pytest.MonkeyPatch) -> Refusal:
    t = registration_event(owner)
    links = {}
    for name in ("Ana Lopez", "Ben Ortiz", "Cleo Park"):
        player, links[name] = reg.register_self(tournament=t, name=name)
        if name != "Cleo Park":
            reg.check_in(player=player)
    services.pair_next_round(tournament=Tournament.objects.get(pk=t.pk))
    message = "Round 1 is paired: check-in is closed. See the organizer."
    return Refusal(f"/p/{links['Cleo Park']}/check-in/", {}, 422, message, "check-in")


def check_in_limit(client: Client, owner: User, mp: pytest.MonkeyPatch) -> Refusal:
    mp.setattr("tournaments.ratelimit.TOKEN_LIMIT", 1)
    t = registration_event(owner)
    _player, link = reg.register_self(tournament=t, name="Ana Lopez")
    assert client.post(f"/p/{link}/check-in/").status_code == 302
    message = "Too many check-ins from this link (at most 1 a minute): wait 50 seconds"
    return Refusal(f"/p/{link}/check-in/", {}, 429, message, "check-in")


def impossible_score(client: Client, owner: User, mp: pytest.MonkeyPatch) -> Refusal:
    e = paired_event(owner)
    data = report_form(e["ana"], wins_mine="2", wins_theirs="2", draws="0")
    message = "Both players cannot win the match."
    return Refusal(f"/p/{e['ana_link']}/report/", data, 422, message, "report-panel")


def stale_report(client: Client, owner: User, mp: pytest.MonkeyPatch) -> Refusal:
    e = paired_event(owner)
    data = report_form(e["ana"], wins_mine="2", wins_theirs="0", draws="0")
    reports.report(player=e["ben"], match=e["match"], wins_mine=2, wins_theirs=1)
    return Refusal(f"/p/{e['ana_link']}/report/", data, 422, reports.STALE, "report-panel")


def report_limit(client: Client, owner: User, mp: pytest.MonkeyPatch) -> Refusal:
    mp.setattr("tournaments.ratelimit.TOKEN_LIMIT", 1)
    e = paired_event(owner)
    url = f"/p/{e['ana_link']}/report/"
    data = report_form(e["ana"], wins_mine="2", wins_theirs="0", draws="0")
    assert client.post(url, data).status_code == 302
    message = "Too many reports and drops from this link (at most 1 a minute): wait 50 seconds"
    return Refusal(url, data, 429, message, "report-panel")


def stale_confirm(client: Client, owner: User, mp: pytest.MonkeyPatch) -> Refusal:
    e = paired_event(owner)
    reports.report(player=e["ana"], match=e["match"], wins_mine=2, wins_theirs=1)
    data = report_form(e["ben"])
    reports.report(player=e["ana"], match=e["match"], wins_mine=2, wins_theirs=0)
    return Refusal(f"/p/{e['ben_link']}/confirm/", data, 422, reports.STALE, "report-panel")


def stale_dispute(client: Client, owner: User, mp: pytest.MonkeyPatch) -> Refusal:
    e = paired_event(owner)
    reports.report(player=e["ana"], match=e["match"], wins_mine=2, wins_theirs=1)
    data = report_form(e["ben"])
    reports.reset_report(match=e["match"], tournament=e["t"], by=owner)
    return Refusal(f"/p/{e['ben_link']}/dispute/", data, 422, reports.STALE, "report-panel")


def drop_finished(client: Client, owner: User, mp: pytest.MonkeyPatch) -> Refusal:
    e = paired_event(owner)
    Tournament.objects.filter(pk=e["t"].pk).update(status=Status.FINISHED)
    data = {"confirm": "yes"}
    return Refusal(f"/p/{e['ana_link']}/drop/", data, 422, reports.EVENT_FINISHED, "drop-panel")


def drop_limit(client: Client, owner: User, mp: pytest.MonkeyPatch) -> Refusal:
    mp.setattr("tournaments.ratelimit.TOKEN_LIMIT", 1)
    e = paired_event(owner)
    assert client.post(f"/p/{e['ana_link']}/report/", report_form(e["ana"])).status_code == 422
    message = "Too many reports and drops from this link (at most 1 a minute): wait 50 seconds"
    return Refusal(f"/p/{e['ana_link']}/drop/", {"confirm": "yes"}, 429, message, "drop-panel")


REFUSALS: dict[str, Callable[[Client, User, pytest.MonkeyPatch], Refusal]] = {
    "a duplicate name": duplicate_name,
    "the registration limit": registration_limit,
    "a closed check-in": check_in_closed,
    "the check-in limit": check_in_limit,
    "an impossible score": impossible_score,
    "a stale report": stale_report,
    "the report limit": report_limit,
    "a stale confirmation": stale_confirm,
    "a stale dispute": stale_dispute,
    "a drop from a finished event": drop_finished,
    "the drop limit": drop_limit,
}


def alerts(body: str) -> list[str]:
    """The text of each role="alert" element (a leaf: a <p> or <span>)."""
    found = re.findall(r'<(p|span)\b[^>]*role="alert"[^>]*>(.*?)</\1>', body, re.S)
    return [html.unescape(re.sub(r"<[^>]+>|\s+", " ", text)).strip() for _tag, text in found]


@pytest.mark.parametrize("refused", REFUSALS.values(), ids=REFUSALS.keys())
def test_a_refused_write_over_htmx_answers_its_forms_fragment_with_the_message_in_an_alert(
    client: Client, owner: User, monkeypatch: pytest.MonkeyPatch, refused: Callable[..., Refusal]
) -> None:
    r = refused(client, owner, monkeypatch)
    response = client.post(r.url, r.data, **HX)
    body = response.content.decode()
    assert response.status_code == r.status
    assert response["Content-Type"].startswith("text/html")
    # A fragment (refusals.js swaps it; a whole page it would only quote): the element
    # the form's hx-target names, whole.
    assert "<html" not in body and "<!doctype" not in body.lower()
    assert re.match(rf'\s*(\{{#.*?#}}\s*)?<section id="{r.fragment_id}"', body, re.S), body[:200]
    assert any(r.message in text for text in alerts(body)), alerts(body)
    if r.status == 429:
        assert response["Retry-After"] == "50"


@pytest.mark.parametrize("refused", REFUSALS.values(), ids=REFUSALS.keys())
def test_a_refused_plain_write_answers_a_whole_page_with_the_message_in_an_alert(
    client: Client, owner: User, monkeypatch: pytest.MonkeyPatch, refused: Callable[..., Refusal]
) -> None:
    r = refused(client, owner, monkeypatch)
    response = client.post(r.url, r.data)
    body = response.content.decode()
    assert response.status_code == r.status
    assert "<html" in body and f'id="{r.fragment_id}"' in body
    # Once, in the form's own panel: not repeated by every panel of the page.
    assert [r.message in text for text in alerts(body)].count(True) == 1, alerts(body)
    panel = body[body.index(f'id="{r.fragment_id}"') :]
    assert r.message in html.unescape(panel[: panel.index("</section>")])


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_a_write_from_a_replaced_link_answers_a_page_whose_alert_says_so(
    client: Client, owner: User, htmx: bool
) -> None:
    e = paired_event(owner)
    data = report_form(e["ana"], wins_mine="2", wins_theirs="0", draws="0")
    reg.issue_link(player=e["ana"], by=owner)
    response = client.post(f"/p/{e['ana_link']}/report/", data, **(HX if htmx else {}))
    # A whole page even over HTMX: refusals.js shows its alert above the form.
    assert response.status_code == 404
    assert str(UNKNOWN_LINK) in alerts(response.content.decode())


@pytest.mark.parametrize(
    "page",
    [
        lambda e: f"/t/{e['t'].slug}/register/",
        lambda e: f"/p/{e['ana_link']}/",
        lambda e: f"/p/{e['ana_link']}/report/panel/",
    ],
    ids=["registration", "private page", "report page"],
)
def test_every_player_page_loads_the_script_that_shows_refusals_in_place(
    client: Client, owner: User, page: Callable[[dict[str, Any]], str]
) -> None:
    e = paired_event(owner)
    assert finders.find("js/refusals.js")
    body = client.get(page(e)).content.decode()
    assert '<script src="/static/js/refusals.js" defer></script>' in body


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_a_check_in_refused_as_closed_says_so_once(
    client: Client, owner: User, monkeypatch: pytest.MonkeyPatch, htmx: bool
) -> None:
    r = check_in_closed(client, owner, monkeypatch)
    body = client.post(r.url, **(HX if htmx else {})).content.decode().lower()
    assert body.count("check-in is closed") == 1, body
