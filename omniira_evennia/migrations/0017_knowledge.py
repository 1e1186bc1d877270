"""
NPCs who know their world (issue #25).

- `Knowledge`: what NPCs know about the world, authored by a builder, witnessed or heard, for
  one NPC, a room, a zone, a tag or the whole world (omniira_evennia/knowledge/).
- `Memory.uncertain`: a player's claim that contradicts what the NPC knows, kept as doubtful.
  Existing memories are certain (the default), as they were.
- The full-text index gets the knowledge table (`fulltext.install` adds what is missing; on
  SQLite an FTS5 table and its triggers, on PostgreSQL a GIN expression index).
"""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

import omniira_evennia.fields


def index_knowledge(apps, schema_editor):
    from omniira_evennia.memory import fulltext

    fulltext.install(schema_editor.connection)


def drop_knowledge_index(apps, schema_editor):
    from omniira_evennia.memory import fulltext

    knowledge = [t for t in fulltext.TABLES if t.name == fulltext.KNOWLEDGE_FTS]
    fulltext.uninstall(schema_editor.connection, knowledge)


class Migration(migrations.Migration):

    dependencies = [
        ("objects", "0013_defaultobject_alter_objectdb_id_defaultcharacter_and_more"),
        ("omniira_evennia", "0016_grounding_and_retries"),
    ]

    operations = [
        migrations.AddField(
            model_name="memory",
            name="uncertain",
            field=models.BooleanField(default=False),
        ),
        migrations.CreateModel(
            name="Knowledge",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("key", models.CharField(max_length=64)),
                ("text", models.CharField(max_length=500)),
                (
                    "category",
                    models.CharField(
                        choices=[
                            ("place", "Place"),
                            ("people", "People"),
                            ("trade", "trade and wares"),
                            ("event", "world event"),
                            ("lore", "Lore"),
                            ("faction", "Faction"),
                        ],
                        default="lore",
                        max_length=16,
                    ),
                ),
                (
                    "scope",
                    models.CharField(
                        choices=[
                            ("npc", "Npc"),
                            ("room", "Room"),
                            ("zone", "Zone"),
                            ("tag", "Tag"),
                            ("world", "World"),
                        ],
                        default="world",
                        max_length=8,
                    ),
                ),
                ("scope_name", models.CharField(blank=True, max_length=100)),
                ("scope_token", models.CharField(db_index=True, max_length=24)),
                ("importance", models.SmallIntegerField(default=5)),
                ("confidence", models.FloatField(default=1.0)),
                (
                    "source",
                    models.CharField(
                        choices=[
                            ("authored", "authored by a builder"),
                            ("observed", "witnessed (a world event)"),
                            ("gossip", "heard from another NPC"),
                        ],
                        default="authored",
                        max_length=16,
                    ),
                ),
                ("hops", models.SmallIntegerField(default=0)),
                ("chain", models.JSONField(blank=True, default=list)),
                (
                    "guard",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("", "open"),
                            ("secret", "Secret"),
                            ("wont_discuss", "will not discuss"),
                        ],
                        default="",
                        max_length=16,
                    ),
                ),
                ("condition", models.CharField(blank=True, max_length=200)),
                ("reply", models.CharField(blank=True, max_length=300)),
                ("topics", models.JSONField(blank=True, default=list)),
                ("expires_at", models.DateTimeField(blank=True, null=True)),
                ("embedding", omniira_evennia.fields.EmbeddingField(blank=True, null=True)),
                ("topic_embedding", omniira_evennia.fields.EmbeddingField(blank=True, null=True)),
                (
                    "embedder",
                    models.CharField(blank=True, default=None, max_length=100, null=True),
                ),
                ("loaded_from", models.CharField(blank=True, max_length=200)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("updated_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "npc",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="objects.objectdb",
                    ),
                ),
                (
                    "room",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="objects.objectdb",
                    ),
                ),
                (
                    "root",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="omniira_evennia.knowledge",
                    ),
                ),
                (
                    "teller",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="objects.objectdb",
                    ),
                ),
            ],
            options={
                "verbose_name_plural": "knowledge",
                "ordering": ["scope", "category", "key", "id"],
                "indexes": [
                    models.Index(fields=["scope_token", "key"], name="omniira_knowledge_key"),
                    models.Index(fields=["loaded_from"], name="omniira_knowledge_file"),
                ],
            },
        ),
        migrations.RunPython(index_knowledge, drop_knowledge_index, elidable=False),
    ]
