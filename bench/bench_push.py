"""Benchmark: Web Push after pairing a round of 2,048 players, 2,000 of them subscribed
(issue 29's target: every notification handed to the push service within 10 s, the pair
click unchanged).

Run: .venv/bin/python bench/bench_push.py [--players 2048] [--subscribed 2000]

On the database DATABASE_URL names, else the machine's PostgreSQL server (database
swiss_bench_push, made afresh), else a temporary SQLite file. bench_pair_click's event
(9 complete Swiss rounds) is imported; `--subscribed` of its players get a subscription
each, with a real P-256 key pair and auth secret, at a fake push service on this machine
(tests/push_service.py: it checks nothing while timed; a sample is decrypted after).

1. The pairing service (services.pair_next_round) with nobody subscribed and with every
   subscription, 3 times each (undone between): the outbox's cost inside the click.
2. From the pairing's commit, the sender (tournaments.webpush.send_due, in this process,
   its posts side by side) until the fake service has every notification: the time,
   against the 10 s target; then 50 of them decrypted with their subscription's key and
   their VAPID token checked.

BENCH_VERBOSE=1 prints each pass of the sender.

A missed target prints MISSED (exit code 0); a notification lost or unreadable exits 1.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

TARGET_S = 10.0
PG_ADMIN = "postgres://postgres@127.0.0.1:5432/postgres"
PG_DATABASE = "swiss_bench_push"


def database(tmp: str) -> str:
    try:
        import psycopg

        with psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=2) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {PG_DATABASE} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {PG_DATABASE}")
    except Exception:  # no PostgreSQL server here
        return f"sqlite:///{tmp}/push.sqlite3"
    return f"postgres://postgres@127.0.0.1:5432/{PG_DATABASE}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2048)
    parser.add_argument("--subscribed", type=int, default=2000)
    args = parser.parse_args()
    from calibration import print_calibration

    print_calibration()  # the machine's speed, to read the figures below against
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(
            DEBUG="0", SECRET_KEY="bench-only", ALLOWED_HOSTS="localhost",
            DJANGO_SETTINGS_MODULE="tournaments.settings", LIVE_PREWARM="0",
            SWISS_STATE_DIR=tmp,  # the VAPID pair is made there, and goes with it
        )  # fmt: skip
        os.environ.setdefault("DATABASE_URL", database(tmp))
        os.environ.pop("REDIS_URL", None)
        import django

        django.setup()
        sys.exit(run(args.players, args.subscribed))


def run(players: int, subscribed: int) -> int:
    from bench_pair_click import document
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from tests.push_service import Browser, check_vapid, fake_push_service
    from tournaments import services, vapid, webpush
    from tournaments.models import Player, PushMessage, PushSubscription

    call_command("migrate", verbosity=0)
    owner, _ = get_user_model().objects.get_or_create(username="bench-push")
    t = services.import_document(document(players), owner=owner)
    print(f"web push, {players} players, {subscribed} subscribed ({connection.vendor}):")

    def pair_ms() -> float:
        start = time.perf_counter()
        services.pair_next_round(tournament=t)
        return (time.perf_counter() - start) * 1000

    def undo() -> None:
        services.undo_round(tournament=t)
        PushMessage.objects.all().delete()

    bare = []
    for _ in range(3):
        bare.append(pair_ms())
        undo()
    with fake_push_service() as service:
        phones: dict[str, Browser] = {}
        rows = []
        chosen = list(
            Player.objects.filter(tournament=t).order_by("pk").values_list("pk", flat=True)
        )[:subscribed]
        for pk in chosen:
            phone = Browser()
            phones[f"p{pk}"] = phone
            rows.append(
                PushSubscription(
                    tournament=t, player_id=pk, endpoint=service.endpoint(f"p{pk}"),
                    p256dh=phone.p256dh, auth=phone.auth,
                )
            )  # fmt: skip
        PushSubscription.objects.bulk_create(rows)
        with_subs = []
        for _ in range(3):
            with_subs.append(pair_ms())
            undo()
        print(
            f"  pairing service: median {statistics.median(bare):.1f} ms with nobody subscribed,"
            f" {statistics.median(with_subs):.1f} ms with {subscribed} (one INSERT ... SELECT)"
        )

        webpush.send_due()  # the VAPID header signed, the threads started: not in the figure
        services.pair_next_round(tournament=t)
        queued = PushMessage.objects.count()
        start = time.perf_counter()
        while len(service.delivered()) < queued and time.perf_counter() - start < 60:
            pass_start = time.perf_counter()
            done = webpush.send_due(limit=webpush.BATCH)
            if os.environ.get("BENCH_VERBOSE"):
                print(f"    pass: {done} in {time.perf_counter() - pass_start:.2f} s")
            if done.handled == 0:
                time.sleep(0.05)
        took = time.perf_counter() - start
        got = service.delivered()
        verdict = "ok" if took <= TARGET_S and len(got) == queued else "MISSED"
        print(
            f"  delivered {len(got)} of {queued} notifications in {took:.2f} s"
            f" ({len(got) / took:.0f}/s, {webpush.WORKERS} posts side by side);"
            f" target <= {TARGET_S:.0f} s: {verdict}"
        )
        public = vapid.server_keys().public_key
        for received in random.Random(1).sample(got, min(50, len(got))):
            name = received.path.rsplit("/", 1)[-1]
            message = phones[name].decrypt(received.body)
            if message.get("kind") != "pairing" or not message.get("title"):
                print(f"bench_push: FAILED: {name} read {message!r}")
                return 1
            check_vapid(
                received.headers["authorization"], audience=service.origin, public_key=public
            )
        print("  50 of them decrypted with their subscription's key, VAPID tokens checked: ok")
        if len(got) != queued:
            print("bench_push: FAILED: notifications lost")
            return 1
    return 0


if __name__ == "__main__":
    main()
