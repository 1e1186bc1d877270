"""
A game made by 0.1 keeps working after upgrading: its stored ticker typeclass paths (moved in
0.2), its untagged NPCs and its memories. The database is taken back to 0.1's last migration,
filled as 0.1 left it, then migrated forward as `evennia migrate` would.
"""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import override_settings
from evennia.utils import create

from omniira_evennia import lifecycle
from omniira_evennia.memory import store
from omniira_evennia.memory.write import Note, write_note
from omniira_evennia.testing.fakes import ScriptedLLM
from omniira_evennia.vocabulary import NPC_TAG
from tests.support.migrations import migrate
from tests.support.talk import tiers

OLD_PATHS = {
    "omniira_ticker": "omniira_evennia.social.OmniiraTicker",
    "omniira_decisions": "omniira_evennia.movement.OmniiraDecisionTicker",
}
NEW_PATHS = {
    "omniira_ticker": "omniira_evennia.scripts.OmniiraTicker",
    "omniira_decisions": "omniira_evennia.scripts.OmniiraDecisionTicker",
}


def test_the_old_paths_still_import():
    from omniira_evennia.movement import OmniiraDecisionTicker
    from omniira_evennia.scripts import OmniiraTicker
    from omniira_evennia.social import OmniiraTicker as OldTicker

    assert OldTicker is OmniiraTicker and OmniiraDecisionTicker.__module__.endswith("scripts")


@pytest.mark.django_db(transaction=True)
def test_a_game_made_by_the_previous_release_starts_and_talks_after_upgrading():
    from evennia.scripts.models import ScriptDB

    latest = MigrationExecutor(connection).loader.graph.leaf_nodes("omniira_evennia")
    migrate([("omniira_evennia", "0006_fulltext")])  # 0.1's last migration
    try:
        for key, path in OLD_PATHS.items():
            ScriptDB.objects.create(db_key=key, db_typeclass_path=path, db_persistent=True)
        # nohome: a database flushed by an earlier transactional test has no default home (#2).
        room = create.create_object(
            "evennia.objects.objects.DefaultRoom", key="Tavern", nohome=True
        )
        maren = create.create_object(
            "omniira_evennia.typeclasses.MemoryNPC", key="Maren", location=room, home=room
        )
        ada = create.create_object(
            "evennia.objects.objects.DefaultCharacter", key="Ada", location=room, home=room
        )
        maren.tags.remove(NPC_TAG[0], category=NPC_TAG[1])  # 0.1 NPCs carried no tag
        with connection.cursor() as cursor:  # a memory row as 0.1 wrote it (0.1's columns)
            cursor.execute(
                "INSERT INTO omniira_evennia_memory (npc_id, subject_id, key, value, learned_at,"
                " game_day, importance, source, kind, locked, hops, chain, suspect, feeling)"
                " VALUES (%s, %s, 'trade', 'Ada mends clocks in Vellmoor.', CURRENT_TIMESTAMP,"
                " 1, 6, 'self', 'event', %s, 0, '[]', %s, '')",
                [maren.id, ada.id, False, False],
            )
    finally:
        migrate(latest)  # what `evennia migrate` does after the upgrade

    stored = dict(ScriptDB.objects.values_list("db_key", "db_typeclass_path"))
    assert {k: stored[k] for k in NEW_PATHS} == NEW_PATHS
    for key in NEW_PATHS:
        script = ScriptDB.objects.get(db_key=key)
        assert type(script).__name__ in ("OmniiraTicker", "OmniiraDecisionTicker")

    with (
        ScriptedLLM(["Aye, you mend clocks."]) as llm,
        override_settings(OMNIIRA=tiers(llm.base_url)),
    ):
        lifecycle.at_server_start()  # tags the old NPC once, ensures the tickers
        assert [npc.key for npc in store.memory_npcs()] == ["Maren"]
        done = maren.at_talked_to("Do you remember what I do?", ada)
        assert done.result == "Aye, you mend clocks."
        assert "Ada mends clocks in Vellmoor." in llm.system_prompts()[-1]
    write_note(maren, Note(ada, "Ada fears spiders.", key="fear"))  # the write path works
    assert sorted(maren.memory.about(ada).values_list("key", flat=True)) == ["fear", "trade"]
