"""Penalties' read model (issue 27): the judges' penalty screen, the printed report and
the notes a match's result entry shows (the audit log's sentence: pages.penalty_audit).

Plain data from stored rows; the infractions' names and sections come from the IPG table
(tournaments.infractions), the players' names as every page shows them
(pages.event.display_names: namesakes told apart).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils.translation import gettext as _

from tournaments.domain import current_round
from tournaments.infractions import (
    DISQUALIFICATION,
    GAME_LOSS,
    INFRACTIONS,
    MATCH_LOSS,
    PENALTY_NAMES,
    SEVERITY,
    Infraction,
    by_category,
    infraction_name,
)
from tournaments.models import Entry, Penalty, Player, Seat, Tournament
from tournaments.pages.event import display_names

# Penalties whose effect the match's result entry must show: the games counted (a game
# loss), or why the result is what it is (a match loss, a disqualification's concession).
SHOWN_ON_MATCH = (GAME_LOSS, MATCH_LOSS, DISQUALIFICATION)


def infraction_label(key: str) -> str:
    """ "Tardiness (IPG 3.1)", in the reader's language; a key the table no longer
    knows as stored."""
    found = INFRACTIONS.get(key)
    if found is None:
        return key
    return _("%(infraction)s (IPG %(section)s)") % {
        "infraction": _(found.name),
        "section": found.section,
    }


def penalty_name(kind: str) -> str:
    """ "Game Loss", in the reader's language (the IPG's names are English in the
    table: tournaments.infractions stays pure); a value not known as stored."""
    return _(PENALTY_NAMES[kind]) if kind in PENALTY_NAMES else kind


def shown_infraction_name(key: str) -> str:
    """The infraction's name in the reader's language; an unknown key as stored."""
    return _(infraction_name(key)) if key in INFRACTIONS else key


def _short(kind: str) -> str:
    """ "Game loss", as a sentence starts with it."""
    name = penalty_name(kind)
    return name[:1] + name[1:].lower()


# --- On the match: its result entry and its row on the round screen ---------------------


def match_notes(
    names: Mapping[str, str], *, round_id: int | None = None, match_pks: Iterable[int] = ()
) -> dict[int, list[str]]:
    """match pk -> "Game loss: Ana Souza (Tardiness)" for each penalty that acts on the
    match (SHOWN_ON_MATCH), oldest first, for a whole round or the matches `match_pks`;
    one query."""
    rows = Penalty.objects.filter(penalty__in=SHOWN_ON_MATCH)
    if round_id is not None:
        rows = rows.filter(match__round_id=round_id)
    else:
        pks = list(match_pks)
        if not pks:
            return {}
        rows = rows.filter(match_id__in=pks)
    notes: dict[int, list[str]] = {}
    for match_id, kind, key, ext, name in rows.order_by("created_at", "id").values_list(
        "match_id", "penalty", "infraction", "player__external_id", "player__name"
    ):
        who = names.get(ext, name)
        notes.setdefault(match_id, []).append(
            _("%(penalty)s: %(player)s (%(infraction)s)")
            % {"penalty": _short(kind), "player": who, "infraction": shown_infraction_name(key)}
        )
    return notes


# --- The judges' screen ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Choice:
    """A player the form offers: their name as shown, and their table this round."""

    pk: int
    name: str
    table: int | None

    @property
    def label(self) -> str:
        if not self.table:
            return self.name
        return _("%(player)s · table %(table)s") % {"player": self.name, "table": self.table}


@dataclass(frozen=True, slots=True)
class Listed:
    """One penalty as the list and the printed report show it."""

    pk: int
    at: datetime
    round: int | None
    table: int | None
    player_pk: int
    player: str
    infraction: str  # its label: "Tardiness (IPG 3.1)"
    penalty: str  # its name: "Game Loss"
    kind: str
    upgraded: str  # "upgraded" / "downgraded" from the IPG's default, or ""
    judge: str
    note: str


@dataclass(frozen=True, slots=True)
class _Option:
    """An infraction as the form's list offers it, its names in the reader's language."""

    key: str
    name: str
    section: str
    default_name: str

    @classmethod
    def of(cls, infraction: Infraction) -> _Option:
        return cls(
            infraction.key, _(infraction.name), infraction.section, _(infraction.default_name)
        )


def _zone(t: Tournament) -> ZoneInfo:
    return ZoneInfo(t.time_zone or settings.TIME_ZONE)


def player_choices(
    t: Tournament, names: dict[str, str], *, table: int | None = None
) -> list[Choice]:
    """The players a penalty may be issued to (in the event, not dropped), by name, each
    with their table in the round being played; `table`: only that table's players."""
    round_ = current_round(t)
    tables: dict[int, int | None] = {}
    if round_ is not None:
        tables = dict(Seat.objects.filter(round=round_).values_list("player_id", "match__table"))
    players = Player.objects.filter(
        tournament=t, entry=Entry.ACCEPTED, dropped_after_round__isnull=True
    ).values_list("pk", "external_id", "name")
    found = [Choice(pk, names.get(ext, name), tables.get(pk)) for pk, ext, name in players]
    if table is not None:
        found = [c for c in found if c.table == table]
    return sorted(found, key=lambda c: (c.name.casefold(), c.pk))


def entries(t: Tournament, names: dict[str, str], *, player: int | None = None) -> list[Listed]:
    """The event's penalties, newest first (one query); `player`: only theirs."""
    rows = Penalty.objects.filter(tournament=t).select_related("player", "judge")
    if player is not None:
        rows = rows.filter(player_id=player)
    zone = _zone(t)
    out = []
    for p in rows.order_by("-created_at", "-id"):
        default = INFRACTIONS[p.infraction].penalty if p.infraction in INFRACTIONS else None
        moved = ""
        if default is not None and p.penalty != default and p.penalty in SEVERITY:
            higher = SEVERITY.index(p.penalty) > SEVERITY.index(default)
            moved = _("upgraded") if higher else _("downgraded")
        elif default is None:
            moved = _("upgraded")  # the IPG gives none: any penalty is an upgrade
        out.append(
            Listed(
                pk=p.pk,
                at=p.created_at.astimezone(zone),
                round=p.round_number,
                table=p.table,
                player_pk=p.player_id,
                player=names.get(p.player.external_id, p.player.name),
                infraction=infraction_label(p.infraction),
                penalty=penalty_name(p.penalty),
                kind=p.penalty,
                upgraded=moved,
                judge=p.judge.get_username() if p.judge else "",
                note=p.note,
            )
        )
    return out


def screen(
    t: Tournament,
    *,
    head: bool,
    player: int | None = None,
    table: int | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The judges' penalty screen: the form (players, infractions by class, penalties;
    the disqualification for the head judge and the organizer only) and the list,
    newest first, of the whole event or of one player (their history)."""
    names = display_names(t)
    choices = player_choices(t, names, table=table)
    listed = entries(t, names, player=player)
    kinds = [(k, penalty_name(k)) for k in PENALTY_NAMES if head or k != DISQUALIFICATION]
    of = None
    if player is not None:
        found = Player.objects.filter(pk=player, tournament=t).values_list("external_id", "name")
        row = found.first()
        of = names.get(row[0], row[1]) if row else None
    round_ = current_round(t)
    typed = extra.pop("typed", None) or {}
    picked = typed.get("player")
    return {
        "typed": typed,
        # The player the form shows picked: as typed back after a refusal, else the one
        # whose history is shown.
        "selected_player": int(picked) if picked and str(picked).isdigit() else player,
        "tournament": t,
        "choices": choices,
        "table": table,
        "groups": [(_(cat), [_Option.of(i) for i in found]) for cat, found in by_category()],
        "kinds": kinds,
        "head": head,
        "penalties": listed,
        "filter_player": player if of is not None else None,
        "filter_name": of,
        "round": round_.number if round_ is not None else None,
        "finished": t.status == "finished",
        **extra,
    }


# --- The printed report -------------------------------------------------------------------


def report(t: Tournament) -> dict[str, Any]:
    """Every penalty of the event, oldest first, with the count of each penalty."""
    listed = list(reversed(entries(t, display_names(t))))
    counts = [(penalty_name(k), sum(1 for e in listed if e.kind == k)) for k in SEVERITY]
    return {
        "tournament": t,
        "penalties": listed,
        "count": len(listed),
        "counts": [(name, n) for name, n in counts if n],
        "round_label": "",
    }
