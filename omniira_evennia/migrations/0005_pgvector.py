"""
Embeddings become pgvector columns on PostgreSQL; nothing changes on SQLite.

Hand-written. Django's state only learns that the three `embedding` fields are now
`EmbeddingField`s (a BLOB on SQLite, as before, so SQLite needs no table rebuild). On
PostgreSQL the database side creates the `vector` extension (needs a role allowed to, or a
DBA who ran `CREATE EXTENSION vector` first), converts each bytea column to `vector(384)`
row by row (existing rows keep their vectors; unreadable ones become NULL and are counted in
the migration's output), and adds an HNSW cosine index on memories for searches across all
NPCs. Per-NPC searches do not use it (see store.nearest_memories).
"""

import numpy as np
from django.db import migrations

import omniira_evennia.fields

TABLES = ("omniira_evennia_memory", "omniira_evennia_reflection", "omniira_evennia_diaryentry")
HNSW_INDEX = "omniira_memory_embedding_hnsw"
DIM = 384


def _convert(schema_editor, table, to_vector):
    """Swap `table.embedding` between bytea and vector(384), converting the values."""
    from omniira_evennia.fields import parse_vector_literal, vector_literal

    new_type = f"vector({DIM})" if to_vector else "bytea"
    quote = schema_editor.quote_name
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"ALTER TABLE {quote(table)} ADD COLUMN embedding_new {new_type} NULL")
        cursor.execute(f"SELECT id, embedding FROM {quote(table)} WHERE embedding IS NOT NULL")
        rows, dropped = [], 0
        for row_id, value in cursor.fetchall():
            if to_vector:
                data = bytes(value)
                if len(data) != DIM * 4:
                    dropped += 1
                    continue
                rows.append((vector_literal(np.frombuffer(data, dtype=np.float32)), row_id))
            else:
                rows.append((parse_vector_literal(value), row_id))
        cast = f"::vector({DIM})" if to_vector else ""
        cursor.executemany(
            f"UPDATE {quote(table)} SET embedding_new = %s{cast} WHERE id = %s", rows
        )
        cursor.execute(f"ALTER TABLE {quote(table)} DROP COLUMN embedding")
        cursor.execute(f"ALTER TABLE {quote(table)} RENAME COLUMN embedding_new TO embedding")
    if dropped:
        print(f"  {table}: {dropped} unreadable embeddings set to NULL")


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS vector")
    for table in TABLES:
        _convert(schema_editor, table, to_vector=True)
    schema_editor.execute(
        f"CREATE INDEX {HNSW_INDEX} ON omniira_evennia_memory "
        "USING hnsw (embedding vector_cosine_ops)"
    )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"DROP INDEX IF EXISTS {HNSW_INDEX}")
    for table in TABLES:
        _convert(schema_editor, table, to_vector=False)


def _embedding_field():
    return omniira_evennia.fields.EmbeddingField(blank=True, null=True)


class Migration(migrations.Migration):
    dependencies = [("omniira_evennia", "0004_safety")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField("memory", "embedding", _embedding_field()),
                migrations.AlterField("reflection", "embedding", _embedding_field()),
                migrations.AlterField("diaryentry", "embedding", _embedding_field()),
            ],
            database_operations=[migrations.RunPython(forwards, backwards)],
        )
    ]
