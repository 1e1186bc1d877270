"""`@memory why`: what the next turn would recall, and why, from the real retrieval path."""

import re

from django.test import override_settings
from evennia.utils import create
from evennia.utils.test_resources import EvenniaCommandTest

from omniira_evennia.admin_commands import CmdMemory
from omniira_evennia.builder.why import why, why_text
from omniira_evennia.commands import CmdTalk
from omniira_evennia.memory.embeddings import set_embedder
from omniira_evennia.memory.write import Note, write_note
from omniira_evennia.testing.fakes import HashingEmbedder, ScriptedLLM
from tests.support.talk import tiers

FACTS = [
    ("trade", "Ada mends clocks in Vellmoor by the mill."),
    ("sister", "Ada is searching for her sister Odile near the old mill."),
    ("tea", "Ada cannot eat honey."),
    ("cat", "Ada has a cat called Pebble."),
]


class TestWhy(EvenniaCommandTest):
    def setUp(self):
        super().setUp()
        set_embedder(HashingEmbedder())
        self.char1.key = "Ada"
        self.maren = create.create_object(
            "omniira_evennia.typeclasses.MemoryNPC", key="Maren", location=self.room1
        )
        embedder = HashingEmbedder()
        for key, value in FACTS:
            write_note(
                self.maren,
                Note(self.char1, value, key=key, embedding=embedder.embed([value])[0]),
            )
        for i in range(10):  # newer small talk fills the recency lane
            text = f"Ada talked about the weather, day {i}."
            write_note(
                self.maren,
                Note(self.char1, text, key=f"chat{i}", embedding=embedder.embed([text])[0]),
            )

    def test_the_list_equals_what_the_next_prompt_contains(self):
        question = "who is my sister Odile?"
        with override_settings(OMNIIRA={"RECENCY_SLOTS": 3, "SIMILARITY_SLOTS": 2}):
            recall = why(self.maren, question, self.char1)
            with (
                ScriptedLLM(["Aye."]) as llm,
                override_settings(
                    OMNIIRA={**tiers(llm.base_url), "RECENCY_SLOTS": 3, "SIMILARITY_SLOTS": 2}
                ),
            ):
                self.call(CmdTalk(), f"Maren = {question}")
        prompt = llm.system_prompts()[-1]
        in_prompt = [v for v in re.findall(r'^- "([^"]+)"', prompt, re.M) if v.startswith("Ada")]
        assert [m.value for m in recall.memories] == in_prompt
        sister = next(m for m in recall.memories if m.key == "sister")
        reason = recall.explain[sister.id]
        assert reason["lane"] == "fused" and reason["lexical_rank"] == 1
        assert reason["score"] > 0 and reason["importance_x"] > 0

    def test_the_builder_command_shows_lanes_and_what_was_left_out(self):
        with override_settings(OMNIIRA={"RECENCY_SLOTS": 3, "SIMILARITY_SLOTS": 1}):
            out = why_text(self.maren, "where is my sister Odile, by the mill?", self.char1)
            shown = self.call(CmdMemory(), "why Maren = who is my sister Odile? about Ada")
        assert "Ada is searching for her sister Odile" in out and "lexical #1" in out
        assert "recency #1 (among the newest)" in out and "Considered, not chosen" in out
        assert shown.startswith("Maren, asked by Ada: 'who is my sister Odile?'")
        assert "Usage" in self.call(CmdMemory(), "why Maren")
        assert "No character called 'Nobody'" in self.call(
            CmdMemory(), "why Maren = hello about Nobody"
        )

    def test_a_line_naming_the_pair_is_searched_without_the_names_as_the_turn_does(self):
        question = "Maren, who is Ada's sister Odile?"
        settings = {"RECENCY_SLOTS": 3, "SIMILARITY_SLOTS": 2}
        with override_settings(OMNIIRA=settings):
            recall = why(self.maren, question, self.char1)
            out = why_text(self.maren, question, self.char1)
            with (
                ScriptedLLM(["Aye."]) as llm,
                override_settings(OMNIIRA={**tiers(llm.base_url), **settings}),
            ):
                self.call(CmdTalk(), f"Maren = {question}")
        prompt = llm.system_prompts()[-1]
        in_prompt = [v for v in re.findall(r'^- "([^"]+)"', prompt, re.M) if v.startswith("Ada")]
        assert [m.value for m in recall.memories] == in_prompt
        assert recall.searched == "sister odile" and recall.embedded == "who is sister Odile?"
        assert "Full-text query: sister odile" in out
        assert "Embedded as: 'who is sister Odile?'" in out


class TestOneRetrievalPath(TestWhy):
    """`npc.memory.recall(line, about=X)` is the turn's own retrieval (issue #27, point 2)."""

    LINES = [
        "who is my sister Odile?",
        "Maren, who is Ada's sister Odile?",
        "what do I do for a living, Maren?",
        "do you remember my cat?",
        "anything about honey?",
    ]

    def test_recall_returns_what_the_next_prompt_contains_for_every_line(self):
        settings = {"RECENCY_SLOTS": 3, "SIMILARITY_SLOTS": 2}
        for line in self.LINES:
            with override_settings(OMNIIRA=settings):
                recalled = [m.value for m in self.maren.memory.recall(line, about=self.char1)]
                shown = [m.value for m in why(self.maren, line, self.char1).memories]
            with (
                ScriptedLLM(["Aye."]) as llm,
                override_settings(OMNIIRA={**tiers(llm.base_url), **settings}),
            ):
                self.call(CmdTalk(), f"Maren = {line}")
            prompt = llm.system_prompts()[-1]
            in_prompt = [
                v for v in re.findall(r'^- "([^"]+)"', prompt, re.M) if v.startswith("Ada")
            ]
            assert recalled == shown == in_prompt, line

    def test_the_prompt_budget_applies_to_recall_as_to_a_turn(self):
        settings = {"RECENCY_SLOTS": 3, "SIMILARITY_SLOTS": 4, "MEMORY_PROMPT_CHARS": 90}
        with override_settings(OMNIIRA=settings):
            recalled = self.maren.memory.recall("my sister Odile by the mill", about=self.char1)
        assert 0 < sum(len(m.value) for m in recalled) <= 90


class TestWhyNot(TestWhy):
    """Where a memory that was not chosen fell (issue #27, point 4), as builders see it."""

    def test_the_command_says_where_a_memory_fell(self):
        with override_settings(OMNIIRA={"RECENCY_SLOTS": 3, "SIMILARITY_SLOTS": 1}):
            out = self.call(
                CmdMemory(), "why Maren = where is my sister Odile? about Ada not honey"
            )
        assert "Why not #" in out and "Ada cannot eat honey." in out
        assert any(
            words in out
            for words in ("outranked at fusion", "within neither lane", "too far from the line")
        ), out

    def test_the_handler_gives_the_stage_and_ranks(self):
        honey = self.maren.memory.about(self.char1).get(key="tea")
        with override_settings(OMNIIRA={"RECENCY_SLOTS": 3, "SIMILARITY_SLOTS": 1}):
            fell = self.maren.memory.why_not("where is my sister Odile?", self.char1, honey)
            chosen = self.maren.memory.why_not("can I eat honey?", self.char1, honey)
        assert fell["stage"] in ("outranked", "not_in_lanes", "under_similarity_floor")
        assert "dense_rank" in fell and "lexical_rank" in fell
        assert chosen["stage"] == "chosen"

    def test_an_unknown_memory_is_not_found(self):
        out = why_text(self.maren, "hello", self.char1, "#999999")
        assert "no such memory" in out
