"""
The demo knows itself (issue #25): world/build.py loads world/knowledge.json at every start
(the two rooms and the roads out, the four NPCs, Maren's menu and prices, the market's stalls,
an event that expires, a secret each, a topic Maren will not discuss), idempotently; the
contrib README's Usage shows a builder adding knowledge in game and from a file.
"""

from pathlib import Path

from evennia.utils.test_resources import EvenniaTest

from omniira_evennia.builder.why import why
from omniira_evennia.models import Knowledge

ROOT = Path(__file__).resolve().parents[3]
CONTRIB_README = (ROOT / "omniira_evennia" / "README.md").read_text()


class TestDemoKnowledge(EvenniaTest):
    def test_the_world_build_loads_what_the_npcs_know_once(self):
        from world import build

        rooms = build.build_world()
        assert rooms is not None
        npcs = {o.key: o for room in rooms.values() for o in room.contents if o.db.npc_role}
        assert set(npcs) == {"Maren", "Lyra", "Voss", "Wren"}
        assert Knowledge.objects.count() == len(build.KNOWLEDGE)
        maren = npcs["Maren"]
        menu = Knowledge.objects.filter(npc=maren, category="trade").values_list("key", flat=True)
        assert set(menu) == {"cider", "ale", "plum_wine", "stew", "room_price"}
        for npc in npcs.values():
            secrets = Knowledge.objects.filter(npc=npc, guard="secret")
            assert secrets.count() == 1 and secrets.get().reply, npc.key
        assert Knowledge.objects.get(guard="wont_discuss").npc == maren
        event = Knowledge.objects.get(category="event")
        assert event.scope == "world" and event.expires_at is not None
        assert Knowledge.objects.get(key="tavern_door").room == rooms["tavern"]
        shown = [k.key for k in maren.memory.knowledge()]
        assert "the_market" in shown and "who_voss" in shown and "tavern_door" in shown

        expires, count = event.expires_at, Knowledge.objects.count()
        build.build_world()  # every start: nothing changes, the event's end is not pushed back
        assert Knowledge.objects.count() == count
        assert Knowledge.objects.get(category="event").expires_at == expires


class TestDemoNpcsKnowTheirOwnLives(EvenniaTest):
    """Asked about itself (how long, kin, where from, what it likes) or who runs the town, a
    demo NPC has what it knows in the prompt, so a small model need not make it up ("I've been
    here for over 100 years", "Yes, I have several kin in town": held-out runs)."""

    ASKED = {
        "How long have you kept this place, Maren?": ("Maren", "maren_years"),
        "Do you have family here?": ("Maren", "maren_kin"),
        "Have you any kin in town, Voss?": ("Voss", "voss_kin"),
        "How long have you been in town, Lyra?": ("Lyra", "lyra_years"),
        "Where are you from, Wren?": ("Wren", "wren_years"),
        "Where are you from, Voss?": ("Voss", "voss_home"),
        "Are you married, Lyra?": ("Lyra", "lyra_kin"),
        "What songs do you know?": ("Lyra", "lyra_songs"),  # telnet trial: "I don't know any"
        "What's the best part of your day, Voss?": ("Voss", "voss_likes"),
        "Who runs this town?": ("Maren", "town_reeve"),
        # Held-out seed 63341: "Wren's herb stall" (Lyra), "likely at the market" (Maren).
        "What's the best place to eat around here, Lyra?": ("Lyra", "where_to_eat"),
        "Where can I get a good meal?": ("Maren", "where_to_eat"),
        "What do you charge, Lyra?": ("Lyra", "lyra_price"),  # seed 70919: "I'm not sure."
        # Seed 70919: "Sorry, I don't know anything about what there is to see in this town."
        "What is there to see in this town?": ("Maren", "sights"),
    }

    def test_what_it_is_asked_of_itself_is_in_the_prompt(self):
        from world import build

        rooms = build.build_world()
        npcs = {o.key: o for room in rooms.values() for o in room.contents if o.db.npc_role}
        missing = {}
        for line, (name, key) in self.ASKED.items():
            shown = [k.key for k in why(npcs[name], line, self.char1).knowledge]
            if key not in shown:
                missing[line] = shown
        assert missing == {}


def test_the_readme_shows_a_builder_adding_knowledge_in_game_and_from_a_file():
    usage = CONTRIB_README.split("## Usage", 1)[1].split("\n## ", 1)[0]
    assert "@memory/category=trade/key=cider know add Maren = " in usage
    assert "know load world/knowledge.json" in usage
    assert "evennia omniira_knowledge_load world/knowledge.json" in usage
