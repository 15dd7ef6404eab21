"""The opponent's own result on a disputed report (issue 25 item 3), beside the report.

Until now a "Report this instead" answer was kept only in its audit entry's
`after["claim"]` (the disputer's games first). A report still disputed gets it back from
its latest such entry, turned to seat order, so the disputes open at the upgrade show both
claims too.
"""

import re

from django.db import migrations, models

CLAIM = re.compile(r"^(\d{1,2})-(\d{1,2})(?:-(\d{1,2}))?$")


def fill(apps, schema_editor):
    Report = apps.get_model("tournaments", "Report")
    Seat = apps.get_model("tournaments", "Seat")
    AuditEntry = apps.get_model("tournaments", "AuditEntry")
    disputed = Report.objects.filter(
        state="disputed", answered_by__isnull=False, counter_wins_a__isnull=True
    )
    for report in disputed.iterator():
        entry = (
            AuditEntry.objects.filter(
                action="report", after__match=report.match_id, after__event="disputed"
            )
            .order_by("-at", "-id")
            .values_list("after", flat=True)
            .first()
        )
        found = CLAIM.match(str((entry or {}).get("claim") or ""))
        if found is None:
            continue  # a plain "Dispute": no result of their own
        mine, theirs, draws = int(found[1]), int(found[2]), int(found[3] or 0)
        position = (
            Seat.objects.filter(match_id=report.match_id, player_id=report.answered_by_id)
            .values_list("position", flat=True)
            .first()
        )
        if position is None:
            continue
        first = position == min(
            Seat.objects.filter(match_id=report.match_id).values_list("position", flat=True)
        )
        a, b = (mine, theirs) if first else (theirs, mine)
        Report.objects.filter(pk=report.pk).update(
            counter_wins_a=a, counter_wins_b=b, counter_draws=draws
        )


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0009_account_origin"),
    ]

    operations = [
        migrations.AddField(
            model_name="report",
            name="counter_draws",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="report",
            name="counter_wins_a",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="report",
            name="counter_wins_b",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AddConstraint(
            model_name="report",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(
                        ("counter_wins_a__isnull", True),
                        ("counter_wins_b__isnull", True),
                        ("counter_draws__isnull", True),
                    ),
                    models.Q(
                        ("counter_wins_a__isnull", False),
                        ("counter_wins_b__isnull", False),
                        ("counter_draws__isnull", False),
                    ),
                    _connector="OR",
                ),
                name="report_counter_claim_whole",
            ),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
