"""The organizer's audit log, read as sentences (issue 12 item 6).

Two halves:
- `describe(record, context)`: one stored entry in, one sentence out. It reads nothing
  from the database; it knows the shape each service writes (tournaments/services/: the
  summary's wording and the before/after JSON) and falls back to the stored summary for
  any shape it does not know, so an entry from an older or newer version still shows.
- `audit_log(tournament, ...)`: the screen's read model: filter by round and by player,
  a page of entries newest first, and the little the sentences need (names, round names).

The filters read what each entry is about as the services stored it beside the summary
(services.writing, Write.audit): AuditEntry.round and the entry's AuditPlayer rows (a
player's interchange id and their name then). Entries written before those fields were
filled from their summaries and JSON by migration 0008, through `entry_facts` below.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from decimal import Decimal
from html import escape  # the stdlib one: Django's lazy wrapper is slower on 200 rows
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import Count, Max, Min, Q
from django.urls import reverse

from tournaments.models import AuditAction, AuditEntry, AuditPlayer, Tournament
from tournaments.parsing import ascii_int
from tournaments.rules import ordinal, playoff_name, score_text

PAGE_SIZE = 200  # a screenful to scan or search in the browser, small enough to stay fast
# A name fragment that fits more players than this is too vague to filter by usefully (and
# each player adds a few LIKE terms to the query): the organizer is asked for more letters.
MAX_PLAYERS_PER_FILTER = 30
# Renames the player filter reads to know a player's former names, newest first, at most
# this many (an event renames each player a handful of times at most).
WINDOW = 10_000
NAMES_LISTED = 10  # a pasted list of 500 registrations names the first ten


# --- One entry, one sentence (no database below this line until audit_log) --------------


@dataclass(frozen=True)
class Mention:
    """A player named in a sentence: the page links it to the log filtered by them."""

    name: str
    ext: str | None = None  # the interchange id, when the entry stored it


Part = str | Mention


@dataclass(frozen=True)
class Sentence:
    parts: tuple[Part, ...]
    # The renderer did not know the entry's shape: the sentence is its stored summary, and
    # the screen shows the stored before/after beside it.
    fallback: bool = False

    def __str__(self) -> str:
        return "".join(p if isinstance(p, str) else p.name for p in self.parts)

    @property
    def mentions(self) -> list[Mention]:
        return [p for p in self.parts if isinstance(p, Mention)]


@dataclass(frozen=True)
class Record:
    """What an audit entry stored, and who wrote it (a username, None for the system)."""

    action: str
    summary: str
    before: Any = None
    after: Any = None
    at: datetime | None = None
    by: str | None = None


@dataclass(frozen=True)
class Context:
    """What sentences need beyond the entry itself."""

    names: Mapping[str, str] = field(default_factory=dict)  # external id -> player name
    playoff_rounds: Mapping[int, str] = field(default_factory=dict)  # number -> "Final"
    tz: tzinfo = UTC
    with_date: bool = False  # the entries span more than one day
    with_year: bool = False


class Unknown(Exception):
    """The entry's shape is not the one this renderer knows: show its summary instead."""


def describe(record: Record, context: Context | None = None) -> Sentence:
    """The entry as one sentence: what happened, by whom, when."""
    ctx = context or Context()
    render = RENDERERS.get(record.action)
    fallback = False
    try:
        if render is None:
            raise Unknown(record.action)
        what = render(record, ctx)
    except (Unknown, LookupError, TypeError, ValueError, AttributeError, ArithmeticError):
        what, fallback = (record.summary or record.action,), True
    tail = ""
    if record.by:
        tail += f" by {record.by}"
    if record.at is not None:
        tail += " " + when(record.at, ctx)
    return Sentence((*what, tail) if tail else what, fallback)


DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def when(at: datetime, ctx: Context) -> str:
    """ "at 14:03", or "on Sat 14 Jun at 14:03" when the log spans days (server's zone)."""
    local = at.astimezone(ctx.tz)
    clock = f"at {local:%H:%M}"
    if not ctx.with_date:
        return clock
    day = f"{DAYS[local.weekday()]} {local.day} {MONTHS[local.month - 1]}"
    if ctx.with_year:
        day += f" {local.year}"
    return f"on {day} {clock}"


def _match(pattern: re.Pattern[str], text: str) -> re.Match[str]:
    found = pattern.match(text or "")
    if found is None:
        raise Unknown(text)
    return found


def _round_name(number: int, ctx: Context) -> str:
    """ "round 4"; a playoff round by its name, as the pairings call it ("the Final")."""
    name = ctx.playoff_rounds.get(number)
    return f"the {name}" if name else f"round {number}"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def _listed(names: Sequence[Mention]) -> tuple[Part, ...]:
    """ "A", "A and B", "A, B and C", "A, B, ... and 490 more"."""
    shown = list(names[:NAMES_LISTED])
    rest = len(names) - len(shown)
    parts: list[Part] = []
    for k, name in enumerate(shown):
        if k:
            parts.append(" and " if k == len(shown) - 1 and not rest else ", ")
        parts.append(name)
    if rest:
        parts.append(f" and {rest:,} more")
    return tuple(parts)


def _person(ext: str, ctx: Context) -> Mention:
    return Mention(ctx.names.get(ext, ext), ext)


# Results (services/results.py record_result): summary
# "{Entered|Corrected} round R table T (A vs B): 2-1"; before/after hold the result.
RESULT_SUMMARY = re.compile(r"^(?:Entered|Corrected) round (\d+) table (\d+)(?: \((.*)\): .*)?")


def _result_words(state: Any) -> str:
    if not state or not state["reported"]:
        return "no result"
    if state["kind"] == "double_loss":
        return "a double loss"
    return score_text([int(w) for w in state["wins"]], int(state["draws"] or 0))


def _table_of(summary: str, pattern: re.Pattern[str], ctx: Context) -> tuple[str, str | None]:
    found = _match(pattern, summary)
    number, table = int(found.group(1)), int(found.group(2))
    names = found.group(3) if found.lastindex and found.lastindex >= 3 else None
    if number in ctx.playoff_rounds:
        return f"{ctx.playoff_rounds[number]}, table {table}", names
    return f"Table {table}, round {number}", names


def _result(r: Record, ctx: Context) -> tuple[Part, ...]:
    place, names = _table_of(r.summary, RESULT_SUMMARY, ctx)
    players: tuple[Part, ...] = ()
    if names:
        one, sep, two = names.partition(" vs ")
        players = (" (", Mention(one), " vs ", Mention(two), ")") if sep else (f" ({names})",)
    was, now = r.before, r.after
    if not was or not was["reported"]:
        change = f"{_result_words(now)} entered"
    elif not now["reported"]:
        change = f"{_result_words(was)} cleared"
    else:
        change = f"{_result_words(was)} changed to {_result_words(now)}"
    return (place, *players, f": {change}")


# League tables (record_game): summary "Round R table T: places and scores entered";
# before/after {"reported", "places": {ext: place}, "scores": {ext: "41.5"}, "absent": [ext]}.
GAME_SUMMARY = re.compile(r"^Round (\d+) table (\d+):")


def _number(text: str | None) -> str | None:
    """A stored score as people write it: "40.0000" is 40, "41.5000" is 41.5."""
    if text is None:
        return None
    plain = f"{Decimal(text):f}"
    return plain.rstrip("0").rstrip(".") if "." in plain else plain


def _places(state: Any, ctx: Context) -> tuple[Part, ...]:
    parts: list[Part] = []
    ranked = sorted(state["places"].items(), key=lambda item: (item[1] is None, item[1]))
    for ext, place in ranked:
        parts.append(", " if parts else "")
        parts.append(_person(ext, ctx))
        score = _number(state.get("scores", {}).get(ext))
        parts.append(f" {ordinal(int(place))}" + (f" ({score})" if score is not None else ""))
    for ext in state.get("absent", []):
        parts.extend((", " if parts else "", _person(ext, ctx), " absent"))
    return tuple(p for p in parts if p != "")


def _game(r: Record, ctx: Context) -> tuple[Part, ...]:
    place, _ = _table_of(r.summary, GAME_SUMMARY, ctx)
    was, now = r.before, r.after
    if not now["reported"]:
        return (place, ": places and scores cleared")
    if not was or not was["reported"]:
        return (place, ": places entered: ", *_places(now, ctx))
    return (place, ": places changed to ", *_places(now, ctx), " (were ", *_places(was, ctx), ")")


# Players (services/players.py).
DROP_SUMMARY = re.compile(r"^(.+) dropped after round (\d+)( \(own request\))?$", re.S)
READMIT_SUMMARY = re.compile(r"^(.+) re-admitted$", re.S)


def _register(r: Record, ctx: Context) -> tuple[Part, ...]:
    if not r.summary.startswith("Added ") or not isinstance(r.after, list):
        raise Unknown(r.summary)
    names = [Mention(str(n)) for n in r.after]
    late = " as a late entry" if "(late entry)" in r.summary.split(":", 1)[0] else ""
    if len(names) == 1:
        return (names[0], f" registered{late}")
    late = " as late entries" if late else ""
    return (f"{len(names):,} players registered{late}: ", *_listed(names))


def _rename(r: Record, ctx: Context) -> tuple[Part, ...]:
    if not isinstance(r.before, str) or not isinstance(r.after, str):
        raise Unknown(r.summary)
    return (Mention(r.before), " renamed to ", Mention(r.after))


def _drop(r: Record, ctx: Context) -> tuple[Part, ...]:
    if isinstance(r.after, dict) and isinstance(r.after.get("players"), list):
        # services/registration.py drop_no_shows: "Dropped 3 no-show(s)[ by alice]: ..."
        exts = [str(ext) for ext in r.after["players"]]
        listed = r.summary.partition(": ")[2].split(", ")
        if len(listed) != len(exts):
            listed = [ctx.names.get(ext, ext) for ext in exts]
        names = [Mention(name, ext) for name, ext in zip(listed, exts, strict=True)]
        return (f"{_plural(len(names), 'no-show')} dropped before round 1: ", *_listed(names))
    found = _match(DROP_SUMMARY, r.summary)
    last = int(r.after["dropped_after_round"])
    own = " (own request)" if found.group(3) or r.after.get("by_player") else ""
    return (
        Mention(found.group(1)),
        (f" dropped after round {last}" if last else " dropped before round 1") + own,
    )


def _readmit(r: Record, ctx: Context) -> tuple[Part, ...]:
    found = _match(READMIT_SUMMARY, r.summary)
    had = (r.before or {}).get("dropped_after_round")
    note = f" (had dropped after round {had})" if had else ""
    return (Mention(found.group(1)), f" re-admitted{note}")


def _remove(r: Record, ctx: Context) -> tuple[Part, ...]:
    if not isinstance(r.before, str) or not r.summary.startswith("Removed "):
        raise Unknown(r.summary)
    return (Mention(r.before), " removed (entered by mistake, never paired)")


# Rounds (services/rounds.py, playoff.py).
def _pair(r: Record, ctx: Context) -> tuple[Part, ...]:
    number, tables = int(r.after["round"]), int(r.after["matches"])
    if r.summary.endswith("(top cut)"):
        name = f"{playoff_name(tables)} (round {number})"
    else:
        name = f"Round {number}"
    return (f"{name} paired ({_plural(tables, 'table')})",)


def _undo(r: Record, ctx: Context) -> tuple[Part, ...]:
    return (f"Pairing of round {int(r.before['round'])} undone",)


CUT_SUMMARY = re.compile(r"^Cut to phase (\d+) \((.*)\):")


def _cut(r: Record, ctx: Context) -> tuple[Part, ...]:
    found = _match(CUT_SUMMARY, r.summary)
    advancing = [_person(str(ext), ctx) for ext in r.after["players"]]
    head = f"Cut to phase {int(r.after['phase'])} ({found.group(2)}): "
    return (head, f"{_plural(len(advancing), 'player')} advance: ", *_listed(advancing))


# services/playoff.py start_top_cut: "Started the top 8", after {"round", "seeds"};
# services/corrections.py, after a correction moved the seeds: "Re-seeded the top 8 after
# a correction to round 4 (table 2): <changes>" or "Kept the top 8 as seeded after ...",
# after {"cut_decision", "seeds", "correction": {"round", "table"}, ...}.
TOP_CUT_DECISION = re.compile(r"^(Re-seeded|Kept) the top (\d+)(?: as seeded)? (after .*)$", re.S)


def _seeds(exts: Sequence[Any], ctx: Context) -> list[Part]:
    parts: list[Part] = []
    for k, ext in enumerate(exts, start=1):
        parts.extend((", " if k > 1 else "", f"{k} ", _person(str(ext), ctx)))
    return parts


def _top_cut(r: Record, ctx: Context) -> tuple[Part, ...]:
    seeds = _seeds(r.after["seeds"], ctx)
    if r.summary.startswith("Started the top "):
        size, number = len(r.after["seeds"]), int(r.after["round"])
        return (f"Top cut of {size} started (round {number}; seeds: ", *seeds, ")")
    found = _match(TOP_CUT_DECISION, r.summary)
    verb = "re-seeded" if found.group(1) == "Re-seeded" else "kept as seeded"
    now = "seeds now" if found.group(1) == "Re-seeded" else "seeds"
    return (f"Top cut of {found.group(2)} {verb} {found.group(3)} ({now}: ", *seeds, ")")


# The event (services/lifecycle.py, imports.py, staff.py, clock.py).
REOPENED_AS = {
    "running": "running again",
    "top_cut": "back in the top cut",
    "registration": "back to registration",
}


def _finish(r: Record, ctx: Context) -> tuple[Part, ...]:
    if r.summary != "Finished the tournament":
        raise Unknown(r.summary)
    return ("Tournament finished",)


def _reopen(r: Record, ctx: Context) -> tuple[Part, ...]:
    status = (r.after or {}).get("status")
    return ("Tournament reopened" + (f" ({REOPENED_AS[status]})" if status else ""),)


def _plan_words(plan: Mapping[str, Any]) -> str:
    rounds, cut = plan["planned_rounds"], plan["top_cut"]
    first = _plural(int(rounds), "Swiss round") if rounds else "an open number of Swiss rounds"
    return f"{first} and " + (f"a top {int(cut)}" if cut else "no top cut")


def _plan(r: Record, ctx: Context) -> tuple[Part, ...]:
    was = f" (was {_plan_words(r.before)})" if r.before else ""
    return (f"Plan set to {_plan_words(r.after)}{was}",)


IMPORT_SUMMARY = re.compile(
    r"^Imported (\d+) players and (\d+) rounds( \(restored from a backup\))?$"
)


def _import(r: Record, ctx: Context) -> tuple[Part, ...]:
    found = _match(IMPORT_SUMMARY, r.summary)
    how = "Restored from a backup" if found.group(3) else "Imported from a file"
    players, rounds = int(found.group(1)), int(found.group(2))
    return (f"{how} ({_plural(players, 'player')}, {_plural(rounds, 'round')})",)


STAFF_SUMMARIES = (  # (summary prefix, JSON side holding the username, sentence)
    ("Added ", "after", "{} added to the staff"),
    ("Removed ", "before", "{} removed from the staff"),
    ("Staff account created: ", "after", "Staff account {} created"),
    ("New set-password link for ", "after", "New set-password link made for {}"),
)


def _staff(r: Record, ctx: Context) -> tuple[Part, ...]:
    for prefix, side, words in STAFF_SUMMARIES:
        username = getattr(r, side)
        if r.summary.startswith(prefix) and isinstance(username, str):
            return (words.format(username),)
    raise Unknown(r.summary)


CLOCK_SUMMARY = re.compile(r"^Round (\d+): (.*)$")
CLOCK_STARTED = re.compile(r"^clock started, (\d+) minutes$")
CLOCK_MINUTES = re.compile(r"^([+-])(\d+) minutes$")


def _clock(r: Record, ctx: Context) -> tuple[Part, ...]:
    found = _match(CLOCK_SUMMARY, r.summary)
    clock, what = f"clock of {_round_name(int(found.group(1)), ctx)}", found.group(2)
    if started := CLOCK_STARTED.match(what):
        return (f"{_capital(clock)} started ({_plural(int(started.group(1)), 'minute')})",)
    if what in ("clock paused", "clock resumed"):
        return (f"{_capital(clock)} {what.split()[1]}",)
    if moved := CLOCK_MINUTES.match(what):
        minutes = _plural(int(moved.group(2)), "minute")
        return (
            f"{minutes} added to the {clock}"
            if moved.group(1) == "+"
            else f"{minutes} taken off the {clock}",
        )
    raise Unknown(what)


# Players taking part (issue 14): services/reports.py and registration.py. A report's
# facts are in `after` (see services.reports._facts); registration's summaries end with
# " by <username>" for the organizer's writes, which `describe` adds itself.
def _place_of(after: Mapping[str, Any], ctx: Context) -> str:
    number, table = int(after["round"]), after["table"]
    if number in ctx.playoff_rounds:
        return f"Table {table}, {ctx.playoff_rounds[number]}"
    return f"Table {table}, round {number}"


def _report(r: Record, ctx: Context) -> tuple[Part, ...]:
    a = r.after
    place = _place_of(a, ctx)
    reporter = Mention(str(a["reporter"]), a.get("reporter_id"))
    event = a.get("event")
    if event == "report":
        was = f" (was {a['was']})" if a.get("was") else ""
        return (f"{place}: ", reporter, f" reported {a['score']}{was}")
    if event in ("confirmed", "disputed"):
        answer = Mention(str(a["by"]), a.get("by_id"))
        claim = (" (", answer, f" reported {a['claim']})") if a.get("claim") else ()
        return (f"{place}: ", reporter, f" reported {a['score']}, {event} by ", answer, *claim)
    if event == "reset":
        return (f"{place}: ", reporter, f"'s report ({a['score']}) reset")
    raise Unknown(r.summary)


BY_SUFFIX = re.compile(r" by [^ :]+$")


def _without_by(summary: str) -> str:
    return BY_SUFFIX.sub("", summary)


def _check_in(r: Record, ctx: Context) -> tuple[Part, ...]:
    text = _without_by(r.summary)
    if not text.endswith(" checked in"):
        raise Unknown(r.summary)
    return (Mention(text[: -len(" checked in")], (r.after or {}).get("player")), " checked in")


def _entry(r: Record, ctx: Context) -> tuple[Part, ...]:
    if isinstance(r.after, dict) and "player" in r.after:
        text, entry = _without_by(r.summary), str(r.after["entry"])
        if not text.endswith(f" {entry}"):
            raise Unknown(r.summary)
        return (Mention(text[: -len(entry) - 1], str(r.after["player"])), f"'s entry {entry}")
    head, sep, rest = r.summary.partition(": ")
    if not sep or not head.startswith("Registration settings"):
        raise Unknown(r.summary)
    return (f"Registration settings: {rest}",)


def _link(r: Record, ctx: Context) -> tuple[Part, ...]:
    _, sep, name = _without_by(r.summary).partition(" link for ")
    if not sep:
        raise Unknown(r.summary)
    who = Mention(name, str(r.after["player"]))
    return ("New private link for " if r.after.get("replaced") else "Private link for ", who)


RENDERERS: dict[str, Callable[[Record, Context], tuple[Part, ...]]] = {
    AuditAction.RESULT: _result,
    AuditAction.GAME: _game,
    AuditAction.REGISTER: _register,
    AuditAction.REMOVE: _remove,
    AuditAction.RENAME: _rename,
    AuditAction.DROP: _drop,
    AuditAction.READMIT: _readmit,
    AuditAction.PAIR: _pair,
    AuditAction.UNDO: _undo,
    AuditAction.CUT: _cut,
    AuditAction.TOP_CUT: _top_cut,
    AuditAction.FINISH: _finish,
    AuditAction.REOPEN: _reopen,
    AuditAction.CLOCK: _clock,
    AuditAction.STAFF: _staff,
    AuditAction.PLAN: _plan,
    AuditAction.IMPORT: _import,
    AuditAction.REPORT: _report,
    AuditAction.CHECK_IN: _check_in,
    AuditAction.ENTRY: _entry,
    AuditAction.LINK: _link,
}


# --- What an entry is about, read from an entry written before it was stored ------------

Named = tuple[str | None, str]  # (interchange id, or None when only named; name)


def _whole(value: Any, maximum: int) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= maximum
    return value if ok else None


def entry_facts(r: Record, ctx: Context) -> tuple[int | None, int | None, list[Named]]:
    """(round, table, players) of an entry that stored only its summary and JSON: what
    the services now pass to Write.audit, read with the parsers above (migration 0008
    fills the older entries with it). `ctx.names` names the players that the JSON holds
    by id only."""
    after = r.after if isinstance(r.after, dict) else {}
    before = r.before if isinstance(r.before, dict) else {}
    number: Any = None
    table: Any = None
    named: list[Named] = []
    if r.action in (AuditAction.RESULT, AuditAction.GAME):
        pattern = RESULT_SUMMARY if r.action == AuditAction.RESULT else GAME_SUMMARY
        if found := pattern.match(r.summary or ""):
            number, table = int(found.group(1)), int(found.group(2))
            names = found.group(3) if r.action == AuditAction.RESULT else None
            one, sep, two = (names or "").partition(" vs ")
            named += [(None, one), (None, two)] if sep else []
        for state in (before, after):
            for ext in [*(state.get("places") or {}), *(state.get("absent") or [])]:
                named.append((str(ext), ctx.names.get(str(ext), str(ext))))
    elif r.action == AuditAction.CLOCK:
        if found := CLOCK_SUMMARY.match(r.summary or ""):
            number = int(found.group(1))
    elif r.action == AuditAction.TOP_CUT:
        # A decision after a correction (its `after` has "correction", maybe None) is
        # about the corrected round and table; starting the cut, about its round.
        if "correction" in after:
            correction = after["correction"] if isinstance(after["correction"], dict) else {}
            number, table = correction.get("round"), correction.get("table")
        else:
            number = after.get("round")
    elif r.action in (AuditAction.PAIR, AuditAction.REPORT):
        number, table = after.get("round"), after.get("table")
    elif r.action == AuditAction.UNDO:
        number = before.get("round")
    elif r.action == AuditAction.DROP:
        number = after.get("dropped_after_round")
    elif r.action == AuditAction.READMIT:
        number = before.get("dropped_after_round")
    if r.action not in (AuditAction.RESULT, AuditAction.GAME):
        named += [(m.ext, m.name) for m in describe(r, ctx).mentions]
    if r.action == AuditAction.REGISTER and after.get("player") is not None:
        # services.registration.register_self: "<name> registered", after {"player"}
        named.append((str(after["player"]), _without_by(r.summary).split(" registered")[0]))
    unique: list[Named] = []
    for ext, name in named:
        if name and (ext, name) not in unique:
            unique.append((ext, name[:200]))
    return _whole(number, 32_767), _whole(table, 2**31 - 1), unique


# --- The screen: filters and a page of sentences -----------------------------------------


class FilterError(ValueError):
    """A filter the log cannot apply; `field` is the form field the message belongs to."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Person:
    """A player the player filter looks for, under every name they have had here."""

    pk: int
    ext: str
    names: frozenset[str]


def round_filter(number: int) -> Q:
    """Entries about round `number`: the round they stored, and a top-cut re-seed by the
    playoff round it paired again (its `round` is the corrected one: see AuditEntry)."""
    return Q(round=number) | Q(action=AuditAction.TOP_CUT, after__round=number)


def _records(rows: Iterable[AuditEntry]) -> list[tuple[int, Record]]:
    return [
        (
            e.pk,
            Record(
                e.action,
                e.summary,
                e.before,
                e.after,
                e.at,
                e.user.get_username() if e.user_id and e.user else None,
            ),
        )
        for e in rows
    ]


def _people(t: Tournament, text: str) -> tuple[list[Person], bool]:
    """The players `text` (a pk, or a fragment of a name) means, with their former names
    (renames are few: read in Python); and whether `text` was a fragment."""
    pk = ascii_int(text)
    players = list(t.players.filter(pk=pk)) if pk is not None else []
    fragment = not players
    if fragment:
        players = list(
            t.players.filter(name__icontains=text).order_by("name")[: MAX_PLAYERS_PER_FILTER + 1]
        )
        if len(players) > MAX_PLAYERS_PER_FILTER:
            raise FilterError(
                "player",
                f"“{text}” fits more than {MAX_PLAYERS_PER_FILTER} players: "
                "type more of the name (or follow a name's link in the log).",
            )
    renames = list(
        t.audit.filter(action=AuditAction.RENAME)
        .order_by("-at", "-id")
        .values_list("before", "after")[:WINDOW]
    )
    people = []
    for p in players:
        names = {p.name}
        for old, new in renames:  # newest first: walk each name back to the ones before it
            if new in names and isinstance(old, str):
                names.add(old)
        people.append(Person(p.pk, p.external_id, frozenset(names)))
    return people, fragment


def player_filter(t: Tournament, text: str) -> tuple[Q, list[Person]]:
    """Entries about the player(s) `text` means, by the players each entry stored: by
    their interchange id, or (an older entry that knew only a name) by any name they have
    had here. A fragment of a name also finds people no longer in the event (removed, or
    renamed away) by the names the entries stored."""
    people, fragment = _people(t, text)
    exts = {p.ext for p in people}
    names = {n for p in people for n in p.names}
    who = Q(external_id__in=exts) | Q(external_id__isnull=True, name__in=names)
    if fragment:
        who |= Q(name__icontains=text)
    about = AuditPlayer.objects.filter(who, entry__tournament=t).values("entry_id")
    return Q(pk__in=about), people


def _playoff_names(t: Tournament) -> dict[int, str]:
    rounds = t.rounds.filter(playoff=True).annotate(n=Count("matches"))
    return {number: playoff_name(n) for number, n in rounds.values_list("number", "n")}


def _context(t: Tournament, rows: Sequence[tuple[int, Record]]) -> Context:
    tz = ZoneInfo(settings.TIME_ZONE)
    span = t.audit.aggregate(first=Min("at"), last=Max("at"))
    first, last = span["first"], span["last"]
    with_date = bool(first and last and first.astimezone(tz).date() != last.astimezone(tz).date())
    with_year = bool(with_date and first.astimezone(tz).year != last.astimezone(tz).year)
    exts: set[str] = set()
    for _, r in rows:
        for state in (r.before, r.after) if r.action == AuditAction.GAME else ():
            if isinstance(state, dict):
                exts.update(state.get("places") or {})
                exts.update(state.get("absent") or [])
        if r.action in (AuditAction.CUT, AuditAction.TOP_CUT) and isinstance(r.after, dict):
            exts.update(map(str, r.after.get("players") or r.after.get("seeds") or []))
    names = dict(t.players.filter(external_id__in=exts).values_list("external_id", "name"))
    playoff = _playoff_names(t)
    return Context(
        names=names, playoff_rounds=playoff, tz=tz, with_date=with_date, with_year=with_year
    )


def _round_choices(
    t: Tournament, playoff: Mapping[int, str], selected: int | None
) -> list[tuple[int, str]]:
    numbers = list(t.rounds.order_by("number").values_list("number", flat=True))
    if selected is not None and selected not in numbers:
        numbers.append(selected)  # an undone round's entries stay in the log
    return [(n, f"{playoff[n]} (round {n})" if n in playoff else f"Round {n}") for n in numbers]


def filter_form(tournament: Tournament) -> dict[str, Any]:
    """What the filter form alone needs (shown again, with its message, when refused)."""
    playoff = _playoff_names(tournament)
    return {
        "tournament": tournament,
        "rounds": _round_choices(tournament, playoff, None),
        "entries": None,
        "time_zone": settings.TIME_ZONE,
    }


def audit_log(
    tournament: Tournament, *, round: int | None = None, player: str = "", page: int = 1
) -> dict[str, Any]:
    """A page of the log, newest first, filtered by round and by player.

    Raises FilterError for a player fragment too vague to filter by.
    """
    t = tournament
    entries = t.audit.all()
    if round is not None:
        entries = entries.filter(round_filter(round))
    people: list[Person] = []
    if player:
        where, people = player_filter(t, player)
        entries = entries.filter(where)
    # Page through ids, then read the page's rows: sorting 20,000 narrow rows is several
    # times cheaper than sorting them with their JSON (SQLite sorts whole rows).
    pages = Paginator(entries.order_by("-at", "-id").values_list("pk", flat=True), PAGE_SIZE)
    shown = pages.get_page(page)  # past the end: the last page
    order = {pk: k for k, pk in enumerate(shown.object_list)}
    rows = _records(AuditEntry.objects.filter(pk__in=order).select_related("user"))
    rows.sort(key=lambda row: order[row[0]])
    ctx = _context(t, rows)
    sentences = [(pk, r, describe(r, ctx)) for pk, r in rows]
    link = _links([m for _, _, s in sentences for m in s.mentions], t)
    here = reverse("manage_audit", args=[t.slug])
    query = urlencode([(k, v) for k, v in (("round", round), ("player", player)) if v])
    return {
        "tournament": t,
        "entries": [
            {
                "pk": pk,
                "action": r.action,
                "at": r.at,
                "html": _markup(sentence, link, here),
                "text": str(sentence),
                "summary": r.summary,
                "raw": (_json(r.before), _json(r.after)) if sentence.fallback else None,
            }
            for pk, r, sentence in sentences
        ],
        "count": pages.count,
        "page": shown.number,
        "pages": pages.num_pages,
        "shown": (
            f"Entries {shown.start_index():,}–{shown.end_index():,} of {pages.count:,}, "
            "newest first"
            if pages.count
            else "No entries"
        ),
        "previous_page": shown.previous_page_number() if shown.has_previous() else None,
        "next_page": shown.next_page_number() if shown.has_next() else None,
        "query": query,
        "round": round,
        "player": player,
        "players_found": sorted({n for p in people for n in p.names}),
        "rounds": _round_choices(t, ctx.playoff_rounds, round),
        "time_zone": settings.TIME_ZONE,
    }


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _markup(sentence: Sentence, link: Mapping[tuple[str, str | None], int | None], url: str) -> str:
    """The sentence as HTML, each player's name a link to the log filtered by them.

    Built here rather than in the template: 200 rows of parts through template tags cost
    ten times more, as pages/public.py found for its big tables."""
    out = []
    for part in sentence.parts:
        if isinstance(part, str):
            out.append(escape(part))
        elif (pk := link.get((part.name, part.ext))) is not None:
            out.append(f'<a href="{url}?player={pk}">{escape(part.name)}</a>')
        else:
            out.append(escape(part.name))
    return "".join(out)


def _links(mentions: Sequence[Mention], t: Tournament) -> dict[tuple[str, str | None], int | None]:
    """Names link to the log filtered by that player: by their id when the entry stored
    it, else by the name when exactly one player has it (two of one name: no link)."""
    link: dict[tuple[str, str | None], int | None] = {}
    by_ext = t.players.filter(external_id__in={m.ext for m in mentions if m.ext})
    for ext, name, pk in by_ext.values_list("external_id", "name", "pk"):
        link[name, ext] = pk
    by_name = t.players.filter(name__in={m.name for m in mentions if not m.ext})
    for name, pk in by_name.values_list("name", "pk"):
        link[name, None] = None if (name, None) in link else pk
    return link
