"""Issue #18: the pair-aware query and the recency window of the fused scorer."""

import numpy as np

from omniira_evennia.conf import build_settings
from omniira_evennia.conversation.prompts import Identity, PromptContext
from omniira_evennia.conversation.turn import TurnInput, retrieve_context
from omniira_evennia.memory.embeddings import set_embedder
from omniira_evennia.memory.fulltext import common_terms
from omniira_evennia.memory.fusion import LexicalHits, select_memories_fused, without_names
from omniira_evennia.memory.retrieval import select_memories
from tests.support.retrieval_world import MAREN, PLAYER, World, keys

HOUR = 3600.0
NOW = 1_000_000.0


def test_without_names_drops_the_pair_keeps_third_parties():
    text = "Maren, did Ada's friend Tomas visit ADA in Saltmere? Adam asked."
    assert (
        without_names(text, {"Maren", "Ada"}) == "did friend Tomas visit in Saltmere? Adam asked."
    )
    # A multi-word key counts word by word; nothing to drop leaves the text as it was.
    assert without_names("Old Piet and Maren", {"Old Piet"}) == "and Maren"
    assert without_names("hello there", set()) == "hello there"


def test_common_terms_are_a_share_of_the_pairs_memories():
    terms = ["cider", "harrowmere", "barrels"]
    assert common_terms(100, [40, 1, 6], terms, 0.05) == {"cider", "barrels"}
    assert common_terms(100, [40, 1, 6], terms, 0.1) == {"cider"}
    assert common_terms(100, [40, 1, 6], terms, 0.0) == set()  # off
    assert common_terms(10, [9, 1, 6], terms, 0.05) == set()  # too few memories to say


def old_and_recent_world():
    """30 old memories the question needs (lexical hits), then 8 newer unrelated ones."""
    w = World()
    old = [w.add(f"old{i}", sim=0.1, learned_at=NOW - 30 * 24 * HOUR + i) for i in range(30)]
    for i in range(8):
        w.add(f"chat{i}", sim=0.0, learned_at=NOW - 3 * 24 * HOUR + i)  # last visit's goodbyes
    return w, old


def test_a_window_frees_the_recency_slots_for_the_question_when_nothing_is_recent():
    w, old = old_and_recent_world()
    index = w.index()
    fixed = select_memories_fused(index, w.query, old, PLAYER, now=NOW)
    windowed = select_memories_fused(index, w.query, old, PLAYER, now=NOW, recency_window=6 * HOUR)
    assert len(fixed) == len(windowed) == 20
    assert sum(k.startswith("chat") for k in keys(fixed)) == 8  # the paper: 8 newest, always
    assert sum(k.startswith("old") for k in keys(windowed)) == 20  # all 20 for the question
    # The paper's scorer takes the same window.
    paper = select_memories(index, w.query, PLAYER, now=NOW, recency_window=6 * HOUR)
    assert not any(k.startswith("chat") for k in keys(paper))


def test_what_just_happened_still_rides_along_inside_the_window():
    w, old = old_and_recent_world()
    just = w.add("just_said", sim=None, importance=1, learned_at=NOW - 60)  # no vector, no words
    picked = select_memories_fused(
        w.index(), w.query, old, PLAYER, now=NOW, recency_window=6 * HOUR
    )
    assert "just_said" in keys(picked) and len(picked) == 20
    assert picked[-1].id == just


class Embedder:
    """Remembers what it was asked to embed."""

    dim = 384

    def __init__(self):
        self.seen = []

    def embed(self, texts):
        self.seen += list(texts)
        return np.ones((len(texts), self.dim), dtype=np.float32) / np.sqrt(self.dim)


def test_the_turn_embeds_the_line_without_the_pairs_names_for_memories_only():
    w = World()
    rare = w.add("tomas", sim=0.05, value="Tomas went missing")
    index = w.index()
    ctx = PromptContext(
        identity=Identity("Maren", "tavern keeper"),
        speaker_name="Ada",
        message="Maren, what did Ada's brother Tomas do?",
    )
    inp = TurnInput(
        npc_id=MAREN, speaker_id=PLAYER, context=ctx, index=index, lexical=LexicalHits([rare])
    )
    embedder = Embedder()
    set_embedder(embedder)
    try:
        explain: dict = {}
        retrieve_context(inp, build_settings({}, {}), w.query, explain=explain)
        assert embedder.seen == ["what did brother Tomas do?"]
        assert explain["embedded"] == "what did brother Tomas do?"
        embedder.seen.clear()
        retrieve_context(inp, build_settings({"PAIR_QUERY": False}, {}), w.query)
        retrieve_context(inp, build_settings({"RETRIEVAL_MODE": "paper"}, {}), w.query)
        assert embedder.seen == []  # the line as said: the vector the turn already has
    finally:
        set_embedder(None)
