"""The only writers. Each service owns its transaction and the tournament lock, and
calls the standings recompute explicitly (no signals, no logic in save())."""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import F, Max
from django.utils import timezone

from scoring.services import recompute
from tournaments.models import (
    AuditAction,
    AuditEntry,
    Match,
    MatchKind,
    Player,
    Round,
    Seat,
    Status,
    System,
    Tournament,
)


class ServiceError(ValueError):
    """A refused write; the message is shown to the user as is."""


def new_seed() -> int:
    return secrets.randbelow(2**62)


def lock(tournament: Tournament | int) -> Tournament:
    """Lock the tournament row for the rest of the transaction.

    Every write goes through here first, so writes to one tournament are serialised
    (select_for_update on PostgreSQL; SQLite's IMMEDIATE transactions lock the file).
    """
    pk = tournament.pk if isinstance(tournament, Tournament) else tournament
    return Tournament.objects.select_for_update().get(pk=pk)


def touch(tournament: Tournament, *, scoring_inputs: bool = True) -> None:
    """A new version of the tournament: live pages change their ETag and fragments.

    `scoring_inputs=False` for writes the standings do not depend on (names, clock,
    staff, plans, status): other processes' scoring snapshots then stay usable.
    """
    from scoring.services import record_change
    from tournaments.live import warm

    Tournament.objects.filter(pk=tournament.pk).update(version=F("version") + 1)
    tournament.refresh_from_db(fields=["version"])
    if not scoring_inputs:
        record_change(tournament, [])
    pk = tournament.pk
    transaction.on_commit(lambda: warm(pk))


def audit(
    tournament: Tournament,
    by: Any,
    action: str,
    summary: str,
    *,
    before: Any = None,
    after: Any = None,
) -> None:
    """Record a change in the tournament's audit log, inside the caller's transaction."""
    AuditEntry.objects.create(
        tournament=tournament,
        user=by if getattr(by, "is_authenticated", False) else None,
        action=action,
        summary=summary[:300],
        before=before,
        after=after,
    )


def create_tournament(
    *,
    name: str,
    system: str = System.MTR,
    best_of: int = 3,
    planned_rounds: int | None = None,
    top_cut: int = 0,
    seed: int | None = None,
    owner: object = None,
) -> Tournament:
    from tournaments.interchange import unique_slug

    name = name.strip()
    if not name:
        raise ServiceError("The tournament needs a name.")
    if system not in System.values:
        raise ServiceError(f"Unknown scoring system {system!r}.")
    if best_of not in (1, 3):
        raise ServiceError("Matches are best of 1 or best of 3.")
    if top_cut not in (0, 2, 4, 8):
        raise ServiceError("The top cut is 0, 2, 4 or 8 players.")
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name,
            slug=unique_slug(name),
            system=system,
            best_of=1 if system == System.POD else best_of,
            planned_rounds=planned_rounds,
            top_cut=top_cut,
            seed=new_seed() if seed is None else seed,
            owner=owner,
        )
        recompute(tournament)
    return tournament


def register_players(
    *, tournament: Tournament, names: Sequence[str], by: Any = None
) -> list[Player]:
    """Add players (a late entry when rounds were already played: they start at 0)."""
    cleaned = [n.strip() for n in names if n.strip()]
    if not cleaned:
        raise ServiceError("Give at least one player name.")
    for line, name in enumerate(cleaned, start=1):
        if len(name) > 200:
            raise ServiceError(f"Line {line}: the name is longer than 200 characters.")
    with transaction.atomic():
        t = lock(tournament)
        taken = set(t.players.values_list("external_id", flat=True))
        players = []
        n = len(taken)
        for name in cleaned:
            n += 1
            while f"p{n}" in taken:
                n += 1
            taken.add(f"p{n}")
            players.append(Player(tournament=t, external_id=f"p{n}", name=name))
        Player.objects.bulk_create(players)
        touch(t)
        late = " (late entry)" if t.rounds.exists() else ""
        audit(
            t,
            by,
            AuditAction.REGISTER,
            f"Added {len(players)} player(s){late}: " + ", ".join(p.name for p in players),
            after=[p.name for p in players],
        )
        recompute(t)
    return players


def rename_player(*, player: Player, name: str, by: Any = None) -> Player:
    name = name.strip()
    if not name:
        raise ServiceError("The name must not be empty.")
    with transaction.atomic():
        t = lock(player.tournament_id)
        old = Player.objects.get(pk=player.pk).name
        Player.objects.filter(pk=player.pk).update(name=name)
        touch(t, scoring_inputs=False)
        audit(t, by, AuditAction.RENAME, f"Renamed {old} to {name}", before=old, after=name)
    player.name = name
    return player


def drop_player(*, player: Player, by: Any = None) -> Player:
    with transaction.atomic():
        t = lock(player.tournament_id)
        last = t.rounds.aggregate(n=Max("number"))["n"] or 0
        player.dropped_after_round = last
        Player.objects.filter(pk=player.pk).update(dropped_after_round=last)
        touch(t)
        audit(
            t,
            by,
            AuditAction.DROP,
            f"{player.name} dropped after round {last}",
            before=None,
            after={"dropped_after_round": last},
        )
        recompute(t)
    return player


def readmit_player(*, player: Player, by: Any = None) -> Player:
    with transaction.atomic():
        t = lock(player.tournament_id)
        before = Player.objects.get(pk=player.pk).dropped_after_round
        audit(
            t,
            by,
            AuditAction.READMIT,
            f"{player.name} re-admitted",
            before={"dropped_after_round": before},
            after=None,
        )
        player.dropped_after_round = None
        Player.objects.filter(pk=player.pk).update(dropped_after_round=None)
        touch(t)
        recompute(t)
    return player


def check_two_player_result(*, best_of: int, wins: Sequence[int], draws: int) -> None:
    """Refuse what a best-of-N match cannot produce (MTR 2.3: first to N//2+1 games)."""
    if len(wins) != 2:
        raise ServiceError("A result gives the games won by each of the two players.")
    if any(w < 0 for w in wins) or draws < 0:
        raise ServiceError("Game counts cannot be negative.")
    need = best_of // 2 + 1
    if any(w > need for w in wins):
        raise ServiceError(f"In a best-of-{best_of} nobody wins more than {need} games.")
    if wins[0] == need and wins[1] == need:
        raise ServiceError("Both players cannot win the match.")
    # Unfinished games count as drawn, so 0-0-3 (an intentional draw) fits a best of 3.
    if sum(wins) + draws > best_of:
        raise ServiceError(f"A best-of-{best_of} has at most {best_of} games.")


UNDONE = "That match is no longer in the event: its round was undone. Reload the pairings."


def _tournament_of(match: Match) -> int:
    try:
        return match.round.tournament_id
    except Round.DoesNotExist:
        raise ServiceError(UNDONE) from None


def _locked_match(match: Match) -> Match:
    """The match as it is now, locked; refused if its round was undone meanwhile."""
    try:
        return Match.objects.select_for_update().select_related("round").get(pk=match.pk)
    except Match.DoesNotExist:
        raise ServiceError(UNDONE) from None


def _result_state(match: Match, seats: Sequence[Seat]) -> dict[str, Any]:
    return {
        "reported": match.reported,
        "kind": match.kind,
        "wins": [s.games_won for s in seats] if match.reported else None,
        "draws": match.draws if match.reported else None,
    }


def _result_words(state: dict[str, Any]) -> str:
    if not state["reported"]:
        return "cleared"
    if state["kind"] == MatchKind.DOUBLE_LOSS:
        return "double loss"
    text = "-".join(str(w) for w in state["wins"])
    return f"{text}-{state['draws']}" if state["draws"] else text


def _game_state(match: Match, seats: Sequence[Seat]) -> dict[str, Any]:
    return {
        "reported": match.reported,
        "places": {s.player.external_id: s.place for s in seats if not s.absent},
        "scores": {s.player.external_id: str(s.score) for s in seats if s.score is not None},
        "absent": [s.player.external_id for s in seats if s.absent],
    }


def record_result(
    *,
    match: Match,
    wins: Sequence[int] | None,
    draws: int = 0,
    double_loss: bool = False,
    validate: bool = True,
    by: Any = None,
) -> Match:
    """Enter or correct a two-player result; wins None clears it. Recomputes standings."""
    with transaction.atomic():
        t = lock(_tournament_of(match))
        match = _locked_match(match)
        if match.kind not in (MatchKind.PLAYED, MatchKind.DOUBLE_LOSS):
            raise ServiceError("Byes and losses without an opponent have no result to enter.")
        if match.round.playoff and wins is not None and (double_loss or wins[0] == wins[1]):
            raise ServiceError("A playoff match needs a winner.")
        if wins is not None and validate and not double_loss:
            check_two_player_result(best_of=t.best_of, wins=wins, draws=draws)
        seats = list(match.seats.order_by("position").select_related("player"))
        before = _result_state(match, seats)
        for seat, won in zip(seats, wins if wins is not None else (None, None), strict=True):
            seat.games_won = won
        Seat.objects.bulk_update(seats, ["games_won"])
        match.reported = wins is not None
        match.draws = draws if wins is not None else 0
        match.kind = MatchKind.DOUBLE_LOSS if double_loss else MatchKind.PLAYED
        match.save(update_fields=["reported", "draws", "kind"])
        after = _result_state(match, seats)
        if after == before:
            return match  # the same result again: nothing to write, nothing to recompute
        touch(t)
        names = " vs ".join(s.player.name for s in seats)
        verb = "Corrected" if before["reported"] else "Entered"
        audit(
            t,
            by,
            AuditAction.RESULT,
            f"{verb} round {match.round.number} table {match.table} ({names}): "
            f"{_result_words(after)}",
            before=before,
            after=after,
        )
        recompute(t, changed_matches=[match.pk])
    return match


def record_game(
    *,
    match: Match,
    places: Sequence[int] | None,
    scores: Sequence[Decimal | int] | None,
    absent: Sequence[int] = (),
    by: Any = None,
) -> Match:
    """Enter a league table's places and raw scores; `absent` are player pks who missed it."""
    with transaction.atomic():
        t = lock(_tournament_of(match))
        match = _locked_match(match)
        if match.kind != MatchKind.GAME:
            raise ServiceError("Only a league table takes places and scores.")
        seats = list(match.seats.order_by("position").select_related("player"))
        before = _game_state(match, seats)
        for seat in seats:
            seat.absent = seat.player_id in set(absent)
        present = [s for s in seats if not s.absent]
        if places is not None:
            if scores is None or len(places) != len(present) or len(scores) != len(present):
                raise ServiceError("Give a place and a score for every player at the table.")
            if len(present) < 3:
                raise ServiceError("A game needs at least 3 players who played.")
            for p in places:
                if not 1 <= p <= len(present) or p != 1 + sum(1 for q in places if q < p):
                    raise ServiceError(f"Place {p} does not fit a table of {len(present)}.")
        for k, seat in enumerate(present):
            seat.place = places[k] if places is not None else None
            seat.score = Decimal(str(scores[k])) if scores is not None else None
        for seat in seats:
            if seat.absent:
                seat.place = seat.score = None
        Seat.objects.bulk_update(seats, ["absent", "place", "score"])
        match.reported = places is not None
        match.save(update_fields=["reported"])
        touch(t)
        audit(
            t,
            by,
            AuditAction.GAME,
            f"Round {match.round.number} table {match.table}: places and scores entered",
            before=before,
            after=_game_state(match, seats),
        )
        recompute(t, changed_matches=[match.pk])
    return match


# --- Pairing ---------------------------------------------------------------------------


def round_rng(tournament: Tournament, number: int) -> random.Random:
    """The seeded randomness for one round: the same event and round pair the same way."""
    return random.Random(f"{tournament.seed}/round/{number}")


def current_round(tournament: Tournament) -> Round | None:
    return tournament.rounds.order_by("-number").first()


def missing_results(round_: Round) -> int:
    return round_.matches.filter(
        kind__in=[MatchKind.PLAYED, MatchKind.GAME], reported=False
    ).count()


def _history(tournament: Tournament) -> dict[int, dict[str, object]]:
    """Per player pk: points in the current phase, previous opponents, byes (no playoffs)."""
    info: dict[int, dict[str, object]] = {}
    seats = (
        Seat.objects.filter(round__tournament=tournament, round__playoff=False, absent=False)
        .order_by("match_id", "position")
        .values_list("match_id", "player_id", "match__kind", "match__round__phase")
    )
    by_match: dict[int, list[tuple[int, str, int]]] = {}
    for match_id, player_id, kind, phase in seats:
        by_match.setdefault(match_id, []).append((player_id, kind, phase))
    for members in by_match.values():
        ids = [pid for pid, _, _ in members]
        for pid, kind, _phase in members:
            entry = info.setdefault(pid, {"opponents": [], "bye": False})
            if kind == MatchKind.BYE:
                entry["bye"] = True
            else:
                entry["opponents"].extend(o for o in ids if o != pid)  # type: ignore[union-attr]
    return info


def _active_players(tournament: Tournament) -> list[Player]:
    players = tournament.players.filter(dropped_after_round__isnull=True)
    if tournament.phase > 1:
        players = players.filter(made_phase__gte=tournament.phase)
    return list(players.order_by("id"))


def _create_round(
    tournament: Tournament,
    *,
    number: int,
    tables: Sequence[Sequence[Player]],
    byes: Sequence[Player] = (),
    playoff: bool = False,
    kind: str = MatchKind.PLAYED,
    phase: int | None = None,
) -> Round:
    """A paired round: the tables in order, then a bye "table" for each bye."""
    round_ = Round.objects.create(
        tournament=tournament, number=number, phase=phase or tournament.phase, playoff=playoff
    )
    groups = [*tables, *([p] for p in byes)]
    matches = [
        Match(
            round=round_,
            table=k,
            kind=kind if k <= len(tables) else MatchKind.BYE,
            reported=k > len(tables),
        )
        for k in range(1, len(groups) + 1)
    ]
    Match.objects.bulk_create(matches)
    seats = [
        Seat(match=match, round=round_, player=player, position=k)
        for match, group in zip(matches, groups, strict=True)
        for k, player in enumerate(group)
    ]
    Seat.objects.bulk_create(seats, batch_size=2000)
    return round_


def pair_next_round(
    *, tournament: Tournament, agreed_byes: Sequence[int] = (), by: Any = None
) -> Round:
    """Pair the next round by the tournament's system (all results must be in).

    `agreed_byes` (league only): player pks the organizer agreed to give a bye this
    round (shared/spec/scoring.md section 4: it scores the last-place 2 points).
    """
    from tournaments.pairing.swiss import SwissPlayer, pair_swiss
    from tournaments.pairing.tables import TablePlayer, seat_tables

    with transaction.atomic():
        t = lock(tournament)
        last = current_round(t)
        if last is not None and (missing := missing_results(last)):
            raise ServiceError(
                f"Round {last.number} still has {missing} result(s) missing: enter them first."
            )
        if t.status == Status.FINISHED:
            raise ServiceError("The tournament is finished.")
        if t.status == Status.TOP_CUT:
            round_ = _pair_playoff_round(t, last)
        elif t.system == System.POD:
            round_ = _pair_pod(t)
        else:
            players = _active_players(t)
            if len(players) < 2:
                raise ServiceError("At least two active players are needed to pair a round.")
            number = (last.number if last else 0) + 1
            rng = round_rng(t, number)
            by_ext = {p.external_id: p for p in players}
            history = _history(t)
            ext = {p.pk: p.external_id for p in t.players.all()}
            if agreed_byes and t.system != System.LEAGUE:
                raise ServiceError("Agreed byes are for league rounds only.")
            if t.system == System.LEAGUE:
                resting = [p for p in players if p.pk in set(agreed_byes)]
                if len(resting) != len(set(agreed_byes)):
                    raise ServiceError("An agreed bye must go to an active player of this event.")
                players = [p for p in players if p.pk not in set(agreed_byes)]
                if len(players) < 3:
                    raise ServiceError("A league table needs at least three active players.")
                seating = seat_tables(
                    [
                        TablePlayer(
                            id=p.external_id,
                            opponents=tuple(
                                ext[o] for o in history.get(p.pk, {}).get("opponents", [])
                            ),
                        )
                        for p in players
                    ],
                    rng,
                )
                round_ = _create_round(
                    t,
                    number=number,
                    kind=MatchKind.GAME,
                    tables=[[by_ext[i] for i in table] for table in seating.tables],
                    byes=resting,
                )
            else:
                points = _phase_points(t)
                pairing = pair_swiss(
                    [
                        SwissPlayer(
                            id=p.external_id,
                            points=points.get(p.pk, 0),
                            opponents=tuple(
                                ext[o] for o in history.get(p.pk, {}).get("opponents", [])
                            ),
                            had_bye=bool(history.get(p.pk, {}).get("bye")),
                        )
                        for p in players
                    ],
                    rng,
                )
                round_ = _create_round(
                    t,
                    number=number,
                    tables=[[by_ext[a], by_ext[b]] for a, b in pairing.tables],
                    byes=[by_ext[pairing.bye]] if pairing.bye else [],
                )
        if t.status == Status.REGISTRATION:
            t.status = Status.RUNNING
            t.save(update_fields=["status"])
        touch(t)
        audit(
            t,
            by,
            AuditAction.PAIR,
            f"Paired round {round_.number}" + (" (top cut)" if round_.playoff else ""),
            after={"round": round_.number, "matches": round_.matches.count()},
        )
        recompute(t)
    return round_


def _phase_points(tournament: Tournament) -> dict[int, int]:
    """Match points from the stored standings (Swiss rounds only, never the playoff)."""
    from scoring.models import Standing

    return {
        pid: int(points)
        for pid, points in Standing.objects.filter(tournament=tournament).values_list(
            "player_id", "points"
        )
    }


def _pair_pod(t: Tournament) -> Round:
    """A pod is paired all at once: the whole round-robin schedule (circle method)."""
    from tournaments.pairing.round_robin import round_robin_schedule

    if t.rounds.exists():
        raise ServiceError("The pod's round robin is already paired: enter the results.")
    players = _active_players(t)
    if len(players) < 3:
        raise ServiceError("A pod needs at least three players.")
    by_ext = {p.external_id: p for p in players}
    schedule = round_robin_schedule([p.external_id for p in players], round_rng(t, 1))
    first = None
    for number, rr in enumerate(schedule, start=1):
        round_ = _create_round(
            t,
            number=number,
            tables=[[by_ext[a], by_ext[b]] for a, b in rr.pairs],
            byes=[by_ext[rr.bye]] if rr.bye else [],
        )
        first = first or round_
    assert first is not None
    return first


def undo_round(*, tournament: Tournament, by: Any = None) -> int:
    """Remove the current round's pairing while it has no results; returns its number."""
    with transaction.atomic():
        t = lock(tournament)
        last = current_round(t)
        if last is None:
            raise ServiceError("There is no round to undo.")
        if last.matches.filter(
            kind__in=[MatchKind.PLAYED, MatchKind.GAME, MatchKind.DOUBLE_LOSS], reported=True
        ).exists():
            raise ServiceError(
                f"Round {last.number} already has results: clear them before undoing the pairing."
            )
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
        touch(t)
        audit(
            t,
            by,
            AuditAction.UNDO,
            f"Undid the pairing of round {number}",
            before={"round": number},
            after=None,
        )
        recompute(t)
    return number


def cut_to_next_phase(
    *,
    tournament: Tournament,
    min_points: int | None = None,
    top: int | None = None,
    by: Any = None,
) -> list[Player]:
    """Day-2 cut: only players with at least `min_points` (or the top N) play the next phase."""
    from scoring.models import Standing

    if (min_points is None) == (top is None):
        raise ServiceError("Cut by a match-point threshold or by a number of players, not both.")
    with transaction.atomic():
        t = lock(tournament)
        last = current_round(t)
        if last is None:
            raise ServiceError("Play at least one round before a cut.")
        if missing := missing_results(last):
            raise ServiceError(f"Round {last.number} still has {missing} result(s) missing.")
        standings = Standing.objects.filter(
            tournament=t,
            player__dropped_after_round__isnull=True,
            player__in=_active_players(t),
        ).order_by("position")
        if top is not None:
            if top < 2:
                raise ServiceError("At least two players must make the cut.")
            advancing = [s.player for s in standings.select_related("player")[:top]]
        else:
            advancing = [
                s.player for s in standings.select_related("player") if s.points >= min_points
            ]
        if len(advancing) < 2:
            raise ServiceError("Fewer than two players would make that cut.")
        t.phase += 1
        t.save(update_fields=["phase"])
        Player.objects.filter(pk__in=[p.pk for p in advancing]).update(made_phase=t.phase)
        touch(t, scoring_inputs=False)
        rule = f"top {top}" if top is not None else f"{min_points} points or more"
        audit(
            t,
            by,
            AuditAction.CUT,
            f"Cut to phase {t.phase} ({rule}): {len(advancing)} players advance",
            after={"phase": t.phase, "players": [p.external_id for p in advancing]},
        )
    return advancing


def start_top_cut(*, tournament: Tournament, size: int | None = None, by: Any = None) -> Round:
    """Single elimination for the top 8, 4 or 2 of the Swiss standings (1-8, 4-5, 2-7, 3-6)."""
    from scoring.models import Standing
    from tournaments.pairing.bracket import seed_top_cut

    with transaction.atomic():
        t = lock(tournament)
        size = size or t.top_cut
        if size not in (2, 4, 8):
            raise ServiceError("The top cut is 2, 4 or 8 players.")
        if t.status != Status.RUNNING:
            raise ServiceError("The top cut starts after the Swiss rounds.")
        last = current_round(t)
        if last is None or missing_results(last):
            raise ServiceError("Finish the Swiss rounds (every result in) before the top cut.")
        ranked = list(
            Standing.objects.filter(tournament=t, player__dropped_after_round__isnull=True)
            .order_by("position")
            .select_related("player")[:size]
        )
        if len(ranked) < size:
            raise ServiceError(f"A top {size} needs {size} players still in the event.")
        bracket = seed_top_cut([s.player.external_id for s in ranked], size)
        by_ext = {s.player.external_id: s.player for s in ranked}
        round_ = _create_round(
            t,
            number=last.number + 1,
            playoff=True,
            tables=[[by_ext[m.high], by_ext[m.low]] for m in bracket],
        )
        t.status = Status.TOP_CUT
        t.top_cut = size
        t.save(update_fields=["status", "top_cut"])
        touch(t)
        audit(
            t,
            by,
            AuditAction.TOP_CUT,
            f"Started the top {size}",
            after={"round": round_.number, "seeds": [s.player.external_id for s in ranked]},
        )
        recompute(t)
    return round_


def bracket_rounds(tournament: Tournament) -> list[list[tuple[Match, list[Seat]]]]:
    """The playoff rounds in bracket order: per round, (match, seats high-seed first)."""
    out = []
    for r in tournament.rounds.filter(playoff=True).order_by("number"):
        out.append(
            [
                (m, list(m.seats.order_by("position").select_related("player")))
                for m in r.matches.order_by("table")
            ]
        )
    return out


def winner(match: Match, seats: Sequence[Seat]) -> Seat | None:
    if not match.reported or len(seats) != 2 or seats[0].games_won == seats[1].games_won:
        return None
    return seats[0] if (seats[0].games_won or 0) > (seats[1].games_won or 0) else seats[1]


def _pair_playoff_round(t: Tournament, last: Round | None) -> Round:
    assert last is not None
    previous = bracket_rounds(t)[-1]
    winners = [winner(m, seats) for m, seats in previous]
    if any(w is None for w in winners):
        raise ServiceError("Every playoff match needs a winner first.")
    if len(winners) == 1:
        raise ServiceError("The final is decided: finish the tournament.")
    # Adjacent matches feed each other (1-8 with 4-5, 2-7 with 3-6); the better seed of
    # the two sits first, as the Swiss standings would have it.
    tables = []
    for a, b in zip(winners[0::2], winners[1::2], strict=True):
        pair = sorted([a.player, b.player], key=lambda p: _swiss_seed(t, p))  # type: ignore[union-attr]
        tables.append(pair)
    return _create_round(t, number=last.number + 1, playoff=True, tables=tables, phase=last.phase)


def _swiss_seed(t: Tournament, player: Player) -> int:
    first = t.rounds.filter(playoff=True).order_by("number").first()
    assert first is not None
    seat = Seat.objects.filter(round=first, player=player).select_related("match").get()
    from tournaments.pairing.bracket import BRACKET_SEEDS

    high, low = BRACKET_SEEDS[t.top_cut][seat.match.table - 1]
    return high if seat.position == 0 else low


def finish(*, tournament: Tournament, by: Any = None) -> None:
    with transaction.atomic():
        t = lock(tournament)
        last = current_round(t)
        if last is not None and missing_results(last):
            raise ServiceError("Some results are still missing.")
        if t.status == Status.TOP_CUT:
            rounds = bracket_rounds(t)
            if len(rounds[-1]) != 1 or winner(*rounds[-1][0]) is None:
                raise ServiceError("Play the top cut to its final first.")
        t.status = Status.FINISHED
        t.save(update_fields=["status"])
        touch(t, scoring_inputs=False)
        audit(t, by, AuditAction.FINISH, "Finished the tournament")


# --- Round clock -----------------------------------------------------------------------

DEFAULT_ROUND_MINUTES = 50  # MTR 2.5: a 50-minute minimum for a best-of-three round


def clock_remaining(round_: Round, now: datetime | None = None) -> timedelta | None:
    """Time left on the round clock (negative when over time), None if never started."""
    if round_.clock_paused_remaining is not None:
        return round_.clock_paused_remaining
    if round_.clock_ends_at is None:
        return None
    return round_.clock_ends_at - (now or timezone.now())


def _clock_round(round_: Round) -> tuple[Tournament, Round]:
    t = lock(round_.tournament_id)
    return t, Round.objects.get(pk=round_.pk)


def _clock_changed(t: Tournament, r: Round, by: Any, summary: str) -> None:
    r.save(update_fields=["clock_ends_at", "clock_paused_remaining"])
    touch(t, scoring_inputs=False)
    audit(t, by, AuditAction.CLOCK, f"Round {r.number}: {summary}")


def start_clock(*, round: Round, minutes: int = DEFAULT_ROUND_MINUTES, by: Any = None) -> Round:
    if not 1 <= minutes <= 600:
        raise ServiceError("A round lasts between 1 and 600 minutes.")
    with transaction.atomic():
        t, r = _clock_round(round)
        r.clock_ends_at = timezone.now() + timedelta(minutes=minutes)
        r.clock_paused_remaining = None
        _clock_changed(t, r, by, f"clock started, {minutes} minutes")
    return r


def pause_clock(*, round: Round, by: Any = None) -> Round:
    with transaction.atomic():
        t, r = _clock_round(round)
        if r.clock_ends_at is None:
            raise ServiceError("The clock is not running.")
        r.clock_paused_remaining = r.clock_ends_at - timezone.now()
        r.clock_ends_at = None
        _clock_changed(t, r, by, "clock paused")
    return r


def resume_clock(*, round: Round, by: Any = None) -> Round:
    with transaction.atomic():
        t, r = _clock_round(round)
        if r.clock_paused_remaining is None:
            raise ServiceError("The clock is not paused.")
        r.clock_ends_at = timezone.now() + r.clock_paused_remaining
        r.clock_paused_remaining = None
        _clock_changed(t, r, by, "clock resumed")
    return r


def add_clock_minutes(*, round: Round, minutes: int, by: Any = None) -> Round:
    if not -600 <= minutes <= 600 or minutes == 0:
        raise ServiceError("Add between 1 and 600 minutes (negative to take time away).")
    with transaction.atomic():
        t, r = _clock_round(round)
        delta = timedelta(minutes=minutes)
        if r.clock_paused_remaining is not None:
            r.clock_paused_remaining += delta
        elif r.clock_ends_at is not None:
            r.clock_ends_at += delta
        else:
            raise ServiceError("Start the clock first.")
        _clock_changed(t, r, by, f"{minutes:+d} minutes")
    return r


def update_plan(
    *, tournament: Tournament, planned_rounds: int | None, top_cut: int, by: Any = None
) -> Tournament:
    """Change the planned number of Swiss rounds and the top cut before they are played."""
    if planned_rounds is not None and not 1 <= planned_rounds <= 30:
        raise ServiceError("Plan between 1 and 30 Swiss rounds.")
    if top_cut not in (0, 2, 4, 8):
        raise ServiceError("The top cut is 0, 2, 4 or 8 players.")
    with transaction.atomic():
        t = lock(tournament)
        if t.status in (Status.TOP_CUT, Status.FINISHED) and top_cut != t.top_cut:
            raise ServiceError("The top cut has started: its size can no longer change.")
        before = {"planned_rounds": t.planned_rounds, "top_cut": t.top_cut}
        t.planned_rounds, t.top_cut = planned_rounds, top_cut
        t.save(update_fields=["planned_rounds", "top_cut"])
        touch(t, scoring_inputs=False)
        after = {"planned_rounds": planned_rounds, "top_cut": top_cut}
        audit(t, by, AuditAction.PLAN, f"Planned {planned_rounds or 'open'} Swiss rounds, "
              f"top {top_cut or 'none'}", before=before, after=after)  # fmt: skip
    return t


# --- Staff -----------------------------------------------------------------------------


def add_staff(*, tournament: Tournament, username: str, by: Any = None) -> Any:
    """The owner adds a staff member by username; staff may run the event like the owner."""
    from django.contrib.auth import get_user_model

    username = username.strip()
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise ServiceError(f"There is no user called {username!r}.")
    with transaction.atomic():
        t = lock(tournament)
        if user.pk == t.owner_id:
            raise ServiceError(f"{username} owns this tournament already.")
        if t.staff.filter(pk=user.pk).exists():
            raise ServiceError(f"{username} is staff already.")
        t.staff.add(user)
        touch(t, scoring_inputs=False)
        audit(t, by, AuditAction.STAFF, f"Added {username} to the staff", after=username)
    return user


def remove_staff(*, tournament: Tournament, user_id: int, by: Any = None) -> None:
    with transaction.atomic():
        t = lock(tournament)
        user = t.staff.filter(pk=user_id).first()
        if user is None:
            raise ServiceError("That user is not on the staff.")
        t.staff.remove(user)
        touch(t, scoring_inputs=False)
        audit(t, by, AuditAction.STAFF, f"Removed {user.get_username()} from the staff",
              before=user.get_username())  # fmt: skip
