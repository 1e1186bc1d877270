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
built once from the database and then patched snapshot by snapshot as memories change.

Plain numpy, no Django: the store module builds these from rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

# The scorers' shared steps live in lanes.py; their names stay importable from here (fusion.py
# and games found them here before).
from omniira_evennia.memory.lanes import (  # noqa: F401
    add_by_key,
    candidate_mask,
    chronological,
    explain_recent,
    explain_rows,
    newest_rows,
    recency_lane,
    weighted,
)

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
    origin_id: int | None = None  # the player whose words this came from, if any
    uncertain: bool = False  # a claim against what the NPC knows (issue #25)

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


class MemoryMatrix:
    """
    One NPC's memories: records and a row-aligned normalised float32 matrix.

    Per-row metadata is kept as numpy arrays so a query costs a few vector operations, not a
    Python loop over thousands of rows.

    A matrix is a snapshot: `with_row` and `without` return a new snapshot and leave this one
    untouched, so a worker thread can go on searching an old snapshot while the reactor patches
    the cache. The float rows live in a buffer with spare capacity; a new row is written just
    past the end of every existing snapshot's view, so no reader ever sees it change. A replaced
    or deleted row is only marked dead in the new snapshot's `alive` mask.

    Built from the database (`subject_sorted=True`), rows are ordered by subject, so one
    subject's rows form a contiguous span and a per-subject search multiplies a slice of the
    matrix without copying it; rows added later sit in a tail after the spans. `with_row`
    compacts (re-sorts) once dead and tail rows pass an eighth of the matrix.
    """

    COMPACT_MIN_ROWS = 1024

    def __init__(
        self,
        records: Sequence[MemoryRecord],
        matrix: np.ndarray,
        has_vector: np.ndarray,
        *,
        subject_sorted: bool = False,
    ):
        n = len(records)
        rec = self.records = list(records)
        matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        self._buffer = matrix if matrix.ndim == 2 else matrix.reshape(n, -1)
        self._used = [n]  # rows of _buffer taken, shared by every snapshot of this lineage
        self.matrix = self._buffer[:n]
        self.has_vector = np.asarray(has_vector, dtype=bool)
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
        self.alive = np.ones(n, dtype=bool)
        self.dead = 0
        self._row_of = {r.id: row for row, r in enumerate(rec)}
        self._sums: dict = {}  # subject (None: all) -> (sum of its live vectors, count)
        self.spans: dict[int, tuple[int, int]] = {}
        self.base_rows = 0  # rows [0, base_rows) are grouped by subject into `spans`
        if subject_sorted and n:
            if np.any(np.diff(self.subject_ids) < 0):
                raise ValueError("records are not sorted by subject")
            subjects, starts, counts = np.unique(
                self.subject_ids, return_index=True, return_counts=True
            )
            self.spans = {int(s): (int(a), int(a + c)) for s, a, c in zip(subjects, starts, counts)}
            self.base_rows = n

    @classmethod
    def build(
        cls,
        records: Sequence[MemoryRecord],
        vectors: Sequence[np.ndarray | None],
        dim: int,
        *,
        subject_sorted: bool = False,
    ) -> "MemoryMatrix":
        matrix = np.zeros((len(records), dim), dtype=np.float32)
        has_vector = np.zeros(len(records), dtype=bool)
        for row, vector in enumerate(vectors):
            if vector is not None:
                matrix[row] = vector
                has_vector[row] = True
        return cls(list(records), matrix, has_vector, subject_sorted=subject_sorted)

    def __len__(self) -> int:
        return len(self.records)

    @property
    def dim(self) -> int:
        return self._buffer.shape[1]

    @property
    def live_count(self) -> int:
        return len(self) - self.dead

    def live_rows(self) -> np.ndarray:
        return np.flatnonzero(self.alive)

    def live_records(self) -> list[MemoryRecord]:
        return [self.records[row] for row in self.live_rows()]

    def row_of(self, memory_id: int) -> int | None:
        """The live row holding memory `memory_id`, or None."""
        row = self._row_of.get(memory_id)
        if row is not None and row < len(self) and self.ids[row] == memory_id:
            return row if self.alive[row] else None
        if row is None:
            return None
        # The shared map already points past this (older) snapshot: look the id up here.
        rows = np.flatnonzero((self.ids == memory_id) & self.alive)
        return int(rows[-1]) if len(rows) else None

    # ------------------------------------------------------------ snapshots

    def _derive(self) -> "MemoryMatrix":
        clone = object.__new__(MemoryMatrix)
        clone.__dict__.update(self.__dict__)
        return clone

    def with_row(self, record: MemoryRecord, vector: np.ndarray | None) -> "MemoryMatrix":
        """A snapshot with `record` added, replacing the row of the same memory id if any."""
        n = len(self)
        old_row = self.row_of(record.id)
        clone = self._derive()
        latest = self._used[0] == n
        if not latest:  # this snapshot was already extended: branch off a private lineage
            clone._row_of = dict(self._row_of)
        if latest and n < self._buffer.shape[0]:
            buffer = self._buffer
        else:
            buffer = np.empty((max(64, n + n // 2 + 1), self.dim), dtype=np.float32)
            buffer[:n] = self.matrix
            clone._buffer, clone._used = buffer, [n]
        has_vector = vector is not None
        changes = (
            [(np.asarray(vector, dtype=np.float32), record.subject_id, 1)] if has_vector else []
        )
        if old_row is not None and self.has_vector[old_row]:
            changes.append((self.matrix[old_row], int(self.subject_ids[old_row]), -1))
        clone._sums = self._carried_sums(changes)
        buffer[n] = vector if has_vector else 0.0
        clone._used[0] = n + 1
        clone.matrix = buffer[: n + 1]

        clone.alive = np.append(self.alive, True)
        if old_row is not None:
            clone.alive[old_row] = False
            clone.dead = self.dead + 1
        clone.records = self.records + [record]
        clone.has_vector = np.append(self.has_vector, has_vector)
        clone.ids = np.append(self.ids, record.id)
        clone.subject_ids = np.append(self.subject_ids, record.subject_id)
        clone.learned_at = np.append(self.learned_at, record.learned_at)
        clone.expires_at = np.append(
            self.expires_at, np.inf if record.expires_at is None else record.expires_at
        )
        clone.suspect = np.append(self.suspect, record.suspect)
        clone.importance_mult = np.append(
            self.importance_mult, np.float32(importance_multiplier(record.importance))
        )
        clone.hearsay = np.append(self.hearsay, record.is_hearsay)
        clone.felt = np.append(self.felt, bool(record.feeling))
        clone._row_of[record.id] = n
        untidy = clone.dead + (len(clone) - clone.base_rows)
        if untidy > max(self.COMPACT_MIN_ROWS, len(clone) // 8):
            return clone.compacted()
        return clone

    def without(self, memory_id: int) -> "MemoryMatrix":
        """A snapshot with memory `memory_id` gone (this one if it is not here)."""
        row = self.row_of(memory_id)
        if row is None:
            return self
        clone = self._derive()
        clone.alive = self.alive.copy()
        clone.alive[row] = False
        clone.dead = self.dead + 1
        gone = [(self.matrix[row], int(self.subject_ids[row]), -1)] if self.has_vector[row] else []
        clone._sums = self._carried_sums(gone)
        return clone

    def compacted(self) -> "MemoryMatrix":
        """A fresh matrix of the live rows only, grouped by subject again."""
        rows = self.live_rows()
        order = np.lexsort((self.ids[rows], self.learned_at[rows], self.subject_ids[rows]))
        rows = rows[order]
        return MemoryMatrix(
            [self.records[row] for row in rows],
            self.matrix[rows],
            self.has_vector[rows],
            subject_sorted=True,
        )

    # ------------------------------------------------------------ search

    def similarities(self, query: np.ndarray, rows: np.ndarray, subject_id: int | None):
        """Cosine similarity of `query` to each of `rows` (ascending row numbers)."""
        query = np.asarray(query, dtype=np.float32)
        span = self.spans.get(subject_id) if subject_id is not None else None
        if span is not None:
            # The subject's base rows are one slice (no copy); only tail rows are gathered.
            start, end = span
            sims = np.empty(len(rows), dtype=np.float32)
            in_span = (rows >= start) & (rows < end)
            if in_span.any():
                inside = rows[in_span]
                lo, hi = inside[0], inside[-1] + 1
                sims[in_span] = (self.matrix[lo:hi] @ query)[inside - lo]
            if not in_span.all():
                sims[~in_span] = self.matrix[rows[~in_span]] @ query
            return sims
        if len(rows) * 3 > len(self):
            return (self.matrix @ query)[rows]
        return self.matrix[rows] @ query

    def mean_vector(self, subject_id: int | None) -> tuple[np.ndarray, int]:
        """
        The mean of the live rows with a vector about `subject_id` (None: every subject), and
        how many there are. Kept per snapshot: computed once (one pass over those rows, the
        subject's base rows read as one slice), then carried to the snapshots `with_row` and
        `without` make by adding or taking away one row (O(dim) each).
        """
        entry = self._sums.get(subject_id)
        if entry is None:
            live = self.alive & self.has_vector
            if subject_id is not None:
                live &= self.subject_ids == subject_id
            rows = np.flatnonzero(live)
            entry = (self._row_sum(rows, subject_id).astype(np.float64), len(rows))
            self._sums[subject_id] = entry
        total, count = entry
        return (total / max(count, 1)).astype(np.float32), count

    def _row_sum(self, rows: np.ndarray, subject_id: int | None) -> np.ndarray:
        """The sum of `rows` (ascending): a weighted sum over the subject's span, no copy."""
        span = self.spans.get(subject_id) if subject_id is not None else None
        if span is None and len(rows) * 3 <= len(self):
            return self.matrix[rows].sum(axis=0)
        lo, hi = span if span is not None else (0, len(self))
        inside = (rows >= lo) & (rows < hi)
        weights = np.zeros(hi - lo, dtype=np.float32)
        weights[rows[inside] - lo] = 1.0
        total = weights @ self.matrix[lo:hi]
        if not inside.all():
            total = total + self.matrix[rows[~inside]].sum(axis=0)
        return total

    def _carried_sums(self, changes) -> dict:
        """The kept sums (`mean_vector`) with `changes` applied: (vector, subject, +1 or -1)."""
        sums = {}
        for key, (total, count) in list(self._sums.items()):  # a copy: workers may add keys
            for vector, subject, sign in changes:
                if key is None or key == subject:
                    total, count = total + sign * vector.astype(np.float64), count + sign
            sums[key] = (total, count)
        return sums


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
    recency_window: float = 0.0,
    explain: dict | None = None,
) -> list[MemoryRecord]:
    """
    The paper's hybrid retrieval over `index`, optionally limited to one subject. `explain`, a
    dict, is filled with why each considered memory ranked where it did (see `explain_rows`).
    `recency_window` (seconds, 0: off) limits the recency lane to memories that recent; the
    slots it leaves free go to the similarity lane.
    """
    start = recency_lane(index, subject_id, now, include_suspect, recency_slots, recency_window)
    if start is None:
        return []
    mask, recent_rows, chosen = start
    similarity_slots += recency_slots - len(recent_rows)
    if explain is not None:
        explain_recent(index, explain, recent_rows)

    # Similarity lane over the rest.
    if query is not None and similarity_slots > 0:
        rest_mask = mask & index.has_vector
        rest_mask[recent_rows] = False
        rest = np.flatnonzero(rest_mask)
        if len(rest):
            sims = index.similarities(query, rest, subject_id)
            above = sims > floor
            rest, sims = rest[above], sims[above]
            scores = weighted(index, rest, sims, weights)
            if explain is not None:
                order = rest[np.lexsort((-index.ids[rest], -sims))]
                explain_rows(index, explain, rest, scores, weights, {"similarity": order}, sims)
            if len(rest) > similarity_slots:
                top = np.argpartition(-scores, similarity_slots - 1)[:similarity_slots]
            else:
                top = np.arange(len(rest))
            top = top[np.lexsort((-index.ids[rest[top]], -scores[top]))]
            add_by_key(index, chosen, rest[top])
    return chronological(index, chosen)


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
