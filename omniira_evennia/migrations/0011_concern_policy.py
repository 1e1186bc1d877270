"""
Concerns pass the write policy (issue #17): a suspect mark (kept for builders, never shown to
the model) and the game day they were raised (they expire CONCERN_DAYS game days later).
Defaulted columns: SQLite adds them without rebuilding the table.
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("omniira_evennia", "0010_turn_vectors"),
    ]

    operations = [
        migrations.AddField(
            model_name="concern", name="suspect", field=models.BooleanField(default=False)
        ),
        migrations.AddField(
            model_name="concern", name="game_day", field=models.IntegerField(default=0)
        ),
    ]
