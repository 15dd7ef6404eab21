"""The audit log's sentences for the floor's time (issue 27): time extensions and deck
checks (services.floor). Each reads the entry's round, table and players and its `after`:

- EXTENSION: after {"event": "added", "minutes", "total", "note"} or
  {"event": "removed", "minutes", "total"};
- DECK_CHECK: after {"event": "started"} or
  {"event": "finished", "minutes", "extension", "note"}.

tournaments.pages.audit maps AuditAction.EXTENSION and DECK_CHECK to these.
"""

from __future__ import annotations

from tournaments.pages.audit_parts import Context, Mention, Part, Record, Unknown
from tournaments.pages.audit_parts import at_table as _at_table


def _seated(r: Record) -> tuple[Part, ...]:
    """ " (A vs B)" of the table's players as the entry stored them."""
    players = [Mention(name, ext) for name, ext in r.players]
    if len(players) == 2:
        return (" (", players[0], " vs ", players[1], ")")
    if players:
        return (" (", players[0], ")")
    return ()


def _minutes(n: int) -> str:
    return f"{n} minute" if n == 1 else f"{n} minutes"


def extension_sentence(r: Record, ctx: Context) -> tuple[Part, ...]:
    """ "Table 4, round 3 (A vs B): 5 minutes added (a long ruling; 8 in all)"."""
    a = r.after
    minutes, total = int(a["minutes"]), int(a["total"])
    if a["event"] == "added":
        note = str(a.get("note") or "")
        said = f"{note}; " if note else ""
        tail = f" ({said}{total} in all)" if total != minutes else (f" ({note})" if note else "")
        return (_at_table(r, ctx), *_seated(r), f": {_minutes(minutes)} added{tail}")
    if a["event"] == "removed":
        left = f" ({total} left)" if total else ""
        return (
            _at_table(r, ctx),
            *_seated(r),
            f": extension of {_minutes(minutes)} taken back{left}",
        )
    raise Unknown(a["event"])


def deck_check_sentence(r: Record, ctx: Context) -> tuple[Part, ...]:
    """ "Table 4, round 3 (A vs B): deck check finished after 7 minutes, 7 added to the
    table (sideboard count checked)"."""
    a = r.after
    if a["event"] == "started":
        return (_at_table(r, ctx), *_seated(r), ": deck check started")
    if a["event"] == "finished":
        minutes, given = int(a["minutes"]), int(a.get("extension") or 0)
        gave = f", {given} added to the table" if given else ", no time added (result in)"
        note = f" ({a['note']})" if a.get("note") else ""
        return (
            _at_table(r, ctx),
            *_seated(r),
            f": deck check finished after {_minutes(minutes)}{gave}{note}",
        )
    raise Unknown(a["event"])
