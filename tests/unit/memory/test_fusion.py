"""`fused` retrieval (issue #11): rank fusion of the full-text and embedding lanes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omniira_evennia.conf import build_settings
from omniira_evennia.conversation.prompts import Identity, PromptContext
from omniira_evennia.conversation.turn import TurnInput, retrieve_context
from omniira_evennia.memory.fusion import (
    LexicalHits,
    rrf_scores,
    select_by_mode,
    select_memories_fused,
    select_newest_plus_fused,
)
from omniira_evennia.memory.retrieval import (
    MemoryMatrix,
    TextRecord,
    select_memories,
)
from tests.support.retrieval_world import (
    DIM,
    MAREN,
    OTHER,
    PLAYER,
    World,
    blend,
    keys,
    orthogonal_to,
    unit,
)


def test_rare_name_found_by_fused_not_by_paper():
    """The embedding lane puts the name memory far down; the lexical lane puts it first."""
    w = World()
    rare = w.add("tomas", sim=0.05, value="Ada's brother Tomas went missing near Harrowmere")
    for i in range(40):
        w.add(f"similar{i}", sim=0.6 + i * 0.005)  # topically close, no name
    index = w.index()
    paper = select_memories(index, w.query, PLAYER)
    fused = select_memories_fused(index, w.query, [rare], PLAYER)
    assert "tomas" not in keys(paper)
    assert "tomas" in keys(fused)
    assert len(fused) == len(paper) == 20  # the same number of memories returned


def test_recency_guarantee_a_brand_new_memory_is_always_returned():
    w = World()
    lexical = [w.add(f"strong{i}", sim=0.9, importance=10, feeling="anger") for i in range(50)]
    w.add("brand_new", sim=None, importance=1, provenance_id=MAREN)  # no vector, no words
    picked = select_memories_fused(w.index(), w.query, lexical, PLAYER)
    assert "brand_new" in keys(picked)
    assert picked[-1].key == "brand_new"  # chronological: the newest comes last


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 80),
    recency=st.integers(1, 10),
    slots=st.integers(0, 15),
    seed=st.integers(0, 10_000),
    lexical_count=st.integers(0, 60),
)
def test_recency_lane_and_order_hold_for_any_index(n, recency, slots, seed, lexical_count):
    rng = np.random.default_rng(seed)
    w = World(seed)
    for i in range(n):
        w.add(
            f"k{i}",
            sim=None if rng.random() < 0.2 else float(rng.uniform(-0.5, 1.0)),
            learned_at=float(rng.integers(0, 30)),  # ties in time are broken by id
            importance=int(rng.integers(1, 11)),
            feeling=None if rng.random() < 0.5 else "joy",
            provenance_id=None if rng.random() < 0.7 else MAREN,
        )
    index = w.index()
    lexical = [int(x) for x in rng.integers(1, n + 20, size=lexical_count)]  # incl. unknown ids
    picked = select_memories_fused(
        index, w.query, lexical, PLAYER, recency_slots=recency, similarity_slots=slots
    )
    newest = sorted(w.records, key=lambda r: (r.learned_at, r.id))[-recency:]
    assert {r.id for r in newest} <= {r.id for r in picked}
    assert len(picked) <= recency + slots
    assert len({r.id for r in picked}) == len(picked)
    assert picked == sorted(picked, key=lambda r: (r.learned_at, r.id))


def test_a_memory_in_both_lanes_and_the_recency_lane_appears_once():
    w = World()
    both = w.add("both", sim=0.9)
    for i in range(10):
        w.add(f"x{i}", sim=0.3)
    newest = w.add("newest", sim=0.95)
    picked = select_memories_fused(w.index(), w.query, [newest, both, both], PLAYER)
    assert keys(picked).count("both") == 1 and keys(picked).count("newest") == 1


def test_dedup_by_key_recency_wins():
    w = World()
    w.add("same", sim=0.9, value="old value")
    for i in range(10):
        w.add(f"x{i}", sim=0.3)
    w.add("same", sim=None, value="new value")  # a stale duplicate row in the matrix
    picked = select_memories_fused(w.index(), w.query, [1], PLAYER, recency_slots=1)
    assert [r.value for r in picked if r.key == "same"] == ["new value"]


def test_fusion_beats_either_lane_alone_for_a_memory_in_both():
    w = World()
    w.add("dense_only", sim=0.9)
    both = w.add("both", sim=0.8)
    lexical_only = w.add("lexical_only", sim=0.1)
    for i in range(8):
        w.add(f"new{i}", sim=None)
    picked = select_memories_fused(
        w.index(), w.query, [lexical_only, both], PLAYER, similarity_slots=1
    )
    assert "both" in keys(picked)


def test_multipliers_apply_after_fusion():
    w = World()
    # Equal fused scores (rank 1 in one lane each): importance decides with one slot.
    w.add("minor", sim=0.9, importance=1)
    major = w.add("major", sim=0.1, importance=10)
    for i in range(8):
        w.add(f"new{i}", sim=None)
    picked = select_memories_fused(w.index(), w.query, [major], PLAYER, similarity_slots=1)
    assert "major" in keys(picked) and "minor" not in keys(picked)
    # Hearsay is weighted down, feelings up, as in the paper.
    w = World()
    w.add("heard", sim=0.9, provenance_id=MAREN)
    seen = w.add("seen", sim=0.1)
    for i in range(8):
        w.add(f"new{i}", sim=None)
    assert "seen" in keys(
        select_memories_fused(w.index(), w.query, [seen], PLAYER, similarity_slots=1)
    )
    w = World()
    w.add("plain", sim=0.9)
    felt = w.add("felt", sim=0.1, feeling="fear")
    for i in range(8):
        w.add(f"new{i}", sim=None)
    assert "felt" in keys(
        select_memories_fused(w.index(), w.query, [felt], PLAYER, similarity_slots=1)
    )


def test_candidates_filtered_before_either_lane():
    w = World()
    other = w.add("other_subject", sim=0.99, subject=OTHER)
    expired = w.add("expired", sim=0.99, expires_at=5.0)
    suspect = w.add("suspect", sim=0.99, suspect=True)
    dead = w.add("dead", sim=0.99)
    w.add("kept", sim=0.5)
    index = w.index()
    index.alive = np.array([r.key != "dead" for r in w.records])  # a freed slot
    picked = select_memories_fused(
        index,
        w.query,
        [other, expired, suspect, dead],
        PLAYER,
        now=10.0,
        include_suspect=False,
        recency_slots=0,
    )
    assert keys(picked) == ["kept"]


def test_no_vector_and_no_lexical_hits_leaves_the_recency_lane():
    w = World()
    for i in range(12):
        w.add(f"m{i}", sim=0.9)
    picked = select_memories_fused(w.index(), None, [], PLAYER)
    assert keys(picked) == [f"m{i}" for i in range(4, 12)]
    assert select_memories_fused(MemoryMatrix.build([], [], DIM), w.query, [1], PLAYER) == []


def test_similarity_floor_still_guards_the_embedding_lane():
    w = World()
    for i in range(8):
        w.add(f"new{i}", sim=None, learned_at=100 + i)
    w.add("weak", sim=0.2)
    assert "weak" not in keys(select_memories_fused(w.index(), w.query, [], PLAYER))


def test_rrf_scores():
    rows, scores = rrf_scores([(np.array([5, 7]), 1.0), (np.array([7, 9]), 1.0)], 60)
    assert rows.tolist() == [5, 7, 9]
    assert scores == pytest.approx([1 / 61, 1 / 62 + 1 / 61, 1 / 62])


def test_beliefs_newest_always_then_fused():
    rng = np.random.default_rng(1)
    q = unit(rng)
    far = orthogonal_to(q, rng)
    records = [
        TextRecord(id=1, text="close", created_at=1, vector=blend(q, far, 0.9)),
        TextRecord(id=2, text="lexical", created_at=2, vector=far),
        TextRecord(id=3, text="newest", created_at=3, vector=far),
    ]
    # "close" is first in the embedding lane, "lexical" first in the full-text lane: a tie,
    # which goes to the newer belief.
    picked = select_newest_plus_fused(records, q, [2], slots=2)
    assert [r.text for r in picked] == ["lexical", "newest"]
    picked = select_newest_plus_fused(records, q, [2], slots=3)
    assert [r.text for r in picked] == ["close", "lexical", "newest"]
    assert [r.text for r in select_newest_plus_fused(records, None, [], 3)] == ["newest"]


def turn(index, lexical):
    ctx = PromptContext(identity=Identity("Maren", "tavern keeper"), speaker_name="Ada", message="")
    return TurnInput(npc_id=MAREN, speaker_id=PLAYER, context=ctx, index=index, lexical=lexical)


def test_retrieve_context_chooses_by_setting():
    w = World()
    rare = w.add("tomas", sim=0.05, value="Tomas went missing")
    for i in range(30):
        w.add(f"similar{i}", sim=0.7)
    index = w.index()
    hits = LexicalHits(memories=[rare])
    fused_conf = build_settings({"RETRIEVAL_MODE": "fused"}, {})
    paper_conf = build_settings({"RETRIEVAL_MODE": "paper"}, {})
    found = [m.text for m in retrieve_context(turn(index, hits), fused_conf, w.query).memories]
    assert "Tomas went missing" in found
    found = [m.text for m in retrieve_context(turn(index, hits), paper_conf, w.query).memories]
    assert "Tomas went missing" not in found
    # No full-text lane (None): the paper's scorer, whatever the setting.
    assert select_by_mode(index, w.query, None, PLAYER, fused_conf) == select_memories(
        index, w.query, PLAYER
    )


def test_rows_out_of_id_order_give_the_same_result():
    """The lexical lane maps ids to rows whether or not the matrix is in id order."""
    w = World(5)
    ids = [w.add(f"k{i}", sim=0.3 + (i % 7) / 10, learned_at=i % 13) for i in range(40)]
    lexical = ids[::-3]
    in_order = select_memories_fused(w.index(), w.query, lexical, PLAYER)
    shuffled = list(zip(w.records, w.vectors))
    np.random.default_rng(0).shuffle(shuffled)
    index = MemoryMatrix.build([r for r, _ in shuffled], [v for _, v in shuffled], DIM)
    assert select_memories_fused(index, w.query, lexical, PLAYER) == in_order
    only_lexical = select_memories_fused(
        index, None, lexical, PLAYER, recency_slots=0, similarity_slots=1
    )
    assert [r.id for r in only_lexical] == [lexical[0]]


@pytest.mark.parametrize("subjects", [1, 5])  # most rows scored at once, or a few copied out
def test_dense_lane_matches_a_plain_ranking(subjects):
    from omniira_evennia.memory.fusion import dense_ranking

    w = World(9)
    rng = np.random.default_rng(9)
    for i in range(200):
        w.add(f"k{i}", sim=float(rng.uniform(-0.2, 0.9)), subject=PLAYER + i % subjects)
    index = w.index()
    rows = np.flatnonzero(index.subject_ids == PLAYER)
    ranked = dense_ranking(index, rows, w.query, floor=0.25, depth=20)
    sims = index.matrix @ w.query
    expected = sorted((r for r in rows if sims[r] > 0.25), key=lambda r: -sims[r])[:20]
    assert ranked.tolist() == expected


def test_lexical_ids_follow_patched_snapshots():
    """After an upsert (new row, same id) and a delete, full-text ids map to the live rows."""
    from dataclasses import replace

    w = World(4)
    for i in range(30):
        w.add(f"k{i}", sim=0.1, learned_at=100 - i)
    index = w.index()
    kept, gone = int(index.ids[3]), int(index.ids[5])
    assert [r.id for r in select_memories_fused(index, None, [kept], PLAYER, recency_slots=0)] == [
        kept
    ]
    updated = replace(index.records[3], value="a new value", learned_at=50.5)
    patched = index.with_row(updated, index.matrix[3]).without(gone)
    picked = select_memories_fused(patched, None, [gone, kept], PLAYER, recency_slots=0)
    assert [(r.id, r.value) for r in picked] == [(kept, "a new value")]
    # The old snapshot still answers as before.
    picked = select_memories_fused(index, None, [gone, kept], PLAYER, recency_slots=0)
    assert sorted(r.id for r in picked) == sorted([gone, kept])
