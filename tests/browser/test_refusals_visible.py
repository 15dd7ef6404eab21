"""Every refusal a player meets is shown in place on a phone with JavaScript on (issue 25
item 1): a second "Alex Martin" or a registration over a limit got 422/429 and the phone
showed nothing, since htmx swaps only 2xx answers. static/js/refusals.js swaps a refused
write's panel, and shows a message for what carries none (the body guard's text/plain
answers, a whole error page, a 5xx, a lost connection).

Each test marks the page before its tap and checks the mark after: the message came by
htmx, in place, not by a page load."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.browser.conftest import ARTIFACTS
from tests.helpers import paired_doc
from tournaments import services
from tournaments.models import Match, Player, Status, Tournament
from tournaments.services import registration as reg
from tournaments.services import reports
from tournaments.services.writing import ServiceError

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
# 10 s into a minute: a test's requests share one limit window; the wait announced is 50 s.
INSTANT = 1_800_000_010.0


@pytest.fixture
def phone(browser: Any, live_server: Any) -> Iterator[Any]:
    context = browser.new_context(**PHONE)
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.base_url = live_server.url
    page.js_errors = []
    page.on("pageerror", lambda error: page.js_errors.append(str(error)))
    yield page
    assert page.js_errors == []
    context.close()


@pytest.fixture
def open_event(django_user_model: type[User]) -> Tournament:
    owner = django_user_model.objects.create_user("td")
    t = services.create_tournament(name="Thursday Draft", owner=owner, seed=5)
    return reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=False, check_in=True
    )


@pytest.fixture
def paired() -> dict[str, Any]:
    """Round 1 paired (Ana Lopez - Ben Ortiz at table 1), both with private links."""
    owner = User.objects.create_user("td")
    t = services.import_document(
        paired_doc(4, "Report Night", names=["Ana Lopez", "Ben Ortiz", "Cleo Park", "Dev Rao"]),
        owner=owner,
    )
    ana, ben = t.players.get(external_id="p1"), t.players.get(external_id="p2")
    return {
        "t": t,
        "owner": owner,
        "ana": ana,
        "ben": ben,
        "ana_link": reg.issue_link(player=ana),
        "ben_link": reg.issue_link(player=ben),
        "match": Match.objects.get(round__tournament=t, table=1),
    }


def refusal(write: Callable[[], Any]) -> str:
    """What the service says when it refuses `write` (so a reworded message still matches)."""
    with pytest.raises(ServiceError) as refused:
        write()
    return str(refused.value)


def mark(phone: Any) -> None:
    phone.evaluate("window.__samePage = true")


def shown_in_place(phone: Any, where: str, text: str, *, shot: str = "") -> None:
    """`text` is visible in `where`, in an element screen readers announce, on the page
    the player tapped in (no page load). `shot`: a screenshot of the phone's screen."""
    from playwright.sync_api import expect

    alert = phone.locator(f"{where} [role=alert]").filter(has_text=text)
    expect(alert).to_be_visible()
    assert phone.evaluate("window.__samePage === true")
    if shot:
        ARTIFACTS.mkdir(exist_ok=True)
        phone.screenshot(path=str(ARTIFACTS / f"refusal-{shot}.png"))


def register(phone: Any, t: Tournament, name: str) -> None:
    phone.goto(f"{phone.base_url}/t/{t.slug}/register/")
    mark(phone)
    phone.get_by_label("Your name").fill(name)
    phone.get_by_role("button", name="Register").click()


# --- Registration ---------------------------------------------------------------------------


def test_a_second_alex_martin_is_told_why_the_registration_was_refused(
    phone: Any, open_event: Tournament
) -> None:
    reg.register_self(tournament=open_event, name="Alex Martin")
    message = refusal(lambda: reg.register_self(tournament=open_event, name="Alex Martin"))
    register(phone, open_event, "Alex Martin")
    shown_in_place(phone, "#register-form", message, shot="duplicate-name")
    assert open_event.players.count() == 1


def test_a_registration_over_the_events_limit_shows_the_limit_and_how_long_to_wait(
    phone: Any, open_event: Tournament, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The live server runs in this process: its threads read the patched figures.
    monkeypatch.setattr("tournaments.ratelimit._now", lambda: INSTANT)
    monkeypatch.setattr("tournaments.ratelimit.REGISTER_EVENT_LIMIT", 1)
    register(phone, open_event, "Ana Lopez")
    phone.wait_for_url("**/p/**")
    register(phone, open_event, "Ben Ortiz")
    shown_in_place(
        phone,
        "#register-form",
        "Too many registrations for this event (at most 1 a minute): wait 50 seconds",
        shot="registration-limit",
    )
    assert list(open_event.players.values_list("name", flat=True)) == ["Ana Lopez"]


# --- Check-in -------------------------------------------------------------------------------


def test_checking_in_after_round_1_is_paired_says_check_in_is_closed(
    phone: Any, open_event: Tournament
) -> None:
    links = {}
    for name in ("Ana Lopez", "Ben Ortiz", "Cleo Park"):
        player, links[name] = reg.register_self(tournament=open_event, name=name)
        if name != "Cleo Park":
            reg.check_in(player=player)
    phone.goto(f"{phone.base_url}/p/{links['Cleo Park']}/")
    mark(phone)
    button = phone.get_by_role("button", name="Check in")
    services.pair_next_round(tournament=Tournament.objects.get(pk=open_event.pk))
    button.click()
    shown_in_place(phone, "#check-in", "check-in is closed", shot="check-in-closed")
    assert Player.objects.get(tournament=open_event, name="Cleo Park").checked_in_at is None


# --- Reports, confirmations, disputes -----------------------------------------------------


def open_report(phone: Any, link: str) -> None:
    phone.goto(f"{phone.base_url}/p/{link}/")
    mark(phone)


def test_an_impossible_score_is_refused_in_the_report_panel(phone: Any, paired: dict) -> None:
    open_report(phone, paired["ana_link"])
    phone.get_by_label("Games I won").select_option("2")
    phone.get_by_label("Games Ben Ortiz won").select_option("2")
    phone.get_by_role("button", name="Report").click()
    shown_in_place(
        phone, "#report-panel", "Both players cannot win the match.", shot="impossible-score"
    )
    assert not hasattr(Match.objects.get(pk=paired["match"].pk), "report")


def test_an_impossible_score_is_refused_in_the_players_language_on_the_phone(
    browser: Any, live_server: Any, paired: dict
) -> None:
    """The same refusal on a French phone: said in French, in place (issue 29)."""
    context = browser.new_context(**PHONE, locale="fr-FR")
    context.set_default_timeout(10_000)
    phone = context.new_page()
    try:
        phone.base_url = live_server.url
        open_report(phone, paired["ana_link"])
        phone.locator("#report-panel select[name=wins_mine]").select_option("2")
        phone.locator("#report-panel select[name=wins_theirs]").select_option("2")
        phone.locator("#report-panel").get_by_role("button", name="Déclarer").click()
        shown_in_place(
            phone, "#report-panel", "Les deux joueurs ne peuvent pas gagner le match.",
            shot="impossible-score-fr",
        )  # fmt: skip
    finally:
        context.close()
    assert not hasattr(Match.objects.get(pk=paired["match"].pk), "report")


def test_a_report_from_a_stale_page_is_refused_and_the_panel_shows_the_match_as_it_is(
    phone: Any, paired: dict
) -> None:
    open_report(phone, paired["ana_link"])
    reports.report(player=paired["ben"], match=paired["match"], wins_mine=2, wins_theirs=1)
    phone.get_by_label("Games I won").select_option("2")
    phone.get_by_role("button", name="Report", exact=True).click()
    shown_in_place(phone, "#report-panel", reports.STALE)
    # The panel swapped in is the one as it is now: Ben's report to confirm.
    assert phone.get_by_role("button", name="Confirm").is_visible()


def test_a_report_over_the_links_limit_shows_the_limit_and_how_long_to_wait(
    phone: Any, paired: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tournaments.ratelimit._now", lambda: INSTANT)
    monkeypatch.setattr("tournaments.ratelimit.TOKEN_LIMIT", 1)
    open_report(phone, paired["ana_link"])
    phone.get_by_label("Games I won").select_option("2")
    phone.get_by_role("button", name="Report").click()
    phone.locator("#report-panel").get_by_text("Waiting for Ben Ortiz").wait_for()
    phone.get_by_label("Games I won").select_option("1")
    phone.get_by_role("button", name="Report this instead").click()
    shown_in_place(phone, "#report-panel", "from this link (at most 1 a minute): wait 50 seconds")


def test_confirming_a_report_changed_since_the_page_was_loaded_is_refused(
    phone: Any, paired: dict
) -> None:
    ana, match = paired["ana"], paired["match"]
    reports.report(player=ana, match=match, wins_mine=2, wins_theirs=1)
    open_report(phone, paired["ben_link"])
    reports.report(player=ana, match=match, wins_mine=2, wins_theirs=0)
    phone.get_by_role("button", name="Confirm").click()
    shown_in_place(phone, "#report-panel", reports.STALE)
    assert Match.objects.get(pk=match.pk).report.state != "confirmed"


def test_disputing_a_report_the_organizer_reset_meanwhile_is_refused(
    phone: Any, paired: dict
) -> None:
    match = paired["match"]
    reports.report(player=paired["ana"], match=match, wins_mine=2, wins_theirs=1)
    open_report(phone, paired["ben_link"])
    reports.reset_report(match=match, tournament=paired["t"], by=paired["owner"])
    phone.get_by_role("button", name="Dispute").click()
    shown_in_place(phone, "#report-panel", reports.STALE)


# --- Drop -----------------------------------------------------------------------------------


def test_dropping_from_an_event_finished_meanwhile_is_refused(phone: Any, paired: dict) -> None:
    open_report(phone, paired["ana_link"])
    phone.get_by_role("button", name="Drop after this round").click()
    confirm = phone.get_by_role("button", name="Yes, drop me")
    confirm.wait_for()
    Tournament.objects.filter(pk=paired["t"].pk).update(status=Status.FINISHED)
    confirm.click()
    shown_in_place(phone, "#drop-panel", reports.EVENT_FINISHED, shot="drop-finished")
    assert Player.objects.get(pk=paired["ana"].pk).dropped_after_round is None


# --- What carries no panel: a whole page, the guard's text, a 5xx, no connection ----------


def test_a_link_replaced_while_the_page_was_open_says_so_in_place(phone: Any, paired: dict) -> None:
    open_report(phone, paired["ana_link"])
    reg.issue_link(player=paired["ana"], by=paired["owner"])
    phone.get_by_label("Games I won").select_option("2")
    phone.get_by_role("button", name="Report").click()
    # The 404 is a whole page: its message is shown, the form stays for a new link.
    shown_in_place(phone, "#report-panel", "This private link is not valid", shot="dead-link")
    assert phone.get_by_role("button", name="Report").is_visible()


@pytest.mark.parametrize(
    ("status", "text", "shown"),
    [
        (413, "Request too large: at most 24 MB.", "Request too large: at most 24 MB."),
        (
            429,
            "Too many requests being sent at once from this address.",
            "from this address. Wait 10 seconds, then try again.",
        ),
        (503, "The server is busy receiving uploads: try again shortly.", "try again shortly"),
    ],
)
def test_the_body_guards_plain_text_refusals_are_shown_in_place(
    phone: Any, open_event: Tournament, status: int, text: str, shown: str
) -> None:
    # tournaments/guard.py answers before Django, under the ASGI server only: its answer
    # (text/plain, Retry-After on 429 and 503) is played back to the phone here.
    phone.route(
        "**/register/",
        lambda route: (
            route.fulfill(
                status=status,
                body=text,
                headers={"Content-Type": "text/plain; charset=utf-8", "Retry-After": "10"},
            )
            if route.request.method == "POST"
            else route.continue_()
        ),
    )
    register(phone, open_event, "Ana Lopez")
    shown_in_place(phone, "#register-form", shown)
    assert phone.get_by_role("button", name="Register").is_visible()


def test_a_server_failure_or_a_lost_connection_says_try_again_in_place(
    phone: Any, open_event: Tournament
) -> None:
    failures = iter(["500", "abort"])

    def fail(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
        elif next(failures) == "500":
            route.fulfill(
                status=500,
                body="<!doctype html><h1>Something went wrong</h1>",
                headers={"Content-Type": "text/html; charset=utf-8"},
            )
        else:
            route.abort("internetdisconnected")

    phone.route("**/register/", fail)
    register(phone, open_event, "Ana Lopez")
    shown_in_place(phone, "#register-form", "the server failed to answer")
    phone.get_by_role("button", name="Register").click()
    shown_in_place(phone, "#register-form", "the server could not be reached", shot="offline")
    # One message at a time, replaced by the next.
    assert phone.locator("#register-form [data-refusal]").count() == 1


def test_a_form_whose_csrf_cookie_is_gone_says_to_reload_in_place(
    phone: Any, open_event: Tournament
) -> None:
    # The cookie lost (cleared, or the phone's browser restarted) while the form was
    # open: Django answers a whole 403 page, whose words are shown above the form.
    phone.goto(f"{phone.base_url}/t/{open_event.slug}/register/")
    mark(phone)
    phone.context.clear_cookies()
    phone.get_by_label("Your name").fill("Ana Lopez")
    phone.get_by_role("button", name="Register").click()
    shown_in_place(phone, "#register-form", "CSRF verification failed")
    shown_in_place(phone, "#register-form", "Reload the page and try again.")
    assert open_event.players.count() == 0
