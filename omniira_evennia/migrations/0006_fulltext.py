"""
Full-text index over memory values, beliefs and diary entries (issue #11).

SQLite: FTS5 contentless tables plus triggers on the base tables; PostgreSQL: GIN expression
indexes; other databases: nothing. The DDL is in
`omniira_evennia.memory.fulltext` (`install` / `uninstall`), which the app also runs after every
`migrate` to put back triggers that a later table rebuild dropped.
"""

from django.db import migrations


def forward(apps, schema_editor):
    from omniira_evennia.memory import fulltext

    fulltext.install(schema_editor.connection)


def backward(apps, schema_editor):
    from omniira_evennia.memory import fulltext

    fulltext.uninstall(schema_editor.connection)


class Migration(migrations.Migration):

    dependencies = [
        ("omniira_evennia", "0005_pgvector"),
    ]

    operations = [migrations.RunPython(forward, backward, elidable=False)]
