"""
What other capabilities and the shell call in knowledge (issue #25): the one write path, the
per-scope caches, what a turn may show a speaker, doubt about claims, gossip, world events and
knowledge files. The work is in the modules named below; this module is knowledge's seam.

- `write_fact` (writing.py) is the one way a knowledge row is made or changed (a builder's
  command, the handler, a file, the Django admin's save through `save_from_admin`, gossip,
  world events): the text through the text policy (`police(..., "knowledge")`, personal data
  redacted unless a builder wrote it), the reply through the spoken-line policy, topics cut, a
  condition that must parse, a slug key, and an upsert by (scope, key) that re-embeds only a
  changed text.
- `index_for(token)` (store.py) caches one scope's rows as a `KnowledgeIndex`, shared by every
  NPC that knows through it; a save or delete of a row drops its scope's index
  (`connect_signals`).
- `view_for(npc, speaker, line)` (turn_view.py) gathers a turn's `KnowledgeView` on the
  reactor: the NPC's scopes, which guarded rows this speaker may be shown (a secret's
  condition), the guards that stand, and the line's full-text hits.
- sharing.py passes knowledge on (gossip, a player's news, world events); loading.py reads
  knowledge files; scopes.py names and resolves scopes.

Reactor thread only (ORM), except `embed_pending` (worker).
"""

from __future__ import annotations

from omniira_evennia.knowledge.loading import (
    LoadError,
    LoadPlan,
    apply_load,
    load_file,
    load_file_later,
    plan_load,
    read_file,
)
from omniira_evennia.knowledge.scopes import (
    Scope,
    ScopeError,
    named_scope,
    npc_scope,
    resolve_scope,
    room_scope,
    rooms_of,
    scope_label,
    tokens_for,
    world,
)
from omniira_evennia.knowledge.sharing import (
    cap_learned,
    hear_news,
    share,
    shareable,
    witnessed,
)
from omniira_evennia.knowledge.store import (
    INDEXES_KEPT,
    NAMES_SECONDS,
    connect_signals,
    index_for,
    invalidate,
    npc_names,
    read_index,
)
from omniira_evennia.knowledge.turn_view import (
    COMMON_MIN_FACTS,
    COMMON_SHARE,
    doubt_for,
    may_tell,
    note_claims,
    relationship_of,
    searched_terms,
    view_for,
)
from omniira_evennia.knowledge.writing import (
    Fact,
    FactError,
    as_expiry,
    cleaned,
    embed_pending,
    fact_of_row,
    forget,
    game_day_seconds,
    know,
    rows_of,
    save_from_admin,
    topics_text,
    write_fact,
    write_later,
)

__all__ = [
    "COMMON_MIN_FACTS",
    "COMMON_SHARE",
    "Fact",
    "FactError",
    "INDEXES_KEPT",
    "LoadError",
    "LoadPlan",
    "NAMES_SECONDS",
    "Scope",
    "ScopeError",
    "apply_load",
    "as_expiry",
    "cap_learned",
    "cleaned",
    "connect_signals",
    "doubt_for",
    "embed_pending",
    "fact_of_row",
    "forget",
    "game_day_seconds",
    "hear_news",
    "index_for",
    "invalidate",
    "know",
    "load_file",
    "load_file_later",
    "may_tell",
    "named_scope",
    "note_claims",
    "npc_names",
    "npc_scope",
    "plan_load",
    "read_file",
    "read_index",
    "relationship_of",
    "resolve_scope",
    "room_scope",
    "rooms_of",
    "rows_of",
    "save_from_admin",
    "scope_label",
    "searched_terms",
    "share",
    "shareable",
    "tokens_for",
    "topics_text",
    "view_for",
    "witnessed",
    "world",
    "write_fact",
    "write_later",
]
