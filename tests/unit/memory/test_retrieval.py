"""Hybrid retrieval (paper appendix C) with a deterministic embedder."""

import numpy as np
import pytest

from omniira_evennia.memory.retrieval import (
    MemoryMatrix,
    MemoryRecord,
    TextRecord,
    importance_multiplier,
    score_memory,
    select_memories,
    select_newest_plus_similar,
)
from omniira_evennia.testing.fakes import HashingEmbedder

EMB = HashingEmbedder()
PLAYER, OTHER, MAREN = 10, 11, 99


def make_index(specs):
    """specs: (key, value, dict of extra fields); learned_at = position in the list."""
    records = [
        MemoryRecord(
            id=i + 1,
            subject_id=extra.pop("subject", PLAYER),
            key=key,
            value=value,
            learned_at=float(i),
            **extra,
        )
        for i, (key, value, extra) in enumerate((k, v, dict(e)) for k, v, e in specs)
    ]
    vectors = list(EMB.embed([r.value for r in records]))
    return MemoryMatrix.build(records, vectors, EMB.dim)


def q(text):
    return EMB.embed([text])[0]


def test_multipliers_match_the_paper():
    assert importance_multiplier(1) == pytest.approx(0.76)
    assert importance_multiplier(10) == pytest.approx(1.30)
    assert importance_multiplier(None) == pytest.approx(1.0)
    base = MemoryRecord(id=1, subject_id=1, key="k", value="v", importance=5)
    hearsay = MemoryRecord(id=1, subject_id=1, key="k", value="v", importance=5, provenance_id=7)
    felt = MemoryRecord(id=1, subject_id=1, key="k", value="v", importance=5, feeling="anger")
    assert score_memory(0.5, base) == pytest.approx(0.5)
    assert score_memory(0.5, hearsay) == pytest.approx(0.4)
    assert score_memory(0.5, felt) == pytest.approx(0.55)


def test_recency_lane_always_carries_the_newest_eight():
    specs = [(f"old{i}", f"the sword with a blue glass pommel number {i}", {}) for i in range(30)]
    specs += [(f"new{i}", f"weather chatter {i} xyzzy", {}) for i in range(8)]
    picked = select_memories(make_index(specs), q("blue glass pommel sword"), PLAYER)
    keys = [r.key for r in picked]
    assert all(f"new{i}" in keys for i in range(8))
    assert len(picked) == 8 + 12


def test_similarity_floor_and_slots():
    specs = [(f"m{i}", f"totally unrelated words {i}", {}) for i in range(20)]
    specs += [("hit", "Ada lost her brother Tomas in Harrowmere", {})]
    specs += [(f"n{i}", f"fresh line {i}", {}) for i in range(8)]
    picked = select_memories(make_index(specs), q("Harrowmere brother"), PLAYER)
    keys = {r.key for r in picked}
    assert "hit" in keys
    assert not any(k.startswith("m") for k in keys)  # below the 0.25 floor


def test_hearsay_is_weighted_down_and_feelings_up():
    # Two old memories equally similar to the query; only one similarity slot.
    base = "Ada owes money to the smith"
    specs = [
        ("hearsay", base, {"provenance_id": MAREN}),
        ("firsthand", base + " today", {}),
    ] + [(f"n{i}", f"noise {i}", {}) for i in range(8)]
    picked = select_memories(make_index(specs), q(base), PLAYER, similarity_slots=1)
    assert "firsthand" in {r.key for r in picked} and "hearsay" not in {r.key for r in picked}

    specs = [
        ("plain", base, {}),
        ("felt", base, {"feeling": "anger"}),
    ] + [(f"n{i}", f"noise {i}", {}) for i in range(8)]
    picked = select_memories(make_index(specs), q(base), PLAYER, similarity_slots=1)
    assert {r.key for r in picked} >= {"felt"} and "plain" not in {r.key for r in picked}


def test_importance_scales_the_score():
    base = "Ada asked about the ferry"
    specs = [
        ("minor", base, {"importance": 1}),
        ("major", base, {"importance": 10}),
    ] + [(f"n{i}", f"noise {i}", {}) for i in range(8)]
    picked = select_memories(make_index(specs), q(base), PLAYER, similarity_slots=1)
    assert "major" in {r.key for r in picked} and "minor" not in {r.key for r in picked}


def test_result_is_chronological_and_per_subject():
    specs = [
        ("a", "Ada likes plums", {}),
        ("b", "Bran likes plums", {"subject": OTHER}),
        ("c", "Ada hates figs", {}),
    ]
    picked = select_memories(make_index(specs), q("plums"), PLAYER)
    assert [r.key for r in picked] == ["a", "c"]
    assert [r.learned_at for r in picked] == sorted(r.learned_at for r in picked)


def test_expired_and_no_embedding_rows():
    records = [
        MemoryRecord(id=1, subject_id=PLAYER, key="gone", value="x", learned_at=1, expires_at=5),
        MemoryRecord(id=2, subject_id=PLAYER, key="kept", value="y", learned_at=2),
    ]
    index = MemoryMatrix.build(records, [None, None], EMB.dim)
    picked = select_memories(index, q("x y"), PLAYER, now=10)
    assert [r.key for r in picked] == ["kept"]  # no vector: found by recency alone


def test_vectorised_scoring_equals_the_reference_formula():
    rng = np.random.default_rng(1)
    specs = [
        (
            f"k{i}",
            f"word{i % 7} word{i % 5} word{i % 3}",
            {
                "importance": int(rng.integers(1, 11)),
                "feeling": ["anger", None][i % 2],
                "provenance_id": [None, MAREN, None][i % 3],
            },
        )
        for i in range(60)
    ]
    index = make_index(specs)
    query = q("word1 word2 word3")
    picked = select_memories(index, query, PLAYER, recency_slots=0, similarity_slots=12)
    sims = index.matrix @ query
    expected = sorted(
        (
            (score_memory(float(sims[i]), r), r.id)
            for i, r in enumerate(index.records)
            if sims[i] > 0.25
        ),
        reverse=True,
    )[:12]
    assert {r.id for r in picked} == {rid for _, rid in expected}


def test_newest_reflection_always_included():
    records = [
        TextRecord(id=1, text="Ada is generous", created_at=1, vector=q("Ada is generous")),
        TextRecord(
            id=2,
            text="Ada is generous with coin",
            created_at=2,
            vector=q("Ada is generous with coin"),
        ),
        TextRecord(id=3, text="unrelated belief zzz", created_at=3, vector=q("zzz qqq")),
    ]
    picked = select_newest_plus_similar(records, q("generous Ada"), slots=2)
    assert picked[-1].id == 3  # newest, despite no similarity
    assert len(picked) == 2 and picked[0].id in (1, 2)


def test_same_key_for_different_subjects_is_not_deduplicated_across_subjects():
    specs = [("name", "Ada is called Ada", {}), ("name", "Bran is called Bran", {"subject": OTHER})]
    picked = select_memories(make_index(specs), q("called"), subject_id=None)
    assert len(picked) == 2


# ---------------------------------------------------------------- snapshots and patching


def _random_records(rng, count, subjects=(PLAYER, OTHER, MAREN), start_id=1):
    records, vectors = [], []
    for i in range(count):
        vector = rng.standard_normal(EMB.dim).astype(np.float32)
        vector /= np.linalg.norm(vector)
        records.append(
            MemoryRecord(
                id=start_id + i,
                subject_id=int(rng.choice(subjects)),
                key=f"k{start_id + i}",
                value=f"memory {start_id + i}",
                importance=int(rng.integers(1, 11)),
                feeling=[None, "joy"][i % 2],
                provenance_id=[None, MAREN][i % 3 == 0],
                learned_at=float(rng.integers(0, 500)),
            )
        )
        vectors.append(None if i % 11 == 0 else vector)
    return records, vectors


def _sorted_build(records, vectors):
    pairs = sorted(zip(records, vectors), key=lambda p: (p[0].subject_id, p[0].learned_at, p[0].id))
    return MemoryMatrix.build(
        [p[0] for p in pairs], [p[1] for p in pairs], EMB.dim, subject_sorted=True
    )


def test_a_patched_matrix_answers_like_one_built_from_scratch():
    """Appends, replacements and deletes, across compactions, give the same retrieval."""
    rng = np.random.default_rng(3)
    records, vectors = _random_records(rng, 300)
    index = _sorted_build(records, vectors)
    live = {r.id: (r, v) for r, v in zip(records, vectors)}
    MemoryMatrix.COMPACT_MIN_ROWS, saved = 40, MemoryMatrix.COMPACT_MIN_ROWS
    try:
        next_id = 1000
        for step in range(400):
            action = step % 4
            if action == 3 and live:  # delete one
                victim = int(rng.choice(list(live)))
                index = index.without(victim)
                del live[victim]
                continue
            if action == 2 and live:  # replace one (an upsert keeps the id, new value/time)
                old = live[int(rng.choice(list(live)))][0]
                [new], [vector] = _random_records(rng, 1, start_id=old.id)
                new = MemoryRecord(**{**new.__dict__, "subject_id": old.subject_id, "key": old.key})
            else:  # a brand-new memory
                [new], [vector] = _random_records(rng, 1, start_id=next_id)
                next_id += 1
            index = index.with_row(new, vector)
            live[new.id] = (new, vector)
            if step % 25 == 0:
                fresh = _sorted_build(*zip(*live.values()))
                query = rng.standard_normal(EMB.dim).astype(np.float32)
                query /= np.linalg.norm(query)
                for subject in (PLAYER, OTHER, None):
                    got = select_memories(index, query, subject, floor=-1.0)
                    want = select_memories(fresh, query, subject, floor=-1.0)
                    assert [r.id for r in got] == [r.id for r in want]
        assert index.live_count == len(live)
        assert sorted(r.id for r in index.live_records()) == sorted(live)
    finally:
        MemoryMatrix.COMPACT_MIN_ROWS = saved


def test_snapshots_do_not_change_under_a_reader():
    rng = np.random.default_rng(5)
    records, vectors = _random_records(rng, 50)
    first = _sorted_build(records, vectors)
    query = q("memory 7")
    before = [r.id for r in select_memories(first, query, PLAYER, floor=-1.0)]
    frozen = first.matrix.copy()
    second = first.with_row(records[3].__class__(**{**records[3].__dict__, "value": "new"}), query)
    third = second.without(records[4].id)
    # A sibling written from the old snapshot must not overwrite the row `second` got.
    sibling = first.with_row(MemoryRecord(id=999, subject_id=PLAYER, key="x", value="x"), None)
    assert len(first) == 50 and first.live_count == 50
    np.testing.assert_array_equal(first.matrix, frozen)
    assert [r.id for r in select_memories(first, query, PLAYER, floor=-1.0)] == before
    assert second.row_of(records[3].id) == 50 and second.records[50].value == "new"
    np.testing.assert_array_equal(second.matrix[50], query)
    assert third.row_of(records[4].id) is None and second.row_of(records[4].id) is not None
    assert sibling.row_of(999) == 50 and sibling.records[50].id == 999
    np.testing.assert_array_equal(second.matrix[50], query)


def test_the_newest_rows_are_exact_with_ties():
    records = [
        MemoryRecord(id=i, subject_id=PLAYER, key=f"k{i}", value="v", learned_at=float(i // 3))
        for i in range(1, 40)
    ]
    index = MemoryMatrix.build(records, [None] * len(records), EMB.dim)
    picked = select_memories(index, None, PLAYER, recency_slots=4)
    assert [r.id for r in picked] == [36, 37, 38, 39]
