"""
Each stored vector records the embedder that made it (issue #19): an `embedder` column on the
three tables with embeddings. Existing rows keep NULL ("unrecorded": their vectors came from
all-MiniLM-L6-v2 through sentence-transformers, the only embedder before this migration); the
system check then says how many rows `@memory reembed` (or `evennia omniira_reembed`) should
re-embed with the configured embedder. Nullable, so SQLite adds the column without rebuilding
the tables (which would also drop the full-text triggers).
"""

from django.db import migrations, models


def _embedder_field():
    return models.CharField(blank=True, default=None, max_length=100, null=True)


class Migration(migrations.Migration):

    dependencies = [
        ("omniira_evennia", "0007_upgrade_paths"),
    ]

    operations = [
        migrations.AddField(model_name="memory", name="embedder", field=_embedder_field()),
        migrations.AddField(model_name="reflection", name="embedder", field=_embedder_field()),
        migrations.AddField(model_name="diaryentry", name="embedder", field=_embedder_field()),
        migrations.AddIndex(
            model_name="memory",
            index=models.Index(fields=["embedder"], name="omniira_mem_embedder"),
        ),
    ]
