"""The organizer's audit log, read as sentences (issue 12 item 6).

Two halves:
- `describe(record, context)`: one stored entry in, one sentence out. It reads nothing
  from the database. Each sentence is built from what the entry stored as fields: the
  round, the table and the players it is about (services.writing, Write.audit: the
  AuditEntry's columns and its AuditPlayer rows, each player's interchange id and name
  then), and the before/after JSON the service wrote. The summary is never read: an
  entry of a shape no renderer knows, or one lacking a fact its sentence needs, shows its
  summary as written.
- `audit_log(tournament, ...)`: the screen's read model: filter by round and by player,
  a page of entries newest first with their players (one query), and the little the
  sentences need (names of players held by id only, round names).

The filters read the same fields: AuditEntry.round and the entry's AuditPlayer rows.
Entries written before those facts were stored got them once, from their summaries, by
migrations 0008 and 0018 (and a restored older backup at restore time), through the
frozen tournaments.audit_legacy.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from html import escape  # the stdlib one: Django's lazy wrapper is slower on 200 rows
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import Count, Max, Min, Q
from django.urls import reverse
from django.utils import dateformat
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from tournaments import names as name_rules  # `names` is a local name here
from tournaments.labels import seed_change_text
from tournaments.messages import Message
from tournaments.models import AuditAction, AuditEntry, AuditPlayer, Entry, StaffRole, Tournament
from tournaments.pages.audit_parts import (
    Context,
    Mention,
    Part,
    Record,
    Sentence,
    Unknown,
    at_table,
    said,
)
from tournaments.pages.call_audit import call_sentence
from tournaments.pages.decklist_audit import decklist_sentence
from tournaments.pages.floor_audit import deck_check_sentence, extension_sentence
from tournaments.pages.penalty_audit import penalty_sentence
from tournaments.pages.seating_audit import fixed_seat_sentence, restriction_sentence
from tournaments.parsing import ascii_int
from tournaments.rules import RoundName, ordinal, score_text
from tournaments.templatetags.tourney import round_name

PAGE_SIZE = 200  # a screenful to scan or search in the browser, small enough to stay fast
# A name fragment that fits more players than this is too vague to filter by usefully (and
# each player adds a few LIKE terms to the query): the organizer is asked for more letters.
MAX_PLAYERS_PER_FILTER = 30
# Renames the player filter reads to know a player's former names, newest first, at most
# this many (an event renames each player a handful of times at most).
WINDOW = 10_000
NAMES_LISTED = 10  # a pasted list of 500 registrations names the first ten


# --- One entry, one sentence (no database below this line until audit_log) --------------


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
    # One message for the frame: each language places who and when where it says them.
    stamp = when(record.at, ctx) if record.at is not None else ""
    if record.by and stamp:
        what = said(_("%(what)s by %(user)s %(when)s"), what=what, user=record.by, when=stamp)
    elif record.by:
        what = said(_("%(what)s by %(user)s"), what=what, user=record.by)
    elif stamp:
        what = said(_("%(what)s %(when)s"), what=what, when=stamp)
    return Sentence(what, fallback)


def when(at: datetime, ctx: Context) -> str:
    """ "at 14:03", or "on Sat 14 Jun at 14:03" when the log spans days (server's zone)."""
    local = at.astimezone(ctx.tz)
    time = f"{local:%H:%M}"
    if not ctx.with_date:
        return _("at %(time)s") % {"time": time}
    # A date format each language writes its own way ("Sat 14 Jun", "6月14日(土)").
    if ctx.with_year:
        shape = pgettext("the audit log's day, a Django date format", "D j M Y")
    else:
        shape = pgettext("the audit log's day, a Django date format", "D j M")
    day = dateformat.format(local, shape)
    return _("on %(day)s at %(time)s") % {"day": day, "time": time}


def _n(number: int) -> str:
    """A count as the reader's language groups its digits ("1,024" in English)."""
    return number_format(number, force_grouping=True)


def _commas(names: Sequence[Mention]) -> tuple[Part, ...]:
    parts: list[Part] = []
    for k, name in enumerate(names):
        parts.extend((", ", name) if k else (name,))
    return tuple(parts)


def _listed(names: Sequence[Mention]) -> tuple[Part, ...]:
    """ "A", "A and B", "A, B and C", "A, B, ... and 490 more"."""
    shown = list(names[:NAMES_LISTED])
    rest = len(names) - len(shown)
    if rest:
        message = ngettext("%(names)s and %(counter)s more", "%(names)s and %(counter)s more", rest)
        return said(message, names=_commas(shown), counter=_n(rest))
    if len(shown) < 2:
        return tuple(shown)
    return said(_("%(names)s and %(name)s"), names=_commas(shown[:-1]), name=shown[-1])


# What an entry is about, as stored beside it.


def _players(r: Record) -> list[Mention]:
    return [Mention(name, ext) for name, ext in r.players]


def _subject(r: Record) -> Mention:
    """The player an entry about one player is about."""
    name, ext = r.players[0]
    return Mention(name, ext)


def _namer(r: Record, ctx: Context) -> Callable[[Any], Mention]:
    """A player the JSON holds by interchange id, by the name the entry stored for them
    (their name then: a rename since does not change the entry), else their name now."""
    then: dict[str, str] = {}
    for name, ext in r.players:
        if ext is not None:
            then.setdefault(ext, name)

    def person(ext: Any) -> Mention:
        key = str(ext)
        return Mention(then.get(key) or ctx.names.get(key, key), key)

    return person


_at_table = at_table


# Results (services/results.py record_result): round, table, the two seated players;
# before/after {"reported", "kind", "wins", "draws"}.
def _result_words(state: Any) -> str:
    if not state or not state["reported"]:
        return _("no result")
    if state["kind"] == "double_loss":
        return _("a double loss")
    return score_text([int(w) for w in state["wins"]], int(state["draws"] or 0))


def _result(r: Record, ctx: Context) -> tuple[Part, ...]:
    place = _at_table(r, ctx)
    seated = _players(r)
    where: tuple[Part, ...] = (place,)
    if len(seated) == 2:
        where = said(_("%(place)s (%(a)s vs %(b)s)"), place=place, a=seated[0], b=seated[1])
    elif seated:
        where = said(_("%(place)s (%(a)s)"), place=place, a=seated[0])
    was, now = r.before, r.after
    if not was or not was["reported"]:
        return said(_("%(where)s: %(result)s entered"), where=where, result=_result_words(now))
    if not now["reported"]:
        return said(_("%(where)s: %(result)s cleared"), where=where, result=_result_words(was))
    return said(
        _("%(where)s: %(was)s changed to %(now)s"),
        where=where,
        was=_result_words(was),
        now=_result_words(now),
    )


# League tables (record_game): round, table, the players at it; before/after
# {"reported", "places": {ext: place}, "scores": {ext: "41.5"}, "absent": [ext]}.
def _number(text: str | None) -> str | None:
    """A stored score as people write it: "40.0000" is 40, "41.5000" is 41.5."""
    if text is None:
        return None
    plain = f"{Decimal(text):f}"
    return plain.rstrip("0").rstrip(".") if "." in plain else plain


def _places(state: Any, person: Callable[[Any], Mention]) -> tuple[Part, ...]:
    parts: list[Part] = []
    ranked = sorted(state["places"].items(), key=lambda item: (item[1] is None, item[1]))
    for ext, place in ranked:
        parts.append(", " if parts else "")
        score = _number(state.get("scores", {}).get(ext))
        who, rank = person(ext), ordinal(int(place))
        if score is None:
            parts.extend(said(_("%(name)s %(place)s"), name=who, place=rank))
        else:
            parts.extend(
                said(_("%(name)s %(place)s (%(score)s)"), name=who, place=rank, score=score)
            )
    for ext in state.get("absent", []):
        parts.append(", " if parts else "")
        parts.extend(said(_("%(name)s absent"), name=person(ext)))
    return tuple(p for p in parts if p != "")


def _game(r: Record, ctx: Context) -> tuple[Part, ...]:
    place, person = _at_table(r, ctx), _namer(r, ctx)
    was, now = r.before, r.after
    if not now["reported"]:
        return said(_("%(where)s: places and scores cleared"), where=place)
    if not was or not was["reported"]:
        return said(
            _("%(where)s: places entered: %(places)s"), where=place, places=_places(now, person)
        )
    return said(
        _("%(where)s: places changed to %(places)s (were %(was)s)"),
        where=place,
        places=_places(now, person),
        was=_places(was, person),
    )


# Players (services/players.py, registration.py).
def _register(r: Record, ctx: Context) -> tuple[Part, ...]:
    a = r.after
    if "entry" in a:  # registration.register_self: {"player", "entry"}
        if a["entry"] == "pending":
            return said(_("%(name)s registered (pending approval)"), name=_subject(r))
        return said(_("%(name)s registered"), name=_subject(r))
    names, late = _players(r), bool(a["late"])  # players.register_players: {"names", "late"}
    if len(names) == 1:
        if late:
            return said(_("%(name)s registered as a late entry"), name=names[0])
        return said(_("%(name)s registered"), name=names[0])
    if late:
        message = ngettext(
            "%(counter)s player registered as late entries: %(names)s",
            "%(counter)s players registered as late entries: %(names)s",
            len(names),
        )
    else:
        message = ngettext(
            "%(counter)s player registered: %(names)s",
            "%(counter)s players registered: %(names)s",
            len(names),
        )
    return said(message, counter=_n(len(names)), names=_listed(names))


def _rename(r: Record, ctx: Context) -> tuple[Part, ...]:
    if not isinstance(r.before, str) or not isinstance(r.after, str):
        raise Unknown(r.action)
    ext = r.players[0][1] if r.players else None
    return said(
        _("%(old)s renamed to %(new)s"), old=Mention(r.before, ext), new=Mention(r.after, ext)
    )


def _drop(r: Record, ctx: Context) -> tuple[Part, ...]:
    a = r.after
    if isinstance(a.get("players"), list):  # registration.drop_no_shows
        person = _namer(r, ctx)
        names = [person(ext) for ext in a["players"]]
        message = ngettext(
            "%(counter)s no-show dropped before round 1: %(names)s",
            "%(counter)s no-shows dropped before round 1: %(names)s",
            len(names),
        )
        return said(message, counter=_n(len(names)), names=_listed(names))
    last = int(a["dropped_after_round"])
    own = bool(a.get("by_player"))  # reports.self_drop
    if last and own:
        message = _("%(name)s dropped after round %(round)s (own request)")
    elif last:
        message = _("%(name)s dropped after round %(round)s")
    elif own:
        message = _("%(name)s dropped before round 1 (own request)")
    else:
        message = _("%(name)s dropped before round 1")
    return said(message, name=_subject(r), round=last)


def _readmit(r: Record, ctx: Context) -> tuple[Part, ...]:
    had = (r.before or {}).get("dropped_after_round")
    if had:
        return said(
            _("%(name)s re-admitted (had dropped after round %(round)s)"),
            name=_subject(r),
            round=had,
        )
    return said(_("%(name)s re-admitted"), name=_subject(r))


def _remove(r: Record, ctx: Context) -> tuple[Part, ...]:
    return said(_("%(name)s removed (entered by mistake, never paired)"), name=_subject(r))


# Rounds (services/rounds.py, playoff.py, corrections.py).
def _pair(r: Record, ctx: Context) -> tuple[Part, ...]:
    number, tables = int(r.after["round"]), int(r.after["matches"])
    if r.after["playoff"]:
        name = _("%(name)s (round %(number)s)") % {
            "name": round_name(RoundName.playoff(tables, number)),
            "number": number,
        }
    else:
        name = _("Round %(number)s") % {"number": number}
    message = ngettext(
        "%(round)s paired (%(counter)s table)", "%(round)s paired (%(counter)s tables)", tables
    )
    return (message % {"round": name, "counter": _n(tables)},)


def _undo(r: Record, ctx: Context) -> tuple[Part, ...]:
    return (_("Pairing of round %(round)s undone") % {"round": int(r.before["round"])},)


def _cut(r: Record, ctx: Context) -> tuple[Part, ...]:
    a, person = r.after, _namer(r, ctx)
    if a["top"] is not None:
        rule = _("top %(size)s") % {"size": int(a["top"])}
    else:
        rule = _("%(points)s points or more") % {"points": a["min_points"]}
    advancing = [person(ext) for ext in a["players"]]
    message = ngettext(
        # The English singular reads "advance" as it always has (kept word for word).
        "Cut to phase %(phase)s (%(rule)s): %(counter)s player advance: %(names)s",
        "Cut to phase %(phase)s (%(rule)s): %(counter)s players advance: %(names)s",
        len(advancing),
    )
    return said(
        message,
        phase=int(a["phase"]),
        rule=rule,
        counter=_n(len(advancing)),
        names=_listed(advancing),
    )


# The key that names a re-seed or keep decision in a top-cut entry's `after`
# (services.corrections.CUT_DECISION; the entry that starts the cut has none).
CUT_DECISION = "cut_decision"


def _seeds(exts: Sequence[Any], person: Callable[[Any], Mention]) -> list[Part]:
    parts: list[Part] = []
    for k, ext in enumerate(exts, start=1):
        parts.extend((", " if k > 1 else "", f"{k} ", person(ext)))
    return parts


def _top_cut(r: Record, ctx: Context) -> tuple[Part, ...]:
    """playoff.start_top_cut: round, after {"round", "seeds"}. corrections' re-seed or
    keep: round and table of the correction that moved the seeds, after {CUT_DECISION,
    "seeds", "change_texts" (the changes as the organizer read them), ...}."""
    a = r.after
    seeds = tuple(_seeds(a["seeds"], _namer(r, ctx)))
    size = len(a["seeds"])
    decision = a.get(CUT_DECISION)
    if decision is None:
        number = int(r.round)  # type: ignore[arg-type]
        return said(
            _("Top cut of %(size)s started (round %(round)s; seeds: %(seeds)s)"),
            size=size,
            round=number,
            seeds=seeds,
        )
    if decision not in ("reseed", "keep"):
        raise Unknown(decision)
    if r.round is None:
        cause = _("after a correction")
    elif r.table is None:
        cause = _("after a correction to round %(round)s") % {"round": r.round}
    else:
        cause = _("after a correction to round %(round)s (table %(table)s)") % {
            "round": r.round,
            "table": r.table,
        }
    changes = _seed_changes(a)
    if decision == "reseed" and changes:
        message = _("Top cut of %(size)s re-seeded %(cause)s: %(changes)s (seeds now: %(seeds)s)")
    elif decision == "reseed":
        message = _("Top cut of %(size)s re-seeded %(cause)s (seeds now: %(seeds)s)")
    elif changes:
        message = _("Top cut of %(size)s kept as seeded %(cause)s: %(changes)s (seeds: %(seeds)s)")
    else:
        message = _("Top cut of %(size)s kept as seeded %(cause)s (seeds: %(seeds)s)")
    return said(message, size=size, cause=cause, changes=changes, seeds=seeds)


def _seed_changes(a: Mapping[str, Any]) -> str:
    """A cut decision's changes in the reader's language, from their data; an entry
    written before they were data keeps its English sentences, shown as written (never
    read back into data)."""
    if "change_messages" in a:
        return "; ".join(seed_change_text(Message.from_data(m)) for m in a["change_messages"])
    return "; ".join(map(str, a.get("change_texts") or ()))


# The event (services/lifecycle.py, imports.py, staff.py, clock.py).
REOPENED_AS = {
    "running": gettext_lazy("Tournament reopened (running again)"),
    "top_cut": gettext_lazy("Tournament reopened (back in the top cut)"),
    "registration": gettext_lazy("Tournament reopened (back to registration)"),
}


def _finish(r: Record, ctx: Context) -> tuple[Part, ...]:
    return (_("Tournament finished"),)


def _reopen(r: Record, ctx: Context) -> tuple[Part, ...]:
    status = (r.after or {}).get("status")
    return (str(REOPENED_AS[status]) if status else _("Tournament reopened"),)


def _plan_words(plan: Mapping[str, Any]) -> str:
    rounds, cut = plan["planned_rounds"], plan["top_cut"]
    if rounds:
        count = int(rounds)
        first = ngettext("%(counter)s Swiss round", "%(counter)s Swiss rounds", count) % {
            "counter": _n(count)
        }
    else:
        first = _("an open number of Swiss rounds")
    if cut:
        return _("%(rounds)s and a top %(size)s") % {"rounds": first, "size": int(cut)}
    return _("%(rounds)s and no top cut") % {"rounds": first}


def _plan(r: Record, ctx: Context) -> tuple[Part, ...]:
    if r.before:
        return (
            _("Plan set to %(plan)s (was %(was)s)")
            % {"plan": _plan_words(r.after), "was": _plan_words(r.before)},
        )
    return (_("Plan set to %(plan)s") % {"plan": _plan_words(r.after)},)


def _import(r: Record, ctx: Context) -> tuple[Part, ...]:
    a = r.after  # {"players", "rounds", "restored"}
    count, rounds = int(a["players"]), int(a["rounds"])
    facts = {
        "players": ngettext("%(counter)s player", "%(counter)s players", count)
        % {"counter": _n(count)},
        "rounds": ngettext("%(counter)s round", "%(counter)s rounds", rounds)
        % {"counter": _n(rounds)},
    }
    if a["restored"]:
        return (_("Restored from a backup (%(players)s, %(rounds)s)") % facts,)
    return (_("Imported from a file (%(players)s, %(rounds)s)") % facts,)


STAFF_WORDS = {  # after["event"] -> the sentence, of after["username"]
    "added": gettext_lazy("%(name)s added to the staff"),
    "created": gettext_lazy("Staff account %(name)s created"),
    "link": gettext_lazy("New set-password link made for %(name)s"),
}
STAFF_WORDS_AS = {  # the same, with the role they were given
    "added": gettext_lazy("%(name)s added to the staff as %(role)s"),
    "created": gettext_lazy("Staff account %(name)s created as %(role)s"),
    "link": gettext_lazy("New set-password link made for %(name)s as %(role)s"),
}


def _role_words(value: Any) -> str | None:
    """A staff role as a sentence says it ("head judge"), in the reader's language."""
    if str(value) not in StaffRole.values:
        return None
    return str(StaffRole(str(value)).label).lower()


def _staff(r: Record, ctx: Context) -> tuple[Part, ...]:
    if isinstance(r.before, str) and r.after is None:  # remove_staff: before = username
        return (_("%(name)s removed from the staff") % {"name": r.before},)
    name = str(r.after["username"])
    role = _role_words(r.after.get("role", ""))
    event = r.after["event"]
    if event == "role" and role:
        return (_("%(name)s is now %(role)s") % {"name": name, "role": role},)
    if role:
        return (str(STAFF_WORDS_AS[event]) % {"name": name, "role": role},)
    return (str(STAFF_WORDS[event]) % {"name": name},)


def _clock(r: Record, ctx: Context) -> tuple[Part, ...]:
    """round; after {"event": "started" | "paused" | "resumed" | "moved", "minutes"}.
    A playoff round by its name, as the pairings call it ("the Final")."""
    a = r.after
    number = int(r.round)  # type: ignore[arg-type]
    name = ctx.playoff_rounds.get(number)
    event = a["event"]
    minutes = abs(int(a["minutes"])) if event in ("started", "moved") else 0
    values = {"round": number, "name": name, "counter": _n(minutes)}
    # Each sentence whole, for a Swiss round and for a named playoff round.
    if event == "started" and name:
        message = ngettext(
            "Clock of the %(name)s started (%(counter)s minute)",
            "Clock of the %(name)s started (%(counter)s minutes)",
            minutes,
        )
    elif event == "started":
        message = ngettext(
            "Clock of round %(round)s started (%(counter)s minute)",
            "Clock of round %(round)s started (%(counter)s minutes)",
            minutes,
        )
    elif event == "moved" and int(a["minutes"]) > 0:
        message = (
            ngettext(
                "%(counter)s minute added to the clock of the %(name)s",
                "%(counter)s minutes added to the clock of the %(name)s",
                minutes,
            )
            if name
            else ngettext(
                "%(counter)s minute added to the clock of round %(round)s",
                "%(counter)s minutes added to the clock of round %(round)s",
                minutes,
            )
        )
    elif event == "moved":
        message = (
            ngettext(
                "%(counter)s minute taken off the clock of the %(name)s",
                "%(counter)s minutes taken off the clock of the %(name)s",
                minutes,
            )
            if name
            else ngettext(
                "%(counter)s minute taken off the clock of round %(round)s",
                "%(counter)s minutes taken off the clock of round %(round)s",
                minutes,
            )
        )
    elif event == "paused":
        message = (
            _("Clock of the %(name)s paused") if name else _("Clock of round %(round)s paused")
        )
    elif event == "resumed":
        message = (
            _("Clock of the %(name)s resumed") if name else _("Clock of round %(round)s resumed")
        )
    else:
        raise Unknown(event)
    return (message % values,)


# Players taking part (issue 14): services/reports.py and registration.py. A report's
# facts are in `after` (see services.reports._facts).
def _place_of(after: Mapping[str, Any], ctx: Context) -> str:
    number, table = int(after["round"]), after["table"]
    if number in ctx.playoff_rounds:
        return _("Table %(table)s, %(name)s") % {"table": table, "name": ctx.playoff_rounds[number]}
    return _("Table %(table)s, round %(round)s") % {"table": table, "round": number}


def _report(r: Record, ctx: Context) -> tuple[Part, ...]:
    a = r.after
    place = _place_of(a, ctx)
    reporter = Mention(str(a["reporter"]), a.get("reporter_id"))
    event = a.get("event")
    if event == "report":
        if a.get("was"):
            return said(
                _("%(place)s: %(name)s reported %(score)s (was %(was)s)"),
                place=place,
                name=reporter,
                score=a["score"],
                was=a["was"],
            )
        return said(
            _("%(place)s: %(name)s reported %(score)s"),
            place=place,
            name=reporter,
            score=a["score"],
        )
    if event in ("confirmed", "disputed"):
        answer = Mention(str(a["by"]), a.get("by_id"))
        claim = a.get("claim")
        if event == "confirmed" and claim:
            message = _(
                "%(place)s: %(name)s reported %(score)s, confirmed by %(by)s (%(by)s reported %(claim)s)"
            )
        elif event == "confirmed":
            message = _("%(place)s: %(name)s reported %(score)s, confirmed by %(by)s")
        elif claim:
            message = _(
                "%(place)s: %(name)s reported %(score)s, disputed by %(by)s (%(by)s reported %(claim)s)"
            )
        else:
            message = _("%(place)s: %(name)s reported %(score)s, disputed by %(by)s")
        return said(
            message, place=place, name=reporter, score=a["score"], by=answer, claim=claim or ""
        )
    if event == "reset":
        return said(
            _("%(place)s: %(name)s's report (%(score)s) reset"),
            place=place,
            name=reporter,
            score=a["score"],
        )
    raise Unknown(event)


def _check_in(r: Record, ctx: Context) -> tuple[Part, ...]:
    return said(_("%(name)s checked in"), name=_subject(r))


def _settings_words(s: Mapping[str, Any]) -> list[str]:
    return [
        pgettext("registration", "open") if s["open"] else pgettext("registration", "closed"),
        _("cap %(cap)s") % {"cap": s["cap"]} if s["cap"] is not None else _("no cap"),
        _("each entry approved") if s["approval"] else _("entries accepted at once"),
        _("check-in used") if s["check_in"] else _("no check-in"),
    ]


ENTRY_DECISIONS = {  # a decision on one entry, of the player it is about
    "accepted": gettext_lazy("%(name)s's entry accepted"),
    "rejected": gettext_lazy("%(name)s's entry rejected"),
    "pending": gettext_lazy("%(name)s's entry pending"),
}


def _entry(r: Record, ctx: Context) -> tuple[Part, ...]:
    a = r.after
    if "player" in a:  # the organizer's decision on one entry: {"player", "entry"}
        decided = ENTRY_DECISIONS.get(str(a["entry"]))
        if decided is None:
            return said(_("%(name)s's entry %(entry)s"), name=_subject(r), entry=a["entry"])
        return said(str(decided), name=_subject(r))
    if isinstance(a.get("players"), list):  # registration.accept_entries, reject_entries
        person = _namer(r, ctx)
        names = [person(ext) for ext in a["players"]]
        n = len(names)
        if a["entry"] == "accepted":
            message = ngettext(
                "%(counter)s entry accepted: %(names)s",
                "%(counter)s entries accepted: %(names)s",
                n,
            )
        elif a["entry"] == "rejected":
            message = ngettext(
                "%(counter)s entry rejected: %(names)s",
                "%(counter)s entries rejected: %(names)s",
                n,
            )
        else:
            message = ngettext(
                "%(counter)s entry %(entry)s: %(names)s",
                "%(counter)s entries %(entry)s: %(names)s",
                n,
            )
        return said(message, counter=_n(n), entry=a["entry"], names=_listed(names))
    return (_("Registration settings: %(settings)s") % {"settings": ", ".join(_settings_words(a))},)


def _link(r: Record, ctx: Context) -> tuple[Part, ...]:
    if r.after["replaced"]:
        return said(_("New private link for %(name)s"), name=_subject(r))
    return said(_("Private link for %(name)s"), name=_subject(r))


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
    AuditAction.PENALTY: penalty_sentence,
    AuditAction.EXTENSION: extension_sentence,
    AuditAction.DECK_CHECK: deck_check_sentence,
    AuditAction.SEATING: fixed_seat_sentence,
    AuditAction.CALL: call_sentence,
    AuditAction.DECKLIST: decklist_sentence,
    AuditAction.RESTRICTION: restriction_sentence,
}


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
    """Entries read with their players prefetched (`players`: one query for the page)."""
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
                round=e.round,
                table=e.table,
                players=tuple((p.name, p.external_id) for p in e.players.all()),
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
                _(
                    "“%(typed)s” fits more than %(max)s players: type more of the name (or "
                    "follow a name's link in the log)."
                )
                % {"typed": text, "max": MAX_PLAYERS_PER_FILTER},
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
    """Round number -> the playoff round's name, said in the active language (the log is
    read in its reader's; its English export overrides the language around it)."""
    rounds = t.rounds.filter(playoff=True).annotate(n=Count("matches"))
    return {
        number: round_name(RoundName.playoff(n, number))
        for number, n in rounds.values_list("number", "n")
    }


def _context(t: Tournament, rows: Sequence[tuple[int, Record]]) -> Context:
    tz = ZoneInfo(t.time_zone or settings.TIME_ZONE)
    span = t.audit.aggregate(first=Min("at"), last=Max("at"))
    first, last = span["first"], span["last"]
    with_date = bool(first and last and first.astimezone(tz).date() != last.astimezone(tz).date())
    with_year = bool(with_date and first.astimezone(tz).year != last.astimezone(tz).year)
    # Players the JSON holds by id that the entry did not name (entries written before
    # their players were stored): named as they are now. None at all: no query.
    exts: set[str] = set()
    for _pk, r in rows:
        held: set[str] = set()
        for state in (r.before, r.after) if r.action == AuditAction.GAME else ():
            if isinstance(state, dict):
                held.update(map(str, state.get("places") or {}))
                held.update(map(str, state.get("absent") or []))
        listing = (AuditAction.CUT, AuditAction.TOP_CUT, AuditAction.DROP)
        if r.action in listing and isinstance(r.after, dict):
            held.update(map(str, r.after.get("players") or r.after.get("seeds") or []))
        exts |= held - {ext for _name, ext in r.players}
    names = (
        dict(t.players.filter(external_id__in=exts).values_list("external_id", "name"))
        if exts
        else {}
    )
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
    return [
        (
            n,
            _("%(name)s (round %(number)s)") % {"name": playoff[n], "number": n}
            if n in playoff
            else _("Round %(number)s") % {"number": n},
        )
        for n in numbers
    ]


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
    page_rows = AuditEntry.objects.filter(pk__in=order).select_related("user")
    rows = _records(page_rows.prefetch_related("players"))
    rows.sort(key=lambda row: order[row[0]])
    ctx = _context(t, rows)
    labels = _namesake_labels(t)
    sentences = [(pk, r, _labelled(describe(r, ctx), labels)) for pk, r in rows]
    link = _links([m for _pk, _r, s in sentences for m in s.mentions], t)
    here = reverse("manage_audit", args=[t.slug])
    query = urlencode([(k, v) for k, v in (("round", round), ("player", player)) if v])
    found = sorted({n for p in people for n in p.names})
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
            _("Entries %(first)s–%(last)s of %(count)s, newest first")
            % {
                "first": number_format(shown.start_index(), force_grouping=True),
                "last": number_format(shown.end_index(), force_grouping=True),
                "count": number_format(pages.count, force_grouping=True),
            }
            if pages.count
            else _("No entries")
        ),
        "previous_page": shown.previous_page_number() if shown.has_previous() else None,
        "next_page": shown.next_page_number() if shown.has_next() else None,
        "query": query,
        "round": round,
        "player": player,
        "players_found": found,
        "naming": _either(found) if found else _("“%(typed)s”") % {"typed": player},
        "rounds": _round_choices(t, ctx.playoff_rounds, round),
        "time_zone": settings.TIME_ZONE,
    }


def _either(names: Sequence[str]) -> str:
    """ "Ana or Ben or Carl": one message per pair, so each language words its "or"."""
    said = names[0]
    for name in names[1:]:
        said = _("%(names)s or %(name)s") % {"names": said, "name": name}
    return said


def _namesake_labels(t: Tournament) -> dict[str, tuple[str, str]]:
    """external id -> (name now, " (2)") of the players the pages number apart
    (pages.event.display_names), in one query; usually empty."""
    rows = list(
        t.players.exclude(entry=Entry.REJECTED).order_by("pk").values_list("external_id", "name")
    )
    shown = name_rules.display_names(rows)
    return {e: (n, shown[e][len(n) :]) for e, n in rows if shown[e] != n}


def _labelled(sentence: Sentence, labels: Mapping[str, tuple[str, str]]) -> Sentence:
    """The sentence with each namesake named as the pages name them ("Alex Martin (2)
    registered"): by the id the entry stored, when the name it stored is the one they
    still have (a player renamed since is named as the entry stored them; the link
    still leads to them)."""
    if not labels:
        return sentence
    parts: list[Part] = []
    for part in sentence.parts:
        found = labels.get(part.ext) if isinstance(part, Mention) and part.ext else None
        if found is not None and name_rules.skeleton(part.name) == name_rules.skeleton(found[0]):
            part = replace(part, name=part.name + found[1])
        parts.append(part)
    return replace(sentence, parts=tuple(parts))


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _markup(sentence: Sentence, link: Links, url: str) -> str:
    """The sentence as HTML, each player's name a link to the log filtered by them.

    Built here rather than in the template: 200 rows of parts through template tags cost
    ten times more, as pages/public.py found for its big tables."""
    by_ext, by_name = link
    out = []
    for part in sentence.parts:
        if isinstance(part, str):
            out.append(escape(part))
        elif (pk := by_ext.get(part.ext) if part.ext else by_name.get(part.name)) is not None:
            out.append(f'<a href="{url}?player={pk}">{escape(part.name)}</a>')
        else:
            out.append(escape(part.name))
    return "".join(out)


Links = tuple[Mapping[str, int], Mapping[str, int | None]]  # by interchange id, by name


def _links(mentions: Sequence[Mention], t: Tournament) -> Links:
    """Names link to the log filtered by that player: by their id when the entry stored
    it (whatever they are called now: a renamed player's old name leads to them), else by
    the name when exactly one player has it now (two of one name: no link)."""
    exts = {m.ext for m in mentions if m.ext}
    by_ext = dict(t.players.filter(external_id__in=exts).values_list("external_id", "pk"))
    by_name: dict[str, int | None] = {}
    names = t.players.filter(name__in={m.name for m in mentions if not m.ext})
    for name, pk in names.values_list("name", "pk"):
        by_name[name] = None if name in by_name else pk
    return by_ext, by_name
