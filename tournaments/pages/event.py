"""The event as the phones' pages read it: one immutable view per (event, version).

`event_view(t)` is the only place the phones' pages read seats, players, standings, the
current round and the "What do I need?" figures. It is built once per version in each
process (`event_view`: the threads asking meanwhile wait for it), from the newest view
kept here when the change
log (scoring.services.changes_since) says only results or figures changed since: then
only the changed matches' seats are read again (a result every few seconds at 2,048
players; reading every seat was 60 ms), else everything is read afresh. A view is never
changed once made: a page or a digest reads it without a lock.

tournaments.pages.public builds each tracked page, and the digest its ETag derives from,
from the same view (`player_inputs`, `near_inputs`); tournaments.live caches by them.
"""

from __future__ import annotations

import copy
import threading
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, NamedTuple

from scoring import outlooks
from scoring.models import Outlook, Standing, StandingsState
from scoring.seats import HoodSeat, Neighbourhood, RoundRow, read_rounds, read_seats
from scoring.services import changes_since
from tournaments import names
from tournaments.domain import current_round, playoff_names, round_label
from tournaments.models import Entry, Player, Round, Status, Tournament
from tournaments.pages.bracket import finishes, placings
from tournaments.pages.common import round_extensions
from tournaments.rules import Finish, RoundName

# --- every seat of the event ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seating:
    """Every seat of an event as of one moment, indexed to build any player's
    `Neighbourhood` without a query: after each result hundreds of phones ask for their
    player's page, and two queries each (7-9 ms on PostgreSQL at 2,048 players, most of
    the page) cost more than reading the whole event once (`event_view`)."""

    rounds: list[RoundRow]
    seats_of: dict[int, tuple[HoodSeat, ...]]  # match id -> its seats by position
    matches_of: dict[int, tuple[int, ...]]  # player pk -> their match ids
    order: dict[int, tuple[int, bool, int, int]]  # match id -> the SQL's ORDER BY

    def neighbourhood(self, player: Player) -> Neighbourhood:
        """What `neighbourhood`'s SQL reads: every match of everyone who sat at one of the
        player's tables (the player included), and the rounds' witnesses."""
        matches: set[int] = set()
        for match_id in self.matches_of.get(player.pk, ()):
            for seat in self.seats_of[match_id]:
                matches.update(self.matches_of[seat.player_id])
        matches.update(row[4] for row in self.rounds if row[4] is not None)
        seats = [
            seat
            for match_id in sorted(matches, key=self.order.__getitem__)
            for seat in self.seats_of[match_id]
        ]
        return Neighbourhood(
            player_id=player.pk,
            player=(player.external_id, player.dropped_after_round),
            rounds=self.rounds,
            seats=seats,
        )

    def updated(self, tournament: Tournament, match_ids: Iterable[int]) -> Seating:
        """This seating with these matches read again (their results changed): what
        every phone server does after each result, instead of reading every seat (60 ms
        at 2,048 players x 10 rounds). The rounds are read again too: their witnesses
        move with the first result of a round."""
        wanted = sorted(set(match_ids))
        seats = read_seats(matches=wanted)
        return _seating(read_rounds(tournament), seats, base=self, replaced=wanted)


def _seating(
    rounds: list[RoundRow],
    seats: list[HoodSeat],
    *,
    base: Seating | None = None,
    replaced: Iterable[int] = (),
) -> Seating:
    """A `Seating` of these seats, or of `base` with the matches `replaced` by them."""
    seats_of = dict(base.seats_of) if base is not None else {}
    matches_of = dict(base.matches_of) if base is not None else {}
    order = dict(base.order) if base is not None else {}
    players: set[int] = set()
    for match_id in replaced:
        for s in seats_of.pop(match_id, ()):
            players.add(s.player_id)
        order.pop(match_id, None)
    grouped: dict[int, list[HoodSeat]] = defaultdict(list)
    for s in seats:
        grouped[s.match_id].append(s)
        players.add(s.player_id)
    number = {rid: n for rid, n, *_rest in rounds}
    for match_id, group in grouped.items():
        seats_of[match_id] = tuple(group)
        first = group[0]
        order[match_id] = (number[first.round_id], first.table is None, first.table or 0, match_id)
    if base is None:
        mine: dict[int, list[int]] = defaultdict(list)
        for s in seats:
            mine[s.player_id].append(s.match_id)
        matches_of = {pk: tuple(ids) for pk, ids in mine.items()}
    else:
        gone = set(replaced) - set(grouped)
        for pk in players:
            ids = [m for m in matches_of.get(pk, ()) if m not in gone]
            ids.extend(m for m, group in grouped.items() if any(s.player_id == pk for s in group))
            matches_of[pk] = tuple(sorted(set(ids)))
    return Seating(rounds=rounds, seats_of=seats_of, matches_of=matches_of, order=order)


def read_seating(tournament: Tournament) -> Seating:
    """Every seat of the event, in two queries (see `Seating`)."""
    return _seating(read_rounds(tournament), read_seats(tournament=tournament))


# --- names as pages show them ------------------------------------------------------


def display_names(t: Tournament) -> dict[str, str]:
    """external id -> the name as every page, print-out and export shows it
    (names.display_names: namesakes numbered in the order they entered). Rejected entries
    are left out: a double registration the organizer turned down must not give the real
    one a number for the rest of the event. From the event's view when this process
    holds the current version, else one query: the organizer's screens and the
    print-outs read it without building a view."""
    found = _VIEWS.get((t.pk, t.created_at.timestamp(), t.version))
    if found is not None:
        return found.display_names
    # A screen asks several times (rows, bracket, players list): read once per request's
    # tournament and version.
    kept = t.__dict__.get("_display_names")
    if kept is not None and kept[0] == t.version:
        return kept[1]
    # This process's last reading, when the writes since changed only results or figures
    # (the change log says so, from the cache): a result entry then reads no player row
    # (at 8,192 players every one, for the two names its row shows).
    event = (t.pk, t.created_at.timestamp())
    last = _NAMES.get(event)
    if last is not None and last[0] <= t.version and changes_since(t, last[0]) is not None:
        shown = last[1]
    else:
        rows = t.players.exclude(entry=Entry.REJECTED).order_by("pk")
        shown = names.display_names(rows.values_list("external_id", "name"))
    if len(_NAMES) > 64 and event not in _NAMES:
        _NAMES.clear()  # a server of many events: keep the memo small
    _NAMES[event] = (t.version, shown)
    t.__dict__["_display_names"] = (t.version, shown)
    return shown


# Per event, the version of the last names read and the names (display_names).
_NAMES: dict[tuple[int, float], tuple[int, dict[str, str]]] = {}


def namesakes(t: Tournament) -> dict[str, str]:
    """external id -> shown name, of the players whose shown name is not their stored
    one (the exports add it beside the stored name); usually empty."""
    found = _VIEWS.get((t.pk, t.created_at.timestamp(), t.version))
    if found is not None:
        return {e: n for e, n in found.display_names.items() if n != found.players[e].name}
    rows = list(
        t.players.exclude(entry=Entry.REJECTED).order_by("pk").values_list("external_id", "name")
    )
    shown = names.display_names(rows)
    return {e: shown[e] for e, n in rows if shown[e] != n}


def display_name(t: Tournament, player: Player) -> str:
    """One player's name as pages show it (`display_names`)."""
    return display_names(t).get(player.external_id, player.name)


# --- the view ----------------------------------------------------------------------

STANDINGS_COLUMNS = (
    "rank", "points", "wins", "losses", "draws", "tiebreakers",
    "player__name", "player__external_id", "player__dropped_after_round",
)  # fmt: skip


class StoredStanding(NamedTuple):
    """A player's stored standing as their page shows it (scoring.models.Standing)."""

    rank: int
    points: Any
    wins: int
    losses: int
    draws: int
    played: int
    tiebreakers: dict[str, Any]


@dataclass(frozen=True)
class Table:
    """The stored standings of one version, as the phones' pages read them."""

    rows: tuple[tuple[Any, ...], ...]  # STANDINGS_COLUMNS, by position
    position_of: dict[str, int]  # player id -> position (1-based)
    of_player: dict[int, StoredStanding]  # player pk -> their standing
    after_round: int | None


@dataclass(frozen=True)
class CurrentRound:
    """The round being played (pages.common.current_round) with what pages show of it."""

    round: Round  # never handed out: `copy()` gives each caller its own
    label: RoundName  # data: every reader's page says it in its own language

    def copy(self) -> Round:
        return copy.copy(self.round)


@dataclass(frozen=True)
class EventView:
    """One event as of one version (module docstring). Read it, never change it."""

    version: int
    players: dict[str, Player]  # by external id; every entry state
    seating: Seating
    table: Table
    current: CurrentRound | None
    placings: tuple[dict[str, Any], ...]  # the top cut's final placings, once decided
    # player id -> their top-cut finish once decided (5th-8th, as numbers): the standings
    # show it
    finishes: dict[str, Finish]
    playoff_names: dict[int, RoundName]  # round number -> its name: what standings are after
    figures: Outlook | None  # the current round's "What do I need?" row (scoring.outlooks)
    # match id -> minutes added to that table of the current round (issue 27: time
    # extensions, deck checks); tables with none are left out
    extensions: dict[int, int] = field(default_factory=dict)

    @cached_property
    def display_names(self) -> dict[str, str]:
        """external id -> the name as pages show it (`display_names`)."""
        return names.display_names(
            (ext, p.name) for ext, p in self.players.items() if p.entry != Entry.REJECTED
        )

    @cached_property
    def namesakes_text(self) -> str:
        """The labels of the event's namesakes written out ("" when there are none): a
        late namesake relabels players whose own rows did not move, so the digests of the
        pages that show names hold this too."""
        return repr(
            sorted((e, n) for e, n in self.display_names.items() if n != self.players[e].name)
        )

    @cached_property
    def row_texts(self) -> tuple[str, ...]:
        """Each standings row written out once, for the digests of the pages showing it."""
        return tuple(repr(row) for row in self.table.rows)

    @cached_property
    def match_texts(self) -> dict[int, str]:
        """Each match's seats written out once, for the digests of the pages showing it."""
        return {m: repr(seats) for m, seats in self.seating.seats_of.items()}

    @cached_property
    def player_matches(self) -> dict[int, tuple[int, ...]]:
        """player pk -> their matches, in round and table order (as their page lists them)."""
        order = self.seating.order.__getitem__
        return {pk: tuple(sorted(ids, key=order)) for pk, ids in self.seating.matches_of.items()}

    @cached_property
    def player_texts(self) -> dict[int, str]:
        """player pk -> the seats of their matches written out, in `player_matches` order:
        what their page shows of their matches, for its digests."""
        texts = self.match_texts
        return {pk: "".join(texts[m] for m in ids) for pk, ids in self.player_matches.items()}


# What a view writes out for the digests, derived only from its seating: a view built
# from the last one after results takes it over, written out again for the changed
# matches and their players only (after each result, at 2,048 players, all of it again
# was a third of a phone server's refresh).
_SEAT_TEXTS = ("match_texts", "player_matches", "player_texts")


def _carried(view: EventView, last: EventView, changed: Iterable[int]) -> EventView:
    """`view` with `last`'s written-out seats taken over where `changed` left them."""
    done = last.__dict__  # cached_property keeps what it computed there
    if not all(name in done for name in _SEAT_TEXTS):
        return view
    changed = set(changed)
    seats_of = view.seating.seats_of
    players = {
        s.player_id
        for m in changed
        for s in (*seats_of.get(m, ()), *last.seating.seats_of.get(m, ()))
    }
    texts = {**done["match_texts"]}
    for m in changed:
        texts.pop(m, None)
        if m in seats_of:
            texts[m] = repr(seats_of[m])
    order = view.seating.order.__getitem__
    matches_of = view.seating.matches_of
    player_matches = {**done["player_matches"]}
    player_texts = {**done["player_texts"]}
    for pk in players:
        ids = tuple(sorted(matches_of.get(pk, ()), key=order))
        player_matches[pk] = ids
        player_texts[pk] = "".join(texts[m] for m in ids)
    view.__dict__.update(
        match_texts=texts, player_matches=player_matches, player_texts=player_texts
    )
    return view


def _read_table(t: Tournament) -> Table:
    rows = list(
        Standing.objects.filter(tournament=t)
        .order_by("position")
        .values_list(*STANDINGS_COLUMNS, "player_id", "played")
    )
    state = StandingsState.objects.filter(tournament=t).values_list("after_round", flat=True)
    return Table(
        rows=tuple(row[:9] for row in rows),
        position_of={row[7]: i for i, row in enumerate(rows, start=1)},
        of_player={
            row[9]: StoredStanding(row[0], row[1], row[2], row[3], row[4], row[10], row[5])
            for row in rows
        },
        after_round=next(iter(state), None),
    )


def _read_current(t: Tournament) -> CurrentRound | None:
    found = current_round(t)
    label = round_label(found) if found is not None else None
    return None if found is None or label is None else CurrentRound(found, label)


def _read_figures(t: Tournament, current: CurrentRound | None) -> Outlook | None:
    """The current round's figures: only a Swiss round of an event with a cut and a plan
    has any (scoring.outlooks.applies); no query otherwise."""
    if current is None or current.round.playoff or not (t.top_cut and t.planned_rounds):
        return None
    row = Outlook.objects.filter(tournament=t, round_id=current.round.pk).first()
    outlooks.ensure(t, row)  # still computing: a run is on its way (scoring.outlooks)
    return row


def _read_extensions(current: CurrentRound | None) -> dict[int, int]:
    """The current round's time extensions, summed per table (one query)."""
    return {} if current is None else round_extensions(current.round.pk)


def _read_placings(t: Tournament) -> tuple[dict[str, Any], ...]:
    if not t.top_cut or t.status not in (Status.TOP_CUT, Status.FINISHED):
        return ()
    return tuple(placings(t))


def _read_playoff_names(t: Tournament) -> dict[int, RoundName]:
    """No query before the top cut (a result never pairs a round: read with the rounds)."""
    if t.status not in (Status.TOP_CUT, Status.FINISHED):
        return {}
    return playoff_names(t)


def build(t: Tournament, last: EventView | None = None) -> EventView:
    """The view of `t` at its version: from `last` (an older version's) with what the
    change log says changed read again, or read in full."""
    changed = None
    if last is not None and last.version < t.version:
        changed = changes_since(t, last.version)
    if last is None or changed is None:
        current = _read_current(t)
        return EventView(
            version=t.version,
            players={p.external_id: p for p in Player.objects.filter(tournament=t)},
            seating=read_seating(t),
            table=_read_table(t),
            current=current,
            placings=_read_placings(t),
            finishes=finishes(t),
            playoff_names=_read_playoff_names(t),
            figures=_read_figures(t, current),
            extensions=_read_extensions(current),
        )
    if not changed:  # only the figures moved
        view = replace(last, version=t.version, figures=_read_figures(t, last.current))
        if "row_texts" in last.__dict__:
            view.__dict__["row_texts"] = last.__dict__["row_texts"]
        return _carried(view, last, ())
    # Results only: no player, and no seat but those of the changed matches, moved.
    # Nor any time extension: services.floor writes those as changes of another kind
    # (the view is then read in full), so they are the last view's while its round is.
    current = _read_current(t)
    same_round = (
        current is not None
        and last.current is not None
        and current.round.pk == last.current.round.pk
    )
    view = replace(
        last,
        version=t.version,
        seating=last.seating.updated(t, changed),
        table=_read_table(t),
        current=current,
        placings=_read_placings(t),
        finishes=finishes(t),
        figures=_read_figures(t, current),
        extensions=last.extensions if same_round else _read_extensions(current),
    )
    return _carried(view, last, changed)


# The views made in this process, oldest first: a few events x a few versions (a view of
# 8,192 players is a few MB). Older versions go first, so an event's newest view, which
# the next version is built from, stays.
_VIEWS: dict[tuple[int, float, int], EventView] = {}
VIEWS_KEPT = 16
# One build per version at a time: after a write a page server's threads all ask for the
# new version at once, and each building it would multiply the work by the threads.
_BUILDING: dict[tuple[int, float, int], threading.Lock] = {}
_LOCK = threading.Lock()


def event_view(t: Tournament) -> EventView:
    """The view of `t` at `t.version`, built once per version in this process. Every
    write moves the version (services.writing), so a version's view never changes; the
    creation time guards against a deleted event's pk being reused."""
    event = (t.pk, t.created_at.timestamp())
    key = (*event, t.version)
    found = _VIEWS.get(key)
    if found is not None:
        return found
    with _LOCK:
        building = _BUILDING.setdefault(key, threading.Lock())
    with building:
        found = _VIEWS.get(key)  # built while this thread waited
        if found is None:
            found = build(t, _newest(event, below=t.version))
            with _LOCK:
                _VIEWS[key] = found
                _evict()
    with _LOCK:
        _BUILDING.pop(key, None)
    return found


def _evict() -> None:
    """Down to VIEWS_KEPT, the oldest made first, but an event's newest view last."""
    while len(_VIEWS) > VIEWS_KEPT:
        newest: dict[tuple[int, float], int] = {}
        for event_, version in ((k[:2], k[2]) for k in _VIEWS):
            newest[event_] = max(newest.get(event_, version), version)
        old = next((k for k in _VIEWS if k[2] < newest[k[:2]]), next(iter(_VIEWS)))
        del _VIEWS[old]


def _newest(event: tuple[int, float], *, below: int) -> EventView | None:
    """The newest view of `event` kept here older than version `below`."""
    with _LOCK:
        older = [k for k in _VIEWS if k[:2] == event and k[2] < below]
    return _VIEWS.get(max(older, key=lambda k: k[2])) if older else None


def forget() -> None:
    """Forget every view kept here (tests that compare a kept view with a fresh read)."""
    with _LOCK:
        _VIEWS.clear()
