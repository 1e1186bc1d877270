"""
`fused` retrieval: the full-text lane and the embedding lane fused by rank (issue #11).

The paper's scorer (`retrieval.select_memories`, appendix C) ranks by cosine similarity alone.
Small sentence embedders are weakest on exactly what NPC memory is full of (names, places,
dates, items, rare words), so here two ranked lists are fused:

- the embedding lane: memories above the similarity floor, by cosine similarity (best
  `depth`);
- the lexical lane: memory ids ranked by the database's full-text index (`fulltext.py`),
  computed on the reactor before the turn and handed in as plain ids.

Reciprocal rank fusion scores each memory `sum(w / (rrf_k + rank))` over the lanes it is in;
then the paper's multipliers apply (importance, 0.8 hearsay, 1.1 feeling) and the best
`similarity_slots` are kept. Everything else is as in the paper: the `recency_slots` newest
memories always ride along, dedup by (subject, key) with the recency lane winning, and the
result is chronological.

Long conversations (issue #27, docs/benchmarks.md): with `centre`, the embedding lane ranks by
the cosine of query and memory after both are moved by the mean of the candidate memories (the
speaker's): what every memory of the pair shares (the two names, their chatter, their usual
topic) is taken out, as the pair-aware full-text query leaves out the pair's common words, and
its floor is on that centred cosine. With `duplicate_cosine`, a memory that close to one already
taken (the recency lane's included) fills no slot: the same greeting said thirty times is one.

Plain numpy, no Django. The candidate mask, the recency lane and the similarity computation
are the paper scorer's own (`retrieval.py`), so both modes see the same rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from omniira_evennia.memory.retrieval import (
    RECENCY_SLOTS,
    SIMILARITY_FLOOR,
    SIMILARITY_SLOTS,
    MemoryMatrix,
    MemoryRecord,
    TextRecord,
    Weights,
    add_by_key,
    chronological,
    explain_recent,
    explain_rows,
    importance_multiplier,
    recency_lane,
    select_memories,
    weighted,
)

RRF_K = 60  # the usual constant of reciprocal rank fusion (Cormack et al. 2009)
FUSION_DEPTH = 50  # ranks taken from each lane
# A mean of n memories counts n / (n + CENTRE_PRIOR): a speaker with a handful of memories is
# barely centred (their mean is mostly the memories themselves), one with hundreds fully.
CENTRE_PRIOR = 20.0
_NAME_WORD = re.compile(r"[^\W_]+")


@dataclass
class LexicalHits:
    """Full-text ranked ids (best first) for one line: the NPC's memories and its beliefs."""

    memories: list[int] = field(default_factory=list)
    beliefs: list[int] = field(default_factory=list)
    query: str | None = None  # the words searched for (the pair-aware query), when known


def without_names(text: str, names) -> str:
    """
    `text` without the words of `names` (case-insensitive), possessives included ("Ada's"):
    the pair-aware query (issue #18) leaves out the names of the two who are talking, which
    every memory of theirs contains.
    """
    words = sorted({w for n in names for w in _NAME_WORD.findall(str(n).lower())}, key=len)
    if not words:
        return text
    pattern = r"\b(?:" + "|".join(re.escape(w) for w in reversed(words)) + r")(?:'s|’s)?\b,?"
    return " ".join(re.sub(pattern, " ", text, flags=re.IGNORECASE).split()).strip(" ,;:")


def lane_centre(index: MemoryMatrix, subject_id: int | None) -> np.ndarray | None:
    """
    What the centred embedding lane subtracts: the mean vector of the speaker's live memories
    (every subject's when None), shrunk by n / (n + CENTRE_PRIOR); None without vectors. Kept
    per snapshot (`MemoryMatrix.mean_vector`), so a query costs no pass for it.
    """
    mean, count = index.mean_vector(subject_id)
    if not count:
        return None
    return mean * np.float32(count / (count + CENTRE_PRIOR))


def centred_similarities(
    index: MemoryMatrix,
    rows: np.ndarray,
    query: np.ndarray,
    centre: np.ndarray | None,
    subject_id: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """
    (cosine, centred cosine) of `query` to each of `rows`: the centred one is the cosine of
    `query - centre` and `row - centre`, from two passes over the rows (rows are unit vectors,
    so |row - centre|^2 = 1 - 2 row.centre + |centre|^2; two matrix-vector products are
    cheaper here than one with two columns). Without a centre, or a query at the centre
    itself, both are the plain cosine.
    """
    query = np.asarray(query, dtype=np.float32)
    raw = index.similarities(query, rows, subject_id)
    if centre is None:
        return raw, raw
    shifted = float(np.linalg.norm(query - centre))
    if shifted < 1e-6:
        return raw, raw
    along = index.similarities(centre, rows, subject_id)
    square = float(centre @ centre)
    norms = np.sqrt(np.maximum(1.0 - 2.0 * along + square, 1e-12))
    centred = (raw - along - float(query @ centre) + square) / (norms * shifted)
    return raw, centred.astype(np.float32)


def dense_ranking(
    index: MemoryMatrix,
    rows: np.ndarray,
    query: np.ndarray,
    floor: float,
    depth: int,
    subject_id: int | None = None,
    centre: np.ndarray | None = None,
) -> np.ndarray:
    """
    Rows (of `rows`, with a vector) above `floor`, best first, at most depth: by cosine, or by
    centred cosine (`centred_similarities`, floor included) when a `centre` is given.
    """
    rows = rows[index.has_vector[rows]]
    if not len(rows) or depth <= 0:
        return rows[:0]
    if centre is None:
        sims = index.similarities(query, rows, subject_id)
    else:
        sims = centred_similarities(index, rows, query, centre, subject_id)[1]
    above = sims > floor
    rows, sims = rows[above], sims[above]
    if len(rows) > depth:
        top = np.argpartition(-sims, depth - 1)[:depth]
        rows, sims = rows[top], sims[top]
    return rows[np.lexsort((-index.ids[rows], -sims))]


def lexical_ranking(
    index: MemoryMatrix, allowed: np.ndarray, lexical_ids: Sequence[int], depth: int
) -> np.ndarray:
    """Rows for `lexical_ids`, in that order, keeping only `allowed` rows (a bool mask)."""
    rows = []
    for memory_id in dict.fromkeys(lexical_ids or ()):  # a repeated id keeps its best rank
        row = index.row_of(memory_id)
        if row is not None and allowed[row]:
            rows.append(row)
            if len(rows) == depth:
                break
    return np.asarray(rows, dtype=np.int64)


def rrf_scores(
    lanes: Sequence[tuple[np.ndarray, float]], rrf_k: float
) -> tuple[np.ndarray, np.ndarray]:
    """Reciprocal rank fusion of ranked row arrays: (unique rows, summed w / (k + rank))."""
    rows = [ranked for ranked, _ in lanes if len(ranked)]
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    scores = [
        weight / (rrf_k + np.arange(1, len(ranked) + 1)) for ranked, weight in lanes if len(ranked)
    ]
    unique, inverse = np.unique(np.concatenate(rows), return_inverse=True)
    return unique, np.bincount(inverse, weights=np.concatenate(scores), minlength=len(unique))


def select_memories_fused(
    index: MemoryMatrix,
    query: np.ndarray | None,
    lexical_ids: Sequence[int] | None,
    subject_id: int | None = None,
    *,
    now: float | None = None,
    recency_slots: int = RECENCY_SLOTS,
    similarity_slots: int = SIMILARITY_SLOTS,
    floor: float = SIMILARITY_FLOOR,
    weights: Weights = Weights(),
    include_suspect: bool = True,
    rrf_k: float = RRF_K,
    depth: int = FUSION_DEPTH,
    dense_weight: float = 1.0,
    lexical_weight: float = 1.0,
    recency_window: float = 0.0,
    centre: bool = False,
    duplicate_cosine: float = 0.0,
    explain: dict | None = None,
) -> list[MemoryRecord]:
    """
    Recency lane plus the best `similarity_slots` by fused rank (embedding and full-text),
    scaled by the paper's multipliers; deduplicated by key, chronological. `explain`, a dict,
    is filled with each considered memory's lane ranks, fused score and multipliers.
    `recency_window` (seconds, 0: off): see `retrieval.recency_lane`; free recency slots go to
    the fused lane. `centre`: the embedding lane by centred cosine, `floor` on it (see the
    module); `duplicate_cosine` (0: off): near-duplicates of a taken memory are skipped.
    """
    start = recency_lane(index, subject_id, now, include_suspect, recency_slots, recency_window)
    if start is None:
        return []
    mask, recent_rows, chosen = start
    similarity_slots += recency_slots - len(recent_rows)
    if explain is not None:
        explain_recent(index, explain, recent_rows)

    if similarity_slots > 0:
        mean = lane_centre(index, subject_id) if centre else None
        mask[recent_rows] = False
        rest = np.flatnonzero(mask)
        lanes = []
        if query is not None:
            dense = dense_ranking(index, rest, query, floor, depth, subject_id, mean)
            lanes.append((dense, dense_weight))
        lanes.append((lexical_ranking(index, mask, lexical_ids or (), depth), lexical_weight))
        rows, scores = rrf_scores(lanes, rrf_k)
        if len(rows):
            fused = scores
            scores = weighted(index, rows, scores, weights)
            if explain is not None:
                explain_fused(index, explain, rows, fused, scores, weights, lanes, query, mean)
            order = rows[np.lexsort((-index.ids[rows], -scores))]
            if duplicate_cosine > 0:
                pick_distinct(
                    index, order, recent_rows, similarity_slots, duplicate_cosine, chosen, explain
                )
            else:
                add_by_key(index, chosen, order[:similarity_slots])
    return chronological(index, chosen)


def explain_fused(index, explain, rows, fused, scores, weights, lanes, query, mean) -> None:
    """`explain_rows` for the fused lane, plus each row's fused score (and centred cosine)."""
    named = {"dense": lanes[0][0]} if query is not None else {}
    named["lexical"] = lanes[-1][0]
    cosines = centred = None
    if query is not None:
        cosines, centred = centred_similarities(index, rows, query, mean)
    explain_rows(index, explain, rows, scores, weights, named, cosines)
    for i, (row, value) in enumerate(zip(rows, fused)):
        entry = explain[int(index.ids[row])]
        entry["fused"] = round(float(value), 5)
        if mean is not None and centred is not None:
            entry["centred"] = round(float(centred[i]), 3)


def pick_distinct(
    index: MemoryMatrix,
    ranked: np.ndarray,
    taken: np.ndarray,
    slots: int,
    threshold: float,
    chosen: dict,
    explain: dict | None = None,
) -> None:
    """
    Add to `chosen` (by (subject, key), as `add_by_key`) up to `slots` of `ranked` (best
    first), skipping a row whose key is taken or whose vector has a cosine of at least
    `threshold` (> 0) with a row already taken, `taken` (the recency lane) included. Bounded:
    each row of `ranked` (at most both lanes' depth) costs one product with len(taken) + slots
    rows.
    """
    kept = np.zeros((len(taken) + slots, index.dim), dtype=np.float32)
    kept[: len(taken)] = index.matrix[taken]
    kept_ids = [int(index.ids[row]) for row in taken]
    added = 0
    for row in ranked.tolist():
        if added == slots:
            break
        record = index.records[row]
        if (record.subject_id, record.key) in chosen:
            continue
        sims = (kept @ index.matrix[row]).tolist()  # unfilled rows are zeros: never close
        if max(sims) >= threshold:
            if explain is not None:
                explain.setdefault(record.id, {})["duplicate_of"] = kept_ids[sims.index(max(sims))]
            continue
        chosen[(record.subject_id, record.key)] = row
        kept[len(kept_ids)] = index.matrix[row]
        kept_ids.append(record.id)
        added += 1


def select_newest_plus_fused(
    records: Sequence[TextRecord],
    query: np.ndarray | None,
    lexical_ids: Sequence[int] | None,
    slots: int,
    floor: float = SIMILARITY_FLOOR,
    rrf_k: float = RRF_K,
) -> list[TextRecord]:
    """Beliefs: the newest always, the rest by fused rank x importance; chronological."""
    if not records or slots <= 0:
        return []
    newest = max(records, key=lambda r: (r.created_at, r.id))
    rest = [r for r in records if r is not newest]
    score: dict[int, float] = {}
    if query is not None:
        dense = [
            (float(np.dot(r.vector, query)), r.id)
            for r in rest
            if r.vector is not None and float(np.dot(r.vector, query)) > floor
        ]
        for rank, (_, rid) in enumerate(sorted(dense, reverse=True), start=1):
            score[rid] = score.get(rid, 0.0) + 1.0 / (rrf_k + rank)
    by_id = {r.id: r for r in rest}
    lexical = [rid for rid in dict.fromkeys(lexical_ids or ()) if rid in by_id]
    for rank, rid in enumerate(lexical, start=1):
        score[rid] = score.get(rid, 0.0) + 1.0 / (rrf_k + rank)
    ranked = sorted(
        ((s * importance_multiplier(by_id[rid].importance), rid) for rid, s in score.items()),
        reverse=True,
    )
    picked = [newest] + [by_id[rid] for _, rid in ranked[: slots - 1]]
    picked.sort(key=lambda r: (r.created_at, r.id))
    return picked


def select_by_mode(
    index: MemoryMatrix,
    query_vector,
    lexical: LexicalHits | None,
    subject_id: int | None,
    conf,
    *,
    now: float | None = None,
    include_suspect: bool = True,
    explain: dict | None = None,
):
    """
    Memories for a query by the configured RETRIEVAL_MODE: `fused` when full-text hits are at
    hand, otherwise (`paper` mode, or no full-text index) the paper's scorer. `conf` is the
    contrib's settings object (duck-typed: this module stays plain).
    """
    options = dict(
        now=now,
        recency_slots=conf.RECENCY_SLOTS,
        similarity_slots=conf.SIMILARITY_SLOTS,
        floor=conf.SIMILARITY_FLOOR,
        weights=Weights(hearsay=conf.HEARSAY_WEIGHT, feeling=conf.FEELING_WEIGHT),
        include_suspect=include_suspect,
        recency_window=conf.RECENCY_WINDOW_HOURS * 3600.0,
        explain=explain,
    )
    if conf.RETRIEVAL_MODE == "fused" and lexical is not None:
        return select_memories_fused(
            index,
            query_vector,
            lexical.memories,
            subject_id,
            rrf_k=conf.RRF_K,
            depth=conf.LEXICAL_DEPTH,
            dense_weight=conf.DENSE_WEIGHT,
            lexical_weight=conf.LEXICAL_WEIGHT,
            centre=conf.CENTRED_DENSE,
            duplicate_cosine=conf.DUPLICATE_COSINE,
            **{**options, "floor": dense_floor(conf)},
        )
    return select_memories(index, query_vector, subject_id, **options)


def dense_floor(conf) -> float:
    """The floor of the fused embedding lane: on the centred cosine when it is centred."""
    return conf.CENTRED_FLOOR if conf.CENTRED_DENSE else conf.SIMILARITY_FLOOR
