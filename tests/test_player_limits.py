"""Players' writes are limited by their private link and by event, per address only as
a wide ceiling: a venue of 1,000 phones behind one NAT address passes (issue 24 item 7).
In the venue mode the counts are shared by every worker (issue 24 item 12).

Every client here is at one address (the test client's 127.0.0.1): a venue's NAT.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, RequestFactory

from tests.conftest import PROJECT_ROOT
from tournaments import ratelimit, services
from tournaments.models import Player, Tournament
from tournaments.services import registration as reg
from tournaments.tokens import new_token, token_hash

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
# 10 s into a minute: every request of a test falls in one window, and the wait a
# refusal announces is the 50 s left of it.
INSTANT = 1_800_000_010.0


@pytest.fixture(autouse=True)
def _one_minute(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tournaments.ratelimit._now", lambda: INSTANT)


@pytest.fixture
def open_registration(owner: User) -> Tournament:
    t = services.create_tournament(name="Venue Open", owner=owner, seed=5)
    return reg.set_registration(
        tournament=t, registration_open=True, cap=None, approval=False, check_in=True, by=owner
    )


def with_links(t: Tournament, count: int) -> list[str]:
    """`count` accepted players with private links, written at once (registering each
    through the form is what the registration test does)."""
    tokens = [new_token() for _ in range(count)]
    Player.objects.bulk_create(
        Player(tournament=t, external_id=f"p{i}", name=f"Player {i}", token_hash=token_hash(tok))
        for i, tok in enumerate(tokens, 1)
    )
    return tokens


def paired_event(players: int) -> tuple[Tournament, list[str]]:
    """Round 1 paired (p1-p2 at table 1, ...), every player with a private link."""
    ids = [f"p{i}" for i in range(1, players + 1)]
    t = services.import_document(
        {
            "format": "swiss-tournament/1",
            "name": "Venue Open",
            "system": "mtr",
            "best_of": 3,
            "seed": 7,
            "players": [{"id": p, "name": f"Player {p}"} for p in ids],
            "rounds": [
                {
                    "number": 1,
                    "phase": 1,
                    "matches": [
                        {"table": k + 1, "players": [ids[2 * k], ids[2 * k + 1]]}
                        for k in range(players // 2)
                    ],
                }
            ],
        }
    )
    found = list(t.players.order_by("pk"))
    tokens = [new_token() for _ in found]
    for p, tok in zip(found, tokens, strict=True):
        p.token_hash = token_hash(tok)
    Player.objects.bulk_update(found, ["token_hash"])
    return t, tokens


# --- The three scenarios, from one address -----------------------------------------


def test_33_registrations_in_a_minute_from_one_address_all_go_in(
    client: Client, open_registration: Tournament
) -> None:
    url = f"/t/{open_registration.slug}/register/"
    codes = [client.post(url, {"name": f"Player {i}"}).status_code for i in range(33)]
    assert codes == [302] * 33
    assert open_registration.players.count() == 33


def test_100_check_ins_in_a_minute_from_one_address_all_go_in(
    client: Client, open_registration: Tournament
) -> None:
    tokens = with_links(open_registration, 100)
    codes = [client.post(f"/p/{tok}/check-in/", **HX).status_code for tok in tokens]
    assert codes == [200] * 100
    assert open_registration.players.filter(checked_in_at__isnull=False).count() == 100


def test_1300_reports_in_a_minute_from_one_address_are_none_refused(client: Client) -> None:
    """A round's last minute at a venue of 1,000: 500 tables, a report and a confirmation
    each and 30 % more (corrections, disputes, drops), all through one NAT address. The
    limits are counted before a form is read, so the writes here are stale forms the
    service refuses (422) at a tenth of a real write's cost: what is measured is that
    none of them is refused as too many (429)."""
    _t, tokens = paired_event(1000)
    writes = [*tokens, *tokens[:300]]
    refused = 0
    for tok in writes:
        response = client.post(f"/p/{tok}/report/", {"match": "1"}, **HX)
        assert response.status_code in (422, 429)
        refused += response.status_code == 429
    assert refused == 0


def test_a_venue_of_1000_passes_every_limit_at_its_busiest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The figures themselves, for the README's venue of 1,000 behind one address:
    registering in three minutes, checking in within one, 1,300 writes in one."""
    request = RequestFactory().post("/", REMOTE_ADDR="192.0.2.1")
    hashes = [f"{i:064x}" for i in range(1000)]
    for i in range(1000):
        minute = i * 3 // 1000
        monkeypatch.setattr("tournaments.ratelimit._now", lambda m=minute: INSTANT + 60 * m)
        limits = ratelimit.registration_limits(request, event_id=1)
        assert ratelimit.first_refused(limits) is None, i
    for h in hashes:
        limits = ratelimit.check_in_limits(request, token_hash=h, event_id=1, players=1000)
        assert ratelimit.first_refused(limits) is None
    for h in [*hashes, *hashes[:300]]:
        limits = ratelimit.report_limits(request, token_hash=h, event_id=1, players=1000)
        assert ratelimit.first_refused(limits) is None


# --- What is still refused, and how it is said ----------------------------------------------


def test_one_link_hammering_check_in_is_refused_saying_which_limit_and_how_long(
    client: Client, open_registration: Tournament
) -> None:
    [tok] = with_links(open_registration, 1)
    codes = [client.post(f"/p/{tok}/check-in/", **HX).status_code for _ in range(20)]
    assert codes == [200] * 20
    refused = client.post(f"/p/{tok}/check-in/", **HX)
    assert refused.status_code == 429 and refused["Retry-After"] == "50"
    assert (
        "Too many check-ins from this link (at most 20 a minute): wait 50 seconds,"
        " then try again." in refused.content.decode()
    )


def test_one_link_hammering_reports_is_refused_and_leaves_the_others_their_budget(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tournaments.ratelimit.REPORT_ADDRESS_LIMIT", 30)
    _t, tokens = paired_event(4)
    codes = [client.post(f"/p/{tokens[0]}/report/", {"match": "1"}).status_code for _ in range(100)]
    assert codes[:20] == [422] * 20 and codes[20:] == [429] * 80
    refused = client.post(f"/p/{tokens[0]}/report/", {"match": "1"}, **HX)
    assert "Too many reports and drops from this link (at most 20 a minute): wait 50 seconds" in (
        refused.content.decode()
    )
    # The 80 refused writes were not counted against the address's 30: the other
    # players behind it still write.
    others = [client.post(f"/p/{tok}/report/", {"match": "1"}).status_code for tok in tokens[1:]]
    assert others == [422] * 3


def test_a_script_with_many_links_of_one_event_meets_the_event_limit(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tournaments.ratelimit.EVENT_FLOOR", 10)
    _t, tokens = paired_event(4)  # 4 players: at most max(10, 3 x 4) = 12 writes a minute
    codes = [client.post(f"/p/{tok}/report/", {"match": "1"}).status_code for tok in tokens * 4]
    assert codes[:12] == [422] * 12 and codes[12:] == [429] * 4
    refused = client.post(f"/p/{tokens[0]}/report/", {"match": "1"}, **HX)
    assert refused["Retry-After"] == "50"
    assert "Too many reports and drops for this event (at most 12 a minute)" in (
        refused.content.decode()
    )


def test_registrations_past_the_event_limit_are_refused_saying_so(
    client: Client, open_registration: Tournament, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tournaments.ratelimit.REGISTER_EVENT_LIMIT", 3)
    url = f"/t/{open_registration.slug}/register/"
    codes = [
        client.post(url, {"name": f"P{i}"}, REMOTE_ADDR=f"192.0.2.{i}").status_code
        for i in range(4)
    ]
    assert codes == [302, 302, 302, 429]
    refused = client.post(url, {"name": "Q"}, REMOTE_ADDR="192.0.2.99")
    assert refused["Retry-After"] == "50"
    assert (
        "Too many registrations for this event (at most 3 a minute): wait 50 seconds"
        in refused.content.decode()
    )


# --- Counts shared by the venue mode's workers (issue 24 item 12) ---------------------------


def test_two_counters_on_one_file_share_one_count(tmp_path: Path) -> None:
    path = tmp_path / "fresh" / "ratelimit.sqlite3"  # a fresh machine: no directory yet
    a, b = ratelimit.FileCounter(path), ratelimit.FileCounter(path)
    counts = [(a if i % 2 else b).incr("k", expires=INSTANT + 60) for i in range(6)]
    assert counts == [1, 2, 3, 4, 5, 6]
    assert oct(path.stat().st_mode & 0o777) == "0o600"


WORKER = textwrap.dedent(
    """
    import sys
    import django
    django.setup()
    from django.conf import settings
    from tournaments import ratelimit
    ratelimit._now = lambda: {instant}
    print(getattr(settings, "RATELIMIT_FILE", ""), flush=True)
    sys.stdin.readline()  # both workers start counting together
    allowed = sum(
        ratelimit.first_refused([ratelimit.Limit("register-address:203.0.113.9", 300, "")]) is None
        for _ in range(200)
    )
    print(allowed, flush=True)
    """
)


def test_the_venue_modes_workers_count_one_limit_together(tmp_path: Path) -> None:
    """Two gunicorn workers as `manage.py venue` starts them (VENUE=1, no Redis), 200
    requests each against a limit of 300: 300 let through in all, not 200 each (a
    lost count would let more through)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tournaments.settings",
        "VENUE": "1",
        "DEBUG": "0",
        "SWISS_STATE_DIR": str(tmp_path / "var"),
        "REDIS_URL": "",
        "RATELIMIT_FILE": "",
    }
    script = WORKER.format(instant=INSTANT)
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", script],
            cwd=PROJECT_ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    files = [w.stdout.readline().strip() for w in workers if w.stdout is not None]
    outputs = [w.communicate("go\n", timeout=60)[0] for w in workers]
    assert all(w.returncode == 0 for w in workers)
    assert sum(int(out.strip()) for out in outputs) == 300  # each its own count: 400
    assert files == [str(tmp_path / "var" / "ratelimit.sqlite3")] * 2


def test_counters_that_fail_let_players_through(
    settings: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings.RATELIMIT_FILE = str(tmp_path)  # a directory: SQLite cannot open it
    assert all(ratelimit.first_refused([ratelimit.Limit("k", 1, "")]) is None for _ in range(3))
    assert "rate limit not counted" in caplog.text
