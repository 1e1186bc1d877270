"""
NPC typeclasses with memory.

`MemoryNPCMixin` adds memory and conversation to a builder's own character class:

    from evennia import DefaultCharacter
    from omniira_evennia import MemoryNPCMixin

    class TavernKeeper(MemoryNPCMixin, DefaultCharacter):
        pass

`MemoryNPC` is a ready class. Identity lives in Attributes a builder can set in-game with
`set Maren/npc_role = tavern keeper` or in a world build script.
"""

from evennia.objects.objects import DefaultCharacter
from evennia.typeclasses.attributes import AttributeProperty


class MemoryNPCMixin:
    """Identity fields and the talk hook for an NPC that remembers."""

    is_omniira_npc = True

    npc_role = AttributeProperty("", autocreate=False)
    npc_personality = AttributeProperty("", autocreate=False)
    npc_duty = AttributeProperty("", autocreate=False)

    def at_talked_to(self, speaker, message):
        """
        Called when `speaker` addresses this NPC (`talk`, or `say Maren, ...`). Starts a
        conversation turn off the reactor and returns its Deferred (or None if refused).
        """
        from .service import start_turn

        return start_turn(self, speaker, message)


class MemoryNPC(MemoryNPCMixin, DefaultCharacter):
    """A ready-made NPC character that remembers, for builders who need nothing else."""
