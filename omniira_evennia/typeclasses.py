"""
NPC typeclasses with memory.

`MemoryNPCMixin` adds memory and conversation to a builder's own character class:

    from evennia import DefaultCharacter
    from omniira_evennia import MemoryNPCMixin

    class TavernKeeper(MemoryNPCMixin, DefaultCharacter):
        pass

`MemoryNPC` is a ready class. Identity lives in Attributes a builder can set in-game with
`set Maren/npc_role = tavern keeper` or in a world build script. Its memory is a handler,
`npc.memory` (see `omniira_evennia.memory.handler`).

Typeclass hooks import the services they call when called (Evennia loads typeclasses before
the apps' models are ready), each import with a comment saying so.

The identity fields are typed `AttributeProperty[str]` as Evennia 6.1 offers; the annotations
stay strings (`from __future__ import annotations`), so Evennia 5.0, whose AttributeProperty is
not generic, loads the same class.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from evennia.objects.objects import DefaultCharacter
from evennia.typeclasses.attributes import AttributeProperty
from evennia.utils.utils import lazy_property

from omniira_evennia.vocabulary import NPC_TAG

if TYPE_CHECKING:
    from twisted.internet.defer import Deferred

    from omniira_evennia.knowledge.handler import KnowledgeHandler

log = logging.getLogger(__name__)


class MemoryNPCMixin:
    """Identity fields and the talk hook for an NPC that remembers."""

    is_omniira_npc = True

    npc_role: AttributeProperty[str] = AttributeProperty("", autocreate=False)
    npc_personality: AttributeProperty[str] = AttributeProperty("", autocreate=False)
    npc_duty: AttributeProperty[str] = AttributeProperty("", autocreate=False)
    # Headline NPCs reflect daily on the people they have much new to think about.
    npc_headline: AttributeProperty[bool] = AttributeProperty(False, autocreate=False)
    # Daily life: where the NPC spends its day ("tavern 06-22, market 10-12", see
    # omniira_evennia.life.schedule) and whether it moves at all (False: it keeps its post).
    npc_schedule: AttributeProperty[str] = AttributeProperty("", autocreate=False)
    npc_autonomous: AttributeProperty[bool] = AttributeProperty(True, autocreate=False)

    @lazy_property
    def memory(self) -> KnowledgeHandler:
        """The NPC's memory: remember, recall, forget, about, beliefs, diary, relationship;
        and what it knows of the world: know, knowledge, forget_knowledge."""
        from omniira_evennia.knowledge.handler import KnowledgeHandler  # lazy: load order

        return KnowledgeHandler(self)

    def at_object_creation(self) -> None:
        super().at_object_creation()
        self.tags.add(*NPC_TAG)

    def at_init(self) -> None:
        """NPCs created before 0.2 get their tag the first time they are loaded."""
        super().at_init()
        if not self.tags.has(NPC_TAG[0], category=NPC_TAG[1]):
            self.tags.add(*NPC_TAG)

    def at_post_move(self, source_location, move_type="move", **kwargs) -> None:
        """Record where the NPC went today (the diary's places)."""
        super().at_post_move(source_location, move_type=move_type, **kwargs)
        from omniira_evennia.rollover.service import record_visit  # lazy: typeclass load order

        if source_location is not None:  # being created somewhere is not a visit
            record_visit(self, self.location)

    def at_msg_receive(self, text=None, from_obj=None, **kwargs) -> bool:
        """Notice someone leaving: an NPC that promised to go with them follows."""
        accepted = super().at_msg_receive(text=text, from_obj=from_obj, **kwargs)
        if from_obj is not None and from_obj is not self and _is_movement(text):
            from omniira_evennia.life.service import notice_departure  # lazy: load order

            try:
                notice_departure(self, from_obj)
            except Exception:  # never let a follow break message delivery

                log.exception(f"omniira: {self.key} could not consider following")
        return accepted

    def at_talked_to(self, message: str, character) -> Deferred | None:
        """
        Called when `character` addresses this NPC (`talk`, or `say Maren, ...`), with the
        signature of Evennia's own LLM contrib (`LLMNPC.at_talked_to(speech, character)`).
        Starts a conversation turn off the reactor.

        Returns:
            The turn's Deferred (fires with what the room heard), or None if refused.
        """
        from omniira_evennia.conversation.service import start_turn  # lazy: load order

        return start_turn(self, character, message)


def _is_movement(text) -> bool:
    """Evennia's arrive/leave announcements carry {"type": "traverse"} (or "move")."""
    if isinstance(text, tuple) and len(text) > 1 and isinstance(text[1], dict):
        return text[1].get("type") in ("traverse", "move")
    return False


class MemoryNPC(MemoryNPCMixin, DefaultCharacter):
    """A ready-made NPC character that remembers, for builders who need nothing else."""
