"""
The full-text index (issue #11) on SQLite FTS5: it follows every way memories, beliefs and
diary entries change, queries from free text never break, and a turn's lexical hits reach the
prompt in `fused` mode.
"""

import time

import numpy as np
import pytest
from django.db import connection
from django.test import override_settings
from django.utils import timezone
from evennia.utils import create
from evennia.utils.test_resources import EvenniaTest

import omniira_evennia as omniira
from omniira_evennia.commands import CmdTalk
from omniira_evennia.memory import fulltext
from omniira_evennia.memory.embeddings import set_embedder
from omniira_evennia.memory.service import erase_player
from omniira_evennia.memory.write import Note, write_note
from omniira_evennia.models import DiaryEntry, Memory, Reflection
from omniira_evennia.rollover import service as daily
from omniira_evennia.runtime import health
from omniira_evennia.testing.fakes import HashingEmbedder, ScriptedLLM
from tests.support.talk import TalkTestBase, tiers

sqlite_only = pytest.mark.skipif(
    connection.vendor != "sqlite", reason="SQLite's FTS5 tables and triggers"
)
postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="PostgreSQL only (OMNIIRA_TEST_DB=postgres)"
)


def indexed(table=fulltext.MEMORY_FTS) -> set[int]:
    """Every rowid the index holds, after FTS5's own consistency check."""
    if connection.vendor == "postgresql":
        # An expression index, maintained by PostgreSQL itself: it holds every base row.
        base = fulltext._BY_NAME[table].base
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT id FROM {base}")
            return {row[0] for row in cursor.fetchall()}
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
        cursor.execute(f"SELECT rowid FROM {table}")
        return {row[0] for row in cursor.fetchall()}


class FullTextBase(EvenniaTest):
    def setUp(self):
        super().setUp()
        set_embedder(HashingEmbedder())
        self.char1.key = "Ada"
        self.maren = create.create_object(
            "omniira_evennia.typeclasses.MemoryNPC", key="Maren", location=self.room1
        )
        self.voss = create.create_object(
            "omniira_evennia.typeclasses.MemoryNPC", key="Voss", location=self.room1
        )

    def remember(self, value, subject=None, npc=None, **kwargs):
        return omniira.remember(npc or self.maren, subject or self.char1, value, **kwargs)

    def search(self, text, subject=None, npc=None):
        subject_id = subject.id if subject is not None else None
        return fulltext.search_memories((npc or self.maren).id, text, subject_id)

    def assert_in_sync(self):
        assert indexed() == set(Memory.objects.values_list("id", flat=True))


class TestMemoryIndexFollowsWrites(FullTextBase):
    @postgres_only
    def test_postgres_search_expressions_match_the_gin_indexes(self):
        """The index is usable only if a search's tsvector expression is the index's own."""
        self.remember("Ada sold a lute in Coldwick.", key="lute")
        with connection.cursor() as cursor:
            cursor.execute("SELECT indexname FROM pg_indexes WHERE indexname LIKE 'omniira_%%_fts'")
            assert {row[0] for row in cursor.fetchall()} == {t.name for t in fulltext.TABLES}
            cursor.execute("SET LOCAL enable_seqscan = off")  # as if the table were large
            for table in fulltext.TABLES:
                sql, params = fulltext._postgres_query(table, [], ["coldwick"], 5)
                cursor.execute("EXPLAIN " + sql, params)
                plan = "\n".join(row[0] for row in cursor.fetchall())
                assert f"Bitmap Index Scan on {table.name}" in plan, plan

    @sqlite_only
    def test_fts5_is_available_and_installed(self):
        assert fulltext.available()
        with connection.cursor() as cursor:
            cursor.execute("SELECT name FROM sqlite_master WHERE name LIKE 'omniira_%_fts%'")
            names = {row[0] for row in cursor.fetchall()}
        for table in fulltext.TABLES:
            assert {table.name, f"{table.name}_ai", f"{table.name}_ad", f"{table.name}_au"} <= names

    def test_insert_is_searchable_by_rare_words_and_stems(self):
        sword = self.remember("Ada showed me a sword with a blue-glass pommel.", key="sword")
        self.remember("Ada ordered cider and complained about the rain.", key="cider")
        assert self.search("the pommel") == [sword.id]
        assert self.search("blue glass swords?") == [sword.id]  # porter stems: swords -> sword
        assert self.search("nothing like it") == []
        self.assert_in_sync()

    def test_upsert_replaces_the_indexed_words(self):
        first = self.remember("Ada owes three silver to Harrowmere's ferryman.", key="debt")
        second = self.remember("Ada paid her debt to the ferryman in Oakhollow.", key="debt")
        assert first.id == second.id
        assert self.search("Harrowmere") == []
        assert self.search("Oakhollow") == [second.id]
        self.assert_in_sync()

    def test_queryset_update_and_unrelated_updates(self):
        m = self.remember("Ada lost a silver locket.", key="locket")
        Memory.objects.filter(id=m.id).update(value="Ada found her silver locket in Brinewick.")
        assert self.search("Brinewick") == [m.id]
        Memory.objects.filter(id=m.id).update(locked=True, importance=9)  # text unchanged
        assert self.search("Brinewick") == [m.id]
        # Moving a memory to another subject moves its owner tokens.
        Memory.objects.filter(id=m.id).update(subject=self.char2)
        assert self.search("Brinewick", subject=self.char1) == []
        assert self.search("Brinewick", subject=self.char2) == [m.id]
        self.assert_in_sync()

    def test_delete_paths(self):
        a = self.remember("Ada mentioned Thornwatch.", key="a")
        b = self.remember("Ada mentioned Thornwatch again.", key="b")
        self.remember("Ada mentioned Thornwatch a third time.", key="c")
        a.delete()  # one instance
        assert a.id not in self.search("Thornwatch")
        Memory.objects.filter(id=b.id).delete()  # a queryset
        assert b.id not in self.search("Thornwatch")
        assert omniira.forget(self.maren, self.char1) == 1  # the public API
        assert self.search("Thornwatch") == []
        self.assert_in_sync()

    def test_cascade_when_the_npc_is_deleted(self):
        self.remember("Ada hid a key under the Saltgate bridge.", key="key")
        mine = self.remember("Ada owes Voss for a Saltgate horseshoe.", npc=self.voss, key="shoe")
        self.maren.delete()
        assert self.search("Saltgate", npc=self.voss) == [mine.id]
        self.assert_in_sync()

    def test_erasure_removes_the_player_from_the_index(self):
        gone = self.remember("Ada's brother Tomas vanished near Ravenmere.", key="tomas")
        kept = self.remember("Char2 also asked about Ravenmere.", subject=self.char2, key="asked")
        Reflection.objects.create(npc=self.maren, target=self.char1, belief="Ada grieves Tomas.")
        erase_player(self.char1)
        assert self.search("Ravenmere Tomas") == [kept.id]
        assert gone.id not in indexed()
        assert fulltext.search_beliefs(self.maren.id, "Tomas") == []
        self.assert_in_sync()

    def test_forgetting_expired_and_over_the_cap(self):
        now = timezone.now()
        expired = self.remember("Ada booked a room at Greyford for one night.", key="room")
        Memory.objects.filter(id=expired.id).update(expires_at=now - timezone.timedelta(hours=1))
        for i in range(5):
            self.remember(f"Ada chatted about Ashcombe weather {i}.", key=f"w{i}", importance=1)
        with override_settings(OMNIIRA={"MEMORY_CAP_PER_SUBJECT": 3}):
            result = daily.forget(now=now)
        assert result == {"expired": 1, "evicted": 2}
        assert self.search("Greyford") == []
        assert len(self.search("Ashcombe")) == 3
        self.assert_in_sync()

    def test_search_is_per_npc_and_per_subject(self):
        mine = self.remember("Ada likes Emberfall plums.", key="plums")
        other_subject = self.remember("Char2 likes Emberfall plums.", subject=self.char2)
        other_npc = self.remember("Ada likes Emberfall plums.", npc=self.voss, key="plums")
        assert self.search("Emberfall", subject=self.char1) == [mine.id]
        assert set(self.search("Emberfall")) == {mine.id, other_subject.id}
        assert self.search("Emberfall", npc=self.voss) == [other_npc.id]
        # Owner tokens live in their own column: typing them finds nothing.
        assert self.search(f"n{self.voss.id}s{self.char1.id} n{self.voss.id}") == []

    def test_ranking_prefers_more_and_rarer_terms(self):
        for i in range(6):
            self.remember(f"Ada talked about the Frostmoon market {i}.", key=f"m{i}")
        both = self.remember("Ada's wedding is on the third of Frostmoon.", key="wedding")
        assert self.search("the third of Frostmoon")[0] == both.id


class TestMaintenance(FullTextBase):
    def test_merge_steps_and_optimize_keep_the_index_whole(self):
        for i in range(30):  # one row at a time, as in play: many small segments
            self.remember(f"Ada mentioned Mistmonth plan {i}.", key=f"p{i}")
        before = self.search("Mistmonth")
        for _ in range(5):
            fulltext.maintain(pages=4)
        assert self.search("Mistmonth") == before
        fulltext.optimize()
        assert self.search("Mistmonth") == before and len(before) == 30
        self.assert_in_sync()

    def test_ticker_runs_a_merge_step(self):
        from unittest import mock

        from omniira_evennia.scripts import OmniiraTicker

        ticker = mock.MagicMock()
        ticker.db.last_gossip = time.time()  # no gossip round due
        # The ticker reaches the index through memory.service (its maintain_fulltext).
        with mock.patch("omniira_evennia.scripts.maintain_fulltext") as maintain:
            OmniiraTicker.at_repeat(ticker)
        maintain.assert_called_once_with()


class TestBeliefAndDiaryIndex(FullTextBase):
    def test_beliefs_follow_insert_update_delete(self):
        r = Reflection.objects.create(
            npc=self.maren, target=self.char1, belief="Ada distrusts the Copperhand guild."
        )
        other = Reflection.objects.create(
            npc=self.maren, target=self.char2, belief="Char2 joined the Copperhand guild."
        )
        assert fulltext.search_beliefs(self.maren.id, "Copperhand", self.char1.id) == [r.id]
        assert set(fulltext.search_beliefs(self.maren.id, "guild")) == {r.id, other.id}
        r.belief = "Ada forgave the guild."
        r.save()
        assert fulltext.search_beliefs(self.maren.id, "Copperhand", self.char1.id) == []
        r.delete()
        assert indexed(fulltext.BELIEF_FTS) == {other.id}

    def test_diary_follows_insert_update_delete(self):
        entry = DiaryEntry.objects.create(
            npc=self.maren, game_day=3, entry="The Wolfreach caravan came late."
        )
        assert fulltext.search_diary(self.maren.id, "caravan Wolfreach") == [entry.id]
        assert fulltext.search_diary(self.voss.id, "caravan") == []
        DiaryEntry.objects.filter(id=entry.id).update(entry="Quiet day; rain.")
        assert fulltext.search_diary(self.maren.id, "caravan") == []
        assert fulltext.search_diary(self.maren.id, "rain") == [entry.id]
        DiaryEntry.objects.filter(npc=self.maren).delete()
        assert indexed(fulltext.DIARY_FTS) == set()


class TestQueriesFromFreeText(FullTextBase):
    NASTY = [
        '"',
        '"unterminated',
        "NEAR(",
        "NEAR(a b, 3)",
        "*",
        "pom*",
        "^start",
        "a AND OR NOT b",
        "body: sword",
        "{owner body}: n1",
        "owner : n1 OR body : x",
        "'); DROP TABLE omniira_evennia_memory; --",
        "(((",
        "-",
        "+ + +",
        "\x00\x01",
        "épée à la garde de verre",
        "剣 青いガラス",
        "sword " * 400,
        "",
        "   ",
        "?!?",
    ]

    def test_query_terms_are_words_only(self):
        assert fulltext.query_terms('Do you remember "the" NEAR( sword* OR pom^mel?') == [
            "near",
            "sword",
            "pom",
            "mel",
        ]
        assert fulltext.query_terms("a the of to") == []
        assert len(fulltext.query_terms(" ".join(f"w{i}" for i in range(100)))) == 16
        assert fulltext.query_terms("snake_case") == ["snake", "case"]  # as FTS5 tokenises

    def test_malformed_text_never_raises_or_fails(self):
        sword = self.remember("Ada showed me a sword with a blue-glass pommel.", key="sword")
        for text in self.NASTY:
            result = self.search(text)
            assert isinstance(result, list), text
        assert self.search("NEAR( sword*") == [sword.id]
        assert fulltext.search_beliefs(self.maren.id, 'NEAR("') == []
        assert fulltext.search_diary(self.maren.id, "*") == []
        assert health.snapshot().get("fulltext_failures") is None
        assert Memory.objects.filter(id=sword.id).exists()

    @sqlite_only  # PostgreSQL still answers without its index, only slower
    def test_a_missing_index_falls_back_instead_of_raising(self):
        self.remember("Ada showed me a sword.", key="sword")
        fulltext.uninstall(connection)
        assert self.search("sword") is None  # the lane is unavailable: paper scorer
        assert health.snapshot()["fulltext_failures"] == 1
        assert fulltext.lexical_hits(self.maren.id, self.char1.id, "sword", _conf("fused")) is None
        fulltext.install(connection)  # the migration's forward step, after its backward step
        assert len(self.search("sword")) == 1
        self.assert_in_sync()


def _conf(mode):
    from omniira_evennia.conf import build_settings

    return build_settings({"RETRIEVAL_MODE": mode}, {})


@sqlite_only
class TestRepairAfterATableRebuild(FullTextBase):
    def test_ensure_installed_restores_dropped_triggers_and_refills(self):
        self.remember("Ada sold a lute in Coldwick.", key="lute")
        # A later migration that rebuilds the memory table drops its triggers with it.
        with connection.cursor() as cursor:
            for suffix in ("ai", "ad", "au"):
                cursor.execute(f"DROP TRIGGER {fulltext.MEMORY_FTS}_{suffix}")
        missed = self.remember("Ada bought a drum in Coldwick.", key="drum")
        assert missed.id not in (self.search("Coldwick") or [])
        fulltext.ensure_installed("default")
        assert missed.id in self.search("Coldwick")
        self.remember("Ada tuned a harp in Coldwick.", key="harp")
        assert len(self.search("Coldwick")) == 3
        self.assert_in_sync()

    def test_ensure_installed_does_nothing_before_the_migration(self):
        fulltext.uninstall(connection)
        fulltext.ensure_installed("default")
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM sqlite_master WHERE name LIKE 'omniira_%_fts%'")
            assert cursor.fetchone()[0] == 0
        fulltext.install(connection)

    def test_the_migration_is_reversible(self):
        from importlib import import_module

        migration = import_module("omniira_evennia.migrations.0006_fulltext").Migration
        assert all(op.reversible for op in migration.operations)


class FixedEmbedder:
    """Every line points one way, so memories stored with other vectors look unrelated."""

    dim = 384

    def __init__(self, vector):
        self.vector = vector

    def embed(self, texts):
        return np.tile(self.vector, (len(texts), 1)).astype(np.float32)


class TestTurnUsesTheLexicalLane(TalkTestBase):
    """A rare-name memory the embedding lane cannot see reaches the prompt in fused mode."""

    RARE = "Ada said her brother Tomas went missing near Harrowmere."

    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(3)
        query = rng.standard_normal(384).astype(np.float32)
        query /= np.linalg.norm(query)
        other = rng.standard_normal(384).astype(np.float32)
        other -= other.dot(query) * query  # orthogonal to every query
        other /= np.linalg.norm(other)
        set_embedder(FixedEmbedder(query))
        write_note(self.maren, Note(self.char1, self.RARE, key="tomas", embedding=other))
        for i in range(30):  # newer, and all "similar" to anything asked
            write_note(
                self.maren,
                Note(self.char1, f"Ada chatted about cider {i}.", key=f"chat{i}", embedding=query),
            )

    def ask(self, mode, text="What happened at Harrowmere?"):
        with ScriptedLLM(["Hm."]) as llm:
            with override_settings(OMNIIRA={**tiers(llm.base_url), "RETRIEVAL_MODE": mode}):
                self.call(CmdTalk(), f"Maren = {text}")
        return llm.prompts()[-1]

    def test_paper_misses_it_fused_finds_it(self):
        assert self.RARE not in self.ask("paper")
        prompt = self.ask("fused")
        assert self.RARE in prompt
        assert "Ada chatted about cider 29." in prompt  # the newest still ride along

    def test_operators_typed_by_a_player_are_harmless(self):
        prompt = self.ask("fused", 'Harrowmere" NEAR( * OR {owner}: n1')
        assert self.RARE in prompt
        assert health.snapshot().get("fulltext_failures") is None


class TestPairAwareQuery(FullTextBase):
    """Issue #18: the pair's own names and common words leave the lexical query."""

    def test_names_aliases_and_possessives_of_the_pair_are_dropped_third_parties_stay(self):
        self.char1.aliases.add("Addy")
        query = fulltext.pair_query(
            self.maren.id, self.char1.id, "Maren, did Ada's friend Tomas visit Addy?", 0.0
        )
        assert query.split() == ["friend", "tomas", "visit"]

    def test_words_common_in_this_pair_are_dropped_counted_per_pair(self):
        for i in range(24):
            self.remember(f"Ada: more cider today, round {i}.", key=f"cider{i}")
        harrow = self.remember("Ada: my brother went missing near Harrowmere.", key="brother").id
        for i in range(30):  # common for Voss and Ada, not for Maren and Ada
            self.remember(f"Ada: the brother of the miller {i}.", key=f"b{i}", npc=self.voss)
        query = fulltext.pair_query(self.maren.id, self.char1.id, "cider brother Harrowmere", 0.05)
        assert query.split() == ["brother", "harrowmere"]
        hits = fulltext.lexical_hits(self.maren.id, self.char1.id, "Ada, cider by Harrowmere?")
        assert hits.memories == [harrow] and hits.query == "harrowmere"

    def test_name_only_memories_no_longer_match(self):
        bye = [
            self.remember(f"Ada: catch ya later, Maren! ({i})", key=f"bye{i}").id for i in range(3)
        ]
        bakery = self.remember(
            "Ada: my cousin opened a bakery in Saltmere, Maren, with his Ada-sized ovens "
            "and a long counter of oak and brass by the window.",
            key="bakery",
        ).id
        question = "Maren, what did Ada tell you about the bakery?"
        raw = fulltext.search_memories(self.maren.id, question, self.char1.id)
        assert set(bye) <= set(raw)  # the line as said: every goodbye matches on the names
        hits = fulltext.lexical_hits(self.maren.id, self.char1.id, question)
        assert hits.memories == [bakery]
        with override_settings(OMNIIRA={"PAIR_QUERY": False}):
            assert fulltext.lexical_hits(self.maren.id, self.char1.id, question).memories == raw

    def test_the_pairs_names_need_no_query_once_loaded_and_follow_renames(self):
        from django.test.utils import CaptureQueriesContext

        self.char1.aliases.add("Addy")
        fulltext.pair_names(self.maren.id, self.char1.id)  # loads them, as a turn has
        with CaptureQueriesContext(connection) as queries:
            names = fulltext.pair_names(self.maren.id, self.char1.id, None)
        assert names == {"maren", "ada", "addy"} and not queries.captured_queries
        assert fulltext.pair_names(self.maren.id, 10**9) == {"maren"}  # a deleted one: skipped
        self.char1.key = "Adelaide"
        assert "adelaide" in fulltext.pair_names(self.char1.id)
