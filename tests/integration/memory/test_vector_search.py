"""
Searching by meaning: one NPC's memories (exact) and across NPCs (HNSW on PostgreSQL), the
same answers on SQLite and PostgreSQL, and the pgvector column itself when on PostgreSQL.
"""

import numpy as np
import pytest
from django.db import connection

import omniira_evennia as omniira
from omniira_evennia.admin_commands import CmdMemory
from omniira_evennia.memory import embeddings, store
from omniira_evennia.memory.embeddings import from_blob
from omniira_evennia.memory.write import Note, write_note
from omniira_evennia.models import Memory
from omniira_evennia.testing.fakes import HashingEmbedder
from tests.support.social import SocialTestBase

EMB = HashingEmbedder()
WORDS = "cider plum stew lute forge anvil herbs barge river market lantern silver".split()
on_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="PostgreSQL only (OMNIIRA_TEST_DB=postgres)"
)


class TestVectorSearch(SocialTestBase):
    def setUp(self):
        super().setUp()
        embeddings.set_embedder(EMB)
        rng = np.random.default_rng(11)
        self.values = []
        for i in range(40):
            words = " ".join(rng.choice(WORDS, size=3, replace=False))
            value = f"Ada talked about {words} ({i})."
            subject = self.char1 if i % 2 else self.char2
            omniira.remember(self.maren, subject, value, key=f"m{i}")
            self.values.append((value, subject))
        omniira.remember(self.lyra, self.char1, "Tomas went missing near Harrowmere.", key="tomas")
        omniira.remember(self.voss(), self.char1, "Ada owes me for a horseshoe.", key="shoe")

    def voss(self):
        if not hasattr(self, "_voss"):
            self._voss = self.npc("Voss")
        return self._voss

    def brute_force(self, query, subject=None):
        [q] = EMB.embed([query])
        rows = Memory.objects.filter(npc=self.maren)
        if subject is not None:
            rows = rows.filter(subject=subject)
        scored = sorted(
            ((float(from_blob(m.embedding) @ q), m.id) for m in rows), key=lambda p: (-p[0], p[1])
        )
        return scored

    def test_one_npc_search_is_exact_and_respects_the_subject(self):
        for query, subject in (("cider and plum stew", None), ("forge anvil", self.char1)):
            found = omniira.search_memories(self.maren, query, limit=7, about=subject)
            expected = self.brute_force(query, subject)
            # Exact: the same similarities as brute force, each the memory's own (equal scores
            # may come in either order, as the databases round differently).
            assert [round(s, 4) for _, s in found] == [round(s, 4) for s, _ in expected[:7]]
            truth = {mid: sim for sim, mid in expected}
            assert all(abs(truth[m.id] - sim) < 1e-4 for m, sim in found)
            if subject is not None:
                assert {m.subject_id for m, _ in found} == {subject.id}

    def test_who_knows_finds_the_npc_holding_the_fact(self):
        found = omniira.who_knows("where did Tomas go missing? Harrowmere")
        assert found and found[0][0].npc_id == self.lyra.id
        assert found[0][0].value == "Tomas went missing near Harrowmere."
        assert len({m.npc_id for m, _ in found}) == len(found)  # one line per NPC
        assert omniira.who_knows("zzzz qqqq") == []

    def test_vectors_of_another_embedder_are_not_compared_until_reembedded(self):
        # Issue #19: the matrix (SQLite) and the raw queries (PostgreSQL) apply the same rule.
        tomas = Memory.objects.get(key="tomas")
        Memory.objects.filter(id=tomas.id).update(embedder="some-other-model")
        store.invalidate()
        query = "where did Tomas go missing? Harrowmere"
        assert all(m.id != tomas.id for m, _ in omniira.who_knows(query))
        [vector] = EMB.embed([query])
        assert tomas.id not in [row for row, _ in store.nearest_memories(self.lyra.id, vector)]
        Memory.objects.filter(id=tomas.id).update(embedder=embeddings.embedder_name(EMB))
        store.invalidate()
        assert omniira.who_knows(query)[0][0].id == tomas.id

    def test_search_and_whoknows_commands(self):
        out = self.call(CmdMemory(), "search Maren = cider plum")
        assert "Maren's memories closest to 'cider plum':" in out
        best = self.brute_force("cider plum")[0][1]
        assert f"#{best} " in out.splitlines()[1]
        out = self.call(CmdMemory(), "whoknows Harrowmere Tomas")
        assert "Lyra" in out.splitlines()[1] and "Harrowmere" in out
        assert "Usage:\n  @memory search" in self.call(CmdMemory(), "search Maren")
        assert "Usage:\n  @memory whoknows" in self.call(CmdMemory(), "whoknows")
        assert "No NPC remembers anything like" in self.call(CmdMemory(), "whoknows zzzz qqqq")

    def test_search_without_the_embedding_model_says_so(self):
        from omniira_evennia.testing.fakes import BrokenEmbedder

        embeddings.set_embedder(BrokenEmbedder())
        out = self.call(CmdMemory(), "search Maren = cider")
        assert "embedding model is not available" in out

    @on_postgres
    def test_embeddings_are_pgvector_columns_with_an_hnsw_index_on_memories(self):
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT c.relname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
                "JOIN pg_class c ON c.oid = a.attrelid WHERE a.attname = 'embedding' "
                "AND c.relname LIKE 'omniira_evennia_%%' AND NOT a.attisdropped"
            )
            types = dict(cursor.fetchall())
            cursor.execute(
                "SELECT indexdef FROM pg_indexes WHERE indexname = 'omniira_memory_embedding_hnsw'"
            )
            [(indexdef,)] = cursor.fetchall()
        assert types == {
            "omniira_evennia_memory": "vector(384)",
            "omniira_evennia_reflection": "vector(384)",
            "omniira_evennia_diaryentry": "vector(384)",
            "omniira_evennia_conversationturn": "vector(384)",  # the verbatim lane (0010)
            "omniira_evennia_knowledge": "vector(384)",  # authored knowledge, same lanes
        }
        assert "USING hnsw (embedding vector_cosine_ops)" in indexdef
        # Bytes in, the same bytes out.
        memory = Memory.objects.get(key="tomas")
        np.testing.assert_array_equal(
            from_blob(memory.embedding), EMB.embed(["Tomas went missing near Harrowmere."])[0]
        )

    @on_postgres
    def test_per_npc_search_stays_on_the_btree_path_and_global_search_can_use_hnsw(self):
        from omniira_evennia.fields import vector_literal

        literal = vector_literal(EMB.embed(["cider"])[0])
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = off")  # as if the table were large
            cursor.execute(
                "EXPLAIN SELECT id FROM omniira_evennia_memory WHERE npc_id = %s "
                "AND embedding IS NOT NULL ORDER BY (embedding <=> %s::vector) + 0, id LIMIT 10",
                [self.maren.id, literal],
            )
            per_npc = "\n".join(row[0] for row in cursor.fetchall())
            cursor.execute(
                "EXPLAIN SELECT id FROM omniira_evennia_memory WHERE embedding IS NOT NULL "
                "ORDER BY embedding <=> %s::vector LIMIT 10",
                [literal],
            )
            global_plan = "\n".join(row[0] for row in cursor.fetchall())
        assert "hnsw" not in per_npc and "Sort" in per_npc
        assert "omniira_memory_embedding_hnsw" in global_plan


@on_postgres
@pytest.mark.django_db
def test_the_migration_converts_stored_bytes_to_vectors_and_back():
    """0005 on a database that already holds bytea embeddings keeps every vector."""
    from django.db.migrations.executor import MigrationExecutor
    from evennia.utils import create

    room = create.create_object("evennia.objects.objects.DefaultRoom", key="R", nohome=True)
    npc = create.create_object("evennia.objects.objects.DefaultCharacter", key="N", home=room)
    vector = EMB.embed(["plum wine"])[0]
    memory = write_note(npc, Note(npc, "plum wine", key="k", embedding=vector))

    with connection.cursor() as cursor:  # PostgreSQL alters no table with checks pending
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    executor = MigrationExecutor(connection)
    executor.migrate([("omniira_evennia", "0004_safety")])
    with connection.cursor() as cursor:
        cursor.execute("SELECT embedding FROM omniira_evennia_memory WHERE id = %s", [memory.id])
        [(raw,)] = cursor.fetchall()
        assert bytes(raw) == vector.tobytes()  # back to bytea, same bytes
        cursor.execute(
            "UPDATE omniira_evennia_memory SET embedding = %s WHERE id = %s",
            [b"\x00\x01", memory.id],
        )
        cursor.execute(
            "INSERT INTO omniira_evennia_memory (npc_id, subject_id, key, value, learned_at, "
            "game_day, embedding, importance, source, kind, locked, hops, chain, suspect, feeling) "
            "SELECT npc_id, subject_id, 'k2', value, learned_at, game_day, %s, importance, "
            "source, kind, locked, hops, chain, suspect, feeling FROM omniira_evennia_memory "
            "WHERE id = %s",
            [vector.tobytes(), memory.id],
        )
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes("omniira_evennia"))
    rows = dict(Memory.objects.filter(npc=npc).values_list("key", "embedding"))
    assert rows["k"] is None  # the unreadable one
    np.testing.assert_array_equal(from_blob(rows["k2"]), vector)


@pytest.mark.django_db
def test_embeddings_survive_dumpdata_and_loaddata():
    """What the README's SQLite -> PostgreSQL move relies on: vectors travel as bytes."""
    from django.core import serializers
    from evennia.utils import create

    room = create.create_object("evennia.objects.objects.DefaultRoom", key="R", nohome=True)
    npc = create.create_object("evennia.objects.objects.DefaultCharacter", key="N", home=room)
    vector = EMB.embed(["plum wine"])[0]
    memory = write_note(npc, Note(npc, "plum wine", key="k", embedding=vector))
    dumped = serializers.serialize("json", Memory.objects.filter(id=memory.id))
    Memory.objects.filter(id=memory.id).delete()
    for obj in serializers.deserialize("json", dumped):
        obj.save()
    np.testing.assert_array_equal(from_blob(Memory.objects.get(id=memory.id).embedding), vector)
