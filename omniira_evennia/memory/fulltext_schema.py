"""The full-text index's tables and DDL: FTS5 and triggers (SQLite), GIN (PostgreSQL), upkeep."""

from __future__ import annotations

import logging
from dataclasses import dataclass

log = logging.getLogger("omniira.fulltext")


MEMORY_FTS = "omniira_memory_fts"
BELIEF_FTS = "omniira_belief_fts"
DIARY_FTS = "omniira_diary_fts"
KNOWLEDGE_FTS = "omniira_knowledge_fts"


MERGE_PAGES = 64  # pages merged per maintenance step


@dataclass(frozen=True)
class Table:
    """One FTS table over a base table: its text column and how its owner tokens are made."""

    name: str
    base: str
    text: str
    owner: str  # SQL over a row alias `{r}` (NEW/OLD in triggers, the base table in rebuilds)
    owner_columns: tuple[str, ...]

    def owner_sql(self, row: str) -> str:
        return self.owner.format(r=row)


TABLES = (
    Table(
        MEMORY_FTS,
        "omniira_evennia_memory",
        "value",
        "'n' || {r}.npc_id || ' n' || {r}.npc_id || 's' || {r}.subject_id",
        ("npc_id", "subject_id"),
    ),
    Table(
        BELIEF_FTS,
        "omniira_evennia_reflection",
        "belief",
        "'n' || {r}.npc_id || ' n' || {r}.npc_id || 't' || {r}.target_id",
        ("npc_id", "target_id"),
    ),
    Table(DIARY_FTS, "omniira_evennia_diaryentry", "entry", "'n' || {r}.npc_id", ("npc_id",)),
    # What NPCs know (issue #25, migration 0017): the owner is the row's scope token ("w0" for
    # the world, "n<npc>", "r<room>", "z<zone>", "t<tag>"), so one query asks for every scope
    # an NPC knows through (`search_knowledge`).
    Table(
        KNOWLEDGE_FTS,
        "omniira_evennia_knowledge",
        "text",
        "{r}.scope_token",
        ("scope_token",),
    ),
)


def default_connection():
    from django.db import connection

    return connection


def _sqlite_triggers(table: Table) -> dict[str, str]:
    insert = (
        f"INSERT INTO {table.name}(rowid, body, owner) "
        f"VALUES (NEW.id, NEW.{table.text}, {table.owner_sql('NEW')});"
    )
    # A contentless table forgets a row through the 'delete' command with the values it was
    # indexed with; the triggers always have them (OLD).
    delete = (
        f"INSERT INTO {table.name}({table.name}, rowid, body, owner) "
        f"VALUES ('delete', OLD.id, OLD.{table.text}, {table.owner_sql('OLD')});"
    )
    # An update of other columns (locked, suspect, embedding...) leaves the index alone.
    watched = ", ".join((table.text, *table.owner_columns))
    return {
        f"{table.name}_ai": f"AFTER INSERT ON {table.base} BEGIN {insert} END",
        f"{table.name}_ad": f"AFTER DELETE ON {table.base} BEGIN {delete} END",
        f"{table.name}_au": (
            f"AFTER UPDATE OF {watched} ON {table.base} BEGIN {delete} {insert} END"
        ),
    }


def _sqlite_objects(cursor) -> set[str]:
    cursor.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")
    return {row[0] for row in cursor.fetchall()}


def _present(connection, tables=TABLES) -> list[Table]:
    """The tables whose base table exists: migration 0006 installs the index before 0017 made
    the knowledge table, and 0017 installs that one's (each `install` does what is missing)."""
    names = set(connection.introspection.table_names())
    return [table for table in tables if table.base in names]


def rebuild(connection=None, tables=TABLES) -> None:
    """Refill the index from the base tables (SQLite; PostgreSQL indexes need no rebuild)."""
    connection = connection or default_connection()
    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"INSERT INTO {table.name}({table.name}) VALUES ('delete-all')")
            cursor.execute(
                f"INSERT INTO {table.name}(rowid, body, owner) "
                f"SELECT id, {table.text}, {table.owner_sql(table.base)} FROM {table.base}"
            )


def install(connection) -> None:
    """Create the index and its sync (idempotent); refill what was missing or out of sync."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            existing = _sqlite_objects(cursor)
            stale = []
            for table in _present(connection):
                triggers = _sqlite_triggers(table)
                if table.name in existing and all(name in existing for name in triggers):
                    continue
                stale.append(table)
                try:
                    cursor.execute(
                        f"CREATE VIRTUAL TABLE IF NOT EXISTS {table.name} USING fts5("
                        "body, owner, content='', "
                        "tokenize='porter unicode61 remove_diacritics 2')"
                    )
                except Exception as err:  # an SQLite built without FTS5
                    if "fts5" not in str(err).lower():
                        raise
                    log.warning("SQLite has no FTS5: no full-text lane (%s)", err)
                    return
                for name, body in triggers.items():
                    cursor.execute(f"CREATE TRIGGER IF NOT EXISTS {name} {body}")
        rebuild(connection, stale)
    elif connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            for table in _present(connection):
                cursor.execute(
                    f"CREATE INDEX IF NOT EXISTS {table.name} ON {table.base} "
                    f"USING GIN (to_tsvector('english', {table.text}))"
                )


def uninstall(connection, tables=TABLES) -> None:
    """Drop the index and its triggers (the migrations' reverse: 0006 all, 0017 knowledge's)."""
    with connection.cursor() as cursor:
        for table in tables:
            if connection.vendor == "sqlite":
                for name in _sqlite_triggers(table):
                    cursor.execute(f"DROP TRIGGER IF EXISTS {name}")
                cursor.execute(f"DROP TABLE IF EXISTS {table.name}")
            elif connection.vendor == "postgresql":
                cursor.execute(f"DROP INDEX IF EXISTS {table.name}")


def optimize(connection=None, tables=TABLES) -> None:
    """Merge each FTS5 index into one b-tree (SQLite; about 0.15 s per 20k rows)."""
    connection = connection or default_connection()
    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"INSERT INTO {table.name}({table.name}) VALUES ('optimize')")


def purge(connection=None) -> None:
    """
    Make deleted text unfindable in the index itself, now (erasure). A contentless FTS5 table
    forgets a row through a delete marker: queries stop matching it, but its terms stay in the
    older segments (the `<table>_data` shadow table) until a merge reaches them. 'optimize'
    merges each index into one b-tree without them (about 0.15 s per 20k rows); the pages it
    frees are zeroed when `PRAGMA secure_delete` is on (erasure turns it on). PostgreSQL: an
    expression index drops a deleted row's entries at the next VACUUM (docs/security.md).
    """
    connection = connection or default_connection()
    if connection.vendor != "sqlite":
        return
    from django.db import transaction

    with connection.cursor() as cursor:
        existing = _sqlite_objects(cursor)
    with transaction.atomic(using=connection.alias):
        optimize(connection, [t for t in TABLES if t.name in existing])


def maintain(pages: int = MERGE_PAGES) -> None:
    """
    A bounded step of index merging (SQLite), for the ticker. Rows arrive one at a time, each
    as a small segment, and a query reads every segment: merged, the index answers about twice
    as fast (bench/retrieval_eval.py). Each step writes at most about `pages` pages, so it never
    holds the reactor long; repeated steps converge on what `optimize` does at once.
    """
    connection = default_connection()
    if connection.vendor != "sqlite":
        return
    try:
        with connection.cursor() as cursor:
            for table in TABLES:
                cursor.execute(
                    f"INSERT INTO {table.name}({table.name}, rank) VALUES ('merge', %s)", [-pages]
                )
    except Exception:  # e.g. not migrated yet; the next tick tries again
        log.debug("full-text merge step failed", exc_info=True)


def ensure_installed(using: str = "default", **kwargs) -> None:
    """
    After `migrate`: if the index exists (migration 0006 applied) but a trigger is missing (a
    later migration rebuilt a base table), put the triggers back and refill the index.
    Connected to `post_migrate` in apps.py.
    """
    from django.db import connections

    connection = connections[using]
    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        existing = _sqlite_objects(cursor)
    if not any(table.name in existing for table in TABLES):
        return  # not migrated yet, or migrated back before 0006
    missing = [
        name
        for table in _present(connection)
        for name in (table.name, *_sqlite_triggers(table))
        if name not in existing
    ]
    if missing:
        log.warning("full-text index: restoring %s", ", ".join(missing))
        install(connection)
