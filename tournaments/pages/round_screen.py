"""The round screen's read model: one compact row per table, for rounds of 1,000+ tables.

The rows are read with one query (seats joined to their match and player, as plain
tuples) and written straight to HTML here rather than through Django's template engine:
at 1,024 tables a template loop over model instances cost ~400 ms and 4.7 MB; this costs
a few ms and under 300 bytes a table (`make bench` prints both figures).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from html import escape
from typing import Any

from django.db.models import Case, Count, Max, Min, Q, When
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from tournaments.models import Match, MatchKind, Report, ReportState, Round, Seat, Tournament
from tournaments.pages.common import round_extensions
from tournaments.pages.event import display_names
from tournaments.pages.floor import extension_text, still_playing
from tournaments.pages.penalties import match_notes
from tournaments.pages.reports import Claim, organizer_panel, seat_claims
from tournaments.rules import score_text
from tournaments.tabletime import round_over

OPEN = (MatchKind.PLAYED,)
OOB_ATTRIBUTE = ' hx-swap-oob="true"'

# What a row says, in English; `Words` holds them in the request's language.
RESULT_WORDS = {
    MatchKind.BYE: gettext_noop("Bye"),
    MatchKind.LOSS: gettext_noop("Loss"),
    MatchKind.DOUBLE_LOSS: gettext_noop("Double loss"),
}


@dataclass(frozen=True, slots=True)
class Words:
    """A row's words in the active language, translated once per table of rows (not per
    row: at 1,024 tables a few gettext calls each would cost more than the rows)."""

    results: dict[str, str]
    bye: str
    no_opponent: str
    missing: str
    edit: str
    claim: str  # "%(name)s's %(value)s": one claim
    claims: str  # "· disputed: %(claims)s"
    claims_or: str  # "%(first)s or %(second)s"

    @classmethod
    def now(cls) -> Words:
        # The translations are trusted like the templates: only &, < and > are escaped
        # (a French "l'adversaire" keeps its apostrophe, as the English "'s" does).
        def say(text: str) -> str:
            return escape(text, quote=False)

        return cls(
            results={kind: say(gettext(word)) for kind, word in RESULT_WORDS.items()},
            bye=say(gettext("Bye")),
            no_opponent=say(gettext("No opponent")),
            missing=say(gettext("missing")),
            edit=say(gettext("Edit")),
            # Filled in with escaped HTML: "Ivo Ng's <strong>2-1</strong>".
            claim=say(gettext("%(name)s's %(value)s")),
            claims=say(gettext("· disputed: %(claims)s")),
            claims_or=say(gettext("%(first)s or %(second)s")),
        )


@dataclass(slots=True)
class Row:
    """One table of a two-player round, as its compact row shows it."""

    pk: int
    table: int | None
    kind: str
    reported: bool
    draws: int
    names: list[str]
    wins: list[int | None]
    claims: list[Claim] = field(default_factory=list)  # a disputed report's, seat order
    # Penalties acting on the match (pages.penalties.match_notes): "Game loss: Ana Souza
    # (Tardiness)", so that whoever enters the result counts the games right.
    penalties: list[str] = field(default_factory=list)
    extension: int = 0  # minutes judges added to the table (issue 27)
    ends: str = ""  # "+5 min, ends 14:35" (pages.floor.extension_text)

    @property
    def open(self) -> bool:
        return self.kind in OPEN and not self.reported

    @property
    def result(self) -> str:
        """The result as the row shows it, in English (`result_in` for the row's words)."""
        return self.result_in(None)

    def result_in(self, words: Words | None) -> str:
        if self.kind in (MatchKind.BYE, MatchKind.LOSS) or (
            self.reported and self.kind == MatchKind.DOUBLE_LOSS
        ):
            return words.results[self.kind] if words else RESULT_WORDS[self.kind]
        if not self.reported:
            return ""
        return score_text([w or 0 for w in self.wins], self.draws)

    @property
    def editable(self) -> bool:
        return self.kind in (MatchKind.PLAYED, MatchKind.DOUBLE_LOSS)


def rows_of(
    round_: Round | int,
    *,
    match_pk: int | None = None,
    names: Mapping[str, str] | None = None,
    match_pks: Collection[int] | None = None,
) -> list[Row]:
    """Every table of the round in table order (or the one match `match_pk`, or only the
    matches `match_pks`): one query, and one for the disputed reports' claims; players
    named as `names` (pages.event.display_names) shows them."""
    names = names or {}
    seats = Seat.objects.order_by("match__table", "match_id", "position")
    if match_pk:
        seats = seats.filter(match_id=match_pk)
    elif match_pks is not None:
        seats = seats.filter(round=round_, match_id__in=list(match_pks))
    else:
        seats = seats.filter(round=round_)
    rows: list[Row] = []
    last: Row | None = None
    for pk, table, kind, reported, draws, name, ext, won in seats.values_list(
        "match_id",
        "match__table",
        "match__kind",
        "match__reported",
        "match__draws",
        "player__name",
        "player__external_id",
        "games_won",
    ):
        if last is None or last.pk != pk:
            last = Row(pk, table, kind, reported, draws, [], [])
            rows.append(last)
        last.names.append(names.get(ext, name))
        last.wins.append(won)
    _add_claims(rows, round_, match_pk)
    _add_penalties(rows, round_, match_pk, names)
    return rows


def _add_penalties(
    rows: list[Row], round_: Round | int, match_pk: int | None, names: Mapping[str, str]
) -> None:
    if match_pk:
        found = match_notes(names, match_pks=[match_pk])
    else:
        found = match_notes(names, round_id=round_.pk if isinstance(round_, Round) else round_)
    for row in rows if found else ():
        row.penalties = found.get(row.pk, [])


def _add_claims(rows: list[Row], round_: Round | int, match_pk: int | None) -> None:
    """Both claims of each disputed report still waiting for the organizer's entry."""
    reports = Report.objects.filter(state=ReportState.DISPUTED, match__reported=False)
    reports = reports.filter(match_id=match_pk) if match_pk else reports.filter(match__round=round_)
    found = {
        pk: facts
        for pk, *facts in reports.values_list(
            "match_id",
            "reporter__name",
            "wins_a",
            "wins_b",
            "draws",
            "answered_by__name",
            "counter_wins_a",
            "counter_wins_b",
            "counter_draws",
        )
    }
    if not found:
        return
    for row in rows:
        if row.pk in found and len(row.names) == 2:
            by, a, b, d, answerer, ca, cb, cd = found[row.pk]
            counter = (ca, cb, cd or 0) if ca is not None and cb is not None else None
            row.claims = seat_claims(row.names, by, (a, b, d), answerer, counter)


def claims_html(claims: list[Claim], words: Words | None = None) -> str:
    """ "· disputed: Ivo Ng's 2-1 or Dev Rao's 0-2", scores in the row's seat order."""
    words = words or Words.now()
    said = [
        f'<span data-claim="{escape(c.value)}">'
        + words.claim % {"name": escape(c.by), "value": f"<strong>{escape(c.value)}</strong>"}
        + "</span>"
        for c in claims
    ]
    joined = said[0] if said else ""
    for more in said[1:]:
        joined = words.claims_or % {"first": joined, "second": more}
    return f' <span class="disputed">{words.claims % {"claims": joined}}</span>'


def row_html(
    row: Row,
    match_url: str,
    *,
    finished: bool = False,
    oob: bool = False,
    words: Words | None = None,
) -> str:
    """A table's compact row. `match_url` is the match's own screen, whose URL holds the
    pk: "Edit" opens it there without JavaScript and in place (hx-boost) with it.
    `words`: the row's words in the active language (`Words.now()`), once per table."""
    words = words or Words.now()
    a = escape(row.names[0]) if row.names else ""
    if len(row.names) > 1:
        b = escape(row.names[1])
    else:
        b = f"<em>{words.bye if row.kind == MatchKind.BYE else words.no_opponent}</em>"
    result = escape(row.result_in(words)) or f'<span class="pending">{words.missing}</span>'
    if row.claims and not row.reported:
        result += claims_html(row.claims, words)
    if row.penalties:
        result += "".join(f' <span class="penalty">· {escape(n)}</span>' for n in row.penalties)
    if row.ends and row.open:
        result += f' <span class="ext" data-extension="{row.extension}">{escape(row.ends)}</span>'
    edit = "" if finished or not row.editable else f'<a href="{match_url}">{words.edit}</a>'
    won = ""
    if row.reported and row.kind == MatchKind.PLAYED and len(row.wins) == 2:
        wa, wb = row.wins[0] or 0, row.wins[1] or 0
        won = ' data-won="a"' if wa > wb else ' data-won="b"' if wb > wa else ""
    swap = OOB_ATTRIBUTE if oob else ""
    return (
        f'<tr id="match-{row.pk}" class="{"open" if row.open else "done"}"{won}{swap}>'
        f"<th>{row.table or ''}</th><td>{a}</td><td>{b}</td><td>{result}</td><td>{edit}</td></tr>"
    )


def match_url(t: Tournament, pk: int) -> str:
    return reverse("manage_match", args=[t.slug, pk])


def rows_html(t: Tournament, rows: list[Row]) -> str:
    # One reverse() for the whole table: the pk is the only part that differs.
    base = match_url(t, 0)
    head, tail = base.split("/0/", 1)
    finished = t.status == "finished"
    words = Words.now()
    return "".join(
        row_html(r, f"{head}/{r.pk}/{tail}", finished=finished, words=words) for r in rows
    )


@dataclass(frozen=True)
class Filters:
    """What the round screen shows: every table, only those missing a result, only those
    whose players' reports need a look, or those of players whose name holds `find`."""

    missing: bool = False
    find: str = ""
    to_check: bool = False  # players' reports disputed or left unconfirmed (issue 14)

    @property
    def query(self) -> str:
        from urllib.parse import urlencode

        pairs = (
            ("missing", "1" if self.missing else ""),
            ("check", "1" if self.to_check else ""),
            ("find", self.find),
        )
        return urlencode({k: v for k, v in pairs if v})

    def keep(self, row: Row, check_ids: Collection[int] = ()) -> bool:
        if self.missing and not row.open:
            return False
        if self.to_check and row.pk not in check_ids:
            return False
        if self.find:
            needle = self.find.casefold()
            return any(needle in n.casefold() for n in row.names)
        return True


def round_screen(
    t: Tournament, round_: Round, filters: Filters, *, limit: int | None = None
) -> dict[str, Any]:
    """The round's rows (filtered) with their counts, for the round screen; at most
    `limit` of them (the event screen's), those still waiting for a result first."""
    if limit is not None and filters == Filters():
        return _first_rows(t, round_, limit)
    return _all_rows(t, round_, filters, limit)


def _all_rows(t: Tournament, round_: Round, filters: Filters, limit: int | None) -> dict[str, Any]:
    rows = rows_of(round_, names=display_names(t))
    add_times(rows, round_)
    # Players' own reports: the ones to check, with the organizer's panel to settle them
    # (one query when nobody reported anything).
    reports = (
        organizer_panel(round_)
        if Report.objects.filter(match__round=round_).exists()
        else {"rows": [], "waiting": 0}
    )
    check_ids = {r["pk"] for r in reports["rows"]}
    shown = [r for r in rows if filters.keep(r, check_ids)]
    capped = limit is not None and len(shown) > limit
    if capped:
        waiting = [r for r in shown if r.open]
        kept = {id(r) for r in (waiting + [r for r in shown if not r.open])[:limit]}
        shown = [r for r in shown if id(r) in kept]
    tables = [r.table for r in rows if r.table]
    return {
        "capped": capped,
        "rows_html": rows_html(t, shown),
        "shown_count": len(shown),
        "table_count": len(rows),
        "open_count": sum(1 for r in rows if r.open),
        "first_table": min(tables) if tables else None,
        "last_table": max(tables) if tables else None,
        "filters": filters,
        "reports": reports,
        "check_count": len(check_ids),
        # Once the round clock has run out: the tables with no result, by their own end.
        "late": still_playing(
            round_, ((r.pk, r.table, r.names, r.extension) for r in rows if r.open)
        ),
    }


def _first_rows(t: Tournament, round_: Round, limit: int) -> dict[str, Any]:
    """`round_screen` unfiltered and capped, as the event screen shows it, reading only the
    rows it shows: the counts come from one aggregate, the rows from the first `limit`
    matches (open ones first). Reading all 4,096 tables to show 64 cost the pair click
    80 ms at 8,192 players (issue 26)."""
    matches = Match.objects.filter(round=round_)
    counts = matches.aggregate(
        tables=Count("id"),
        open=Count("id", filter=Q(kind__in=OPEN, reported=False)),
        first=Min("table"),
        last=Max("table"),
    )
    open_first = Case(When(kind__in=OPEN, reported=False, then=0), default=1)
    pks = list(matches.order_by(open_first, "table", "id").values_list("id", flat=True)[:limit])
    shown = rows_of(round_, match_pks=pks, names=display_names(t))
    add_times(shown, round_)
    reports = (
        organizer_panel(round_)
        if Report.objects.filter(match__round=round_).exists()
        else {"rows": [], "waiting": 0}
    )
    return {
        "capped": counts["tables"] > limit,
        "rows_html": rows_html(t, shown),
        "shown_count": len(shown),
        "table_count": counts["tables"],
        "open_count": counts["open"],
        "first_table": counts["first"],
        "last_table": counts["last"],
        "filters": Filters(),
        "reports": reports,
        "check_count": len({r["pk"] for r in reports["rows"]}),
        "late": _late(t, round_),
    }


def _late(t: Tournament, round_: Round) -> list[Any]:
    """The round screen's "still playing" list: read only once the round's time is up."""
    if not round_over(
        clock_ends_at=round_.clock_ends_at,
        clock_paused_remaining=round_.clock_paused_remaining,
        now=timezone.now(),
    ):
        return []
    open_rows = [r for r in rows_of(round_, names=display_names(t)) if r.open]
    add_times(open_rows, round_)
    return still_playing(round_, ((r.pk, r.table, r.names, r.extension) for r in open_rows))


def add_times(rows: list[Row], round_: Round) -> None:
    """Each row's time extension and its table's own end (one query)."""
    added = round_extensions(round_.pk)
    if not added:
        return
    now = timezone.now()
    for row in rows:
        row.extension = added.get(row.pk, 0)
        row.ends = extension_text(round_, row.extension, now)


def match_at_table(round_: Round, table: int) -> Match | None:
    return (
        Match.objects.filter(round=round_, table=table)
        .select_related("round")
        .order_by("id")
        .first()
    )


def row_of_match(match: Match, names: Mapping[str, str]) -> Row:
    """The row of a match the result service handed back with its seats (`seat_list`,
    players loaded): no second read after a result."""
    seats = match.seat_list  # type: ignore[attr-defined]
    return Row(
        match.pk, match.table, match.kind, match.reported, match.draws,
        [names.get(s.player.external_id, s.player.name) for s in seats],
        [s.games_won for s in seats],
        penalties=match_notes(names, match_pks=[match.pk]).get(match.pk, []),
    )  # fmt: skip


def match_row_html(t: Tournament, match: Match, *, oob: bool = False) -> str:
    """A match's compact row: from its seats when they came with it, else read."""
    if not hasattr(match, "seat_list"):
        return one_row_html(t, match.pk, oob=oob)
    finished = t.status == "finished"
    return row_html(
        row_of_match(match, display_names(t)), match_url(t, match.pk), finished=finished, oob=oob
    )


def one_row(t: Tournament, match_pk: int) -> Row | None:
    rows = rows_of(0, match_pk=match_pk, names=display_names(t))
    if rows and rows[0].open:
        round_ = Round.objects.filter(matches=match_pk).first()
        if round_ is not None:
            add_times(rows, round_)
    return rows[0] if rows else None


def one_row_html(t: Tournament, match_pk: int, *, oob: bool = False) -> str:
    row = one_row(t, match_pk)
    if row is None:
        return ""
    return row_html(row, match_url(t, match_pk), finished=t.status == "finished", oob=oob)
