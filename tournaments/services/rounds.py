"""Rounds: pair the next one (Swiss, round-robin pod, league tables), undo, Day-2 cut."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.db import connection
from django.utils.translation import gettext

from scoring.models import Standing
from scoring.services import PairingHistory, pairing_history, points_stored
from tournaments.domain import current_round, missing_results, round_label
from tournaments.messages import Message, Template, gettext_noop, template
from tournaments.models import (
    AuditAction,
    Entry,
    Match,
    MatchKind,
    Player,
    Round,
    Seat,
    Status,
    System,
    Tournament,
)
from tournaments.pairing.round_robin import round_robin_schedule
from tournaments.pairing.swiss import SwissPlayer, pair_swiss
from tournaments.pairing.tables import TablePlayer, seat_tables
from tournaments.rules import RoundName
from tournaments.services import push
from tournaments.services.fixed_seats import table_numbers
from tournaments.services.playoff import enter_walkovers, pair_playoff_round
from tournaments.services.restrictions import forbidden_pairs, note_effects, restriction_effects
from tournaments.services.seating import active_ids, active_players, create_round, round_rng
from tournaments.services.writing import ServiceError, writing


def _history(tournament: Tournament) -> dict[int, dict[str, Any]]:
    """Per player pk: previous opponents and whether they had a bye (no playoffs)."""
    info: dict[int, dict[str, Any]] = {}
    seats = (
        Seat.objects.filter(round__tournament=tournament, round__playoff=False, absent=False)
        .order_by("match_id", "position")
        .values_list("match_id", "player_id", "match__kind")
    )
    by_match: dict[int, list[tuple[int, str]]] = {}
    for match_id, player_id, kind in seats:
        by_match.setdefault(match_id, []).append((player_id, kind))
    for members in by_match.values():
        ids = [pid for pid, _ in members]
        for pid, kind in members:
            entry = info.setdefault(pid, {"opponents": [], "bye": False})
            if kind == MatchKind.BYE:
                entry["bye"] = True
            else:
                entry["opponents"].extend(o for o in ids if o != pid)
    return info


# A sentence about one round, whole in each language: a Swiss round by its number, a top
# cut's round by its size, with which its words agree ("The Final is paired", "The
# Semifinals are paired"). (the Swiss round's sentence, {playoff matches: its sentence});
# a playoff round of another size (none: a top cut has 8 players at most) takes the first.
RoundSentence = tuple[str, dict[int, str]]


# A refusal about one round: `RoundSentence`'s choice, made of templates (issue 36: raised
# as a Message, said where it is shown). (the Swiss round's, {playoff matches: its own}).
RoundRefusal = tuple[Template, dict[int, Template]]

STILL_MISSING: RoundRefusal = (
    template(
        "rounds.still_missing",
        gettext_noop("Round %(number)s still has %(count)s result(s) missing: enter them first."),
    ),
    {
        4: template(
            "rounds.still_missing.quarterfinals",
            gettext_noop(
                "The Quarterfinals still have %(count)s result(s) missing: enter them first."
            ),
        ),
        2: template(
            "rounds.still_missing.semifinals",
            gettext_noop(
                "The Semifinals still have %(count)s result(s) missing: enter them first."
            ),
        ),
        1: template(
            "rounds.still_missing.final",
            gettext_noop("The Final still has %(count)s result(s) missing: enter them first."),
        ),
    },
)
MISSING_BEFORE_CUT: RoundRefusal = (
    template(
        "rounds.missing_before_cut",
        gettext_noop("Round %(number)s still has %(count)s result(s) missing."),
    ),
    {
        4: template(
            "rounds.missing_before_cut.quarterfinals",
            gettext_noop("The Quarterfinals still have %(count)s result(s) missing."),
        ),
        2: template(
            "rounds.missing_before_cut.semifinals",
            gettext_noop("The Semifinals still have %(count)s result(s) missing."),
        ),
        1: template(
            "rounds.missing_before_cut.final",
            gettext_noop("The Final still has %(count)s result(s) missing."),
        ),
    },
)
HAS_RESULTS: RoundRefusal = (
    template(
        "rounds.has_results",
        gettext_noop(
            "Round %(number)s already has results: clear them before undoing the pairing."
        ),
    ),
    {
        4: template(
            "rounds.has_results.quarterfinals",
            gettext_noop(
                "The Quarterfinals already have results: clear them before undoing the pairing."
            ),
        ),
        2: template(
            "rounds.has_results.semifinals",
            gettext_noop(
                "The Semifinals already have results: clear them before undoing the pairing."
            ),
        ),
        1: template(
            "rounds.has_results.final",
            gettext_noop("The Final already has results: clear them before undoing the pairing."),
        ),
    },
)

FINISHED = template("rounds.finished", gettext_noop("The tournament is finished."))
BYES_LEAGUE_ONLY = template(
    "rounds.byes_league_only", gettext_noop("Agreed byes are for league rounds only.")
)
TOO_FEW_CHECKED_IN = template(
    "rounds.too_few_checked_in",
    gettext_noop(
        "Only %(checked_in)s player(s) checked in: round 1 pairs checked-in players "
        "only and needs at least two (%(waiting)s not checked in yet). Check players "
        "in on the Registration screen, or turn check-in off."
    ),
)
TOO_FEW_ACTIVE = template(
    "rounds.too_few_active",
    gettext_noop("At least two active players are needed to pair a round."),
)
BYE_NOT_ACTIVE = template(
    "rounds.bye_not_active",
    gettext_noop("An agreed bye must go to an active player of this event."),
)
LEAGUE_TOO_FEW = template(
    "rounds.league_too_few",
    gettext_noop("A league table needs at least three active players."),
)
POD_PAIRED = template(
    "rounds.pod_paired",
    gettext_noop("The pod's round robin is already paired: enter the results."),
)
POD_TOO_FEW = template("rounds.pod_too_few", gettext_noop("A pod needs at least three players."))
NOTHING_TO_UNDO = template("rounds.nothing_to_undo", gettext_noop("There is no round to undo."))
CUT_ONE_WAY = template(
    "rounds.cut_one_way",
    gettext_noop("Cut by a match-point threshold or by a number of players, not both."),
)
CUT_TOO_EARLY = template(
    "rounds.cut_too_early", gettext_noop("Play at least one round before a cut.")
)
CUT_TOP_TOO_SMALL = template(
    "rounds.cut_top_too_small", gettext_noop("At least two players must make the cut.")
)
CUT_TOO_FEW = template(
    "rounds.cut_too_few", gettext_noop("Fewer than two players would make that cut.")
)


def say_round(name: RoundName | None, number: int, sentence: RoundSentence, **values: Any) -> str:
    """`sentence` about the round `number` named `name` (None: a Swiss round), in the
    active language, its placeholders filled in. The sentence is picked by the round's
    size, never by its name's words."""
    swiss, named = sentence
    matches = name.playoff_matches if name is not None else None
    text = named.get(matches, swiss) if matches is not None else swiss
    return gettext(text) % {"number": number, **values}


def say_about(round_: Round, sentence: RoundSentence, **values: Any) -> str:
    """`say_round` for a round row (a top cut's round is named by its matches: a query)."""
    return say_round(round_label(round_), round_.number, sentence, **values)


def refusal_about(round_: Round, refusal: RoundRefusal, **values: Any) -> Message:
    """`refusal` about the round row `round_`, as `say_about` picks its sentence (by the
    round's size, never its name's words), as a Message: said where it is shown."""
    swiss, named = refusal
    name = round_label(round_)
    matches = name.playoff_matches if name is not None else None
    chosen = named.get(matches, swiss) if matches is not None else swiss
    return chosen(number=round_.number, **values)


def pair_next_round(
    *, tournament: Tournament, agreed_byes: Sequence[int] = (), by: Any = None
) -> Round:
    """Pair the next round by the tournament's system (all results must be in).

    `agreed_byes` (league only): player pks the organizer agreed to give a bye this
    round (shared/spec/scoring.md section 4: it scores the last-place 2 points).
    """
    with writing(tournament, by=by) as w:
        t = w.tournament
        last = current_round(t)
        if last is not None and (missing := missing_results(last)):
            raise ServiceError(refusal_about(last, STILL_MISSING, count=missing))
        if t.status == Status.FINISHED:
            raise ServiceError(FINISHED())
        if agreed_byes and t.system != System.LEAGUE:
            raise ServiceError(BYES_LEAGUE_ONLY())
        if t.check_in and last is None:
            _refuse_without_check_ins(t)
        matches: list[int] | None = None  # the new round's, when only they changed
        effects: list[tuple[str, str, str]] = []  # what pairing restrictions changed
        if t.status == Status.TOP_CUT:
            assert last is not None  # a top cut starts after a Swiss round
            round_ = pair_playoff_round(t, last)
        elif t.system == System.POD:
            round_ = _pair_pod(t)
        elif t.system == System.LEAGUE:
            round_ = _pair_league(t, last, agreed_byes)
        else:
            round_, matches, effects = _pair_swiss(t, last)
        if t.status == Status.REGISTRATION:
            t.status = Status.RUNNING
            t.save(update_fields=["status"])
        # A Swiss round: only its rows are new, and the standings add it to the scoring
        # snapshot's event instead of reading every match again.
        w.changed(matches=matches, paired=matches is not None)
        w.audit(
            AuditAction.PAIR,
            f"Paired round {round_.number}" + (" (top cut)" if round_.playoff else ""),
            after={
                "round": round_.number,
                "matches": len(matches) if matches is not None else round_.matches.count(),
                "playoff": round_.playoff,
            },
            round=round_.number,
        )
        note_effects(w, round_.number, effects)
        if round_.playoff:
            enter_walkovers(w, round_)
        push.record_pairing(round_)  # the subscribed players' notifications (issue 29)
    return round_


def _refuse_without_check_ins(t: Tournament) -> None:
    """Round 1 of an event using check-in pairs only who checked in: say so plainly when
    too few did, rather than the systems' general "too few players"."""
    checked_in = len(active_players(t))
    if checked_in < 2:
        waiting = t.players.filter(
            entry=Entry.ACCEPTED, dropped_after_round__isnull=True, checked_in_at__isnull=True
        ).count()
        raise ServiceError(TOO_FEW_CHECKED_IN(checked_in=checked_in, waiting=waiting))


def _met(
    t: Tournament, ext: dict[int, str] | None = None
) -> tuple[dict[int, tuple[str, ...]], set[int]]:
    """Per player pk, the ids of everyone they met (Swiss rounds); and who had a bye.
    `ext`: pk -> external id, when the caller has read it already."""
    history = _history(t)
    if ext is None:
        ext = dict(t.players.values_list("pk", "external_id"))
    opponents = {pk: tuple(ext[o] for o in info["opponents"]) for pk, info in history.items()}
    return opponents, {pk for pk, info in history.items() if info["bye"]}


def _swiss_history(t: Tournament) -> PairingHistory:
    """Who met whom, the byes and the standings' points: from the scoring snapshot when
    it knows them (no query), else read from the rows."""
    known = pairing_history(t)
    if known is not None and known.points is not None:
        return known
    points = list(Standing.objects.filter(tournament=t).values_list("player_id", "points"))
    if known is not None and all(pk in known.ext for pk, _ in points):
        return replace(known, points={known.ext[pk]: Fraction(value) for pk, value in points})
    ext = dict(t.players.values_list("pk", "external_id"))
    opponents, had_bye = _met(t, ext)
    return PairingHistory(
        ext=ext,
        opponents={ext[pk]: list(met) for pk, met in opponents.items()},
        byes={ext[pk] for pk in had_bye},
        points={ext[pk]: Fraction(value) for pk, value in points},
    )


def _pair_swiss(
    t: Tournament, last: Round | None
) -> tuple[Round, list[int], list[tuple[str, str, str]]]:
    players = active_ids(t)
    if len(players) < 2:
        raise ServiceError(TOO_FEW_ACTIVE())
    number = (last.number if last else 0) + 1
    pk_of = {e: pk for pk, e in players}
    history = _swiss_history(t)
    points = history.points
    assert points is not None
    field = [
        SwissPlayer(
            id=e,
            # Match points from the stored standings (Swiss rounds only).
            points=int(points.get(e, 0)),
            opponents=tuple(history.opponents.get(e, ())),
            had_bye=e in history.byes,
        )
        for _pk, e in players
    ]
    forbidden = forbidden_pairs(t)
    pairing = pair_swiss(field, round_rng(t, number), forbidden)
    effects = restriction_effects(field, pairing, forbidden, lambda: round_rng(t, number))
    round_, matches = _create_round(
        t,
        number=number,
        tables=[(pk_of[a], pk_of[b]) for a, b in pairing.tables],
        byes=[pk_of[pairing.bye]] if pairing.bye else [],
        # The stored standings are those before this round: the points it is paired on.
        points={pk: points_stored(points[e]) for pk, e in history.ext.items() if e in points},
    )
    return round_, matches, effects


def _create_round(
    t: Tournament,
    *,
    number: int,
    tables: Sequence[tuple[int, int]],
    byes: Sequence[int],
    points: dict[int, Decimal],
) -> tuple[Round, list[int]]:
    """A paired Swiss round's rows, as services.seating.create_round writes them (the
    tables in order, then a bye "table" for each bye; each seat with the points it was
    paired on), in three statements whatever the size; returns the round and its
    matches' pks. Through the ORM, 4,096 matches and 8,192 seats took over a second to
    build and send (issue 26)."""
    round_ = Round.objects.create(tournament=t, number=number, phase=t.phase, playoff=False)
    groups = [*tables, *((pk,) for pk in byes)]
    numbers = table_numbers(t, tables, len(byes))  # fixed seats (services.fixed_seats)
    q = connection.ops.quote_name
    match_table, seat_table, table = (
        q(Match._meta.db_table),
        q(Seat._meta.db_table),
        q("table"),
    )
    columns = "match_id, round_id, player_id, position, absent, points_at_pairing"
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # One statement: the matches, then their seats joined to the new matches by
            # table number. The arrays go as text literals: psycopg adapting 24,000
            # numbers one by one took 35 ms of the 8,192-player click (issue 26).
            at_table, player, position, at_pairing = [], [], [], []
            for n, group in zip(numbers, groups, strict=True):
                for seat, pk in enumerate(group):
                    at_table.append(str(n))
                    player.append(str(pk))
                    position.append(str(seat))
                    value = points.get(pk)
                    at_pairing.append("NULL" if value is None else str(value))
            cursor.execute(
                f"WITH m AS (INSERT INTO {match_table} (round_id, {table}, kind, reported, draws)"
                " SELECT %s, n, CASE WHEN k <= %s THEN %s ELSE %s END, k > %s, 0"
                f" FROM unnest(%s::int[]) WITH ORDINALITY AS t(n, k) RETURNING id, {table} AS n),"
                f" s AS (INSERT INTO {seat_table} ({columns}) SELECT m.id, %s, s.p, s.pos, false, s.v"
                " FROM unnest(%s::int[], %s::int[], %s::int[], %s::numeric[]) AS s(n, p, pos, v)"
                " JOIN m ON m.n = s.n)"
                " SELECT id, n FROM m",
                [round_.pk, len(tables), MatchKind.PLAYED, MatchKind.BYE, len(tables),
                 "{" + ",".join(map(str, numbers)) + "}", round_.pk, *(
                    "{" + ",".join(values) + "}"
                    for values in (at_table, player, position, at_pairing)
                )],
            )  # fmt: skip
            match_of = {n: pk for pk, n in cursor.fetchall()}
        else:
            cursor.executemany(
                f"INSERT INTO {match_table} (round_id, {table}, kind, reported, draws)"
                " VALUES (%s, %s, %s, %s, 0)",
                [
                    (round_.pk, n, MatchKind.PLAYED if k <= len(tables) else MatchKind.BYE,
                     k > len(tables))
                    for k, n in enumerate(numbers, start=1)
                ],
            )  # fmt: skip
            cursor.execute(
                f"SELECT id, {table} FROM {match_table} WHERE round_id = %s", [round_.pk]
            )
            match_of = {n: pk for pk, n in cursor.fetchall()}
            cursor.executemany(
                f"INSERT INTO {seat_table} ({columns}) VALUES (%s, %s, %s, %s, false, %s)",
                [
                    (match_of[n], round_.pk, pk, seat, points.get(pk))
                    for n, group in zip(numbers, groups, strict=True)
                    for seat, pk in enumerate(group)
                ],
            )
    return round_, [match_of[n] for n in numbers]


def _pair_league(t: Tournament, last: Round | None, agreed_byes: Sequence[int]) -> Round:
    players = active_players(t)
    wanted = set(agreed_byes)
    resting = [p for p in players if p.pk in wanted]
    if len(resting) != len(wanted):
        raise ServiceError(BYE_NOT_ACTIVE())
    players = [p for p in players if p.pk not in wanted]
    if len(players) < 3:
        raise ServiceError(LEAGUE_TOO_FEW())
    number = (last.number if last else 0) + 1
    by_ext = {p.external_id: p for p in players}
    opponents, _byes = _met(t)
    seating = seat_tables(
        [TablePlayer(id=p.external_id, opponents=opponents.get(p.pk, ())) for p in players],
        round_rng(t, number),
    )
    return create_round(
        t,
        number=number,
        kind=MatchKind.GAME,
        tables=[[by_ext[i] for i in table] for table in seating.tables],
        byes=resting,
    )


def _pair_pod(t: Tournament) -> Round:
    """A pod is paired all at once: the whole round-robin schedule (circle method)."""
    if t.rounds.exists():
        raise ServiceError(POD_PAIRED())
    players = active_players(t)
    if len(players) < 3:
        raise ServiceError(POD_TOO_FEW())
    by_ext = {p.external_id: p for p in players}
    schedule = round_robin_schedule([p.external_id for p in players], round_rng(t, 1))
    first = None
    for number, rr in enumerate(schedule, start=1):
        round_ = create_round(
            t,
            number=number,
            tables=[[by_ext[a], by_ext[b]] for a, b in rr.pairs],
            byes=[by_ext[rr.bye]] if rr.bye else [],
            with_points=False,  # every round is paired now: points then are not known
        )
        first = first or round_
    assert first is not None
    return first


def undo_round(*, tournament: Tournament, by: Any = None) -> int:
    """Remove the current round's pairing while it has no results; returns its number."""
    with writing(tournament, by=by) as w:
        t = w.tournament
        last = current_round(t)
        if last is None:
            raise ServiceError(NOTHING_TO_UNDO())
        if last.matches.filter(
            kind__in=[MatchKind.PLAYED, MatchKind.GAME, MatchKind.DOUBLE_LOSS], reported=True
        ).exists():
            raise ServiceError(refusal_about(last, HAS_RESULTS))
        number = last.number
        if t.system == System.POD:
            # The schedule was made at once; undo removes every round still without results.
            for r in t.rounds.order_by("-number"):
                if r.matches.filter(kind=MatchKind.PLAYED, reported=True).exists():
                    break
                r.delete()
        else:
            last.delete()
        if last.playoff and not t.rounds.filter(playoff=True).exists():
            t.status = Status.RUNNING
        elif not t.rounds.exists():
            t.status = Status.REGISTRATION
        t.save(update_fields=["status"])
        w.changed()
        w.audit(
            AuditAction.UNDO,
            f"Undid the pairing of round {number}",
            before={"round": number},
            round=number,
        )
    return number


def cut_to_next_phase(
    *,
    tournament: Tournament,
    min_points: int | None = None,
    top: int | None = None,
    by: Any = None,
) -> list[Player]:
    """Day-2 cut: only players with at least `min_points` (or the top N) play the next phase."""
    if (min_points is None) == (top is None):
        raise ServiceError(CUT_ONE_WAY())
    with writing(tournament, by=by) as w:
        t = w.tournament
        last = current_round(t)
        if last is None:
            raise ServiceError(CUT_TOO_EARLY())
        if missing := missing_results(last):
            raise ServiceError(refusal_about(last, MISSING_BEFORE_CUT, count=missing))
        standings = Standing.objects.filter(
            tournament=t,
            player__dropped_after_round__isnull=True,
            player__in=active_players(t),
        ).order_by("position")
        if top is not None:
            if top < 2:
                raise ServiceError(CUT_TOP_TOO_SMALL())
            advancing = [s.player for s in standings.select_related("player")[:top]]
        else:
            advancing = [
                s.player for s in standings.select_related("player") if s.points >= min_points
            ]
        if len(advancing) < 2:
            raise ServiceError(CUT_TOO_FEW())
        t.phase += 1
        t.save(update_fields=["phase"])
        Player.objects.filter(pk__in=[p.pk for p in advancing]).update(made_phase=t.phase)
        # Phases decide the freeze of the standings only through rounds played in them,
        # so the standings themselves do not change until the next round is paired.
        w.touched()
        rule = f"top {top}" if top is not None else f"{min_points} points or more"
        w.audit(
            AuditAction.CUT,
            f"Cut to phase {t.phase} ({rule}): {len(advancing)} players advance",
            after={
                "phase": t.phase,
                "players": [p.external_id for p in advancing],
                "top": top,
                "min_points": min_points,
            },
            players=advancing,
        )
    return advancing
