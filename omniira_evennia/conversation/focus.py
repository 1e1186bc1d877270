"""
Conversation focus (issue #24, point 4): whom a player is talking with, so their next `say`
lines go to that NPC without its name.

A player's focus is the NPC they last addressed (by name, or with `talk`); it holds while that
NPC is in the same room and their conversation is open (not ended by goodbye, leaving or
CONVERSATION_IDLE_SECONDS of quiet), and it ends when the player addresses someone else. Kept
on the character's non-persistent attributes (`ndb`): a reload starts everyone unfocused.
"""

from __future__ import annotations

from omniira_evennia.conf import get_settings
from omniira_evennia.conversation import store as conversations

ATTRIBUTE = "omniira_focus"


def turn_to(caller, npc) -> None:
    setattr(caller.ndb, ATTRIBUTE, npc.id)


def end(caller) -> None:
    setattr(caller.ndb, ATTRIBUTE, None)


def current(caller, npcs):
    """The NPC among `npcs` (those in the room) that `caller` is talking with, or None."""
    wanted = getattr(caller.ndb, ATTRIBUTE, None)
    if not wanted:
        return None
    npc = next((n for n in npcs if n.id == wanted), None)
    if npc is None:
        return None  # it left, or they did
    if not conversations.has_open_conversation(
        npc, caller, get_settings().CONVERSATION_IDLE_SECONDS
    ):
        end(caller)
        return None
    return npc
