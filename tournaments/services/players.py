"""Players: register (late entries too), rename, drop, re-admit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Max
from django.utils import timezone

from tournaments import names as name_rules
from tournaments.domain import CutDrop, cut_drop
from tournaments.messages import Message, gettext_noop, ngettext, template
from tournaments.models import AuditAction, Player
from tournaments.services.playoff import concede, cut_facts
from tournaments.services.registration import (
    ALREADY_PAIRED,
    NOT_IN_EVENT,
    new_player_ids,
    place_before_round_one,
)
from tournaments.services.writing import ServiceError, Write, writing

MAX_NAME = 200  # Player.name's max_length

# The refusals, said where they are shown (issue 36).
ALREADY_REGISTERED = template(
    "players.already_registered",
    ngettext(
        "Already registered: %(names)s. Add it again only for a different person "
        "with the same name.",
        "Already registered: %(names)s. Add them again only for a different person "
        "with the same name.",
        "count",
    ),
)
LOOKS_LIKE = template("players.looks_like", gettext_noop("%(new)s looks like %(old)s"))
PRINT_ALIKE = template(
    "players.print_alike",
    ngettext(
        "%(pairs)s (different letters that print alike). Add it only if that is right.",
        "%(pairs)s (different letters that print alike). Add them only if that is right.",
        "count",
    ),
)
# How the refusal strings its parts together, the same in every language (not marked:
# nothing to translate): the look-alike pairs, then the two sentences.
PAIRS = template("players.pairs", "%(first)s; %(rest)s")
SENTENCES = template("players.sentences", "%(first)s %(second)s")
LINE = template("players.line", gettext_noop("Line %(line)s: %(problem)s"))
NO_NAME_GIVEN = template("players.no_name_given", gettext_noop("Give at least one player name."))
POD_NO_LATE_PLAYERS = template(
    "players.pod_no_late_players",
    gettext_noop(
        "The pod's round robin is already paired, all rounds at once: a late entry "
        "would never be paired. Undo the pairing (before any result) to add players."
    ),
)
EMPTY_NAME = template("players.empty_name", gettext_noop("The name must not be empty."))


class DuplicateNames(ServiceError):
    """Names already registered, or looking like one (`lookalikes`: (new, existing) pairs):
    the caller asks, then registers with `allow_duplicates`."""

    def __init__(self, names: list[str], lookalikes: Sequence[tuple[str, str]] = ()) -> None:
        self.names = names
        self.lookalikes = list(lookalikes)
        parts: list[Message] = []
        if names:
            parts.append(ALREADY_REGISTERED(names=", ".join(names), count=len(names)))
        if self.lookalikes:
            # "Alex" in Latin letters and with a Cyrillic capital A print alike: a player
            # looking for their name on the pairings could take the other's seat.
            pairs = [LOOKS_LIKE(new=new, old=old) for new, old in self.lookalikes]
            listed = pairs[0]
            for pair in pairs[1:]:
                listed = PAIRS(first=listed, rest=pair)
            parts.append(PRINT_ALIKE(pairs=listed, count=len(pairs)))
        said: Message | str = ""
        if parts:
            said = parts[0] if len(parts) == 1 else SENTENCES(first=parts[0], second=parts[1])
        super().__init__(said)


def _clean_names(names: Sequence[str]) -> list[str]:
    cleaned = []
    for line, raw in enumerate(names, start=1):
        try:
            name = name_rules.clean(raw, field="name", maximum=MAX_NAME, required=False)
        except name_rules.NameRefused as exc:
            if len(names) == 1:
                raise ServiceError(str(exc)) from exc
            # "Line 3: the name ...": the refusal's first letter lowered after the colon.
            said = str(exc)
            raise ServiceError(LINE(line=line, problem=said[:1].lower() + said[1:])) from exc
        if name:
            cleaned.append(name)
    return cleaned


def register_players(
    *, tournament: Any, names: Sequence[str], allow_duplicates: bool = False, by: Any = None
) -> list[Player]:
    """Add players (a late entry when rounds were already played: they start at 0).

    A name already registered (or given twice), or one looking like another (tournaments.
    names), is refused with DuplicateNames unless `allow_duplicates`: two people may share
    a name, but it is usually a typo twice. A round-robin pod takes no late entry: its
    whole schedule was paired at once.
    """
    cleaned = _clean_names(names)
    if not cleaned:
        raise ServiceError(NO_NAME_GIVEN())
    with writing(tournament, by=by) as w:
        t = w.tournament
        if t.system == "pod" and t.rounds.exists():
            raise ServiceError(POD_NO_LATE_PLAYERS())
        if not allow_duplicates:
            existing = list(t.players.values_list("name", flat=True))
            seen = {name_rules.key(n) for n in existing}
            twice = []
            for name in cleaned:
                key = name_rules.key(name)
                if key in seen:
                    twice.append(name)
                seen.add(key)
            alike = [
                pair for pair in name_rules.lookalikes(cleaned, existing) if pair[0] not in twice
            ]
            if twice or alike:
                raise DuplicateNames(twice, alike)
        # With check-in used, a player the organizer adds is at the venue (a walk-in at
        # the desk, a late entry): checked in now, or "drop every no-show" would drop
        # them (issue 26) and the pairing would leave them out (services.seating pairs
        # checked-in players only).
        present = timezone.now() if t.check_in else None
        players = [
            Player(tournament=t, external_id=external_id, name=name, checked_in_at=present)
            for name, external_id in zip(cleaned, new_player_ids(t, len(cleaned)), strict=True)
        ]
        Player.objects.bulk_create(players)
        late = " (late entry)" if t.rounds.exists() else ""
        # A late entry is scored with the results so far (a recompute); before round 1 the
        # standings only take them in.
        place_before_round_one(w, players)
        w.audit(
            AuditAction.REGISTER,
            f"Added {len(players)} player(s){late}: " + ", ".join(p.name for p in players),
            after={"names": [p.name for p in players], "late": bool(late)},
            players=players,
        )
    return players


def rename_player(*, player: Player, name: str, by: Any = None) -> Player:
    try:
        name = name_rules.clean(name, field="name", maximum=MAX_NAME, required=False)
    except name_rules.NameRefused as exc:
        raise ServiceError(str(exc)) from exc
    if not name:
        raise ServiceError(EMPTY_NAME())
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
        drop_in(w, player)
    return player


def drop_in(w: Write, player: Player, *, reason: str = "") -> CutDrop | None:
    """drop_player's write, for a service that already holds the `writing` block `w` (a
    disqualification drops the player in its own block: services.penalties). `reason`,
    when given, is kept in the drop's audit entry. Returns what the drop did to the top
    cut (domain.cut_drop; None outside it), its playoff match already conceded."""
    last = w.tournament.rounds.aggregate(n=Max("number"))["n"] or 0
    # The row as it is under the lock: a player already dropped concedes nothing again.
    stored = Player.objects.filter(pk=player.pk).values_list("dropped_after_round", flat=True)
    player.dropped_after_round = stored.first()
    cut = cut_drop(w.tournament, player)
    player.dropped_after_round = last
    player.dropped_by_player = False
    Player.objects.filter(pk=player.pk).update(dropped_after_round=last, dropped_by_player=False)
    w.changed()
    w.audit(
        AuditAction.DROP,
        f"{player.name} dropped after round {last}" + (f" ({reason})" if reason else ""),
        after={
            "dropped_after_round": last,
            **cut_facts(cut),
            **({"reason": reason} if reason else {}),
        },
        round=last or None,
        players=[player],
    )
    concede(w, player, cut)
    return cut


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
            raise ServiceError(NOT_IN_EVENT())
        if found.seats.exists():
            raise ServiceError(ALREADY_PAIRED(name=found.name))
        found.delete()
        w.changed()
        w.audit(
            AuditAction.REMOVE,
            f"Removed {found.name} (never paired)",
            before=found.name,
            players=[found],
        )
    return found.name
