"""Issue 24 item 9: private-link tokens stay out of the logs, the page showing a staff
set-password link is kept nowhere, and a plain form posted from a private page over HTTPS
passes Django's CSRF check (a `no-referrer` page made the browser send `Origin: null`)."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from tournaments import services
from tournaments.logfilters import mask_tokens
from tournaments.models import Player, Tournament
from tournaments.services import registration as reg

pytestmark = pytest.mark.django_db
ORIGIN = "https://testserver"
CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
META_POLICY = re.compile(r'<meta name="referrer" content="([^"]+)"')


@pytest.fixture
def event(owner: User) -> Tournament:
    t = services.create_tournament(name="Open Modern", owner=owner, seed=5)
    return reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=False, check_in=True, by=owner
    )


@pytest.fixture
def production(settings: Any) -> None:
    """The HTTPS settings of a production install (tournaments/settings.py, DEBUG off)."""
    settings.DEBUG = False
    settings.SECURE_SSL_REDIRECT = True
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    settings.SECURE_HSTS_SECONDS = 31536000


def set_password_path(username: str, token: str = "cabc12-0123456789abcdef0123456789abcdef") -> str:
    user = User.objects.get(username=username)
    return f"/accounts/set-password/{urlsafe_base64_encode(force_bytes(user.pk))}/{token}/"


# --- (a) No token in the application log ----------------------------------------------------


def test_a_csrf_failure_and_a_405_on_a_private_page_log_no_token(
    event: Tournament, caplog: pytest.LogCaptureFixture
) -> None:
    _ana, token = reg.register_self(tournament=event, name="Ana")
    strict = Client(enforce_csrf_checks=True)
    with caplog.at_level(logging.INFO):
        assert strict.post(f"/p/{token}/check-in/").status_code == 403
        assert strict.get(f"/p/{token}/check-in/").status_code == 405
        # A PUT from a client that skips the CSRF check, as a script would: the 405.
        assert Client().put(f"/p/{token}/").status_code == 405
    assert token not in caplog.text
    logged = [r.getMessage() for r in caplog.records]
    assert "Forbidden (CSRF cookie not set.): /p/[token]/check-in/" in logged
    assert "Method Not Allowed (GET): /p/[token]/check-in/" in logged


def test_a_csrf_failure_and_a_405_on_a_set_password_link_log_no_token(
    owner: User, caplog: pytest.LogCaptureFixture
) -> None:
    path = set_password_path("owner")
    token = path.rsplit("/", 2)[1]
    strict = Client(enforce_csrf_checks=True)
    with caplog.at_level(logging.INFO):
        assert strict.post(path, {"new_password1": "x", "new_password2": "x"}).status_code == 403
        assert Client().put(path).status_code == 405
    assert token not in caplog.text
    logged = [r.getMessage() for r in caplog.records]
    assert f"Method Not Allowed (PUT): {path.replace(token, '[token]')}" in logged


def test_the_mask_leaves_other_paths_alone_and_catches_an_encoded_link() -> None:
    assert mask_tokens("Not Found: /t/open/players/p12/") == "Not Found: /t/open/players/p12/"
    assert mask_tokens("GET /accounts/login/?next=%2Fp%2FsEcReT%2F") == (
        "GET /accounts/login/?next=%2Fp%2F[token]%2F"
    )
    assert mask_tokens("https://x.org/p/sEcReT") == "https://x.org/p/[token]"


# --- (b) The page showing a set-password link is stored nowhere -------------------------------


def test_the_staff_screen_showing_a_set_password_link_is_no_store(
    oc: Client, event: Tournament
) -> None:
    created = oc.post(f"/accounts/staff/{event.slug}/new/", {"username": "judge"})
    assert created.status_code == 200 and "/accounts/set-password/" in created.content.decode()
    assert "no-store" in created["Cache-Control"]
    judge = User.objects.get(username="judge")
    renewed = oc.post(f"/accounts/staff/{event.slug}/{judge.pk}/link/")
    assert renewed.status_code == 200 and "no-store" in renewed["Cache-Control"]


# --- (c) A plain form from a private page passes the CSRF check over HTTPS ---------------------


def referrer_policy(page: HttpResponse) -> str:
    """The policy a browser applies to the page: its header, then any <meta> in it."""
    metas = META_POLICY.findall(page.content.decode())
    return metas[-1] if metas else page.get("Referrer-Policy", "")


def browser_origin(page: HttpResponse) -> str:
    """The Origin a browser sends with a same-origin form POST from an HTTPS page (Fetch
    standard, 'append a request Origin header'): "null" under no-referrer alone."""
    return "null" if referrer_policy(page) == "no-referrer" else ORIGIN


@pytest.mark.usefixtures("production")
def test_a_plain_check_in_form_posted_from_the_private_page_over_https_is_accepted(
    event: Tournament,
) -> None:
    ana, token = reg.register_self(tournament=event, name="Ana")
    phone = Client(enforce_csrf_checks=True)
    page = phone.get(f"/p/{token}/", secure=True)
    assert page.status_code == 200
    found = CSRF_FIELD.search(page.content.decode())
    assert found, "the check-in form carries its CSRF token"
    response = phone.post(
        f"/p/{token}/check-in/",
        {"csrfmiddlewaretoken": found.group(1)},
        secure=True,
        HTTP_ORIGIN=browser_origin(page),
    )
    assert response.status_code == 302, response.content.decode()[:300]
    assert Player.objects.get(pk=ana.pk).checked_in_at is not None


@pytest.mark.usefixtures("production")
def test_csrf_still_refuses_a_form_posted_from_another_site(event: Tournament) -> None:
    ana, token = reg.register_self(tournament=event, name="Ana")
    phone = Client(enforce_csrf_checks=True)
    found = CSRF_FIELD.search(phone.get(f"/p/{token}/", secure=True).content.decode())
    assert found
    response = phone.post(
        f"/p/{token}/check-in/",
        {"csrfmiddlewaretoken": found.group(1)},
        secure=True,
        HTTP_ORIGIN="https://evil.example",
    )
    assert response.status_code == 403
    assert Player.objects.get(pk=ana.pk).checked_in_at is None


@pytest.mark.usefixtures("production")
def test_private_pages_and_set_password_links_send_the_origin_alone_as_referer(
    event: Tournament, owner: User
) -> None:
    _ana, token = reg.register_self(tournament=event, name="Ana")
    for path in (f"/p/{token}/", "/p/not-a-token/", set_password_path("owner")):
        page = Client().get(path, secure=True)
        assert page["Referrer-Policy"] == "strict-origin", path
        assert referrer_policy(page) == "strict-origin", path
