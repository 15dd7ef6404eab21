"""The only writers. Each service owns its transaction and the tournament lock, and
calls the standings recompute explicitly (no signals, no logic in save())."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from decimal import Decimal

from django.db import transaction
from django.db.models import F, Max

from scoring.services import recompute
from tournaments.models import Match, MatchKind, Player, Round, Seat, Status, System, Tournament


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


def touch(tournament: Tournament) -> None:
    Tournament.objects.filter(pk=tournament.pk).update(version=F("version") + 1)
    tournament.refresh_from_db(fields=["version"])


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
    from tournaments.interchange import _unique_slug

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
            slug=_unique_slug(name),
            system=system,
            best_of=1 if system == System.POD else best_of,
            planned_rounds=planned_rounds,
            top_cut=top_cut,
            seed=new_seed() if seed is None else seed,
            owner=owner,
        )
        recompute(tournament)
    return tournament


def _next_external_id(tournament: Tournament) -> str:
    taken = set(tournament.players.values_list("external_id", flat=True))
    n = len(taken) + 1
    while f"p{n}" in taken:
        n += 1
    return f"p{n}"


def register_players(*, tournament: Tournament, names: Sequence[str]) -> list[Player]:
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
        recompute(t)
    return players


def rename_player(*, player: Player, name: str) -> Player:
    name = name.strip()
    if not name:
        raise ServiceError("The name must not be empty.")
    with transaction.atomic():
        t = lock(player.tournament_id)
        Player.objects.filter(pk=player.pk).update(name=name)
        touch(t)
    player.name = name
    return player


def drop_player(*, player: Player) -> Player:
    with transaction.atomic():
        t = lock(player.tournament_id)
        last = t.rounds.aggregate(n=Max("number"))["n"] or 0
        player.dropped_after_round = last
        Player.objects.filter(pk=player.pk).update(dropped_after_round=last)
        touch(t)
        recompute(t)
    return player


def readmit_player(*, player: Player) -> Player:
    with transaction.atomic():
        t = lock(player.tournament_id)
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
    if sum(wins) + draws > best_of and draws != 3:
        # 0-0-3 is the conventional intentional draw in a best-of-three.
        raise ServiceError(f"A best-of-{best_of} has at most {best_of} games.")
    if draws == 3 and sum(wins) and best_of == 3:
        raise ServiceError("A best-of-3 has at most 3 games.")


def record_result(
    *,
    match: Match,
    wins: Sequence[int] | None,
    draws: int = 0,
    double_loss: bool = False,
    validate: bool = True,
) -> Match:
    """Enter or correct a two-player result; wins None clears it. Recomputes standings."""
    with transaction.atomic():
        t = lock(match.round.tournament_id)
        match = Match.objects.select_for_update().select_related("round").get(pk=match.pk)
        if match.kind not in (MatchKind.PLAYED, MatchKind.DOUBLE_LOSS):
            raise ServiceError("Byes and losses without an opponent have no result to enter.")
        if match.round.playoff and wins is not None and (double_loss or wins[0] == wins[1]):
            raise ServiceError("A playoff match needs a winner.")
        if wins is not None and validate and not double_loss:
            check_two_player_result(best_of=t.best_of, wins=wins, draws=draws)
        seats = list(match.seats.order_by("position"))
        for seat, won in zip(seats, wins if wins is not None else (None, None), strict=True):
            seat.games_won = won
        Seat.objects.bulk_update(seats, ["games_won"])
        match.reported = wins is not None
        match.draws = draws if wins is not None else 0
        match.kind = MatchKind.DOUBLE_LOSS if double_loss else MatchKind.PLAYED
        match.save(update_fields=["reported", "draws", "kind"])
        touch(t)
        recompute(t, changed_matches=[match.pk])
    return match


def record_game(
    *,
    match: Match,
    places: Sequence[int] | None,
    scores: Sequence[Decimal | int] | None,
    absent: Sequence[int] = (),
) -> Match:
    """Enter a league table's places and raw scores; `absent` are player pks who missed it."""
    with transaction.atomic():
        t = lock(match.round.tournament_id)
        match = Match.objects.select_for_update().get(pk=match.pk)
        if match.kind != MatchKind.GAME:
            raise ServiceError("Only a league table takes places and scores.")
        seats = list(match.seats.order_by("position"))
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
        recompute(t, changed_matches=[match.pk])
    return match


def set_status(*, tournament: Tournament, status: str) -> None:
    if status not in Status.values:
        raise ServiceError(f"Unknown status {status!r}.")
    with transaction.atomic():
        t = lock(tournament)
        t.status = status
        t.save(update_fields=["status"])
        touch(t)


def add_round(*, tournament: Tournament, phase: int = 1, playoff: bool = False) -> Round:
    last = tournament.rounds.aggregate(n=Max("number"))["n"] or 0
    return Round.objects.create(
        tournament=tournament, number=last + 1, phase=phase, playoff=playoff
    )
