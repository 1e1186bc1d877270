"""
News a player tells an NPC about someone else is kept as knowledge it was told (issue #24):
`Knowledge.source` gains "told". Existing rows are unchanged.
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [("omniira_evennia", "0017_knowledge")]

    operations = [
        migrations.AlterField(
            model_name="knowledge",
            name="source",
            field=models.CharField(
                choices=[
                    ("authored", "authored by a builder"),
                    ("observed", "witnessed (a world event)"),
                    ("told", "told by a player (news)"),
                    ("gossip", "heard from another NPC"),
                ],
                default="authored",
                max_length=16,
            ),
        ),
    ]
