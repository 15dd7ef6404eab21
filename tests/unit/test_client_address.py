"""One rule for the client's address (tournaments/clientaddress.py), per header shape."""

from __future__ import annotations

import pytest

from tournaments.clientaddress import UNKNOWN, from_headers, of_scope

PROXY = "127.0.0.1"  # the README's nginx on the same host


@pytest.mark.parametrize(
    ("forwarded", "client"),
    [
        ("198.51.100.7", "198.51.100.7"),  # nginx appended the client: one entry
        ("6.6.6.6, 198.51.100.7", "198.51.100.7"),  # the client forged one before it
        ("6.6.6.6,7.7.7.7 , 198.51.100.7", "198.51.100.7"),
        ("not-an-address, 198.51.100.7", "198.51.100.7"),
        ("2001:db8::5", "2001:db8::5"),
        ("[2001:db8::5]:443", "2001:db8::5"),
        ("198.51.100.7:51234", "198.51.100.7"),
        ("::ffff:198.51.100.7", "198.51.100.7"),
    ],
)
def test_behind_one_proxy_the_client_is_the_entry_the_proxy_appended(
    forwarded: str, client: str
) -> None:
    assert from_headers(PROXY, forwarded, proxies=1) == client


def test_a_forged_header_never_moves_the_address_behind_one_proxy() -> None:
    seen = {from_headers(PROXY, f"10.0.0.{n}, 198.51.100.7", proxies=1) for n in range(15)}
    assert seen == {"198.51.100.7"}


def test_behind_two_proxies_the_client_is_what_the_outer_one_wrote() -> None:
    # client -> CDN (appends the client) -> nginx (appends the CDN) -> app
    assert from_headers(PROXY, "6.6.6.6, 198.51.100.7, 203.0.113.1", proxies=2) == "198.51.100.7"


def test_without_a_proxy_the_header_is_never_read() -> None:
    assert from_headers("192.168.1.50", "6.6.6.6", proxies=0) == "192.168.1.50"


def test_a_proxy_that_sets_no_header_leaves_only_its_own_address() -> None:
    assert from_headers(PROXY, None, proxies=1) == PROXY
    assert from_headers(PROXY, "", proxies=1) == PROXY


def test_an_unreadable_entry_where_the_proxy_wrote_falls_back_to_the_peer() -> None:
    assert from_headers(PROXY, "garbage", proxies=1) == PROXY
    assert from_headers(None, None, proxies=0) == UNKNOWN
    assert from_headers("x" * 500, None, proxies=0) == UNKNOWN


def test_an_asgi_scope_reads_the_same_rule() -> None:
    scope = {
        "client": (PROXY, 40000),
        "headers": [(b"x-forwarded-for", b"6.6.6.6"), (b"x-forwarded-for", b"198.51.100.7")],
    }
    assert of_scope(scope, proxies=1) == "198.51.100.7"
    assert of_scope({"client": None, "headers": []}, proxies=0) == UNKNOWN
