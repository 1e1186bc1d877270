"""The shared set-up of conversation tests: scripted tiers, and a room with Maren in it."""

from evennia.utils import create
from evennia.utils.test_resources import EvenniaCommandTest


def tiers(base_url, **extra):
    def tier():
        return {"base_url": base_url, "model": "scripted", "timeout": 5, **extra}

    return {"THINKING_DELAY": 0, "TIERS": {"voice": tier(), "reasoning": tier(), "ambient": tier()}}


class TalkTestBase(EvenniaCommandTest):
    def setUp(self):
        super().setUp()
        self.char1.key = "Ada"
        self.maren = create.create_object(
            "omniira_evennia.typeclasses.MemoryNPC",
            key="Maren",
            location=self.room1,
            home=self.room1,
        )
        self.maren.db.npc_role = "tavern keeper"
        self.maren.db.npc_personality = "warm and shrewd"
        self.maren.aliases.add("barkeep")
