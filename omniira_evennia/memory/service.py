"""
What other capabilities and the shell call in memory: the write path, the rows' reads, the
memory matrix cache, the full-text index, erasure and re-embedding.

Memory's stores and internals (store, notes_store, relationship_store, fulltext, lateness,
embedder_records, erasure, reembed, write) are imported from outside memory only through this
module (the capability-services contracts in `.importlinter`); its plain modules (embeddings,
retrieval, fusion, safety, policy, selection, ...) are imported directly.
"""

from omniira_evennia.memory.embedder_records import comparable_vectors
from omniira_evennia.memory.embedder_records import connect_signals as stamp_embedder_on_save
from omniira_evennia.memory.erasure import erase_player, erasure_counts
from omniira_evennia.memory.fulltext import available as fulltext_available
from omniira_evennia.memory.fulltext import ensure_installed as ensure_fulltext_installed
from omniira_evennia.memory.fulltext import lexical_hits
from omniira_evennia.memory.fulltext import maintain as maintain_fulltext
from omniira_evennia.memory.fulltext import query_terms, search_knowledge
from omniira_evennia.memory.lateness import job_started, late_write, scrub_late
from omniira_evennia.memory.notes_store import (
    current_concerns,
    expire_concerns,
    opinion_of,
    recent_diary,
    reflection_records,
)
from omniira_evennia.memory.reembed import current_job as current_reembed_job
from omniira_evennia.memory.reembed import (
    pending_by_embedder,
    pending_counts,
    reembed_now,
    reembed_warning,
    start_reembed,
)
from omniira_evennia.memory.relationship_store import has_met, reputation_of, reputation_updated
from omniira_evennia.memory.store import (
    audit,
    cached_index,
    connect_signals,
    generation,
    install_index,
    invalidate,
    load_index,
    load_index_later,
    memory_npcs,
    nearest_memories,
    read_index,
    tag_untagged_npcs,
    who_knows,
)
from omniira_evennia.memory.write import (
    Note,
    embed_later,
    is_player,
    player_line,
    said_text,
    write_belief,
    write_diary,
    write_note,
    write_reply,
)

__all__ = [
    "Note",
    "audit",
    "cached_index",
    "comparable_vectors",
    "connect_signals",
    "current_concerns",
    "current_reembed_job",
    "embed_later",
    "ensure_fulltext_installed",
    "erase_player",
    "erasure_counts",
    "expire_concerns",
    "fulltext_available",
    "generation",
    "has_met",
    "install_index",
    "invalidate",
    "is_player",
    "job_started",
    "late_write",
    "lexical_hits",
    "load_index",
    "load_index_later",
    "maintain_fulltext",
    "memory_npcs",
    "nearest_memories",
    "opinion_of",
    "pending_by_embedder",
    "pending_counts",
    "player_line",
    "query_terms",
    "read_index",
    "recent_diary",
    "reembed_now",
    "reembed_warning",
    "reflection_records",
    "reputation_of",
    "reputation_updated",
    "said_text",
    "scrub_late",
    "search_knowledge",
    "stamp_embedder_on_save",
    "start_reembed",
    "tag_untagged_npcs",
    "who_knows",
    "write_belief",
    "write_diary",
    "write_note",
    "write_reply",
]
