"""The organizer's screens' read model: one function per screen or panel, plain data out.

The board (the event screen) is assembled from panels; a result entry re-reads only the
panels a result can change: its own row and the round's status (`after_result`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.core.paginator import Page, Paginator
from django.db.models import Count, OuterRef, Prefetch, Q, Subquery
from django.utils.translation import gettext, gettext_noop, ngettext

from scoring.models import Standing
from tournaments.domain import after_round_text, cut_drops, playoff_names, round_label
from tournaments.models import (
    Entry,
    Match,
    MatchKind,
    Player,
    Round,
    Seat,
    StaffMember,
    Status,
    System,
    Tournament,
)
from tournaments.pages.bracket import bracket_rounds, bracket_state, placings, winner
from tournaments.pages.common import clock_state, current_round
from tournaments.pages.corrections import cut_check
from tournaments.pages.event import STANDINGS_COLUMNS, display_names
from tournaments.pages.penalties import match_notes
from tournaments.pages.public import _standings_context as standings_table
from tournaments.pages.reports import open_claims
from tournaments.pages.round_screen import Filters, round_screen
from tournaments.rules import (
    DEFAULT_ROUND_MINUTES,
    DRAW_RESULTS,
    MTR_ROUNDS_SHOWN,
    PLAYOFF_RESULTS,
    QUICK_RESULTS,
    SWISS_SYSTEMS,
    TOP_CUT_CHOICES,
    RoundName,
    result_text,
    suggested_swiss_rounds,
)
from tournaments.services.rounds import RoundSentence, say_round
from tournaments.templatetags.tourney import round_name

# The event screen shows this many standings rows, and the player list whole up to this
# many players; past it, a count and links to their own paged screens (issue 26: every
# row of 2,048 players made it 3.2 MB).
EVENT_SCREEN_ROWS = 16
PLAYERS_PAGE_SIZE = 50  # the players screen: each row carries four small forms
STANDINGS_PAGE_SIZE = 100

CUT_STATES = (Status.TOP_CUT, Status.FINISHED)  # an event whose rounds may be playoff rounds
OPEN_KINDS = (MatchKind.PLAYED, MatchKind.GAME)  # matches that wait for a result
RESULT_KINDS = (MatchKind.PLAYED, MatchKind.GAME, MatchKind.DOUBLE_LOSS)


# The round's tables the event screen lists (a club's 128 players: every table); past it,
# those still waiting for a result first and a link to the round screen, which has them
# all with its filters: 1,024 rows made the screen and the pair click's answer 220 kB at
# 2,048 players and 840 kB at 8,192 (issue 26 items 2 and 3).
EVENT_SCREEN_TABLES = 64

# Stored or computed in English, translated where shown ({% translate %} in the templates):
# here only for the catalogues.
SHOWN_IN_ENGLISH = (
    # a match's kind (Match.get_kind_display), on a league table's line
    gettext_noop("Match"),
    gettext_noop("Loss with no opponent"),
    gettext_noop("Multi-player game"),
    # the players screen's pager (_pager.html: "Player list pages")
    gettext_noop("Player list"),
)

PAIR_PLAYOFF = {
    4: gettext_noop("Pair the Quarterfinals"),
    2: gettext_noop("Pair the Semifinals"),
    1: gettext_noop("Pair the Final"),
}
DROPPED_AFTER: RoundSentence = (
    gettext_noop("Dropped after round %(number)s"),
    {
        4: gettext_noop("Dropped after the Quarterfinals"),
        2: gettext_noop("Dropped after the Semifinals"),
        1: gettext_noop("Dropped after the Final"),
    },
)
UNDO: RoundSentence = (
    gettext_noop("Undo the pairing of round %(number)s"),
    {
        4: gettext_noop("Undo the pairing of the Quarterfinals"),
        2: gettext_noop("Undo the pairing of the Semifinals"),
        1: gettext_noop("Undo the pairing of the Final"),
    },
)


def dashboard(user: Any) -> dict[str, Any]:
    mine = (
        Tournament.objects.filter(Q(owner=user) | Q(staff=user))
        .distinct()
        .only("name", "slug", "system", "status", "created_at", "owner_id")
        # A judge's way into an event is the floor, not the organizer's screen (403).
        .annotate(
            my_role=Subquery(
                StaffMember.objects.filter(tournament=OuterRef("pk"), user=user.pk).values("role")[
                    :1
                ]
            )
        )
    )
    return {"tournaments": mine, "mtr_rounds": MTR_ROUNDS_SHOWN}


# --- Rows -------------------------------------------------------------------------------


def seats_prefetch() -> Prefetch:
    return Prefetch(
        "seats",
        queryset=Seat.objects.select_related("player").order_by("position"),
        to_attr="seat_list",
    )


def quick_buttons(playoff: bool, best_of: int) -> list[tuple[str, str]]:
    """The one-click results (label, value) in the active language: a score is its own
    label; the agreed draw is said ("Draw 0-0-3"; in a best of 1 just "Draw")."""
    if playoff:
        return [(value, value) for value in PLAYOFF_RESULTS[best_of]]
    draw = DRAW_RESULTS[best_of]
    label = gettext("Draw") if best_of == 1 else gettext("Draw %(score)s") % {"score": draw}
    return [*((value, value) for value in QUICK_RESULTS[best_of]), (label, draw)]


def decorate(
    match: Match,
    best_of: int,
    names: Mapping[str, str] | None = None,
    quick: list[tuple[str, str]] | None = None,
) -> Match:
    """Display helpers on a match whose seats were prefetched as seat_list; its players'
    `display_name` as `names` (pages.event.display_names) shows them. `quick`: the
    round's `quick_buttons`, when the caller decorates a whole round."""
    seats = match.seat_list  # type: ignore[attr-defined]
    for s in seats if names is not None else ():
        s.player.display_name = names.get(s.player.external_id, s.player.name)
    match.winner_seat = winner(match, seats)  # type: ignore[attr-defined]
    # The text doubles as the value of the matching one-click button ("2-1", "0-0-3").
    two_player = match.kind in (MatchKind.PLAYED, MatchKind.DOUBLE_LOSS) and len(seats) == 2
    match.result_text = result_text(match, seats) if two_player else ""  # type: ignore[attr-defined]
    match.quick = quick if quick is not None else quick_buttons(match.round.playoff, best_of)  # type: ignore[attr-defined]
    return match


def round_matches(
    round_: Round, best_of: int, names: Mapping[str, str] | None = None
) -> list[Match]:
    matches = (
        round_.matches.select_related("round")
        .order_by("table", "id")
        .prefetch_related(seats_prefetch())
    )
    quick = quick_buttons(round_.playoff, best_of)  # translated once for the round
    return [decorate(m, best_of, names, quick) for m in matches]


def match_row(t: Tournament, match_pk: int) -> Match:
    """One match's row on the round screen, its result form (two queries): with the
    players' claims when their report is open (`claims`: a disputed one's two)."""
    match = (
        Match.objects.select_related("round", "report__reporter", "report__answered_by")
        .prefetch_related(seats_prefetch())
        .get(pk=match_pk, round__tournament=t)
    )
    match.claims = open_claims(getattr(match, "report", None), match.seat_list)  # type: ignore[attr-defined]
    names = display_names(t)
    # Penalties acting on the match ("Game loss: Ana Souza (Tardiness)"): its form says so.
    match.penalty_notes = match_notes(names, match_pks=[match.pk]).get(match.pk, [])  # type: ignore[attr-defined]
    return decorate(match, t.best_of, names)


# --- The round's status and the actions it allows ----------------------------------------


@dataclass(frozen=True)
class RoundSummary:
    """Per round (number order): (number, phase, playoff, results missing, results in)."""

    rounds: list[tuple[int, int, bool, int, int]]

    @property
    def last(self) -> tuple[int, int, bool, int, int] | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def missing_now(self) -> int:
        return self.last[3] if self.last else 0

    @property
    def missing_total(self) -> int:
        return sum(r[3] for r in self.rounds)

    @property
    def swiss(self) -> list[int]:
        return [r[0] for r in self.rounds if not r[2]]

    def later_than(self, number: int) -> list[int]:
        return [n for n in self.swiss if n > number]


def round_summary(t: Tournament) -> RoundSummary:
    """Every round with its missing and entered results, in one query."""
    rows = (
        Round.objects.filter(tournament=t)
        .order_by("number")
        .annotate(
            missing=Count(
                "matches", filter=Q(matches__kind__in=OPEN_KINDS, matches__reported=False)
            ),
            entered=Count(
                "matches", filter=Q(matches__kind__in=RESULT_KINDS, matches__reported=True)
            ),
        )
        .values_list("number", "phase", "playoff", "missing", "entered")
    )
    return RoundSummary([(n, ph, bool(po), m, e) for n, ph, po, m, e in rows])


def actions(
    t: Tournament, summary: RoundSummary, *, bracket: list[Any] | None = None
) -> dict[str, Any]:
    """The event's status line and what the organizer may do next (the actions panel)."""
    active = t.players.filter(dropped_after_round__isnull=True, entry=Entry.ACCEPTED).count()
    last = summary.last
    missing_now = summary.missing_now
    swiss = summary.swiss
    is_swiss = t.system in SWISS_SYSTEMS
    decided = final = False
    if t.status == Status.TOP_CUT:
        bracket = bracket_rounds(t) if bracket is None else bracket
        decided, final = bracket_state(bracket)
    ctx: dict[str, Any] = {
        "active_count": active,
        "last_round": {"number": last[0]} if last else None,
        "last_swiss": swiss[-1] if swiss else 0,
        "missing_now": missing_now,
        "missing_total": summary.missing_total,
        "suggested_rounds": suggested_swiss_rounds(active) if active >= 2 else None,
        "is_swiss": is_swiss,
        "is_league": t.system == System.LEAGUE,
        "can_undo": last is not None and t.status != Status.FINISHED and last[4] == 0,
        "can_pair": t.status != Status.FINISHED
        and not (t.system == System.POD and last is not None)
        and missing_now == 0
        and not (t.status == Status.TOP_CUT and (final or not decided)),
        "pair_label": (
            next_playoff_label(bracket or [])
            if t.status == Status.TOP_CUT
            else (
                gettext("Pair the round robin")
                if t.system == System.POD
                else gettext("Pair round %(number)s") % {"number": len(swiss) + 1}
            )
        ),
        # The top cut's rounds by name: "Undo the pairing of the Final", "· Semifinals".
        "undo_label": _undo_label(t, last, bracket),
        "playing_label": (
            RoundName.playoff(len(bracket[-1])) if t.status == Status.TOP_CUT and bracket else None
        ),
        "can_cut": t.status == Status.RUNNING
        and is_swiss
        and last is not None
        and missing_now == 0,
        "can_finish": (t.status == Status.RUNNING and missing_now == 0 and last is not None)
        or (t.status == Status.TOP_CUT and final),
        "top_cut_choices": [
            (n, gettext("Top %(size)s") % {"size": n} if n else gettext("None"))
            for n in TOP_CUT_CHOICES
        ],
    }
    # After the planned Swiss rounds the next step offered is the top cut, or finishing
    # when there is none; another Swiss round stays possible, no longer the first choice.
    plan_done = (
        is_swiss
        and t.status == Status.RUNNING
        and bool(t.planned_rounds)
        and len(swiss) >= (t.planned_rounds or 0)
        and missing_now == 0
    )
    ctx["plan_done"] = plan_done
    ctx["next_step"] = ("top_cut" if t.top_cut else "finish") if plan_done else "pair"
    if plan_done:
        ctx["pair_label"] = gettext("Pair round %(number)s (beyond the %(planned)s planned)") % {
            "number": len(swiss) + 1,
            "planned": t.planned_rounds,
        }
    if ctx["is_league"] and ctx["can_pair"]:
        ctx["players"] = list(t.players.order_by("id"))
    return ctx


def next_playoff_label(bracket: list[list[dict[str, Any]]]) -> str:
    """ "Pair the Semifinals", "Pair the Final": the round the bracket's winners play next."""
    matches = len(bracket[-1]) // 2 if bracket else 0
    if not matches:
        return gettext("Pair the next playoff round")
    if matches in PAIR_PLAYOFF:
        return gettext(PAIR_PLAYOFF[matches])
    # None: a top cut has 8 players at most.
    return gettext("Pair the %(round)s") % {"round": round_name(RoundName.playoff(matches))}


def _undo_label(
    t: Tournament,
    last: tuple[int, int, bool, int, int] | None,
    bracket: list[list[dict[str, Any]]] | None,
) -> str:
    """The undo button, naming the last round paired: "Undo the pairing of round 6",
    "Undo the pairing of the Final"."""
    if last is None:
        return ""
    name: RoundName | None
    if not last[2]:
        name = None
    elif bracket:
        name = RoundName.playoff(len(bracket[-1]), last[0])
    else:
        name = playoff_names(t).get(last[0])
    return say_round(name, last[0], UNDO)


def after_result(t: Tournament, match: Match) -> dict[str, Any]:
    """What a result entry changes on the board besides its row: the missing count, the
    round's status and, once the round is complete (or reopened), the actions panel."""
    summary = round_summary(t)
    number = match.round.number
    later = [] if match.round.playoff else summary.later_than(number)
    notice = ""
    if later:
        notice = ngettext(
            "Standings recomputed. Round %(rounds)s was already paired on the old standings: "
            "those pairings stay as they are.",
            "Standings recomputed. Rounds %(rounds)s were already paired on the old "
            "standings: those pairings stay as they are.",
            len(later),
        ) % {"rounds": ", ".join(str(n) for n in later)}
    ctx: dict[str, Any] = {
        "missing_total": summary.missing_total,
        "missing_now": summary.missing_now,
        "last_round": {"number": summary.last[0]} if summary.last else None,
        "round_notice": notice,
        # A Swiss correction after the cut was seeded may move its seeds: never silent.
        "cut_check": None if match.round.playoff else cut_check(t),
        # The panel's buttons change only when the round becomes complete or reopens.
        "actions_changed": summary.missing_now <= 1,
    }
    if ctx["actions_changed"]:
        ctx.update(actions(t, summary))
    return ctx


# --- Panels ---------------------------------------------------------------------------


def organizer_bracket(t: Tournament, rounds: list[list[dict[str, Any]]]) -> dict[str, Any]:
    """The bracket panel: each match decorated for one-click entry, seeds shown."""
    out = []
    shown = display_names(t)
    for entries in rounds:
        decorated = []
        for entry in entries:
            m = entry["match"]
            m.seat_list = entry["seats"]  # type: ignore[attr-defined]
            for seat, seed in zip(entry["seats"], entry.get("seeds", ()), strict=False):
                seat.seed = seed  # type: ignore[attr-defined]
            decorated.append(decorate(m, t.best_of, shown))
        number = decorated[0].round.number if decorated else None
        name = RoundName.playoff(len(decorated), number or 0)
        out.append({"name": name, "number": number, "matches": decorated})
    decided, final = bracket_state(rounds)
    return {
        "bracket": out,
        "bracket_round_decided": decided,
        "bracket_final_decided": final,
        "placings": placings(t, display_names(t)) if final else [],
    }


def clock_panel(t: Tournament, round_: Round | None = None, **extra: Any) -> dict[str, Any]:
    round_ = current_round(t) if round_ is None else round_
    return {
        "tournament": t,
        "clock_round": round_,
        "clock_label": round_label(round_),  # "Round 4", "Semifinals"
        "clock": clock_state(round_),
        "default_minutes": DEFAULT_ROUND_MINUTES,
        "clock_buttons": [
            ("resume", "", gettext("Resume"))
            if round_ is not None and round_.clock_paused_remaining is not None
            else ("pause", "", gettext("Pause")),
            ("add", 1, gettext("+%(minutes)s min") % {"minutes": 1}),
            ("add", 5, gettext("+%(minutes)s min") % {"minutes": 5}),
            ("add", -1, gettext("−%(minutes)s min") % {"minutes": 1}),
            (
                "start",
                DEFAULT_ROUND_MINUTES,
                gettext("Restart at %(minutes)s") % {"minutes": DEFAULT_ROUND_MINUTES},
            ),
        ],
        **extra,
    }


def pick_round(t: Tournament, swiss: list[Round], number: int | None) -> Round | None:
    if number is not None:
        return next((r for r in swiss if r.number == number), None)
    if t.system == System.POD:
        for r in swiss:
            if r.matches.filter(kind=MatchKind.PLAYED, reported=False).exists():
                return r
    return swiss[-1] if swiss else None


def board(t: Tournament, *, round_number: int | None = None) -> dict[str, Any]:
    """Everything the event screen shows but the standings (a cached fragment of its own)."""
    rounds = list(t.rounds.order_by("number"))
    swiss = [r for r in rounds if not r.playoff]
    viewed = pick_round(t, swiss, round_number)
    is_league = t.system == System.LEAGUE
    summary = round_summary(t)
    bracket = bracket_rounds(t, display_names(t)) if any(r.playoff for r in rounds) else []
    ctx: dict[str, Any] = {
        "tournament": t,
        "late_entry": bool(rounds),
        "swiss_rounds": swiss,
        "viewed": viewed,
        # League tables keep their own form per game; two-player rounds are compact rows.
        "matches": round_matches(viewed, t.best_of, display_names(t))
        if viewed and is_league
        else [],
        **(
            round_screen(t, viewed, Filters(), limit=EVENT_SCREEN_TABLES)
            if viewed is not None and not is_league
            else {}
        ),
        "later_rounds": [
            r.number for r in swiss if viewed is not None and r.number > viewed.number
        ],
        "standings_title": standings_title(t),
        "cut_check": cut_check(t),
        **actions(t, summary, bracket=bracket),
        **organizer_bracket(t, bracket),
        # The round being played (a pod's schedule is paired whole, ahead of play).
        **clock_panel(t),
        **players_panel(t),
        # The quick entry takes the focus without scrolling the title and status away.
        "quiet_focus": True,
    }
    ctx["last_round"] = rounds[-1] if rounds else None
    return ctx


# --- The players and the standings: on the event screen, and on screens of their own -------


def clean_search(text: str) -> str:
    return " ".join(text.split())[:100]


def list_query(q: str, page: int | None = None, **more: str) -> str:
    """A list screen's query string ("?page=2&q=ana"): its links and forms keep both."""
    pairs = {
        **more,
        **({"page": str(page)} if page and page > 1 else {}),
        **({"q": q} if q else {}),
    }
    return "?" + urlencode(pairs) if pairs else ""


def pager(listed: Page, q: str) -> dict[str, Any]:
    """A list screen's page links: each (number, query), None for a gap; the previous
    and next page's query, None at either end. Plain links: no JavaScript needed."""
    numbers = listed.paginator.get_elided_page_range(listed.number, on_each_side=2, on_ends=1)
    return {
        "pages": [(n, list_query(q, n)) if isinstance(n, int) else (None, "") for n in numbers],
        "previous": list_query(q, listed.number - 1) if listed.has_previous() else None,
        "next": list_query(q, listed.number + 1) if listed.has_next() else None,
    }


def player_counts(t: Tournament) -> dict[str, int]:
    """The players panel's heading: everyone entered, those playing, those waiting."""
    return Player.objects.filter(tournament=t).aggregate(
        player_count=Count("id"),
        active_count=Count("id", filter=Q(dropped_after_round__isnull=True, entry=Entry.ACCEPTED)),
        pending_count=Count("id", filter=Q(entry=Entry.PENDING)),
    )


def paired_among(t: Tournament, players: list[Player]) -> set[int]:
    """Of these players, those paired at least once (never-paired ones may be removed)."""
    return set(
        Seat.objects.filter(round__tournament=t, player__in=[p.pk for p in players])
        .values_list("player_id", flat=True)
        .distinct()
    )


def annotated_rows(t: Tournament, rows: list[Player]) -> list[Player]:
    """The rows, each with the name it is shown by (namesakes apart) and what its drop
    would concede during the top cut (the drop button's confirmation says it)."""
    drops = cut_drops(t)
    shown = display_names(t) if rows else {}
    dropped = any(p.dropped_after_round for p in rows) and t.status in CUT_STATES
    playoff = playoff_names(t) if dropped else {}
    for p in rows:
        p.display_name = shown.get(p.external_id, p.name)  # type: ignore[attr-defined]
        p.cut_drop = drops[p.pk].sentence(p.display_name) if p.pk in drops else ""  # type: ignore[attr-defined]
        # "Dropped after round 3", or in the top cut "Dropped after the Quarterfinals".
        after = after_round_text(p.dropped_after_round, playoff)
        p.dropped_after = (  # type: ignore[attr-defined]
            say_round(after, after.number, DROPPED_AFTER)
            if after is not None
            else gettext("Dropped before round 1")  # a no-show dropped at the desk (round 0)
        )
    return rows


def players_panel(t: Tournament) -> dict[str, Any]:
    """The event screen's players panel: the add forms, the counts and, for a small field,
    the whole list; a big one is found on the players screen."""
    counts = player_counts(t)
    rows: list[Player] = []
    if counts["player_count"] <= EVENT_SCREEN_ROWS:
        rows = annotated_rows(t, list(Player.objects.filter(tournament=t).order_by("id")))
    return {**counts, "player_rows": rows, "paired_ids": paired_among(t, rows)}


def players_screen(t: Tournament, *, page: str = "", q: str = "") -> dict[str, Any]:
    """One page of the player list (registration order), or of the players whose name
    holds `q`, each with its rename, drop, re-admit and remove forms."""
    q = clean_search(q)
    players = Player.objects.filter(tournament=t).order_by("id")
    if q:
        players = players.filter(name__icontains=q)
    listed: Page = Paginator(players, PLAYERS_PAGE_SIZE).get_page(page)
    rows = annotated_rows(t, list(listed.object_list))
    return {
        "tournament": t,
        "late_entry": t.rounds.exists(),
        **player_counts(t),
        "player_rows": rows,
        "paired_ids": paired_among(t, rows),
        "listing": True,
        "listed": listed,
        "pager": pager(listed, q),
        "q": q,
        # The forms of this screen come back to it: the same page and search.
        "action_query": list_query(q, listed.number, on="players"),
    }


def standings_title(t: Tournament) -> str:
    return gettext("Final standings") if t.status == Status.FINISHED else gettext("Standings")


def after_text(number: int | None, name: RoundName | None) -> str:
    """What the standings screen's title says they are after, lower case: "after round
    5", "after the Final" (`name`: domain.after_round_text's), picked by the round's
    size."""
    if not number or name is None:
        return ""
    if not name.is_playoff:
        return gettext("after round %(number)s") % {"number": number}
    if name.playoff_matches in AFTER_PLAYOFF:
        return gettext(AFTER_PLAYOFF[name.playoff_matches])
    # None: a top cut has 8 players at most.
    return gettext("after the %(round)s") % {"round": round_name(name)}


AFTER_PLAYOFF = {
    4: gettext_noop("after the Quarterfinals"),
    2: gettext_noop("after the Semifinals"),
    1: gettext_noop("after the Final"),
}


def standings_top(t: Tournament) -> dict[str, Any]:
    """The event screen's standings: the leaders, a count and the way to the whole table."""
    stored = Standing.objects.filter(tournament=t)
    rows = list(stored.order_by("position").values_list(*STANDINGS_COLUMNS)[:EVENT_SCREEN_ROWS])
    count = stored.count() if len(rows) == EVENT_SCREEN_ROWS else len(rows)
    return {
        **standings_table(t, rows, count),
        "shown": len(rows),
    }


def standings_screen(t: Tournament, *, page: str = "", q: str = "") -> dict[str, Any]:
    """One page of the stored standings, or of the players whose name holds `q` (with
    their rank in the whole field)."""
    q = clean_search(q)
    stored = Standing.objects.filter(tournament=t)
    count = stored.count()
    if q:
        stored = stored.filter(player__name__icontains=q)
    ordered = stored.order_by("position").values_list(*STANDINGS_COLUMNS)
    listed: Page = Paginator(ordered, STANDINGS_PAGE_SIZE).get_page(page)
    table = standings_table(t, list(listed.object_list), count)
    return {
        **table,
        "standings_title": standings_title(t),
        "after_text": after_text(table["after_round"], table["after_label"]),
        "listed": listed,
        "pager": pager(listed, q),
        "q": q,
    }


def playoff_round_page(t: Tournament, viewed: Round) -> dict[str, Any]:
    """A playoff round's own screen (/manage/rounds/N/ of a top-cut round): named as the
    bracket names it, with the bracket panel where its results are entered."""
    bracket = bracket_rounds(t, display_names(t))
    return {
        "tournament": t,
        "viewed": viewed,
        "viewed_label": round_label(viewed),
        "swiss_rounds": list(t.rounds.filter(playoff=False).order_by("number")),
        "cut_check": cut_check(t),
        **actions(t, round_summary(t), bracket=bracket),
        **organizer_bracket(t, bracket),
    }


def round_page(t: Tournament, viewed: Round) -> dict[str, Any]:
    """The round screen around its rows: the round tabs, the event's actions and status."""
    swiss = list(t.rounds.filter(playoff=False).order_by("number"))
    is_league = t.system == System.LEAGUE
    return {
        "tournament": t,
        "swiss_rounds": swiss,
        "viewed": viewed,
        "round_screen": True,
        "later_rounds": [r.number for r in swiss if r.number > viewed.number],
        "matches": round_matches(viewed, t.best_of, display_names(t)) if is_league else [],
        "cut_check": cut_check(t),
        **actions(t, round_summary(t)),
    }
