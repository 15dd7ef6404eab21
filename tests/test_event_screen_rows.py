"""The event screen reads only the round's rows it shows (issue 26, the pair click): the
same rows and counts as reading every table and capping them."""

from __future__ import annotations

import pytest

from tests.helpers import paired_doc
from tournaments import services
from tournaments.models import Match
from tournaments.pages.round_screen import Filters, _all_rows, _first_rows, round_screen
from tournaments.services import import_document

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("reported_tables", [set(), {1, 2, 3, 50, 99}, set(range(1, 100))])
def test_the_capped_rows_are_those_a_full_read_would_show(reported_tables: set[int]) -> None:
    t = import_document(paired_doc(199))  # 99 tables and a bye
    round_ = t.rounds.get()
    for m in Match.objects.filter(round=round_, table__in=reported_tables, kind="played"):
        services.record_result(match=m.pk, tournament=t, wins=(2, 1), draws=0)
    for limit in (10, 64, 100, 500):
        assert _first_rows(t, round_, limit) == _all_rows(t, round_, Filters(), limit)
        assert round_screen(t, round_, Filters(), limit=limit) == _first_rows(t, round_, limit)
