"""Pairing restrictions and the Rules Enforcement Level they depend on.

At a casual event (Regular enforcement) the organizer may ask that two players not be
paired (family, teammates): the Swiss engine keeps them apart whenever any pairing of
the field does, at the least cost (tournaments.pairing.swiss, `forbidden`). At
Competitive and Professional events the Magic Tournament Rules let pairings be changed
only to fix an error, so restrictions are refused there, and an event with restrictions
cannot be moved to those levels until they are lifted.

Each Swiss round a restriction changed is logged: the round is also paired without the
restrictions, from the same seed (only when the event has some between active players),
and a restricted pair that pairing would have met is named in a RESTRICTION entry;
so is a restricted pair the field could not keep apart (every pairing met one).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from django.utils.translation import gettext, gettext_lazy

from tournaments.messages import Message, gettext_noop, ngettext, template
from tournaments.models import (
    AuditAction,
    Enforcement,
    Entry,
    PairingRestriction,
    Player,
    Tournament,
)
from tournaments.pairing.swiss import Pairing, SwissPlayer, pair_swiss
from tournaments.services.fixed_seats import NOT_ACCEPTED, NOT_PLAYER, REASON_TOO_LONG
from tournaments.services.writing import ServiceError, Write, writing

MAX_REASON = 100  # PairingRestriction.reason

# Refusals, raised as Messages and said where they are shown (issue 36).
# %(level)s: the Rules Enforcement Level's label, said where raised (Enforcement's
# choices are words, not templates).
CASUAL_ONLY_MSG = template(
    "restrictions.casual_only",
    gettext_noop(
        "Pairing restrictions are for casual events (Regular enforcement) only: at "
        "%(level)s events the Magic Tournament Rules allow changing pairings only to fix an "
        "error."
    ),
)
# Lazy: views.seating says it too; `CASUAL_ONLY % {"level": ...}` reads the request's language.
CASUAL_ONLY = gettext_lazy(CASUAL_ONLY_MSG.singular)
PAIR = template("restrictions.pair", gettext_noop("%(a)s and %(b)s"))
MORE = template(
    "restrictions.more",
    ngettext("%(names)s and %(counter)s more", "%(names)s and %(counter)s more", "counter"),
)
# Pairs one after the other ("a; b"): the separator is not a word, so it is not marked.
JOINED = template("restrictions.joined", "%(first)s; %(rest)s")
TWICE = template(
    "restrictions.twice", gettext_noop("Choose two different players: %(name)s was given twice.")
)
APART_ALREADY = template(
    "restrictions.apart_already", gettext_noop("%(a)s and %(b)s are kept apart already.")
)
NOT_APART = template("restrictions.not_apart", gettext_noop("%(a)s and %(b)s are not kept apart."))
# %(known)s: the levels' labels, said where raised.
NOT_A_LEVEL = template(
    "restrictions.not_a_level",
    gettext_noop("%(level)r is not an enforcement level: pick one of %(known)s."),
)
# %(pairs)s: `_names` (a Message); %(level)s as in CASUAL_ONLY_MSG.
LIFT_FIRST = template(
    "restrictions.lift_first",
    gettext_noop(
        "Lift the pairing restrictions first (%(pairs)s): at %(level)s "
        "events the Magic Tournament Rules allow changing pairings only to fix "
        "an error."
    ),
)


def _ordered(a: Player, b: Player) -> tuple[Player, Player]:
    return (a, b) if a.pk < b.pk else (b, a)


def _names(pairs: Sequence[PairingRestriction]) -> Message:
    """The first five pairs ("A and B; C and D"), then how many more: said as a whole
    where it is shown."""
    named = [PAIR(a=r.player_a.name, b=r.player_b.name) for r in pairs[:5]]
    shown = named[-1]
    for pair in reversed(named[:-1]):
        shown = JOINED(first=pair, rest=shown)
    if len(pairs) <= 5:
        return shown
    return MORE(names=shown, counter=len(pairs) - 5)


def restrict_pairing(
    *,
    tournament: Tournament,
    player_a: Player,
    player_b: Player,
    reason: str = "",
    by: Any = None,
) -> PairingRestriction:
    """Ask that the two players not be paired in the Swiss rounds paired from now on."""
    reason = " ".join(reason.split())
    if len(reason) > MAX_REASON:
        raise ServiceError(REASON_TOO_LONG(max=MAX_REASON))
    if player_a.pk == player_b.pk:
        raise ServiceError(TWICE(name=player_a.name))
    with writing(tournament, by=by) as w:
        t = w.tournament
        if t.enforcement != Enforcement.REGULAR:
            raise ServiceError(CASUAL_ONLY_MSG(level=gettext(Enforcement(t.enforcement).label)))
        for p in (player_a, player_b):
            if p.tournament_id != t.pk:
                raise ServiceError(NOT_PLAYER(name=p.name))
            if p.entry != Entry.ACCEPTED:
                raise ServiceError(NOT_ACCEPTED(name=p.name))
        a, b = _ordered(player_a, player_b)
        if PairingRestriction.objects.filter(player_a=a, player_b=b).exists():
            raise ServiceError(APART_ALREADY(a=a.name, b=b.name))
        row = PairingRestriction.objects.create(tournament=t, player_a=a, player_b=b, reason=reason)
        w.touched()
        w.audit(
            AuditAction.RESTRICTION,
            f"{a.name} and {b.name} are not to be paired" + (f": {reason}" if reason else ""),
            after={
                "event": "restricted",
                "players": [a.external_id, b.external_id],
                "reason": reason,
            },
            players=[a, b],
        )
    return row


def lift_restriction(
    *, tournament: Tournament, player_a: Player, player_b: Player, by: Any = None
) -> None:
    """The two players may be paired again from the next round on."""
    with writing(tournament, by=by) as w:
        t = w.tournament
        a, b = _ordered(player_a, player_b)
        row = PairingRestriction.objects.filter(tournament=t, player_a=a, player_b=b).first()
        if row is None:
            raise ServiceError(NOT_APART(a=a.name, b=b.name))
        row.delete()
        w.touched()
        w.audit(
            AuditAction.RESTRICTION,
            f"{a.name} and {b.name} may be paired again",
            before={"reason": row.reason},
            after={"event": "lifted", "players": [a.external_id, b.external_id]},
            players=[a, b],
        )


def set_enforcement(*, tournament: Tournament, enforcement: str, by: Any = None) -> Tournament:
    """The event's Rules Enforcement Level. Refused for Competitive or Professional
    while pairing restrictions exist (they are named: lift them first)."""
    if enforcement not in Enforcement.values:
        known = ", ".join(str(label) for label in Enforcement.labels)
        raise ServiceError(NOT_A_LEVEL(level=enforcement, known=known))
    level = Enforcement(enforcement)
    with writing(tournament, by=by) as w:
        t = w.tournament
        if t.enforcement == level:
            return t
        if level != Enforcement.REGULAR:
            rows = list(
                PairingRestriction.objects.filter(tournament=t)
                .select_related("player_a", "player_b")
                .order_by("id")
            )
            if rows:
                raise ServiceError(LIFT_FIRST(pairs=_names(rows), level=gettext(level.label)))
        was = t.enforcement
        t.enforcement = level
        t.save(update_fields=["enforcement"])
        w.touched()
        w.audit(
            AuditAction.RESTRICTION,
            f"Rules Enforcement Level set to {level.label} (was {Enforcement(was).label})",
            before={"enforcement": was},
            after={"event": "enforcement", "enforcement": level.value},
        )
    return t


# --- The pairing's side (services.rounds) ------------------------------------------------


def forbidden_pairs(t: Tournament) -> list[tuple[str, str]]:
    """The event's restricted pairs by interchange id, for the Swiss engine; none at a
    Competitive or Professional event (set_enforcement keeps them from existing there)."""
    if t.enforcement != Enforcement.REGULAR:
        return []
    return list(
        PairingRestriction.objects.filter(tournament=t).values_list(
            "player_a__external_id", "player_b__external_id"
        )
    )


def restriction_effects(
    field: Sequence[SwissPlayer],
    pairing: Pairing,
    forbidden: Sequence[tuple[str, str]],
    rng: Callable[[], random.Random],
) -> list[tuple[str, str, str]]:
    """(a, b, "kept_apart" | "unavoidable") for each restricted pair of the field that
    this round's pairing kept apart though the pairing without restrictions (from the
    same seed, `rng()`) would have paired them, or that it had to pair. Pairs the
    second time only when some restricted pair is in the field."""
    playing = {p.id for p in field}
    active = [(a, b) for a, b in forbidden if a in playing and b in playing]
    if not active:
        return []
    met = {frozenset(t) for t in pairing.tables}
    without = {frozenset(t) for t in pair_swiss(field, rng()).tables}
    out: list[tuple[str, str, str]] = []
    for a, b in active:
        pair = frozenset((a, b))
        if pair in met:
            out.append((a, b, "unavoidable"))
        elif pair in without:
            out.append((a, b, "kept_apart"))
    return out


def note_effects(w: Write, number: int, effects: Sequence[tuple[str, str, str]]) -> None:
    """One RESTRICTION entry per restricted pair this round's pairing was changed for
    (or could not keep apart), in the pairing's own write."""
    if not effects:
        return
    ids = {x for a, b, _event in effects for x in (a, b)}
    players = {p.external_id: p for p in w.tournament.players.filter(external_id__in=ids)}
    for a, b, event in effects:
        pa, pb = players[a], players[b]
        if event == "kept_apart":
            summary = f"Round {number}: {pa.name} and {pb.name} kept apart as restricted"
        else:
            summary = (
                f"Round {number}: {pa.name} and {pb.name} paired despite their restriction "
                "(no pairing of the field kept every restricted pair apart)"
            )
        w.audit(
            AuditAction.RESTRICTION,
            summary,
            after={"event": event, "round": number, "players": [a, b]},
            round=number,
            players=[pa, pb],
        )
