"""
omniira-evennia: NPCs with persistent, socially embedded memory for Evennia.

The public face (import from `omniira_evennia`):

- `MemoryNPCMixin`, `MemoryNPC`: NPC typeclasses; each has `npc.memory` (a `MemoryHandler`:
  remember, recall, forget, about, beliefs, diary, relationship; and what it knows of the
  world: know, knowledge, forget_knowledge)
- `OmniiraCmdSet` (`talk`, a name-aware `say`), `OmniiraAdminCmdSet` (`@memory`, `recall`)
- `at_server_start`: call from the game's `at_server_start`
- the functions of `omniira_evennia.api` for game code: `remember`, `remember_later`,
  `recall`, `memories_about`, `forget`, `search_memories`, `who_knows`, `relationship`,
  `has_met`, `memories_by`, `gossip_round`, `end_conversation`, `run_rollover`,
  `diary_entries`, `beliefs`, `log_world_event`, `know`, `load_knowledge`, `npc_schedule`,
  `set_schedule`,
  `current_plan`, `intention`, `places_visited`, `run_decision_tick`
- `ScheduleError`: raised by `set_schedule` for a malformed schedule

Signals are in `omniira_evennia.signals`; health counters in `omniira_evennia.runtime.health`.
Names are imported on first access, so `import omniira_evennia` needs no configured game.
"""

from importlib import import_module

__version__ = "0.2.0"

_API = (
    "remember",
    "remember_later",
    "recall",
    "memories_about",
    "search_memories",
    "who_knows",
    "forget",
    "relationship",
    "has_met",
    "memories_by",
    "gossip_round",
    "end_conversation",
    "run_rollover",
    "diary_entries",
    "beliefs",
    "log_world_event",
    "know",
    "load_knowledge",
    "npc_schedule",
    "set_schedule",
    "current_plan",
    "intention",
    "places_visited",
    "run_decision_tick",
)
_LAZY = {
    **{name: "api" for name in _API},
    "at_server_start": "lifecycle",
    "MemoryNPCMixin": "typeclasses",
    "MemoryNPC": "typeclasses",
    "MemoryHandler": "memory.handler",
    "OmniiraCmdSet": "commands",
    "OmniiraAdminCmdSet": "admin_commands",
    "ScheduleError": "life.schedule",
}

__all__ = [*_LAZY]


def __getattr__(name):
    if name in _LAZY:
        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
