""" "What do I need?" in the app (issue 15): the pure core (scoring.engine.outlook) run in
the background after a write, stored per round (scoring.models.Outlook), read by pages.

When it applies (`applies`): a Swiss event (mtr, dci, melee) that is running, has a top
cut and a plan (`planned_rounds`), whose last paired round is a Swiss round at most two
before the end of the plan. Without a plan nobody knows how many rounds are still to
come, and answers that assume none would be wrong as soon as one is paired: the round
screen asks the organizer for the plan, and the figures appear once it is set. A round
paired beyond the plan counts as the last one (nothing after it).

How it runs: a write marks the round's row `computing` inside its own transaction
(`mark_computing`, called by the writing service), so that pages say so at once, and
does nothing more: the simulations never run in the writer's process, whose threads
answer the organizer's result entries. They run (`request`, one process of a pool per
version, claimed in the cache; `schedule` then runs `compute_now` in a daemon thread, one
at a time per event in that process, at most every OUTLOOK_EVERY_SECONDS) where the
event is read: the processes that hold the phones' event streams ask as soon as they see
the version move (tournaments.stream.Hub, through live.warm_soon), and so do the
screens that show the figures (outlook.json, the organizer's top tables, a card still
computing) when they find them `computing`, so an event nobody follows live gets its
figures as soon as anyone looks, even after a command-line write whose process is gone.
With OUTLOOK_BACKGROUND off (tests, scripts) the writer computes them itself, after the
commit. Nothing here ever raises into the write: a failure is logged and stored as
`failed`.

Storing figures (or a failure) is itself a write: it moves the tournament's version
(recorded in the change log as figures only: no seat is read again), so the live pages
that show them are told, as for any write (tournaments.pages.event).

Freshness: a row carries the tournament version it was computed for. A run stores its
figures even when the version moved meanwhile (they are still the best there is), but
never over figures of a newer version; the run the newer write asked for replaces them.
Pages show figures older than the tournament's version as "updating". Several processes
may compute the same version at once; the guard on the version keeps the newest.

The seed of a run is derived from the tournament's seed, the round number and the
version (`derive_seed`): random.Random(row.seed) handed to compute_outlook with the
row's simulations reproduces every figure of the row.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import threading
import time
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, connection, transaction
from django.db.models import F, JSONField
from django.db.models.expressions import RawSQL
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import get_format, number_format
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from scoring.engine.mtr import SWISS_SYSTEMS
from scoring.engine.outlook import (
    PROOFS,
    RESULTS,
    Certain,
    Chance,
    ChanceEstimate,
    compute_outlook,
    verdict,
)
from scoring.engine.outlook import Outlook as EngineOutlook
from scoring.models import Outlook
from scoring.services import FIGURES, event_record, record_change
from tournaments.labels import outcome_text, spoken
from tournaments.locking import lock_tournament
from tournaments.messages import Message
from tournaments.models import Match, Player, Round, Status, Tournament

log = logging.getLogger(__name__)
# A process that claimed a version's run and died: another may claim it after this.
CLAIM_SECONDS = 120

State = Outlook.State
# How many rounds before the end of the plan the figures start (issue 15: "from the round
# two before the end of the planned Swiss rounds onwards").
ROUNDS_BEFORE_END = 2
# How often a card still computing asks again (seconds): the target is ready in 10 s.
CARD_POLL_SECONDS = 3


# --- When --------------------------------------------------------------------------------


def rounds_after(t: Tournament, round_: Round) -> int | None:
    """Swiss rounds still to come after `round_` (0, 1 or 2), None when not applicable."""
    if (
        t.system not in SWISS_SYSTEMS
        or not t.top_cut
        or t.status != Status.RUNNING
        or t.planned_rounds is None
        or round_.playoff
    ):
        return None
    left = max(t.planned_rounds - round_.number, 0)
    return left if left <= ROUNDS_BEFORE_END else None


def applies(t: Tournament, round_: Round | None) -> bool:
    """Whether "what do I need?" is answered for `round_`, the event's last paired round
    (module docstring)."""
    return round_ is not None and rounds_after(t, round_) is not None


def _last_round(t: Tournament) -> Round | None:
    return Round.objects.filter(tournament=t).order_by("-number").first()


def derive_seed(tournament_seed: int, round_number: int, version: int) -> int:
    """A reproducible seed for one run, below 2**63 (it is stored in a BigIntegerField)."""
    digest = hashlib.blake2b(
        f"outlook:{tournament_seed}:{round_number}:{version}".encode(), digest_size=8
    ).digest()
    return int.from_bytes(digest, "big") >> 1


# --- Compute and store -----------------------------------------------------------------


def chance_json(chance: Chance) -> str | dict[str, int | float]:
    """ "in", "out", or hits of runs with the figure's own 95 % margin of error (the
    engine's `chance_margin`: runs may be fewer than all the simulations)."""
    if isinstance(chance, Certain):
        return chance.verdict
    return {"hits": chance.hits, "runs": chance.runs, "margin": round(chance.margin, 6)}


def to_json(outlook: EngineOutlook, tables: list[int | None]) -> dict[str, Any]:
    """The engine's answer as plain JSON. The engine numbers tables by their position in
    the round (1-based); `tables` maps a position to the match's own table number."""

    def table_of(position: int | None) -> int | None:
        if position is None or not 1 <= position <= len(tables):
            return position
        return tables[position - 1]

    return {
        "players": {
            p.player: {
                "table": table_of(p.table),
                "opponent": p.opponent,
                "points": p.points,
                "result": p.result,
                "certain": p.certain,
                "needs": p.needs,
                "chance_after": {r: chance_json(c) for r, c in p.chance_after.items()},
                "chance": chance_json(p.chance),
            }
            for p in outlook.players
        },
        "tables": [
            {
                "table": table_of(x.table),
                "players": list(x.players),
                "draw_puts_both_in": x.draw_puts_both_in,
                "draw_chances": [chance_json(c) for c in x.draw_chances],
            }
            for x in outlook.tables
        ],
    }


def compute_now(*, tournament_id: int) -> Outlook | None:
    """Compute the last paired round's figures and store them; the row, or None when
    there is no round (or it went away meanwhile). Figures already stored for the
    tournament's current version are returned as they are."""
    t = Tournament.objects.filter(pk=tournament_id).first()
    round_ = _last_round(t) if t is not None else None
    if t is None or round_ is None:
        return None
    after = rounds_after(t, round_)
    if after is None:
        # Only a row made while it applied (the plan changed since) is kept, and marked.
        rows = Outlook.objects.filter(tournament=t, round=round_)
        rows.exclude(state=State.NOT_APPLICABLE).update(state=State.NOT_APPLICABLE, data={})
        return rows.first()
    done = Outlook.objects.filter(
        tournament=t, round=round_, state=State.READY, version__gte=t.version
    ).first()
    if done is not None:
        return done
    # The version is read before the event: if a write lands in between, these figures
    # are labelled older than they are, never newer, and that write asks for a new run.
    version = t.version
    seed = derive_seed(t.seed, round_.number, version)
    simulations = int(settings.OUTLOOK_SIMULATIONS)
    started = time.perf_counter()
    fields: dict[str, Any] = {"rounds_after": after, "cut": t.top_cut, "seed": seed}
    try:
        event = event_record(t)
        if not event.rounds or event.rounds[-1].number != round_.number:
            return None  # the round was undone or another paired meanwhile
        result = compute_outlook(
            event,
            rounds_after=after,
            cut=t.top_cut,
            rng=random.Random(seed),
            simulations=simulations,
        )
        tables = list(
            Match.objects.filter(round=round_)
            .order_by("table", "id")  # the order event_record reads a round's matches in
            .values_list("table", flat=True)
        )
        data = to_json(result, tables)
    except Exception as exc:
        log.exception("the outlook of tournament %s round %s failed", t.pk, round_.number)
        fields.update(state=State.FAILED, error=f"{type(exc).__name__}: {exc}"[:300])
    else:
        fields.update(
            state=State.READY,
            simulations=result.simulations,
            margin=result.margin_of_error,
            model=[m.data() for m in result.model],  # codes and values, never sentences
            data=data,
            error="",
        )
    fields["took_ms"] = round((time.perf_counter() - started) * 1000)
    fields["computed_at"] = timezone.now()
    return _store(t, round_, version, **fields)


def _store(t: Tournament, round_: Round, version: int, **fields: Any) -> Outlook | None:
    """Write the round's row unless it holds finished figures of a newer version.

    Finished figures (ready or failed) move the tournament's version, under its row lock
    like any write, so that every cache and page keyed by it sees them. When no other
    write came since `version`, the row is labelled with the new version (the figures are
    current); otherwise with `version`, older than the tournament's: "updating"."""
    finished = fields.get("state") in (State.READY, State.FAILED)
    for _attempt in range(2):
        try:
            with transaction.atomic():
                now = version
                if finished:
                    now = _bump(t.pk, figures_of=version)
                    if now is None:
                        return None  # the event is gone
                row = Outlook.objects.select_for_update().filter(tournament=t, round=round_).first()
                if row is None:
                    return Outlook.objects.create(tournament=t, round=round_, version=now, **fields)
                if row.version > version and row.state in (State.READY, State.FAILED):
                    transaction.set_rollback(True)  # newer figures are there: no new version
                    return row
                for name, value in {**fields, "version": now}.items():
                    setattr(row, name, value)
                row.save()
                return row
        except IntegrityError:
            # Another process created the row first (try again: it now exists), or the
            # round was deleted meanwhile (nothing to store for it).
            if not Round.objects.filter(pk=round_.pk).exists():
                return None
    return None


def _bump(tournament_id: int, *, figures_of: int) -> int | None:
    """Move the locked tournament's version for stored figures computed at `figures_of`:
    the version the figures are current for (the new one when no other write came since
    `figures_of`, else `figures_of`), or None when the event is gone."""
    t = lock_tournament(tournament_id)
    if t is None:
        return None
    current = t.version == figures_of
    Tournament.objects.filter(pk=t.pk).update(version=F("version") + 1)
    t.version += 1
    record_change(t, [], kind=FIGURES)
    return t.version if current else figures_of


# --- In the background -------------------------------------------------------------------

_running: dict[int, bool] = {}  # event pk -> another run asked for while one runs
_last_start: dict[int, float] = {}  # event pk -> when its last run started (monotonic)
_running_lock = threading.Condition()


def mark_computing(tournament_id: int) -> bool:
    """Say "computing" on the last round's row (creating it); False when nothing is to
    be computed (then a row left from an earlier plan is marked not applicable)."""
    t = Tournament.objects.filter(pk=tournament_id).first()
    round_ = _last_round(t) if t is not None else None
    if t is None or round_ is None:
        return False
    rows = Outlook.objects.filter(tournament=t, round=round_)
    if not applies(t, round_):
        rows.exclude(state=State.NOT_APPLICABLE).update(state=State.NOT_APPLICABLE, data={})
        return False
    if rows.filter(state=State.READY, version__gte=t.version).exists():
        return True  # already done for this version: the run will find it so
    if not rows.update(state=State.COMPUTING):
        try:
            with transaction.atomic():
                Outlook.objects.create(
                    tournament=t, round=round_, version=t.version, state=State.COMPUTING
                )
        except IntegrityError:
            pass  # created meanwhile (by a run or another process), or the round is gone
    return True


def request(tournament_id: int, version: int) -> None:
    """Have the figures of `version` computed in the background, by one process of the
    pool (the first to ask; module docstring). Never raises."""
    try:
        if not cache.add(f"outlook:claim:{tournament_id}:{version}", 1, CLAIM_SECONDS):
            return  # another process (or this one) has it
    except Exception:  # the cache is away: run here rather than not at all
        log.warning("claiming the outlook of tournament %s failed", tournament_id)
    schedule(tournament_id)


def ensure(t: Tournament, row: Outlook | None) -> None:
    """A reader found the figures still computing: make sure a run is on its way (the
    write that asked for them may have been a command whose process is gone)."""
    if row is not None and row.state == State.COMPUTING and settings.OUTLOOK_BACKGROUND:
        request(t.pk, t.version)


def schedule(tournament_id: int) -> None:
    """Compute the figures in a background thread of this process (module docstring):
    one run at a time per event, a call during a run asking for one more. With
    OUTLOOK_BACKGROUND off, now, in the caller. Never raises."""
    if not settings.OUTLOOK_BACKGROUND:
        try:
            compute_now(tournament_id=tournament_id)
        except Exception:
            log.exception("the outlook of tournament %s failed", tournament_id)
        return
    with _running_lock:
        if tournament_id in _running:
            _running[tournament_id] = True
            return
        _running[tournament_id] = False
    try:
        threading.Thread(
            target=_run, args=(tournament_id,), name=f"outlook-{tournament_id}", daemon=True
        ).start()
    except Exception:  # out of threads: the next write tries again
        with _running_lock:
            _running.pop(tournament_id, None)
            _running_lock.notify_all()
        log.exception("could not start the outlook of tournament %s", tournament_id)


def _run(tournament_id: int) -> None:
    try:
        while True:
            with _running_lock:
                # Not sooner than this after the event's last run: in the last rounds a
                # result every few seconds would otherwise keep a core busy with
                # simulations in the organizer's own process (its result POST p95 1.6x
                # the calibration; bench_phones --cut). Writes meanwhile wait for this run.
                due = _last_start.get(tournament_id, -1e9) + settings.OUTLOOK_EVERY_SECONDS
                _running_lock.wait_for(lambda: False, max(0.0, due - time.monotonic()))
                _last_start[tournament_id] = time.monotonic()
                _running[tournament_id] = False  # this run covers the writes so far
            try:
                compute_now(tournament_id=tournament_id)
            except Exception:
                log.exception("the outlook of tournament %s failed", tournament_id)
            with _running_lock:
                if not _running.get(tournament_id):
                    # Leaving under the lock: a schedule after this starts a new thread.
                    _running.pop(tournament_id, None)
                    _running_lock.notify_all()
                    return
                _running[tournament_id] = False
    except BaseException:  # pragma: no cover - the thread is dying: let the next run start
        with _running_lock:
            _running.pop(tournament_id, None)
            _running_lock.notify_all()
        raise
    finally:
        connection.close()


def wait_idle(timeout: float = 30.0) -> bool:
    """Until no background run is under way in this process (tests, shutdown)."""
    with _running_lock:
        return _running_lock.wait_for(lambda: not _running, timeout=timeout)


# --- Reading -----------------------------------------------------------------------------


def for_round(t: Tournament, round_: Round | None) -> Outlook | None:
    """The stored figures of `round_` (any state), or None."""
    if round_ is None:
        return None
    row = Outlook.objects.filter(tournament=t, round=round_).first()
    ensure(t, row)
    return row


def for_player(outlook: Outlook | None, player_external_id: str) -> dict[str, Any] | None:
    """One player's stored answer (see `to_json`), or None (not competing for the cut:
    dropped, not seated this round; or no figures)."""
    if outlook is None or not isinstance(outlook.data, Mapping):
        return None
    players = outlook.data.get("players") or {}
    answer = players.get(player_external_id)
    return answer if isinstance(answer, dict) else None


def stamp(t: Tournament) -> str:
    """What the newest stored figures are, in a few characters: part of the ETags of the
    responses that show them, since they change without the tournament's version."""
    row = (
        Outlook.objects.filter(tournament=t)
        .order_by("-round__number")
        .values_list("pk", "state", "version", "computed_at")
        .first()
    )
    if row is None:
        return "-"
    pk, state, version, at = row
    return f"{pk}.{state[0]}.{version}.{at.timestamp() if at else 0:.3f}"


# --- Words ---------------------------------------------------------------------------------


def _estimate(chance: Any) -> ChanceEstimate | None:
    if isinstance(chance, dict) and {"hits", "runs"} <= chance.keys():
        return ChanceEstimate(int(chance["hits"]), int(chance["runs"]))
    return None


def _count(n: int) -> str:
    """A count of simulations as the active language groups its digits ("2,000", "2 000")."""
    return number_format(n, force_grouping=True)


def chance_text(chance: Any, *, of: int | None = None) -> str:
    """ "93 % (± 1.1 %)", "very likely (199 of 199 simulated finishes)", "in for sure",
    "out for sure"; the figure is for display only. Only a proof says "for sure": a
    figure every simulation agreed on is still a simulated one, and reads as such (issue
    25: "in all 199 simulations" beside "in for sure" read as certain).
    The margin is the figure's own (from its hits and runs, recomputed: rows stored
    before it was in the JSON have none). `of`: all the simulations, when the figure may
    rest on fewer (a result's runs only): "38 % (± 7.0 %, from 196 of 2,000 simulations)".
    In the active language (the pages' and the organizer's screens; the JSON API keeps
    the figures themselves)."""
    if chance == "in":
        return _("in for sure")
    if chance == "out":
        return _("out for sure")
    estimate = _estimate(chance)
    if estimate is None or not estimate.runs:
        return _("no estimate (no simulation had this result)")
    if estimate.hits in (0, estimate.runs):
        counts = {"hits": _count(estimate.hits), "runs": _count(estimate.runs)}
        if estimate.hits:
            return _("very likely (%(hits)s of %(runs)s simulated finishes)") % counts
        return _("very unlikely (%(hits)s of %(runs)s simulated finishes)") % counts
    percent = estimate.probability * 100
    shown = "<1" if percent < 1 else ">99" if percent > 99 else f"{percent:.0f}"
    # Rounded as the figure always was (a float's own rounding), written with the active
    # language's decimal mark ("2,2" in French).
    margin = f"{estimate.margin * 100:.1f}".replace(".", get_format("DECIMAL_SEPARATOR"))
    figures = {"chance": shown, "margin": margin}
    if of and estimate.runs < of:
        return _("%(chance)s %% (± %(margin)s %%, from %(runs)s of %(all)s simulations)") % {
            **figures,
            "runs": _count(estimate.runs),
            "all": _count(of),
        }
    return _("%(chance)s %% (± %(margin)s %%)") % figures


def _sentence(answer: Mapping[str, Any], *, cut: int, after: int) -> str:
    """The card's answer in one sentence (the engine's `verdict`) in the active language."""
    result = answer.get("result")
    said = verdict(
        certain=answer.get("certain"),
        needs=answer.get("needs"),
        result=outcome_text(str(result)) if result else None,
        cut=cut,
        after=after,
    )
    return spoken(said)


def _after_result(result: str, text: str, *, first: bool) -> str:
    """One result's chance in the card's list: "a win: 60 %" first, then "draw: 30 %"."""
    if first:
        return {
            "win": pgettext("the first chance of a list", "a win: %(chance)s"),
            "draw": pgettext("the first chance of a list", "a draw: %(chance)s"),
            "loss": pgettext("the first chance of a list", "a loss: %(chance)s"),
        }[result] % {"chance": text}
    return {
        "win": pgettext("a later chance of a list", "win: %(chance)s"),
        "draw": pgettext("a later chance of a list", "draw: %(chance)s"),
        "loss": pgettext("a later chance of a list", "loss: %(chance)s"),
    }[result] % {"chance": text}


def chances_line(chances: list[dict[str, str]], *, cut: int, now: str) -> str:
    """The card's line of chances: "Your chance of the top 8 now: 93 % (± 1.1 %)" when
    one result is left, else "Chance of the top 8 after a win: ..., draw: ..., loss: ..."."""
    if len(chances) == 1:
        return _("Your chance of the top %(cut)s now: %(chance)s") % {"cut": cut, "chance": now}
    listed = pgettext("between the chances of a list", ", ").join(
        _after_result(c["result"], c["text"], first=i == 0) for i, c in enumerate(chances)
    )
    return _("Chance of the top %(cut)s after %(results)s") % {"cut": cut, "results": listed}


def proofs_text() -> str:
    """What the proofs assume (the engine's PROOFS) in the active language."""
    return spoken(PROOFS)


def model_messages(stored: Any) -> list[Message] | None:
    """A row's stored model (Outlook.model: the engine's MODEL as message data) as
    messages; None when it holds nothing this version can say: a code a newer version
    wrote, or anything but a list of messages (the figures themselves never depend on it,
    and the next run stores it anew)."""
    if not isinstance(stored, list):
        return None
    try:
        messages = [Message.from_data(m) for m in stored]
        for m in messages:
            for form in m.template.forms():  # every code known and every placeholder given
                form % dict(m.params)
    except (LookupError, TypeError, ValueError, AttributeError):
        return None
    return messages


def model_text(stored: Any) -> str:
    """A row's stored model in the active language; "" when it cannot be said
    (`model_messages`)."""
    messages = model_messages(stored)
    return " ".join(spoken(m) for m in messages) if messages else ""


def model_english(stored: Any) -> str:
    """A row's stored model in English, as the JSON API gives it: text stored by a version
    before issue 36 was English already and is given as it is."""
    if isinstance(stored, str):
        return stored
    messages = model_messages(stored)
    return " ".join(m.english() for m in messages) if messages else ""


def answer_words(answer: Mapping[str, Any], *, cut: int, after: int) -> dict[str, Any]:
    """A player's answer as the card shows it, in the active language: a sentence when it
    is certain, else their chances after each result of their match (or after the result
    already entered); and what a proven answer assumes (`proof`, the engine's PROOFS)."""
    certain = answer.get("certain")
    words: dict[str, Any] = {
        "certain": certain,
        "needs": answer.get("needs"),
        "sentence": _sentence(answer, cut=cut, after=after),
        "chances": [],
        "now": "",
        "line": "",
        "proof": proofs_text(),
    }
    if certain is None:
        after_results = answer.get("chance_after") or {}
        # The overall chance rests on every simulation; one after a result may rest on
        # the simulations with that result only (rounds still to come): say so.
        overall = _estimate(answer.get("chance"))
        every = overall.runs if overall is not None else None
        words["chances"] = [
            {"result": r, "text": chance_text(after_results[r], of=every)}
            for r in RESULTS
            if r in after_results
        ]
        words["now"] = chance_text(answer.get("chance"))
        words["line"] = chances_line(words["chances"], cut=cut, now=words["now"])
    return words


def _header(
    row: Outlook, t: Tournament, round_: Round, *, has_data: bool, version: int | None = None
) -> dict[str, Any]:
    version = t.version if version is None else version
    has_data = has_data and row.state in (State.READY, State.COMPUTING)
    return {
        "state": row.state,
        "round": round_.number,
        "cut": row.cut or t.top_cut,
        "rounds_after": row.rounds_after,
        "simulations": row.simulations,
        "model": model_text(row.model),
        "seed": row.seed,
        "computed_at": row.computed_at,
        "took_ms": row.took_ms,
        "has_data": has_data,
        # Figures of an older version while a newer run is due: shown, said to be updating.
        "updating": has_data and (row.state == State.COMPUTING or row.version < version),
        "computing": row.state == State.COMPUTING and not has_data,
        "failed": row.state == State.FAILED,
    }


def _player_slice(player_external_id: str) -> RawSQL | None:
    """data["players"][id] read by the database, so that a page does not load (and parse)
    every player's answer. Django's key lookups read a key of digits as an array index,
    and ids may be digits: hence a path written out here. None: load the whole document."""
    table = connection.ops.quote_name(Outlook._meta.db_table)
    if connection.vendor == "postgresql":
        return RawSQL(
            f"{table}.data #> %s::text[]", (["players", player_external_id],), JSONField()
        )
    if connection.vendor == "sqlite" and '"' not in player_external_id:
        path = f"$.players.{json.dumps(player_external_id)}"
        return RawSQL(f"JSON_EXTRACT({table}.data, %s)", (path,), JSONField())
    return None


_READ = object()  # player_card: read the row (one query)


def player_card(
    t: Tournament,
    round_: Round | None,
    player_external_id: str,
    *,
    row: Any = _READ,
    version: int | None = None,
) -> dict[str, Any] | None:
    """What the "What do I need?" card shows one player (templates/tournaments/
    _outlook.html); None when there is nothing to show. From `row` when the caller has
    the round's row (the phones' pages: tournaments.pages.event reads it once per
    version), else from one query reading only this player's part of the figures.
    `version`: the tournament's version the card is for (default `t.version`)."""
    if round_ is None or round_.playoff or not (t.top_cut and t.planned_rounds):
        return None  # no figures without a cut and a plan (`applies`): no query either
    mine: Any
    if row is _READ:
        rows = Outlook.objects.filter(tournament=t, round=round_).exclude(
            state=State.NOT_APPLICABLE
        )
        piece = _player_slice(player_external_id)
        if piece is not None:
            row = rows.defer("data").annotate(mine=piece).first()
            mine = getattr(row, "mine", None)
            has_data = row is not None and row.computed_at is not None
        else:
            row = rows.first()
            mine = for_player(row, player_external_id)
            has_data = row is not None and bool(row.data)
        ensure(t, row)
    else:
        if row is not None and row.state == State.NOT_APPLICABLE:
            row = None
        mine = for_player(row, player_external_id)
        has_data = row is not None and bool(row.data)
    if row is None:
        return None
    if isinstance(mine, str):  # SQLite hands an extracted object back as its text
        mine = json.loads(mine)
    mine = mine if isinstance(mine, dict) else None
    if has_data and mine is None and row.state == State.READY:
        return None  # not competing for the cut this round (dropped, or no seat)
    card = _header(
        row, t, round_, has_data=has_data and mine is not None,
        version=t.version if version is None else version,
    )  # fmt: skip
    kwargs = {"slug": t.slug, "pid": player_external_id}
    card["poll_url"] = reverse("outlook_card", kwargs=kwargs)
    card["page_url"] = reverse("player", kwargs=kwargs)
    # Only while there is nothing to show yet: figures "updating" after a result stay on
    # the card until the player's page refreshes (its event stream), or a hall of phones
    # would poll the card every few seconds through the last rounds (a run after nearly
    # every result; bench_phones --cut).
    card["poll"] = CARD_POLL_SECONDS if card["computing"] else None
    card["answer"] = (
        answer_words(mine, cut=card["cut"], after=row.rounds_after) if mine is not None else None
    )
    return card


def top_tables(t: Tournament) -> dict[str, Any]:
    """The organizer's "top tables": the current round's unfinished tables where either
    player can still make the cut, those where a draw puts both in first, then by table."""
    round_ = _last_round(t)
    row = for_round(t, round_)
    context: dict[str, Any] = {"round": round_, "outlook": None, "tables": [], "applies": False}
    if round_ is None or row is None or row.state == State.NOT_APPLICABLE:
        context["applies"] = applies(t, round_)
        return context
    context["applies"] = True
    header = _header(row, t, round_, has_data=bool(row.data))
    context["outlook"] = header
    if not header["has_data"]:
        return context
    players: dict[str, Any] = row.data.get("players", {})
    chosen = [
        x
        for x in row.data.get("tables", [])
        if any((players.get(p) or {}).get("certain", "out") != "out" for p in x["players"])
    ]
    ids = {p for x in chosen for p in x["players"]}
    names = dict(
        Player.objects.filter(tournament=t, external_id__in=ids).values_list("external_id", "name")
    )
    tables = []
    for x in chosen:
        seated = []
        for p, draw in zip(x["players"], x["draw_chances"], strict=True):
            answer = players.get(p) or {}
            seated.append(
                {
                    "id": p,
                    "name": names.get(p, p),
                    "url": reverse("player", kwargs={"slug": t.slug, "pid": p}),
                    "points": answer.get("points"),
                    "certain": answer.get("certain", "out"),
                    "draw": chance_text(draw),
                }
            )
        tables.append(
            {"table": x["table"], "players": seated, "draw_puts_both_in": x["draw_puts_both_in"]}
        )
    tables.sort(key=lambda x: (not x["draw_puts_both_in"], x["table"] is None, x["table"] or 0))
    context["tables"] = tables
    context["both_in"] = sum(x["draw_puts_both_in"] for x in tables)
    return context


# --- JSON -----------------------------------------------------------------------------------


def _json_head(t: Tournament, round_: Round | None, row: Outlook | None) -> dict[str, Any]:
    if row is None:
        state = "not_computed" if applies(t, round_) else State.NOT_APPLICABLE.value
        return {"round": round_.number if round_ else None, "state": state}
    return {
        "round": round_.number if round_ else None,
        "state": row.state,
        "version": row.version,
        "current": row.version >= t.version,
        "cut": row.cut,
        "rounds_after": row.rounds_after,
        "model": model_english(row.model),  # the API speaks English
        "simulations": row.simulations,
        "margin": round(row.margin, 6),
        "seed": str(row.seed),
        "computed_at": row.computed_at.isoformat() if row.computed_at else None,
        "took_ms": row.took_ms,
    }


def document(t: Tournament) -> dict[str, Any]:
    """The current round's figures as the JSON API gives them (README, API section)."""
    round_ = _last_round(t)
    row = for_round(t, round_)
    body: dict[str, Any] = {"tournament": t.slug, **_json_head(t, round_, row)}
    data = row.data if row is not None and row.state != State.NOT_APPLICABLE else {}
    players = data.get("players", {}) if isinstance(data, dict) else {}
    body["players"] = [
        {"id": p, **answer}
        for p, answer in sorted(
            players.items(),
            key=lambda item: (item[1].get("table") is None, item[1].get("table") or 0, item[0]),
        )
    ]
    body["tables"] = data.get("tables", []) if isinstance(data, dict) else []
    return body


def player_document(t: Tournament, player_external_id: str) -> dict[str, Any] | None:
    """One player's part of the current round's figures (the "outlook" key of
    players/<id>.json), None when the round has none."""
    round_ = _last_round(t)
    row = for_round(t, round_)
    if row is None or row.state == State.NOT_APPLICABLE:
        return None
    head = _json_head(t, round_, row)
    return {**head, "answer": for_player(row, player_external_id)}
