"""The venue's projector: the read model of one screen, plain data out.

While a round is open (a result still to come) the projector shows that round's
pairings by player name; once every result is in, the standings; before round 1, the
players registered, by name (so each can check they are in); during the top cut, the
bracket, each match with its table. How many rows fit on a screen is not decided here:
the browser measures the rows against its own viewport (static/js/projector.js), so a
1080p projector and a 4K screen both show every row with none cut, the 4K one over far
fewer pages (static/css/projector.css: the text grows less than the screen).

The rows come as one ready HTML string (rows_html) beside the plain rows: 2,048 rows
through template tags take ~180 ms, built here ~5 ms (as pages/public.py does).
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape  # the stdlib one: Django's lazy wrapper costs 3x on 2,048 rows
from typing import Any, Literal, NamedTuple

from django.utils.translation import gettext as _

from scoring.models import Standing, StandingsState
from tournaments.labels import finish_text
from tournaments.models import Entry, MatchKind, Round, Status, Tournament
from tournaments.pages.bracket import bracket_rounds, finishes, named_rounds, placings
from tournaments.pages.common import (
    POLL_SECONDS,
    clock_state,
    current_round,
    missing_results,
    round_label,
)
from tournaments.pages.event import display_names
from tournaments.pages.public import (
    after_label,
    extension_html,
    pairing_rows,
    round_tables,
    tagged,
)
from tournaments.rules import Finish, RoundName
from tournaments.templatetags.tourney import points as format_points
from tournaments.templatetags.tourney import round_name

# Long enough to find one's name among ~60 on a page and read the table number, short
# enough that 5 pages (300 players) come round within a minute.
PAGE_TURN_MS = 12_000

Mode = Literal["pairings", "standings", "players", "bracket"]


class PairingRow(NamedTuple):
    name: str
    table: int | None
    opponent: str
    extension: int = 0  # minutes a judge added to the table (issue 27)


class StandingRow(NamedTuple):
    rank: int
    name: str
    points: str
    record: str
    dropped: bool
    finish: Finish | None = None  # the top cut's (5th-8th), once decided (pages.bracket.finishes)


def projector(t: Tournament) -> dict[str, Any]:
    """What the projector shows now, and what its header says."""
    round_ = current_round(t)
    open_round = round_ is not None and missing_results(round_) > 0
    mode: Mode
    pairings: list[PairingRow] = []
    standings: list[StandingRow] = []
    players: list[str] = []
    names = display_names(t)
    bracket = bracket_view(t, names) if t.status == Status.TOP_CUT else []
    if bracket:
        mode = "bracket"
    elif round_ is None:
        mode = "players"
        players = sorted(
            (
                names.get(ext, name)
                for ext, name in t.players.filter(entry=Entry.ACCEPTED).values_list(
                    "external_id", "name"
                )
            ),
            key=str.casefold,
        )
    elif open_round:
        mode = "pairings"
        pairings = _pairings(round_, names)
    else:
        mode = "standings"
        standings = _standings(t, names)
    state = StandingsState.objects.filter(tournament=t).first()
    finished = t.status in (Status.TOP_CUT, Status.FINISHED)
    after = after_label(t, state.after_round if state else None)
    return {
        "rows_html": rows_html(pairings, standings, players),
        "mode": mode,
        "round": round_,
        "round_label": round_label(round_),
        "clock": clock_state(round_) if open_round else None,
        "pairings": pairings,
        "standings": standings,
        "after_round": state.after_round if state else None,
        "after_label": after,
        "standings_title": standings_title(after),
        "champion": (placings(t, display_names(t)) or [None])[0] if finished else None,
        "players": players,
        "bracket": bracket,
        # The first round's match count: projector.css sizes the bracket by it.
        "bracket_games": len(bracket[0][1]) if bracket else 0,
        # From the bracket itself: an imported event's plan may not say the cut's size.
        "bracket_size": 2 * len(bracket[0][1]) if bracket else 0,
        "poll": POLL_SECONDS,
        "turn_ms": PAGE_TURN_MS,
        "version": t.version,
    }


def standings_title(after: RoundName | None) -> str:
    """The standings' heading: "Standings", "Standings after round 5", "Standings after
    the Semifinals" (`after`: pages.public.after_label's), one message each."""
    if after is None:
        return _("Standings")
    if not after.is_playoff:
        return _("Standings after round %(number)s") % {"number": after.number}
    return _("Standings after the %(round)s") % {"round": round_name(after)}


def bracket_view(
    t: Tournament, names: Mapping[str, str]
) -> list[tuple[RoundName, list[dict[str, Any]]]]:
    """The top cut as the projector draws it: the rounds played so far (pages.bracket:
    tables, seeds, winners), then the rounds to come as empty games, so the whole
    bracket keeps its shape from the quarterfinals on. An empty game says whose winners
    meet in it ("pending": the tables of the two games it follows, None when not set)."""
    rounds = named_rounds(bracket_rounds(t, names))
    if not rounds:
        return []
    games = len(rounds[-1][1])
    last_tables: list[int | None] = [entry["match"].table for entry in rounds[-1][1]]
    while games > 1:
        games //= 2
        pending = [
            {"pending": (last_tables[2 * k], last_tables[2 * k + 1])}
            if len(last_tables) == 2 * games
            else {"pending": (None, None)}
            for k in range(games)
        ]
        rounds.append((RoundName.playoff(games), pending))
        last_tables = [None] * games
    return rounds


def _pairings(round_: Round, names: Mapping[str, str]) -> list[PairingRow]:
    """One row per seated player, alphabetical (the order pairing_rows gives)."""
    rows = []
    for r in pairing_rows(round_tables(round_, names)):
        if r["kind"] == MatchKind.BYE:
            opponent = _("bye")
        elif r["kind"] == MatchKind.LOSS:
            opponent = _("no opponent")
        else:
            opponent = r["opponents"]
        rows.append(PairingRow(r["name"], r["table"], opponent, r["extension"]))
    return rows


def _standings(t: Tournament, names: Mapping[str, str]) -> list[StandingRow]:
    rows = (
        Standing.objects.filter(tournament=t)
        .order_by("position")
        .values_list(
            "rank", "points", "wins", "losses", "draws", "player__name",
            "player__dropped_after_round", "player__external_id",
        )
    )  # fmt: skip
    finish = finishes(t)
    return [
        StandingRow(
            rank,
            names.get(ext, name),
            format_points(pts),
            f"{wins}-{losses}-{draws}",
            dropped is not None,
            finish.get(ext),
        )
        for rank, pts, wins, losses, draws, name, dropped, ext in rows
    ]


def _standing_name(row: StandingRow) -> str:
    """The name, then the top-cut finish and the drop the standings pages show too."""
    finish = (
        f' <small class="proj-finish">{finish_text(row.finish)}</small>'
        if row.finish is not None
        else ""
    )
    dropped = " " + tagged("small", _("(dropped)")) if row.dropped else ""
    return f"{escape(row.name)}{finish}{dropped}"


def rows_html(pairings: list[PairingRow], standings: list[StandingRow], players: list[str]) -> str:
    """The list items of whichever of the three the projector shows (one is non-empty).

    Numbers and records need no escaping (digits, '.', '-' only); names do.
    """
    if pairings:
        return "\n".join(
            f'<li class="proj-row"><span class="proj-name">{escape(r.name)}</span>'
            f'<span class="proj-table">{"" if r.table is None else r.table}'
            f"{extension_html(r.extension)}</span>"
            f'<span class="proj-opp">{escape(r.opponent)}</span></li>'
            for r in pairings
        )
    if standings:
        return "\n".join(
            f'<li class="proj-row{" proj-dropped" if r.dropped else ""}">'
            f'<span class="proj-rank">{r.rank}</span><span class="proj-name">{_standing_name(r)}</span>'
            f'<span class="proj-points">{r.points}</span><span class="proj-rec">{r.record}</span></li>'
            for r in standings
        )
    return "\n".join(
        f'<li class="proj-row"><span class="proj-name">{escape(name)}</span></li>'
        for name in players
    )
