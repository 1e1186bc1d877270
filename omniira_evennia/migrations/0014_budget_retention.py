"""
Token counts never negative, and indexes for retention (issue #17, the low findings).

- `LLMUsage.tokens_in` / `tokens_out` become PositiveIntegerField: the database itself rejects a
  negative count (a CHECK constraint), as the budget does (llm/guards.Budget), since a negative
  row would lower the day's spend. Rows stored negative before (a server reporting negative
  usage) are set to 0 first, so the constraint can be added; on SQLite the table is rebuilt.
- `AuditLog.created_at` and `ConversationTurn.game_day` get indexes: the rollover deletes by
  them every day (rollover/service.apply_retention).
"""

from django.db import migrations, models


def clamp_negative_tokens(apps, schema_editor):
    LLMUsage = apps.get_model("omniira_evennia", "LLMUsage")
    LLMUsage.objects.filter(tokens_in__lt=0).update(tokens_in=0)
    LLMUsage.objects.filter(tokens_out__lt=0).update(tokens_out=0)


class Migration(migrations.Migration):

    dependencies = [
        ("omniira_evennia", "0013_erasure"),
    ]

    operations = [
        migrations.RunPython(clamp_negative_tokens, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="llmusage",
            name="tokens_in",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AlterField(
            model_name="llmusage",
            name="tokens_out",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddIndex(
            model_name="auditlog",
            index=models.Index(fields=["created_at"], name="omniira_audit_time"),
        ),
        migrations.AddIndex(
            model_name="conversationturn",
            index=models.Index(fields=["game_day"], name="omniira_turn_day"),
        ),
    ]
