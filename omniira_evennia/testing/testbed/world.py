"""The testbed's small world: rooms, NPCs, players and their lines; built and moved about."""

from __future__ import annotations

import random

ROOMS = [
    ("The Lantern & Lane", "A low-beamed tavern smelling of woodsmoke and spilled cider."),
    ("Market Square", "Cobbles slick with rain and a dozen stalls under striped awnings."),
    ("The Old Mill", "A creaking waterwheel and sacks of flour stacked to the rafters."),
    ("Crossroads Well", "A mossy well where four lanes meet under an old oak."),
]
# The demo's four NPCs first (game_template/world/build.py), then generated townsfolk.
DEMO_NPCS = [
    ("Maren", "tavern keeper of the Lantern & Lane", "Warm, shrewd and blunt."),
    ("Lyra", "travelling bard", "Curious, playful, a shameless gossip."),
    ("Voss", "blacksmith", "Gruff and honest, slow to trust."),
    ("Wren", "herbalist at the market", "Quiet, observant, kind to strangers."),
]
TOWNSFOLK = [
    "Oskar", "Petra", "Ilse", "Bram", "Greta", "Hal", "Tilda", "Corin", "Mabel", "Fenn",
    "Rosa", "Edric", "Nell", "Jory", "Agnes", "Piet",
]  # fmt: skip
TRADES = ["miller", "baker", "carter", "weaver", "fisher", "cooper", "potter", "tanner"]
PLAYERS = ["Ada", "Brannoc", "Cyra", "Dunstan", "Elske", "Faro"]
PLAYER_LINES = [
    "I'm looking for work on the river barges.",
    "My sister Tomasine went missing near the mill last spring.",
    "I sold my horse to pay for a room here.",
    "Someone in the market owes me three silver coins.",
    "I used to be a soldier in the northern war.",
    "Do you know where I can buy a good lantern?",
    "I found an old map with the well marked on it.",
    "My favourite drink is plum wine.",
    "I'm writing a song about this town.",
    "I'm afraid of the dark woods past the crossroads.",
    "I lost a silver ring in the square yesterday.",
    "I plan to open a bakery here next month.",
]


def build_world(cfg, rng: random.Random):
    """Rooms, NPCs (the demo's four, then townsfolk) and scripted player characters, as many
    as `cfg` (a SimConfig) asks."""
    from evennia.utils import create

    from omniira_evennia.typeclasses import MemoryNPC

    count = cfg.rooms or max(2, min(len(ROOMS), cfg.npcs // 3))
    rooms = []
    for key, desc in ROOMS[:count]:
        room = create.create_object("evennia.objects.objects.DefaultRoom", key=key)
        room.db.desc = desc
        rooms.append(room)
    specs = list(DEMO_NPCS)
    for i, name in enumerate(TOWNSFOLK):
        specs.append((name, f"the town {TRADES[i % len(TRADES)]}", "Ordinary, chatty."))
    if cfg.npcs > len(specs):
        raise ValueError(f"at most {len(specs)} NPCs")
    npcs = []
    for i, (key, role, personality) in enumerate(specs[: cfg.npcs]):
        room = rooms[i % len(rooms)]
        npc = create.create_object(MemoryNPC, key=key, location=room, home=room)
        npc.db.npc_role = role
        npc.db.npc_personality = personality
        npc.db.npc_headline = True  # everyone may reflect, so the switch has something to stop
        npcs.append(npc)
    if cfg.players > len(PLAYERS):
        raise ValueError(f"at most {len(PLAYERS)} players")
    players = [
        create.create_object(
            "evennia.objects.objects.DefaultCharacter", key=key, location=rooms[0], home=rooms[0]
        )
        for key in PLAYERS[: cfg.players]
    ]
    return rooms, npcs, players


def shuffle_npcs(npcs, rooms, rng: random.Random) -> None:
    """Movement: every NPC goes to a random room (recorded as a visit for the diaries)."""
    for npc in npcs:
        room = rng.choice(rooms)
        if npc.location != room:
            npc.move_to(room, quiet=True, move_type="teleport")
