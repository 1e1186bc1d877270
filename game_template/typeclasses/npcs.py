"""
NPCs of the demo game: ordinary characters with omniira-evennia memory mixed in.
"""

from omniira_evennia.typeclasses import MemoryNPCMixin

from .characters import Character


class NPC(MemoryNPCMixin, Character):
    """A townsperson who talks, remembers and (later) gossips."""
