"""The login lockout and the players' limits behind the README's proxy (BEHIND_PROXY=1,
one trusted proxy), for every shape of X-Forwarded-For a client can send (issue 24 item
2): each counts the client's real address, whatever it writes to the left of it, and the
logs and axes' records name that address.

The organizer is at 198.51.100.7, the attacker at 203.0.113.66.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tournaments import services
from tournaments.models import Player, Tournament
from tournaments.services import registration as reg
from tournaments.tokens import new_token, token_hash

pytestmark = pytest.mark.django_db
ORGANIZER = "198.51.100.7"
ATTACKER = "203.0.113.66"
PROXY = "127.0.0.1"
PASSWORD = "captain-pass-123"
INSTANT = 1_800_000_010.0  # 10 s into a minute: every request falls in one window

# How a request from `address` reaches the app, its `n`-th of a series.
Shape = Callable[[str, int], dict[str, str]]


def no_header(address: str, n: int) -> dict[str, str]:
    """Straight to the app (a proxy that sets no header leaves only the peer)."""
    return {"REMOTE_ADDR": address}


def one_address(address: str, n: int) -> dict[str, str]:
    """Through the proxy, which appends the address it received the request from."""
    return {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": address}


def spoofed(address: str, n: int) -> dict[str, str]:
    """Through the proxy, the client having sent a header of its own, a new value each time."""
    return {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": f"10.{n % 250}.0.{n % 7 + 1}, {address}"}


SHAPES = pytest.mark.parametrize("shape", [no_header, one_address, spoofed])


@pytest.fixture(autouse=True)
def _behind_the_proxy(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.BEHIND_PROXY = True
    settings.TRUSTED_PROXIES = 1
    # Some sixty logins here: a fast hash keeps them from taking half a minute.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    monkeypatch.setattr("tournaments.ratelimit._now", lambda: INSTANT)


@pytest.fixture
def captain(django_user_model: type[User]) -> User:
    return django_user_model.objects.create_user("captain", password=PASSWORD)


def log_in(shape: Shape, address: str, n: int, password: str) -> int:
    response = Client(**shape(address, n)).post(
        "/accounts/login/", {"username": "captain", "password": password}
    )
    return response.status_code


# --- The login lockout (django-axes) --------------------------------------------------------


@SHAPES
def test_an_attackers_wrong_passwords_do_not_lock_out_the_organizer_elsewhere(
    shape: Shape, captain: User
) -> None:
    codes = [log_in(shape, ATTACKER, n, "wrong") for n in range(6)]
    assert codes == [200] * 4 + [429] * 2  # the attacker is locked out ...
    assert log_in(shape, ORGANIZER, 0, PASSWORD) == 302  # ... the organizer is not


@SHAPES
def test_wrong_passwords_from_one_address_lock_it_out_whatever_it_writes_before_it(
    shape: Shape, captain: User
) -> None:
    from axes.models import AccessAttempt

    codes = [log_in(shape, ATTACKER, n, "wrong") for n in range(15)]
    assert codes == [200] * 4 + [429] * 11
    # The right password is refused too, for that address only.
    assert log_in(shape, ATTACKER, 99, PASSWORD) == 429
    assert log_in(shape, ORGANIZER, 99, PASSWORD) == 302
    # axes keeps the real address, never a value the client wrote.
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {ATTACKER}


# --- The players' limits --------------------------------------------------------------------


@pytest.fixture
def open_registration(owner: User) -> Tournament:
    t = services.create_tournament(name="Proxy Open", owner=owner, seed=5)
    return reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=False, check_in=True, by=owner
    )


@SHAPES
def test_registrations_are_counted_per_real_address_behind_the_proxy(
    shape: Shape,
    open_registration: Tournament,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr("tournaments.ratelimit.REGISTER_ADDRESS_LIMIT", 3)  # 400 really
    url = f"/t/{open_registration.slug}/register/"
    codes = [
        Client(**shape(ATTACKER, n)).post(url, {"name": f"Fake {n}"}).status_code for n in range(5)
    ]
    assert codes == [302, 302, 302, 429, 429]
    assert Client(**shape(ORGANIZER, 0)).post(url, {"name": "Ana"}).status_code == 302
    # The refusal is logged once, with the real address and nothing the client wrote.
    lines = [r.getMessage() for r in caplog.records if r.name == "tournaments.ratelimit"]
    assert lines == [f"rate limit: register-address over 3 in 60 s (client {ATTACKER})"]
    assert caplog.records[-1].levelno == logging.WARNING


def paired_event() -> tuple[Tournament, list[str]]:
    """Four players, round 1 paired, each with a private link."""
    t = services.import_document(
        {
            "format": "swiss-tournament/1",
            "name": "Proxy Open",
            "system": "mtr",
            "best_of": 3,
            "seed": 7,
            "players": [{"id": f"p{i}", "name": f"Player {i}"} for i in range(1, 5)],
            "rounds": [
                {
                    "number": 1,
                    "phase": 1,
                    "matches": [
                        {"table": 1, "players": ["p1", "p2"]},
                        {"table": 2, "players": ["p3", "p4"]},
                    ],
                }
            ],
        }
    )
    tokens = []
    for p in t.players.order_by("pk"):
        tokens.append(new_token())
        Player.objects.filter(pk=p.pk).update(token_hash=token_hash(tokens[-1]))
    return t, tokens


@SHAPES
def test_reports_are_counted_per_real_address_behind_the_proxy(
    shape: Shape, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tournaments.ratelimit.REPORT_ADDRESS_LIMIT", 3)  # 2,000 really
    _t, tokens = paired_event()
    # Stale forms (422): the limits are counted before the form is read.
    codes = [
        Client(**shape(ATTACKER, n)).post(f"/p/{tokens[n % 2]}/report/", {"match": "1"})
        for n in range(4)
    ]
    assert [r.status_code for r in codes] == [422, 422, 422, 429]
    assert "Too many reports and drops from this network address" in codes[-1].content.decode()
    other = Client(**shape(ORGANIZER, 0)).post(f"/p/{tokens[2]}/report/", {"match": "1"})
    assert other.status_code == 422
