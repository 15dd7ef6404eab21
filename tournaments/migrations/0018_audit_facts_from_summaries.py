"""Every fact an older audit entry lacks, stored once from its summary (issue 36).

Until now the audit screen read the facts an entry written by an older version lacked
back from its English summary on every view (its round and table, its players, and the
keys of `after` its sentence needs: a registration's "late", a drop's "by_player", a
pairing's "playoff", a cut's rule, a top-cut decision's changes, an import's counts, a
clock's event and minutes, which staff change it was). This stores them, once, with the
reader that screen used, frozen in tournaments.audit_legacy (shared with the restore of
older backups, so it is imported rather than copied: it must never change). From here
the screen reads stored facts only. An entry nothing could be read from stays as it is
and shows its summary as written.

Players the JSON holds by id only are named with their current names, as the screen named
them. Backwards: nothing to undo (the facts added are what the screen showed already, and
the older code reads an entry that has them the same way).
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

BATCH = 2_000


def fill(apps: Any, schema_editor: Any) -> None:
    from tournaments.audit_legacy import read

    Player = apps.get_model("tournaments", "Player")
    AuditEntry = apps.get_model("tournaments", "AuditEntry")
    AuditPlayer = apps.get_model("tournaments", "AuditPlayer")
    names: dict[int, dict[str, str]] = {}
    last = 0
    while True:
        batch = list(
            AuditEntry.objects.filter(id__gt=last)
            .order_by("id")
            .only("id", "tournament_id", "action", "summary", "before", "after", "round", "table")[
                :BATCH
            ]
        )
        if not batch:
            return
        last = batch[-1].id
        stored: dict[int, list[tuple[str, str | None]]] = {}
        rows = AuditPlayer.objects.filter(entry_id__in=[e.id for e in batch]).order_by("id")
        for entry_id, ext, name in rows.values_list("entry_id", "external_id", "name"):
            stored.setdefault(entry_id, []).append((name, ext))
        changed, replaced, named = [], [], []
        for e in batch:
            if e.tournament_id not in names:
                players = Player.objects.filter(tournament_id=e.tournament_id)
                names[e.tournament_id] = dict(players.values_list("external_id", "name"))
            had = tuple(stored.get(e.id, ()))
            facts = read(
                e.action,
                e.summary,
                e.before,
                e.after,
                round=e.round,
                table=e.table,
                players=had,
                names=names[e.tournament_id],
            )
            if (facts.round, facts.table, facts.after) != (e.round, e.table, e.after):
                e.round, e.table, e.after = facts.round, facts.table, facts.after
                changed.append(e)
            if facts.players != had:  # more players than it stored: its players anew
                replaced.append(e.id)
                named += [
                    AuditPlayer(entry_id=e.id, external_id=x, name=n) for n, x in facts.players
                ]
        AuditEntry.objects.bulk_update(changed, ["round", "table", "after"], batch_size=500)
        AuditPlayer.objects.filter(entry_id__in=replaced).delete()
        AuditPlayer.objects.bulk_create(named, batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0017_decklist_problems_as_data"),
    ]

    operations = [
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
