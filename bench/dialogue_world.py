"""
Scenarios for bench/dialogue_eval.py, generated from templates with facts drawn from a seed.

Nothing here is written for one prompt: every fact is drawn per run from pools (trades, kin
with names, home towns, pets with names, fears, foods, possessions, goals), every fact and
question has several phrasings, player names are drawn too, and the scenarios are split by
scenario into a tuning half and a held-out half, deterministically for a seed. A prompt tuned
on the tuning half meets other facts, names and wordings in the held-out half.

Each scenario is one player and one of the demo's NPCs over two game days:

- day 1: the player tells two or three facts, asks the NPC about itself and about its trade or
  the town, says two mid-conversation lines through `say` (one without the NPC's name, one
  with the name at the end), sometimes passes on news about a third party, says goodbye;
- day 2 (after the night's rollover and a restart): asks each fact back, and one question
  about a fact never told; a newcomer the NPC has never met asks a never-told question too.

A fact's `keys` are groups of word prefixes (regular expressions, case-insensitive): text
matches a fact when every group has a word found in it. Plain data; no Django here.
"""

from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass, field

NPC_NAMES = ("Maren", "Lyra", "Voss", "Wren")
PRONOUN = {"Maren": "she", "Lyra": "she", "Voss": "he", "Wren": "she"}
CATEGORIES = ("trade", "kin", "home", "pet", "fear", "diet", "possession", "goal")

# ---------------------------------------------------------------- names

PLAYER_NAMES = """
Tobiah Tamsin Corwin Hesper Ysolde Dara Odette Bram Ilsa Fenwick Marisol Quill Rowan Sable
Thorne Corvina Hesketh Alder Berwyn Calla Dorian Edda Faelan Gisela Hollis Ingram Jessamy
Kestrel Linnea Merrick Nell Osric Perrin Rhosyn Silas Tilda Ulric Verity Wystan Yara Zephyr
Anselm Brielle Cedric Delphine Emrys Fiora Gareth Honora Idris Jory Keturah Lorcan Mirabel
Niall Orla Piers Ravenna Soren Talia Aurelie Bartholomew Cressida Desmond Elowen Finnegan
Guinevere Hamlin Isolde Jasmin Kaspar Lavinia Mordecai Nerys Oswin Prudence Quentin Rosalind
Sebastian Theodora Urien Viveka Wilhelmina Xander Yvaine Zoltan Araminta Benedikt Colette
Dashiell Esmeralda Fitzroy Gwendolyn Horatio Ines Jericho Katriona Leander Maelis Nicodemus
Ophelia Peregrine Rosalie Sylvester Tamsyn Valentin Winslow Yestin Zinnia
""".split()

KIN_NAMES = {
    "she": """Odile Harriet Mathilde Griselda Cordelia Agatha Rosamund Winifred Imogen Beatrix
    Ottilie Seraphine Philippa Clemence Eugenia""".split(),
    "he": """Aldric Casimir Lucan Evander Bastian Florian Leopold Tiberius Cassius Percival
    Ambrose Godfrey Rupert Alaric Barnabas""".split(),
}

PET_NAMES = """
Pebble Biscuit Juniper Sorrel Bramble Thistle Nutmeg Pippin Clover Marlow Ember Crumpet
Gideon Inkpot Jasper Mabel Otis Pudding Quince Rufus Sprocket Tuppence Waffles Barnaby Dumpling
Figaro Noodle Pocket Turnip Whisker
""".split()

TOWNS = """
Saltmere Frosthollow Greywick Ashford Mirefield Thornbury Kelmouth Briarholt Dunmore Fallowmere
Stonereach Larkhaven Oxcombe Wyndale Redfern Cairnby Eastwatch Marrowby Pellham Quarrendon
Sedgewick Tarnow Velden Hawkmoor Brackenridge
""".split()
WHERES = [
    "on the coast",
    "far to the north",
    "in the hill country",
    "beyond the marshes",
    "two weeks' ride to the west",
    "down on the southern plains",
]

# Third parties of planted news: townsfolk nobody in the demo plays, named with a role.
TOWNSFOLK = [
    ("Harlan", "the miller", "he"),
    ("Odo", "the ferryman", "he"),
    ("Brisa", "the old schoolmistress", "she"),
    ("Gundred", "the night watchman", "he"),
    ("Mildreth", "the priest's housekeeper", "she"),
    ("Tobin", "the tollkeeper", "he"),
    ("Essa", "the goose girl", "she"),
    ("Hamish", "the mayor's clerk", "he"),
    ("Wilmot", "the chimney sweep", "he"),
    ("Dorcas", "the washerwoman", "she"),
    ("Aurick", "the town crier", "he"),
    ("Petra", "the gravedigger", "she"),
]

# ---------------------------------------------------------------- fact pools

# (noun, what the player does "I ..."), keys
TRADES = [
    ("clockmaker", "mend clocks and pocket watches", [["clock", "watch", "timepiece"]]),
    ("basket weaver", "weave baskets from river willow", [["basket", "weav", "wicker"]]),
    ("cartographer", "draw maps of the marshes", [["maps?\\b", "cartograph"]]),
    ("cooper", "make barrels for the brewers", [["barrel", "cooper", "cask"]]),
    ("stonemason", "carve gravestones for the chapel yard", [["stone", "mason"]]),
    ("candle maker", "dip candles from tallow and beeswax", [["candle", "chandler", "tallow"]]),
    ("glassblower", "blow glass bottles and beads", [["glass"]]),
    ("shipwright", "build fishing boats at the slipway", [["boats?\\b", "ship"]]),
    ("potter", "throw jugs and bowls on my wheel", [["potter", "pottery", "jugs?\\b", "clay"]]),
    ("tanner", "cure hides for the leatherworkers", [["tann", "hides?\\b", "leather"]]),
    ("bookbinder", "bind books for the scholars", [["book", "binder", "binding"]]),
    ("beekeeper", "keep bees on the hillside", [["bees?\\b", "beekeep", "hives?\\b"]]),
    ("rope maker", "twist rope for the ships' rigging", [["rope"]]),
    ("tailor", "sew coats and mend breeches", [["tailor", "sew", "coats?\\b", "breeches"]]),
    ("cobbler", "make and mend shoes", [["cobbl", "shoe"]]),
    ("shepherd", "keep sheep up on the moor", [["shepherd", "sheep"]]),
    ("lamplighter", "light the street lamps at dusk", [["lamp"]]),
    ("scribe", "write letters for folk who cannot", [["scribe", "letters?\\b", "writ"]]),
    ("dyer", "dye cloth in great vats", [["dyer", "dye", "cloth"]]),
    ("wheelwright", "build wheels for carts and wagons", [["wheel", "wagon"]]),
    ("jeweller", "set gems in gold and silver", [["jewel", "goldsmith", "gems?\\b"]]),
    ("falconer", "train hawks for the lord's hunt", [["falcon", "hawks?\\b"]]),
    ("carpenter", "build tables and chairs", [["carpent", "joiner", "furniture", "tables?\\b"]]),
    ("baker", "bake bread before dawn", [["bak", "bread"]]),
    ("butcher", "cut meat for half the town", [["butcher", "meat"]]),
    ("chimney sweep", "sweep the chimneys of the old town", [["chimney", "sweep"]]),
]
TRADE_LINES = [
    "{npc}, I {does} for a living; I am a {noun}.",
    "I'm a {noun} by trade. I {does}.",
    "I earn my living as a {noun}: I {does}.",
    "By trade I am a {noun}; I {does}, day in, day out.",
]
TRADE_QUESTIONS = [
    "{npc}, do you remember what I do for a living?",
    "What is my trade, do you recall?",
    "How do I earn my living, {npc}?",
    "Do you remember my line of work?",
]

# relation, pronoun
RELATIONS = [
    ("sister", "she"),
    ("brother", "he"),
    ("father", "he"),
    ("mother", "she"),
    ("son", "he"),
    ("daughter", "she"),
    ("uncle", "he"),
    ("aunt", "she"),
    ("grandmother", "she"),
    ("cousin", "she"),
]
KIN_SITUATIONS = [
    "vanished near the old mill last winter",
    "sails on the river barges",
    "is coming to visit at midsummer",
    "lives alone out past the marsh road",
    "went east with the soldiers and never wrote back",
    "runs a stall at the spring fair",
]
KIN_LINES = [
    "My {rel} {name} {situation}.",
    "I have a {rel} called {name}; {pron} {situation}.",
    "{npc}, my {rel} is {name}, and {pron} {situation}.",
    "You should know about my {rel}, {name}: {pron} {situation}.",
]
KIN_QUESTIONS = [
    "What is my {rel}'s name, {npc}?",
    "Do you remember what my {rel} is called?",
    "Who is my {rel}, do you recall?",
]

HOME_LINES = [
    "I came here from {town}, {where}.",
    "I grew up in {town}, {where}.",
    "Home for me is {town}, {where}.",
    "{npc}, I'm from {town}, {where}; it's a long way from here.",
]
HOME_QUESTIONS = [
    "Where did I say I come from?",
    "Do you remember my home town, {npc}?",
    "Where am I from, do you recall?",
    "Which town did I grow up in?",
]

SPECIES = ["cat", "dog", "horse", "goat", "ferret", "raven", "tortoise", "donkey", "parrot"]
PET_ADJECTIVES = ["grey", "old", "one-eyed", "little", "black", "speckled", "lazy", "clever"]
PET_HABITS = [
    "follows me everywhere",
    "hates the rain",
    "sleeps at the foot of my bed",
    "is getting old and slow",
    "was half-starved when I found {obj} on the road",
]
PET_LINES = [
    "I have {a_adj} {species} named {name}; {pron} {habit}.",
    "My {species} is called {name}, and {pron} {habit}.",
    "{npc}, I keep {a_adj} {species} called {name}; {pron} {habit}.",
]
PET_QUESTIONS = [
    "What is my {species} called?",
    "Do you remember my {species}'s name, {npc}?",
    "What's the name of my {species}?",
]

# (what, keys, pronoun for it)
FEARS = [
    ("spiders", [["spider"]], "them"),
    ("deep water", [["deep water", "water", "drown"]], "it"),
    ("thunder", [["thunder", "lightning"]], "it"),
    ("heights", [["heights?\\b", "high places", "cliff"]], "them"),
    ("snakes", [["snake", "serpent", "adder"]], "them"),
    ("the dark", [["dark"]], "it"),
    ("wolves", [["wol(f|ves)"]], "them"),
    ("rats", [["rats?\\b"]], "them"),
    ("ghosts", [["ghost", "haunt"]], "them"),
    ("crows", [["crows?\\b"]], "them"),
]
FEAR_LINES = [
    "I am deathly afraid of {what}; please never laugh at me for it.",
    "Nothing frightens me like {what}.",
    "{npc}, I have been terrified of {what} since I was a child.",
    "If you ever see me go pale, it's {what}: I fear {obj} more than anything.",
]
FEAR_QUESTIONS = [
    "What am I afraid of?",
    "Do you remember what frightens me, {npc}?",
    "What did I tell you scares me most?",
]

FOODS = [
    ("honey", [["honey"]]),
    ("milk", [["milk", "dairy"]]),
    ("nuts", [["nuts?\\b", "almond", "walnut"]]),
    ("eggs", [["eggs?\\b"]]),
    ("wheat", [["wheat", "flour", "gluten"]]),
    ("garlic", [["garlic"]]),
    ("onions", [["onion"]]),
    ("mushrooms", [["mushroom"]]),
    ("strawberries", [["strawberr"]]),
    ("shellfish", [["shellfish", "prawn", "crab", "mussel", "oyster"]]),
    ("cheese", [["cheese"]]),
    ("pepper", [["pepper"]]),
    ("cinnamon", [["cinnamon"]]),
]
DIET_LINES = [
    "I cannot eat {food}; it makes me ill, so never put it in my food.",
    "{Food} makes me break out in a rash, so keep it off my plate.",
    "Never put {food} in anything you serve me: I'm allergic.",
    "{npc}, one thing: I can't touch {food}, it makes me sick.",
]
DIET_QUESTIONS = [
    "What must you never put in my food?",
    "What can't I eat, do you remember?",
    "What am I allergic to, {npc}?",
    "What should you keep off my plate?",
]

# (item, keys)
ITEMS = [
    ("a silver compass that was my grandfather's", [["compass"]]),
    ("an old brass spyglass", [["spyglass", "telescope"]]),
    ("a wooden flute my mother carved", [["flute"]]),
    ("a pendant with a portrait of my wife", [["pendant", "portrait"]]),
    ("a bone-handled knife", [["knife"]]),
    ("a book of old sea charts", [["charts?\\b"]]),
    ("a cracked hourglass", [["hourglass"]]),
    ("a red silk scarf", [["scarf"]]),
    ("a lucky copper token", [["token"]]),
    ("a jade ring", [["jade"]]),
    ("an iron key to a house that burned", [["keys?\\b"]]),
    ("a tin whistle", [["whistle"]]),
]
ITEM_STORIES = [
    "it has never left my side",
    "it is all I have left of home",
    "I would run into a burning house for it",
]
POSSESSION_LINES = [
    "I always carry {item}; {story}.",
    "The thing I treasure most is {item}; {story}.",
    "{npc}, see this? It's {item}, and I never let it out of my sight.",
    "My most precious possession is {item}.",
]
POSSESSION_QUESTIONS = [
    "What do I always carry with me?",
    "What is my most precious possession, {npc}?",
    "Do you remember what I treasure most?",
]

GOALS = [
    ("open a tea shop on this very street", [["tea ?(shop|house|room)"]]),
    ("sail to the Amber Isles", [["amber"]]),
    ("become a knight of the river guard", [["knight"]]),
    ("learn to read and write", [["learn to read", "reading", "to read"]]),
    ("win the archery contest at midsummer", [["archer"]]),
    ("buy back my family's farm", [["farm"]]),
    ("climb the Greyfang mountain", [["greyfang"]]),
    ("find the lost mine of Carrow", [["carrow"]]),
    ("become the mayor of this town", [["mayor"]]),
    ("build a windmill on the hill", [["windmill"]]),
]
GOAL_LINES = [
    "One day I want to {goal}.",
    "My dream is to {goal}.",
    "I'm putting money aside to {goal}.",
    "{npc}, before I'm old I mean to {goal}.",
]
GOAL_QUESTIONS = [
    "What do I dream of doing one day?",
    "What is my great ambition, {npc}?",
    "What am I putting money aside for, do you remember?",
]

# ---------------------------------------------------------------- the other lines

SELF_QUESTIONS = {
    "role": [
        "What do you do here?",
        "What's your line of work?",
        "What keeps you busy all day, {npc}?",
        "{npc}, what is it you do?",
    ],
    "family": [
        "Do you have family here?",
        "Have you any kin in town, {npc}?",
        "Is anyone waiting for you at home?",
        "Are you married, {npc}?",
    ],
    "tenure": [
        "How long have you been here, {npc}?",
        "Have you always lived in this town?",
        "{npc}, how many years have you been doing this?",
    ],
    "origin": ["Where are you from, {npc}?", "Were you born around here?"],
    "likes": ["What do you like most about this town?", "What's the best part of your day, {npc}?"],
}
OWN_TRADE_QUESTIONS = {
    "Maren": ["What do you pour here?", "What's on the menu tonight?", "Could I get a room?"],
    "Lyra": ["What songs do you know?", "Where do you play during the day, {npc}?"],
    "Voss": ["What do you make at your forge?", "Could you mend a broken hinge for me?"],
    "Wren": ["What remedies do you sell?", "What would you give me for a cough, {npc}?"],
}
COMMON_TRADE_QUESTIONS = ["What do you sell?", "What do you charge, {npc}?"]
TOWN_QUESTIONS = [
    "What is there to see in this town?",
    "Where can I buy bread around here?",
    "Is there a temple in town?",
    "Who else works on the market square?",
    "Where would I find a doctor?",
    "Is there a bathhouse anywhere near?",
    "What's the best place to eat around here, {npc}?",
    "Who runs this town?",
    "Where does the road out of town lead?",
]

# Small talk said mid-conversation without the NPC's name, with keys (a memory of it is
# grounded in what the player said, though no fact).
MID_PLAIN = [
    ("The walk up from the docks was longer than I remembered.", [["docks?\\b", "walk"]]),
    ("It has not stopped raining since this morning.", [["rain"]]),
    ("I think I'll sit a while and rest my legs.", [["legs?\\b", "sit"]]),
    ("My cloak is soaked through.", [["cloak", "soak"]]),
    ("I haven't eaten since sunrise.", [["eaten", "hungry", "sunrise"]]),
    ("The wind off the river is bitter tonight.", [["wind"]]),
    ("I nearly slipped on the cobbles outside.", [["slip"]]),
    ("The road was full of pilgrims today.", [["pilgrim"]]),
]
MID_NAMED = {
    "Maren": ["How long have you kept this place, {npc}?", "Is it always this busy, {npc}?"],
    "Lyra": ["How long have you been in town, {npc}?", "Do you ever tire of singing, {npc}?"],
    "Voss": ["Is the forge always this hot, {npc}?", "Do you ever take a day off, {npc}?"],
    "Wren": ["Is the market always this busy, {npc}?", "Do you ever take a day off, {npc}?"],
}
MID_NAMED_COMMON = [
    "What would you recommend tonight, {npc}?",
    "Have you had a long day, {npc}?",
    "Is the weather always like this here, {npc}?",
]

# (event, keys for it); {his} is the third party's possessive
NEWS_EVENTS = [
    ("fell off a ladder and broke {his} leg", [["ladder", "leg"]]),
    ("was robbed on the north road", [["robbed", "robber", "thie", "stole"]]),
    ("came down with the barge fever", [["fever"]]),
    ("found a pot of old silver under {his} floorboards", [["silver", "floorboard"]]),
    ("lost {his} purse at the ferry crossing", [["purse"]]),
    ("is leaving town for good at the end of the month", [["leav", "moving away"]]),
    ("had {his} cart overturned on the bridge", [["overturn", "bridge"]]),
    ("got into a brawl and lost a tooth", [["brawl", "tooth", "fight"]]),
]
NEWS_LINES = [
    "Did you hear? {subject} {event}.",
    "Have you heard the news? {subject} {event}.",
    "Terrible news, {npc}: {subject} {event}.",
    "{subject} {event}, they say. The whole street is talking about it.",
]
GOODBYES = [
    "Thank you, {npc}. Goodbye for now!",
    "Goodbye, {npc}, I'll be back tomorrow.",
    "Good night, {npc}!",
    "Farewell for now, {npc}.",
]

# A fact claimed in the first person (an NPC saying "my sister Odile" to the player whose sister
# she is): self-attribution patterns per category, {k} being the fact's words. Searched in
# sentences that have "I", "me" or "my" and no "you" (bench/dialogue_eval.first_person_claim).
ATTRIBUTION = {
    "trade": r"(?:i(?:'m| am| was)|i work as|by trade i(?:'m| am)|my living as)\s+(?:an?\s+)?{k}"
    r"|i\s+{does}",
    # "I have a son named Casimir" (held-out seed 15511): the kin claimed by its name too.
    "kin": r"my\s+(?:\w+\s+)?{k}|i have an?\s+(?:\w+\s+){{0,2}}(?:named|called)\s+{k}",
    "home": r"(?:from|grew up in|home is|born in)\s+{k}",
    "pet": r"my\s+(?:[\w-]+\s+){{0,2}}{k}|(?:named|called)\s+{k}",
    "fear": r"(?:afraid of|fear|terrified of|scared of|frightened of|frightens me like)\s+"
    r"(?:the\s+)?{k}|{k}\w*\s+(?:\w+\s+){{0,3}}(?:terrif|frighten|scare|makes? me)",
    "diet": r"(?:can'?t eat|cannot eat|allergic to|can'?t touch)\s+(?:\w+\s+)?{k}"
    r"|{k}\w*\s+(?:\w+\s+){{0,3}}makes? me",
    "possession": r"(?:carry|treasure|my)\s+(?:[\w'-]+\s+){{0,4}}{k}",
    "goal": r"(?:want to|dream|mean to|money aside to|one day)[^.!?]*{k}",
}

# The same for a never-told question's topic (an NPC saying "I work as a storyteller" when
# asked what the player does).
CATEGORY_CLAIMS = {
    "trade": [r"i work as|by trade|i earn my living|my trade|my living"],
    "kin": [],  # "my <relation>", added per question
    "home": [r"i (?:come|came) from|i grew up|my home ?town|i was born in"],
    "pet": [r"my (?:\w+ )?(?:animal|pet)\b"],  # and "my <species>"
    "fear": [
        r"i(?:'m| am) (?:afraid|scared|terrified|frightened) of|i fear\b|scares me|frightens me"
    ],
    "diet": [r"i(?:'m| am) allergic|i can'?(?:not|t) eat|my (?:food|plate)"],
    "possession": [r"i (?:always )?carry|i treasure|my (?:most )?precious"],
    "goal": [r"my dream|my (?:great )?ambition|putting money aside|one day i\b"],
}


def claim_of(category: str, words: list[str], does: str = "") -> list[str]:
    """The fact's claim patterns: its category's self-attribution with the fact's words."""
    k = "(?:" + "|".join(words) + ")"
    return [ATTRIBUTION[category].format(k=k, does=re.escape(" ".join(does.split()[:2])) or "$^")]


# ---------------------------------------------------------------- the scenario


@dataclass
class Fact:
    category: str
    value: str  # what the fact is, briefly ("clockmaker", "sister Odile")
    line: str  # how the player tells it
    question: str  # how the player asks it back
    keys: list[list[str]]
    claim: list[str]  # words that mark the fact in a sentence of the NPC's


@dataclass
class Step:
    """One line a player says, and what it is for (the scorers read `kind`)."""

    kind: str  # tell | self | trade | town | mid_plain | mid_named | news | goodbye | ask |
    # never_told | newcomer
    line: str
    fact: int | None = None  # index in Scenario.facts (tell, ask)
    category: str = ""  # the question's topic (self, never_told, newcomer)
    probe: bool = False  # sent through `say` whatever its addressing (mid-conversation lines)
    claim: list[str] = field(default_factory=list)  # never_told/newcomer: a claim of the topic


@dataclass
class News:
    about: str  # the third party's name
    line: str
    keys: list[list[str]]


@dataclass
class Scenario:
    id: str
    npc: str
    player: str
    split: str  # tuning | heldout
    facts: list[Fact]
    day1: list[Step]
    day2: list[Step]
    newcomer: str
    newcomer_steps: list[Step]
    news: News | None = None
    smalltalk: list[list[list[str]]] = field(default_factory=list)  # keys of its small talk

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Scenario":
        data = dict(data)
        data["facts"] = [Fact(**f) for f in data["facts"]]
        for name in ("day1", "day2", "newcomer_steps"):
            data[name] = [Step(**s) for s in data[name]]
        data["news"] = News(**data["news"]) if data.get("news") else None
        return cls(**data)

    def kinds(self) -> set[str]:
        return {s.kind for s in self.day1 + self.day2 + self.newcomer_steps}


def _word(pattern: str) -> re.Pattern:
    return re.compile(r"(?<![a-z])" + pattern, re.IGNORECASE)


def matches(text: str, keys: list[list[str]]) -> bool:
    """Every group of `keys` has a word (prefix, regex allowed) found in `text`."""
    return bool(keys) and all(
        any(_word(word).search(text or "") for word in group) for group in keys
    )


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def addressed(line: str, npc: str) -> str:
    """The line opening with the NPC's name, as a player starts a conversation."""
    if line.startswith(npc):
        return line
    line = re.sub(rf",? {npc}([?.!])$", r"\1", line)  # the name moves to the front
    first = line if line.startswith(("I ", "I'")) else line[:1].lower() + line[1:]
    return f"{npc}, {first}"


class Draw:
    """The run's random choices: one `random.Random`, and names never drawn twice."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.used: set[str] = set()

    def choice(self, items):
        return self.rng.choice(items)

    def name(self, pool) -> str:
        free = [n for n in pool if n not in self.used]
        if not free:  # a long run: names come back, which the scorers allow
            self.used -= set(pool)
            free = list(pool)
        picked = self.rng.choice(free)
        self.used.add(picked)
        return picked


def _fill(template: str, npc: str, **values) -> str:
    return template.format(npc=npc, **values)


def _keywords_of(keys: list[list[str]]) -> list[str]:
    return [word for group in keys for word in group]


def draw_fact(category: str, npc: str, draw: Draw, taken: dict) -> Fact:
    """One fact of `category`, its line and its question in phrasings drawn at random."""
    line_t, question_t = None, None
    if category == "trade":
        noun, does, keys = draw.choice(TRADES)
        line_t, question_t = draw.choice(TRADE_LINES), draw.choice(TRADE_QUESTIONS)
        values = {"noun": noun, "does": does}
        return Fact(
            category,
            noun,
            _fill(line_t, npc, **values),
            _fill(question_t, npc),
            keys,
            claim_of(category, [re.escape(noun)] + _keywords_of(keys), does),
        )
    if category == "kin":
        rel, pron = draw.choice(RELATIONS)
        name = draw.name(KIN_NAMES[pron])
        values = {"rel": rel, "name": name, "pron": pron, "situation": draw.choice(KIN_SITUATIONS)}
        taken["relation"] = rel
        return Fact(
            category,
            f"{rel} {name}",
            _fill(draw.choice(KIN_LINES), npc, **values),
            _fill(draw.choice(KIN_QUESTIONS), npc, rel=rel),
            [[name]],
            claim_of(category, [name, rel]),
        )
    if category == "home":
        town = draw.name(TOWNS)
        values = {"town": town, "where": draw.choice(WHERES)}
        return Fact(
            category,
            town,
            _fill(draw.choice(HOME_LINES), npc, **values),
            _fill(draw.choice(HOME_QUESTIONS), npc),
            [[town]],
            claim_of(category, [town]),
        )
    if category == "pet":
        species = draw.choice(SPECIES)
        name = draw.name(PET_NAMES)
        pron = draw.choice(["she", "he"])
        habit = draw.choice(PET_HABITS).format(obj="her" if pron == "she" else "him")
        adj = draw.choice(PET_ADJECTIVES)
        values = {
            "a_adj": ("an " if adj[0] in "aeiou" else "a ") + adj,
            "species": species,
            "name": name,
            "pron": pron,
            "habit": habit,
        }
        line = _fill(draw.choice(PET_LINES), npc, **values)
        taken["species"] = species
        return Fact(
            category,
            f"{species} {name}",
            line,
            _fill(draw.choice(PET_QUESTIONS), npc, species=species),
            [[name]],
            claim_of(category, [name, species]),
        )
    if category == "fear":
        what, keys, obj = draw.choice(FEARS)
        return Fact(
            category,
            what,
            _fill(draw.choice(FEAR_LINES), npc, what=what, obj=obj),
            _fill(draw.choice(FEAR_QUESTIONS), npc),
            keys,
            claim_of(category, _keywords_of(keys)),
        )
    if category == "diet":
        food, keys = draw.choice(FOODS)
        return Fact(
            category,
            food,
            _fill(draw.choice(DIET_LINES), npc, food=food, Food=_cap(food)),
            _fill(draw.choice(DIET_QUESTIONS), npc),
            keys,
            claim_of(category, _keywords_of(keys)),
        )
    if category == "possession":
        item, keys = draw.choice(ITEMS)
        return Fact(
            category,
            item,
            _fill(draw.choice(POSSESSION_LINES), npc, item=item, story=draw.choice(ITEM_STORIES)),
            _fill(draw.choice(POSSESSION_QUESTIONS), npc),
            keys,
            claim_of(category, _keywords_of(keys)),
        )
    if category == "goal":
        goal, keys = draw.choice(GOALS)
        return Fact(
            category,
            goal,
            _fill(draw.choice(GOAL_LINES), npc, goal=goal),
            _fill(draw.choice(GOAL_QUESTIONS), npc),
            keys,
            claim_of(category, _keywords_of(keys)),
        )
    raise ValueError(category)


def never_told(category: str, npc: str, draw: Draw, taken: dict, kind: str) -> Step:
    """A question about a fact of `category` the asker never told (a relation or species the
    asker did not mention, for kin and pets), in the same phrasings as a real one."""
    claim = list(CATEGORY_CLAIMS[category])
    if category == "kin":
        rel = draw.choice([r for r, _ in RELATIONS if r != taken.get("relation")])
        line = _fill(draw.choice(KIN_QUESTIONS), npc, rel=rel)
        claim.append(f"my {rel}")
    elif category == "pet":
        species = draw.choice([s for s in SPECIES if s != taken.get("species")])
        line = _fill(draw.choice(PET_QUESTIONS), npc, species=species)
        claim.append(f"my (?:\\w+ )?{species}")
    else:
        pools = {
            "trade": TRADE_QUESTIONS,
            "home": HOME_QUESTIONS,
            "fear": FEAR_QUESTIONS,
            "diet": DIET_QUESTIONS,
            "possession": POSSESSION_QUESTIONS,
            "goal": GOAL_QUESTIONS,
        }
        line = _fill(draw.choice(pools[category]), npc)
    return Step(kind, line, category=category, claim=claim)


def draw_news(npc: str, draw: Draw) -> News:
    """News about a third party: a townsperson nobody plays, or another of the demo's NPCs."""
    if draw.rng.random() < 0.4:
        name = draw.choice([n for n in NPC_NAMES if n != npc])
        subject, pron = name, PRONOUN[name]
    else:
        name, role, pron = draw.choice(TOWNSFOLK)
        subject = f"{name} {role}"
    event, keys = draw.choice(NEWS_EVENTS)
    event = event.format(his="his" if pron == "he" else "her")
    line = _fill(draw.choice(NEWS_LINES), npc, subject=subject, event=event)
    return News(name, _cap(line), [[name], *keys])


def _collides(texts_and_keys: list[tuple[str, list[list[str]]]]) -> bool:
    """Some line matches another item's keys (then a memory could not be told apart)."""
    for i, (_, keys) in enumerate(texts_and_keys):
        for j, (text, _) in enumerate(texts_and_keys):
            if i != j and matches(text, keys):
                return True
    return False


def _npc_words(npc: str) -> list[list[str]]:
    # A player's fact must not be in the NPC's own trade (it would read as a role slip).
    return {
        "Maren": [["tavern", "cider", "wine", "ale\\b", "stew", "rooms?\\b"]],
        "Lyra": [["bard", "lute", "songs?\\b", "sing"]],
        "Voss": [["smith", "forge", "anvil", "blades?\\b", "tools?\\b"]],
        "Wren": [["herb", "remed", "sick", "ill\\b"]],
    }[npc]


def make_scenario(index: int, npc: str, seed: int, draw: Draw) -> Scenario:
    """One scenario; items are drawn again until no line could be taken for another item (the
    names a discarded draw took are given back)."""
    player, newcomer = draw.name(PLAYER_NAMES), draw.name(PLAYER_NAMES)
    for _ in range(200):
        used = set(draw.used)
        scenario = _draw_scenario(index, npc, seed, draw, player, newcomer)
        items = [(f.line, f.keys) for f in scenario.facts]
        if scenario.news:
            items.append((scenario.news.line, scenario.news.keys))
        mid = [s for s in scenario.day1 if s.kind == "mid_plain"]
        items += [(s.line, k) for s, k in zip(mid, scenario.smalltalk)]
        clash = any(matches(f.line, _npc_words(npc)) for f in scenario.facts)
        if not clash and not _collides(items):
            return scenario
        draw.used = used
    raise RuntimeError(f"no scenario without colliding facts for {npc} (seed {seed})")


def _draw_scenario(
    index: int, npc: str, seed: int, draw: Draw, player: str, newcomer: str
) -> Scenario:
    rng = draw.rng
    count = rng.choice([2, 3, 3])
    categories = rng.sample(CATEGORIES, count)
    taken: dict = {}
    facts = [draw_fact(c, npc, draw, taken) for c in categories]
    greet = rng.random() < 0.3
    first = addressed(facts[0].line, npc)
    if greet:
        first = f"Good evening, {first}"
    day1 = [Step("tell", first, fact=0)]
    middle = [Step("tell", f.line, fact=i) for i, f in enumerate(facts) if i]
    self_category = rng.choice(sorted(SELF_QUESTIONS))
    middle.append(
        Step("self", _fill(rng.choice(SELF_QUESTIONS[self_category]), npc), category=self_category)
    )
    if rng.random() < 0.5:
        trade_q = rng.choice(OWN_TRADE_QUESTIONS[npc] + COMMON_TRADE_QUESTIONS)
        middle.append(Step("trade", _fill(trade_q, npc), category="own_trade"))
    else:
        middle.append(Step("town", _fill(rng.choice(TOWN_QUESTIONS), npc), category="town"))
    news = draw_news(npc, draw) if rng.random() < 0.5 else None
    if news:
        middle.append(Step("news", news.line))
    rng.shuffle(middle)
    # Small talk goes right after the NPC has answered something: the conversation is open.
    plain, plain_keys = rng.choice(MID_PLAIN)
    at = rng.randrange(0, len(middle) + 1)
    middle.insert(at, Step("mid_plain", plain, probe=True))
    named = _fill(rng.choice(MID_NAMED[npc] + MID_NAMED_COMMON), npc)
    middle.insert(rng.randrange(0, len(middle) + 1), Step("mid_named", named, probe=True))
    day1 += middle
    day1.append(Step("goodbye", _fill(rng.choice(GOODBYES), npc)))

    asks = [Step("ask", f.question, fact=i) for i, f in enumerate(facts)]
    rng.shuffle(asks)
    untold = [c for c in CATEGORIES if c not in categories]
    asks.insert(
        rng.randrange(1, len(asks) + 1),
        never_told(rng.choice(untold), npc, draw, taken, "never_told"),
    )
    asks[0].line = addressed(asks[0].line, npc)
    return Scenario(
        id=f"s{seed}-{index:02d}-{npc.lower()}",
        npc=npc,
        player=player,
        split="",
        facts=facts,
        day1=day1,
        day2=asks,
        newcomer=newcomer,
        newcomer_steps=[],
        news=news,
        smalltalk=[plain_keys],
    )


def generate(seed: int, count: int = 40) -> list[Scenario]:
    """
    `count` scenarios over the demo's four NPCs in turn, split by scenario into a tuning half
    and a held-out half (alternately within each NPC's, in an order drawn from the seed): the
    same seed always gives the same scenarios and the same halves.
    """
    draw = Draw(seed)
    scenarios = [make_scenario(i, NPC_NAMES[i % len(NPC_NAMES)], seed, draw) for i in range(count)]
    for npc in NPC_NAMES:
        own = [s for s in scenarios if s.npc == npc]
        draw.rng.shuffle(own)
        for number, s in enumerate(own):
            s.split = "tuning" if number % 2 == 0 else "heldout"
    for s in scenarios:
        s.newcomer_steps = [newcomer_question(s, scenarios, draw)]
    return scenarios


def newcomer_question(scenario: Scenario, scenarios: list[Scenario], draw: Draw) -> Step:
    """A newcomer asks about a kind of fact someone else told the same NPC in the same half,
    so another player's fact given to them shows (a cross-player mix-up)."""
    told = sorted(
        {
            f.category
            for s in scenarios
            if s.npc == scenario.npc and s.split == scenario.split
            for f in s.facts
        }
    )
    category = draw.choice(told or list(CATEGORIES))
    step = never_told(category, scenario.npc, draw, {}, "newcomer")
    step.line = addressed(step.line, scenario.npc)
    return step


def select(scenarios: list[Scenario], split: str) -> list[Scenario]:
    return scenarios if split == "all" else [s for s in scenarios if s.split == split]


STEP_KINDS = (
    "tell",
    "self",
    "trade",
    "town",
    "mid_plain",
    "mid_named",
    "news",
    "goodbye",
    "ask",
    "never_told",
    "newcomer",
)


def covering(scenarios: list[Scenario], count: int) -> list[Scenario]:
    """`count` scenarios of different NPCs that between them have as many kinds of step as
    can be had (the e2e test's subset): greedy, first the one adding most kinds."""
    chosen: list[Scenario] = []
    kinds: set[str] = set()
    for _ in range(count):
        pool = [s for s in scenarios if s not in chosen and s.npc not in {c.npc for c in chosen}]
        pool = pool or [s for s in scenarios if s not in chosen]
        if not pool:
            break
        best = max(pool, key=lambda s: (len(s.kinds() - kinds), -scenarios.index(s)))
        chosen.append(best)
        kinds |= best.kinds()
    return chosen
