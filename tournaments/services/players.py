"""Players: register (late entries too), rename, drop, re-admit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Max
from django.utils import timezone

from tournaments.domain import cut_drop
from tournaments.models import AuditAction, Player
from tournaments.services.playoff import concede, cut_facts
from tournaments.services.writing import ServiceError, writing

MAX_NAME = 200  # Player.name's max_length


class DuplicateNames(ServiceError):
    """Names already registered: the caller asks, then registers with `allow_duplicates`."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        listed = ", ".join(names)
        super().__init__(
            f"Already registered: {listed}. Add {'them' if len(names) > 1 else 'it'} again "
            "only for a different person with the same name."
        )


def register_players(
    *, tournament: Any, names: Sequence[str], allow_duplicates: bool = False, by: Any = None
) -> list[Player]:
    """Add players (a late entry when rounds were already played: they start at 0).

    A name already registered (or given twice) is refused with DuplicateNames unless
    `allow_duplicates`: two people may share a name, but it is usually a typo twice.
    A round-robin pod takes no late entry: its whole schedule was paired at once.
    """
    cleaned = [n.strip() for n in names if n.strip()]
    if not cleaned:
        raise ServiceError("Give at least one player name.")
    for line, name in enumerate(cleaned, start=1):
        if len(name) > MAX_NAME:
            raise ServiceError(f"Line {line}: the name is longer than {MAX_NAME} characters.")
    with writing(tournament, by=by) as w:
        t = w.tournament
        if t.system == "pod" and t.rounds.exists():
            raise ServiceError(
                "The pod's round robin is already paired, all rounds at once: a late entry "
                "would never be paired. Undo the pairing (before any result) to add players."
            )
        if not allow_duplicates:
            known = {n.casefold() for n in t.players.values_list("name", flat=True)}
            seen: set[str] = set()
            twice = []
            for name in cleaned:
                key = name.casefold()
                if key in known or key in seen:
                    twice.append(name)
                seen.add(key)
            if twice:
                raise DuplicateNames(twice)
        taken = set(t.players.values_list("external_id", flat=True))
        # With check-in used, a late entry the organizer adds is at the venue: it is
        # paired from the next round (services.seating pairs checked-in players only).
        present = timezone.now() if t.check_in and t.rounds.exists() else None
        players = []
        n = len(taken)
        for name in cleaned:
            n += 1
            while f"p{n}" in taken:
                n += 1
            taken.add(f"p{n}")
            players.append(
                Player(tournament=t, external_id=f"p{n}", name=name, checked_in_at=present)
            )
        Player.objects.bulk_create(players)
        late = " (late entry)" if t.rounds.exists() else ""
        w.changed()
        w.audit(
            AuditAction.REGISTER,
            f"Added {len(players)} player(s){late}: " + ", ".join(p.name for p in players),
            after={"names": [p.name for p in players], "late": bool(late)},
            players=players,
        )
    return players


def rename_player(*, player: Player, name: str, by: Any = None) -> Player:
    name = name.strip()
    if not name:
        raise ServiceError("The name must not be empty.")
    if len(name) > MAX_NAME:
        raise ServiceError(f"The name is longer than {MAX_NAME} characters.")
    with writing(player.tournament_id, by=by) as w:
        old = Player.objects.get(pk=player.pk).name
        if old == name:
            return player
        Player.objects.filter(pk=player.pk).update(name=name)
        w.touched()  # names are not a scoring input
        w.audit(
            AuditAction.RENAME,
            f"Renamed {old} to {name}",
            before=old,
            after=name,
            players=[(player.external_id, old), (player.external_id, name)],
        )
    player.name = name
    return player


def drop_player(*, player: Player, by: Any = None) -> Player:
    """The organizer drops a player after the last round paired. During the top cut it
    concedes their playoff match (services.playoff)."""
    with writing(player.tournament_id, by=by) as w:
        last = w.tournament.rounds.aggregate(n=Max("number"))["n"] or 0
        # The row as it is under the lock: a player already dropped concedes nothing again.
        stored = Player.objects.filter(pk=player.pk).values_list("dropped_after_round", flat=True)
        player.dropped_after_round = stored.first()
        cut = cut_drop(w.tournament, player)
        player.dropped_after_round = last
        player.dropped_by_player = False
        Player.objects.filter(pk=player.pk).update(
            dropped_after_round=last, dropped_by_player=False
        )
        w.changed()
        w.audit(
            AuditAction.DROP,
            f"{player.name} dropped after round {last}",
            after={"dropped_after_round": last, **cut_facts(cut)},
            round=last or None,
            players=[player],
        )
        concede(w, player, cut)
    return player


def readmit_player(*, player: Player, by: Any = None) -> Player:
    with writing(player.tournament_id, by=by) as w:
        before = Player.objects.get(pk=player.pk).dropped_after_round
        player.dropped_after_round = None
        player.dropped_by_player = False
        Player.objects.filter(pk=player.pk).update(
            dropped_after_round=None, dropped_by_player=False
        )
        w.changed()
        w.audit(
            AuditAction.READMIT,
            f"{player.name} re-admitted",
            before={"dropped_after_round": before},
            round=before or None,
            players=[player],
        )
    return player


def remove_player(*, player: Player, by: Any = None) -> str:
    """Remove a player entered by mistake, while they have never been paired."""
    with writing(player.tournament_id, by=by) as w:
        found = Player.objects.filter(pk=player.pk, tournament=w.tournament).first()
        if found is None:
            raise ServiceError("That player is not in this event.")
        if found.seats.exists():
            raise ServiceError(
                f"{found.name} has been paired already: drop them instead (their results stay)."
            )
        found.delete()
        w.changed()
        w.audit(
            AuditAction.REMOVE,
            f"Removed {found.name} (never paired)",
            before=found.name,
            players=[found],
        )
    return found.name
