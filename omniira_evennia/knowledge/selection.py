"""
What a line brings to mind of what the NPC knows: the memories' scorer over its knowledge.

An NPC knows through several scopes (the world, its room and zone, its tags, itself), each one
`KnowledgeIndex` cached once for every NPC that shares it (the world's thousand facts are one
matrix, not a copy per NPC). A turn's `KnowledgeView` (gathered on the reactor) lists the NPC's
indexes, the guarded rows this speaker may be shown, and the full-text hits for the line.

`select_knowledge` ranks what may be shown as memories are ranked (`memory/fusion.py`): the
embedding lane (cosine above KNOWLEDGE_QUESTION_FLOOR for a question, KNOWLEDGE_FLOOR for a
statement), the full-text lane and a category lane (facts of the categories a question asks
about by its words, "news" for events) and a name lane (for "what is this town called?", the
facts that give the town a name, knowledge/naming.py), fused by reciprocal rank (RRF_K), times
the importance multiplier and the fact's confidence (a rumour counts for less, as hearsay does); facts of KNOWLEDGE_STANDING_IMPORTANCE and up ride along like the recency
lane; the best KNOWLEDGE_SLOTS within KNOWLEDGE_PROMPT_CHARS characters, best first. Expired
facts and guarded ones the speaker may not be told are never candidates.

Plain Python and numpy (no Django, Evennia or Twisted).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from omniira_evennia.knowledge.contradiction import clauses as clauses_of
from omniira_evennia.knowledge.contradiction import names_in, stem, stems
from omniira_evennia.knowledge.facts import (
    CATEGORIES,
    Guard,
    KnowledgeRecord,
    Withheld,
    hinted_categories,
    is_question,
)
from omniira_evennia.knowledge.naming import name_asked, names_in_any
from omniira_evennia.memory.fusion import rrf_scores
from omniira_evennia.memory.retrieval import importance_multiplier

EMPTY = np.zeros(0, dtype=np.int64)
_WORD = re.compile(r"[^\W_]+")


class KnowledgeIndex:
    """One scope's facts: records, a normalised float32 matrix, and per-row arrays."""

    def __init__(self, token: str, records, matrix, has_vector):
        n = len(records)
        self.token = token
        self.records: list[KnowledgeRecord] = list(records)
        matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        self.matrix = matrix.reshape(n, matrix.shape[-1] if matrix.ndim == 2 else -1)
        self.has_vector = np.asarray(has_vector, dtype=bool)
        self.ids = np.fromiter((r.id for r in records), dtype=np.int64, count=n)
        self.importance = np.fromiter((r.importance for r in records), dtype=np.int16, count=n)
        self.weight = np.fromiter(
            (importance_multiplier(r.importance) * r.confidence for r in records),
            dtype=np.float32,
            count=n,
        )
        self.expires_at = np.fromiter(
            (np.inf if r.expires_at is None else r.expires_at for r in records),
            dtype=np.float64,
            count=n,
        )
        codes = {c: i for i, c in enumerate(CATEGORIES)}
        self.category = np.fromiter(
            (codes.get(r.category, -1) for r in records), dtype=np.int8, count=n
        )
        self.open = np.fromiter((not r.guard for r in records), dtype=bool, count=n)
        self.guarded = np.flatnonzero(~self.open)
        self.row_of = {r.id: row for row, r in enumerate(records)}
        self.row_of_key = {r.key: row for row, r in enumerate(records)}
        self.topic_vectors: dict[int, np.ndarray] = {}  # a guarded row's topics, for guards
        self._names: frozenset | None = None
        self._words: dict | None = None
        self._clauses: dict | None = None
        self._frequency: Counter | None = None
        # Names the facts' clauses may open with (the world's NPCs), set by whoever reads it.
        self.known_names: frozenset = frozenset()

    def __len__(self) -> int:
        return len(self.records)

    @property
    def names(self) -> frozenset:
        """The names inside this scope's facts (the contradiction rule's), found once."""
        if self._names is None:
            self._names = names_in(r.text for r in self.records)
        return self._names

    @property
    def words(self) -> dict[str, list[int]]:
        """Each stem of the facts' texts and topics -> the rows that hold it, found once."""
        if self._words is None:
            self._words = {}
            for row, record in enumerate(self.records):
                for word in stems(" ".join((record.text, *record.topics))):
                    self._words.setdefault(word, []).append(row)
        return self._words

    @property
    def frequency(self) -> Counter:
        """How many facts hold each word (stemmed, stop words too), counted once."""
        if self._frequency is None:
            self._frequency = Counter(
                word
                for record in self.records
                for word in {stem(w) for w in _WORD.findall(record.text.lower())}
            )
        return self._frequency

    @property
    def clauses(self) -> dict[str, list[tuple[int, object]]]:
        """Each subject stem of the facts' clauses -> (row, clause), found once."""
        if self._clauses is None:
            self._clauses = {}
            for row, record in enumerate(self.records):
                for clause in clauses_of(record.text, self.names | self.known_names):
                    for word in clause.subject:
                        self._clauses.setdefault(word, []).append((row, clause))
        return self._clauses


@dataclass
class KnowledgeView:
    """
    What one NPC knows and may tell one speaker, for one line: its scopes' indexes (the most
    specific first: its own, its tags, its rooms, its zones, the world), the guarded rows this
    speaker may be shown (`allowed`), rows another of the NPC's scopes overrides by key
    (`shadowed`), the guards that stand (`guards`), what is withheld and why, and the line's
    full-text hits (`lexical`, None: no lexical lane).
    """

    groups: list[KnowledgeIndex] = field(default_factory=list)
    allowed: frozenset = frozenset()
    shadowed: frozenset = frozenset()
    guards: list[Guard] = field(default_factory=list)
    withheld: list[Withheld] = field(default_factory=list)
    lexical: list[int] | None = None
    searched: str | None = None  # the words searched for
    names: frozenset = frozenset()  # lower-cased names of the world (the contradiction rule)

    def __len__(self) -> int:
        return sum(len(g) for g in self.groups)

    def shown(self, now: float | None = None, scope: str | None = None) -> list[KnowledgeRecord]:
        """Every record the speaker may be shown now (not expired, not guarded against them);
        with `scope`, only in the groups of that scope (one group holds one scope's facts)."""
        out = []
        for group in self.groups:
            if scope is not None and group.records and group.records[0].scope != scope:
                continue
            for record in group.records:
                if self._may_show(record, now):
                    out.append(record)
        return out

    def _may_show(self, record: KnowledgeRecord, now) -> bool:
        if record.id in self.shadowed or record.expired(now):
            return False
        return not record.guard or record.id in self.allowed


def shown_masks(view: KnowledgeView, now: float | None) -> list[np.ndarray]:
    """Per group, a mask of the rows the speaker may be shown now (not expired, not guarded
    against them, not overridden by a more specific scope)."""
    masks = []
    for group in view.groups:
        mask = group.open.copy()
        for row in group.guarded.tolist():
            mask[row] = int(group.ids[row]) in view.allowed
        if now is not None:
            mask &= group.expires_at > now
        for record_id in view.shadowed:
            row = group.row_of.get(record_id)
            if row is not None:
                mask[row] = False
        masks.append(mask)
    return masks


def _candidates(view: KnowledgeView, now: float | None) -> list[np.ndarray]:
    """Per group, the rows that may be shown now."""
    return [np.flatnonzero(mask) for mask in shown_masks(view, now)]


@dataclass
class _Pool:
    """The candidates of every group as one set of arrays (a position is a candidate)."""

    group: np.ndarray
    row: np.ndarray
    weight: np.ndarray
    importance: np.ndarray
    category: np.ndarray
    sims: np.ndarray | None
    has_vector: np.ndarray


def _pool(view: KnowledgeView, rows: list[np.ndarray], query) -> _Pool:
    parts = [(g, group, r) for g, (group, r) in enumerate(zip(view.groups, rows)) if len(r)]
    if not parts:
        empty = np.zeros(0)
        return _Pool(EMPTY, EMPTY, empty, empty, empty, None, np.zeros(0, dtype=bool))
    sims = None
    if query is not None:
        query = np.asarray(query, dtype=np.float32)
        sims = np.concatenate([group.matrix[r] @ query for _, group, r in parts])
    return _Pool(
        group=np.concatenate([np.full(len(r), g) for g, _, r in parts]),
        row=np.concatenate([r for _, _, r in parts]),
        weight=np.concatenate([group.weight[r] for _, group, r in parts]),
        importance=np.concatenate([group.importance[r] for _, group, r in parts]),
        category=np.concatenate([group.category[r] for _, group, r in parts]),
        sims=sims,
        has_vector=np.concatenate([group.has_vector[r] for _, group, r in parts]),
    )


def _record(view: KnowledgeView, pool: _Pool, position: int) -> KnowledgeRecord:
    return view.groups[int(pool.group[position])].records[int(pool.row[position])]


def _dense_lane(pool: _Pool, floor: float, depth: int) -> np.ndarray:
    if pool.sims is None or not len(pool.sims):
        return EMPTY
    above = np.flatnonzero(pool.has_vector & (pool.sims > floor))
    if len(above) > depth:
        above = above[np.argpartition(-pool.sims[above], depth - 1)[:depth]]
    return above[np.argsort(-pool.sims[above], kind="stable")]


def _lexical_lane(view: KnowledgeView, pool: _Pool, depth: int) -> np.ndarray:
    if not view.lexical or not len(pool.row):
        return EMPTY
    where = {}
    for position, (g, row) in enumerate(zip(pool.group.tolist(), pool.row.tolist())):
        where[(g, row)] = position
    found = []
    for record_id in dict.fromkeys(view.lexical):
        for g, group in enumerate(view.groups):
            row = group.row_of.get(record_id)
            if row is not None and (g, row) in where:
                found.append(where[(g, row)])
                break
        if len(found) == depth:
            break
    return np.asarray(found, dtype=np.int64)


def _hint_lane(pool: _Pool, line: str, depth: int) -> np.ndarray:
    wanted = [CATEGORIES.index(c) for c in hinted_categories(line)]
    if not wanted or not len(pool.category):
        return EMPTY
    rows = np.flatnonzero(np.isin(pool.category, wanted))
    return rows[np.argsort(-pool.importance[rows], kind="stable")][:depth]


def _name_lane(view: KnowledgeView, pool: _Pool, line: str, depth: int) -> np.ndarray:
    """For a question for a thing's name, the candidates that give it one (knowledge/naming)."""
    thing = name_asked(line)
    if not thing or not len(pool.row):
        return EMPTY
    texts = [_record(view, pool, position).text for position in range(len(pool.row))]
    found = names_in_any(texts, thing)
    found.sort(key=lambda position: -int(pool.importance[position]))
    return np.asarray(found[:depth], dtype=np.int64)


def _floor(line: str, conf) -> float:
    """The meaning lane's floor: lower for a question (it wants material) than for a statement
    (what it brings, a small model recites)."""
    return conf.KNOWLEDGE_QUESTION_FLOOR if is_question(line) else conf.KNOWLEDGE_FLOOR


def select_knowledge(
    view: KnowledgeView | None,
    query,
    line: str,
    conf,
    *,
    now: float | None = None,
    explain: dict | None = None,
) -> list[KnowledgeRecord]:
    """The knowledge a turn puts in its prompt for `line`, best first (see the module)."""
    if view is None or not view.groups:
        return []
    pool = _pool(view, _candidates(view, now), query)
    if not len(pool.row):
        return []
    depth = conf.LEXICAL_DEPTH
    standing = np.flatnonzero(pool.importance >= conf.KNOWLEDGE_STANDING_IMPORTANCE)
    standing = standing[np.argsort(-pool.importance[standing], kind="stable")]
    lanes = {
        "dense": _dense_lane(pool, _floor(line, conf), depth),
        "lexical": _lexical_lane(view, pool, depth),
        # Only a question asks for a category: "My sister lives past the marsh road" is no
        # question about roads (the telnet trial's reply gave her a distance from the facts).
        "hint": _hint_lane(pool, line, depth) if is_question(line) else EMPTY,
        "name": _name_lane(view, pool, line, depth),
    }
    # A fact that names what a name question asks is its answer: that lane counts double.
    weights = {"name": 2.0}
    rows, scores = rrf_scores(
        [(lane, weights.get(name, 1.0)) for name, lane in lanes.items()], conf.RRF_K
    )
    weighted = scores * pool.weight[rows] if len(rows) else scores
    first = set(standing.tolist())
    order = standing.tolist() + [
        int(rows[i]) for i in np.argsort(-weighted, kind="stable") if int(rows[i]) not in first
    ]
    if explain is not None:
        _explain(view, pool, explain, standing, lanes, rows, scores, weighted)
    return _within_budget(view, pool, order, conf, explain)


def _within_budget(view, pool, order, conf, explain) -> list[KnowledgeRecord]:
    """The first KNOWLEDGE_SLOTS of `order` that fit KNOWLEDGE_PROMPT_CHARS, each whole."""
    chosen, used = [], 0
    budget = conf.KNOWLEDGE_PROMPT_CHARS
    for position in order:
        if len(chosen) == conf.KNOWLEDGE_SLOTS:
            break
        record = _record(view, pool, position)
        if budget and used + len(record.text) > budget:
            if explain is not None:
                explain.setdefault(record.id, {})["cut_by_budget"] = budget
            continue
        chosen.append(record)
        used += len(record.text)
    return chosen


def _explain(view, pool, explain, standing, lanes, rows, scores, weighted) -> None:
    """Each considered fact's lanes, cosine, fused score and multiplier, by id."""
    for position in standing.tolist():
        record = _record(view, pool, position)
        explain[record.id] = {"lane": "standing", "importance": record.importance}
    ranks = {name: {int(p): i + 1 for i, p in enumerate(lane)} for name, lane in lanes.items()}
    for i, position in enumerate(rows.tolist()):
        record = _record(view, pool, position)
        entry = explain.setdefault(record.id, {})
        for name, ranked in ranks.items():
            if position in ranked:
                entry[f"{name}_rank"] = ranked[position]
        if pool.sims is not None:
            entry["cosine"] = round(float(pool.sims[position]), 3)
        entry["rrf"] = round(float(scores[i]), 5)
        entry["weight_x"] = round(float(pool.weight[position]), 3)
        entry["score"] = round(float(weighted[i]), 5)
