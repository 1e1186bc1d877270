"""
Full-text search over memories, beliefs, diary entries and knowledge, in the database itself.

The lexical lane of `fused` retrieval (see `fusion.py`): small sentence embedders are weak on
names, places, dates and rare words, which a word index finds exactly.

Backends, chosen by `connection.vendor`:

- **SQLite**: FTS5 contentless tables (`omniira_memory_fts`, `omniira_belief_fts`,
  `omniira_diary_fts`), tokenised with `porter unicode61 remove_diacritics 2`. Besides the text,
  each row holds owner tokens in a column of their own (`n<npc> n<npc>s<subject>` for memories,
  `n<npc> n<npc>t<target>` for beliefs, `n<npc>` for diary entries), so one NPC's, or one NPC and
  subject's, rows are selected inside the index through one short doclist rather than by joining
  every NPC's matches. Triggers on the base tables keep them in
  sync, which covers every way a row changes: `create`, `save` (upserts), queryset `update` and
  `delete`, cascades when an object is deleted, erasure and the rollover's forgetting.
- **PostgreSQL**: GIN expression indexes on `to_tsvector('english', <text>)`; an expression
  index is maintained by PostgreSQL itself, so no triggers (tests/integration/memory/test_fulltext.py runs on
  both databases).
- Anything else: no lexical lane (`search_*` return None and retrieval uses the paper's scorer).

A turn's query is pair-aware (`pair_query`, issue #18): the NPC's and the speaker's names,
aliases and keys are left out (every memory of the pair holds them, while over the whole index a
name looks rare), and so are words in more than PAIR_COMMON_SHARE of that pair's memories
(counted per NPC-subject pair in one query); third parties' names stay.

Queries are built from free text safely: only word characters survive, every term is quoted,
so FTS operators typed by a player (`"`, `*`, `NEAR(`, `AND`, `col:`) are plain words or gone.

The DDL lives in fulltext_schema.py, used by migrations 0006 and 0017 and by
`ensure_installed`, which the app runs after every `migrate`: Django's SQLite schema editor
rebuilds a table to alter it, and dropping the old table drops its triggers, so a later
migration on `Memory` would otherwise stop the sync.
"""

from __future__ import annotations

import logging
import re

from omniira_evennia.conf import get_settings

# The index's tables and DDL live in fulltext_schema.py; their names stay importable from here
# (migrations 0006 and 0017, the ticker, the checks and games use `fulltext.<name>`).
from omniira_evennia.memory.fulltext_schema import (  # noqa: F401
    BELIEF_FTS,
    DIARY_FTS,
    KNOWLEDGE_FTS,
    MEMORY_FTS,
    MERGE_PAGES,
    TABLES,
    Table,
    default_connection,
    ensure_installed,
    install,
    maintain,
    optimize,
    purge,
    rebuild,
    uninstall,
)
from omniira_evennia.memory.fusion import LexicalHits, without_names
from omniira_evennia.runtime import health

log = logging.getLogger("omniira.fulltext")


LEXICAL_DEPTH = 50  # ranked ids returned per query
MAX_TERMS = 16  # a long paragraph is cut to its first distinct terms

# Words that match most rows: they add little to the ranking and cost time (every matching row
# is ranked), so they never reach the index query. Standard English function words plus the
# verbs players wrap questions in ("do you remember...", "did I tell you...").
STOPWORDS = frozenset("""
    a about above after again against all am an and any are aren as at be because been before
    being below between both but by can cannot could couldn did didn do does doesn doing don down
    during each few for from further had hadn has hasn have haven having he her here hers herself
    him himself his how i if in into is isn it its itself just let me more most my myself no nor
    not now of off on once only or other ought our ours ourselves out over own same shan she
    should shouldn so some such than that the their theirs them themselves then there these they
    this those through to too under until up very was wasn we were weren what when where which
    while who whom why will with won would wouldn you your yours yourself yourselves ll re ve
    also anything something ever know knew remember recall tell told say said saying mention
    mentioned ask asked think thought hear heard please yes oh well hey
    """.split())

_WORD = re.compile(r"[^\W_]+")


_BY_NAME = {t.name: t for t in TABLES}


# ---------------------------------------------------------------- building queries


def query_terms(text: str, limit: int = MAX_TERMS) -> list[str]:
    """The distinct searchable words of `text`, lower-cased, stop words dropped, in order."""
    terms: list[str] = []
    for word in _WORD.findall((text or "").lower()):
        if word in STOPWORDS or (len(word) < 2 and not word.isdigit()) or word in terms:
            continue
        terms.append(word)
        if len(terms) == limit:
            break
    return terms


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def fts5_query(terms: list[str], owner: str) -> str:
    """An FTS5 MATCH expression: the owner token AND any of the terms, each quoted."""
    words = " OR ".join(_quote(t) for t in terms)
    return f"{{owner}} : {_quote(owner)} AND {{body}} : ({words})"


# ---------------------------------------------------------------- searching


def available(connection=None) -> bool:
    """True if this database has a lexical lane (SQLite with FTS5, or PostgreSQL)."""
    return (connection or default_connection()).vendor in ("sqlite", "postgresql")


def _search(table: Table, owner_values: list[tuple[str, int]], text: str, limit: int):
    """Ranked ids from `table` for `text`; [] for no terms or no hits, None if unavailable."""
    connection = default_connection()
    terms = query_terms(text)
    if not available(connection):
        return None
    if not terms:
        return []
    try:
        if connection.vendor == "sqlite":
            owner = "".join(f"{prefix}{value}" for prefix, value in owner_values)
            with connection.cursor() as cursor:
                cursor.execute(
                    f"SELECT rowid FROM {table.name} WHERE {table.name} MATCH %s "
                    f"ORDER BY bm25({table.name}, 1.0, 0.0), rowid DESC LIMIT %s",
                    [fts5_query(terms, owner), limit],
                )
                return [row[0] for row in cursor.fetchall()]
        # PostgreSQL: in a savepoint, because an error there aborts the caller's transaction.
        from django.db import transaction

        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(*_postgres_query(table, owner_values, terms, limit))
            return [row[0] for row in cursor.fetchall()]
    except Exception:  # a missing index must not break a turn: retrieval falls back
        if not health.snapshot().get("fulltext_failures"):
            log.exception("full-text search in %s failed (logged once)", table.name)
        health.incr("fulltext_failures")
        return None


_PG_OWNER_COLUMN = {"n": "npc_id", "s": "subject_id", "t": "target_id"}


def _postgres_query(table: Table, owner_values, terms, limit):
    """
    PostgreSQL: OR of `plainto_tsquery` per term (each term is a bound parameter, so nothing
    the player typed is parsed as tsquery syntax), filtered by owner columns, ranked by
    `ts_rank_cd`. The tsvector expression is exactly the GIN index's, so the index can answer.
    """
    vector = f"to_tsvector('english', {table.text})"
    query = " || ".join(["plainto_tsquery('english', %s)"] * len(terms))
    conditions = [f"{_PG_OWNER_COLUMN[prefix]} = %s" for prefix, _ in owner_values]
    conditions.append(f"{vector} @@ query.q")
    sql = (
        f"SELECT id FROM {table.base}, (SELECT {query} AS q) AS query "
        f"WHERE {' AND '.join(conditions)} "
        f"ORDER BY ts_rank_cd({vector}, query.q) DESC, id DESC LIMIT %s"
    )
    return sql, [*terms, *(value for _, value in owner_values), limit]


def search_memories(
    npc_id: int, text: str, subject_id: int | None = None, limit: int = LEXICAL_DEPTH
) -> list[int] | None:
    """The NPC's memories (about `subject_id`, when given) best matching `text`, best first."""
    owners = [("n", npc_id)] + ([("s", subject_id)] if subject_id is not None else [])
    return _search(_BY_NAME[MEMORY_FTS], owners, text, limit)


def search_beliefs(
    npc_id: int, text: str, target_id: int | None = None, limit: int = LEXICAL_DEPTH
) -> list[int] | None:
    """The NPC's beliefs (about `target_id`, when given) best matching `text`, best first."""
    owners = [("n", npc_id)] + ([("t", target_id)] if target_id is not None else [])
    return _search(_BY_NAME[BELIEF_FTS], owners, text, limit)


def search_diary(npc_id: int, text: str, limit: int = LEXICAL_DEPTH) -> list[int] | None:
    """The NPC's diary entries best matching `text`, best first."""
    return _search(_BY_NAME[DIARY_FTS], [("n", npc_id)], text, limit)


def search_knowledge(tokens, text: str, limit: int = LEXICAL_DEPTH) -> list[int] | None:
    """
    Knowledge rows of any of the scope `tokens` best matching `text`, best first ([] for no
    terms or hits, None without a lexical lane). The caller leaves out what should not count
    (the two speakers' names, `without_names`).
    """
    connection = default_connection()
    terms = query_terms(text)
    tokens = [str(t) for t in dict.fromkeys(tokens) if t]
    if not available(connection):
        return None
    if not terms or not tokens:
        return []
    table = _BY_NAME[KNOWLEDGE_FTS]
    try:
        if connection.vendor == "sqlite":
            owners = " OR ".join(_quote(t) for t in tokens)
            words = " OR ".join(_quote(t) for t in terms)
            with connection.cursor() as cursor:
                cursor.execute(
                    f"SELECT rowid FROM {table.name} WHERE {table.name} MATCH %s "
                    f"ORDER BY bm25({table.name}, 1.0, 0.0), rowid DESC LIMIT %s",
                    [f"{{owner}} : ({owners}) AND {{body}} : ({words})", limit],
                )
                return [row[0] for row in cursor.fetchall()]
        from django.db import transaction

        vector = f"to_tsvector('english', {table.text})"
        query = " || ".join(["plainto_tsquery('english', %s)"] * len(terms))
        sql = (
            f"SELECT id FROM {table.base}, (SELECT {query} AS q) AS query "
            f"WHERE scope_token IN ({', '.join(['%s'] * len(tokens))}) AND {vector} @@ query.q "
            f"ORDER BY ts_rank_cd({vector}, query.q) DESC, id DESC LIMIT %s"
        )
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [*terms, *tokens, limit])
            return [row[0] for row in cursor.fetchall()]
    except Exception:  # a missing index must not break a turn: the meaning lane answers
        if not health.snapshot().get("fulltext_failures"):
            log.exception("full-text search in %s failed (logged once)", table.name)
        health.incr("fulltext_failures")
        return None


def lexical_hits(npc_id: int, subject_id: int, text: str, conf=None) -> LexicalHits | None:
    """
    What a turn's `fused` retrieval needs from the index (on the reactor: it reads the
    database). None in `paper` mode or when there is no lexical lane. With PAIR_QUERY on, the
    query is the pair-aware one (`pair_query`): without the two speakers' names and the words
    common in their memories.
    """
    if conf is None:

        conf = get_settings()
    if conf.RETRIEVAL_MODE != "fused":
        return None
    if conf.PAIR_QUERY:
        text = pair_query(npc_id, subject_id, text, conf.PAIR_COMMON_SHARE)
    memories = search_memories(npc_id, text, subject_id, conf.LEXICAL_DEPTH)
    if memories is None:
        return None
    beliefs = search_beliefs(npc_id, text, subject_id, conf.LEXICAL_DEPTH) or []
    return LexicalHits(memories=memories, beliefs=beliefs, query=" ".join(query_terms(text)))


# ---------------------------------------------------------------- the pair-aware query

PAIR_MIN_ROWS = 20  # below this many memories a pair's word counts say nothing


def pair_names(*object_ids: int) -> set[str]:
    """
    The lower-case words of these objects' keys and aliases (a name matches everything). By
    primary key, so Evennia's identity map answers without a query once an object is loaded
    (a turn's two are), which saves the reactor a query per line.
    """
    from evennia.objects.models import ObjectDB

    found: set[str] = set()
    for object_id in dict.fromkeys(i for i in object_ids if i is not None):
        try:
            obj = ObjectDB.objects.get(id=object_id)
        except ObjectDB.DoesNotExist:
            continue
        for name in [obj.db_key, *obj.aliases.all()]:
            found.update(_WORD.findall(str(name).lower()))
    return found


def pair_counts(npc_id: int, subject_id: int, terms: list[str]) -> tuple[int, list[int]] | None:
    """How many of the pair's memories there are, and how many contain each term (one query)."""
    connection = default_connection()
    if not terms or not available(connection):
        return None
    table = _BY_NAME[MEMORY_FTS]
    try:
        with connection.cursor() as cursor:
            if connection.vendor == "sqlite":
                owner = f"n{npc_id}s{subject_id}"
                where = f"SELECT count(*) FROM {table.name} WHERE {table.name} MATCH %s"
                parts = [f"{{owner}} : {_quote(owner)}"]
                parts += [f"{{owner}} : {_quote(owner)} AND {{body}} : {_quote(t)}" for t in terms]
                cursor.execute("SELECT " + ", ".join(f"({where})" for _ in parts), parts)
            else:
                vector = f"to_tsvector('english', {table.text})"
                counts = ", ".join(
                    f"count(*) FILTER (WHERE {vector} @@ plainto_tsquery('english', %s))"
                    for _ in terms
                )
                cursor.execute(
                    f"SELECT count(*), {counts} FROM {table.base} "
                    "WHERE npc_id = %s AND subject_id = %s",
                    [*terms, npc_id, subject_id],
                )
            row = cursor.fetchone()
    except Exception:  # the plain query still works without the counts
        log.debug("pair word counts failed", exc_info=True)
        return None
    return int(row[0]), [int(n) for n in row[1:]]


def common_terms(total: int, counts: list[int], terms: list[str], share: float) -> set[str]:
    """Terms in more than `share` of a pair's `total` memories (none for a small pair)."""
    if share <= 0 or total < PAIR_MIN_ROWS:
        return set()
    return {t for t, n in zip(terms, counts) if n > share * total}


def pair_query(npc_id: int, subject_id: int, text: str, share: float) -> str:
    """
    The lexical query for a line between NPC `npc_id` and speaker `subject_id` (issue #18):
    the two's own names, aliases and keys are dropped (every memory of the pair names them,
    while over the whole index a name looks rare, so name-only matches ranked first), and so
    are terms in more than `share` of the pair's memories. Third parties' names stay. If
    nothing is left the query is empty: the embedding lane alone answers.
    """
    text = without_names(text, pair_names(npc_id, subject_id))
    terms = query_terms(text)
    if share > 0 and terms:
        counted = pair_counts(npc_id, subject_id, terms)
        if counted is not None:
            common = common_terms(*counted, terms, share)
            terms = [t for t in terms if t not in common]
    return " ".join(terms)


# ---------------------------------------------------------------- installing (DDL)
