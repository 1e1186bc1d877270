"""
omniira-evennia: NPCs with persistent, socially embedded memory for Evennia.

Public API (import from `omniira_evennia`):

- `MemoryNPCMixin`, `MemoryNPC`: typeclasses (from `omniira_evennia.typeclasses`)
- `OmniiraCmdSet`: `talk` and a name-aware `say` (from `omniira_evennia.commands`)
- `remember`, `remember_later`, `recall`, `memories_about`, `forget`: memory for game code
- `search_memories`, `who_knows`: search by meaning in one NPC, or across all NPCs
- `relationship`, `has_met`, `memories_by`, `gossip_round`, `end_conversation`: social state
- `run_rollover`, `diary_entries`, `beliefs`, `log_world_event`: the daily rhythm
- `npc_schedule`, `set_schedule`, `current_plan`, `intention`, `places_visited`,
  `run_decision_tick`: daily life (schedules, commitments kept, where an NPC went)
- `at_server_start`: call from the game's at_server_start (lifecycle, ticker, warm-up)
- `parse_reply`, `clean_text`: the one tag parser/stripper
- `ScheduleError`: raised by `set_schedule` for a malformed schedule
- `health`: counters of degraded paths
- `warm_up`: load the embedding model off the reactor at server start

Names that need Django or Evennia loaded are imported on first access, so the pure core
(`tags`, `retrieval`, `prompts`, `llm`, `conf`, `schedule`, `decisions`) imports without a
configured game.
"""

from importlib import import_module

from omniira_evennia.conversation.tags import clean_text, parse_reply
from omniira_evennia.life.schedule import ScheduleError
from omniira_evennia.runtime import health

__version__ = "0.1.0"

_LAZY = {
    "remember": "api",
    "remember_later": "api",
    "recall": "api",
    "memories_about": "api",
    "search_memories": "api",
    "who_knows": "api",
    "forget": "api",
    "relationship": "api",
    "has_met": "api",
    "memories_by": "api",
    "gossip_round": "api",
    "end_conversation": "api",
    "at_server_start": "lifecycle",
    "run_rollover": "api",
    "diary_entries": "api",
    "beliefs": "api",
    "log_world_event": "api",
    "npc_schedule": "api",
    "set_schedule": "api",
    "current_plan": "api",
    "intention": "api",
    "places_visited": "api",
    "run_decision_tick": "api",
    "MemoryNPCMixin": "typeclasses",
    "MemoryNPC": "typeclasses",
    "OmniiraCmdSet": "commands",
    "warm_up": "lifecycle",
}

__all__ = ["clean_text", "parse_reply", "health", "ScheduleError", *_LAZY]


def __getattr__(name):
    if name in _LAZY:
        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
