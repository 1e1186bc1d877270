"""
What a line brings to mind: the one retrieval path of a conversation turn, of
`npc.memory.recall(query, about=X)` and of `@memory why` (issue #27, point 2).

1. `line_vectors`: the line embedded as said (the verbatim lane's query) and, in fused mode
   with PAIR_QUERY, without the two speakers' names (issue #18: every memory of the pair names
   them), both in one embedder call.
2. `select_for_line`: the configured scorer (`fusion.select_by_mode`: recency lane within
   RECENCY_WINDOW_HOURS, the full-text and embedding lanes fused by rank, the embedding lane
   centred on the speaker's memories, near-duplicates skipped, the paper's multipliers),
   suspect memories as SUSPECT_MEMORIES says, then the prompt's budget for memories
   (MEMORY_PROMPT_CHARS: the best by score while they fit, shown oldest first).
3. `why_not`: for a memory that was not chosen, the stage where it fell.

The full-text hits (`fulltext.lexical_hits`, the pair-aware query) are read by the caller, on
the reactor, before any of this. Plain Python and numpy (no Django, Evennia or Twisted).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from omniira_evennia.memory.embeddings import Embedder, embed_or_none
from omniira_evennia.memory.fusion import (
    LexicalHits,
    centred_similarities,
    dense_floor,
    lane_centre,
    select_by_mode,
    without_names,
)
from omniira_evennia.memory.retrieval import (
    MemoryMatrix,
    MemoryRecord,
    candidate_mask,
    recency_lane,
)

log = logging.getLogger(__name__)


@dataclass
class LineVectors:
    """
    A line's vectors: `query` searches the memories and knowledge; `said` is kept with the line
    and searches the speaker's earlier lines (the verbatim lane). Both are the name-free form's
    vector when the line names the pair (the names said in every line would make every line
    alike), so a turn embeds one text before its reply.
    """

    said: np.ndarray | None
    query: np.ndarray | None
    embedded: str | None = None  # the text embedded as `query`, when not the line as said


def name_free(message: str, names, conf) -> str | None:
    """The line without the two speakers' names, or None when that is the line itself."""
    if not conf.PAIR_QUERY or conf.RETRIEVAL_MODE != "fused":
        return None
    text = without_names(message, names)
    if not text or text == " ".join(message.split()):
        return None
    return text


def line_vectors(message: str, names, conf, embedder: Embedder | None = None) -> LineVectors:
    """The line's vectors in one embedding: of its name-free form (`name_free`) when that
    differs, else of the line. A second embedding of the line as said cost a turn about 5 ms
    on a 2-core machine (bench/turn_share.py) and found nothing the name-free one does not."""
    stripped = name_free(message, names, conf)
    [vector] = embed_or_none([message if stripped is None else stripped], embedder)
    return _line_vectors(vector, stripped)


def _line_vectors(vector, stripped: str | None) -> LineVectors:
    embedded = stripped if vector is not None else None
    return LineVectors(said=vector, query=vector, embedded=embedded)


def line_vectors_soon(message: str, names, conf, embedder: Embedder):
    """`line_vectors`, started now on the embedder's own thread when it can (`embed_soon`):
    a function that waits for them (at most `timeout` seconds, then embeds here, as after any
    failure), or None when this embedder cannot start them (or not yet)."""
    start = getattr(embedder, "embed_soon", None)
    if start is None:
        return None
    stripped = name_free(message, names, conf)
    vector = start(message if stripped is None else stripped)
    if vector is None:  # not ready (the model not loaded yet): the worker embeds it
        return None

    def wait(timeout: float) -> LineVectors:
        try:
            return _line_vectors(vector.result(timeout=timeout), stripped)
        except Exception as err:
            log.warning("embedding a turn's line on the embedder's thread failed: %r", err)
            return line_vectors(message, names, conf, embedder)

    return wait


def select_for_line(
    index: MemoryMatrix,
    query_vector,
    lexical: LexicalHits | None,
    subject_id: int | None,
    conf,
    *,
    now: float | None = None,
    explain: dict | None = None,
) -> list[MemoryRecord]:
    """The memories a turn puts in its prompt for this line, oldest first (see the module)."""
    records = select_by_mode(
        index,
        query_vector,
        lexical,
        subject_id,
        conf,
        now=now,
        include_suspect=conf.SUSPECT_MEMORIES != "exclude",
        explain=explain,
    )
    return within_budget(records, getattr(conf, "MEMORY_PROMPT_CHARS", 0), explain)


def within_budget(records, budget: int, explain: dict | None = None) -> list[MemoryRecord]:
    """
    `records` that fit `budget` characters of memory text (0: all of them): the recency lane's
    first, then the rest by score, each whole; the rest are marked as cut in `explain`.
    """
    if budget <= 0 or sum(len(r.value) for r in records) <= budget:
        return records

    def rank(record):
        why = (explain or {}).get(record.id, {})
        return (why.get("lane") != "recency", -why.get("score", 0.0), -record.learned_at)

    kept, used = set(), 0
    for record in sorted(records, key=rank):
        if used + len(record.value) <= budget:
            kept.add(record.id)
            used += len(record.value)
        elif explain is not None:
            explain.setdefault(record.id, {})["cut_by_budget"] = budget
    return [r for r in records if r.id in kept]


# ---------------------------------------------------------------- why not?

STAGES = (
    "not_found",  # no such memory, or forgotten
    "other_subject",  # about someone else than the speaker
    "expired",
    "suspect_excluded",  # SUSPECT_MEMORIES = "exclude"
    "outside_recency_window",  # among the newest, but learned before the window
    "not_in_lanes",  # within neither lane's depth (its ranks say where it was)
    "under_similarity_floor",  # its (centred) cosine is at or below the floor, no full-text hit
    "outranked",  # in a lane, but its fused score is below the last one taken
    "same_key",  # another memory with its (subject, key) was taken instead
    "near_duplicate",  # its vector is DUPLICATE_COSINE close to a memory taken before it
    "cut_by_budget",  # chosen, but the prompt's budget for memories was spent
    "chosen",  # it was in the prompt after all
)


def why_not(
    index: MemoryMatrix,
    memory_id: int,
    query_vector,
    lexical: LexicalHits | None,
    subject_id: int | None,
    conf,
    *,
    now: float | None,
    explain: dict,
    chosen: list[int],
) -> dict:
    """
    Where memory `memory_id` fell for this line, as {"stage": one of STAGES, ...details}: its
    lane ranks, cosine, fused score and the last score taken. `explain` and `chosen` are what
    `select_for_line` filled and returned for the same line.
    """
    row = index.row_of(memory_id)
    if row is None or not index.alive[row]:
        return {"stage": "not_found"}
    if memory_id in chosen:
        details = _ranks(index, row, query_vector, lexical, subject_id, conf, now)
        return {"stage": "chosen", **details, **explain.get(memory_id, {})}
    record = index.records[row]
    if subject_id is not None and record.subject_id != subject_id:
        return {"stage": "other_subject", "subject_id": record.subject_id}
    if now is not None and index.expires_at[row] <= now:
        return {"stage": "expired"}
    if conf.SUSPECT_MEMORIES == "exclude" and index.suspect[row]:
        return {"stage": "suspect_excluded"}
    why = dict(explain.get(memory_id, {}))
    if "cut_by_budget" in why:
        return {"stage": "cut_by_budget", **why}
    details = _ranks(index, row, query_vector, lexical, subject_id, conf, now)
    if _taken_key(index, record, chosen):
        return {"stage": "same_key", **details, **why}
    if "duplicate_of" in why:
        return {"stage": "near_duplicate", **details, **why}
    if "score" in why:
        taken = [explain[m]["score"] for m in chosen if "score" in explain.get(m, {})]
        return {"stage": "outranked", **details, **why, "last_taken": min(taken, default=None)}
    if details.get("recency_rank") is not None and details.get("window_hours"):
        return {"stage": "outside_recency_window", **details}
    if details.get("lexical_rank") is None and details.get("cosine") is not None:
        if details.get("centred", details["cosine"]) <= details["floor"]:
            return {"stage": "under_similarity_floor", **details}
    return {"stage": "not_in_lanes", **details}


def _taken_key(index: MemoryMatrix, record: MemoryRecord, chosen: list[int]) -> bool:
    for other_id in chosen:
        other_row = index.row_of(other_id)
        if other_row is not None:
            other = index.records[other_row]
            if (other.subject_id, other.key) == (record.subject_id, record.key):
                return True
    return False


def _ranks(index, row, query_vector, lexical, subject_id, conf, now) -> dict:
    """
    The memory's place in each lane, over every candidate (not only the lanes' depth): its
    rank among all by age, and its rank by meaning among the rows the meaning lane ranks (the
    candidates the recency lane did not take), as the lanes count them (by centred cosine when
    the fused lane is centred, which is then reported with the plain one).
    """
    include_suspect = conf.SUSPECT_MEMORIES != "exclude"
    fused = conf.RETRIEVAL_MODE == "fused" and lexical is not None
    mask = candidate_mask(index, subject_id, now, include_suspect)
    candidates = np.flatnonzero(mask)
    floor = dense_floor(conf) if fused else conf.SIMILARITY_FLOOR
    details: dict = {"depth": conf.LEXICAL_DEPTH, "floor": floor}
    centre = lane_centre(index, subject_id) if fused and conf.CENTRED_DENSE else None
    learned = index.learned_at[candidates]
    newer = int(np.sum(learned > index.learned_at[row]))
    if newer < conf.RECENCY_SLOTS:
        details["recency_rank"] = newer + 1
        window = conf.RECENCY_WINDOW_HOURS
        if window and now is not None and index.learned_at[row] < now - window * 3600:
            details["window_hours"] = window
    lane = recency_lane(
        index,
        subject_id,
        now,
        include_suspect,
        conf.RECENCY_SLOTS,
        conf.RECENCY_WINDOW_HOURS * 3600.0,
    )
    if lane is not None:
        mask = mask.copy()
        mask[lane[1]] = False
        candidates = np.flatnonzero(mask)
    if query_vector is not None and index.has_vector[row]:
        # The row among the lane's rows in one computation, so it is never ranked against a
        # value of its own computed another way.
        rows = np.union1d(candidates[index.has_vector[candidates]], [row])
        cosines, sims = centred_similarities(index, rows, query_vector, centre)
        own = rows == row
        details["cosine"] = round(float(cosines[own][0]), 3)
        if centre is not None:
            details["centred"] = round(float(sims[own][0]), 3)
        details["dense_rank"] = int(np.sum(sims[~own] > sims[own][0])) + 1
    elif not index.has_vector[row]:
        details["no_vector"] = True
    if lexical is not None:
        ids = list(dict.fromkeys(lexical.memories or ()))
        memory_id = int(index.ids[row])
        details["lexical_rank"] = ids.index(memory_id) + 1 if memory_id in ids else None
        details["lexical_searched"] = lexical.query
    return details
