"""
What an NPC keeps must be true, and no conversation is lost (issue #24).

- `Memory.grounding`: what a memory rests on (the line and words that ground it, or its
  source when a builder, game code or the NPC itself wrote it). Memories stored before this
  release are marked as such, so the nightly reflection still draws on them.
- `Conversation.rejected`: the facts a review proposed that the write policy refused, and why.
- `attempts`, `retry_at`, `last_error` on conversations (their review) and on the rollover's
  daily work (diaries, reflections): failed work is tried again with backoff, across restarts.
"""

from django.db import migrations, models


def mark_existing(apps, schema_editor):
    Memory = apps.get_model("omniira_evennia", "Memory")
    Memory.objects.filter(grounding__isnull=True).update(grounding={"source": "before grounding"})


class Migration(migrations.Migration):

    dependencies = [
        ("omniira_evennia", "0015_private_concerns_plan_origin"),
    ]

    operations = [
        migrations.AddField(
            model_name="memory",
            name="grounding",
            field=models.JSONField(blank=True, default=None, null=True),
        ),
        migrations.RunPython(mark_existing, migrations.RunPython.noop),
        migrations.AddField(
            model_name="conversation",
            name="rejected",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="conversation",
            name="attempts",
            field=models.SmallIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="conversation",
            name="retry_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="conversation",
            name="last_error",
            field=models.CharField(blank=True, max_length=200),
        ),
        migrations.AddField(
            model_name="dailywork",
            name="attempts",
            field=models.SmallIntegerField(default=1),
        ),
        migrations.AddField(
            model_name="dailywork",
            name="retry_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="dailywork",
            name="last_error",
            field=models.CharField(blank=True, max_length=200),
        ),
    ]
