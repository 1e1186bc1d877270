"""
A game made before knowledge (migration 0016, the release before issue #25) upgrades: its
memories stay certain, the knowledge table and its full-text index arrive with 0017, and the
NPC then knows and talks. Migrating back to 0016 removes them again. (A game made by 0.1 is
taken through every migration, 0017 included, by tests/integration/shell/test_upgrade.py.)
"""

import pytest
from django.db import connection
from django.test import override_settings
from evennia.utils import create

from omniira_evennia.memory import fulltext, fulltext_schema
from omniira_evennia.models import Knowledge, Memory
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.migrations import migrate
from tests.support.talk import tiers

BEFORE = [("omniira_evennia", "0016_grounding_and_retries")]


def knowledge_index_present() -> bool:
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            return fulltext.KNOWLEDGE_FTS in fulltext_schema._sqlite_objects(cursor)
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", [fulltext.KNOWLEDGE_FTS])
        return cursor.fetchone() is not None


@pytest.mark.django_db(transaction=True)
def test_a_game_from_before_knowledge_upgrades_and_its_npcs_know():
    from django.db.migrations.executor import MigrationExecutor

    latest = MigrationExecutor(connection).loader.graph.leaf_nodes("omniira_evennia")
    migrate(BEFORE)
    try:
        assert "omniira_evennia_knowledge" not in connection.introspection.table_names()
        room = create.create_object(
            "evennia.objects.objects.DefaultRoom", key="Tavern", nohome=True
        )
        maren = create.create_object(
            "omniira_evennia.typeclasses.MemoryNPC", key="Maren", location=room, home=room
        )
        ada = create.create_object(
            "evennia.objects.objects.DefaultCharacter", key="Ada", location=room, home=room
        )
        with connection.cursor() as cursor:  # a memory as 0016 wrote it (no `uncertain`)
            cursor.execute(
                "INSERT INTO omniira_evennia_memory (npc_id, subject_id, key, value, learned_at,"
                " game_day, importance, source, kind, locked, hops, chain, suspect, feeling,"
                " history, grounding) VALUES (%s, %s, 'trade', 'Ada mends clocks.',"
                " CURRENT_TIMESTAMP, 1, 6, 'self', 'event', %s, 0, '[]', %s, '', '[]', NULL)",
                [maren.id, ada.id, False, False],
            )
    finally:
        migrate(latest)

    assert Memory.objects.get(key="trade").uncertain is False
    assert knowledge_index_present()
    maren.memory.know("A mug of cider costs two copper.", key="cider", category="trade")
    assert fulltext.search_knowledge([f"n{maren.id}"], "cider") == [Knowledge.objects.get().id]
    with ScriptedLLM(["Two copper, love."]) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
        done = maren.at_talked_to("What does the cider cost?", ada)
        assert done.result == "Two copper, love."
        assert "A mug of cider costs two copper." in llm.system_prompts()[-1]

    migrate(BEFORE)  # and back: the table and its index go
    try:
        assert "omniira_evennia_knowledge" not in connection.introspection.table_names()
        assert not knowledge_index_present()
    finally:
        migrate(latest)
