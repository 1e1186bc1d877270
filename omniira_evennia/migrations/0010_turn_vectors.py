"""
The verbatim lane (issue #16): conversation lines keep the vector their turn computed (the
player's line is embedded as the retrieval query anyway), the embedder that made it, and a
suspect mark for lines of flagged turns. Nullable or defaulted columns: SQLite adds them
without rebuilding the table; on PostgreSQL the vector column is pgvector (extension from 0005).
"""

from django.db import migrations, models

import omniira_evennia.fields


class Migration(migrations.Migration):

    dependencies = [
        ("omniira_evennia", "0009_memory_history"),
    ]

    operations = [
        migrations.AddField(
            model_name="conversationturn",
            name="embedding",
            field=omniira_evennia.fields.EmbeddingField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="conversationturn",
            name="embedder",
            field=models.CharField(blank=True, default=None, max_length=100, null=True),
        ),
        migrations.AddField(
            model_name="conversationturn",
            name="suspect",
            field=models.BooleanField(default=False),
        ),
    ]
