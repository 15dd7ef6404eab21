"""A player's private page (/p/<token>/): what it shows, its headers, check-in from it;
no token anywhere public; random input at the registration form never a 500 (issue 14)."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments import services
from tournaments.interchange import export_document
from tournaments.models import Entry, Match, Player, Tournament
from tournaments.services import registration as reg

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def event(owner: User) -> Tournament:
    t = services.create_tournament(name="Open Modern", owner=owner, seed=5)
    return reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=False, check_in=True, by=owner
    )


def html(response: Any) -> str:
    return response.content.decode()


def fresh(t: Tournament) -> Tournament:
    return Tournament.objects.get(pk=t.pk)


def test_the_private_page_shows_the_player_their_event_status_and_link_qr(
    client: Client, event: Tournament
) -> None:
    _ana, token = reg.register_self(tournament=event, name="Ana Lopez")
    response = client.get(f"/p/{token}/")
    body = html(response)
    assert response.status_code == 200
    assert "Ana Lopez" in body and "Open Modern" in body and "Entry accepted" in body
    assert "Keep this on your phone" in body and f"/p/{token}/qr.svg" in body
    assert f"/p/{token}/check-in/" in body  # check-in is used and round 1 not paired
    assert response["Cache-Control"] == "private, no-store"
    assert response["Referrer-Policy"] == "strict-origin"


def test_the_private_page_over_htmx_answers_with_its_card(
    client: Client, event: Tournament
) -> None:
    _ana, token = reg.register_self(tournament=event, name="Ana Lopez")
    response = client.get(f"/p/{token}/", **HX)
    assert response.status_code == 200
    assert html(response).lstrip().startswith('<section id="private-card"')
    assert response["Cache-Control"] == "private, no-store"


def test_the_private_page_includes_the_report_and_drop_placeholders(
    client: Client, event: Tournament
) -> None:
    from django.template.loader import get_template

    for name in ("_report.html", "_drop.html"):
        assert get_template(f"tournaments/private/{name}") is not None
    _ana, token = reg.register_self(tournament=event, name="Ana Lopez")
    assert client.get(f"/p/{token}/").status_code == 200


def test_a_pending_entry_sees_that_it_waits_and_cannot_check_in_yet(
    client: Client, event: Tournament, owner: User
) -> None:
    reg.set_registration(
        tournament=event, registration_open=True, cap=None, approval=True, check_in=True,
        by=owner,
    )  # fmt: skip
    _ana, token = reg.register_self(tournament=event, name="Ana Lopez")
    body = html(client.get(f"/p/{token}/"))
    assert "waits for the organizer" in body and "/check-in/" not in body


def test_an_unknown_or_replaced_token_is_a_clear_404_never_a_500(
    client: Client, event: Tournament, owner: User
) -> None:
    ana, old = reg.register_self(tournament=event, name="Ana Lopez")
    reg.issue_link(player=ana, by=owner)
    for token in (old, "x", "A" * 43, "%00", "a" * 200):
        for extra in ({}, HX):
            response = client.get(f"/p/{token}/", **extra)
            assert response.status_code == 404
            assert "This private link is not valid" in html(response)
            assert response["Cache-Control"] == "private, no-store"
    assert client.post(f"/p/{old}/check-in/").status_code == 404
    assert client.get(f"/p/{old}/qr.svg").status_code == 404


def test_the_private_qr_code_encodes_the_link_and_is_never_stored(
    client: Client, event: Tournament
) -> None:
    _ana, token = reg.register_self(tournament=event, name="Ana Lopez")
    response = client.get(f"/p/{token}/qr.svg")
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    assert b"<svg" in response.content
    assert response["Cache-Control"] == "private, no-store"


def test_a_player_checks_in_from_their_page_plain_and_with_htmx(
    client: Client, event: Tournament
) -> None:
    ana, token = reg.register_self(tournament=event, name="Ana Lopez")
    ben, ben_token = reg.register_self(tournament=event, name="Ben Ito")
    response = client.post(f"/p/{token}/check-in/")
    assert response.status_code == 302 and response["Location"] == f"/p/{token}/"
    assert "You are checked in." in html(client.get(f"/p/{token}/"))
    partial = client.post(f"/p/{ben_token}/check-in/", **HX)
    assert partial.status_code == 200
    assert html(partial).lstrip().startswith('<section id="check-in"')
    assert "You are checked in." in html(partial)
    assert Player.objects.filter(pk__in=[ana.pk, ben.pk], checked_in_at__isnull=False).count() == 2


def test_a_check_in_after_round_1_is_refused_with_a_message(
    client: Client, event: Tournament, owner: User
) -> None:
    players = [reg.register_self(tournament=event, name=n) for n in ("Ana", "Ben", "Cleo")]
    for p, _token in players[:2]:
        reg.check_in(player=p)
    services.pair_next_round(tournament=event, by=owner)
    token = players[2][1]
    for extra in ({}, HX):
        response = client.post(f"/p/{token}/check-in/", **extra)
        assert response.status_code == 422
        assert "check-in is closed" in html(response) and 'role="alert"' in html(response)


def test_the_private_page_shows_the_current_table_and_opponent(
    client: Client, event: Tournament, owner: User
) -> None:
    (ana, token), (ben, _t) = (reg.register_self(tournament=event, name=n) for n in ("Ana", "Ben"))
    reg.check_in(player=ana)
    reg.check_in(player=ben)
    services.pair_next_round(tournament=event, by=owner)
    body = html(client.get(f"/p/{token}/"))
    assert "Round 1" in body and "Table 1" in body and "Ben" in body


def test_a_refused_private_answer_is_not_written_to_the_request_log(
    client: Client, event: Tournament, owner: User, caplog: pytest.LogCaptureFixture
) -> None:
    players = [reg.register_self(tournament=event, name=n) for n in ("Ana", "Ben", "Cleo")]
    for p, _token in players[:2]:
        reg.check_in(player=p)
    services.pair_next_round(tournament=event, by=owner)
    token = players[2][1]
    with caplog.at_level(logging.DEBUG):
        assert client.post(f"/p/{token}/check-in/").status_code == 422
        assert client.get("/p/not-a-token/").status_code == 404
    assert token not in caplog.text and "not-a-token" not in caplog.text


def test_check_in_from_a_private_page_is_rate_limited_per_link(
    client: Client, event: Tournament, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tournaments.ratelimit._now", lambda: 1_800_000_010.0)
    _ana, token = reg.register_self(tournament=event, name="Ana")
    codes = [client.post(f"/p/{token}/check-in/").status_code for _ in range(21)]
    assert codes[0] == 302 and codes[-1] == 429


def test_the_check_in_form_needs_its_csrf_token(event: Tournament) -> None:
    ana, token = reg.register_self(tournament=event, name="Ana")
    strict = Client(enforce_csrf_checks=True)
    assert strict.post(f"/p/{token}/check-in/").status_code == 403
    assert Player.objects.get(pk=ana.pk).checked_in_at is None


# --- No token in anything public -----------------------------------------------------------


def test_no_token_raw_or_hashed_appears_in_any_public_response(client: Client, owner: User) -> None:
    t = services.create_tournament(name="Leak Check", owner=owner, seed=3, top_cut=0)
    reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=True, check_in=False, by=owner
    )
    secrets: list[str] = []
    names = ["Ana", "Ben", "Cleo", "Dev", "Eva"]
    for name in names:
        player, token = reg.register_self(tournament=t, name=name, contact=f"{name}@mail.example")
        reg.accept_entry(player=player, by=owner)
        secrets += [token, Player.objects.get(pk=player.pk).token_hash]
    pending, pending_token = reg.register_self(tournament=t, name="Zed Pending")
    secrets += [pending_token, Player.objects.get(pk=pending.pk).token_hash]
    (late,) = services.register_players(tournament=t, names=["Finn"], by=owner)
    secrets.append(reg.issue_link(player=late, by=owner))
    secrets.append(Player.objects.get(pk=late.pk).token_hash)
    services.pair_next_round(tournament=t, by=owner)
    match = Match.objects.filter(round__tournament=t, kind="played").first()
    services.record_result(match=match, wins=(2, 1), by=owner)
    pids = list(
        Player.objects.filter(tournament=t, entry=Entry.ACCEPTED).values_list(
            "external_id", flat=True
        )
    )
    s = t.slug
    urls = [
        "/", f"/t/{s}/", f"/t/{s}/standings/", f"/t/{s}/pairings/", f"/t/{s}/pairings/?by=name",
        f"/t/{s}/bracket/", f"/t/{s}/projector/", f"/t/{s}/qr.svg", f"/t/{s}/register/",
        f"/t/{s}/register/qr.svg", f"/t/{s}/standings.json", f"/t/{s}/pairings.json",
        f"/t/{s}/standings.csv", f"/t/{s}/pairings.csv",
        *(f"/t/{s}/players/{pid}/" for pid in pids),
        *(f"/t/{s}/players/{pid}.json" for pid in pids),
    ]  # fmt: skip
    bodies = []
    for url in urls:
        for extra in ({}, HX):
            response = client.get(url, **extra)
            assert response.status_code == 200, url
            bodies.append((url, response.content.decode(errors="replace")))
    bodies.append(("export", json.dumps(export_document(fresh(t)), ensure_ascii=False)))
    for url, body in bodies:
        for secret in secrets:
            assert secret not in body, f"a private token in {url}"
        assert "@mail.example" not in body, f"a contact in {url}"
        assert "Zed Pending" not in body, f"a pending entry on {url}"
    assert client.get(f"/t/{s}/players/{pending.external_id}/").status_code == 404


# --- Random input at the registration form -------------------------------------------------

text = st.one_of(
    st.text(max_size=30),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=300),
    st.sampled_from(["", " ", "\x00", "Ana\nLopez", "<script>x</script>", "A" * 201, "=1+2"]),
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)
@given(name=text, contact=text, htmx=st.booleans())
def test_random_values_at_the_registration_form_never_give_a_500(
    client: Client, event: Tournament, name: str, contact: str, htmx: bool
) -> None:
    cache.clear()  # the per-address limit is not what this test is about
    before = Player.objects.filter(tournament=event).count()
    response = client.post(
        f"/t/{event.slug}/register/", {"name": name, "contact": contact}, **(HX if htmx else {})
    )
    after = Player.objects.filter(tournament=event).count()
    if response.status_code in (200, 302) and after == before + 1:
        target = response["HX-Redirect"] if htmx else response["Location"]
        assert re.fullmatch(r"/p/[A-Za-z0-9_-]{43}/", target)
    else:
        assert response.status_code == 422, response.status_code
        assert re.search(r'role="alert">\s*\S', html(response))
        assert after == before
