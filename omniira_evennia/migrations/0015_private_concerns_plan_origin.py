"""
Hardening, round two (issue #26, points 3 and 4).

- `Concern.private`: a concern someone raised in talk is shown only in conversations with that
  someone. It used to be decided when read, from whether the source had an account, and
  Evennia clears that link when a player logs out, so a player's worry became everyone's.
  Existing rows raised by anyone but the NPC itself become private.
- `Plan.origin` (whose turn the promise came from) and `Plan.suspect`: keeping a promise writes a
  memory about the player it was made to, capped and marked as their words, never about
  whoever the model named. Existing plans made to a player get that player as their origin.
"""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import F


def mark_private_and_origins(apps, schema_editor):
    Concern = apps.get_model("omniira_evennia", "Concern")
    Plan = apps.get_model("omniira_evennia", "Plan")
    Concern.objects.filter(source__isnull=False).exclude(source=F("npc")).update(private=True)
    Plan.objects.filter(to__isnull=False, to_kind="player").update(origin=F("to"))


class Migration(migrations.Migration):

    dependencies = [
        ("objects", "0013_defaultobject_alter_objectdb_id_defaultcharacter_and_more"),
        ("omniira_evennia", "0014_budget_retention"),
    ]

    operations = [
        migrations.AddField(
            model_name="concern", name="private", field=models.BooleanField(default=False)
        ),
        migrations.AddField(
            model_name="plan",
            name="origin",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="objects.objectdb",
            ),
        ),
        migrations.AddField(
            model_name="plan", name="suspect", field=models.BooleanField(default=False)
        ),
        migrations.RunPython(mark_private_and_origins, migrations.RunPython.noop),
    ]
