"""A small world of memories with known similarities, for the retrieval tests."""

import numpy as np

from omniira_evennia.memory.retrieval import (
    MemoryMatrix,
    MemoryRecord,
)

PLAYER, OTHER, MAREN = 10, 11, 99
DIM = 384


def unit(rng, dim=DIM):
    v = rng.standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


def orthogonal_to(v, rng):
    w = unit(rng)
    w -= w.dot(v) * v
    return w / np.linalg.norm(w)


def blend(v, w, sim):
    """A unit vector at cosine `sim` from unit `v` (w orthogonal to v)."""
    return (sim * v + np.sqrt(1 - sim**2) * w).astype(np.float32)


class World:
    """Hand-made vectors: the query, and memories at chosen similarities to it."""

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)
        self.query = unit(self.rng)
        self.records, self.vectors = [], []

    def add(self, key, sim=None, **extra):
        """sim=None stores no vector; learned_at is the insertion position."""
        rid = len(self.records) + 1
        self.records.append(
            MemoryRecord(
                id=rid,
                subject_id=extra.pop("subject", PLAYER),
                key=key,
                value=extra.pop("value", key),
                learned_at=float(extra.pop("learned_at", rid)),
                **extra,
            )
        )
        if sim is None:
            self.vectors.append(None)
        else:
            self.vectors.append(blend(self.query, orthogonal_to(self.query, self.rng), sim))
        return rid

    def index(self):
        return MemoryMatrix.build(self.records, self.vectors, DIM)


def keys(records):
    return [r.key for r in records]
