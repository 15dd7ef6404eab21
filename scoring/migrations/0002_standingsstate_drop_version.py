from django.db import migrations


class Migration(migrations.Migration):
    """StandingsState.version was written and never read: the tournament's version is
    the one freshness number."""

    dependencies = [("scoring", "0001_initial")]

    operations = [migrations.RemoveField(model_name="standingsstate", name="version")]
