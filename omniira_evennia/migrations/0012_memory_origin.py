"""
Where a memory came from (issue #17): `origin`, the player whose words it was learned from, kept
when gossip passes the fact on, so a player's claim is never laundered into an NPC's own
knowledge. Nullable: SQLite adds the column without rebuilding the table. Existing rows have no
recorded origin.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("objects", "0013_defaultobject_alter_objectdb_id_defaultcharacter_and_more"),
        ("omniira_evennia", "0011_concern_policy"),
    ]

    operations = [
        migrations.AddField(
            model_name="memory",
            name="origin",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="objects.objectdb",
            ),
        ),
    ]
