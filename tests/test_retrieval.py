"""Hybrid retrieval (paper appendix C) with a deterministic embedder."""

import numpy as np
import pytest

from omniira_evennia.retrieval import (
    MemoryMatrix,
    MemoryRecord,
    TextRecord,
    importance_multiplier,
    score_memory,
    select_memories,
    select_newest_plus_similar,
)
from tests.helpers import HashingEmbedder

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
