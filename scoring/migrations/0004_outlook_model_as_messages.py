# Issue 36: an outlook's model is stored as messages (codes and values), not English.
#
# Rows stored before held the engine's MODEL as one English sentence. The engine's
# words of that version are converted once to the messages it now stores; any other
# text (an earlier engine's words) is dropped: the model is only the card's explanation,
# the figures never depend on it, and the next run of the round stores it anew.

import json

from django.db import migrations, models

# The engine's MODEL as it was stored (the only place this English is still matched).
_STORED_BEFORE = (
    "Each unfinished match: 45 % first player wins, 45 % second player wins, 10 % draw "
    "(double losses, drops and corrections are not simulated); game scores drawn from "
    "this event's own results (decisive and drawn matches separately). A later round is "
    "paired top-down within point groups in random order, with no rematch check and a bye "
    "for the last player; standings and tiebreakers are exact in every simulation. "
    "Proven answers (in or out whatever happens, the result a player needs, a draw that "
    "puts both in) count every result an unfinished match can still get, a double loss "
    "included, on points alone with tiebreakers at their worst; they assume no further "
    "drops, no correction of a result already entered, and the top cut and planned rounds "
    "as they are set now."
)
# scoring.engine.outlook.MODEL's data, written out: a migration keeps what it wrote.
_AS_MESSAGES = [
    {"code": "outlook.simulated", "params": {"first": 45, "second": 45, "draw": 10}},
    {"code": "outlook.proofs", "params": {}},
]


def to_messages(apps, schema_editor):
    Outlook = apps.get_model("scoring", "Outlook")
    for pk, model in Outlook.objects.values_list("pk", "model").iterator():
        data = _AS_MESSAGES if model == _STORED_BEFORE else []
        # Still a text column here: the JSON's text, which the next step reads as JSON.
        Outlook.objects.filter(pk=pk).update(model=json.dumps(data))


def to_english(apps, schema_editor):
    Outlook = apps.get_model("scoring", "Outlook")
    for pk, model in Outlook.objects.values_list("pk", "model").iterator():
        try:
            data = json.loads(model)  # the database's own JSON text (jsonb reorders keys)
        except (TypeError, ValueError):
            data = None
        Outlook.objects.filter(pk=pk).update(model=_STORED_BEFORE if data == _AS_MESSAGES else "")


class Migration(migrations.Migration):

    dependencies = [
        ('scoring', '0003_outlook'),
    ]

    operations = [
        migrations.RunPython(to_messages, to_english),
        migrations.AlterField(
            model_name='outlook',
            name='model',
            field=models.JSONField(blank=True, default=list),
        ),
    ]
