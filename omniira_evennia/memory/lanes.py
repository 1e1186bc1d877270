"""The scorers' shared steps: candidates, the recency lane, dedup by key, multipliers, why."""

from __future__ import annotations

import numpy as np


def explain_recent(index, explain: dict, rows) -> None:
    """The recency lane's rows: in the prompt because they are the newest."""
    for rank, row in enumerate(rows, start=1):
        explain[int(index.ids[row])] = {"lane": "recency", "recency_rank": rank}


def explain_rows(index, explain, rows, scores, weights, ranked_lanes, cosines=None) -> None:
    """
    For each candidate row: its rank in each lane (`ranked_lanes`: name -> rows best first),
    its cosine when known, the paper's multipliers and the final score.
    """
    ranks = {
        name: {int(row): rank for rank, row in enumerate(lane, start=1)}
        for name, lane in ranked_lanes.items()
    }
    for i, row in enumerate(rows):
        row = int(row)
        entry = explain.setdefault(int(index.ids[row]), {"lane": "fused"})
        for name, by_row in ranks.items():
            if row in by_row:
                entry[f"{name}_rank"] = by_row[row]
        if cosines is not None:
            entry["cosine"] = round(float(cosines[i]), 3)
        entry["importance_x"] = round(float(index.importance_mult[row]), 3)
        entry["hearsay_x"] = weights.hearsay if index.hearsay[row] else 1.0
        entry["feeling_x"] = weights.feeling if index.felt[row] else 1.0
        entry["score"] = round(float(scores[i]), 5)


def recency_lane(index, subject_id, now, include_suspect, slots, window: float = 0.0):
    """
    What both scorers start from: (candidate mask, the newest rows, the rows chosen so far by
    (subject, key)), or None when nothing may be retrieved. With a `window` (seconds) and a
    `now`, the newest rows are taken among those learned within the window only (issue #18:
    eight old memories otherwise take eight slots from a question about the past).
    """
    if not len(index):
        return None
    mask = candidate_mask(index, subject_id, now, include_suspect)
    candidates = np.flatnonzero(mask)
    if not len(candidates):
        return None
    if window > 0 and now is not None:
        recent = candidates[index.learned_at[candidates] >= now - window]
        recent_rows = newest_rows(index, recent, slots)
    else:
        recent_rows = newest_rows(index, candidates, slots)
    chosen: dict[tuple[int, str], int] = {}
    add_by_key(index, chosen, recent_rows)
    return mask, recent_rows, chosen


def add_by_key(index, chosen: dict, rows) -> None:
    """Keys are unique per subject, so dedup is by (subject, key); earlier rows win."""
    for row in rows:
        record = index.records[row]
        chosen.setdefault((record.subject_id, record.key), int(row))


def weighted(index, rows: np.ndarray, scores: np.ndarray, weights):
    """The paper's multipliers on `scores` of `rows`: importance, hearsay, feeling."""
    scores = scores * index.importance_mult[rows]
    scores = np.where(index.hearsay[rows], scores * weights.hearsay, scores)
    return np.where(index.felt[rows], scores * weights.feeling, scores)


def chronological(index, chosen: dict) -> list:
    picked = [index.records[row] for row in chosen.values()]
    picked.sort(key=lambda r: (r.learned_at, r.id))
    return picked


def candidate_mask(
    index, subject_id: int | None, now: float | None, include_suspect: bool
) -> np.ndarray:
    """Rows that may be retrieved at all: live, about the subject, unexpired, trusted enough."""
    mask = index.alive.copy()
    if subject_id is not None:
        mask &= index.subject_ids == subject_id
    if now is not None:
        mask &= index.expires_at > now
    if not include_suspect:
        mask &= ~index.suspect
    return mask


def newest_rows(index, candidates: np.ndarray, slots: int) -> np.ndarray:
    """The `slots` newest of `candidates` (by learned_at, then id), newest first."""
    if slots <= 0:
        return candidates[:0]
    learned = index.learned_at[candidates]
    if len(candidates) > slots:
        # Partition first so only the rows at or above the cut get sorted (ties included).
        cut = np.partition(learned, len(learned) - slots)[len(learned) - slots]
        candidates = candidates[learned >= cut]
    order = np.lexsort((index.ids[candidates], index.learned_at[candidates]))[::-1]
    return candidates[order[:slots]]
