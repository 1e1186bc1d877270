"""
Database tables for NPC memory (paper appendix A, plus conversation turns and LLM usage), in
three modules by who writes them: memories.py (what the write policy keeps), activity.py
(conversations, usage, the day's records, audit, erasures) and knowledge.py (issue #25). Every
model is importable from here, its Django app label and name unchanged (so are the migrations
and the stored content types).

NPCs and subjects are Evennia objects (`ObjectDB`): a subject is the player character or NPC a
memory is about. Embeddings are raw float32 bytes (384 dims for all-MiniLM-L6-v2).
"""

from omniira_evennia.models.activity import (
    AuditLog,
    Conversation,
    ConversationTurn,
    DailyWork,
    Erasure,
    LLMUsage,
    PlaceVisit,
    WorldEvent,
)
from omniira_evennia.models.knowledge import Knowledge
from omniira_evennia.models.memories import (
    FEELING_CHOICES,
    Concern,
    DiaryEntry,
    Memory,
    Opinion,
    Plan,
    Reflection,
    Relationship,
    Source,
)

__all__ = [
    "FEELING_CHOICES",
    "AuditLog",
    "Concern",
    "Conversation",
    "ConversationTurn",
    "DailyWork",
    "DiaryEntry",
    "Erasure",
    "Knowledge",
    "LLMUsage",
    "Memory",
    "Opinion",
    "PlaceVisit",
    "Plan",
    "Reflection",
    "Relationship",
    "Source",
    "WorldEvent",
]
