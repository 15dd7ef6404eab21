"""An event's life: create it, plan its rounds and top cut, finish it."""

from __future__ import annotations

import secrets
from typing import Any
from zoneinfo import available_timezones

from django.db import IntegrityError, transaction
from django.utils.text import slugify

from tournaments.domain import current_round, missing_results
from tournaments.messages import gettext_noop, template
from tournaments.models import AuditAction, Enforcement, Status, System, Tournament
from tournaments.rules import BEST_OF, TOP_CUT_CHOICES
from tournaments.services.playoff import final_decided
from tournaments.services.writing import ServiceError, writing

# The refusals, said where they are shown (issue 36).
NEEDS_NAME = template("lifecycle.needs_name", gettext_noop("The tournament needs a name."))
UNKNOWN_SYSTEM = template(
    "lifecycle.unknown_system", gettext_noop("Unknown scoring system %(system)r.")
)
BEST_OF_1_OR_3 = template(
    "lifecycle.best_of_1_or_3", gettext_noop("Matches are best of 1 or best of 3.")
)
CUT_SIZE = template("lifecycle.cut_size", gettext_noop("The top cut is 0, 2, 4 or 8 players."))
UNKNOWN_ZONE = template(
    "lifecycle.unknown_zone",
    gettext_noop("Unknown time zone %(zone)r: choose one such as Europe/Paris."),
)
UNKNOWN_LEVEL = template(
    "lifecycle.unknown_level", gettext_noop("Unknown Rules Enforcement Level %(level)r.")
)
PLAN_RANGE = template("lifecycle.plan_range", gettext_noop("Plan between 1 and 30 Swiss rounds."))
CUT_STARTED = template(
    "lifecycle.cut_started",
    gettext_noop("The top cut has started: its size can no longer change."),
)
RESULTS_MISSING = template(
    "lifecycle.results_missing", gettext_noop("Some results are still missing.")
)
PLAY_THE_FINAL = template(
    "lifecycle.play_the_final", gettext_noop("Play the top cut to its final first.")
)
NOT_FINISHED = template("lifecycle.not_finished", gettext_noop("The tournament is not finished."))

SLUG_TRIES = 50


def new_seed() -> int:
    return secrets.randbelow(2**62)


def _slugs(name: str) -> Any:
    base = (slugify(name) or "tournament")[:200]
    yield base
    for n in range(2, SLUG_TRIES):
        yield f"{base}-{n}"
    while True:  # a crowd of events with one name: stop counting, draw
        yield f"{base}-{secrets.token_hex(3)}"


def insert_tournament(*, name: str, **fields: Any) -> Tournament:
    """A new tournament row with a free slug made from its name.

    The slug is unique in the database; two events created at the same moment with the
    same name both try the same slug, and the loser of that race tries the next one.
    """
    for slug in _slugs(name):
        if Tournament.objects.filter(slug=slug).exists():
            continue
        try:
            with transaction.atomic():
                return Tournament.objects.create(name=name, slug=slug, **fields)
        except IntegrityError:
            if not Tournament.objects.filter(slug=slug).exists():
                raise  # another constraint: not a slug race
    raise AssertionError("unreachable")  # pragma: no cover - _slugs never ends


def create_tournament(
    *,
    name: str,
    system: str = System.MTR,
    best_of: int = 3,
    planned_rounds: int | None = None,
    top_cut: int = 0,
    seed: int | None = None,
    owner: Any = None,
    time_zone: str = "",
    enforcement: str = Enforcement.REGULAR,
) -> Tournament:
    name = name.strip()
    if not name:
        raise ServiceError(NEEDS_NAME())
    if system not in System.values:
        raise ServiceError(UNKNOWN_SYSTEM(system=system))
    if best_of not in BEST_OF:
        raise ServiceError(BEST_OF_1_OR_3())
    if top_cut not in TOP_CUT_CHOICES:
        raise ServiceError(CUT_SIZE())
    if time_zone and time_zone not in available_timezones():
        raise ServiceError(UNKNOWN_ZONE(zone=time_zone))
    if enforcement not in Enforcement.values:
        raise ServiceError(UNKNOWN_LEVEL(level=enforcement))
    with transaction.atomic():
        tournament = insert_tournament(
            name=name,
            system=system,
            best_of=1 if system == System.POD else best_of,
            planned_rounds=planned_rounds,
            top_cut=top_cut,
            seed=new_seed() if seed is None else seed,
            owner=owner,
            time_zone=time_zone,
            enforcement=enforcement,
        )
        with writing(tournament, by=owner) as w:
            tournament = w.tournament  # the row as written, its version included
            w.changed()  # the (empty) standings exist from the start
    return tournament


def update_plan(
    *, tournament: Tournament, planned_rounds: int | None, top_cut: int, by: Any = None
) -> Tournament:
    """Change the planned number of Swiss rounds and the top cut before they are played."""
    if planned_rounds is not None and not 1 <= planned_rounds <= 30:
        raise ServiceError(PLAN_RANGE())
    if top_cut not in TOP_CUT_CHOICES:
        raise ServiceError(CUT_SIZE())
    with writing(tournament, by=by) as w:
        t = w.tournament
        if t.status in (Status.TOP_CUT, Status.FINISHED) and top_cut != t.top_cut:
            raise ServiceError(CUT_STARTED())
        before = {"planned_rounds": t.planned_rounds, "top_cut": t.top_cut}
        t.planned_rounds, t.top_cut = planned_rounds, top_cut
        t.save(update_fields=["planned_rounds", "top_cut"])
        after = {"planned_rounds": planned_rounds, "top_cut": top_cut}
        w.touched()
        w.audit(AuditAction.PLAN, f"Planned {planned_rounds or 'open'} Swiss rounds, "
                f"top {top_cut or 'none'}", before=before, after=after)  # fmt: skip
    return t


def finish(*, tournament: Tournament, by: Any = None) -> None:
    with writing(tournament, by=by) as w:
        t = w.tournament
        last = current_round(t)
        if last is not None and missing_results(last):
            raise ServiceError(RESULTS_MISSING())
        if t.status == Status.TOP_CUT and not final_decided(t):
            raise ServiceError(PLAY_THE_FINAL())
        t.status = Status.FINISHED
        t.save(update_fields=["status"])
        w.touched()
        w.audit(AuditAction.FINISH, "Finished the tournament")


def reopen(*, tournament: Tournament, by: Any = None) -> Tournament:
    """Undo "finish": the event takes results, drops and pairings again (the owner's call;
    the view checks who may)."""
    with writing(tournament, by=by, when_finished=True) as w:
        t = w.tournament
        if t.status != Status.FINISHED:
            raise ServiceError(NOT_FINISHED())
        if t.rounds.filter(playoff=True).exists():
            t.status = Status.TOP_CUT
        elif t.rounds.exists():
            t.status = Status.RUNNING
        else:
            t.status = Status.REGISTRATION
        t.save(update_fields=["status"])
        w.touched()
        w.audit(AuditAction.REOPEN, "Reopened the tournament", after={"status": t.status})
    return t
