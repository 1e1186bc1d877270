"""
The per-NPC vector cache is an LRU within VECTOR_CACHE_MB: it stays under its budget, the least
recently used NPC goes first, and an evicted NPC is read again correctly (issue 17).
"""

import tracemalloc

import pytest
from django.test import override_settings
from evennia.utils import create

from omniira_evennia.memory import store
from omniira_evennia.memory.retrieval import select_memories
from omniira_evennia.memory.write import Note, write_note
from omniira_evennia.runtime import health
from omniira_evennia.testing.fakes import HashingEmbedder

EMB = HashingEmbedder()
MB = 1024 * 1024


@pytest.fixture
def world(db):
    room = create.create_object("evennia.objects.objects.DefaultRoom", key="Cellar", nohome=True)

    def person(key):
        return create.create_object(
            "evennia.objects.objects.DefaultCharacter", key=key, location=room, home=room
        )

    ada = person("Ada")
    npcs = [person(f"Npc{i}") for i in range(4)]
    for i, npc in enumerate(npcs):
        for n in range(30):
            value = f"Npc{i} heard Ada's fact number {n} about the mill and the river."
            [vector] = EMB.embed([value])
            write_note(npc, Note(ada, value, key=f"fact{n}", embedding=vector))
    store.invalidate()
    return ada, npcs


def values(index):
    return sorted(r.value for r in index.live_records())


def test_the_cache_stays_under_budget_and_evicts_the_least_recently_used(world):
    ada, npcs = world
    size = store.matrix_bytes(store.read_index(npcs[0].id))
    budget_mb = 2.5 * size / MB  # room for two matrices, not three
    with override_settings(OMNIIRA={"VECTOR_CACHE_MB": budget_mb}):
        for npc in npcs[:3]:
            store.load_index(npc.id)
            assert store._index_cache.total <= budget_mb * MB
        assert store._index_cache.npc_ids() == [npcs[1].id, npcs[2].id]
        store.load_index(npcs[1].id)  # used: now the most recent
        store.load_index(npcs[3].id)
        assert store._index_cache.npc_ids() == [npcs[1].id, npcs[3].id]
        assert store.cached_index(npcs[0].id) is None and store.cached_index(npcs[2].id) is None
        assert store._index_cache.total <= budget_mb * MB
    assert health.get("vector_cache_evictions") == 2


def test_an_evicted_npc_is_read_again_with_writes_made_while_it_was_out(world):
    ada, npcs = world
    first = values(store.load_index(npcs[0].id))
    size = store.matrix_bytes(store.read_index(npcs[0].id))
    with override_settings(OMNIIRA={"VECTOR_CACHE_MB": 1.5 * size / MB}):
        store.load_index(npcs[1].id)  # evicts npcs[0]
        assert store.cached_index(npcs[0].id) is None
        [vector] = EMB.embed(["Ada's brother drowned in the river."])
        write_note(
            npcs[0], Note(ada, "Ada's brother drowned in the river.", key="b", embedding=vector)
        )
        again = store.load_index(npcs[0].id)
        assert values(again) == sorted(first + ["Ada's brother drowned in the river."])
        assert values(again) == values(store.read_index(npcs[0].id))
        picked = select_memories(again, EMB.embed(["brother river drowned"])[0], ada.id)
        assert "Ada's brother drowned in the river." in [r.value for r in picked]
        assert store._index_cache.npc_ids() == [npcs[0].id]


def test_a_matrix_larger_than_the_budget_is_used_once_and_not_cached(world):
    ada, npcs = world
    with override_settings(OMNIIRA={"VECTOR_CACHE_MB": 0.001}):
        index = store.load_index(npcs[0].id)
        assert len(index.live_records()) == 30
        assert store.cached_index(npcs[0].id) is None and store._index_cache.total == 0
    assert health.get("vector_cache_too_big") == 1


def test_the_size_estimate_is_close_to_what_a_matrix_allocates(world):
    ada, npcs = world
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        index = store.read_index(npcs[0].id)
        allocated = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    estimate = store.matrix_bytes(index)
    assert 0.5 * allocated <= estimate <= 2.0 * allocated, (estimate, allocated)


def test_the_budget_setting_is_validated():
    from omniira_evennia.conf import build_settings

    assert build_settings({}, environ={}).VECTOR_CACHE_MB == 256
    for bad in (0, -1, "lots"):
        with pytest.raises(ValueError, match="VECTOR_CACHE_MB"):
            build_settings({"VECTOR_CACHE_MB": bad}, environ={})
