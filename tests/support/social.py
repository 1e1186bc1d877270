"""The shared set-up of social tests: a scripted server's replies by feature, and a room with
Maren and Lyra in it."""

import json

from evennia.utils import create
from evennia.utils.test_resources import EvenniaCommandTest


class Router:
    """Scripted replies by feature: JSON for extraction and gossip, lines for dialogue."""

    def __init__(self, voice=("Evening.",), gossip_items=(), extraction=()):
        self.count = {"voice": 0, "gossip": 0, "extraction": 0}
        self.voice = voice
        self.gossip_items = list(gossip_items)
        self.extraction = list(extraction)

    @property
    def voice(self):
        return self._voice

    @voice.setter
    def voice(self, lines):
        """A new script of lines, said from its first (the last repeats)."""
        self._voice, self._said = list(lines), 0

    def __call__(self, body):
        response_format = body.get("response_format") or {}
        feature = (response_format.get("json_schema") or {}).get("name")
        if feature == "gossip":
            self.count["gossip"] += 1
            return json.dumps({"items": self.gossip_items})
        if feature == "extraction":
            self.count["extraction"] += 1
            return json.dumps({"memories": self.extraction})
        self.count["voice"] += 1
        self._said += 1
        return self._voice[min(self._said - 1, len(self._voice) - 1)]


class SocialTestBase(EvenniaCommandTest):
    def setUp(self):
        super().setUp()
        self.char1.key = "Ada"
        self.maren = self.npc("Maren")
        self.lyra = self.npc("Lyra")

    def npc(self, key, room=None):
        npc = create.create_object(
            "omniira_evennia.typeclasses.MemoryNPC",
            key=key,
            location=room or self.room1,
            home=room or self.room1,
        )
        npc.db.npc_role = f"{key.lower()} of the town"
        return npc

    def leave_room(self):
        self.char1.move_to(self.room2, quiet=True)
        self.char2.move_to(self.room2, quiet=True)
