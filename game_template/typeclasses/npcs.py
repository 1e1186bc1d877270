"""
NPCs of the demo game: ordinary characters with omniira-evennia memory mixed in.

An NPC with a `npc_greeting` Attribute (Maren, see world/build.py) greets each player
character the first time it sees them in its room (walking in, or entering the game there): a
scripted emote, no LLM call, once per character, not stored as conversation. `{name}` in it
is the newcomer's name.
"""

from evennia.utils.utils import delay

from omniira_evennia.typeclasses import MemoryNPCMixin

from .characters import Character

GREETED_CATEGORY = "omniira_demo_greeted"


class NPC(MemoryNPCMixin, Character):
    """A townsperson who talks, remembers and (later) gossips."""

    # Real seconds between a newcomer appearing and the greeting (after their first look).
    greeting_delay = 1.5

    def at_msg_receive(self, text=None, from_obj=None, **kwargs):
        accepted = super().at_msg_receive(text=text, from_obj=from_obj, **kwargs)
        if (
            from_obj is not None
            and from_obj is not self
            and getattr(from_obj, "has_account", False)
            and self.attributes.get("npc_greeting")
            and not self.has_greeted(from_obj)
        ):
            pending = self.ndb.greeting_pending or set()
            if from_obj.id not in pending:
                pending.add(from_obj.id)
                self.ndb.greeting_pending = pending
                delay(self.greeting_delay, self.greet, from_obj)
        return accepted

    def has_greeted(self, character) -> bool:
        return character.tags.has(f"by_{self.id}", category=GREETED_CATEGORY)

    def greet(self, character) -> bool:
        """Say the greeting to `character` if they are here and not greeted yet."""
        pending = self.ndb.greeting_pending or set()
        pending.discard(character.id)
        line = self.attributes.get("npc_greeting")
        if not line or self.location is None or character.location != self.location:
            return False  # passing through, or already gone: greet them another time
        if self.has_greeted(character):
            return False
        character.tags.add(f"by_{self.id}", category=GREETED_CATEGORY)
        # An emote with words in it ('Maren looks up ... "Welcome ..."'): the whole room sees it.
        self.location.msg_contents(line.format(name=character.key), from_obj=self)
        return True
