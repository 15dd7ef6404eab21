"""The audit log's sentences for the floor's time (issue 27): time extensions and deck
checks (services.floor). Each reads the entry's round, table and players and its `after`:

- EXTENSION: after {"event": "added", "minutes", "total", "note"} or
  {"event": "removed", "minutes", "total"};
- DECK_CHECK: after {"event": "started"} or
  {"event": "finished", "minutes", "extension", "note"}.

tournaments.pages.audit maps AuditAction.EXTENSION and DECK_CHECK to these.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tournaments.pages.audit_parts import Context, Mention, Part, Record, Unknown
from tournaments.pages.audit_parts import at_table as _at_table


def _seated(r: Record) -> tuple[Part, ...]:
    """ " (A vs B)" of the table's players as the entry stored them."""
    players = [Mention(name, ext) for name, ext in r.players]
    if len(players) == 2:
        return (" (", players[0], " " + _("vs") + " ", players[1], ")")
    if players:
        return (" (", players[0], ")")
    return ()


def _added(minutes: int, total: int, note: str) -> str:
    """ "5 minutes added (a long ruling; 8 in all)"."""
    said = {"count": minutes, "total": total, "note": note}
    if total != minutes and note:
        return (
            ngettext(
                "%(count)s minute added (%(note)s; %(total)s in all)",
                "%(count)s minutes added (%(note)s; %(total)s in all)",
                minutes,
            )
            % said
        )
    if total != minutes:
        return (
            ngettext(
                "%(count)s minute added (%(total)s in all)",
                "%(count)s minutes added (%(total)s in all)",
                minutes,
            )
            % said
        )
    if note:
        return (
            ngettext(
                "%(count)s minute added (%(note)s)", "%(count)s minutes added (%(note)s)", minutes
            )
            % said
        )
    return ngettext("%(count)s minute added", "%(count)s minutes added", minutes) % said


def _taken_back(minutes: int, total: int) -> str:
    said = {"count": minutes, "total": total}
    if total:
        return (
            ngettext(
                "extension of %(count)s minute taken back (%(total)s left)",
                "extension of %(count)s minutes taken back (%(total)s left)",
                minutes,
            )
            % said
        )
    return (
        ngettext(
            "extension of %(count)s minute taken back",
            "extension of %(count)s minutes taken back",
            minutes,
        )
        % said
    )


def extension_sentence(r: Record, ctx: Context) -> tuple[Part, ...]:
    """ "Table 4, round 3 (A vs B): 5 minutes added (a long ruling; 8 in all)"."""
    a = r.after
    minutes, total = int(a["minutes"]), int(a["total"])
    if a["event"] == "added":
        said = _added(minutes, total, str(a.get("note") or ""))
        return (_at_table(r, ctx), *_seated(r), f": {said}")
    if a["event"] == "removed":
        return (_at_table(r, ctx), *_seated(r), f": {_taken_back(minutes, total)}")
    raise Unknown(a["event"])


def _finished(minutes: int, given: int, note: str) -> str:
    """ "deck check finished after 7 minutes, 7 added to the table (sideboard count
    checked)"."""
    said = {"count": minutes, "given": given, "note": note}
    if given and note:
        return (
            ngettext(
                "deck check finished after %(count)s minute, %(given)s added to the table "
                "(%(note)s)",
                "deck check finished after %(count)s minutes, %(given)s added to the table "
                "(%(note)s)",
                minutes,
            )
            % said
        )
    if given:
        return (
            ngettext(
                "deck check finished after %(count)s minute, %(given)s added to the table",
                "deck check finished after %(count)s minutes, %(given)s added to the table",
                minutes,
            )
            % said
        )
    if note:
        return (
            ngettext(
                "deck check finished after %(count)s minute, no time added (result in) (%(note)s)",
                "deck check finished after %(count)s minutes, no time added (result in) (%(note)s)",
                minutes,
            )
            % said
        )
    return (
        ngettext(
            "deck check finished after %(count)s minute, no time added (result in)",
            "deck check finished after %(count)s minutes, no time added (result in)",
            minutes,
        )
        % said
    )


def deck_check_sentence(r: Record, ctx: Context) -> tuple[Part, ...]:
    """ "Table 4, round 3 (A vs B): deck check finished after 7 minutes, 7 added to the
    table (sideboard count checked)"."""
    a = r.after
    if a["event"] == "started":
        return (_at_table(r, ctx), *_seated(r), ": " + _("deck check started"))
    if a["event"] == "finished":
        minutes, given = int(a["minutes"]), int(a.get("extension") or 0)
        said = _finished(minutes, given, str(a.get("note") or ""))
        return (_at_table(r, ctx), *_seated(r), f": {said}")
    raise Unknown(a["event"])
