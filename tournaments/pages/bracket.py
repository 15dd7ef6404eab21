"""The top cut as the screens show it: rounds of matches with seats, seeds and winners."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db.models import Prefetch

from tournaments.domain import played_bracket
from tournaments.models import CutDecision, Match, Seat, Status, Tournament
from tournaments.pairing.bracket import BRACKET_SEEDS, BracketMatch, final_placings
from tournaments.rules import CHAMPION, Finish, RoundName, knocked_out


def winner(match: Match, seats: Sequence[Seat]) -> Seat | None:
    if not match.reported or len(seats) != 2 or seats[0].games_won == seats[1].games_won:
        return None
    return seats[0] if (seats[0].games_won or 0) > (seats[1].games_won or 0) else seats[1]


def bracket_rounds(
    t: Tournament, names: Mapping[str, str] | None = None
) -> list[list[dict[str, Any]]]:
    """Per playoff round, in bracket order: {"match", "seats" (high seed first), "winner",
    "seeds" (the Swiss seed of each seat), "seated" ((seat, seed) pairs, for templates)}.
    Two queries for the whole bracket. `names`: the names players are shown by (pages.
    event.display_names: namesakes apart), given by the pages that show them."""
    matches = (
        Match.objects.filter(round__tournament=t, round__playoff=True)
        .select_related("round")
        .order_by("round__number", "table", "id")
        .prefetch_related(
            Prefetch(
                "seats",
                queryset=Seat.objects.select_related("player").order_by("position"),
                to_attr="seat_list",
            )
        )
    )
    rounds: dict[int, list[dict[str, Any]]] = {}
    shown = names or {}
    for m in matches:
        seats = m.seat_list  # type: ignore[attr-defined]
        for s in seats:  # the templates show `display_name` (namesakes told apart)
            s.player.display_name = shown.get(s.player.external_id, s.player.name)
        rounds.setdefault(m.round.number, []).append(
            {"match": m, "seats": seats, "winner": winner(m, seats)}
        )
    ordered = list(rounds.values())
    if ordered:
        seeds: dict[int, int] = {}
        first = ordered[0]
        for entry, pair in zip(first, BRACKET_SEEDS.get(2 * len(first), ()), strict=False):
            for seat, seed in zip(entry["seats"], pair, strict=False):
                seeds[seat.player_id] = seed
        for entries in ordered:
            for entry in entries:
                entry["seeds"] = [seeds.get(s.player_id) for s in entry["seats"]]
                entry["seated"] = list(zip(entry["seats"], entry["seeds"], strict=True))
    return ordered


def bracket_state(rounds: list[list[dict[str, Any]]]) -> tuple[bool, bool]:
    """(the last playoff round is decided, that round is the decided final)."""
    last = rounds[-1] if rounds else []
    decided = bool(last) and all(entry["winner"] for entry in last)
    return decided, decided and len(last) == 1


def named_rounds(
    rounds: list[list[dict[str, Any]]],
) -> list[tuple[RoundName, list[dict[str, Any]]]]:
    """Each round with its name as data (said by the template's round_name)."""
    return [(RoundName.playoff(len(r)), r) for r in rounds]


def placings(t: Tournament, names: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The top cut's final placings once its final is decided (champion first), else [];
    named by `names` (the pages' display names) or, without them, as stored."""
    bracket = played_bracket(t)
    if not bracket or len(bracket[-1]) != 1 or bracket[-1][0].winner is None:
        return []
    order = final_placings(bracket)
    if names is None:
        names = dict(t.players.filter(external_id__in=order).values_list("external_id", "name"))
    finish = bracket_finishes(bracket)
    return [
        {"place": k, "id": pid, "name": names.get(pid, pid), "finish": finish.get(pid)}
        for k, pid in enumerate(order, 1)
    ]


def bracket_finishes(bracket: Sequence[Sequence[BracketMatch]]) -> dict[str, Finish]:
    """Player id -> finish of each player whose finish the bracket has decided, as
    numbers: the losers of each round share its places (5th-8th), the final's winner is
    1st; players still playing have none yet. Said by labels.finish_text on the pages,
    `Finish.english` in the exports."""
    found: dict[str, Finish] = {}
    for matches in bracket:
        for match in matches:
            if match.loser is not None:
                found[match.loser] = knocked_out(len(matches))
    last = bracket[-1] if bracket else ()
    if len(last) == 1 and last[0].winner is not None:
        found[last[0].winner] = CHAMPION
    return found


def finishes(t: Tournament) -> dict[str, Finish]:
    """`bracket_finishes` of the event's top cut (one query), {} outside one: what the
    standings, print-outs and exports show beside the rows the playoffs ordered."""
    if t.status not in (Status.TOP_CUT, Status.FINISHED):
        return {}
    try:
        return bracket_finishes(played_bracket(t))
    except ValueError:  # playoff rounds that are no bracket this app seeds (an import)
        return {}


def cut_note(t: Tournament) -> dict[str, Any] | None:
    """What the public bracket says when the cut was kept or re-seeded after a correction
    to a Swiss result: {"decision": "keep" | "reseed", "round", "table" (None when not
    known), "at" (when the correction was made)}; None when the seeds stand as seeded.

    Read from the tournament's row (Tournament.cut_decision): starting the cut again
    clears any decision.
    """
    if t.cut_decision not in (CutDecision.KEEP, CutDecision.RESEED):
        return None
    return {
        "decision": t.cut_decision,
        "round": t.cut_correction_round,
        "table": t.cut_correction_table,
        "at": t.cut_correction_at or t.cut_decided_at,
    }
