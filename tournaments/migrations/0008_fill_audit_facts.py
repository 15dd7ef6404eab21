"""Fill the audit entries' round, table and players (0007) for the entries written before.

Until 0007 the audit screen found an entry's round and players by matching its summary's
wording and its JSON (tournaments.pages.audit, round_filter and player_filter then). This
reads the same facts once, with the audit log's parsers of then (frozen since in
tournaments.audit_legacy, issue 36), and stores them where the filters now look. Players the JSON holds by id only are named with
their current names; those the summary names only keep no id (the filter matches them by
any name the player has had).
"""

from django.db import migrations

BATCH = 2_000


def fill(apps, schema_editor):
    from tournaments.audit_legacy import read

    Player = apps.get_model("tournaments", "Player")
    AuditEntry = apps.get_model("tournaments", "AuditEntry")
    AuditPlayer = apps.get_model("tournaments", "AuditPlayer")
    contexts = {}
    last = 0
    while True:
        batch = list(
            AuditEntry.objects.filter(id__gt=last)
            .order_by("id")
            .values_list("id", "tournament_id", "action", "summary", "before", "after")[:BATCH]
        )
        if not batch:
            return
        last = batch[-1][0]
        entries, named = [], []
        for pk, tournament_id, action, summary, before, after in batch:
            if tournament_id not in contexts:
                names = Player.objects.filter(tournament_id=tournament_id).values_list(
                    "external_id", "name"
                )
                contexts[tournament_id] = dict(names)
            # Only the round, table and players: `after` is filled by 0018.
            facts = read(action, summary, before, after, names=contexts[tournament_id])
            entries.append(AuditEntry(pk=pk, round=facts.round, table=facts.table))
            named += [AuditPlayer(entry_id=pk, external_id=e, name=n) for n, e in facts.players]
        AuditEntry.objects.bulk_update(entries, ["round", "table"], batch_size=500)
        AuditPlayer.objects.bulk_create(named, batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0007_audit_facts"),
    ]

    operations = [
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
