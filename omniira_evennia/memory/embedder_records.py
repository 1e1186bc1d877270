"""
Which embedder made each stored vector, on the ORM side (memory/embeddings.py is the plain side:
the embedders, their names and which names are comparable).

- `connect_signals(*models)`: every vector saved is stamped with the configured embedder's name
  (`embeddings.embedder_name`) unless the code saving it set `embedder` itself; a row without a
  vector records none.
- `comparable_vectors(expression)` / `comparable_where(column)`: a stored vector only where the
  row's embedder is comparable with the configured one (`embeddings.comparable_names`), as an
  ORM expression (the memory and knowledge matrices) or an SQL condition (the raw PostgreSQL
  vector queries).
"""

from __future__ import annotations

import logging

import numpy as np
from django.db.models import BinaryField, Case, Q, Value, When
from django.db.models.signals import post_init, pre_save

from omniira_evennia.memory.embeddings import UNRECORDED, comparable_names, embedder_name

log = logging.getLogger("omniira.embeddings")


def comparable_vectors(expression):
    """
    `expression` (a stored vector in a query) where the row's vector is comparable with the
    configured embedder's, else NULL: for the memory matrix read (store._index_rows).
    """
    names, unrecorded = comparable_names()
    condition = Q(embedder__in=sorted(names))
    if unrecorded:
        condition |= Q(embedder__isnull=True) | Q(embedder=UNRECORDED)
    return Case(
        When(condition, then=expression),
        default=Value(None, output_field=BinaryField()),
        output_field=BinaryField(),
    )


def comparable_where(column: str = "embedder") -> tuple[str, list[str]]:
    """
    The same rule as `comparable_vectors`, as an SQL condition and its parameters, for the raw
    vector queries on PostgreSQL (store.nearest_memories, store.who_knows).
    """
    names, unrecorded = comparable_names()
    names = sorted(names)
    condition = f"{column} IN ({', '.join(['%s'] * len(names))})"
    params = list(names)
    if unrecorded:
        condition = f"({condition} OR {column} IS NULL OR {column} = %s)"
        params.append(UNRECORDED)
    return condition, params


_MISSING = object()


def _as_bytes(value):
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    return np.asarray(value, dtype=np.float32).tobytes()


def _remember_loaded(sender, instance, **kwargs):
    state = instance.__dict__
    instance._omniira_loaded = (state.get("embedding", _MISSING), state.get("embedder", _MISSING))


def _stamp_embedder(sender, instance, raw=False, update_fields=None, **kwargs):
    """
    Before a save: a new or changed vector is recorded as made by the configured embedder,
    unless the code saving it set `embedder` itself; a row without a vector records none.
    """
    if raw or (update_fields is not None and "embedding" not in update_fields):
        return
    state = instance.__dict__
    if "embedding" not in state:  # deferred and untouched
        return
    vector = _as_bytes(state["embedding"])
    if vector is None:
        instance.embedder = None
        return
    loaded_vector, loaded_name = getattr(instance, "_omniira_loaded", (_MISSING, _MISSING))
    if instance._state.adding:
        explicit = bool(state.get("embedder"))
    else:
        if loaded_vector is not _MISSING and vector == _as_bytes(loaded_vector):
            return  # the same vector: keep its record
        explicit = bool(state.get("embedder")) and state.get("embedder") != loaded_name
    if not explicit:
        try:
            instance.embedder = embedder_name()
        except Exception:  # no usable embedder configured: the vector stays unrecorded
            log.exception("could not name the configured embedder")
            instance.embedder = None


def connect_signals(*models) -> None:
    """Record the embedder on save for `models` (Memory, Reflection, DiaryEntry)."""
    for model in models:
        uid = f"omniira_embedder_{model.__name__}"
        post_init.connect(_remember_loaded, sender=model, dispatch_uid=uid)
        pre_save.connect(_stamp_embedder, sender=model, dispatch_uid=uid)
