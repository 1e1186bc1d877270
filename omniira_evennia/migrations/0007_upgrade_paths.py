"""
0.2 moved the contrib's two global scripts into `omniira_evennia.scripts`. Evennia stores each
script's typeclass path in its row, so rows made by 0.1 are rewritten to the new paths (the old
paths also stay importable as shims, so a game that has not migrated yet still starts).
"""

from django.db import migrations

MOVED = {
    "omniira_evennia.social.OmniiraTicker": "omniira_evennia.scripts.OmniiraTicker",
    "omniira_evennia.movement.OmniiraDecisionTicker": "omniira_evennia.scripts.OmniiraDecisionTicker",
}


def _rewrite(apps, mapping):
    ScriptDB = apps.get_model("scripts", "ScriptDB")
    for old, new in mapping.items():
        ScriptDB.objects.filter(db_typeclass_path=old).update(db_typeclass_path=new)


def forward(apps, schema_editor):
    _rewrite(apps, MOVED)


def backward(apps, schema_editor):
    _rewrite(apps, {new: old for old, new in MOVED.items()})


class Migration(migrations.Migration):

    dependencies = [
        ("omniira_evennia", "0006_fulltext"),
        ("scripts", "0016_scriptbase_alter_scriptdb_id_defaultscript_and_more"),
    ]

    operations = [migrations.RunPython(forward, backward)]
