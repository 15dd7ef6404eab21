"""The public screens' read model: one function per page or fragment, plain data out.

Every function reads stored rows (standings are never computed per request). live.py
caches what these return, rendered, per tournament version; views/public.py serves it.
Rows of the big tables (2,048 players) come as ready HTML strings built here, because
the same rows through template tags cost ten times more on the first render after a
result, which is the render every phone waits for.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from fractions import Fraction
from html import escape  # the stdlib one: Django's lazy wrapper costs 3x on 2,048 rows
from typing import Any, NamedTuple
from urllib.parse import quote

from django.http import Http404
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from scoring import outlooks
from scoring.engine.explain import OpponentTerm, PodTerm
from scoring.models import Standing, StandingsState
from scoring.seats import HoodSeat, Neighbourhood
from scoring.services import edge, explanation, points_stored
from tournaments.domain import after_round_text, playoff_names
from tournaments.labels import (
    detail_text,
    finish_text,
    ordinal_text,
    outcome_text,
    result_cell_text,
    side_result_text,
)
from tournaments.models import Entry, MatchKind, Player, Round, Seat, Status, Tournament
from tournaments.pages.bracket import bracket_rounds, cut_note, finishes, named_rounds, placings
from tournaments.pages.common import (
    POLL_SECONDS,
    clock_state,
    current_round,
    missing_results,
    round_extensions,
    round_label,
)
from tournaments.pages.event import (
    STANDINGS_COLUMNS,
    EventView,
    StoredStanding,
    display_names,
    event_view,
)
from tournaments.parsing import ascii_int
from tournaments.rules import (
    SWISS_SYSTEMS,
    RoundName,
    SideResult,
    result_from_side,
    result_text,
)
from tournaments.templatetags.tourney import PERCENT, SHORT_LABELS, tiebreak
from tournaments.templatetags.tourney import points as format_points

PROJECTOR_PAGE_ROWS = 24  # legible from the back of a hall at 1080p


def event_home(t: Tournament) -> dict[str, Any]:
    round_ = current_round(t)
    return {
        "round": round_,
        "round_label": round_label(round_),
        "champion": (placings(t, display_names(t)) or [None])[0]
        if t.status in ("top_cut", "finished")
        else None,
        "clock": clock_state(round_),
        "missing": missing_results(round_) if round_ else 0,
        "players": t.players.filter(entry=Entry.ACCEPTED).count(),
        "poll": POLL_SECONDS,
    }


# A phone's standings: the leaders and the rows around the player's own, so that the
# poll stays small at 2,048 players; "All N players" opens the whole table.
NEAR_TOP = 8
NEAR_AROUND = 5


def standings(tournament: Tournament, query: str = "", me: str = "") -> dict[str, Any]:
    """The stored standings, with each row's cells already formatted for the table.

    `query` (a search, ?q=): every row is still sent, those whose name does not hold it
    hidden, so that live.js can widen the search as the player edits it; without
    JavaScript the page shows the matches alone. `me`: the row to highlight."""
    rows = list(
        Standing.objects.filter(tournament=tournament)
        .order_by("position")
        .values_list(*STANDINGS_COLUMNS)
    )
    if not query:
        return _standings_context(tournament, rows, len(rows), me=me)
    wanted = query.casefold()
    found = sum(1 for row in rows if wanted in row[6].casefold())
    return _standings_context(tournament, rows, len(rows), me=me, query=query, found_count=found)


def _standings_context(
    tournament: Tournament, rows: list[tuple[Any, ...]], count: int, **extra: Any
) -> dict[str, Any]:
    """The standings table's context. `extra` may bring what the event's view already
    holds (`after_round`, `after_label`, `finishes`): else read here."""
    keys = list(rows[0][5]) if rows else []
    columns = [(k, SHORT_LABELS.get(k, k), k in PERCENT) for k in keys]
    if "after_round" not in extra:
        state = StandingsState.objects.filter(tournament=tournament).first()
        extra["after_round"] = state.after_round if state else None
    if "finishes" not in extra:
        extra["finishes"] = finishes(tournament)
    if "after_label" not in extra:
        extra["after_label"] = after_label(tournament, extra["after_round"])
    return {
        "tournament": tournament,
        "rows_html": standings_rows_html(
            tournament,
            rows,
            keys,
            me=extra.get("me", ""),
            query=extra.get("query", ""),
            finishes=extra["finishes"],
        ),
        "count": count,
        "columns": columns,
        "poll": POLL_SECONDS,
        **extra,
    }


def after_label(t: Tournament, after_round: int | None) -> RoundName | None:
    """Round 5, or in the top cut the Semifinals: what the standings are after, as data
    (a query only once the top cut has started)."""
    cut = after_round and t.status in (Status.TOP_CUT, Status.FINISHED)
    return after_round_text(after_round, playoff_names(t) if cut else {})


def near_window(position: int, count: int) -> tuple[range, range]:
    """The positions a phone's standings show: the leaders, and the player's own with
    NEAR_AROUND on each side (none twice). live.digests reads the same window."""
    top = range(1, min(NEAR_TOP, count) + 1)
    around = range(max(position - NEAR_AROUND, top.stop), min(position + NEAR_AROUND, count) + 1)
    return top, around


def event_players(tournament: Tournament) -> dict[str, Player]:
    """Every player of the event by id, as of its version (pages.event): each phone's
    page looks its player up. Shared by the requests of this process: never change them."""
    return event_view(tournament).players


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=8).digest()


# --- the standings around a player: what it shows, and its digest ---------------------


class NearInputs(NamedTuple):
    """Everything the standings around a player show (`standings_near`); `near_depends`
    digests exactly this, with the rows at `positions` written out."""

    slug: str
    after_round: int | None
    after_label: RoundName | None  # round 5, the Semifinals: said by the template
    count: int
    me: str  # their id
    me_name: str
    ranked: bool
    top: int  # how many of `positions` are the leaders
    gap: bool  # a gap row between the leaders and the rows around the player
    # The top cut's finishes written out: the finish column appears with the first one,
    # and a final's result moves two finishes without moving a stored row.
    finishes: str
    positions: tuple[int, ...]  # 1-based, the leaders first (keep it last: near_depends)


def near_inputs(t: Tournament, view: EventView, me: Player) -> NearInputs:
    table = view.table
    count = len(table.rows)
    own = table.position_of.get(me.external_id)
    top, around = near_window(own or 0, count)
    return NearInputs(
        slug=t.slug,
        after_round=table.after_round,
        after_label=after_round_text(table.after_round, view.playoff_names),
        count=count,
        me=me.external_id,
        me_name=view.display_names.get(me.external_id, me.name),
        ranked=own is not None,
        top=len(top),
        gap=bool(around) and around.start > top.stop,
        finishes=repr(sorted(view.finishes.items())),
        positions=(*top, *around),
    )


def near_depends(t: Tournament, view: EventView, me: Player) -> bytes:
    """The digest of what `standings_near` shows `me`: its ETag moves when this does."""
    inputs = near_inputs(t, view, me)
    texts = view.row_texts
    rows = "".join(texts[i - 1] for i in inputs.positions)
    return _digest(repr(inputs[:-1]) + rows + view.namesakes_text)


def standings_near(tournament: Tournament, me: Player) -> dict[str, Any]:
    """The leaders and the rows around `me`, for the standings on the player's phone."""
    view = event_view(tournament)
    inputs = near_inputs(tournament, view, me)
    rows = [view.table.rows[i - 1] for i in inputs.positions]
    leaders, others = rows[: inputs.top], rows[inputs.top :]
    context = _standings_context(
        tournament,
        leaders,
        inputs.count,
        me=me.external_id,
        after_round=inputs.after_round,
        after_label=inputs.after_label,
        finishes=view.finishes,
    )
    if others:
        keys = list(rows[0][5])
        more = standings_rows_html(
            tournament, others, keys, me=me.external_id, finishes=view.finishes
        )
        width = 4 + len(keys) + (1 if view.finishes else 0)
        gap_row = (
            f'<tr class="gap"><td colspan="{width}" class="meta">…</td></tr>\n'
            if inputs.gap
            else ""
        )
        context["rows_html"] = f"{context['rows_html']}\n{gap_row}{more}"
    context.update(near=True, me_name=inputs.me_name, ranked=inputs.ranked)
    return context


def standings_rows_html(
    tournament: Tournament,
    rows: list[tuple[Any, ...]],
    keys: list[str],
    me: str = "",
    query: str = "",
    finishes: Mapping[str, str] | None = None,
) -> str:
    """The table body, built directly: 2,048 rows through template tags take ~0.5 s.

    This is the first render after every result, so it is kept lean: numeric cells need
    no escaping (digits, '.', '%', '/' and the dash only). `me`: the row to highlight
    (aria-current: a screen reader says which row is theirs too). `query`: rows whose
    name does not hold it are hidden (a search, `standings`). `finishes` (pages.bracket.
    finishes): with any, a Finish column after the rank ("1st", "5th-8th"); the stored
    order already puts the top cut first, by finish (scoring.engine.ranking.playoff_order).
    """
    wanted = query.casefold()
    player_url = reverse("player", kwargs={"slug": tournament.slug, "pid": "__pid__"})
    head, tail = (escape(part) for part in player_url.split("__pid__"))
    percent = [k in PERCENT for k in keys]
    shown = display_names(tournament)
    # The words in the reader's language, once for all the rows (this is the hot loop).
    dropped_note = " " + tagged("small", _("(dropped)"))
    finish_of = {pid: finish_text(f) for pid, f in finishes.items()} if finishes else {}
    out = []
    for rank, points_, wins, losses, draws, tiebreakers, name, pid, dropped in rows:
        cells = "".join(
            f'<td class="num tb tb-{i}">{tiebreak(tiebreakers.get(k), pct)}</td>'
            for i, (k, pct) in enumerate(zip(keys, percent, strict=True), start=1)
        )
        classes = " ".join(
            c for c, on in (("dropped", dropped is not None), ("me", bool(me) and pid == me)) if on
        )
        mine = ' aria-current="true"' if me and pid == me else ""
        hidden = " hidden" if wanted and wanted not in name.casefold() else ""
        note = dropped_note if dropped is not None else ""
        finish = f'<td class="rec finish">{finish_of.get(pid, "")}</td>' if finishes else ""
        out.append(
            (f'<tr class="{classes}"{mine}{hidden}>' if classes else f"<tr{hidden}>")
            + f'<td class="num">{rank}</td>{finish}'
            f'<th scope="row"><a href="{head}{escape(quote(pid, safe=""))}{tail}">'
            f"{escape(shown.get(pid, name))}</a>{note}</th>"
            f'<td class="num">{format_points(points_)}</td>'
            f'<td class="rec">{wins}-{losses}-{draws}</td>{cells}</tr>'
        )
    return "\n".join(out)


def tagged(tag: str, text: str) -> str:
    """Words of the reader's language in one HTML element, escaped: the rows built here
    are HTML, and a translation is text. Called outside the f-strings, where makemessages
    finds the words."""
    return f"<{tag}>{escape(text)}</{tag}>"


def history_rows_html(history: list[dict[str, Any]]) -> str:
    """The body of a player's rounds table, built directly: through template tags it was
    half of the player's page, which every phone fetches after each change to it."""
    if not history:
        return '<tr><td colspan="4">' + escape(_("No rounds played yet.")) + "</td></tr>"
    top_word = tagged("small", " " + pgettext("a playoff round, beside its number", "top"))
    bye, no_opponent = tagged("em", _("bye")), tagged("em", _("no opponent"))
    out = []
    for h in history:
        number = h["round"].number
        top = top_word if h["round"].playoff else ""
        table = "" if h["table"] is None else h["table"]
        opponents = ", ".join(
            f'<a href="{escape(o["url"])}">{escape(o["player"].name)}</a>' for o in h["opponents"]
        ) or (bye if h["match"].kind == MatchKind.BYE else no_opponent)
        result = h["result"]
        outcome = escape(result.word)
        if not result.reported:  # one phrase, not two words, in other languages
            shown, detail = escape(side_result_text(result)), ""
        else:
            shown = escape(outcome_text(result.outcome))
            rest = detail_text(result)
            detail = f" {escape(rest)}" if rest else ""
        out.append(
            f'<tr data-round="{number}">\n    <td class="num">{number}{top}</td>\n'
            f'    <td class="num">{table}</td>\n    <td>{opponents}</td>\n'
            f'    <td class="res" data-result="{escape(result.english)}"><span class="outcome'
            f' {outcome}">{shown}</span>{detail}</td>\n  </tr>'
        )
    return "".join(out)


class _Person(NamedTuple):
    name: str
    external_id: str


class _Seat(NamedTuple):
    player_id: int
    player: _Person
    position: int
    games_won: int | None
    place: int | None
    absent: bool
    points: Any


class _Match(NamedTuple):
    id: int
    table: int | None
    kind: str
    reported: bool
    draws: int


def round_tables(round_: Round, names: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The round's tables with both players (or the bye), in table order; each player
    named as `names` (pages.event.display_names) shows them, else by their stored name.

    Plain tuples from values_list: model instances for a 2,048-player round cost ~3x more.
    """
    seats: dict[int, list[_Seat]] = {}
    # Points as they were when the round was paired (Seat.points_at_pairing), not now.
    for match_id, player_id, position, games_won, place, absent, name, ext, points in (
        Seat.objects.filter(round=round_)
        .order_by("match_id", "position")
        .values_list("match_id", "player_id", "position", "games_won", "place", "absent",
                     "player__name", "player__external_id", "points_at_pairing")
    ):  # fmt: skip
        seats.setdefault(match_id, []).append(
            _Seat(
                player_id,
                _Person(names.get(ext, name) if names else name, ext),
                position,
                games_won,
                place,
                absent,
                points,
            )
        )
    tables = []
    added = round_extensions(round_.pk)  # judges' minutes per table (issue 27)
    for row in round_.matches.order_by("table", "id").values_list(
        "id", "table", "kind", "reported", "draws"
    ):
        match = _Match(*row)
        members = seats.get(match.id, [])
        tables.append(
            {
                "match": match,
                "seats": members,
                "result": result_text(match, members),
                "extension": added.get(match.id, 0) if not match.reported else 0,
            }
        )
    return tables


def extension_html(minutes: int) -> str:
    """A table's time extension beside its number: " +5" (nothing without one)."""
    if not minutes:
        return ""
    title = escape(_("%(minutes)s min added") % {"minutes": minutes})
    return f' <small class="ext" data-extension="{minutes}" title="{title}">+{minutes}</small>'


def pairing_rows(tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per player, alphabetical: where they sit and whom they play."""
    rows = []
    for entry in tables:
        seats, match = entry["seats"], entry["match"]
        for mine, seat in enumerate(seats):
            others = [s for s in seats if s is not seat and not s.absent]
            rows.append(
                {
                    "name": seat.player.name,
                    "id": seat.player.external_id,
                    "table": match.table,
                    "extension": entry.get("extension", 0),
                    "kind": match.kind,
                    "opponents": ", ".join(o.player.name for o in others),
                    # One player's row: their own side. A match still being played
                    # leaves the cell empty, as the by-table view does.
                    "result": own_result(match, seats, mine),
                    "points": seat.points,
                }
            )
    rows.sort(key=lambda r: r["name"].casefold())
    return rows


def own_result(match: _Match, seats: list[_Seat], mine: int) -> SideResult | None:
    """`result_from_side`, or None while the match waits for its result (a pairings
    cell)."""
    if not match.reported and match.kind not in (MatchKind.BYE, MatchKind.LOSS):
        return None
    return result_from_side(match, seats, mine)


def _player_link(player_url: str, pid: str, name: str) -> str:
    return (
        f'<a href="{escape(player_url.replace("__pid__", quote(pid, safe="")))}">{escape(name)}</a>'
    )


def pairings_by_table_html(t: Tournament, tables: list[dict[str, Any]]) -> str:
    """Table rows built directly (a 2,048-player round through template tags is slow)."""
    player_url = reverse("player", kwargs={"slug": t.slug, "pid": "__pid__"})
    vs = ' <span class="vs">' + escape(_("vs")) + "</span> "
    bye = " " + tagged("em", _("bye"))
    out = []
    for entry in tables:
        match = entry["match"]
        names = []
        for seat in entry["seats"]:
            link = _player_link(player_url, seat.player.external_id, seat.player.name)
            pts = seat.points
            names.append(
                f"{link} <small>({format_points(pts)})</small>" if pts is not None else link
            )
        players = vs.join(names)
        if match.kind == MatchKind.BYE:
            players += bye
        search = escape(" ".join(seat.player.name.lower() for seat in entry["seats"]))
        out.append(
            f'<tr data-name="{search}"><td class="num">{match.table or ""}'
            f"{extension_html(entry.get('extension', 0))}</td>"
            f'<td>{players}</td><td class="res">{escape(result_cell_text(entry["result"]))}</td></tr>'
        )
    return "\n".join(out)


def pairings_by_name_html(t: Tournament, rows: list[dict[str, Any]], query: str) -> str:
    player_url = reverse("player", kwargs={"slug": t.slug, "pid": "__pid__"})
    wanted = query.casefold()
    bye, no_opponent = tagged("em", _("bye")), tagged("em", _("no opponent"))
    out = []
    for r in rows:
        if r["kind"] == MatchKind.BYE:
            opponent = bye
        elif r["kind"] == MatchKind.LOSS:
            opponent = no_opponent
        else:
            opponent = escape(r["opponents"])
        hidden = " hidden" if wanted and wanted not in r["name"].casefold() else ""
        # A word wider than its column ends in an ellipsis there (app.css): in full here.
        said = f' title="{escape(r["opponents"])}"' if r["opponents"] else ""
        table = r["table"] if r["table"] is not None else ""
        out.append(
            f'<tr data-name="{escape(r["name"].lower())}" data-table="{table}" '
            f'data-opponent="{escape(r["opponents"])}" data-kind="{r["kind"]}"{hidden}>'
            f'<th scope="row" title="{escape(r["name"])}">'
            f"{_player_link(player_url, r['id'], r['name'])}</th>"
            f'<td class="num">{table}{extension_html(r.get("extension", 0))}</td><td{said}>{opponent}</td>'
            f'<td class="res">{escape(side_result_text(r["result"]) if r["result"] else "")}</td></tr>'
        )
    return "\n".join(out)


def pairings(t: Tournament, params: Any) -> dict[str, Any]:
    """The pairings fragment for `params` (round, by=name, q), as phones poll it."""
    number = params.get("round", "")
    query = params.get("q", "").strip()
    round_ = round_of(t, number)
    tables = round_tables(round_, display_names(t)) if round_ else []
    rows = pairing_rows(tables)
    found = [r for r in rows if query.casefold() in r["name"].casefold()] if query else []
    named = params.get("by") == "name" or bool(query)
    one = found[0] if len(found) == 1 else None
    if one is not None and one["result"]:
        # Its result in the reader's language (pairing_rows keeps the English: exports).
        one = {**one, "result": side_result_text(one["result"])}
    return {
        "round": round_,
        "round_label": round_label(round_),
        "rows_html": (
            pairings_by_name_html(t, rows, query) if named else pairings_by_table_html(t, tables)
        ),
        "by_name": named,
        "query": query,
        # Its result in the reader's language (pairing_rows keeps the English: exports).
        "found": one,
        "found_count": len(found),
        "clock": clock_state(round_),
        "poll": POLL_SECONDS,
    }


class _RoundLabel(NamedTuple):
    number: int
    playoff: bool


class PlayerInputs(NamedTuple):
    """Everything a player's page shows (`player`), read from the event's view;
    `player_depends` digests exactly this, with the seats of `matches` written out.
    Nothing here depends on the time of day: the round clock is its stored fields."""

    event: tuple[str, str, int]  # slug, status, top cut
    me: tuple[str, str, int | None, str]  # id, name, dropped after round, entry
    matches: tuple[int, ...]  # their matches, in round and table order
    standing: StoredStanding | None
    count: int  # players ranked ("rank 12 of 40")
    # The round being played: pk, number, playoff, label, clock fields (None when over).
    current: tuple[Any, ...] | None
    place: int | None  # their top-cut place once the final is decided
    figures: dict[str, Any] | None  # their "What do I need?" card (scoring.outlooks)
    extension: int = 0  # minutes added to their table of the current round (issue 27)


def player_inputs(t: Tournament, view: EventView, me: Player) -> PlayerInputs:
    matches = view.player_matches.get(me.pk, ())
    current = None if t.status == Status.FINISHED else view.current
    standing = view.table.of_player.get(me.pk)
    place = next((p["place"] for p in view.placings if p["id"] == me.external_id), None)
    figures = None
    if current is not None:
        round_ = current.round
        figures = outlooks.player_card(
            t, round_, me.external_id, row=view.figures, version=view.version
        )
    return PlayerInputs(
        event=(t.slug, t.status, t.top_cut),
        me=(
            me.external_id,
            view.display_names.get(me.external_id, me.name),
            me.dropped_after_round,
            me.entry,
        ),
        matches=matches,
        standing=standing,
        count=len(view.table.rows),
        current=None
        if current is None
        else (
            current.round.pk,
            current.round.number,
            current.round.playoff,
            current.label,
            current.round.clock_ends_at,
            current.round.clock_paused_remaining,
        ),
        place=place if t.top_cut and t.status in (Status.TOP_CUT, Status.FINISHED) else None,
        figures=figures,
        # The view holds the current round's extensions only: the sum is their table's.
        extension=sum(view.extensions.get(m, 0) for m in matches) if current else 0,
    )


def player_depends(t: Tournament, view: EventView, me: Player) -> bytes:
    """The digest of what `player` shows `me`: its ETag moves when this does."""
    inputs = player_inputs(t, view, me)  # its matches' seats: the view's player_texts
    return _digest(repr(inputs) + view.player_texts.get(me.pk, "") + view.namesakes_text)


def own_depends(t: Tournament, view: EventView, me: Player) -> bytes:
    """The digest of the player's own matches and the round they play: what must reach
    their phone at once (tournaments.stream). Nothing tournament-wide: the round's first
    result must not send every phone of the hall asking at the same moment."""
    current = view.current.round.pk if view.current is not None else None
    # Minutes added to their table move their clock: told at once too (issue 27).
    added = sum(view.extensions.get(m, 0) for m in view.player_matches.get(me.pk, ()))
    return _digest(repr((current, t.status, added)) + view.player_texts.get(me.pk, ""))


def _own_hood(view: EventView, me: Player, matches: tuple[int, ...]) -> Neighbourhood:
    """The player's own matches as a neighbourhood (what `player_rounds` reads)."""
    seats = [seat for m in matches for seat in view.seating.seats_of[m]]
    return Neighbourhood(
        player_id=me.pk,
        player=(me.external_id, me.dropped_after_round),
        rounds=view.seating.rounds,
        seats=seats,
    )


def player(t: Tournament, me: Player) -> dict[str, Any]:
    """The player's card, standing and rounds, from the event's view (no query of its
    own). The explanation of their tiebreakers is a page of its own
    (`player_tiebreakers`): it changes with every opponent's result.

    A pending or rejected entry is not in the event: its page does not exist."""
    if me.entry != Entry.ACCEPTED:
        raise Http404(_("No such player"))
    view = event_view(t)
    inputs = player_inputs(t, view, me)
    history, _names = player_rounds(t, me, _own_hood(view, me, inputs.matches), view.display_names)
    card = player_card(view, inputs, history)
    return {
        "me": me,
        "me_name": inputs.me[1],
        "card": card,
        "outlook": inputs.figures,
        "standing": inputs.standing,
        "history": history,
        "history_html": mark_safe(history_rows_html(history)),  # escaped there
        "poll": POLL_SECONDS,
    }


def player_tiebreakers(t: Tournament, me: Player) -> dict[str, Any]:
    """How the player's stored tiebreakers come about, opponent by opponent."""
    if me.entry != Entry.ACCEPTED:
        raise Http404(_("No such player"))
    view = event_view(t)
    hood = view.seating.neighbourhood(me)
    _history, names = player_rounds(t, me, hood, view.display_names)
    ranked = me.pk in view.table.of_player
    return {
        "me": me,
        "me_name": view.display_names.get(me.external_id, me.name),
        "explanation": _explain(t, me, names, hood) if ranked else None,
    }


def player_card(
    view: EventView, inputs: PlayerInputs, history: list[dict[str, Any]]
) -> dict[str, Any]:
    """The card at the top of a player's page: what a player at the venue looks for first.

    `state` says which: "table" (their table this round, whom they play and, once entered,
    their result from their own side), "bye", "loss" (paired with no opponent), "waiting"
    (no round paired yet) or "standing" (the event is over, or they have no table in the
    round being played: dropped, or out of the top cut): then their place.
    """
    status = inputs.event[1]
    current = view.current if inputs.current is not None else None
    round_ = current.copy() if current is not None else None
    card: dict[str, Any] = {
        "round": round_,
        "label": current.label if current is not None else "",
        # Their table's own end: the round's plus its extensions (tournaments.tabletime).
        "clock": clock_state(round_, inputs.extension),
    }
    if status == Status.FINISHED:
        return {**card, **_card_standing(inputs), "state": "standing", "final": True}
    if round_ is None:
        return {**card, "state": "waiting"}
    mine = next((h for h in history if h["round_id"] == round_.pk), None)
    if mine is None:
        return {**card, **_card_standing(inputs), "state": "standing", "final": False}
    kind = mine["match"].kind
    result = mine["result"]
    reported = result.reported
    return {
        **card,
        "state": "bye" if kind == MatchKind.BYE else "loss" if kind == MatchKind.LOSS else "table",
        "table": mine["table"],
        "opponents": mine["opponents"],
        "reported": reported,
        "result": result.english if reported else "",
        "outcome": result.outcome if reported else "",
        "detail": detail_text(result) if reported else "",
    }


def _card_standing(inputs: PlayerInputs) -> dict[str, Any]:
    """Where the player stands: their top-cut place once the final is decided (what the
    bracket page shows), else their rank in the stored standings."""
    place, standing = inputs.place, inputs.standing
    return {
        "place": ordinal_text(place) if place else "",
        "champion": place == 1,
        "rank": standing.rank if standing is not None else None,
        "of": inputs.count if standing is not None else 0,
        "dropped": inputs.me[2],
    }


def player_rounds(
    t: Tournament, me: Player, hood: Neighbourhood, shown: Mapping[str, str] | None = None
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Each of the player's matches, its result read from their own side (rules.
    result_from_side), and the names of everyone they met by id: as `shown`
    (pages.event.display_names) shows them, else their stored names."""
    shown = shown or {}
    player_url = reverse("player", kwargs={"slug": t.slug, "pid": "__pid__"})
    rounds = {rid: _RoundLabel(number, playoff) for rid, number, _p, playoff, _w in hood.rounds}
    tables: dict[int, list[HoodSeat]] = {}
    for seat in hood.seats:
        tables.setdefault(seat.match_id, []).append(seat)
    history = []
    names: dict[str, str] = {}  # everyone the explanation names sat at one of my tables
    for members in tables.values():
        mine = next((i for i, s in enumerate(members) if s.player_id == me.pk), None)
        if mine is None:
            continue
        first = members[0]
        match = _Match(first.match_id, first.table, first.kind, first.reported, first.draws)
        opponents = [s for i, s in enumerate(members) if i != mine]
        names.update((o.external_id, shown.get(o.external_id, o.name)) for o in opponents)
        result = result_from_side(match, members, mine)
        history.append(
            {
                "round": rounds[first.round_id],
                "round_id": first.round_id,
                "table": match.table,
                "match": match,
                "opponents": [
                    {
                        "player": _Person(shown.get(o.external_id, o.name), o.external_id),
                        # Built here: a {% url %} per row was a third of the page's render.
                        "url": player_url.replace("__pid__", quote(o.external_id, safe="")),
                    }
                    for o in opponents
                    if not o.absent
                ],
                # As data (rules.SideResult): said by the page, in English by the exports.
                "result": result,
                "games": [s.games_won for s in members] if match.reported else None,
                "mine": mine,
            }
        )
    return history, names


def _explain(
    t: Tournament, me: Player, names: dict[str, str], hood: Neighbourhood
) -> dict[str, Any] | None:
    """The explanation table of the player's tiebreakers, its cells formatted for the page.

    The terms come from scoring.engine.explain, which works from the same tallies as the
    stored standings: a player frozen by a cut sees their opponents' values as of then,
    and every total is the stored value (both are rounded the same way, by `edge`).
    """
    found = explanation(t, me, hood)
    if found is None:
        return None

    def percent(value: Fraction | None) -> str:
        return tiebreak(None if value is None else float(value), True)

    def number(value: Fraction | None) -> str:
        return tiebreak(None if value is None else float(value), False)

    def points(value: Fraction) -> str:
        return format_points(points_stored(value))

    player_url = reverse("player", kwargs={"slug": t.slug, "pid": "__pid__"})

    def person(pid: str | None) -> dict[str, str] | None:
        if pid is None:
            return None
        url = player_url.replace("__pid__", quote(pid, safe=""))
        return {"id": pid, "name": names.get(pid, pid), "url": url}

    rows: list[dict[str, Any]] = []
    for term in found.terms:
        if isinstance(term, OpponentTerm):
            rows.append(
                {
                    "round": term.round,
                    "opponent": person(term.opponent),
                    "mw": percent(term.mw),
                    "gw": percent(term.gw),
                }
            )
        elif isinstance(term, PodTerm):
            rows.append(
                {
                    "round": term.round,
                    "opponent": person(term.opponent),
                    "outcome": term.outcome,
                    "win_pct": percent(term.win_pct),
                    "wr": number(term.wr),
                    "owp": percent(term.owp),
                    "wrr": number(term.wrr),
                }
            )
        else:
            rows.append(
                {
                    "round": term.round,
                    "kind": term.kind,
                    "table_size": term.table_size,
                    "place": ordinal_text(term.place) if term.place is not None else "",
                    "points": points(term.points),
                    "score": number(term.score),
                    "table_mean": number(term.table_mean),
                    "vs_average": number(term.vs_average),
                }
            )
    return {
        "system": "swiss" if found.system in SWISS_SYSTEMS else found.system,
        "after_round": found.after_round,
        "phase": found.phase,
        "frozen": found.frozen,
        "floor": percent(found.floor),
        "skipped": bool(found.skipped),
        "rows": rows,
        # The totals as stored and shown above the table (rounded only by `edge`).
        "totals": {key: tiebreak(edge(value), key) for key, value in found.totals.items()},
        "points": points(found.points),
    }


def pairings_page(t: Tournament, params: Any) -> dict[str, Any]:
    """What the full pairings page adds around its fragment (round picker, search)."""
    number = params.get("round", "")
    query = params.get("q", "").strip()
    round_ = round_of(t, number)
    return {
        "round": round_,
        "round_label": round_label(round_),
        "rounds": list(t.rounds.values_list("number", flat=True)),
        "by_name": params.get("by") == "name" or bool(query),
        "query": query,
    }


def round_of(t: Tournament, number: str) -> Round | None:
    """The round the URL names (views refuse a malformed number first), else the current."""
    wanted = ascii_int(number)
    if wanted is not None:
        return t.rounds.filter(number=wanted).first()
    return current_round(t)


def event_home_page(t: Tournament) -> dict[str, Any]:
    return {"has_bracket": t.rounds.filter(playoff=True).exists()}


def bracket(t: Tournament) -> dict[str, Any]:
    """The top cut as played so far, round by round, with each match's winner."""
    return {
        "rounds": named_rounds(bracket_rounds(t, display_names(t))),
        "placings": placings(t, display_names(t)),
        # Re-seeded or kept after a Swiss correction: the public bracket says so.
        "cut_note": cut_note(t),
        "poll": POLL_SECONDS,
    }
