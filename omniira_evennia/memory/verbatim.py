"""
The verbatim lane: what a speaker actually said to this NPC in earlier conversations, brought
back as quoted evidence ("Ada said, three days ago: ...").

Distilled memories are only as good as the model that wrote them; the words themselves are the
most faithful memory there is, and a small model answers "what did I tell you?" best when it
sees them. The lane is scoped to one NPC and one speaker, so what one player said can never be
shown as another player's words.

Ranking fuses two lanes by reciprocal rank, like the memory lanes: the cosine between the
question and each line (the vector the line's own turn computed as its query) above a floor,
and word overlap weighted by how rare a word is among this speaker's lines (a word the speaker
uses everywhere says little). Plain Python and numpy: runs in the worker thread.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

WORD = re.compile(r"[a-z0-9']+")
# Words that carry no fact: never a reason to recall a line.
STOPWORDS = frozenset(
    """a an and are as at be but by do does did for from had has have he her hers him his how i
    i'd i'll i'm i've if in is it it's its me my no not of on or our so than that the their them
    then there they this to too was we were what when where which who whom why will with would
    you you're your yours yes yeah hello hi hey bye goodbye thanks thank please well oh ah ok okay
    just can could should tell told remember know any anything something about""".split()
)


@dataclass(frozen=True)
class SaidLine:
    """One earlier line a speaker said to the NPC."""

    id: int
    text: str
    created_at: float
    game_day: int
    vector: np.ndarray | None = None
    suspect: bool = False


def words(text: str) -> list[str]:
    return [w for w in WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 1]


def _lexical_ranking(lines: list[SaidLine], query: str, names: set[str]) -> list[int]:
    terms = set(words(query)) - names
    if not terms:
        return []
    docs = [set(words(line.text)) - names for line in lines]
    frequency = Counter(term for doc in docs for term in doc)
    total = len(docs)
    scored = []
    for index, doc in enumerate(docs):
        score = sum(math.log(1 + total / frequency[t]) for t in terms & doc)
        if score > 0:
            scored.append((score, lines[index].created_at, index))
    scored.sort(reverse=True)
    return [index for _, _, index in scored]


def _vector_ranking(lines: list[SaidLine], query_vector, floor: float) -> list[int]:
    if query_vector is None:
        return []
    scored = []
    for index, line in enumerate(lines):
        if line.vector is not None:
            similarity = float(np.dot(line.vector, query_vector))
            if similarity >= floor:
                scored.append((similarity, index))
    scored.sort(reverse=True)
    return [index for _, index in scored]


def select_said(
    lines: list[SaidLine],
    query: str,
    query_vector,
    *,
    limit: int = 4,
    floor: float = 0.3,
    rrf_k: int = 10,
    names: set[str] | frozenset[str] = frozenset(),
    include_suspect: bool = False,
) -> list[SaidLine]:
    """
    The `limit` earlier lines most relevant to `query`, oldest first.

    Args:
        lines: the speaker's earlier lines to this NPC (not the current conversation's).
        query: the new line; `query_vector` its embedding (None: words only).
        floor: the least cosine for the vector lane. rrf_k: the fusion constant.
        names: lower-case names of the NPC and the speaker, which match everything.
        include_suspect: lines of flagged turns are left out unless asked for.
    """
    pool = [line for line in lines if include_suspect or not line.suspect]
    if not pool or limit <= 0:
        return []
    score: dict[int, float] = {}
    lowered = {n.lower() for n in names}
    for ranking in (
        _vector_ranking(pool, query_vector, floor),
        _lexical_ranking(pool, query, lowered),
    ):
        for rank, index in enumerate(ranking, start=1):
            score[index] = score.get(index, 0.0) + 1.0 / (rrf_k + rank)
    best = sorted(score, key=lambda i: (-score[i], -pool[i].created_at))[:limit]
    return sorted((pool[i] for i in best), key=lambda line: (line.created_at, line.id))


def when(game_day: int, today: int) -> str:
    """How long ago in game days: 'earlier today', 'yesterday', '3 days ago', '5 weeks ago'."""
    days = max(0, today - game_day)
    if days == 0:
        return "earlier today"
    if days == 1:
        return "yesterday"
    if days < 14:
        return f"{days} days ago"
    if days < 60:
        return f"{days // 7} weeks ago"
    return f"{days // 30} months ago"
