"""The organizer's event tools: clock, QR code page, staff, audit log, backup, restore,
and the rate-limited login."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from scoring.models import Standing
from tournaments import services
from tournaments.interchange import export_document
from tournaments.models import AuditEntry, Player, Round, Tournament

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def owner(django_user_model: type[User]) -> User:
    """conftest's owner with a password: tests here log in through the login form."""
    return django_user_model.objects.create_user("owner", password="owner-pass-123")


@pytest.fixture
def event(owner: User) -> Tournament:
    t = services.create_tournament(name="Clock Cup", owner=owner, seed=3)
    services.register_players(tournament=t, names=[f"P{i}" for i in range(1, 7)])
    services.pair_next_round(tournament=t)
    return t


def tools(t: Tournament, tail: str) -> str:
    return f"/t/{t.slug}/manage/{tail}"


def test_the_clock_starts_pauses_resumes_and_takes_minutes_from_the_event_screen(
    oc: Client, event: Tournament
) -> None:
    response = oc.post(tools(event, "clock/"), {"action": "start", "minutes": "50"})
    assert response.status_code == 302
    round_ = Round.objects.get(tournament=event, number=1)
    assert round_.clock_ends_at is not None
    response = oc.post(tools(event, "clock/"), {"action": "pause"}, **HX)
    assert response.status_code == 200 and "Clock paused" in response.content.decode()
    assert "<html" not in response.content.decode()
    response = oc.post(tools(event, "clock/"), {"action": "add", "minutes": "5"}, **HX)
    assert "54:" in response.content.decode()
    response = oc.post(tools(event, "clock/"), {"action": "resume"}, **HX)
    assert "Pause" in response.content.decode()
    page = oc.get(tools(event, "")).content.decode()
    assert 'id="clock-panel"' in page and "qr.svg" in page


def test_a_clock_mistake_is_a_message_not_a_500(oc: Client, event: Tournament) -> None:
    response = oc.post(tools(event, "clock/"), {"action": "pause"}, **HX)
    assert response.status_code == 422 and "not running" in response.content.decode()
    response = oc.post(tools(event, "clock/"), {"action": "explode", "minutes": "x"}, **HX)
    assert response.status_code == 422


def test_the_share_page_shows_the_qr_code_of_the_event_home(oc: Client, event: Tournament) -> None:
    html = oc.get(tools(event, "share/")).content.decode()
    assert f"/t/{event.slug}/qr.svg" in html and f"http://testserver/t/{event.slug}/" in html


def test_the_owner_adds_staff_who_can_then_enter_results(
    oc: Client, event: Tournament, django_user_model: type[User]
) -> None:
    judge = django_user_model.objects.create_user("judge")
    response = oc.post(tools(event, "staff/"), {"username": "judge"}, **HX)
    assert response.status_code == 200 and "judge" in response.content.decode()
    assert event.staff.filter(pk=judge.pk).exists()
    staff_client = Client()
    staff_client.force_login(judge)
    assert staff_client.get(tools(event, "")).status_code == 200
    response = staff_client.post(tools(event, "staff/"), {"username": "owner"})
    assert response.status_code == 403  # only the owner manages the staff


def test_an_unknown_username_is_named(oc: Client, event: Tournament) -> None:
    response = oc.post(tools(event, "staff/"), {"username": "ghost"}, **HX)
    assert (
        response.status_code == 422
        and "no user called &#x27;ghost&#x27;" in response.content.decode()
    )


def test_the_audit_log_lists_who_did_what(oc: Client, event: Tournament, owner: User) -> None:
    match = event.rounds.get(number=1).matches.filter(kind="played").first()
    oc.post(tools(event, f"matches/{match.pk}/result/"), {"result": "2-1"})
    page = oc.get(tools(event, "audit/"))
    html = page.content.decode()
    assert page.status_code == 200 and "<html" in html
    assert "Entered round 1 table" in html and "owner" in html and "Paired round 1" in html
    partial = oc.get(tools(event, "audit/"), **HX).content.decode()
    assert "<html" not in partial and "Entered round 1 table" in partial
    assert AuditEntry.objects.filter(tournament=event, user=owner, action="result").count() == 1


def test_the_backup_downloads_the_whole_event_as_an_interchange_document(
    oc: Client, event: Tournament
) -> None:
    response = oc.get(tools(event, "backup.json"))
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="{event.slug}.json"'
    fresh = Tournament.objects.get(pk=event.pk)
    assert json.loads(response.content) == export_document(fresh, backup=True)


def test_a_backup_restores_into_a_new_event_owned_by_the_uploader(
    oc: Client, small_doc: dict, owner: User
) -> None:
    upload = SimpleUploadedFile("event.json", json.dumps(small_doc).encode(), "application/json")
    response = oc.post("/manage/restore/", {"document": upload})
    assert response.status_code == 302
    restored = Tournament.objects.get(name="Friday Night Modern")
    assert restored.owner == owner and restored.players.count() == 7
    assert Standing.objects.filter(tournament=restored).count() == 7


def test_a_bad_backup_is_refused_with_every_problem_and_nothing_written(
    oc: Client, small_doc: dict
) -> None:
    doc = copy.deepcopy(small_doc)
    doc["rounds"][1]["matches"][0]["players"][1] = "p99"
    doc["players"][0]["name"] = ""
    before = (Tournament.objects.count(), Player.objects.count())
    upload = SimpleUploadedFile("event.json", json.dumps(doc).encode())
    response = oc.post("/manage/restore/", {"document": upload})
    html = response.content.decode()
    assert response.status_code == 422
    assert "players[0].name: must not be empty" in html
    assert "rounds[1].matches[0].players[1]: unknown player &#x27;p99&#x27;" in html
    assert (Tournament.objects.count(), Player.objects.count()) == before
    response = oc.post("/manage/restore/", {"document": SimpleUploadedFile("x.json", b"\xff\xfe")})
    assert response.status_code == 422 and "document: not" in response.content.decode()


@pytest.mark.parametrize("path", ["clock/", "share/", "staff/", "audit/", "backup.json"])
def test_event_tools_are_for_the_organizers_only(
    client: Client, event: Tournament, django_user_model: type[User], path: str
) -> None:
    method = client.post if path == "clock/" else client.get
    anonymous = method(tools(event, path))
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    client.force_login(django_user_model.objects.create_user("stranger"))
    assert method(tools(event, path)).status_code == 403


def test_restore_needs_a_login(client: Client) -> None:
    response = client.get("/manage/restore/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_repeated_failed_logins_are_refused_for_a_while(client: Client, owner: User) -> None:
    for _ in range(4):
        response = client.post("/accounts/login/", {"username": "owner", "password": "wrong"})
        assert response.status_code == 200
    response = client.post("/accounts/login/", {"username": "owner", "password": "wrong"})
    assert response.status_code == 429  # the fifth wrong password locks
    response = client.post("/accounts/login/", {"username": "owner", "password": "owner-pass-123"})
    assert response.status_code == 429 and "Too many failed logins" in response.content.decode()


def test_a_lockout_holds_one_username_at_one_address_not_the_whole_venue(
    client: Client, owner: User, django_user_model: type[User]
) -> None:
    django_user_model.objects.create_user("judge", password="judge-pass-123")
    for _ in range(5):
        client.post("/accounts/login/", {"username": "owner", "password": "wrong"})
    # Another organizer behind the same NAT or proxy still logs in ...
    response = client.post("/accounts/login/", {"username": "judge", "password": "judge-pass-123"})
    assert response.status_code == 302
    # ... and so does the owner from another address.
    other = Client(REMOTE_ADDR="10.9.8.7")
    response = other.post("/accounts/login/", {"username": "owner", "password": "owner-pass-123"})
    assert response.status_code == 302


def test_a_correct_login_still_works_before_the_limit(client: Client, owner: User) -> None:
    client.post("/accounts/login/", {"username": "owner", "password": "wrong"})
    response = client.post("/accounts/login/", {"username": "owner", "password": "owner-pass-123"})
    assert response.status_code == 302


def test_the_organizer_changes_the_planned_rounds_and_top_cut_once_the_field_is_known(
    oc: Client, event: Tournament
) -> None:
    page = oc.get(tools(event, "")).content.decode()
    assert "Planned rounds and top cut" in page
    response = oc.post(tools(event, "plan/"), {"planned_rounds": "5", "top_cut": "8"})
    assert response.status_code == 302
    event.refresh_from_db()
    assert (event.planned_rounds, event.top_cut) == (5, 8)
    assert AuditEntry.objects.filter(tournament=event, action="plan").exists()
    response = oc.post(tools(event, "plan/"), {"planned_rounds": "99", "top_cut": "8"}, **HX)
    assert response.status_code == 200 and response["HX-Redirect"].endswith("/manage/")
    event.refresh_from_db()
    assert event.planned_rounds == 5


def test_each_repeated_lockout_of_one_username_at_one_address_lasts_twice_as_long(
    rf: Any,
) -> None:
    from datetime import timedelta

    from axes.models import AccessFailureLog

    from tournaments.views.auth import cool_off

    def request() -> Any:
        # The address by the one rule (tournaments/clientaddress.py), not axes' copy of it.
        return rf.post(
            "/accounts/login/", {"username": "owner", "password": "x"}, REMOTE_ADDR="10.1.1.1"
        )

    assert cool_off(request()) == timedelta(minutes=15)
    for lockouts, minutes in ((1, 15), (2, 30), (3, 60)):
        while AccessFailureLog.objects.filter(locked_out=True).count() < lockouts:
            AccessFailureLog.objects.create(
                username="owner", ip_address="10.1.1.1", user_agent="", http_accept="",
                path_info="/accounts/login/", locked_out=True,
            )  # fmt: skip
        assert cool_off(request()) == timedelta(minutes=minutes)
    assert cool_off(request()) <= timedelta(hours=24)
