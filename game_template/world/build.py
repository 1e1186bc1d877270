"""
The demo world: a tavern and a market square with four NPCs who remember.

`build_world()` is idempotent: it runs at every server start, creates what is missing, and
refreshes descriptions, NPC identities and schedules from the tables below (so editing this
file and reloading updates the world). It never deletes anything a builder added.

Limbo (#2, Evennia's start location) becomes the tavern, so new characters start there.

Daily life: Lyra busks at the market mornings and afternoons, Voss and Wren work there by day
and come to the tavern in the evening; Maren keeps her bar and never leaves it, and greets each
new character she sees there (a scripted line). A schedule names rooms by name or alias
("tavern", "market"), in game hours; README.md lists these schedules, and a test holds the two
together (tests/integration/shell/test_demo_world.py).

What the NPCs know of their world (issue #25) is data: `knowledge.json` beside this file (the
two rooms and the roads out, who runs the town, the four NPCs and their own lives (how long
they have been here, where from, their kin, their favourite part of the day), Maren's menu and
prices, the market's stalls, one current event that expires, a secret each, a topic Maren will not discuss), loaded at every
start through the same loader as `@memory know load` and `evennia omniira_knowledge_load`: a
changed entry is updated, an unchanged one left alone, a removed one forgotten.
"""

import json
from pathlib import Path

from evennia import create_object, search_object, search_tag
from evennia.utils import logger

import omniira_evennia

TAG = ("omniira_demo", "world")

TAVERN = {
    "key": "The Lantern & Lane",
    "aliases": ["tavern"],
    "desc": (
        "A low-beamed tavern smelling of woodsmoke and spilled cider. A brass lantern hangs "
        "over a long oak bar, where Maren keeps the taps. A door leads out to the market."
    ),
}
MARKET = {
    "key": "Market Square",
    "aliases": ["market"],
    "desc": (
        "Cobbles slick with rain, a dozen stalls under striped awnings, and the ring of a "
        "hammer from Voss's forge. The tavern door glows warm to the north."
    ),
}

KNOWLEDGE_FILE = Path(__file__).with_name("knowledge.json")
# The file's entries, as a table of this module (so the dialogue evaluation's world words
# count what the NPCs know).
KNOWLEDGE = json.loads(KNOWLEDGE_FILE.read_text(encoding="utf-8"))["knowledge"]

NPCS = [
    {
        "key": "Maren",
        "aliases": ["tavern keeper", "barkeep"],
        "room": "tavern",
        "desc": "A broad-shouldered woman in a cider-stained apron, sleeves rolled to the elbow.",
        "role": "tavern keeper of the Lantern & Lane",
        "personality": "Warm, shrewd and blunt. Remembers every face and every unpaid tab. "
        "Calls people 'love'. Dislikes trouble-makers and loves a good story.",
        "duty": "You run the tavern: you pour cider, ale and plum wine, cook a stew, rent rooms "
        "upstairs and hear everyone's news. You never leave the bar.",
        "headline": True,
        "autonomous": False,  # stays at her post; still remembers, reflects and writes a diary
        # Scripted, no LLM: said once to each player character she first sees (typeclasses/npcs).
        "greeting": 'Maren looks up from the taps and nods at {name}. "Welcome to the Lantern '
        "& Lane, love. Cider, ale or plum wine? Say 'Maren, ...' and I'll hear you.\"",
    },
    {
        "key": "Lyra",
        "aliases": ["bard"],
        "room": "tavern",
        "desc": "A wiry bard with ink-stained fingers and a lute missing one string.",
        "role": "travelling bard",
        "personality": "Curious, playful, a shameless gossip who collects stories and secrets. "
        "Speaks in flourishes and asks a lot of questions.",
        "duty": "You are staying at the tavern for the season, earning your keep with songs "
        "and listening for tales worth singing; mornings and afternoons you play for coins at "
        "the market.",
        "headline": True,
        "schedule": "tavern 00-24, market 08-11, market 14-17",
    },
    {
        "key": "Voss",
        "aliases": ["smith", "blacksmith"],
        "room": "market",
        "desc": "A soot-black smith with forearms like hawsers and a scar through one eyebrow.",
        "role": "blacksmith",
        "personality": "Gruff, proud of his craft, slow to trust and quick to take offence. "
        "Few words; never forgets a slight or a debt.",
        "duty": "You keep the forge on the market square, mending tools and making blades; "
        "after work you drink at the tavern.",
        "schedule": "market 06-20, tavern 20-23",
    },
    {
        "key": "Wren",
        "aliases": ["herbalist"],
        "room": "market",
        "desc": "A slight young woman behind a stall of drying herbs, forever wiping her hands.",
        "role": "herbalist",
        "personality": "Kind, anxious and observant. Worries about everyone's health and about "
        "the rumours of sickness on the river barges.",
        "duty": "You sell remedies at a market stall and tend anyone who falls ill; evenings "
        "you sit by the tavern fire.",
        "schedule": "market 07-19, tavern 19-23",
    },
]


def _tagged(key):
    for obj in search_tag(TAG[0], category=TAG[1]):
        if obj.key == key:
            return obj
    return None


def _room(spec, existing=None):
    room = existing or _tagged(spec["key"])
    if room is None:
        room = create_object("typeclasses.rooms.Room", key=spec["key"])
    room.key = spec["key"]
    room.aliases.add(spec.get("aliases", []))
    room.db.desc = spec["desc"]
    room.tags.add(*TAG)
    return room


def _exit(key, aliases, source, destination):
    for ex in source.exits:
        if ex.key == key:
            if ex.destination != destination:
                ex.destination = destination
            return ex
    ex = create_object(
        "typeclasses.exits.Exit",
        key=key,
        aliases=aliases,
        location=source,
        destination=destination,
    )
    ex.tags.add(*TAG)
    return ex


def build_world():
    limbo = search_object("#2")
    if not limbo:
        # Evennia's initial setup has not created Limbo yet; it restarts the server after,
        # and this runs again then.
        logger.log_info("omniira demo: waiting for Evennia's initial setup")
        return None
    tavern = _room(TAVERN, existing=limbo[0])
    market = _room(MARKET)
    _exit("market", ["out", "m"], tavern, market)
    _exit("tavern", ["in", "t"], market, tavern)
    rooms = {"tavern": tavern, "market": market}
    for spec in NPCS:
        npc = _tagged(spec["key"])
        if npc is None:
            npc = create_object(
                "typeclasses.npcs.NPC",
                key=spec["key"],
                location=rooms[spec["room"]],
                home=rooms[spec["room"]],
            )
            npc.tags.add(*TAG)
        npc.aliases.clear()
        npc.aliases.add(spec["aliases"])
        npc.db.desc = spec["desc"]
        npc.db.npc_role = spec["role"]
        npc.db.npc_personality = spec["personality"]
        npc.db.npc_duty = spec["duty"]
        npc.db.npc_headline = spec.get("headline", False)
        npc.db.npc_autonomous = spec.get("autonomous", True)
        npc.db.npc_greeting = spec.get("greeting", "")
        try:
            omniira_evennia.set_schedule(npc, spec.get("schedule", ""))
        except omniira_evennia.ScheduleError as err:
            logger.log_err(f"omniira demo: bad schedule for {spec['key']}: {err}")
        # NPCs can't be picked up or pushed around by players.
        npc.locks.add("get:false();puppet:perm(Developer)")
    plan = omniira_evennia.load_knowledge(KNOWLEDGE_FILE)
    logger.log_info(f"omniira demo: world built (tavern, market, 4 NPCs). {plan.summary()}")
    return rooms
