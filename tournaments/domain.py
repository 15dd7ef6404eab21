"""Domain predicates: what services decide and pages show, defined once.

Services (the writers) and pages (the read model) both ask these questions: which round
is being played, whether a round still misses results, what a player's report may still
change, whether players may register, the top cut's bracket as played and whether its
seeds still match the standings. Each answer lives here, so that a service never imports
the read model to decide (shared/spec/architecture.md, "The read side").

Imports models, rules and the pure engines only; never pages or services.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db.models import Count, Exists, OuterRef, Prefetch, Q
from django.utils.translation import gettext, gettext_lazy

from scoring.engine.ranking import draw_key
from scoring.models import Standing
from tournaments.messages import Message
from tournaments.models import (
    AuditAction,
    AuditEntry,
    CutDecision,
    Entry,
    Match,
    MatchKind,
    Player,
    Report,
    ReportState,
    Round,
    Seat,
    Status,
    Tournament,
)
from tournaments.pairing.bracket import (
    BRACKET_SEEDS,
    BracketMatch,
    SeedChange,
    bracket_of,
    seed_changes,
)
from tournaments.rules import (
    CUT_ENTERS,
    CUT_ENTERS_UNSCORED,
    CUT_MOVES,
    CUT_OUT,
    CUT_OUT_UNRANKED,
    SWISS_SYSTEMS,
    SWISS_TIEBREAK_ORDER,
    RoundName,
)

# --- Rounds -------------------------------------------------------------------------------


def last_round(tournament: Tournament) -> Round | None:
    """The round paired last, whether or not it has started (what the next pairing, an
    undo or a cut follows)."""
    return tournament.rounds.order_by("-number").first()


def current_round(tournament: Tournament) -> Round | None:
    """The round being played: the first round with a match not yet played, counting
    from the last round that has an entered result; the last round once all are played.

    A round-robin pod is paired all at once (services/rounds.py), so the last round is
    not the one being played until the end (issue 13). Counting from the last round with
    a result keeps a Swiss event whose earlier round has a gap (an import, as recorded)
    on its latest round once that round has a result. Byes and no-opponent losses are entered by pairing, not played:
    they neither start a round nor leave it open. Whenever this round has no result
    missing it is the last round, so a caller that refuses while `missing_results` is
    non-zero gets the last round either way.
    """
    entered = Match.objects.filter(
        round=OuterRef("pk"),
        kind__in=[MatchKind.PLAYED, MatchKind.GAME, MatchKind.DOUBLE_LOSS],
        reported=True,
    )
    open_ = Match.objects.filter(
        round=OuterRef("pk"), kind__in=[MatchKind.PLAYED, MatchKind.GAME], reported=False
    )
    rounds = list(
        tournament.rounds.order_by("number").annotate(
            started=Exists(entered), unplayed=Exists(open_)
        )
    )
    if not rounds:
        return None
    last_started = max((i for i, r in enumerate(rounds) if r.started), default=0)
    return next((r for r in rounds[last_started:] if r.unplayed), rounds[-1])


def missing_results(round_: Round) -> int:
    return round_.matches.filter(
        kind__in=[MatchKind.PLAYED, MatchKind.GAME], reported=False
    ).count()


def round_label(round_: Round | None) -> RoundName | None:
    """A round's name as data: Swiss "Round 4", or in the top cut by its size
    ("Quarterfinals", "Semifinals", "Final"); said where it is shown."""
    if round_ is None:
        return None
    if round_.playoff:
        return RoundName.playoff(round_.matches.count(), round_.number)
    return RoundName(round_.number)


def playoff_names(t: Tournament) -> dict[int, RoundName]:
    """Round number -> name of each playoff round of the event: one query."""
    rounds = t.rounds.filter(playoff=True).annotate(n=Count("matches"))
    return {number: RoundName.playoff(n, number) for number, n in rounds.values_list("number", "n")}


def after_round_text(number: int | None, playoff: Mapping[int, RoundName]) -> RoundName | None:
    """What the standings are "after": round 5, the Semifinals; None before any result.
    `playoff`: the event's `playoff_names`."""
    if not number:
        return None
    return playoff.get(number) or RoundName(number)


# --- Players' reports: what a report may still change -------------------------------------


# A report in these states is still open: its reporter's opponent may confirm or dispute
# it. A confirmed report has become the result; an overridden one gave way to the
# organizer's entry.
OPEN_STATES = (ReportState.REPORTED, ReportState.DISPUTED)


def report_open(match: Match, report: Report) -> bool:
    """The report may still be answered: no result is in and its state is open."""
    return not match.reported and report.state in OPEN_STATES


def stamp(match: Match, seats: Sequence[Seat], report: Report | None) -> str:
    """What a page showed of one match; a form sends it back, a write compares it under
    the lock to refuse a stale page. It names what the player saw (the stored result and
    the report), never a time or the event's version, so a write to another table does
    not make every phone's page stale."""
    parts: list[Any] = [match.pk, match.kind, match.reported, match.draws]
    parts += [s.games_won for s in seats]
    if report is not None:
        parts += [report.state, report.reporter_id, report.wins_a, report.wins_b, report.draws]
        parts += [report.answered_by_id]
        if report.counter_claim is not None:  # the opponent's own result, once given
            parts += report.counter_claim
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def own_side(wins_seat_order: Sequence[int], position: int) -> tuple[int, int]:
    """(mine, theirs) for the player in seat `position` (0 or 1)."""
    a, b = wins_seat_order
    return (a, b) if position == 0 else (b, a)


# --- Registration -------------------------------------------------------------------------


CLOSED = gettext_lazy("Registration is closed: ask the organizer to add you.")
PAIRED = gettext_lazy("Round 1 is paired: registration is closed. The organizer adds late entries.")


def registration_closed_reason(t: Tournament) -> str | None:
    """Why players cannot register themselves now, or None while they can. Registration
    closes when round 1 is paired (any paired round counts)."""
    if t.status != Status.REGISTRATION or t.rounds.exists():
        return PAIRED if t.registration_open else CLOSED
    if not t.registration_open:
        return CLOSED
    return None


def entries_counted(t: Tournament) -> int:
    """Entries the cap counts: accepted and pending (a rejected one frees its place)."""
    return t.players.filter(entry__in=[Entry.ACCEPTED, Entry.PENDING]).count()


def not_checked_in(t: Tournament) -> list[Player]:
    """Accepted players still in the event who have not checked in, by name."""
    players = t.players.filter(
        entry=Entry.ACCEPTED, dropped_after_round__isnull=True, checked_in_at__isnull=True
    )
    return sorted(players, key=lambda p: p.name.casefold())


# --- The top cut's bracket ----------------------------------------------------------------


def played_bracket(t: Tournament) -> tuple[tuple[BracketMatch, ...], ...]:
    """The playoff rounds as the pure bracket sees them (winners where decided)."""
    rounds: dict[int, dict[int, list[tuple[int, str, int | None, bool]]]] = {}
    for number, match_id, reported, position, ext, games in (
        Seat.objects.filter(round__tournament=t, round__playoff=True)
        .order_by("round__number", "match__table", "match_id", "position")
        .values_list(
            "round__number", "match_id", "match__reported", "position",
            "player__external_id", "games_won",
        )
    ):  # fmt: skip
        rounds.setdefault(number, {}).setdefault(match_id, []).append(
            (position, ext, games, reported)
        )
    played = []
    for matches in rounds.values():
        played.append([_bracket_entry(seats) for seats in matches.values()])
    if not played:
        return ()
    # The first round's size says the cut's size (an imported event may not carry it).
    return bracket_of(2 * len(played[0]), played)


def _bracket_entry(
    seats: list[tuple[int, str, int | None, bool]],
) -> tuple[str, str, str | None]:
    (_, high, high_games, reported), (_, low, low_games, _) = seats
    winner = None
    if reported and (high_games or 0) != (low_games or 0):
        winner = high if (high_games or 0) > (low_games or 0) else low
    return high, low, winner


# --- A drop during the top cut -------------------------------------------------------------


# One match of a playoff round, by the round's number of matches: English, as the drop's
# audit facts and the exports keep it (`match_name`); said by `stage_text`.
_MATCH_NAMES = {4: "quarterfinal", 2: "semifinal", 1: "final"}


def match_name(matches: int) -> str:
    """One match of a playoff round of `matches` matches, in English: "quarterfinal",
    "final", "round of 32" (a cut of 32 or more)."""
    return _MATCH_NAMES.get(matches, f"round of {2 * matches}")


def stage_text(matches: int) -> str:
    """`match_name` in the active language, from the number (issue 36: never from the
    English word)."""
    if (word := STAGES.get(matches)) is not None:
        return str(word)
    return gettext("round of %(players)s") % {"players": 2 * matches}


@dataclass(frozen=True, slots=True)
class CutDrop:
    """What dropping a player still alive in the top cut does (issue 24 item 4).

    `now`: they concede `match_id`, their playoff match without a result yet: `opponent`
    wins it `score`. Otherwise they won their match of the round being played, and the
    drop takes effect at the next round (`stage`): the opponent they would meet there
    (`opponent`, None until that is decided) advances by a walkover. Never paired to play
    again either way: services.playoff enters the walkover as the round is paired.
    """

    now: bool
    matches: int  # the playoff round of the match conceded, or the next one: its matches
    opponent: str | None
    score: str  # the walkover, its winner first: "2-0" in a best of 3
    match_id: int | None = None

    @property
    def stage(self) -> str:
        """The match in English ("quarterfinal"), as the drop's audit entry keeps it."""
        return match_name(self.matches)

    def sentence(self, name: str | None = None) -> str:
        """What the drop does, said to the player (`name` None) or about them, in the
        reader's language."""
        stage = stage_text(self.matches)
        values = {"name": name, "stage": stage, "opponent": self.opponent, "score": self.score}
        if self.now:
            if name is None:
                text = gettext(
                    "You concede your %(stage)s against %(opponent)s: %(opponent)s wins it"
                    " %(score)s."
                )
            else:
                text = gettext(
                    "%(name)s concedes the %(stage)s against %(opponent)s: %(opponent)s wins"
                    " it %(score)s."
                )
        elif self.opponent:
            if name is None:
                text = gettext(
                    "You will not play your %(stage)s: %(opponent)s advances without playing."
                )
            else:
                text = gettext(
                    "%(name)s will not play the %(stage)s: %(opponent)s advances without playing."
                )
        elif name is None:
            text = gettext(
                "You will not play your %(stage)s: your opponent there advances without playing."
            )
        else:
            text = gettext(
                "%(name)s will not play the %(stage)s: their opponent there advances without"
                " playing."
            )
        return text % values


# The top cut's stages as CutDrop.sentence names them.
STAGES = {
    4: gettext_lazy("quarterfinal"),
    2: gettext_lazy("semifinal"),
    1: gettext_lazy("final"),
}


def walkover_score(best_of: int) -> tuple[int, int]:
    """A conceded match's games, its winner first: the games that win a best of N."""
    return best_of // 2 + 1, 0


def cut_drop(t: Tournament, player: Player) -> CutDrop | None:
    """What dropping `player` now does to the top cut; None when nothing (no top cut
    running, the player is not or no longer in it, already dropped, or won the final)."""
    if player.dropped_after_round is not None:
        return None
    return cut_drops(t).get(player.pk)


def cut_drops(t: Tournament) -> dict[int, CutDrop]:
    """cut_drop for every player still in the top cut and not dropped, by player pk
    (those a drop does nothing to are left out). Two queries during a top cut, none
    otherwise."""
    if t.status != Status.TOP_CUT:
        return {}
    seats = Seat.objects.select_related("player").order_by("position")
    matches = list(  # the last playoff round, in bracket order as played_bracket reads it
        Match.objects.filter(
            round=t.rounds.filter(playoff=True).order_by("-number").values("pk")[:1]
        )
        .order_by("table", "id")
        .prefetch_related(Prefetch("seats", queryset=seats, to_attr="seat_list"))
    )
    won, lost = walkover_score(t.best_of)
    score = f"{won}-{lost}"
    drops: dict[int, CutDrop] = {}
    for k, match in enumerate(matches):
        seated = _seated_in(match)
        if len(seated) != 2:
            continue  # not a bracket this app pairs (an imported oddity)
        for mine, theirs in (seated, seated[::-1]):
            if mine.player.dropped_after_round is not None:
                continue
            if not match.reported:
                drops[mine.player_id] = CutDrop(
                    True, len(matches), theirs.player.name, score, match.pk
                )
            elif len(matches) > 1 and _seat_winner(match) == mine.player_id:
                # Won this round's match: the drop takes effect at the next one.
                pair = matches[k ^ 1] if k ^ 1 < len(matches) else None
                winner = _seat_winner(pair) if pair is not None else None
                opponent = next(
                    (s.player.name for s in _seated_in(pair) if s.player_id == winner), None
                )
                drops[mine.player_id] = CutDrop(False, len(matches) // 2, opponent, score)
    return drops


def _seated_in(match: Match | None) -> list[Seat]:
    """A match's seats as prefetched into `seat_list` (none for no match)."""
    return match.seat_list if match is not None else []  # type: ignore[attr-defined]


def _seat_winner(match: Match) -> int | None:
    """Who won a two-seat match with a result (a player pk; its `seat_list` read)."""
    seats = _seated_in(match)
    if len(seats) != 2 or not match.reported:
        return None
    a, b = (s.games_won or 0 for s in seats)
    if a == b:
        return None
    return seats[0].player_id if a > b else seats[1].player_id


# --- A correction after the cut: do the seeds still match the standings? ------------------


Row = tuple[str, str, Decimal, Any]  # external id, name, points, tiebreakers


def cut_state(t: Tournament) -> dict[str, Any] | None:
    """The seeds as played against the current standings (None: no checkable bracket).

    Keys: "slug", "size"; "seeds" (seed -> player id) and "order" (player ids in the
    current Swiss order, as far as it matters for the cut); "changes" (one dict per
    SeedChange, with its sentence as "message", a Message); "playoff_result" (a playoff match has a
    result, so re-seeding is refused) and "reseed_blocked" (why re-seeding is refused,
    or None); "seen" (a short token of these changes, which the choices send back so
    that a decision applies to what the organizer saw); "fingerprint" (the changes as a
    list, stored with a decision: Tournament.cut_decision_changes); "decided" and
    "decided_at" (Tournament.cut_decision says the cut was kept for exactly these
    changes); "correction" (the latest Swiss result change since the cut started:
    {"round", "table", "at"}, None if none is recorded).
    """
    seats = list(
        Seat.objects.filter(round__tournament=t, round__playoff=True)
        .order_by("round__number", "match__table", "match_id", "position")
        .values_list(
            "round__number", "match_id", "match__reported", "player_id",
            "player__external_id", "player__name", "player__standing__points",
        )
    )  # fmt: skip
    if not seats:
        return None
    first_number = seats[0][0]
    first: dict[int, list[tuple[int, str]]] = {}
    for number, match_id, _reported, pk, ext, _name, _points in seats:
        if number == first_number:
            first.setdefault(match_id, []).append((pk, ext))
    size = 2 * len(first)
    pairs = BRACKET_SEEDS.get(size)
    if pairs is None or any(len(players) != 2 for players in first.values()):
        return None  # not a bracket this app seeds (an imported oddity): nothing to check
    seeds: dict[int, str] = {}
    for players, pair in zip(first.values(), pairs, strict=True):
        for (_pk, ext), seed in zip(players, pair, strict=True):
            seeds[seed] = ext
    seeded = set(seeds.values())
    seeded_pks = {pk for _n, _m, _r, pk, ext, _name, _p in seats if ext in seeded}
    names = {ext: name for _n, _m, _r, _pk, ext, name, _p in seats}
    in_results = {ext for _n, _m, reported, _pk, ext, _name, _p in seats if reported}
    floor = min(
        (p for *_rest, ext, _name, p in seats if ext in seeded and p is not None), default=None
    )

    # Everyone who can stand ahead of a seeded player has at least the fewest points a
    # seeded player has; players who dropped after the cut are out of it, except the
    # seeded ones (a drop during the playoffs is no correction of the standings).
    rows_query = Standing.objects.filter(tournament=t).filter(
        Q(player__dropped_after_round__isnull=True) | Q(player_id__in=seeded_pks)
    )
    if floor is not None:
        rows_query = rows_query.filter(points__gte=floor)
    rows: list[Row] = list(
        rows_query.order_by("position").values_list(
            "player__external_id", "player__name", "points", "tiebreakers"
        )
    )
    names.update((ext, name) for ext, name, _p, _tb in rows)
    points = {ext: p for ext, _name, p, _tb in rows}
    order = _swiss_order(rows, in_results, seed=t.seed, swiss=t.system in SWISS_SYSTEMS)
    changes = seed_changes(seeds, order)
    fingerprint = [[c.player, c.seed, c.place, c.new_seed] for c in changes]

    decided_at: datetime | None = None
    correction: dict[str, Any] | None = None
    if changes:
        if t.cut_decision == CutDecision.KEEP and t.cut_decision_changes == fingerprint:
            decided_at = t.cut_decided_at
        correction = _latest_correction(t, seats)
    playoff_result = bool(in_results)
    blocked = None
    if playoff_result:
        blocked = (
            "A playoff result is already entered: re-seeding would change matches "
            "already played. Clear the playoff results first, or keep the cut."
        )
    elif len(order) < size:
        blocked = f"A top {size} needs {size} players still in the event."
    return {
        "slug": t.slug,
        "size": size,
        "seeds": seeds,
        "order": order,
        "changes": [
            {
                "player": c.player,
                "name": names.get(c.player, c.player),
                "seed": c.seed,
                "place": c.place,
                "new_seed": c.new_seed,
                "kind": c.kind,
                "message": change_message(c, names.get(c.player, c.player), points.get(c.player)),
            }
            for c in changes
        ],
        "playoff_result": playoff_result,
        "reseed_blocked": blocked,
        "fingerprint": fingerprint,
        "seen": seen_token(fingerprint),
        "decided": decided_at is not None,
        "decided_at": decided_at,
        "correction": correction,
    }


def seen_token(fingerprint: Sequence[Sequence[Any]]) -> str:
    """A short token of a set of changes: a decision sent with it applies only to them."""
    return hashlib.sha256(json.dumps(fingerprint).encode()).hexdigest()[:16]


def change_message(change: SeedChange, name: str, points: Decimal | None) -> Message:
    """One change as the organizer reads it: data (the name a parameter, never parsed),
    said where it is shown (labels.seed_change_text), stored as data in the audit."""
    if change.kind == "in":
        if points is None:
            return CUT_ENTERS_UNSCORED(name=name, place=change.place, new_seed=change.new_seed)
        return CUT_ENTERS(
            name=name, points=_points_text(points), place=change.place, new_seed=change.new_seed
        )
    if change.kind == "out":
        if change.place is None:
            return CUT_OUT_UNRANKED(name=name, seed=change.seed)
        return CUT_OUT(name=name, seed=change.seed, place=change.place)
    return CUT_MOVES(name=name, seed=change.seed, place=change.place, new_seed=change.new_seed)


def _points_text(points: Decimal) -> str:
    text = f"{points:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _swiss_order(rows: Sequence[Row], in_results: set[str], *, seed: int, swiss: bool) -> list[str]:
    """Player ids in Swiss order from stored rows (in stored position order).

    The stored standings put the players of decided playoff matches first (their final
    placings, shared/spec/scoring.md s.1); everyone else keeps the Swiss order. Those
    players go back among the others by the Swiss order's own keys, read from their
    stored rows: points, the tiebreakers, then the event's seeded draw.
    """
    if not in_results:
        return [ext for ext, *_ in rows]

    def key(row: Row) -> tuple[Any, ...]:
        ext, _name, pts, tiebreakers = row
        values = tiebreakers if isinstance(tiebreakers, dict) and swiss else {}
        ahead = (-pts, *(-_number(values.get(k)) for k in SWISS_TIEBREAK_ORDER))
        return (*ahead, draw_key(seed, ext), ext)  # smaller is better

    moved = sorted((r for r in rows if r[0] in in_results), key=key)
    rest = [r for r in rows if r[0] not in in_results]
    order: list[str] = []
    i = j = 0
    while i < len(moved) and j < len(rest):
        if key(moved[i]) <= key(rest[j]):
            order.append(moved[i][0])
            i += 1
        else:
            order.append(rest[j][0])
            j += 1
    order.extend(r[0] for r in moved[i:])
    order.extend(r[0] for r in rest[j:])
    return order


def _number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) else float("-inf")


def _latest_correction(t: Tournament, seats: Iterable[tuple[Any, ...]]) -> dict[str, Any] | None:
    """The latest Swiss result change since the cut started (Tournament.cut_started_at;
    an event imported in its top cut has none: every change counts), or None."""
    results = AuditEntry.objects.filter(
        tournament=t, action__in=[AuditAction.RESULT, AuditAction.GAME]
    )
    if t.cut_started_at is not None:
        results = results.filter(at__gt=t.cut_started_at)
    playoff_rounds = {number for number, *_ in seats}
    for at, number, table in results.order_by("-id").values_list("at", "round", "table")[:50]:
        if number in playoff_rounds:
            continue
        return {"round": number, "table": table, "at": at}
    return None


# --- Decklists (issue 28) -----------------------------------------------------------------


def decklists_locked(t: Tournament, now: datetime | None = None) -> bool:
    """Whether players' own lists are locked: past the organizer's deadline, or without
    one once round 1 is paired (the start of the event), and always once the lists are
    published (a published list changes only by a judge, who moves the version)."""
    if t.decklists_published:
        return True
    if t.decklist_deadline is not None:
        from django.utils import timezone

        return (now or timezone.now()) >= t.decklist_deadline
    return t.rounds.exists()


def decklist_top_cut(t: Tournament) -> list[Player]:
    """Whose lists publishing makes public: the players who played a round of the top
    cut, else the first 8 of the final standings; in standings order."""
    cut = Player.objects.filter(
        tournament=t, entry=Entry.ACCEPTED, seats__round__playoff=True
    ).distinct()
    chosen = list(cut)
    if not chosen:
        top = Standing.objects.filter(tournament=t, player__entry=Entry.ACCEPTED)
        chosen = [s.player for s in top.select_related("player").order_by("position")[:8]]
    places = dict(Standing.objects.filter(player__in=chosen).values_list("player_id", "position"))
    return sorted(chosen, key=lambda p: (places.get(p.pk, 1 << 30), p.pk))
