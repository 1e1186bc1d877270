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
    # Headline NPCs reflect daily on the people they have much new to think about.
    npc_headline = AttributeProperty(False, autocreate=False)

    def at_post_move(self, source_location, move_type="move", **kwargs):
        """Record where the NPC went today (the diary's places)."""
        super().at_post_move(source_location, move_type=move_type, **kwargs)
        from .daily import record_visit

        if source_location is not None:  # being created somewhere is not a visit
            record_visit(self, self.location)

    def at_talked_to(self, speaker, message):
        """
        Called when `speaker` addresses this NPC (`talk`, or `say Maren, ...`). Starts a
        conversation turn off the reactor and returns its Deferred (or None if refused).
        """
        from .service import start_turn

        return start_turn(self, speaker, message)


class MemoryNPC(MemoryNPCMixin, DefaultCharacter):
    """A ready-made NPC character that remembers, for builders who need nothing else."""
