"""Nobody can fill the cache through the query string (issue 24 item 1).

Public pages and the JSON API key their cached copies by the parameters they read, not by
the query string as sent: a request with anything else is redirected to the canonical URL
before any render, free text is rendered for its request alone, and the deployment caps
what Redis and nginx may hold."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from tests.conftest import PROJECT_ROOT
from tournaments import live
from tournaments.models import Tournament
from tournaments.services import import_document

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
TRIES = 200


def stored() -> int:
    """Entries kept: the shared cache (locmem in tests) and the process's own pages."""
    return len(cache._cache) + len(live._OWN)  # type: ignore[attr-defined]


def with_query(url: str, extra: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}{extra}"


PAGES = [
    "",
    "standings/",
    "standings/?me=p1",
    "pairings/",
    "pairings/?round=1&by=name",
    "players/p1/",
    "tiebreakers/p1/",
    "bracket/",
    "projector/",
]


@pytest.mark.parametrize("headers", [{}, HX], ids=["page", "htmx"])
@pytest.mark.parametrize("page", PAGES)
def test_two_hundred_junk_query_strings_store_nothing_beyond_the_canonical_page(
    client: Client, event: Tournament, page: str, headers: dict[str, str]
) -> None:
    url = f"/t/{event.slug}/{page}"
    canonical = client.get(url, **headers)
    assert canonical.status_code == 200
    before = stored()
    for n in range(TRIES):
        response = client.get(with_query(url, f"junk={n}"), **headers)
        assert response.status_code == 301 and response["Location"] == url
        assert response["Cache-Control"] == "no-store"
    assert stored() == before
    again = client.get(url, **headers)
    assert again.content == canonical.content and again["ETag"] == canonical["ETag"]
    followed = client.get(with_query(url, "junk=x"), follow=True, **headers)
    assert followed.content == canonical.content
    # What the page itself asks for is canonical: its refetch (hx-get) and its event
    # stream with the version it shows (?at=) are answered as they are.
    html = canonical.content.decode()
    for found in re.findall(r'(?:hx-get|data-live)="([^"]+)"', html):
        target = found.replace("&amp;", "&")
        assert client.get(target, **HX).status_code in (200, 204, 304), target


def test_the_json_api_answers_junk_with_the_canonical_url_and_stores_nothing(
    client: Client, event: Tournament
) -> None:
    base = f"/t/{event.slug}"
    for url in (f"{base}/pairings.json?round=1", f"{base}/standings.json"):
        canonical = client.get(url)
        assert canonical.status_code == 200
        before = stored()
        for n in range(TRIES):
            response = client.get(with_query(url, f"x={n}"))
            assert response.status_code == 301 and response["Location"] == url
            # A cross-site script following the redirect may read where it leads.
            assert response["Access-Control-Allow-Origin"] == "*"
        assert stored() == before
        assert client.get(with_query(url, "x=1"), follow=True).json() == canonical.json()
    moved = client.get(f"{base}/pairings.json?round=01")
    assert moved.status_code == 301 and moved["Location"] == f"{base}/pairings.json?round=1"


def test_declared_parameters_cannot_fill_the_cache_either(
    client: Client, event: Tournament
) -> None:
    base = f"/t/{event.slug}"
    for headers in ({}, HX):
        client.get(f"{base}/pairings/?by=name", **headers)
        client.get(f"{base}/projector/", **headers)
    before = stored()
    for n in range(TRIES):
        # Rounds that do not exist: no page each.
        assert client.get(f"{base}/pairings/?round={3 + n}").status_code == 404
        # Players that do not exist.
        assert client.get(f"{base}/standings/?me=nobody{n}").status_code == 404
        # A search is free text: rendered for its request, kept by no cache.
        for headers in ({}, HX):
            found = client.get(f"{base}/pairings/?by=name&q=zorro{n}", **headers)
            assert found.status_code == 200 and "Nobody called" in found.content.decode()
            assert found["Cache-Control"] == "private, no-cache"
        # The projector's interval is read by its script only: in no key.
        screen = client.get(f"{base}/projector/?interval={1000 + n}")
        assert screen.status_code == 200 and screen["Cache-Control"] == "private, no-cache"
    assert stored() == before
    # A search longer than any name is cut to that length.
    long = client.get(f"{base}/pairings/?q={'a' * 500}")
    assert long.status_code == 301
    assert long["Location"] == f"{base}/pairings/?q={'a' * live.MAX_SEARCH}"


def test_the_order_and_spelling_of_declared_parameters_make_one_copy(
    client: Client, event: Tournament
) -> None:
    base = f"/t/{event.slug}/pairings/"
    first = client.get(f"{base}?round=1&by=name", **HX)
    before = stored()
    second = client.get(f"{base}?by=name&round=1", **HX)
    assert second.status_code == 200 and second["ETag"] == first["ETag"]
    assert stored() == before
    for spelled in ("round=01&by=name", "round=1&round=2&by=name", "by=name&round=1&by=x"):
        response = client.get(f"{base}?{spelled}", **HX)
        assert response.status_code == 301, spelled
        assert response["Location"] == f"{base}?round=1&by=name", spelled
    # A value the page reads as its default is left out.
    assert client.get(f"{base}?by=table")["Location"] == base
    assert client.get(f"/t/{event.slug}/standings/?me=")["Location"] == (
        f"/t/{event.slug}/standings/"
    )


def test_a_path_a_proxy_would_read_as_another_page_is_not_served(
    client: Client, small_doc: dict[str, Any]
) -> None:
    doc = copy.deepcopy(small_doc)
    # Player ids are any string: these two would be stored by nginx ($uri) under the
    # key of another event's standings, or of player "a/b".
    doc["players"][0]["id"] = "../../other/standings"
    doc["players"][1]["id"] = "a//b"
    for rnd in doc["rounds"]:
        for match in rnd["matches"]:
            match["players"] = [
                {"p1": "../../other/standings", "p2": "a//b"}.get(p, p) for p in match["players"]
            ]
    t = import_document(doc)
    assert t.players.filter(external_id__in=["../../other/standings", "a//b"]).count() == 2
    for path in ("players/../../other/standings/", "players/a//b/", "players/a//b.json"):
        assert client.get(f"/t/{t.slug}/{path}").status_code == 404, path
    assert client.get(f"/t/{t.slug}/players/p3/").status_code == 200


# --- the deployment: Redis and the README's nginx ----------------------------------------


def test_compose_caps_redis_memory_and_evicts_the_least_recently_used_keys() -> None:
    compose = (PROJECT_ROOT / "docker-compose.yml").read_text()
    redis = compose.split("\n  redis:\n", 1)[1].split("\n  web:\n", 1)[0]
    command = re.search(r"command: \[(.*?)\]", redis, re.S)
    assert command is not None
    words = re.findall(r'"([^"]*)"', command.group(1))
    assert words[0] == "redis-server"
    assert words[words.index("--maxmemory") + 1] == "256mb"
    assert words[words.index("--maxmemory-policy") + 1] == "allkeys-lru"


def _nginx() -> str:
    readme = (PROJECT_ROOT / "README.md").read_text()
    section = readme.split("\n## Behind a cache\n", 1)[1].split("\n## ", 1)[0]
    start = section.index("    proxy_cache_path")
    block = section[start:].split("\n\n", 1)[0]
    return "\n".join(line[4:] for line in block.splitlines())


def _locations(conf: str) -> dict[str, str]:
    """Each location's head ("~ ^/t/[^/]+/live/$") and its body, braces matched."""
    found = {}
    for m in re.finditer(r"location\s+([^{]+?)\s*\{", conf):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(conf[i], 0)
            i += 1
        found[m.group(1)] = conf[m.end() : i - 1]
    return found


def test_the_readme_nginx_passes_the_client_address_and_keys_no_raw_query_string() -> None:
    conf = _nginx()
    locations = _locations(conf)
    proxied = {head: body for head, body in locations.items() if "proxy_pass" in body}
    assert len(proxied) == len(locations) >= 5
    for head, body in proxied.items():
        assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" in body, head
    keys = re.findall(r"proxy_cache_key\s+\"([^\"]+)\";", conf)
    assert len(keys) == 1
    key = keys[0]
    assert "$request_uri" not in key and "$uri$is_args$args" in key
    # The headers in the key are mapped to the values the app tells apart.
    assert "$http_accept_encoding" not in key and "$http_hx_request" not in key


def test_the_readme_nginx_logs_no_private_link_and_no_set_password_link() -> None:
    locations = _locations(_nginx())
    link = reverse("set_password", kwargs={"uidb64": "MQ", "token": "abc-def"})
    prefix = link.split("MQ/", 1)[0]
    # `^~`: a prefix location the organizer's regex location cannot take over.
    assert "access_log off;" in locations[f"^~ {prefix}"]
    assert "access_log off;" in locations["/p/"]
