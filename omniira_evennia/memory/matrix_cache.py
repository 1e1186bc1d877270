"""The per-NPC matrices' LRU within VECTOR_CACHE_MB, and what one cached matrix weighs."""

from __future__ import annotations

import sys
from collections import OrderedDict

import numpy as np

from omniira_evennia.conf import get_settings
from omniira_evennia.memory.retrieval import MemoryMatrix
from omniira_evennia.runtime import health


def _record_bytes(record) -> int:
    """About what one MemoryRecord holds: the object, its __dict__ and its strings."""
    size = sys.getsizeof(record) + sys.getsizeof(record.__dict__)
    for value in record.__dict__.values():
        if isinstance(value, (str, tuple, float)) or (isinstance(value, int) and value > 256):
            size += sys.getsizeof(value)
    return size


def matrix_bytes(index: MemoryMatrix) -> int:
    """
    About how much memory a cached matrix holds: its arrays (each buffer once: snapshots share
    one, views are not counted twice), its records (sampled: a write must not walk 10k of
    them on the reactor) and the row map. `bench/cache.py` compares it with what the process
    really allocates.
    """
    total, seen = 0, set()
    for value in vars(index).values():
        if not isinstance(value, np.ndarray):
            continue
        root = value
        while isinstance(root.base, np.ndarray):
            root = root.base
        owner = root.base if root.base is not None else root
        if id(owner) in seen:
            continue
        seen.add(id(owner))
        total += len(owner) if isinstance(owner, (bytes, bytearray, memoryview)) else root.nbytes
    records = index.records
    if records:
        step = max(1, len(records) // 32)
        sample = records[::step][:32]
        total += int(sum(_record_bytes(r) for r in sample) / len(sample) * len(records))
        total += 100 * len(records)  # the id -> row map, the records list
    return total


class MatrixCache:
    """
    The per-NPC matrices, least recently used first, within `budget()` bytes (VECTOR_CACHE_MB):
    caching one evicts the least recently used others until the total fits; a matrix larger
    than the whole budget is used once and not cached. Evicted NPCs are read again when next
    needed (`load_index`, `load_index_later`). Reactor only, like the rest of this module.
    """

    def __init__(self, budget=None):
        self._budget = budget
        self._items: OrderedDict[int, tuple[MemoryMatrix, int]] = OrderedDict()
        self.total = 0
        self.hits = self.misses = self.evictions = 0

    def budget(self) -> int:
        if self._budget is not None:
            return self._budget
        return int(get_settings().VECTOR_CACHE_MB * 1024 * 1024)

    def get(self, npc_id: int, default=None):
        item = self._items.get(npc_id)
        if item is None:
            self.misses += 1
            return default
        self._items.move_to_end(npc_id)
        self.hits += 1
        return item[0]

    def __contains__(self, npc_id) -> bool:
        return npc_id in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __setitem__(self, npc_id: int, index: MemoryMatrix) -> None:
        self.pop(npc_id, None)
        size, budget = matrix_bytes(index), self.budget()
        if size > budget:
            health.incr("vector_cache_too_big")
            return
        self._items[npc_id] = (index, size)
        self.total += size
        while self.total > budget:
            _, (_, freed) = self._items.popitem(last=False)
            self.total -= freed
            self.evictions += 1
            health.incr("vector_cache_evictions")

    def pop(self, npc_id: int, default=None):
        item = self._items.pop(npc_id, None)
        if item is None:
            return default
        self.total -= item[1]
        return item[0]

    def clear(self) -> None:
        self._items.clear()
        self.total = 0

    def npc_ids(self) -> list[int]:
        """Cached NPCs, least recently used first."""
        return list(self._items)
