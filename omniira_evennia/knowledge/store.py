"""The per-scope knowledge caches: a scope's rows read as a `KnowledgeIndex`, dropped on change."""

from __future__ import annotations

import time
from collections import OrderedDict

import numpy as np
from django.db import connection
from django.db.models import BinaryField, F, Func
from django.db.models.signals import post_delete, post_save, pre_save

from omniira_evennia.fields import EMBEDDING_DIM, is_postgres
from omniira_evennia.knowledge.facts import WORLD_TOKEN, KnowledgeRecord, scope_token
from omniira_evennia.knowledge.selection import KnowledgeIndex
from omniira_evennia.memory import service as memory_service
from omniira_evennia.memory.service import comparable_vectors
from omniira_evennia.models import Knowledge

INDEXES_KEPT = 1024  # scopes whose index is cached (an empty scope is one small entry)
_indexes: OrderedDict[str, KnowledgeIndex] = OrderedDict()


_COLUMNS = (
    "id",
    "key",
    "text",
    "category",
    "importance",
    "confidence",
    "guard",
    "condition",
    "reply",
    "topics",
    "expires_at",
    "source",
    "hops",
    "chain",
    "teller__db_key",
    "scope",
    "scope_token",
    "root_id",
    "vector",
    "topic_vector",
)


def _record(row: tuple) -> KnowledgeRecord:
    values = dict(zip(_COLUMNS, row))
    expires = values["expires_at"]
    return KnowledgeRecord(
        id=values["id"],
        key=values["key"],
        text=values["text"],
        category=values["category"],
        importance=values["importance"],
        confidence=float(values["confidence"]),
        guard=values["guard"] or "",
        condition=values["condition"] or "",
        reply=values["reply"] or "",
        topics=tuple(values["topics"] or ()),
        expires_at=expires.timestamp() if expires is not None else None,
        source=values["source"],
        hops=values["hops"] or 0,
        chain=tuple(values["chain"] or ()),
        teller_name=values["teller__db_key"],
        scope=values["scope"],
        scope_token=values["scope_token"],
        root_id=values["root_id"],
    )


def _wire(column: str):
    """How a vector column is read: (expression, header bytes, dtype). PostgreSQL's
    `vector_send` is pgvector's binary form (a 4-byte header, big-endian floats), as the memory
    matrix reads it (memory.store's vector wire)."""
    if is_postgres(connection):
        return Func(F(column), function="vector_send", output_field=BinaryField()), 4, ">f4"
    return F(column), 0, "<f4"


def _vector(blob, header: int, dtype: str):
    if blob is None or len(blob) != header + EMBEDDING_DIM * 4:
        return None
    return np.frombuffer(bytes(blob)[header:], dtype=dtype).astype(np.float32)


def read_index(token: str) -> KnowledgeIndex:
    """One scope's rows from the database, as an index (vectors another embedder made, and
    so cannot be compared, are read as missing)."""
    text_wire, header, dtype = _wire("embedding")
    topic_wire = _wire("topic_embedding")[0]
    rows = list(
        Knowledge.objects.filter(scope_token=token)
        .annotate(vector=comparable_vectors(text_wire), topic_vector=comparable_vectors(topic_wire))
        .order_by("id")
        .values_list(*_COLUMNS)
    )
    records = [_record(row) for row in rows]
    matrix = np.zeros((len(rows), EMBEDDING_DIM), dtype=np.float32)
    has_vector = np.zeros(len(rows), dtype=bool)
    topic_vectors = {}
    for i, row in enumerate(rows):
        vector = _vector(row[-2], header, dtype)
        if vector is not None:
            norm = float(np.linalg.norm(vector))
            matrix[i] = vector / norm if norm > 0 else vector
            has_vector[i] = norm > 0
        topic = _vector(row[-1], header, dtype)
        if topic is not None and records[i].guard:
            topic_vectors[records[i].id] = topic / (float(np.linalg.norm(topic)) or 1.0)
    index = KnowledgeIndex(token, records, matrix, has_vector)
    index.topic_vectors.update(topic_vectors)
    index.known_names = npc_names()
    return index


def index_for(token: str) -> KnowledgeIndex:
    """The cached index of a scope (read once; dropped when one of its rows changes)."""
    found = _indexes.get(token)
    if found is not None:
        _indexes.move_to_end(token)
        return found
    found = _indexes[token] = read_index(token)
    while len(_indexes) > INDEXES_KEPT:
        _indexes.popitem(last=False)
    return found


def invalidate(token: str | None = None) -> None:
    """Drop one scope's cached index, or every one (and the NPCs' names)."""
    if token is None:
        _indexes.clear()
        _names[0] = 0.0
    else:
        _indexes.pop(token, None)


def _on_change(sender, instance, **kwargs):
    invalidate(instance.scope_token)
    # The row may have moved scope (the admin): its old scope's index holds it too.
    for token, index in list(_indexes.items()):
        if instance.id in index.row_of:
            invalidate(token)


def connect_signals() -> None:
    """Keep the caches current, and record the embedder of each vector saved."""
    pre_save.connect(_save_scope_token, sender=Knowledge, dispatch_uid="omniira_knowledge_token")
    post_save.connect(_on_change, sender=Knowledge, dispatch_uid="omniira_knowledge_save")
    post_delete.connect(_on_change, sender=Knowledge, dispatch_uid="omniira_knowledge_delete")
    memory_service.stamp_embedder_on_save(Knowledge)


def _save_scope_token(sender, instance, raw=False, **kwargs):
    """A row saved anywhere (the Django admin too) names its scope by the right token."""
    if raw:
        return
    target = instance.npc_id if instance.scope == "npc" else instance.room_id
    try:
        instance.scope_token = scope_token(instance.scope, target, instance.scope_name)
    except ValueError:
        instance.scope_token = instance.scope_token or WORLD_TOKEN


NAMES_SECONDS = 60.0  # how long the memory NPCs' names are kept before they are read again
_names: list = [0.0, frozenset()]


def npc_names() -> frozenset:
    """Every memory NPC's name, lower-cased (names at a claim's start: "Wren keeps the forge"),
    read at most once a minute."""
    if time.monotonic() - _names[0] > NAMES_SECONDS:
        keys = (o.key.lower() for o in memory_service.memory_npcs(located=False))
        _names[:] = [time.monotonic(), frozenset(w for key in keys for w in key.split())]
    return _names[1]
