# Issue 15: the stored "what do I need?" figures, one row per (tournament, round).

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('scoring', '0002_standingsstate_drop_version'),
        ('tournaments', '0003_self_service'),
    ]

    operations = [
        migrations.CreateModel(
            name='Outlook',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('state', models.CharField(choices=[('computing', 'Computing'), ('ready', 'Ready'), ('failed', 'Failed'), ('not_applicable', 'Not applicable')], default='computing', max_length=16)),
                ('version', models.PositiveBigIntegerField(default=0)),
                ('rounds_after', models.PositiveSmallIntegerField(default=0)),
                ('cut', models.PositiveSmallIntegerField(default=0)),
                ('seed', models.BigIntegerField(default=0)),
                ('simulations', models.PositiveIntegerField(default=0)),
                ('margin', models.FloatField(default=0.0)),
                ('model', models.TextField(blank=True, default='')),
                ('data', models.JSONField(default=dict)),
                ('error', models.CharField(blank=True, default='', max_length=300)),
                ('computed_at', models.DateTimeField(blank=True, null=True)),
                ('took_ms', models.PositiveIntegerField(blank=True, null=True)),
                ('round', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='outlooks', to='tournaments.round')),
                ('tournament', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='outlooks', to='tournaments.tournament')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('tournament', 'round'), name='outlook_one_per_round'), models.CheckConstraint(condition=models.Q(('state__in', ['computing', 'ready', 'failed', 'not_applicable'])), name='outlook_state_known'), models.CheckConstraint(condition=models.Q(('seed__gte', 0)), name='outlook_seed_not_negative')],
            },
        ),
    ]
