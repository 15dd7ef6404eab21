# The event's default language (issue 29). Named 0015 beside a parallel 0014: the lead
# merges them.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0013_decklists"),
    ]

    operations = [
        migrations.AddField(
            model_name="tournament",
            name="language",
            field=models.CharField(blank=True, default="", max_length=8),
        ),
    ]
