"""A note told again in other words: found among the NPC's memories and folded into one."""

from __future__ import annotations

import numpy as np
from django.db import transaction
from django.utils import timezone

from omniira_evennia.conf import get_settings
from omniira_evennia.memory.embeddings import from_blob, to_blob
from omniira_evennia.memory.sameness import gist, given_up, may_restate, one_at_a_time
from omniira_evennia.models import Memory, Source
from omniira_evennia.runtime import health

HISTORY_KEPT = 5


def superseded(memory: Memory) -> list[dict]:
    """The row's history with its current value pushed on top (newest first, capped)."""
    entry = {
        "value": memory.value,
        "until": timezone.now().isoformat(timespec="seconds"),
        "source": memory.source,
    }
    return [entry, *(memory.history or [])][:HISTORY_KEPT]


def restated_key(npc, note, key: str, value: str) -> str:
    """The key of a memory about the note's subject, from the same teller, that `value` says
    again in other words or changes, else `key`: the note updates that memory, whose old value
    becomes its history. Says again: one gist (the tag's "Ada told me: I live in Brackwater"
    and the review's "Ada mentioned that I live in Brackwater"), or one meaning (`_restating`).
    Changes: a new home or trade, a possession given up ("Ada moved to Ashby", "Ada sold the
    mule"). Never a builder's row."""
    name = getattr(note.subject, "key", "") or ""
    said = gist(value, name)
    topic, gone = one_at_a_time(value), given_up(value)
    by_words = len(said) >= 2 or topic or gone
    if not by_words and note.embedding is None:
        return key  # nothing to compare by: no query
    # On the reactor, inside the turn's writes: a note's vector is usually made after the reply
    # (write.embed_later), so the other rows' vectors are read only when there is one to compare.
    others = _others(npc, note.subject, note.teller, key, vectors=note.embedding is not None)
    if by_words:
        for other_key, other_value, _ in others:
            other_said = gist(other_value, name) if len(said) >= 2 or gone else frozenset()
            if len(said) >= 2 and other_said == said:
                health.incr("memory_restated_merged")
                return other_key
            if (topic and one_at_a_time(other_value) == topic) or (gone & other_said):
                health.incr("memory_superseded")
                return other_key
    return _restating(others, value, note.embedding, name) or key


def fold_given_up(memory: Memory, gone: frozenset) -> None:
    """A note that its subject gave something up ("Ada sold the mule") ends every other memory
    of that thing from the same teller ("Ada's mule Pip carries her packs", "Pip, her old mule,
    eats a lot"): their values become this memory's history and their rows go, so no memory
    still says she has the mule. Locked rows and a builder's stay."""
    if not gone:
        return
    name = getattr(memory.subject, "key", "") or ""
    others = [
        other
        for other in Memory.objects.filter(
            npc=memory.npc, subject=memory.subject, provenance=memory.provenance, locked=False
        )
        .exclude(id=memory.id)
        .exclude(source=Source.ADMIN)
        .order_by("-learned_at", "-id")[: get_settings().MEMORY_CAP_PER_SUBJECT]
        if gone & gist(other.value, name)
    ]
    if not others:
        return
    with transaction.atomic():
        for other in others:
            memory.history = [*superseded(other)[:1], *(memory.history or [])][:HISTORY_KEPT]
            other.delete()
            health.incr("memory_superseded")
        memory.save(update_fields=["history"])


def _others(npc, subject, teller, key: str, vectors: bool = True) -> list[tuple]:
    """(key, value, embedding) of the NPC's other memories about `subject` from `teller`
    (a builder's rows aside), newest first, at most a subject's cap of them; without
    `vectors`, each embedding is None and the blobs are not read."""
    rows = (
        Memory.objects.filter(npc=npc, subject=subject, provenance=teller)
        .exclude(key=key)
        .exclude(source=Source.ADMIN)
        .order_by("-learned_at", "-id")
    )
    cap = get_settings().MEMORY_CAP_PER_SUBJECT
    if vectors:
        return list(rows.values_list("key", "value", "embedding")[:cap])
    return [(k, v, None) for k, v in rows.values_list("key", "value")[:cap]]


def _restating(others, value: str, vector, name: str) -> str | None:
    """The key of the memory among `others` that `value` says again by meaning: the nearest
    whose vector is within MEMORY_MERGE_COSINE of `vector` and whose words allow it
    (sameness.may_restate: "I have a pony called Sorrel" and "Sorrel, my old pony, eats a
    lot" are one fact; "my dog is called Rex" and "my cat is called Rex" are two)."""
    threshold = get_settings().MEMORY_MERGE_COSINE
    if vector is None or threshold >= 1:
        return None
    nearest, nearest_cosine = None, threshold
    for other_key, other_value, blob in others:
        cosine = _cosine(vector, blob)
        if cosine >= nearest_cosine and may_restate(value, other_value, name):
            nearest, nearest_cosine = other_key, cosine
    if nearest is not None:
        health.incr("memory_restated_by_meaning")
    return nearest


def fold_restated(memory: Memory, vector) -> Memory:
    """
    A memory written before its vector (an inline tag, embedded after the reply is said) that,
    once embedded, says an older memory again by meaning: the older one takes its value (its
    own value becomes history) and the new row goes, so the NPC keeps one memory of the fact.
    Returns the memory that holds the fact now.
    """
    if memory.source == Source.ADMIN or memory.locked:
        return memory
    name = getattr(memory.subject, "key", "") or ""
    others = _others(memory.npc, memory.subject, memory.provenance, memory.key)
    older_key = _restating(others, memory.value, vector, name)
    if older_key is None:
        return memory
    with transaction.atomic():
        older = (
            Memory.objects.select_for_update()
            .filter(npc=memory.npc, subject=memory.subject, key=older_key)
            .first()
        )
        if older is None or older.locked:
            return memory
        older.history = superseded(older)
        older.value = memory.value
        older.embedding = to_blob(vector)
        older.importance = max(older.importance, memory.importance)
        older.suspect = older.suspect or memory.suspect
        older.learned_at = memory.learned_at
        older.save()
        memory.delete()
    return older


def _cosine(vector, blob) -> float:
    """The cosine of a note's vector and a stored one (both unit length); -1 without both."""
    if vector is None:
        return -1.0
    other = from_blob(blob, dim=len(vector))
    if other is None:
        return -1.0
    return float(np.dot(np.asarray(vector, dtype=np.float32), other))
