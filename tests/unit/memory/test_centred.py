"""
Long conversations (issue #27, point 3): the fused embedding lane centred on the speaker's
memories, and near-duplicates that fill no slot.
"""

import numpy as np
import pytest

from omniira_evennia.conf import build_settings
from omniira_evennia.memory.fusion import (
    CENTRE_PRIOR,
    LexicalHits,
    centred_similarities,
    dense_floor,
    lane_centre,
    pick_distinct,
    select_by_mode,
    select_memories_fused,
)
from omniira_evennia.memory.retrieval import MemoryMatrix, MemoryRecord
from tests.support.retrieval_world import DIM, PLAYER, World, keys, unit

NOW = 1_000_000.0


def records(count, subject=PLAYER, start=0):
    return [
        MemoryRecord(id=start + i + 1, subject_id=subject, key=f"m{start + i}", value=f"v{i}")
        for i in range(count)
    ]


def random_index(rng, counts=(30, 40), subject_sorted=True):
    """Rows of two subjects (PLAYER and PLAYER + 1), unit vectors."""
    recs, start = [], 0
    for subject, count in zip((PLAYER, PLAYER + 1), counts):
        recs += records(count, subject, start)
        start += count
    vectors = [unit(rng) for _ in recs]
    return MemoryMatrix.build(recs, vectors, DIM, subject_sorted=subject_sorted)


@pytest.mark.parametrize("subject_sorted", [True, False])
def test_the_mean_vector_is_the_mean_of_the_live_rows(subject_sorted):
    rng = np.random.default_rng(1)
    index = random_index(rng, subject_sorted=subject_sorted)
    index = index.with_row(
        MemoryRecord(id=999, subject_id=PLAYER, key="tail", value="t"), unit(rng)
    )
    rows = np.flatnonzero(index.subject_ids == PLAYER)  # the span and the tail row
    mean, count = index.mean_vector(PLAYER)
    assert count == len(rows) == 31
    assert np.allclose(mean, index.matrix[rows].mean(axis=0), atol=1e-6)
    everyone, total = index.mean_vector(None)
    assert total == len(index) and np.allclose(everyone, index.matrix.mean(axis=0), atol=1e-6)
    assert index.mean_vector(12345)[1] == 0


def test_the_mean_vector_follows_every_snapshot():
    """Kept sums are carried to new snapshots; the old snapshot keeps its own."""
    rng = np.random.default_rng(9)
    index = random_index(rng)
    first, _ = index.mean_vector(PLAYER)  # computed and kept on this snapshot
    index.mean_vector(None)
    added = index.with_row(MemoryRecord(id=500, subject_id=PLAYER, key="new", value="n"), unit(rng))
    replaced = added.with_row(
        MemoryRecord(id=1, subject_id=PLAYER + 1, key="m0", value="moved"), unit(rng)
    )
    gone = replaced.without(2)
    blank = gone.with_row(MemoryRecord(id=501, subject_id=PLAYER, key="blank", value="b"), None)
    for snapshot in (added, replaced, gone, blank):
        for subject in (PLAYER, PLAYER + 1, None):
            live = snapshot.alive & snapshot.has_vector
            if subject is not None:
                live &= snapshot.subject_ids == subject
            mean, count = snapshot.mean_vector(subject)
            assert count == int(live.sum())
            assert np.allclose(mean, snapshot.matrix[live].mean(axis=0), atol=1e-5)
    assert np.array_equal(index.mean_vector(PLAYER)[0], first)


def test_the_centre_counts_a_few_memories_less():
    rng = np.random.default_rng(2)
    index = random_index(rng, counts=(5, 5))
    rows = np.flatnonzero(index.subject_ids == PLAYER)
    mean = index.matrix[rows].mean(axis=0)
    assert np.allclose(lane_centre(index, PLAYER), mean * 5 / (5 + CENTRE_PRIOR), atol=1e-6)
    assert lane_centre(index, 12345) is None


def test_centred_cosines_are_the_cosines_of_the_moved_vectors():
    rng = np.random.default_rng(3)
    index = random_index(rng)
    rows = np.flatnonzero(index.subject_ids == PLAYER)
    query, centre = unit(rng), 0.3 * unit(rng)
    raw, centred = centred_similarities(index, rows, query, centre, PLAYER)
    moved = index.matrix[rows] - centre
    expected = moved @ (query - centre)
    expected /= np.linalg.norm(moved, axis=1) * np.linalg.norm(query - centre)
    assert np.allclose(raw, index.matrix[rows] @ query, atol=1e-5)
    assert np.allclose(centred, expected, atol=1e-5)


def test_without_a_centre_or_at_the_centre_both_are_the_plain_cosine():
    rng = np.random.default_rng(4)
    index = random_index(rng)
    rows = np.flatnonzero(index.subject_ids == PLAYER)
    query = unit(rng)
    for centre in (None, query.copy()):
        raw, centred = centred_similarities(index, rows, query, centre)
        assert np.array_equal(raw, centred)


def pair_world(seed=5, chatter=60):
    """
    A pair's memories: `chatter` lines that all share one direction with the line (their names,
    their small talk), closer to it by plain cosine than the one memory that answers it.
    """
    world = World(seed)
    rng = world.rng
    common = unit(rng)
    common -= common.dot(world.query) * world.query
    common /= np.linalg.norm(common)
    world.query = (
        (world.query + 1.5 * common) / np.linalg.norm(world.query + 1.5 * common)
    ).astype(np.float32)
    for i in range(chatter):
        noise = unit(rng)
        v = 0.8 * common + 0.6 * noise
        world.records.append(
            MemoryRecord(
                id=i + 1,
                subject_id=PLAYER,
                key=f"chatter_{i}",
                value=f"chatter {i}",
                learned_at=float(i),
            )
        )
        world.vectors.append((v / np.linalg.norm(v)).astype(np.float32))
    answer = world.query - common * float(world.query @ common)
    answer = 0.45 * answer / np.linalg.norm(answer) + 0.55 * unit(rng)
    world.records.append(
        MemoryRecord(
            id=chatter + 1, subject_id=PLAYER, key="answer", value="the answer", learned_at=-1.0
        )
    )
    world.vectors.append((answer / np.linalg.norm(answer)).astype(np.float32))
    return world


def test_the_centred_lane_finds_what_differs_from_the_pairs_usual_talk():
    world = pair_world()
    index = world.index()
    options = dict(now=NOW, recency_slots=0, similarity_slots=3, floor=-1.0)
    plain = select_memories_fused(index, world.query, [], PLAYER, **options)
    centred = select_memories_fused(index, world.query, [], PLAYER, centre=True, **options)
    assert "answer" not in keys(plain)  # every chatter line is closer by plain cosine
    assert "answer" in keys(centred)


def test_the_centred_floor_keeps_out_what_is_less_related_than_the_usual():
    world = pair_world()
    index = world.index()
    picked = select_memories_fused(
        index,
        world.query,
        [],
        PLAYER,
        now=NOW,
        recency_slots=0,
        similarity_slots=60,
        floor=0.25,
        centre=True,
    )
    assert keys(picked) == ["answer"]


def duplicates_world():
    """Three copies of one line (the closest), then two distinct lines."""
    world = World(6)
    first = world.add("hello_0", sim=0.9)
    for i in (1, 2):
        world.add(f"hello_{i}", sim=0.9)
        world.vectors[-1] = world.vectors[first - 1]
    world.add("fact_a", sim=0.7)
    world.add("fact_b", sim=0.6)
    return world


def test_near_duplicates_take_no_slot_and_the_next_memory_fills_it():
    world = duplicates_world()
    options = dict(now=NOW, recency_slots=0, similarity_slots=3)
    plain = select_memories_fused(world.index(), world.query, [], PLAYER, **options)
    distinct = select_memories_fused(
        world.index(), world.query, [], PLAYER, duplicate_cosine=0.95, **options
    )
    assert sorted(keys(plain)) == ["hello_0", "hello_1", "hello_2"]
    assert sorted(keys(distinct)) == ["fact_a", "fact_b", "hello_2"]  # equal: higher id first


def test_a_duplicate_of_a_recency_lane_memory_is_skipped():
    world = duplicates_world()
    explain: dict = {}
    picked = select_memories_fused(
        world.index(),
        world.query,
        [],
        PLAYER,
        now=NOW,
        recency_slots=1,
        similarity_slots=2,
        duplicate_cosine=0.95,
        explain=explain,
    )
    # The recency lane holds the newest (fact_b); hello_2 is taken, its copies are not.
    assert sorted(keys(picked)) == ["fact_a", "fact_b", "hello_2"]
    assert explain[2]["duplicate_of"] == 3 and explain[1]["duplicate_of"] == 3


def test_memories_without_vectors_are_never_duplicates():
    world = World(7)
    for i in range(3):
        world.add(f"no_vector_{i}")
    index = world.index()
    chosen: dict = {}
    pick_distinct(index, np.arange(3), np.arange(0), 3, 0.5, chosen)
    assert len(chosen) == 3


def test_a_taken_key_takes_no_slot_with_duplicates_collapsed():
    world = World(8)
    world.add("trade", sim=0.9)
    world.add("trade", sim=0.8)
    world.add("other", sim=0.7)
    picked = select_memories_fused(
        world.index(),
        world.query,
        [],
        PLAYER,
        now=NOW,
        recency_slots=0,
        similarity_slots=2,
        duplicate_cosine=0.95,
    )
    assert sorted(keys(picked)) == ["other", "trade"]


def settings(**raw):
    return build_settings({"RECENCY_WINDOW_HOURS": 0, **raw}, {})


def test_the_settings_choose_the_lane():
    world = pair_world()
    index = world.index()
    hits = LexicalHits(memories=[])
    before = settings(CENTRED_DENSE=False, DUPLICATE_COSINE=0.0)
    old = select_memories_fused(
        index,
        world.query,
        [],
        PLAYER,
        now=NOW,
        recency_slots=8,
        similarity_slots=12,
        floor=before.SIMILARITY_FLOOR,
    )
    assert select_by_mode(index, world.query, hits, PLAYER, before, now=NOW) == old
    conf = settings()
    assert conf.CENTRED_DENSE and dense_floor(conf) == conf.CENTRED_FLOOR
    assert dense_floor(before) == before.SIMILARITY_FLOOR
    explain: dict = {}
    picked = select_by_mode(index, world.query, hits, PLAYER, conf, now=NOW, explain=explain)
    assert "answer" in keys(picked)
    assert "centred" in explain[len(world.records)]
