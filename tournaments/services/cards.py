"""Card data (issue 28): loading Scryfall's bulk file of oracle cards into the Card table,
and the CardLookup the decklist checks read, kept in memory once per process.

Where the file comes from: https://scryfall.com/docs/api/bulk-data, "Oracle Cards" (one
object per card, with its legalities per format). `manage.py load_cards FILE` loads it.
"""

from __future__ import annotations

import gzip
import io
import logging
import threading
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

from django.core.management.color import no_style
from django.db import IntegrityError, connection, transaction
from django.db.models import Max

from tournaments.decklists.lookup import CardIndex
from tournaments.decklists.scryfall import BadFile, oracle_cards
from tournaments.decklists.types import CardInfo, CardLookup
from tournaments.models import Card
from tournaments.services.writing import ServiceError

BATCH = 1000


def _open_text(path: Path) -> io.TextIOBase:
    """The file as text; a gzipped copy (as some mirrors serve it) is read the same."""
    raw = path.open("rb")
    try:
        gzipped = raw.peek(2)[:2] == b"\x1f\x8b" if isinstance(raw, io.BufferedReader) else False
    except OSError:
        gzipped = False
    binary = gzip.GzipFile(fileobj=raw) if gzipped else raw
    return io.TextIOWrapper(binary, encoding="utf-8-sig")  # type: ignore[arg-type]


def load_cards(*, path: str | Path) -> int:
    """Replace the card data with the cards of Scryfall's oracle-cards file at `path`, in
    one transaction (a bad file leaves the old data as it was); the number loaded.

    New rows take ids above every earlier row's, so the highest id names the load: every
    process's card_lookup() sees a new load by one indexed query (a database reusing ids
    after a delete, as SQLite does, would otherwise give a reload the same highest id)."""
    path = Path(path)
    try:
        with _open_text(path) as stream:
            cards = list(oracle_cards(stream))
    except FileNotFoundError:
        raise ServiceError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ServiceError(f"{path}: a directory, not a file") from None
    except BadFile as error:
        raise ServiceError(f"{path}: {error}") from None
    except UnicodeDecodeError:
        raise ServiceError(
            f"{path}: not UTF-8 text (is it Scryfall's Oracle Cards JSON file?)"
        ) from None
    except (OSError, EOFError, gzip.BadGzipFile) as error:
        raise ServiceError(f"{path}: cannot be read ({error})") from None
    if not cards:
        raise ServiceError(f"{path}: no cards in the file (is it Scryfall's Oracle Cards file?)")
    try:
        with transaction.atomic():
            _replace(cards)
    except IntegrityError:
        # Two loads at once: the second's rows meet the first's keys.
        raise ServiceError("another load of card data ran at the same time: run it again") from None
    return len(cards)


def _replace(cards: list[tuple[str, CardInfo]]) -> None:
    first = (Card.objects.aggregate(top=Max("id"))["top"] or 0) + 1
    Card.objects.all().delete()
    Card.objects.bulk_create(
        (
            Card(
                id=first + i,
                key=key,
                name=info.name,
                type_line=info.type_line,
                legalities=dict(info.legalities),
                any_number=info.any_number,
                max_copies=info.max_copies,
            )
            for i, (key, info) in enumerate(cards)
        ),
        batch_size=BATCH,
    )
    # The explicit ids left PostgreSQL's sequence behind; a row created without an id
    # (a test's, an admin's) must not meet them.
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), [Card]):
            cursor.execute(sql)


# --- the lookup -------------------------------------------------------------------------

_lock = threading.Lock()
_loaded: tuple[int, CardIndex] | None = None  # (the load's highest id, its index)


def _infos(rows: Iterable[tuple[str, str, dict[str, str], bool, int | None]]) -> Iterator[CardInfo]:
    # Some 30,000 cards share a few hundred distinct legalities: one read-only mapping
    # each instead of 30,000 dicts.
    shared: dict[tuple[tuple[str, str], ...], Mapping[str, str]] = {}
    for name, type_line, legalities, any_number, max_copies in rows:
        items = tuple(sorted((legalities or {}).items()))
        mapping = shared.get(items)
        if mapping is None:
            mapping = shared[items] = MappingProxyType(dict(items))
        yield CardInfo(name, type_line, mapping, any_number, max_copies)


def card_lookup() -> CardLookup | None:
    """The card data to check lists against, or None when none is loaded (then only the
    structural checks run). Built from the table once per process and load: each call
    costs one indexed query to see whether a new load replaced it."""
    global _loaded
    top = Card.objects.aggregate(top=Max("id"))["top"]
    if top is None:
        return None
    loaded = _loaded
    if loaded is not None and loaded[0] == top:
        return loaded[1]
    with _lock:
        loaded = _loaded
        if loaded is not None and loaded[0] == top:
            return loaded[1]
        rows = Card.objects.values_list(
            "name", "type_line", "legalities", "any_number", "max_copies"
        )
        index = CardIndex(_infos(rows.iterator(chunk_size=5000)))
        # The rows read may be of a load committed after `top` was read: keyed by the
        # older id, the next call reads them again rather than keeping a stale index.
        _loaded = (top, index)
        return index


def forget_card_lookup() -> None:
    """Drop this process's index (tests: a rolled-back load can leave the next load
    with the same highest id)."""
    global _loaded
    with _lock:
        _loaded = None


def warm_card_lookup() -> None:
    """Build this process's card index before the first decklist needs it (2-3 s at
    30,000 cards: the first players' submissions waited for it). Run at a server
    process's start (tournaments/asgi.py); a failure only leaves the first check to
    build it."""
    try:
        card_lookup()
    except Exception:  # a database not reachable yet: the first check tries again
        logging.getLogger(__name__).warning("card data: not warmed at start", exc_info=True)
    finally:
        connection.close()  # this thread's own connection; page threads open theirs
