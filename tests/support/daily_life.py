"""The shared set-up of daily life's tests: a row of rooms, patched game time, collected lines."""

from unittest import mock

from evennia.utils import create

import omniira_evennia as omniira
from omniira_evennia.life import service as movement
from omniira_evennia.memory import store
from omniira_evennia.memory.embeddings import set_embedder
from omniira_evennia.testing.fakes import HashingEmbedder
from tests.support.social import SocialTestBase

H = 3600
DAY = 24 * H


def game_time(hours):
    """Patch Evennia's game clock to `hours` game hours since day 1, 00:00."""
    return mock.patch("evennia.utils.gametime.gametime", return_value=hours * H)


class DailyLifeBase(SocialTestBase):
    """A tavern, a lane and a market in a row (exits both ways), plus an island nothing reaches."""

    def setUp(self):
        super().setUp()
        set_embedder(HashingEmbedder())
        self.tavern = self.room1
        self.tavern.key = "The Lantern & Lane"
        self.tavern.aliases.add("tavern")
        self.lane = self.room("Cobbled Lane")
        self.market = self.room("Market Square", "market")
        self.island = self.room("Gull Island")
        self.link(self.tavern, "out", self.lane, "tavern")
        self.link(self.lane, "east", self.market, "west")
        # The players stay out of the way (a room with a player holds no gossip).
        self.char2.move_to(self.room2, quiet=True)
        self.heard = {}
        self.follow_calls = []
        patcher = mock.patch.object(movement, "_call_later", self._collect_follow)
        patcher.start()
        self.addCleanup(patcher.stop)

    def room(self, key, alias=None):
        room = create.create_object("typeclasses.rooms.Room", key=key)
        if alias:
            room.aliases.add(alias)
        return room

    def link(self, a, a_to_b, b, b_to_a):
        create.create_object("typeclasses.exits.Exit", key=a_to_b, location=a, destination=b)
        create.create_object("typeclasses.exits.Exit", key=b_to_a, location=b, destination=a)

    def listen(self, obj):
        """Collect the text `obj` is sent, as a player would see it."""
        lines = self.heard.setdefault(obj.key, [])
        original = obj.msg

        def capture(text=None, *args, **kwargs):
            lines.append(text[0] if isinstance(text, tuple) else str(text))
            return original(text, *args, **kwargs)

        patcher = mock.patch.object(obj, "msg", side_effect=capture)
        patcher.start()
        self.addCleanup(patcher.stop)
        return lines

    def _collect_follow(self, delay, func, *args):
        self.follow_calls.append((func, args))

    def run_follows(self):
        calls, self.follow_calls = self.follow_calls, []
        return [func(*args) for func, args in calls]

    def settle(self, hours, ticks=4):
        """Run decision ticks at `hours` until nobody moves (one exit per NPC per tick)."""
        with game_time(hours):
            for _ in range(ticks):
                before = {npc.id: npc.location for npc in self.npcs()}
                omniira.run_decision_tick()
                if all(npc.location == before[npc.id] for npc in self.npcs()):
                    return

    def npcs(self):
        return store.memory_npcs()
