"""Faults a production install meets: a cache that is down, a database that does not
answer, a write cut off at its worst point. None may cost a saved write or show a trace."""

from __future__ import annotations

import copy
import socket
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import OperationalError
from django.test import Client, override_settings

import scoring.services
from scoring.models import Standing
from scoring.services import event_record, standings_document
from tournaments import services
from tournaments.models import AuditEntry, Match, MatchKind, Player, Round, Seat, Tournament
from tournaments.pages import public as public_pages
from tournaments.services import import_document

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens once the socket is closed


@pytest.fixture
def paired(owner: User) -> Tournament:
    t = services.create_tournament(name="Cache Down Open", owner=owner, seed=3)
    services.register_players(tournament=t, names=[f"Player {i}" for i in range(1, 9)])
    services.pair_next_round(tournament=t)
    return t


def test_with_the_shared_cache_down_every_page_answers_and_a_result_is_saved(
    client: Client, owner: User, paired: Tournament
) -> None:
    dead = {
        "default": {
            "BACKEND": "tournaments.cache.SoftRedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port()}/0",
        }
    }
    with override_settings(CACHES=dead):
        slug = paired.slug
        pid = Player.objects.filter(tournament=paired).first().external_id  # type: ignore[union-attr]
        for page in ["/", f"/t/{slug}/", f"/t/{slug}/standings/", f"/t/{slug}/pairings/",
                     f"/t/{slug}/players/{pid}/", f"/t/{slug}/bracket/",
                     f"/t/{slug}/projector/"]:  # fmt: skip
            assert client.get(page).status_code == 200, page
            assert client.get(page, **HX).status_code == 200, page
        health = client.get("/healthz")
        assert health.status_code == 200 and b"cache: failing" in health.content
        client.force_login(owner)
        match = Match.objects.filter(round__tournament=paired, kind=MatchKind.PLAYED).first()
        assert match is not None
        response = client.post(
            f"/t/{slug}/manage/matches/{match.pk}/result/", {"result": "2-0"}, **HX
        )
        assert response.status_code == 200 and b'class="done"' in response.content
        winner = match.seats.get(position=0).player
        row = next(
            r for r in standings_document(paired)["standings"] if r["id"] == winner.external_id
        )
        assert row["points"] == 3


def test_healthz_fails_when_the_database_does_not_answer(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.db import connection

    def refused() -> Any:
        raise OperationalError("connection refused")

    monkeypatch.setattr(connection, "cursor", refused)
    response = client.get("/healthz")
    assert response.status_code == 503 and b"database: unavailable" in response.content


def test_a_database_that_does_not_answer_gives_a_try_again_page_not_a_trace(
    client: Client, paired: Tournament, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(t: Tournament) -> Any:
        raise OperationalError('connection to server at "db" failed: Connection refused')

    monkeypatch.setattr(public_pages, "standings", refused)
    response = client.get(f"/t/{paired.slug}/standings/")
    assert response.status_code == 503 and b"Try again in a moment" in response.content
    assert response["Retry-After"] == "5" and b"Traceback" not in response.content


# --- A write cut off at its worst point leaves the database as it was ------------------


def snapshot(t: Tournament) -> tuple[Any, ...]:
    """Every row a write may touch, as plain values."""
    return (
        Tournament.objects.filter(pk=t.pk).values_list("version", "status", "phase").get(),
        list(Round.objects.filter(tournament=t).values_list("number", "phase", "playoff")),
        list(
            Match.objects.filter(round__tournament=t)
            .order_by("id")
            .values_list("id", "kind", "reported", "draws")
        ),
        list(
            Seat.objects.filter(round__tournament=t).order_by("id").values_list("id", "games_won")
        ),
        list(
            Standing.objects.filter(tournament=t)
            .order_by("player_id")
            .values_list("player_id", "position", "points_exact", "tiebreakers")
        ),
        AuditEntry.objects.filter(tournament=t).count(),
    )


class Cut(Exception):
    """The worker dies here."""


def cut_after_the_standings_are_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """The last step of every write: rows written, standings stored, audit entry next."""
    real = AuditEntry.objects.bulk_create

    def die(*args: Any, **kwargs: Any) -> Any:
        real(*args, **kwargs)
        raise Cut

    monkeypatch.setattr(AuditEntry.objects, "bulk_create", die)


def test_a_result_cut_off_after_everything_was_written_leaves_nothing(
    paired: Tournament, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = snapshot(paired)
    match = Match.objects.filter(round__tournament=paired, kind=MatchKind.PLAYED).first()
    cut_after_the_standings_are_written(monkeypatch)
    with pytest.raises(Cut):
        services.record_result(match=match, wins=(2, 1))  # type: ignore[arg-type]
    assert snapshot(paired) == before
    monkeypatch.undo()
    # ... and the next write, in the same process, starts from the truth.
    services.record_result(match=match, wins=(2, 1))  # type: ignore[arg-type]
    stored = standings_document(paired)["standings"]
    scoring.services.forget_snapshots()
    scoring.services.recompute(Tournament.objects.get(pk=paired.pk))
    assert standings_document(paired)["standings"] == stored


def test_a_pairing_cut_off_after_everything_was_written_leaves_nothing(
    paired: Tournament, monkeypatch: pytest.MonkeyPatch
) -> None:
    for m in Match.objects.filter(round__tournament=paired, kind=MatchKind.PLAYED):
        services.record_result(match=m, wins=(2, 0))
    before = snapshot(paired)
    cut_after_the_standings_are_written(monkeypatch)
    with pytest.raises(Cut):
        services.pair_next_round(tournament=paired)
    assert snapshot(paired) == before


def test_an_import_cut_off_after_everything_was_written_leaves_nothing(
    small_doc: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = (Tournament.objects.count(), Player.objects.count(), Seat.objects.count())
    cut_after_the_standings_are_written(monkeypatch)
    with pytest.raises(Cut):
        import_document(copy.deepcopy(small_doc))
    after = (Tournament.objects.count(), Player.objects.count(), Seat.objects.count())
    assert after == before and Standing.objects.count() == 0


def test_every_page_carries_a_content_security_policy_and_no_inline_script(
    client: Client, paired: Tournament
) -> None:
    for page in ["/", f"/t/{paired.slug}/", f"/t/{paired.slug}/standings/",
                 f"/t/{paired.slug}/projector/", "/accounts/login/"]:  # fmt: skip
        response = client.get(page)
        policy = response["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy
        body = response.content.decode()
        assert "<script>" not in body and "<script " not in body.replace("<script src=", "")
        assert " style=" not in body and "<style" not in body


def test_the_command_line_csv_escapes_a_name_a_spreadsheet_would_run(
    paired: Tournament,
) -> None:
    from io import StringIO

    from django.core.management import call_command

    player = Player.objects.filter(tournament=paired).first()
    assert player is not None
    services.rename_player(player=player, name='=HYPERLINK("http://x","y")')
    out = StringIO()
    call_command("standings", paired.slug, "--format", "csv", stdout=out)
    assert "'=HYPERLINK" in out.getvalue() and "\n=HYPERLINK" not in out.getvalue()
    assert event_record(paired).players


def test_every_request_context_shares_one_redis_connection_pool() -> None:
    """Django keeps a cache object per context, and under ASGI each request has its own:
    a pool each opened a connection per request."""
    from tournaments.cache import SoftRedisCache

    url = f"redis://127.0.0.1:{closed_port()}/0"
    one, other = SoftRedisCache(url, {}), SoftRedisCache(url, {})
    assert one is not other and one._cache is other._cache
    # ... and one redis-py client per pool, not one per command.
    assert one._cache.get_client(write=True) is other._cache.get_client(write=False)
    elsewhere = SoftRedisCache(f"redis://127.0.0.1:{closed_port()}/1", {})
    assert elsewhere._cache is not one._cache
