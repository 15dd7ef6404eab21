"""A server process builds its card index at start (tournaments/asgi.py), so the first
players' decklists do not wait for it; a failure there never stops the process."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tournaments.services import cards

pytestmark = pytest.mark.django_db(transaction=True)

FIXTURE = Path(__file__).parent / "fixtures" / "cards-small.json"


def test_the_warm_up_builds_the_index_the_first_check_then_uses() -> None:
    cards.load_cards(path=FIXTURE)
    cards.warm_card_lookup()
    with CaptureQueriesContext(connection) as queries:
        lookup = cards.card_lookup()
    assert lookup is not None and lookup.get("lightning bolt") is not None
    assert len(queries) == 1  # only the "has the card data changed?" look


def test_a_failing_warm_up_is_logged_and_raises_nothing(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken() -> None:
        raise RuntimeError("database not reachable")

    monkeypatch.setattr(cards, "card_lookup", broken)
    cards.warm_card_lookup()
    assert "not warmed at start" in caplog.text
