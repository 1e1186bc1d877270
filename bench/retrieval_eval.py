"""
Evaluation: does retrieval find the memories a question needs? `paper` vs `fused` (issue #11).

A labelled retrieval set of our own making, deterministic (seeded):

- Four NPCs keep long, many-session histories (40 game days) about ten player characters:
  32 NPC-player pairs with 80-700 memories each, about 10,000 in all. Most memories are
  everyday distractors written from ~45 templates (drinks, weather, errands, rumours, prices,
  family greetings, dates of fairs, trinkets shown, other people met), many of them close in
  topic to the planted facts. Among them, 8 facts per pair are planted from 14 kinds (a missing
  relative, a debt, a purchase, a hidden item, a grudge, a sweetheart, an illness, a past crime,
  a lost pet, a promise, a birthplace, an heirloom, a fear, a job offer), each naming some of: a
  person, a place, an item with a distinguishing detail, a date of the game calendar.
- Each planted fact gets a *cue* question (by name, place, item or date: "Have you heard
  anything about Tomas?") and a *paraphrase* question that avoids every name, place, item
  detail and date ("Did I tell you I'm looking for a relative who vanished?"), which is where an
  embedding should do better than words. Each pair also gets two *multi-fact* questions that
  need two planted facts. Relevant memories are exactly the planted ones; cue values are unique
  within a pair's memories (as names usually are), though the same names, places and dates
  recur in other pairs' memories and partial cues (the month, the ordinal, the object) recur
  within the pair.
- Memories are stored through the real Django models in a throwaway SQLite database (the
  full-text index is filled by its triggers) with real all-MiniLM-L6-v2 embeddings (the
  configured embedder; bench/embedders.py runs this evaluation for both the ONNX int8 and the
  sentence-transformers fp32 one); queries are embedded the same way. Importance, feelings and
  hearsay vary as in play, for distractors and facts alike (facts a little more important on
  average, as an NPC would rate them).
- Both modes return the same number of memories at most (8 newest + 12 slots) about the
  speaker. Reported: recall of the relevant memories within the returned set, per mode and per
  category, plus ablations (either lane alone inside the fusion, and the paper's scorer without
  its similarity floor, which always fills its 12 slots).
- Latency at 10,000 memories for one NPC (4 subjects, the same texts and vectors, the
  full-text table holding every NPC's rows): `paper` (the scorer) and `fused` (the full-text
  query plus the fused scorer), query embedding excluded (it runs in the worker pool).

Writes bench/results/retrieval_eval.json.

    .venv/bin/python bench/retrieval_eval.py [--seed 11]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from threadpoolctl import threadpool_info

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

from bench.retrieval import percentile, setup_django  # noqa: E402

DAYS = 40
FACTS_PER_PAIR = 8
MULTI_PER_PAIR = 2
PAIR_SIZES = (80, 150, 250, 350, 500, 700)
DAY_SECONDS = 86400.0
EPOCH = 1_767_225_600.0  # 2026-01-01, the first game day

# ---------------------------------------------------------------- pools

NPCS = ["Maren", "Voss", "Lyra", "Wren"]
PLAYERS = [
    ("Ada", "f"),
    ("Bran", "m"),
    ("Corin", "m"),
    ("Dara", "f"),
    ("Edric", "m"),
    ("Fenna", "f"),
    ("Garrick", "m"),
    ("Hilde", "f"),
    ("Isolde", "f"),
    ("Jory", "m"),
]
PRONOUNS = {"f": ("her", "her"), "m": ("his", "him")}  # possessive, object

_FIRST = "Al Bel Cor Dun El Fen Gal Har Is Jor Kel Lor Mor Nes Or Per Quen Ros Sel Tam Ul Var Wil Yor Zan Bry Cael Dro Tor Ysa".split()
_LAST = "ric wen dor isa an ell ova mund rik ith ara os".split()
PEOPLE = sorted({a + b for a in _FIRST for b in _LAST} - {n for n, _ in PLAYERS} - set(NPCS))
_PLACE_A = (
    "Harrow Oak Salt Grey Raven Thorn Ash Mill Cold Wolf Amber Stone Brine Elder Frost".split()
)
_PLACE_B = "mere hollow ford watch gate wick barrow fell haven reach moor combe".split()
PLACES = [a + b for a in _PLACE_A for b in _PLACE_B]
MONTHS = (
    "Frostmoon Thawing Seedtide Rainmonth Bloomtide Highsun Emberfall Harvestwane Mistmonth "
    "Leaffall Darkening Yulewatch"
).split()
ORDINALS = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"
).split()
DATES = [f"{o} of {m}" for m in MONTHS for o in ORDINALS]
OBJECTS = (
    "sword dagger locket ring cloak lantern flute compass key shield helm bracelet mirror "
    "hourglass brooch pipe spyglass"
).split()
FEATURES = [
    "with a blue-glass pommel",
    "engraved with a heron",
    "set with a cracked garnet",
    "wrapped in eel-skin",
    "inlaid with mother-of-pearl",
    "stamped with a crowned fish",
    "with a chipped amber stone",
    "carved from whalebone",
    "with a silver wolf's head",
    "etched with vine leaves",
    "lined with fox fur",
    "with a copper dragonfly clasp",
    "painted with tiny red foxes",
    "bound in green lizard hide",
    "with a bent brass hinge",
    "marked with a hammer sign",
    "with seven tiny bells",
    "cut from black jade",
    "with an owl-feather tassel",
    "banded with pale gold",
    "with a crescent moon guard",
    "dotted with river pearls",
    "scorched along one edge",
    "etched with a ship in full sail",
]
BLADES = ["sword", "dagger"]


def objects_for(feature: str) -> list[str]:
    """Objects a detail suits (a pommel belongs on a blade)."""
    return BLADES if "pommel" in feature or "guard" in feature else OBJECTS


PETS = (
    "Biscuit Pepper Soot Bramble Whisker Moss Acorn Ember Thistle Patch Nutmeg Clover Smudge "
    "Juniper Pip Rook Sable Tansy Willow Bracken"
).split()
RELATIONS = "brother sister cousin uncle aunt son daughter nephew niece".split()
TRADES = (
    "baker cooper ferryman weaver chandler tanner miller fletcher glassblower ropemaker "
    "stonemason"
).split()
GOODS = ["salt", "wool", "brandy", "silk", "pepper", "lamp oil", "tobacco", "amber", "furs"]
REMEDIES = ["willow bark", "nettle and honey", "feverfew", "bitter wormwood", "pine resin"]
ANIMALS = ["hound", "cat", "goat", "pony", "ferret", "raven", "mule"]
FEARS = [
    ("deep water", "nearly drowning off the pier"),
    ("fire", "a barn fire"),
    ("wolves", "being chased through the woods at night"),
    ("heights", "a fall from a bell tower"),
    ("the dark", "a night lost in the mines"),
    ("horses", "being thrown and kicked"),
]
DRINKS = ["cider", "plum wine", "dark ale", "mulled wine", "barley beer", "spiced milk"]
FOODS = ["cheese", "onion soup", "smoked eel", "honey cakes", "mutton stew", "pickled beets"]
WEATHER = ["rain", "sleet", "fog", "wind", "heat", "snow"]
JOBS = ["caravan guard", "bookkeeper", "dock foreman", "night watchman", "courier"]

# ---------------------------------------------------------------- planted facts


@dataclass(frozen=True)
class FactKind:
    """A kind of planted fact: memory texts and questions per category (str.format slots)."""

    name: str
    memory: tuple[str, ...]
    cues: dict  # category -> question templates (name / place / item / date)
    paraphrase: tuple[str, ...]


KINDS = [
    FactKind(
        "missing_relative",
        (
            "{S} told me {poss} {rel} {N} went missing near {P} on the {D}.",
            "{S}'s {rel}, {N}, has not been seen since the {D}, when they set out for {P}.",
        ),
        {
            "name": ("Have you heard anything about {N}?", "Does the name {N} mean anything?"),
            "place": ("Did I ever tell you what happened near {P}?",),
            "date": ("Do you remember what I said happened on the {D}?",),
        },
        (
            "Do you recall me saying someone in my family disappeared?",
            "Did I tell you I'm looking for a relative who vanished?",
        ),
    ),
    FactKind(
        "debt",
        (
            "{S} owes {amount} silver to a moneylender named {N}, due on the {D}.",
            "{S} borrowed {amount} silver from {N} and must repay it by the {D}.",
        ),
        {
            "name": ("How much do I owe {N}?", "Did I mention {N} to you?"),
            "date": ("What did I say is due on the {D}?",),
        },
        (
            "Did I ever tell you about the money I borrowed and have to pay back?",
            "Do you remember me worrying about a loan?",
        ),
    ),
    FactKind(
        "bought_item",
        ("{S} bought {I} from a trader called {N} at the {P} market.",),
        {
            "item": ("Do you remember the {Ishort} I showed you?",),
            "name": ("What did I get from {N}?",),
            "place": ("What did I buy at the {P} market?",),
        },
        (
            "Did I tell you about the {obj_word} I purchased from a travelling merchant?",
            "Remember that {obj_word} I got at a market stall?",
        ),
    ),
    FactKind(
        "hidden_item",
        (
            "{S} admitted hiding {I} beneath a loose floorboard in an inn at {P}.",
            "{S} hid {I} under the floor of a rented room in {P}.",
        ),
        {
            "item": ("Where did I put the {Ishort}?",),
            "place": ("What did I leave behind at {P}?",),
        },
        (
            "Do you remember where I said I stashed something valuable?",
            "Did I tell you I concealed a {obj_word} somewhere?",
        ),
    ),
    FactKind(
        "grudge",
        (
            "{S} swore revenge on {N}, who cheated {obj} at dice in {P}.",
            "{S} will never forgive {N} for swindling {obj} at a dice table in {P}.",
        ),
        {
            "name": ("Why am I angry with {N}?", "What did {N} do to me?"),
            "place": ("What happened to me at the tables in {P}?",),
        },
        (
            "Do you remember who swindled me at a gambling table?",
            "Did I tell you about the cheat I want to get even with?",
        ),
    ),
    FactKind(
        "sweetheart",
        ("{S} is sweet on {N}, the {trade} from {P}, and blushes whenever the name comes up.",),
        {
            "name": ("Did I ever mention {N} to you?", "What do you think of {N}?"),
            "place": ("Do you know anyone from {P} I'm fond of?",),
        },
        (
            "Have I told you about the person I'm in love with?",
            "Do you remember who I have feelings for?",
        ),
    ),
    FactKind(
        "illness",
        (
            "{S} has had a rattling cough since the {D}; a herbalist in {P} sold {obj} a tonic "
            "of {remedy}.",
        ),
        {
            "date": ("What happened to me on the {D}?",),
            "place": ("Who did I see in {P}?",),
        },
        (
            "Do you remember me telling you I've been unwell?",
            "Did I mention my chest has been bad lately?",
        ),
    ),
    FactKind(
        "smuggling",
        (
            "{S} confessed to smuggling {goods} for {N} through {P} in {poss} younger days.",
            "Years ago {S} ran contraband {goods} out of {P} for a man named {N}.",
        ),
        {
            "name": ("What did I do for {N}?",),
            "place": ("What did I tell you about {P}?",),
        },
        (
            "Did I ever confess to breaking the law when I was younger?",
            "Do you remember my past as a smuggler?",
        ),
    ),
    FactKind(
        "lost_pet",
        ("{S}'s {animal}, {pet}, ran off near {P}, and {S} still leaves food out for it.",),
        {
            "name": ("Have you seen {pet}?", "Any sign of {pet}?"),
            "place": ("What did I lose near {P}?",),
        },
        (
            "Do you remember me saying my animal ran away?",
            "Did I tell you my {animal} went missing?",
        ),
    ),
    FactKind(
        "promise",
        ("I promised {S} I would keep the back room free for {obj} on the {D}.",),
        {"date": ("Is the room still free for me on the {D}?", "What did we agree for the {D}?")},
        (
            "Did you agree to hold a place for me to stay?",
            "You said you'd save me somewhere to sleep, didn't you?",
        ),
    ),
    FactKind(
        "birthplace",
        ("{S} was born in {P} and left after the great flood drowned the lower town.",),
        {"place": ("Did I tell you I have ties to {P}?", "What do you know about me and {P}?")},
        ("Do you know where I grew up?", "Did I ever tell you why I left my home town?"),
    ),
    FactKind(
        "heirloom",
        ("{S} carries {I} that once belonged to {poss} grandmother {N}.",),
        {
            "item": ("What's the story behind the {Ishort}?",),
            "name": ("Who was {N}?",),
        },
        (
            "Did I tell you about the keepsake passed down in my family?",
            "Do you remember what my grandmother left me?",
        ),
    ),
    FactKind(
        "fear",
        ("{S} is terrified of {fear} since {fear_event} at {P}.",),
        {"place": ("What happened to me at {P}?",)},
        ("Have I ever told you what scares me?", "Do you know what I'm afraid of?"),
    ),
    FactKind(
        "job_offer",
        ("{S} was offered work as a {job} by {N}, starting on the {D}.",),
        {
            "name": ("What did {N} offer me?",),
            "date": ("What starts on the {D}?",),
        },
        (
            "Did I mention that someone wants to hire me?",
            "Do you remember the new employment I was offered?",
        ),
    ),
]

# Everyday memories. Slots are filled from the pools, never with a value planted in the pair.
DISTRACTORS = [
    "{S} ordered a mug of {drink} and paid in copper.",
    "{S} complained that the {weather} ruined {poss} boots.",
    "{S} asked whether the road to {P} was safe this week.",
    "{S} shared a table with {N} and they argued about the price of {goods}.",
    "{S} said {poss} {rel} sends greetings from {P}.",
    "{S} laughed at a joke about a {trade} and a goat.",
    "{S} helped me carry barrels up from the cellar.",
    "{S} mentioned that the spring fair starts on the {D}.",
    "{S} haggled for {I} but walked away without it.",
    "{S} asked me to keep an eye on {I} for an hour.",
    "{S} won a few coppers at dice from {N}.",
    "{S} had a headache after too much {drink}.",
    "{S} fed scraps to the tavern cat.",
    "{S} said the {trade} in {P} overcharges everyone.",
    "{S} came in soaked from the {weather}.",
    "{S} asked about rooms for the night and took the small one.",
    "{S} hummed an old song from {P} while waiting.",
    "{S} told a long story about a storm at sea.",
    "{S} wanted to know when the next ferry leaves for {P}.",
    "{S} said {N} still owes {obj} a favour from last winter.",
    "{S} asked if I had heard any news from {P}.",
    "{S} spent the evening mending a torn {object}.",
    "{S} tipped the bard two coppers.",
    "{S} asked for bread and {food}.",
    "{S} was in a cheerful mood and bought a round for the room.",
    "{S} looked tired and barely spoke.",
    "{S} said {poss} {rel} is coming to visit on the {D}.",
    "{S} complained about the tax collectors from {P}.",
    "{S} asked where to find a good {trade}.",
    "{S} talked about the price of {goods} going up again.",
    "{S} said {N} was seen drinking in {P}.",
    "{S} showed me {I} bought years ago.",
    "{S} asked what day it was and I said it was the {D}.",
    "{S} mentioned a cough going around {P}.",
    "{S} said {poss} old {animal} is getting slow.",
    "{S} said the river near {P} floods every spring.",
    "{S} asked if {N} had been by today.",
    "{S} paid for last night's {drink}.",
    "{S} said a merchant from {P} sold {obj} a cracked pot.",
    "{S} asked me to pass a message to {N}.",
    "{S} sat by the fire and cleaned {poss} {object}.",
    "{S} said the harvest in {P} was poor this year.",
    "{S} asked if I knew a {trade} named {N}.",
    "{S} said {poss} {rel} works as a {trade} now.",
    "{S} grumbled that {food} here is better than in {P}.",
]


@dataclass
class Mem:
    key: str
    text: str
    learned_at: float
    importance: int
    feeling: str
    hearsay: bool
    planted: str | None = None  # fact id


@dataclass
class Query:
    npc: str
    player: str
    category: str
    kind: str
    text: str
    relevant: list[str] = field(default_factory=list)  # fact ids


def _slots(rng: random.Random, player, gender, taken) -> dict:
    """Random slot values for a distractor, avoiding the pair's planted cue values."""

    def pick(pool, kind):
        choices = [v for v in pool if v not in taken.get(kind, ())]
        return rng.choice(choices)

    poss, obj = PRONOUNS[gender]
    feature = pick(FEATURES, "feature")
    item = f"a {rng.choice(objects_for(feature))} {feature}"
    return {
        "S": player,
        "poss": poss,
        "obj": obj,
        "N": pick(PEOPLE, "name"),
        "P": pick(PLACES, "place"),
        "D": pick(DATES, "date"),
        "I": item,
        "object": rng.choice(OBJECTS),
        "rel": rng.choice(RELATIONS),
        "trade": rng.choice(TRADES),
        "goods": rng.choice(GOODS),
        "drink": rng.choice(DRINKS),
        "food": rng.choice(FOODS),
        "weather": rng.choice(WEATHER),
        "animal": rng.choice(ANIMALS),
    }


def _fact_slots(rng: random.Random, player, gender, taken) -> dict:
    """Slot values for a planted fact; its cue values are recorded in `taken`."""
    poss, obj = PRONOUNS[gender]

    def fresh(pool, kind):
        value = rng.choice([v for v in pool if v not in taken.setdefault(kind, set())])
        taken[kind].add(value)
        return value

    feature = fresh(FEATURES, "feature")
    obj_word = rng.choice(objects_for(feature))
    fear, fear_event = rng.choice(FEARS)
    animal = rng.choice(ANIMALS)
    return {
        "S": player,
        "poss": poss,
        "obj": obj,
        "N": fresh(PEOPLE, "name"),
        "P": fresh(PLACES, "place"),
        "D": fresh(DATES, "date"),
        "I": f"a {obj_word} {feature}",
        "Ishort": f"{obj_word} {feature}",
        "obj_word": obj_word,
        "pet": fresh(PETS, "pet"),
        "rel": rng.choice(RELATIONS),
        "amount": rng.choice(["twelve", "forty", "ninety", "two hundred"]),
        "trade": rng.choice(TRADES),
        "goods": rng.choice(GOODS),
        "remedy": rng.choice(REMEDIES),
        "animal": animal,
        "fear": fear,
        "fear_event": fear_event,
        "job": rng.choice(JOBS),
    }


def build_world(seed: int):
    """Histories for every NPC-player pair, and the labelled questions."""
    rng = random.Random(seed)
    histories: dict[tuple[str, str], list[Mem]] = {}
    queries: list[Query] = []
    feelings = ["joy", "anger", "fear", "trust", "contempt", "sorrow", "surprise"]
    cue_counts = {"name": 0, "place": 0, "item": 0, "date": 0}
    for npc in NPCS:
        for player, gender in rng.sample(PLAYERS, 8):
            size = rng.choice(PAIR_SIZES)
            taken: dict[str, set] = {}
            kinds = rng.sample(KINDS, FACTS_PER_PAIR)
            facts = []
            for number, kind in enumerate(kinds):
                slots = _fact_slots(rng, player, gender, taken)
                fact_id = f"{npc}/{player}/{kind.name}"
                facts.append((fact_id, kind, slots))
            # Sessions: the player visits on some days; memories are a few seconds apart.
            sessions = sorted(rng.sample(range(DAYS), min(DAYS, max(4, size // 12))))
            times = sorted(
                EPOCH + day * DAY_SECONDS + rng.uniform(8, 22) * 3600 + rng.uniform(0, 1800)
                for day in (rng.choice(sessions) for _ in range(size))
            )
            planted_at = dict(zip(rng.sample(range(size), len(facts)), facts))
            memories = []
            for position, when in enumerate(times):
                feeling = rng.choice(feelings) if rng.random() < 0.3 else ""
                hearsay = rng.random() < 0.15
                if position in planted_at:
                    fact_id, kind, slots = planted_at[position]
                    text = rng.choice(kind.memory).format(**slots)
                    importance = rng.choice([4, 5, 6, 6, 7, 7, 8, 9])
                    memories.append(
                        Mem(f"f{position}", text, when, importance, feeling, hearsay, fact_id)
                    )
                else:
                    slots = _slots(rng, player, gender, taken)
                    text = rng.choice(DISTRACTORS).format(**slots)
                    importance = rng.choice([2, 3, 3, 4, 4, 5, 5, 6, 7])
                    memories.append(Mem(f"d{position}", text, when, importance, feeling, hearsay))
            histories[(npc, player)] = memories

            for fact_id, kind, slots in facts:
                # One cue question per fact, its category the least used so far (items and
                # dates would otherwise be rare), and one paraphrase: half the single-fact
                # questions favour words, half favour meaning.
                category = min(sorted(kind.cues), key=lambda c: (cue_counts[c], rng.random()))
                cue_counts[category] += 1
                text = rng.choice(kind.cues[category]).format(**slots)
                queries.append(Query(npc, player, category, kind.name, text, [fact_id]))
                text = rng.choice(kind.paraphrase).format(**slots)
                queries.append(Query(npc, player, "paraphrase", kind.name, text, [fact_id]))
            for _ in range(MULTI_PER_PAIR):
                (id_a, kind_a, slots_a), (id_b, kind_b, slots_b) = rng.sample(facts, 2)
                first = rng.choice(kind_a.cues[rng.choice(sorted(kind_a.cues))]).format(**slots_a)
                if rng.random() < 0.5:
                    second = rng.choice(kind_b.paraphrase).format(**slots_b)
                else:
                    second = rng.choice(kind_b.cues[rng.choice(sorted(kind_b.cues))])
                    second = second.format(**slots_b)
                text = f"{first} Oh, and {second[0].lower()}{second[1:]}"
                queries.append(
                    Query(npc, player, "multi", f"{kind_a.name}+{kind_b.name}", text, [id_a, id_b])
                )
    return histories, queries


# ---------------------------------------------------------------- storing and retrieving


def store_world(histories, vectors_by_text, objects):
    """Bulk-insert every pair's memories (the full-text triggers fill the index)."""
    from datetime import datetime
    from datetime import timezone as dt_timezone

    from omniira_evennia.models import Memory

    ids: dict[str, int] = {}  # fact id -> memory id
    batch = []
    for (npc, player), memories in histories.items():
        for mem in memories:
            batch.append(
                Memory(
                    npc=objects[npc],
                    subject=objects[player],
                    key=mem.key,
                    value=mem.text,
                    importance=mem.importance,
                    feeling=mem.feeling,
                    provenance=objects[_teller(npc)] if mem.hearsay else None,
                    source="gossip" if mem.hearsay else "self",
                    learned_at=datetime.fromtimestamp(mem.learned_at, dt_timezone.utc),
                    game_day=int((mem.learned_at - EPOCH) // DAY_SECONDS),
                    embedding=vectors_by_text[mem.text].tobytes(),
                )
            )
    created = []
    for start in range(0, len(batch), 2000):
        created += Memory.objects.bulk_create(batch[start : start + 2000])
    by_pair_key = {
        (m.npc_id, m.subject_id, m.key): m.id
        for m in Memory.objects.only("id", "npc_id", "subject_id", "key")
    }
    for (npc, player), memories in histories.items():
        for mem in memories:
            if mem.planted:
                ids[mem.planted] = by_pair_key[(objects[npc].id, objects[player].id, mem.key)]
    return ids


def _teller(npc):
    return NPCS[(NPCS.index(npc) + 1) % len(NPCS)]


MODES = (
    "paper",
    "fused_before",
    "fused_before_27",
    "fused",
    "paper_no_floor",
    "fused_no_floor",
    "fused_dense_only",
    "fused_lexical_only",
)


_PATH_CONFS: dict = {}


def retrieve(mode, index, vector, lexical, subject_id, now, conf, **overrides):
    """One retrieval in `mode` (the two real modes and the ablations). `fused` is the turn's
    own path (`selection.select_for_line`) with the settings, `similarity_slots` and `rrf_k`
    overrides applied to them; `fused_before_27` the same path as it was before issue #27."""
    from omniira_evennia.memory.fusion import LexicalHits, dense_floor, select_memories_fused
    from omniira_evennia.memory.retrieval import Weights, select_memories
    from omniira_evennia.memory.selection import select_for_line

    if mode in ("fused", "fused_before_27"):
        update = {"SIMILARITY_SLOTS": overrides.pop("similarity_slots", conf.SIMILARITY_SLOTS)}
        update["RRF_K"] = overrides.pop("rrf_k", conf.RRF_K)
        if mode == "fused_before_27":
            update.update(CENTRED_DENSE=False, DUPLICATE_COSINE=0.0)
        hits = LexicalHits(memories=list(lexical or ()))
        key = (id(conf), tuple(sorted(update.items())))
        if key not in _PATH_CONFS:  # made once: a copy per call would count in the timings
            same = all(getattr(conf, k) == v for k, v in update.items())
            _PATH_CONFS[key] = conf if same else conf.model_copy(update=update)
        path_conf = _PATH_CONFS[key]
        return select_for_line(index, vector, hits, subject_id, path_conf, now=now)
    fusion = dict(
        rrf_k=overrides.pop("rrf_k", conf.RRF_K),
        depth=conf.LEXICAL_DEPTH,
        dense_weight=conf.DENSE_WEIGHT,
        lexical_weight=conf.LEXICAL_WEIGHT,
        centre=conf.CENTRED_DENSE,
        duplicate_cosine=conf.DUPLICATE_COSINE,
    )
    options = dict(
        now=now,
        recency_slots=conf.RECENCY_SLOTS,
        similarity_slots=conf.SIMILARITY_SLOTS,
        floor=conf.SIMILARITY_FLOOR,
        weights=Weights(hearsay=conf.HEARSAY_WEIGHT, feeling=conf.FEELING_WEIGHT),
    )
    options.update(overrides)
    if mode == "paper":
        return select_memories(index, vector, subject_id, **options)
    if mode == "fused_before":
        # Issue #11's fused mode: the line as said in both lanes, k = 60, the fixed recency lane
        # (`vector` and `lexical` are then the raw line's).
        return select_memories_fused(
            index, vector, lexical, subject_id, **options, rrf_k=60.0, depth=50
        )
    options["recency_window"] = conf.RECENCY_WINDOW_HOURS * 3600.0
    if mode == "paper_no_floor":
        return select_memories(index, vector, subject_id, **{**options, "floor": -1.0})
    if mode == "fused_no_floor":
        return select_memories_fused(
            index, vector, lexical, subject_id, **{**options, "floor": -1.0}, **fusion
        )
    options["floor"] = dense_floor(conf)
    if mode == "fused_dense_only":
        return select_memories_fused(index, vector, [], subject_id, **options, **fusion)
    if mode == "fused_lexical_only":
        return select_memories_fused(index, None, lexical, subject_id, **options, **fusion)
    raise ValueError(mode)


def pair_text(query) -> str:
    """The question as the turn embeds it in fused mode (issue #18: without the pair's names)."""
    from omniira_evennia.memory.fusion import without_names

    return without_names(query.text, {query.npc, query.player}) or query.text


def evaluate(queries, qvectors, fact_ids, objects, conf, now, pvectors=None):
    """
    Recall of each query's relevant memories in each mode's returned set. `fused` runs the
    configured path (the pair-aware query from `fulltext.lexical_hits`, the line embedded
    without the pair's names: `pvectors`); `fused_before` issue #11's (the raw line in both).
    """
    from omniira_evennia.memory import fulltext, store

    rows = []
    pvectors = qvectors if pvectors is None else pvectors
    for query, raw_vector, pair_vector in zip(queries, qvectors, pvectors):
        npc, subject = objects[query.npc], objects[query.player]
        index = store.load_index(npc.id)
        raw = fulltext.search_memories(npc.id, query.text, subject.id, conf.LEXICAL_DEPTH)
        hits = fulltext.lexical_hits(npc.id, subject.id, query.text, conf)
        relevant = {fact_ids[f] for f in query.relevant}
        newest = {r.id for r in retrieve("paper", index, None, [], subject.id, now, conf)}
        row = {
            "category": query.category,
            "text": query.text,
            "relevant": len(relevant),
            "in_recency_lane": len(relevant & newest),
        }
        for mode in MODES:
            before = mode in ("paper", "paper_no_floor", "fused_before")
            vector = raw_vector if before else pair_vector
            lexical = raw if mode == "fused_before" else hits.memories
            picked = retrieve(mode, index, vector, lexical, subject.id, now, conf)
            found = relevant & {r.id for r in picked}
            row[mode] = {"found": len(found), "returned": len(picked)}
        row["by_slots"] = {}
        for slots in (4, 8, 12, 20):
            row["by_slots"][slots] = {
                mode: len(
                    relevant
                    & {
                        r.id
                        for r in retrieve(
                            mode,
                            index,
                            raw_vector if mode == "paper" else pair_vector,
                            hits.memories,
                            subject.id,
                            now,
                            conf,
                            similarity_slots=slots,
                        )
                    }
                )
                for mode in ("paper", "fused")
            }
        row["by_rrf_k"] = {
            k: len(
                relevant
                & {
                    r.id
                    for r in retrieve(
                        "fused", index, pair_vector, hits.memories, subject.id, now, conf, rrf_k=k
                    )
                }
            )
            for k in (10, 30, 60, 120)
        }
        rows.append(row)
    return rows


def summarise(rows):
    """Mean recall, all-found rate and mean returned count per mode, overall and by category."""
    categories = ["name", "place", "item", "date", "paraphrase", "multi"]
    out = {}
    for category in ["all"] + categories:
        chosen = [r for r in rows if category == "all" or r["category"] == category]
        if not chosen:
            continue
        entry = {"queries": len(chosen)}
        for mode in MODES:
            entry[mode] = {
                "recall": round(
                    statistics.mean(r[mode]["found"] / r["relevant"] for r in chosen), 3
                ),
                "all_found": round(
                    statistics.mean(r[mode]["found"] == r["relevant"] for r in chosen), 3
                ),
                "returned": round(statistics.mean(r[mode]["returned"] for r in chosen), 1),
            }
        entry["in_recency_lane"] = round(
            statistics.mean(r["in_recency_lane"] / r["relevant"] for r in chosen), 3
        )
        out[category] = entry
    by_slots = {
        slots: {
            mode: round(
                statistics.mean(r["by_slots"][slots][mode] / r["relevant"] for r in rows), 3
            )
            for mode in ("paper", "fused")
        }
        for slots in (4, 8, 12, 20)
    }
    by_rrf_k = {
        k: round(statistics.mean(r["by_rrf_k"][k] / r["relevant"] for r in rows), 3)
        for k in (10, 30, 60, 120)
    }
    return out, by_slots, by_rrf_k


# ---------------------------------------------------------------- latency at 10k


def latency(histories, vectors_by_text, queries, qvectors, objects, conf, now, runs):
    """One NPC with 10,000 memories about 4 subjects: paper vs fused (incl. the FTS query)."""
    from datetime import datetime
    from datetime import timezone as dt_timezone

    from evennia.utils import create

    from omniira_evennia.memory import fulltext, store
    from omniira_evennia.models import Memory

    big = create.create_object("evennia.objects.objects.DefaultCharacter", key="Bigsby")
    subjects = [objects[name] for name, _ in PLAYERS[:4]]
    every = [m for memories in histories.values() for m in memories]
    texts = [every[i % len(every)] for i in range(10000)]
    batch = [
        Memory(
            npc=big,
            subject=subjects[i % 4],
            key=f"m{i}",
            value=m.text,
            importance=m.importance,
            feeling=m.feeling,
            learned_at=datetime.fromtimestamp(m.learned_at, dt_timezone.utc),
            embedding=vectors_by_text[m.text].tobytes(),
        )
        for i, m in enumerate(texts)
    ]
    for start in range(0, len(batch), 2000):
        Memory.objects.bulk_create(batch[start : start + 2000])
    # Bulk loads leave the FTS5 index in many segments; in a game the ticker's merge steps
    # (fulltext.maintain) converge on this.
    fulltext.optimize()
    index = store.load_index(big.id)
    assert len(index) == 10000, len(index)
    parts = ("paper", "fused", "fts_query", "fused_scorer", "fused_scorer_before_27")
    wall = {name: [] for name in parts}
    cpu = {name: [] for name in parts}  # this thread's CPU time: what preemption cannot inflate
    load_before = os.getloadavg()[0]
    # One mode at a time: the paper scorer's threaded BLAS leaves helper threads spinning,
    # which would slow whatever ran right after it.
    cases = [
        (run, number, query, vector, subjects[(number + run) % 4].id)
        for run in range(runs)
        for number, (query, vector) in enumerate(zip(queries, qvectors))
    ]
    for run, number, query, vector, subject_id in cases:
        t0, c0 = time.perf_counter(), time.thread_time()
        retrieve("paper", index, vector, [], subject_id, now, conf)
        t1, c1 = time.perf_counter(), time.thread_time()
        wall["paper"].append((t1 - t0) * 1000)
        cpu["paper"].append((c1 - c0) * 1000)
    for run, number, query, vector, subject_id in cases:
        t1, c1 = time.perf_counter(), time.thread_time()
        # The turn's real reactor-side work: the pair-aware query (names, the pair's word
        # counts) and both searches (memories and beliefs).
        lexical = fulltext.lexical_hits(big.id, subject_id, query.text, conf).memories
        t2, c2 = time.perf_counter(), time.thread_time()
        retrieve("fused", index, vector, lexical, subject_id, now, conf)
        t3, c3 = time.perf_counter(), time.thread_time()
        # The same call as before issue #27 (no centring, no duplicate collapse), side by side.
        retrieve("fused_before_27", index, vector, lexical, subject_id, now, conf)
        t4, c4 = time.perf_counter(), time.thread_time()
        wall["fused_scorer_before_27"].append((t4 - t3) * 1000)
        cpu["fused_scorer_before_27"].append((c4 - c3) * 1000)
        for samples, (b, c, d) in ((wall, (t1, t2, t3)), (cpu, (c1, c2, c3))):
            samples["fts_query"].append((c - b) * 1000)
            samples["fused_scorer"].append((d - c) * 1000)
            samples["fused"].append((d - b) * 1000)
    result = {"load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)]}
    for name in parts:
        result[name] = {
            "median_ms": round(statistics.median(wall[name]), 3),
            "p95_ms": round(percentile(wall[name], 95), 3),
            "p99_ms": round(percentile(wall[name], 99), 3),
            "cpu_median_ms": round(statistics.median(cpu[name]), 3),
            "cpu_p95_ms": round(percentile(cpu[name], 95), 3),
            "runs": len(wall[name]),
        }
    return result


# ---------------------------------------------------------------- main


def embed_all(texts, cache=None, embedder=None):
    """Vectors for distinct texts, in batches (optionally cached on disk); default embedder:
    the configured one (ONNX int8 all-MiniLM-L6-v2 unless EMBEDDER says otherwise)."""
    import numpy as np

    from omniira_evennia.memory.embeddings import get_embedder

    texts = sorted(set(texts))
    if cache and os.path.exists(cache):
        stored = np.load(cache)
        if list(stored["texts"]) == texts:
            return dict(zip(texts, stored["vectors"]))
    embedder = embedder if embedder is not None else get_embedder()
    vectors = np.concatenate(
        [embedder.embed(texts[i : i + 256]) for i in range(0, len(texts), 256)]
    )
    if cache:
        np.savez(cache, texts=np.array(texts), vectors=vectors)
    return dict(zip(texts, vectors))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--latency-runs", type=int, default=3)
    parser.add_argument(
        "--no-conversations", action="store_true", help="skip bench/conversation_eval.py"
    )
    parser.add_argument("--out", default="retrieval_eval.json", help="file in bench/results/")
    parser.add_argument(
        "--cache", help="reuse embeddings from this .npz (written if missing; for development)"
    )
    args = parser.parse_args()

    histories, queries = build_world(args.seed)
    tmp = tempfile.mkdtemp(prefix="omniira-eval-")
    setup_django("sqlite", tmp, "eval.db3")

    import numpy as np
    from evennia.utils import create

    from omniira_evennia.conf import build_settings

    conf = build_settings({}, {})
    room = create.create_object("evennia.objects.objects.DefaultRoom", key="Eval Room")
    objects = {
        name: create.create_object(
            "evennia.objects.objects.DefaultCharacter", key=name, location=room
        )
        for name in NPCS + [p for p, _ in PLAYERS]
    }

    started = time.monotonic()
    texts = sorted({m.text for memories in histories.values() for m in memories})
    vectors_by_text = embed_all(
        texts + [q.text for q in queries] + [pair_text(q) for q in queries], args.cache
    )
    qvectors = np.stack([vectors_by_text[q.text] for q in queries])
    pvectors = np.stack([vectors_by_text[pair_text(q)] for q in queries])
    embed_s = time.monotonic() - started
    print(
        f"{len(texts)} distinct memory texts, {len(queries)} queries, {embed_s:.0f} s", flush=True
    )

    fact_ids = store_world(histories, vectors_by_text, objects)
    now = EPOCH + (DAYS + 1) * DAY_SECONDS
    rows = evaluate(queries, qvectors, fact_ids, objects, conf, now, pvectors)
    recall, by_slots, by_rrf_k = summarise(rows)
    for category, entry in recall.items():
        print(
            f"{category:10} n={entry['queries']:4} "
            + " ".join(f"{mode}={entry[mode]['recall']:.3f}" for mode in MODES),
            flush=True,
        )

    lat = latency(
        histories, vectors_by_text, queries, qvectors, objects, conf, now, args.latency_runs
    )
    print(json.dumps(lat, indent=1), flush=True)

    wins = [r for r in rows if r["fused"]["found"] > r["paper"]["found"]]
    losses = [r for r in rows if r["fused"]["found"] < r["paper"]["found"]]
    pick = random.Random(args.seed)
    memory_count = sum(len(m) for m in histories.values())
    results = {
        "benchmark": "retrieval_eval",
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores, {_cpu()}, Python {platform.python_version()}",
        "seed": args.seed,
        "blas_threads": sorted(
            {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}
        ),
        "settings": {
            "recency_slots": conf.RECENCY_SLOTS,
            "similarity_slots": conf.SIMILARITY_SLOTS,
            "similarity_floor": conf.SIMILARITY_FLOOR,
            "rrf_k": conf.RRF_K,
            "lexical_depth": conf.LEXICAL_DEPTH,
            "pair_query": conf.PAIR_QUERY,
            "pair_common_share": conf.PAIR_COMMON_SHARE,
            "recency_window_hours": conf.RECENCY_WINDOW_HOURS,
            "centred_dense": conf.CENTRED_DENSE,
            "centred_floor": conf.CENTRED_FLOOR,
            "duplicate_cosine": conf.DUPLICATE_COSINE,
        },
        "world": {
            "npcs": len(NPCS),
            "pairs": len(histories),
            "memories": memory_count,
            "planted_facts": len(fact_ids),
            "pair_sizes": sorted(len(m) for m in histories.values()),
            "game_days": DAYS,
            "queries": len(queries),
            "embedding_seconds": round(embed_s, 1),
        },
        "recall": recall,
        "recall_by_slots": by_slots,
        "fused_recall_by_rrf_k": by_rrf_k,
        "fused_better_queries": len(wins),
        "paper_better_queries": len(losses),
        "examples": {
            "fused_better": [r["text"] for r in pick.sample(wins, min(4, len(wins)))],
            "paper_better": [r["text"] for r in pick.sample(losses, min(4, len(losses)))],
        },
        "latency_10k": lat,
    }
    out = ROOT / "bench" / "results" / args.out
    out.write_text(json.dumps(results, indent=2))
    print(f"wrote {out}")
    if not args.no_conversations:  # the long-conversation set (issue #18), its own database
        import subprocess

        subprocess.run([sys.executable, str(ROOT / "bench" / "conversation_eval.py")], check=True)


def _cpu() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


if __name__ == "__main__":
    main()
