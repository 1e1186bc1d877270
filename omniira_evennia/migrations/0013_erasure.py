"""
Erasure tombstones (issue #17): when each player's data was erased, so a reply, review, gossip
or rollover job that began before the erasure cannot write about the player afterwards. A new
table only; existing data is untouched.
"""

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("omniira_evennia", "0012_memory_origin"),
    ]

    operations = [
        migrations.CreateModel(
            name="Erasure",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("player_id", models.IntegerField(db_index=True)),
                ("erased_at", models.DateTimeField(default=django.utils.timezone.now)),
            ],
            options={
                "ordering": ["-erased_at", "-id"],
            },
        ),
    ]
