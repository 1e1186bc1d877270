"""Health counters, LLM features, audit kinds, safety flags and sources in the builder's words."""

from __future__ import annotations

from omniira_evennia.models import Source

SOURCE_LABELS = dict(Source.choices)

# Health counters (runtime/health.py): a readable name and whether a non-zero count is worth a
# builder's attention ("warn") or is normal activity ("ok").
HEALTH_LABELS = {
    "conversation_turns": ("Conversation turns answered", "ok"),
    "llm_calls": ("LLM calls made", "ok"),
    "llm_errors": ("LLM calls that failed", "warn"),
    "voice_retries": ("Replies asked for again (first try unusable)", "ok"),
    "voice_retries_failed": ("Replies still unusable after asking again", "warn"),
    "conversation_fallbacks": ("In-character fallback lines (no LLM reply)", "warn"),
    "character_breaks": ("Replies that broke character (cut)", "warn"),
    "turn_crashes": ("Conversation turns that crashed", "warn"),
    "circuit_opened": ("Circuit breaker opened on an endpoint", "warn"),
    "circuit_refused": ("Calls refused by an open circuit breaker", "warn"),
    "json_repairs": ("JSON replies repaired on a second try", "ok"),
    "json_failures": ("JSON replies that could not be repaired", "warn"),
    "embedding_failures": ("Texts that could not be embedded", "warn"),
    "corrupt_embeddings": ("Stored embeddings that could not be read", "warn"),
    "fulltext_failures": ("Full-text searches that failed", "warn"),
    "reembedded": ("Vectors re-embedded", "ok"),
    "tags_remember": ("Memories self-tagged in replies", "ok"),
    "tags_opinion": ("Opinions self-tagged in replies", "ok"),
    "tags_concern": ("Concerns self-tagged in replies", "ok"),
    "tags_commitment": ("Commitments self-tagged in replies", "ok"),
    "tags_invalid": ("Malformed tags in replies", "warn"),
    "tags_ignored": ("Tags ignored (extension off or not allowed)", "ok"),
    "notes_ungrounded": ("Notes dropped as not grounded in the conversation", "ok"),
    "extractions": ("Conversations reviewed after they ended", "ok"),
    "extraction_failures": ("Conversation reviews that failed", "warn"),
    "extractions_abandoned": ("Conversation reviews given up", "warn"),
    "npc_conversations": ("NPC-to-NPC conversations", "ok"),
    "gossip_items_written": ("Gossip items stored as hearsay", "ok"),
    "gossip_items_rejected": ("Gossip items rejected by the provenance rules", "ok"),
    "reflections": ("Daily reflections (beliefs) written", "ok"),
    "reflection_failures": ("Daily reflections that failed", "warn"),
    "diaries": ("Diary entries written", "ok"),
    "diary_failures": ("Diary entries that failed", "warn"),
    "diaries_skipped_quiet": ("Diaries skipped on a quiet day", "ok"),
    "memories_expired": ("Memories expired", "ok"),
    "memories_evicted": ("Memories evicted (over the per-NPC limit)", "ok"),
    "locked_write_refused": ("Writes refused on a locked memory", "ok"),
    "relationship_conflicts": ("Relationship updates retried after a conflict", "ok"),
    "pii_redacted": ("Personal data redactions", "ok"),
    "manipulation_flagged": ("Manipulation attempts flagged", "warn"),
    "audit_suppressed": ("Audit rows suppressed (rate limit)", "warn"),
    "audit_player_text": ("Audit entries: player lines", "warn"),
    "audit_memory": ("Audit entries: memories", "warn"),
    "audit_erasure": ("Audit entries: erasures", "ok"),
    "player_rate_refused": ("Player lines refused (too many per minute)", "warn"),
    "npc_queue_refused": ("Lines refused (NPC busy, queue full)", "warn"),
    "worker_orm_access": ("Database queries from worker threads", "warn"),
    "db_locked_retries": ("Database-locked retries", "warn"),
    "npc_moves": ("NPC moves (schedules and plans)", "ok"),
    "npc_moves_refused": ("NPC moves refused", "ok"),
    "npc_follows": ("NPCs following a player", "ok"),
    "plans_kept": ("Plans kept", "ok"),
    "plans_dropped": ("Plans dropped", "ok"),
    "claims_given_back": ("Rollover claims given back", "ok"),
    "decision_ticks": ("Daily-life decisions made", "ok"),
    "decision_failures": ("Daily-life decisions that failed", "warn"),
    "daily_life_warnings": ("Daily-life warnings", "warn"),
    "forget_failures": ("Forgetting passes that failed", "warn"),
    "conversations_ended_restart": ("Conversations ended by a server restart", "ok"),
}

FEATURE_LABELS = {
    "conversation": "NPC replies to players",
    "npc_conversation": "NPC-to-NPC talk",
    "gossip": "Gossip review (what was told)",
    "extraction": "Conversation review (what to remember)",
    "reflection": "Daily reflections (beliefs)",
    "diary": "Diaries",
}

AUDIT_KIND_LABELS = {
    "player_text": "Player line flagged",
    "memory": "Memory flagged",
    "concern": "Concern flagged",
    "erasure": "Personal data erased",
}

# Why a line was flagged (memory/safety.py MANIPULATION_PATTERNS); other labels are shown as
# they were written.
FLAG_LABELS = {
    "ignore_instructions": "asks to ignore instructions",
    "role_override": "tries to change who the NPC is",
    "forget_everything": "asks to forget everything",
    "system_prompt": "talks about the system prompt",
    "tag_syntax": "contains memory-tag syntax",
    "remember_command": "orders the NPC to remember a rank",
}


def humanize(key: str) -> str:
    """`npc_moves_refused` -> `Npc moves refused`: a fallback label for an unknown key."""
    text = str(key).replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def health_label(name: str) -> tuple[str, str]:
    if name in HEALTH_LABELS:
        return HEALTH_LABELS[name]
    if name.startswith("budget_refused_"):
        feature = name.removeprefix("budget_refused_")
        return (
            f"Calls refused over budget: {FEATURE_LABELS.get(feature, humanize(feature))}",
            "warn",
        )
    if name.startswith("conversations_ended_"):
        return f"Conversations ended: {humanize(name.removeprefix('conversations_ended_'))}", "ok"
    if name.endswith("_failures"):
        return f"{humanize(name.removesuffix('_failures'))} failures", "warn"
    return humanize(name), "ok"
