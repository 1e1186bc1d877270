"""
Superseded values (issue #16): when a key is remembered again with a different value, the old
value is kept in `history` (newest first) instead of being erased. Existing rows start with an
empty history. The column has a default, so SQLite adds it without rebuilding the table.
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("omniira_evennia", "0008_embedder"),
    ]

    operations = [
        migrations.AddField(
            model_name="memory",
            name="history",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
