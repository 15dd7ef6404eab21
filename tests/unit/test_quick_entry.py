"""The round screen's quick entry: what the organizer types, read as a table and a result."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.parsing import QuickEntry, QuickEntryError, parse_quick_entry


@pytest.mark.parametrize(
    ("text", "entry"),
    [
        ("12 2-1", QuickEntry(12, (2, 1))),
        ("12 1-2", QuickEntry(12, (1, 2))),
        ("  12   2-0-1 ", QuickEntry(12, (2, 0), 1)),
        ("12 2:1", QuickEntry(12, (2, 1))),
        ("12 2 1", QuickEntry(12, (2, 1))),
        ("t12 0-2", QuickEntry(12, (0, 2))),
        ("12: 2-1", QuickEntry(12, (2, 1))),
        ("12 d", QuickEntry(12, (0, 0), draw=True)),
        ("12 D", QuickEntry(12, (0, 0), draw=True)),
        ("12 dl", QuickEntry(12, (0, 0), double_loss=True)),
        ("12 clear", QuickEntry(12, None)),
        ("1024 0-0-3", QuickEntry(1024, (0, 0), 3)),
    ],
)
def test_a_table_and_a_result_are_read_as_typed(text: str, entry: QuickEntry) -> None:
    assert parse_quick_entry(text) == entry


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Type a table number and a result"),
        ("12", "Table 12: add its result"),
        ("12 win", 'Table 12: "win" is not a result'),
        ("2-1", '"2-1" is not a table and a result'),
        ("0 2-1", "Tables are numbered from 1"),
        ("twelve 2-1", "is not a table and a result"),
    ],
)
def test_what_cannot_be_read_is_refused_with_a_message_that_names_it(
    text: str, message: str
) -> None:
    with pytest.raises(QuickEntryError, match=message):
        parse_quick_entry(text)


@given(st.text(max_size=40))
def test_any_typing_is_either_an_entry_or_a_quick_entry_error(text: str) -> None:
    try:
        entry = parse_quick_entry(text)
    except QuickEntryError as exc:
        assert str(exc)
    else:
        assert entry.table >= 1
        assert entry.wins is None or all(0 <= w <= 99 for w in entry.wins)
