"""Fill the top cut's columns (0005) from the audit log, where they were kept until now.

Until 0005 the organizer's keep/re-seed decision after a correction lived only in the
newest top-cut audit entry: its `after` held {"cut_decision": "keep" | "reseed",
"changes": [...], "correction": {"round", "table", "at"}}; an entry without
"cut_decision" (starting the cut) replaced any earlier decision. The newest entry without
it is when the cut started. Self-contained on purpose: a migration keeps the format it
was written for, whatever the code reads later.
"""

from django.db import migrations
from django.utils.dateparse import parse_datetime

DECISION_KEY = "cut_decision"
DECISIONS = ("keep", "reseed")


def _int(value):
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 32767
    return value if ok else None


def _instant(value):
    try:
        return parse_datetime(value) if isinstance(value, str) else None
    except ValueError:
        return None


def fill(apps, schema_editor):
    Tournament = apps.get_model("tournaments", "Tournament")
    AuditEntry = apps.get_model("tournaments", "AuditEntry")
    entries = {}
    for tournament_id, at, after in (
        AuditEntry.objects.filter(action="top_cut")
        .order_by("tournament_id", "-at", "-id")
        .values_list("tournament_id", "at", "after")
        .iterator()
    ):
        entries.setdefault(tournament_id, []).append((at, after if isinstance(after, dict) else {}))
    for tournament_id, newest_first in entries.items():
        fields = {}
        started = next((at for at, after in newest_first if DECISION_KEY not in after), None)
        if started is not None:
            fields["cut_started_at"] = started
        at, after = newest_first[0]
        if after.get(DECISION_KEY) in DECISIONS:
            correction = after.get("correction")
            correction = correction if isinstance(correction, dict) else {}
            changes = after.get("changes")
            fields.update(
                cut_decision=after[DECISION_KEY],
                cut_decided_at=at,
                cut_decision_changes=changes if isinstance(changes, list) else [],
                cut_correction_round=_int(correction.get("round")),
                cut_correction_table=_int(correction.get("table")),
                cut_correction_at=_instant(correction.get("at")),
            )
        if fields:
            Tournament.objects.filter(pk=tournament_id).update(**fields)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0005_cut_decision"),
    ]

    operations = [
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
