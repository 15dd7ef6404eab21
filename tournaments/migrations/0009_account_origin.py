"""Who an account created on an event's staff screen was made for (issue 24 item 5): only
that event's owner, or a site admin, may make a new set-password link for it."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

PREFIX = "Staff account created: "


def fill(apps, schema_editor):
    """Accounts created on a staff screen before this migration, as their audit entries
    name them, when they still have no password (the only ones a new link is for): their
    event's owner keeps the right to renew their link. The latest entry for a name wins."""
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    AuditEntry = apps.get_model("tournaments", "AuditEntry")
    AccountOrigin = apps.get_model("tournaments", "AccountOrigin")
    entries = (
        AuditEntry.objects.filter(action="staff", summary__startswith=PREFIX)
        .order_by("at", "id")
        .values_list("after", "tournament_id", "tournament__owner_id")
    )
    made = {}
    for name, tournament_id, owner_id in entries:
        if isinstance(name, str):
            made[name] = (tournament_id, owner_id)
    users = User.objects.filter(username__in=list(made), password__startswith="!", last_login=None)
    for user in users:
        tournament_id, owner_id = made[user.username]
        AccountOrigin.objects.get_or_create(
            user=user, defaults={"tournament_id": tournament_id, "created_for_id": owner_id}
        )


class Migration(migrations.Migration):

    dependencies = [
        ('auth', '0012_alter_user_first_name_max_length'),
        ('tournaments', '0008_fill_audit_facts'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='AccountOrigin',
            fields=[
                ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='account_origin', serialize=False, to=settings.AUTH_USER_MODEL)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('created_for', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('tournament', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='tournaments.tournament')),
            ],
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
