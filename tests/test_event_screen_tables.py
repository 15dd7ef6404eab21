"""The event screen lists at most EVENT_SCREEN_TABLES of the round's tables, those still
waiting for a result first, and links to the round screen, which has them all."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from tests.helpers import paired_doc
from tournaments import services
from tournaments.models import Match, Tournament
from tournaments.pages.organizer import EVENT_SCREEN_TABLES
from tournaments.services import import_document


def _owned(doc: dict[str, Any], owner: Any) -> Tournament:
    t = import_document(doc)
    t.owner = owner
    t.save()
    return t


def _tables(page: str) -> list[int]:
    return [int(n) for n in re.findall(r'<tr id="match-\d+"[^>]*><th>(\d+)</th>', page)]


@pytest.mark.django_db
@pytest.mark.parametrize("extra", [{}, {"HTTP_HX_REQUEST": "true"}])
def test_a_big_rounds_event_screen_lists_the_waiting_tables_first_and_links_to_all(
    oc: Client, owner: Any, extra: dict[str, str]
) -> None:
    t = _owned(paired_doc(300), owner)  # 150 tables
    for match in Match.objects.filter(round__tournament=t, table__lte=100):
        services.record_result(match=match, wins=(2, 0), draws=0)
    page = oc.get(f"/t/{t.slug}/manage/", **extra).content.decode()
    assert page.count('<tr id="match-') == EVENT_SCREEN_TABLES
    assert f"{EVENT_SCREEN_TABLES} of 150 tables here" in page
    assert f'href="/t/{t.slug}/manage/rounds/1/">all 150 tables on the round screen' in page
    # The 50 tables still waiting, then the first done ones, in table order.
    assert _tables(page) == list(range(1, EVENT_SCREEN_TABLES - 50 + 1)) + list(range(101, 151))
    screen = oc.get(f"/t/{t.slug}/manage/rounds/1/", **extra).content.decode()
    assert screen.count('<tr id="match-') == 150 and "tables here" not in screen


@pytest.mark.django_db
def test_a_clubs_event_screen_lists_every_table(oc: Client, owner: Any) -> None:
    t = _owned(paired_doc(16, "Club Night"), owner)
    page = oc.get(f"/t/{t.slug}/manage/").content.decode()
    assert page.count('<tr id="match-') == 8 and "tables here" not in page
