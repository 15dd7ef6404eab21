"""The facts of an audit entry written before they were stored, read from its summary.

FROZEN (issue 36): do not change this module. It reads the English the services wrote
into AuditEntry.summary before each fact was stored beside it (the round, the table, the
players an entry is about, and the keys of `after` the sentences now need), and it is the
only code that reads a summary. Three things use it, each once per entry:

- migration 0008 (the round, table and players of the entries in the database then),
- migration 0018 (every fact still missing, `after` included, of the entries in the
  database then),
- restoring a backup (services.imports), for the entries a backup of an older version
  holds without their facts.

The migrations import it rather than each holding a copy because the restore needs the
very same reading at run time: one frozen copy, so that a restored entry reads as the
same entry migrated would. Anything written by the current services stores its facts and
never comes here; a change here would make a migration that already ran, and a restore,
disagree. New wording in the services needs no change here: it is stored as facts.

Plain values in, plain values out: no models, no translation, so that migrations may call
it with historical models and it says the same whatever the language.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

Named = tuple[str, str | None]  # a player as an entry stores them: (name then, interchange id)

# The actions (AuditAction's values, as stored) whose summaries held facts.
RESULT, GAME, REGISTER, REMOVE, RENAME = "result", "game", "register", "remove", "rename"
DROP, READMIT, PAIR, UNDO, CUT, TOP_CUT = "drop", "readmit", "pair", "undo", "cut", "top_cut"
CLOCK, STAFF, IMPORT, ENTRY, CHECK_IN = "clock", "staff", "import", "entry", "check_in"
REPORT, LINK = "report", "link"
CUT_DECISION = "cut_decision"  # services.corrections.CUT_DECISION

# The services' wording then, as they wrote it (never to change: see above).
RESULT_SUMMARY = re.compile(r"^(?:Entered|Corrected) round (\d+) table (\d+)(?: \((.*)\): .*)?")
GAME_SUMMARY = re.compile(r"^Round (\d+) table (\d+):")
DROP_SUMMARY = re.compile(r"^(.+) dropped after round (\d+)( \(own request\))?$", re.S)
READMIT_SUMMARY = re.compile(r"^(.+) re-admitted$", re.S)
CUT_SUMMARY = re.compile(r"^Cut to phase (\d+) \((.*)\):")
CUT_RULE = re.compile(r"^(?:top (\d+)|(\d+) points or more)$")
TOP_CUT_DECISION = re.compile(r"^(Re-seeded|Kept) the top (\d+)(?: as seeded)? (after .*)$", re.S)
IMPORT_SUMMARY = re.compile(
    r"^Imported (\d+) players and (\d+) rounds( \(restored from a backup\))?$"
)
STAFF_SUMMARIES = (  # (summary prefix, after["event"]) of entries whose after is the username
    ("Added ", "added"),
    ("Staff account created: ", "created"),
    ("New set-password link for ", "link"),
)
CLOCK_SUMMARY = re.compile(r"^Round (\d+): (.*)$")
CLOCK_STARTED = re.compile(r"^clock started, (\d+) minutes$")
CLOCK_MINUTES = re.compile(r"^([+-]\d+) minutes$")
BY_SUFFIX = re.compile(r" by [^ :]+$")  # registration's " by <organizer>"
MAX_ROUND, MAX_TABLE = 32_767, 2**31 - 1  # AuditEntry.round's and .table's columns
MAX_NAME = 200  # AuditPlayer.name's


@dataclass(frozen=True)
class Facts:
    """What an entry is about, as the services now store it: the AuditEntry's round and
    table, its AuditPlayer rows in order, and its `after`."""

    round: int | None
    table: int | None
    players: tuple[Named, ...]
    after: Any


def read(
    action: str,
    summary: str,
    before: Any,
    after: Any,
    *,
    round: int | None = None,
    table: int | None = None,
    players: Iterable[Named] = (),
    names: Mapping[str, str] | None = None,
) -> Facts:
    """The entry's facts, each missing one read from its summary and JSON: the round and
    table when empty; the players when none are stored (or, for a result, fewer than the
    two its summary names: a result is always between two); a key of `after` when `after`
    lacks it. What the entry stored is kept. `names` (interchange id -> name now) names
    the players the JSON holds by id only."""
    stored = tuple(players)
    a = after if isinstance(after, dict) else {}
    b = before if isinstance(before, dict) else {}
    text = summary or ""
    if round is None or table is None:
        found_round, found_table = _about(action, text, a, b)
        round = round if round is not None else _whole(found_round, MAX_ROUND)
        table = table if table is not None else _whole(found_table, MAX_TABLE)
    named = stored
    if not stored or (action == RESULT and len(stored) < 2):
        person = _namer(stored, names or {})
        found = _named(action, text, before, after, a, b, person)
        if len(found) > len(stored):
            named = tuple(found)
    return Facts(round, table, named, _after(action, text, after, a))


def _whole(value: Any, maximum: int) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= maximum
    return value if ok else None


def _without_by(summary: str) -> str:
    return BY_SUFFIX.sub("", summary)


def _namer(stored: tuple[Named, ...], names: Mapping[str, str]) -> Any:
    """A player the JSON holds by id: by the name the entry stored, else their name now,
    else the id itself (as the screen named them)."""
    then: dict[str, str] = {}
    for name, ext in stored:
        if ext is not None:
            then.setdefault(ext, name)

    def person(ext: Any) -> str:
        key = str(ext)
        return then.get(key) or names.get(key, key)

    return person


def _clock(what: str) -> dict[str, Any] | None:
    if started := CLOCK_STARTED.match(what):
        return {"event": "started", "minutes": int(started.group(1))}
    if what in ("clock paused", "clock resumed"):
        return {"event": what.split()[1]}
    if moved := CLOCK_MINUTES.match(what):
        return {"event": "moved", "minutes": int(moved.group(1))}
    return None


def _named(
    action: str,
    text: str,
    before: Any,
    after: Any,
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    person: Any,
) -> list[Named]:
    """The players an entry's summary and JSON name, as the services wrote them."""
    named: list[Named] = []
    if action == RESULT and (found := RESULT_SUMMARY.match(text)):
        one, sep, two = (found.group(3) or "").partition(" vs ")
        named += [(one, None), (two, None)] if sep else [(one, None)]
    elif action == GAME:
        for state in (b, a):
            for ext in [*(state.get("places") or {}), *(state.get("absent") or [])]:
                named.append((person(ext), str(ext)))
    elif action == REGISTER:
        if isinstance(after, list) or "names" in a:
            listed = after if isinstance(after, list) else a["names"]
            named += [(str(n), None) for n in listed]
        elif a.get("player") is not None:  # register_self: "<name> registered[ (...)]"
            named.append((_without_by(text).split(" registered")[0], str(a["player"])))
    elif action in (REMOVE, RENAME):
        named += [(v, None) for v in (before, after) if isinstance(v, str)]
    elif action == DROP and isinstance(a.get("players"), list):
        # drop_no_shows: "Dropped 3 no-show(s)[ by alice]: A, B, C"
        exts = [str(ext) for ext in a["players"]]
        listed = text.partition(": ")[2].split(", ")
        if len(listed) != len(exts):
            listed = [person(ext) for ext in exts]
        named += list(zip(listed, exts, strict=True))
    elif action in (DROP, READMIT):
        pattern = DROP_SUMMARY if action == DROP else READMIT_SUMMARY
        if found := pattern.match(text):
            named.append((found.group(1), None))
    elif action == CUT:
        named += [(person(ext), str(ext)) for ext in a.get("players") or []]
    elif action == TOP_CUT:
        named += [(person(ext), str(ext)) for ext in a.get("seeds") or []]
    elif action == REPORT:
        if "reporter" in a:
            named.append((str(a["reporter"]), a.get("reporter_id")))
        if a.get("event") in ("confirmed", "disputed") and "by" in a:
            named.append((str(a["by"]), a.get("by_id")))
    elif action == CHECK_IN and a.get("player") is not None:
        if (plain := _without_by(text)).endswith(" checked in"):
            named.append((plain[: -len(" checked in")], str(a["player"])))
    elif action == ENTRY and a.get("player") is not None:
        plain, entry = _without_by(text), f" {a.get('entry')}"
        if plain.endswith(entry):
            named.append((plain[: -len(entry)], str(a["player"])))
    elif action == LINK and a.get("player") is not None:
        _before, sep, name = _without_by(text).partition(" link for ")
        if sep:
            named.append((name, str(a["player"])))
    unique: list[Named] = []
    for name, ext in named:
        if name and (name[:MAX_NAME], ext) not in unique:
            unique.append((name[:MAX_NAME], ext))
    return unique


def _about(action: str, text: str, a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[Any, Any]:
    """(round, table) as an entry's summary and JSON say them."""
    if action in (RESULT, GAME):
        pattern = RESULT_SUMMARY if action == RESULT else GAME_SUMMARY
        if found := pattern.match(text):
            return int(found.group(1)), int(found.group(2))
    elif action == CLOCK:
        if found := CLOCK_SUMMARY.match(text):
            return int(found.group(1)), None
    elif action == TOP_CUT:
        # A decision after a correction (its `after` has "correction", maybe None) is
        # about the corrected round and table; starting the cut, about its round.
        if "correction" in a:
            correction = a["correction"] if isinstance(a["correction"], dict) else {}
            return correction.get("round"), correction.get("table")
        return a.get("round"), None
    elif action in (PAIR, REPORT):
        return a.get("round"), a.get("table")
    elif action == UNDO:
        return b.get("round"), None
    elif action == DROP:
        return a.get("dropped_after_round"), None
    elif action == READMIT:
        return b.get("dropped_after_round"), None
    return None, None


def _after(action: str, text: str, after: Any, a: Mapping[str, Any]) -> Any:
    """`after` with the facts services now keep there, read from the summary when missing
    (the very value given back when nothing is missing)."""
    if action == REGISTER and isinstance(after, list):
        head = text.split(":", 1)[0]
        return {"names": after, "late": "(late entry)" in head}
    if action == STAFF and isinstance(after, str):
        for prefix, event in STAFF_SUMMARIES:
            if text.startswith(prefix):
                return {"event": event, "username": after}
        return after
    if after is not None and not isinstance(after, dict):
        return after
    extra: dict[str, Any] = {}
    if action == DROP and "by_player" not in a:
        found = DROP_SUMMARY.match(text)
        if found and found.group(3):
            extra["by_player"] = True
    elif action == PAIR and "playoff" not in a:
        extra["playoff"] = text.endswith("(top cut)")
    elif action == CUT and "top" not in a:
        found = CUT_SUMMARY.match(text)
        rule = CUT_RULE.match(found.group(2)) if found else None
        if rule:
            top, points = rule.groups()
            extra.update(top=int(top) if top else None, min_points=points and int(points))
    elif (
        action == TOP_CUT
        and CUT_DECISION in a
        and "change_texts" not in a
        and "change_messages" not in a
    ):
        found = TOP_CUT_DECISION.match(text)
        changes = found.group(3).partition(": ")[2] if found else ""
        extra["change_texts"] = [changes] if changes else []
    elif action == IMPORT and "restored" not in a:
        if found := IMPORT_SUMMARY.match(text):
            players, rounds, restored = found.groups()
            extra.update(players=int(players), rounds=int(rounds), restored=bool(restored))
    elif action == CLOCK and "event" not in a:
        found = CLOCK_SUMMARY.match(text)
        extra = (_clock(found.group(2)) if found else None) or {}
    return {**a, **extra} if extra else after
