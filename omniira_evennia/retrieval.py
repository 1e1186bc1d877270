"""
Hybrid recency + similarity retrieval (paper section 4.4, appendix C).

Two lanes are merged:

- recency: the `recency_slots` newest memories about the subject ride along whatever their
  similarity, so a brand-new fact is never buried;
- similarity: every other memory with an embedding whose cosine similarity to the query is
  above `floor`, scored

      score = sim * (0.7 + importance/10 * 0.6) * (0.8 if hearsay) * (1.1 if feeling)

  and the best `similarity_slots` kept.

The union is deduplicated by key (the recency lane wins) and returned in chronological order,
so the prompt reads as a timeline rather than a relevance-ranked jumble.

`MemoryMatrix` is the per-NPC in-memory index: row metadata plus one normalised float32 matrix,
built once from the database and dropped whenever that NPC's memories change.

Plain numpy, no Django: the store module builds these from rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

RECENCY_SLOTS = 8
SIMILARITY_SLOTS = 12
SIMILARITY_FLOOR = 0.25
HEARSAY_WEIGHT = 0.8
FEELING_WEIGHT = 1.1


@dataclass(frozen=True)
class MemoryRecord:
    """What retrieval and prompt rendering need to know about one memory row."""

    id: int
    subject_id: int
    key: str
    value: str
    importance: int = 5
    source: str = "self"
    provenance_id: int | None = None
    provenance_name: str | None = None
    feeling: str | None = None
    learned_at: float = 0.0  # unix seconds
    expires_at: float | None = None
    suspect: bool = False
    subject_name: str | None = None
    hops: int = 0
    chain: tuple[int, ...] = ()

    @property
    def is_hearsay(self) -> bool:
        return self.provenance_id is not None


@dataclass(frozen=True)
class Weights:
    hearsay: float = HEARSAY_WEIGHT
    feeling: float = FEELING_WEIGHT


def importance_multiplier(importance: int | None) -> float:
    importance = 5 if importance is None else importance
    return 0.7 + (importance / 10) * 0.6


def score_memory(sim: float, record: MemoryRecord, weights: Weights = Weights()) -> float:
    score = sim * importance_multiplier(record.importance)
    if record.is_hearsay:
        score *= weights.hearsay
    if record.feeling:
        score *= weights.feeling
    return score


@dataclass
class MemoryMatrix:
    """One NPC's memories: records (any order) and a row-aligned normalised matrix.

    Per-row metadata is kept as numpy arrays so a query costs a few vector operations, not a
    Python loop over thousands of rows.
    """

    records: list[MemoryRecord]
    matrix: np.ndarray  # (n, dim) float32; rows without an embedding are all zero
    has_vector: np.ndarray  # (n,) bool

    def __post_init__(self):
        n = len(self.records)
        rec = self.records
        self.ids = np.fromiter((r.id for r in rec), dtype=np.int64, count=n)
        self.subject_ids = np.fromiter((r.subject_id for r in rec), dtype=np.int64, count=n)
        self.learned_at = np.fromiter((r.learned_at for r in rec), dtype=np.float64, count=n)
        self.expires_at = np.fromiter(
            (np.inf if r.expires_at is None else r.expires_at for r in rec),
            dtype=np.float64,
            count=n,
        )
        self.suspect = np.fromiter((r.suspect for r in rec), dtype=bool, count=n)
        self.importance_mult = np.fromiter(
            (importance_multiplier(r.importance) for r in rec), dtype=np.float32, count=n
        )
        self.hearsay = np.fromiter((r.is_hearsay for r in rec), dtype=bool, count=n)
        self.felt = np.fromiter((bool(r.feeling) for r in rec), dtype=bool, count=n)

    @classmethod
    def build(
        cls, records: Sequence[MemoryRecord], vectors: Sequence[np.ndarray | None], dim: int
    ) -> "MemoryMatrix":
        matrix = np.zeros((len(records), dim), dtype=np.float32)
        has_vector = np.zeros(len(records), dtype=bool)
        for row, vector in enumerate(vectors):
            if vector is not None:
                matrix[row] = vector
                has_vector[row] = True
        return cls(list(records), matrix, has_vector)

    def __len__(self) -> int:
        return len(self.records)


def select_memories(
    index: MemoryMatrix,
    query: np.ndarray | None,
    subject_id: int | None = None,
    *,
    now: float | None = None,
    recency_slots: int = RECENCY_SLOTS,
    similarity_slots: int = SIMILARITY_SLOTS,
    floor: float = SIMILARITY_FLOOR,
    weights: Weights = Weights(),
    include_suspect: bool = True,
) -> list[MemoryRecord]:
    """The paper's hybrid retrieval over `index`, optionally limited to one subject."""
    if not len(index):
        return []
    mask = np.ones(len(index), dtype=bool)
    if subject_id is not None:
        mask &= index.subject_ids == subject_id
    if now is not None:
        mask &= index.expires_at > now
    if not include_suspect:
        mask &= ~index.suspect
    candidates = np.flatnonzero(mask)
    if not len(candidates):
        return []

    # Recency lane: newest first by learned_at, ties broken by id (insertion order).
    order = np.lexsort((index.ids[candidates], index.learned_at[candidates]))[::-1]
    recent_rows = candidates[order[:recency_slots]]
    # Keys are unique per subject, so dedup is by (subject, key); the recency lane wins.
    chosen: dict[tuple[int, str], int] = {}
    for row in recent_rows:
        record = index.records[row]
        chosen.setdefault((record.subject_id, record.key), int(row))

    # Similarity lane over the rest.
    if query is not None and similarity_slots > 0:
        rest_mask = mask & index.has_vector
        rest_mask[recent_rows] = False
        rest = np.flatnonzero(rest_mask)
        if len(rest):
            sims = index.matrix[rest] @ np.asarray(query, dtype=np.float32)
            above = sims > floor
            rest, sims = rest[above], sims[above]
            scores = sims * index.importance_mult[rest]
            scores = np.where(index.hearsay[rest], scores * weights.hearsay, scores)
            scores = np.where(index.felt[rest], scores * weights.feeling, scores)
            if len(rest) > similarity_slots:
                top = np.argpartition(-scores, similarity_slots - 1)[:similarity_slots]
            else:
                top = np.arange(len(rest))
            top = top[np.lexsort((-index.ids[rest[top]], -scores[top]))]
            for row in rest[top]:
                record = index.records[row]
                chosen.setdefault((record.subject_id, record.key), int(row))

    picked = [index.records[row] for row in chosen.values()]
    picked.sort(key=lambda r: (r.learned_at, r.id))
    return picked


@dataclass(frozen=True)
class TextRecord:
    """A belief or diary entry: text with a time, an importance and maybe a vector."""

    id: int
    text: str
    created_at: float
    importance: int = 5
    vector: np.ndarray | None = field(default=None, compare=False, hash=False)


def select_newest_plus_similar(
    records: Sequence[TextRecord],
    query: np.ndarray | None,
    slots: int,
    floor: float = SIMILARITY_FLOOR,
) -> list[TextRecord]:
    """Reflections: the newest is always included, the rest by similarity; chronological."""
    if not records or slots <= 0:
        return []
    newest = max(records, key=lambda r: (r.created_at, r.id))
    picked = [newest]
    if query is not None:
        scored = []
        for record in records:
            if record is newest or record.vector is None:
                continue
            sim = float(np.dot(record.vector, query))
            if sim > floor:
                scored.append((sim * importance_multiplier(record.importance), record.id, record))
        scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
        picked += [record for _, _, record in scored[: slots - 1]]
    picked.sort(key=lambda r: (r.created_at, r.id))
    return picked
