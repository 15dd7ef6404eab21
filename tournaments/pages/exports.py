"""Downloads: the standings and a round's pairings as CSV, escaped for spreadsheets, and
the public read-only JSON (issue 13).

The command line (`manage.py standings SLUG --format csv|json`) and the browser's
download (`/t/<slug>/standings.csv`, `/t/<slug>/standings.json`) write the same data
from here. The JSON documents carry only what the public pages show: names, ids,
pairings, results and standings; never staff, audit entries or anything of an account.

`name` is always the name as stored (the interchange format's, shared/spec/
interchange.md). Where players of the event share a name (pages.event.namesakes), each of
them also gets `display_name`, the name the pages show ("Alex Martin (2)"): a CSV then
has a `display_name` column, a JSON player object the key, only where it differs.
"""

from __future__ import annotations

import csv
import io
from fractions import Fraction
from typing import Any

from scoring.models import Standing
from scoring.services import points_edge, standings_document
from tournaments.models import MatchKind, Player, Round, Tournament
from tournaments.pages.bracket import finishes
from tournaments.pages.common import round_label
from tournaments.pages.event import event_view, namesakes
from tournaments.pages.public import pairing_rows, player_rounds, round_tables
from tournaments.rules import GAME, NOT_REPORTED, csv_cell, result_from_side


def _csv(header: list[str], rows: list[list[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([csv_cell(c) for c in row] for row in rows)
    return out.getvalue()


def _finished(t: Tournament, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows with `finish` (their top-cut finish, "1st" to "5th-8th", None outside
    the cut or while still playing in it: pages.bracket.finishes) and `dropped`. The
    stored order already puts the top cut first, by finish."""
    finish = finishes(t)
    dropped = set(
        t.players.filter(dropped_after_round__isnull=False).values_list("external_id", flat=True)
    )
    for row in rows:
        found = finish.get(row["id"])
        row["finish"] = found.english if found is not None else None
        row["dropped"] = row["id"] in dropped
    return rows


def standings_csv(t: Tournament) -> str:
    rows = _finished(t, standings_document(t)["standings"])
    keys = list(rows[0]["tiebreakers"]) if rows else []
    labels = namesakes(t)
    shown = ["display_name"] if any(r["id"] in labels for r in rows) else []
    header = ["rank", "id", "name", *shown, "points", "wins", "losses", "draws", *keys]

    def cells(row: dict[str, Any]) -> list[Any]:
        tbs = [row["tiebreakers"][k] for k in keys]
        named = {**row, "display_name": labels.get(row["id"], row["name"])}
        return [
            *(named[h] for h in header[: 7 + len(shown)]),
            *(" ".join(map(str, v)) if isinstance(v, list) else ("" if v is None else v)
              for v in tbs),
            row["finish"] or "",
            "yes" if row["dropped"] else "no",
        ]  # fmt: skip

    return _csv([*header, "finish", "dropped"], [cells(r) for r in rows])


def _opponents(tables: list[dict[str, Any]], labels: dict[str, str]) -> dict[str, str]:
    """player id -> their opponents as the pages name them (namesakes told apart)."""
    found = {}
    for entry in tables:
        for seat in entry["seats"]:
            others = [s for s in entry["seats"] if s is not seat and not s.absent]
            ids = (o.player.external_id for o in others)
            found[seat.player.external_id] = ", ".join(
                labels.get(i, o.player.name) for i, o in zip(ids, others, strict=True)
            )
    return found


def pairings_csv(t: Tournament, round_: Round) -> str:
    """One line per player, alphabetical: table, opponent(s), result so far."""
    tables, labels = round_tables(round_), namesakes(t)
    opponents = _opponents(tables, labels) if labels else {}
    shown = ["display_name"] if any(s.player.external_id in labels
                                    for e in tables for s in e["seats"]) else []  # fmt: skip
    rows = []
    for r in pairing_rows(tables):
        opponent = opponents.get(r["id"], r["opponents"])
        if r["kind"] == MatchKind.BYE:
            opponent = "(bye)"
        elif r["kind"] == MatchKind.LOSS:
            opponent = "(no opponent)"
        own = [labels.get(r["id"], r["name"])] if shown else []
        result = r["result"].english if r["result"] is not None else ""
        rows.append([round_.number, r["table"] or "", r["id"], r["name"], *own, opponent,
                     result])  # fmt: skip
    return _csv(["round", "table", "id", "name", *shown, "opponent", "result"], rows)


def _named(ext: str, name: str, labels: dict[str, str]) -> dict[str, str]:
    """A player's id and stored name, and their shown name where it differs."""
    found = {"id": ext, "name": name}
    if ext in labels:
        found["display_name"] = labels[ext]
    return found


# --- JSON ------------------------------------------------------------------------------


def standings_json(t: Tournament) -> dict[str, Any]:
    """The stored standings: the very object `manage.py standings SLUG --format json`
    prints (both call this), namesakes' rows with their `display_name`, every row with
    its top-cut `finish` and `dropped` (`_finished`)."""
    document = standings_document(t)
    _finished(t, document["standings"])
    labels = namesakes(t)
    for row in document["standings"] if labels else []:
        if row["id"] in labels:
            row["display_name"] = labels[row["id"]]
    return document


def pairings_json(t: Tournament, round_: Round | None) -> dict[str, Any]:
    """A round's tables: each player's id and name with their own-side result, and the
    table's result from its first seat's side ("win 2-1"), with the games as numbers."""
    tables = []
    labels = namesakes(t) if round_ is not None else {}
    for entry in round_tables(round_) if round_ is not None else []:
        match, seats = entry["match"], entry["seats"]
        reported = match.reported or match.kind in (MatchKind.BYE, MatchKind.LOSS)
        players = []
        for mine, seat in enumerate(seats):
            player: dict[str, Any] = {
                **_named(seat.player.external_id, seat.player.name, labels),
                "result": result_from_side(match, seats, mine).english,
            }
            if match.kind == GAME:
                player["place"] = seat.place
                player["absent"] = seat.absent
            players.append(player)
        two_player = match.kind in (MatchKind.PLAYED, MatchKind.DOUBLE_LOSS)
        tables.append(
            {
                "table": match.table,
                "kind": match.kind,
                "reported": reported,
                "result": result_from_side(match, seats, 0).english if seats else NOT_REPORTED,
                "games": [s.games_won or 0 for s in seats] if two_player and reported else None,
                "draws": match.draws if two_player and reported else None,
                "players": players,
            }
        )
    return {
        "tournament": t.slug,
        "version": t.version,
        "round": round_.number if round_ is not None else None,
        # English, as the API has always said it: rendered here from the round's name.
        "label": str(round_label(round_) or ""),
        "playoff": round_.playoff if round_ is not None else False,
        "tables": tables,
    }


def player_json(t: Tournament, me: Player) -> dict[str, Any]:
    """One player's rounds, each read from their side, and their stored standing."""
    history, _names = player_rounds(t, me, event_view(t).seating.neighbourhood(me))
    labels = namesakes(t)
    rounds = []
    for h in history:
        match = h["match"]
        games = h["games"]
        two_player = match.kind in (MatchKind.PLAYED, MatchKind.DOUBLE_LOSS)
        rounds.append(
            {
                "round": h["round"].number,
                "playoff": h["round"].playoff,
                "table": match.table,
                "kind": match.kind,
                "opponents": [
                    _named(o["player"].external_id, o["player"].name, labels)
                    for o in h["opponents"]
                ],
                "result": h["result"].english,
                "outcome": h["result"].word,
                # Their games first, then the opponent's: as "result" reads.
                "games": (
                    [
                        games[h["mine"]] or 0,
                        *(g or 0 for i, g in enumerate(games) if i != h["mine"]),
                    ]
                    if two_player and games is not None
                    else None
                ),
                "draws": match.draws if two_player and games is not None else None,
            }
        )
    row = (
        Standing.objects.filter(player=me)
        .values_list("rank", "points_exact", "wins", "losses", "draws", "played", "tiebreakers")
        .first()
    )
    standing = None
    if row is not None:
        rank, points, wins, losses, draws, played, tiebreakers = row
        standing = {
            "rank": rank,
            "points": points_edge(Fraction(points)),
            "wins": wins,
            "losses": losses,
            "draws": draws,
            "played": played,
            "tiebreakers": tiebreakers,
        }
    return {
        "tournament": t.slug,
        "version": t.version,
        "player": {
            **_named(me.external_id, me.name, labels),
            "dropped_after_round": me.dropped_after_round,
        },
        "standing": standing,
        "rounds": rounds,
    }
