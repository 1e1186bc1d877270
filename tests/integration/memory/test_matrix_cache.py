"""
The per-NPC memory matrix stays in step with the database without being re-read: writes patch
it, rolled-back writes are undone, and a matrix read while a write happened is not cached.
"""

import numpy as np
import pytest
from django.db import transaction
from evennia.utils import create

from omniira_evennia.memory import store
from omniira_evennia.memory.retrieval import select_memories
from omniira_evennia.memory.write import Note, write_note
from omniira_evennia.testing.fakes import HashingEmbedder

EMB = HashingEmbedder()


@pytest.fixture
def people(db):
    room = create.create_object("evennia.objects.objects.DefaultRoom", key="Cellar", nohome=True)
    npc, ada = (
        create.create_object(
            "evennia.objects.objects.DefaultCharacter", key=key, location=room, home=room
        )
        for key in ("Maren", "Ada")
    )
    return npc, ada


def remember(npc, subject, key, value):
    [vector] = EMB.embed([value])
    return write_note(npc, Note(subject, value, key=key, embedding=vector))


def values(index):
    return sorted(r.value for r in index.live_records())


def test_writes_and_deletes_patch_the_cached_matrix_without_a_query(
    people, django_assert_num_queries
):
    npc, ada = people
    remember(npc, ada, "drink", "Ada drinks plum wine.")
    store.load_index(npc.id)  # cached now

    remember(npc, ada, "home", "Ada lives in Harrowmere.")
    remember(npc, ada, "drink", "Ada switched to cider.")  # same key: replaces the row
    gone = remember(npc, ada, "debt", "Ada owes two coins.")
    gone.delete()
    with django_assert_num_queries(0):
        index = store.load_index(npc.id)
    assert values(index) == ["Ada lives in Harrowmere.", "Ada switched to cider."]
    picked = select_memories(index, EMB.embed(["cider"])[0], ada.id)
    assert "Ada drinks plum wine." not in [r.value for r in picked]
    assert values(index) == values(store.read_index(npc.id))  # same as a fresh read


def test_a_rolled_back_write_leaves_no_trace_in_the_matrix(people):
    npc, ada = people
    remember(npc, ada, "drink", "Ada drinks plum wine.")
    store.load_index(npc.id)
    with pytest.raises(RuntimeError):
        with transaction.atomic():
            remember(npc, ada, "secret", "Ada hid a key under the mat.")
            remember(npc, ada, "drink", "Ada drinks milk.")
            raise RuntimeError("the turn failed")
    assert values(store.load_index(npc.id)) == ["Ada drinks plum wine."]


def test_a_matrix_read_while_a_write_happened_is_used_once_but_not_cached(people):
    npc, ada = people
    remember(npc, ada, "drink", "Ada drinks plum wine.")
    token = store.generation(npc.id)
    stale = store.read_index(npc.id)  # e.g. in a worker thread...
    remember(npc, ada, "home", "Ada lives in Harrowmere.")  # ...while the reactor writes
    assert store.install_index(npc.id, stale, token) is stale
    assert store.cached_index(npc.id) is None
    assert values(store.load_index(npc.id)) == ["Ada drinks plum wine.", "Ada lives in Harrowmere."]


def test_bulk_deletes_invalidate(people):
    from omniira_evennia import api

    npc, ada = people
    remember(npc, ada, "drink", "Ada drinks plum wine.")
    store.load_index(npc.id)
    api.forget(npc, ada)
    assert store.load_index(npc.id).live_count == 0


def test_vectors_in_the_matrix_are_the_stored_embeddings(people):
    npc, ada = people
    memory = remember(npc, ada, "drink", "Ada drinks plum wine.")
    store.load_index(npc.id)
    memory = remember(npc, ada, "drink", "Ada drinks cider now.")
    index = store.load_index(npc.id)
    row = index.row_of(memory.id)
    np.testing.assert_allclose(index.matrix[row], EMB.embed(["Ada drinks cider now."])[0])
