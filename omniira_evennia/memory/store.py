"""
Reading and writing memory state through the ORM.

Every function here touches the database and so, inside a running server, runs on the reactor
thread (SQLite connections and Evennia's idmapper cache are not thread-safe). Expensive work
(embedding, LLM calls) happens elsewhere and hands plain values in. The one exception is
`read_index`, a plain read that may run in a worker thread.

The per-NPC `MemoryMatrix` cache lives here: read once from one query (one bytes join, one
`np.frombuffer`), then patched by signals whenever one of that NPC's memories is saved or
deleted (a new snapshot, no re-read). Code that bulk-updates or bulk-deletes memories with
querysets must call `invalidate(npc_id)`. The cache is an LRU within VECTOR_CACHE_MB
(`MatrixCache`): an evicted NPC's matrix is read again when next needed.
"""

from __future__ import annotations

import itertools
import json
import logging
from datetime import datetime
from datetime import timezone as dt_timezone
from functools import partial

import numpy as np
from django.db import transaction
from django.db.models import BinaryField, F, Func
from django.db.models.signals import post_delete, post_save

from omniira_evennia.fields import is_postgres, vector_literal
from omniira_evennia.memory import embedder_records, lateness

# The cache's LRU, the audit rows and the NPCs' tag live in their own modules; their names
# stay importable from here (the shell, bench/cache.py and games use `store.<name>`).
from omniira_evennia.memory.audit import audit  # noqa: F401
from omniira_evennia.memory.embedder_records import comparable_vectors, comparable_where
from omniira_evennia.memory.embeddings import EMBEDDING_DIM, from_blob
from omniira_evennia.memory.matrix_cache import MatrixCache, matrix_bytes  # noqa: F401
from omniira_evennia.memory.npc_tags import (  # noqa: F401
    TAGGED_FLAG,
    memory_npcs,
    tag_untagged_npcs,
)
from omniira_evennia.memory.retrieval import MemoryMatrix, MemoryRecord
from omniira_evennia.models import DiaryEntry, Memory, Reflection
from omniira_evennia.runtime import health
from omniira_evennia.runtime.runner import defer_background, orm_allowed

log = logging.getLogger("omniira.store")


_index_cache = MatrixCache()
# Bumped on every change to an NPC's memories, so a matrix read in a worker thread while a
# write happened on the reactor is used once but never cached.
_generation: dict[int, int] = {}
_epoch = [0]
# Patches applied inside a transaction that has not committed yet: token -> (npc id, on-commit
# callback). If it rolls back, the next cache read finds them unconfirmed and drops the matrix.
_unconfirmed: dict[int, tuple] = {}
_tokens = itertools.count()


# ---------------------------------------------------------------- the vector cache


def invalidate(npc_id: int | None = None) -> None:
    """Drop the cached matrix of one NPC, or of all NPCs (after bulk updates or deletes)."""
    if npc_id is None:
        _index_cache.clear()
        _epoch[0] += 1
    else:
        _index_cache.pop(npc_id, None)
        _bump(npc_id)


def _bump(npc_id: int) -> None:
    _generation[npc_id] = _generation.get(npc_id, 0) + 1


def generation(npc_id: int) -> tuple[int, int]:
    """A token that changes whenever `npc_id`'s memories change (see `install_index`)."""
    return (_epoch[0], _generation.get(npc_id, 0))


def _settle() -> None:
    """Drop matrices patched by writes whose transaction (or savepoint) was rolled back."""
    if not _unconfirmed:
        return
    connection = transaction.get_connection()
    # Django drops the on-commit callbacks of a rolled-back transaction or savepoint from
    # `run_on_commit`; a committed one has run and removed its token already.
    pending = {id(entry[1]) for entry in connection.run_on_commit}
    for token, (npc_id, callback) in list(_unconfirmed.items()):
        if id(callback) not in pending:
            del _unconfirmed[token]
            invalidate(npc_id)


def _patch(npc_id: int, change) -> None:
    """Apply `change(matrix) -> matrix` to a cached matrix, undone if the write rolls back."""
    _bump(npc_id)
    cached = _index_cache.get(npc_id)
    if cached is None:
        return
    try:
        _index_cache[npc_id] = change(cached)
    except Exception:  # a row we cannot read back: reload it from the database next time
        log.exception("could not patch the memory matrix of #%s; it will be reloaded", npc_id)
        _index_cache.pop(npc_id, None)
        return
    if transaction.get_connection().in_atomic_block:
        token = next(_tokens)
        confirm = partial(_unconfirmed.pop, token, None)
        _unconfirmed[token] = (npc_id, confirm)
        transaction.on_commit(confirm)


def _on_memory_saved(sender, instance, **kwargs):
    _patch(
        instance.npc_id,
        lambda index: index.with_row(record_from_memory(instance), from_blob(instance.embedding)),
    )


def _on_memory_deleted(sender, instance, **kwargs):
    _patch(instance.npc_id, lambda index: index.without(instance.id))


def connect_signals() -> None:
    post_save.connect(_on_memory_saved, sender=Memory, dispatch_uid="omniira_mem_save")
    post_delete.connect(_on_memory_deleted, sender=Memory, dispatch_uid="omniira_mem_delete")
    # Every vector saved records the embedder that made it (issue #19).
    embedder_records.connect_signals(Memory, Reflection, DiaryEntry)
    # The rollover writes beliefs and diaries itself: late ones for an erased player go here.
    for model in (Reflection, DiaryEntry):
        uid = f"omniira_late_{model.__name__}"
        post_save.connect(lateness.drop_late_rollover_rows, sender=model, dispatch_uid=uid)


def _ts(value: datetime | None) -> float | None:
    return value.timestamp() if value is not None else None


_INDEX_COLUMNS = (
    "id",
    "subject_id",
    "key",
    "value",
    "importance",
    "source",
    "provenance_id",
    "provenance__db_key",
    "feeling",
    "learned_at",
    "expires_at",
    "vector_wire",  # see _vector_wire
    "subject__db_key",
    "hops",
    "chain",
    "suspect",
    "origin_id",
    "uncertain",
)


def _index_rows(npc_id: int) -> list[tuple]:
    """
    The rows of one NPC's matrix, read through a raw cursor: Django's per-value converters
    (datetimes, JSON) cost more than the query itself at 10k rows, and `_as_timestamp` and
    `_as_chain` do the same work cheaply.
    """
    from django.db import connection

    # -- issue #19: a vector made by an embedder the configured one cannot be compared with is
    # read as missing (NULL) until `@memory reembed` redoes it (see
    # embedder_records.comparable_vectors).

    vector_wire = comparable_vectors(_vector_wire(connection)[0])
    # -- end issue #19

    # Grouped by subject, so each subject's rows are one slice of the matrix (see MemoryMatrix).
    queryset = (
        Memory.objects.filter(npc_id=npc_id)
        .annotate(vector_wire=vector_wire)
        .order_by("subject_id", "learned_at", "id")
        .values_list(*_INDEX_COLUMNS)
    )
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _vector_wire(connection):
    """
    How the matrix query reads vectors, as (expression, header bytes, dtype): SQLite hands back
    the stored float32 bytes; PostgreSQL's `vector_send` gives pgvector's binary form (a 4-byte
    header, then big-endian float32), far cheaper to decode than its text form.
    """
    if is_postgres(connection):
        return Func(F("embedding"), function="vector_send", output_field=BinaryField()), 4, ">f4"
    return F("embedding"), 0, "<f4"


def _as_timestamp(value) -> float | None:
    if value is None:
        return None
    if isinstance(value, str):  # SQLite stores datetimes as ISO text (UTC, USE_TZ)
        value = datetime.fromisoformat(value)
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt_timezone.utc)
    return value.timestamp()


def _as_chain(value) -> tuple[int, ...]:
    if isinstance(value, str):
        if value in ("", "[]"):
            return ()
        try:
            value = json.loads(value)
        except ValueError:
            return ()
    return tuple(int(v) for v in value) if isinstance(value, list) else ()


def cached_index(npc_id: int) -> MemoryMatrix | None:
    """The NPC's cached memory matrix, or None if it has to be read (reactor only)."""
    _settle()
    return _index_cache.get(npc_id)


def load_index(npc_id: int) -> MemoryMatrix:
    """
    The NPC's memory matrix, from cache or read now. Reading 10k memories takes ~0.1 s, so code
    on the reactor that can wait should use `load_index_later` instead.
    """
    cached = cached_index(npc_id)
    if cached is not None:
        return cached
    token = generation(npc_id)
    return install_index(npc_id, read_index(npc_id), token)


def install_index(npc_id: int, index: MemoryMatrix, token: tuple[int, int]) -> MemoryMatrix:
    """
    Cache a matrix read with `read_index` when `token` (taken with `generation` before the
    read) is still current; otherwise a write came in meanwhile and the matrix is used once
    only. Returns the matrix to use now.
    """
    _settle()
    cached = _index_cache.get(npc_id)
    if cached is not None:
        return cached
    if token == generation(npc_id):
        _index_cache[npc_id] = index
    return index


def load_index_later(npc_ids):
    """
    A Deferred firing once every NPC in `npc_ids` has its matrix cached (or read for this use),
    reading the missing ones in the worker pool so the reactor never waits on a big read.
    """
    from twisted.internet import defer

    missing = [npc_id for npc_id in dict.fromkeys(npc_ids) if cached_index(npc_id) is None]
    if not missing:
        return defer.succeed(None)
    tokens = {npc_id: generation(npc_id) for npc_id in missing}

    def _read_all():
        return {npc_id: read_index(npc_id) for npc_id in missing}

    def _install(indexes):
        for npc_id, index in indexes.items():
            install_index(npc_id, index, tokens[npc_id])

    return defer_background(_read_all).addCallback(_install)


def read_index(npc_id: int) -> MemoryMatrix:
    """
    Read one NPC's matrix from the database (one query, one bytes join, one `frombuffer`).
    Touches no shared state, so it may run in a worker thread with its own connection.
    """
    from django.db import connection

    with orm_allowed():  # the one sanctioned read from a worker thread
        rows = _index_rows(npc_id)
    records, blobs, has_vector = [], [], np.zeros(len(rows), dtype=bool)
    _, header, dtype = _vector_wire(connection)
    width = header + EMBEDDING_DIM * 4
    for row_number, row in enumerate(rows):
        (
            mid,
            subject_id,
            key,
            value,
            importance,
            source,
            prov_id,
            prov_name,
            feeling,
            learned_at,
            expires_at,
            blob,
            subject_name,
            hops,
            chain,
            suspect,
            origin_id,
            uncertain,
        ) = row
        records.append(
            MemoryRecord(
                id=mid,
                subject_id=subject_id,
                key=key,
                value=value,
                importance=importance if importance is not None else 5,
                source=source,
                provenance_id=prov_id,
                provenance_name=prov_name,
                feeling=feeling or None,
                learned_at=_as_timestamp(learned_at),
                expires_at=_as_timestamp(expires_at),
                subject_name=subject_name,
                hops=hops or 0,
                chain=_as_chain(chain),
                suspect=bool(suspect),
                origin_id=origin_id,
                uncertain=bool(uncertain),
            )
        )
        if blob is not None and len(blob) == width:
            blobs.append(bytes(blob))
            has_vector[row_number] = True
        else:
            if blob is not None:
                health.incr("corrupt_embeddings")
            blobs.append(b"\0" * width)
    matrix = (
        np.frombuffer(b"".join(blobs), dtype=dtype)
        .reshape(len(rows), width // 4)[:, header // 4 :]
        .astype(np.float32, copy=False)
        if rows
        else np.zeros((0, EMBEDDING_DIM), dtype=np.float32)
    )
    return MemoryMatrix(records, matrix, has_vector, subject_sorted=True)


# ---------------------------------------------------------------- memories


def record_from_memory(memory: Memory) -> MemoryRecord:
    return MemoryRecord(
        id=memory.id,
        subject_id=memory.subject_id,
        key=memory.key,
        value=memory.value,
        importance=memory.importance,
        source=memory.source,
        provenance_id=memory.provenance_id,
        provenance_name=memory.provenance.db_key if memory.provenance_id else None,
        feeling=memory.feeling or None,
        learned_at=memory.learned_at.timestamp(),
        expires_at=_ts(memory.expires_at),
        subject_name=memory.subject.db_key,
        hops=memory.hops,
        chain=tuple(memory.chain or ()),
        suspect=memory.suspect,
        origin_id=memory.origin_id,
        uncertain=memory.uncertain,
    )


# ---------------------------------------------------------------- vector search in the database


def nearest_memories(npc_id: int, vector, limit: int = 10, subject_id: int | None = None):
    """
    One NPC's memories most similar to `vector`, exact: [(memory id, cosine)], best first.

    On PostgreSQL the database answers. The `+ 0` keeps the HNSW index out of it: with a
    per-NPC filter the planner could pick the index and return fewer rows than asked (the
    filtered-HNSW pitfall), so the query takes the btree path on npc_id and sorts exactly.
    Elsewhere the NPC's cached matrix answers.
    """
    from django.db import connection

    if vector is None or limit <= 0:
        return []
    if is_postgres(connection):

        table = connection.ops.quote_name(Memory._meta.db_table)
        comparable, names = comparable_where()  # another embedder's vectors are not compared
        where, params = f"npc_id = %s AND embedding IS NOT NULL AND {comparable}", [npc_id, *names]
        if subject_id is not None:
            where += " AND subject_id = %s"
            params.append(subject_id)
        literal = vector_literal(vector)
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT id, 1 - (embedding <=> %s::vector) FROM {table} WHERE {where} "
                f"ORDER BY (embedding <=> %s::vector) + 0, id LIMIT %s",
                [literal, *params, literal, limit],
            )
            return [(row_id, float(sim)) for row_id, sim in cursor.fetchall()]
    return _nearest_in_matrix(load_index(npc_id), vector, limit, subject_id)


def _nearest_in_matrix(index: MemoryMatrix, vector, limit: int, subject_id: int | None):
    mask = index.alive & index.has_vector
    if subject_id is not None:
        mask &= index.subject_ids == subject_id
    rows = np.flatnonzero(mask)
    if not len(rows):
        return []
    sims = index.similarities(vector, rows, subject_id)
    top = np.lexsort((index.ids[rows], -sims))[:limit]
    return [(int(index.ids[rows[i]]), float(sims[i])) for i in top]


def who_knows(vector, limit: int = 10, floor: float = 0.3):
    """
    Across all NPCs: each NPC's best memory similar to `vector` above `floor`, as
    [(memory id, npc id, cosine)], best first, at most `limit` NPCs.

    On PostgreSQL this walks the HNSW index (approximate, with iterative scanning so enough
    rows come back); elsewhere every NPC's matrix is searched exactly (cached ones from the
    cache, the rest read and not kept).
    """
    from django.db import connection

    if vector is None or limit <= 0:
        return []
    best: dict[int, tuple[int, float]] = {}
    if is_postgres(connection):

        table = connection.ops.quote_name(Memory._meta.db_table)
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL hnsw.ef_search = 200")
            cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            comparable, names = comparable_where()  # another embedder's vectors are not compared
            cursor.execute(
                f"SELECT id, npc_id, 1 - (embedding <=> %s::vector) AS sim FROM {table} "
                f"WHERE embedding IS NOT NULL AND {comparable} "
                "ORDER BY embedding <=> %s::vector LIMIT %s",
                [vector_literal(vector), *names, vector_literal(vector), limit * 20],
            )
            found = cursor.fetchall()
        for row_id, npc_id, sim in found:
            if sim > floor and (npc_id not in best or sim > best[npc_id][1]):
                best[npc_id] = (row_id, float(sim))
    else:
        npc_ids = Memory.objects.order_by().values_list("npc_id", flat=True).distinct()
        for npc_id in npc_ids:
            index = cached_index(npc_id) or read_index(npc_id)
            for row_id, sim in _nearest_in_matrix(index, vector, 1, None):
                if sim > floor:
                    best[npc_id] = (row_id, sim)
    ranked = sorted(best.items(), key=lambda item: (-item[1][1], item[1][0]))[:limit]
    return [(row_id, npc_id, sim) for npc_id, (row_id, sim) in ranked]
