"""
A conversational retrieval set of our own making (issue #18, point 4): long, many-session
dialogues between an NPC and one player, every turn stored as a memory ("Ada: ..."), with
labelled questions. Deterministic (seeded), plain Python.

- 10 pairs (5 NPCs, 10 players; each NPC talks with two players), 300-370 turns each, in 14-18
  sessions spread over about seven months of the game calendar (a session every 6-20 days).
- Most turns are what long real chat is full of: greetings and goodbyes that name the other
  ("Catch you later, Ada!"), thanks, weather, the same few pair topics coming back session after
  session (the pair's trade, the tavern, the harvest), questions back. Every turn carries its
  speaker's name as its first word, as a transcript does, so the two speakers' names are in
  every memory of the pair and rare everywhere else.
- Among them, facts (the player's and the NPC's own), each told in one turn, some with a
  detail in the next turn of the same speaker; third-party names, places, items, animals,
  trades. Facts of the same kind recur in different sessions (two trips, two pets, a job and a
  later promotion), which makes multi-fact questions.
- Questions, asked on the last session's day (after it): single-fact, multi-fact, temporal
  ("what did I tell you last spring about ...", "when did ..."), open (why/how, few cue words)
  and recent (about the session just held: what the recency guarantee is for). About 85% name a
  speaker (the player's or the NPC's name). Relevant turns are labelled by turn index.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

DAY_SECONDS = 86400.0
EPOCH = 1_767_225_600.0  # 2026-01-01, the first game day
MONTHS = (
    "Frostmoon Thawing Seedtide Rainmonth Bloomtide Highsun Emberfall Harvestwane Mistmonth "
    "Leaffall Darkening Yulewatch"
).split()
SEASONS = ["winter", "spring", "spring", "spring", "summer", "summer", "summer"]
SEASONS += ["autumn", "autumn", "autumn", "winter", "winter"]
MONTH_DAYS = 30

NPCS = ["Maren", "Voss", "Lyra", "Wren", "Tobias"]
PLAYERS = ["Ada", "Bran", "Corin", "Dara", "Edric", "Fenna", "Garrick", "Hilde", "Isolde", "Jory"]
PEOPLE = (
    "Tomas Odile Piet Selwyn Marta Aldric Brenna Cato Delphine Emeric Fiora Gideon Hanne Ivo "
    "Jessamy Kasper Liesel Matthias Nell Osric Perrin Quilla Rowan Sabine Teodor Ulla Vesna "
    "Willem Ysolde Zora Anselm Beatrix Cosmo Dagny Elias Frida Goran Hester Ingmar Juno"
).split()
PLACES = (
    "Saltmere Harrowford Greywatch Ravenhollow Thornwick Ashbarrow Millhaven Coldreach "
    "Wolfcombe Amberfell Stonegate Brinemoor Elderwatch Frosthaven Oakmere Duskford"
).split()
RELATIVES = ["brother", "sister", "cousin", "uncle", "aunt", "niece", "nephew", "grandmother"]
TRADES = ["cooper", "tanner", "weaver", "chandler", "glassblower", "bookbinder", "farrier"]
INSTRUMENTS = ["fiddle", "lute", "tin whistle", "hurdy-gurdy", "bagpipe", "harp"]
ANIMALS = ["goat", "ferret", "hound", "tabby cat", "raven", "mule", "pony", "hedgehog"]
PETNAMES = "Biscuit Pepper Thistle Nutmeg Sorrel Button Clover Smudge Juniper Pickle".split()
ITEMS = [
    "silver locket with a heron on it",
    "brass compass with a cracked glass",
    "whalebone comb",
    "green glass bottle of ink",
    "copper kettle with a dent",
    "carved walnut pipe",
    "red wool scarf",
    "spyglass in a leather case",
    "pewter tankard with a lid",
    "deck of painted cards",
]
ILLNESSES = ["a fever", "a bad cough", "the shakes", "a broken ankle", "marsh ague"]
FOODS = ["eel pie", "plum dumplings", "barley stew", "smoked herring", "honey cakes", "mutton"]
FEARS = ["deep water", "thunder", "spiders", "the dark woods", "heights", "fire"]
EVENTS = ["the lantern fair", "a wedding", "the horse market", "the midsummer races", "a funeral"]

# Pair topics: words a pair uses session after session (common within the pair).
TOPICS = {
    "cooper": ["barrels", "staves", "hoops"],
    "harvest": ["harvest", "barley", "fields"],
    "tavern": ["tavern", "ale", "Gull"],
    "boats": ["boats", "nets", "tide"],
    "wool": ["wool", "sheep", "shearing"],
}

GREETINGS = [
    "{A}: Hey {B}! Good to see you again.",
    "{A}: Morning, {B}!",
    "{A}: {B}! There you are.",
    "{A}: Hello again, {B}.",
    "{A}: Evening, {B}. Long day?",
    "{A}: Well met, {B}!",
]
REPLY_GREETINGS = [
    "{A}: Hi {B}! How have you been?",
    "{A}: Good to see you too, {B}.",
    "{A}: Ah, {B}, come in, come in.",
    "{A}: {B}! I was hoping you'd stop by.",
]
GOODBYES = [
    "{A}: Catch ya later, {B}!",
    "{A}: Take care, {B}.",
    "{A}: I should go. Bye {B}!",
    "{A}: Until next time, {B}.",
    "{A}: Safe travels, {B}.",
]
REPLY_GOODBYES = [
    "{A}: Bye {B}! Come back soon.",
    "{A}: See you, {B}.",
    "{A}: Mind how you go, {B}.",
]
SMALL_TALK = [
    "{A}: Thanks, {B}, that means a lot.",
    "{A}: Ha! You always say that, {B}.",
    "{A}: That's so true, {B}.",
    "{A}: I know what you mean, {B}.",
    "{A}: Oh wow, really, {B}?",
    "{A}: Glad to hear it, {B}.",
    "{A}: That sounds lovely, {B}.",
    "{A}: You're too kind, {B}.",
    "{A}: It has been a strange week, {B}.",
    "{A}: The rain has not stopped for days.",
    "{A}: Cold out there this morning, isn't it?",
    "{A}: I could use a warm drink.",
    "{A}: Same as ever, really.",
    "{A}: Busy, busy. You know how it is.",
    "{A}: I slept badly again, the wind kept me up.",
    "{A}: What have you been up to, {B}?",
    "{A}: How's everything with you, {B}?",
    "{A}: Anything new since last time?",
    "{A}: Not much to tell, honestly.",
    "{A}: The market was crowded today.",
    "{A}: Did you hear the bells this morning?",
    "{A}: I'm so tired, {B}.",
    "{A}: Really? Today of all days?",
    "{A}: I was just wondering about that today.",
    "{A}: Good question, {B}.",
    "{A}: Honestly, I love days like this.",
    "{A}: Quick question, {B}: more tea?",
    "{A}: Lately everything feels new somehow.",
    "{A}: Really, it was a good week.",
    "{A}: I'm curious what you think, {B}.",
    "{A}: Just wondering, is the well still dry?",
    "{A}: Today was long, really long.",
]
# How questions are asked: chatter around the question, as players do.
OPENERS = ["", "", "", "Hey {N}, ", "Quick question: ", "I was wondering today: ", "Really, "]
CLOSERS = ["", "", "", " Just wondering.", " I'm curious.", " Do you know?"]
TOPIC_TALK = [
    "{A}: The {t0} keep me busy, as always.",
    "{A}: More {t0} today, {B}. Always more {t0}.",
    "{A}: Any news about the {t1}?",
    "{A}: The {t1} looked better this week.",
    "{A}: I spent all morning on the {t2}.",
    "{A}: Prices for {t0} went up again.",
    "{A}: Nobody talks about anything but the {t1} lately.",
]


@dataclass
class Turn:
    speaker: str
    text: str  # "Ada: ..." as stored
    at: float  # unix seconds
    session: int


@dataclass
class Question:
    pair: int
    category: str  # single, multi, temporal, open, recent
    text: str
    relevant: list[int]  # turn indexes
    names_speaker: bool
    asked_at: float = 0.0  # unix seconds


@dataclass
class Pair:
    npc: str
    player: str
    turns: list[Turn] = field(default_factory=list)


@dataclass
class Fact:
    """A fact told in turn(s): `lines` (first is the main one), and its questions."""

    kind: str
    teller: str  # "P" (player) or "N" (npc)
    lines: list[str]
    single: list[str]  # question templates
    open: list[str]
    topic: str  # for temporal questions: "what did I tell you last {season} about {topic}"
    group: str = ""  # facts of one group make a multi-fact question
    multi: str = ""
    turns: list[int] = field(default_factory=list)
    session: int = 0


def _fact_kinds(rng: random.Random, P: str, N: str, used: set) -> list[Fact]:
    """Every fact a pair will tell, with its question templates (names filled in)."""

    def pick(pool):
        free = [x for x in pool if x not in used]
        choice = rng.choice(free or pool)
        used.add(choice)
        return choice

    facts = []
    rel, person, place = rng.choice(RELATIVES), pick(PEOPLE), pick(PLACES)
    facts.append(
        Fact(
            "relative_moved",
            "P",
            [
                f"{P}: My {rel} {person} finally moved to {place}.",
                f"{P}: {person} found a little house there by the river.",
            ],
            [f"Where did {P}'s {rel} move to?", f"{N}, who moved to {place}?"],
            [f"How is {P}'s family doing?"],
            f"my {rel}",
            "family",
        )
    )
    rel2, person2, ill, remedy = rng.choice(RELATIVES), pick(PEOPLE), rng.choice(ILLNESSES), None
    facts.append(
        Fact(
            "relative_ill",
            "P",
            [f"{P}: {person2}, my {rel2}, is down with {ill}. I sit with {person2} most nights."],
            [f"Which of {P}'s relatives fell ill?", f"What illness does {person2} have, {N}?"],
            [f"Why has {P} been so worried and tired lately?"],
            person2,
            "family",
        )
    )
    trade = rng.choice(TRADES)
    master = pick(PEOPLE)
    facts.append(
        Fact(
            "job",
            "P",
            [f"{P}: I took an apprenticeship as a {trade} with old {master}."],
            [f"What trade is {P} learning?", f"Who is {P} apprenticed to?"],
            [f"How does {P} earn a living now?"],
            "the apprenticeship",
            "work",
        )
    )
    facts.append(
        Fact(
            "promotion",
            "P",
            [
                f"{P}: {master} says I can sign my own work now. A journeyman {trade}!",
                f"{P}: I get my own bench and my own mark.",
            ],
            [f"What did {master} allow {P} to do?"],
            [f"Is {P} doing well at work?"],
            f"{master}",
            "work",
        )
    )
    animal, petname = rng.choice(ANIMALS), rng.choice(PETNAMES)
    facts.append(
        Fact(
            "pet",
            "P",
            [f"{P}: We took in a {animal}. The children named it {petname}."],
            [f"What is the name of {P}'s {animal}?", f"{N}, what animal did {P} take in?"],
            [f"Does {P} have any animals at home?"],
            f"the {animal}",
            "animals",
        )
    )
    animal2 = rng.choice([a for a in ANIMALS if a != animal])
    petname2 = rng.choice([n for n in PETNAMES if n != petname])
    facts.append(
        Fact(
            "pet2",
            "P",
            [f"{P}: Another mouth to feed: a {animal2} called {petname2} followed me home."],
            [f"What followed {P} home?"],
            [f"Is {P}'s house getting crowded?"],
            petname2,
            "animals",
        )
    )
    place2, friend, event = pick(PLACES), pick(PEOPLE), rng.choice(EVENTS)
    facts.append(
        Fact(
            "trip",
            "P",
            [f"{P}: I went to {place2} with {friend} for {event}."],
            [f"Who went to {place2} with {P}?", f"Why did {P} go to {place2}?"],
            [f"Has {P} been travelling?"],
            f"{place2}",
            "travel",
        )
    )
    place3, event2 = pick(PLACES), rng.choice(EVENTS)
    facts.append(
        Fact(
            "trip2",
            "P",
            [
                f"{P}: I just got back from {place3}. {event2.capitalize()}, can you believe it?",
                f"{P}: The roads to {place3} were mud up to the knees.",
            ],
            [f"Where did {P} go for {event2}?"],
            [f"Has {P} been away from home?"],
            f"{place3}",
            "travel",
        )
    )
    item, market = rng.choice(ITEMS), pick(PLACES)
    facts.append(
        Fact(
            "lost_item",
            "P",
            [f"{P}: I lost my mother's {item} at the {market} market. I could cry."],
            [f"What did {P} lose at the market?", f"Where did {P} lose the {item.split()[-1]}?"],
            [f"What has been upsetting {P}?"],
            "my mother's keepsake",
            "",
        )
    )
    rival, thing = pick(PEOPLE), rng.choice(ITEMS)
    facts.append(
        Fact(
            "quarrel",
            "P",
            [f"{P}: {rival} and I are not speaking. He swears I broke his {thing}."],
            [f"Who is {P} quarrelling with?", f"What does {rival} accuse {P} of?"],
            [f"Is {P} on bad terms with anyone?"],
            rival,
            "",
        )
    )
    food, cook = rng.choice(FOODS), pick(PEOPLE)
    facts.append(
        Fact(
            "food",
            "P",
            [f"{P}: Nothing beats the {food} {cook} makes on market day."],
            [f"What food does {P} love?", f"Whose {food} does {P} like?"],
            [f"What would make {P} happy for supper?"],
            f"{food}",
            "",
        )
    )
    fear = rng.choice(FEARS)
    facts.append(
        Fact(
            "fear",
            "P",
            [f"{P}: Truth is, I have been afraid of {fear} since I was small."],
            [f"What is {P} afraid of?"],
            [f"Why would {P} refuse to come along on a night journey?"],
            "being afraid",
            "",
        )
    )
    boat_seller, boat_place = pick(PEOPLE), pick(PLACES)
    facts.append(
        Fact(
            "plan",
            "P",
            [f"{P}: I'm saving every coin to buy {boat_seller}'s fishing boat in {boat_place}."],
            [f"What is {P} saving up for?", f"Whose boat does {P} want to buy?"],
            [f"What are {P}'s plans for the future?"],
            "the boat",
            "",
        )
    )
    sail_place = pick(PLACES)
    facts.append(
        Fact(
            "npc_past",
            "N",
            [f"{N}: When I was young I sailed to {sail_place} on a salt barge."],
            [
                f"Where did {N} sail when young?",
                f"{P}, do you remember how {N} got to {sail_place}?",
            ],
            [f"What was {N}'s life like before?"],
            f"{sail_place}",
            "",
        )
    )
    npc_friend, npc_thing = pick(PEOPLE), rng.choice(ITEMS)
    facts.append(
        Fact(
            "npc_gift",
            "N",
            [f"{N}: {npc_friend} gave me this {npc_thing} the winter my husband died."],
            [f"Who gave {N} the {npc_thing.split()[1]}?"],
            [f"Does {N} keep anything to remember her husband by?"],
            f"{npc_friend}",
            "",
        )
    )
    inst, teacher = rng.choice(INSTRUMENTS), pick(PEOPLE)
    facts.append(
        Fact(
            "music",
            "P",
            [f"{P}: {teacher} is teaching me the {inst}. My fingers ache!"],
            [f"What instrument is {P} learning?", f"Who teaches {P} to play?"],
            [f"What does {P} do in the evenings these days?"],
            f"the {inst}",
            "",
        )
    )
    multi = {
        "family": f"Which of {P}'s relatives has {P} talked about, and what happened to them?",
        "work": f"How has {P}'s working life changed since {P} started with {master}?",
        "animals": f"What animals has {P} taken in?",
        "travel": f"Where has {P} travelled, {N}?",
    }
    for fact in facts:
        fact.multi = multi.get(fact.group, "")
    return facts


def _season(day: float) -> tuple[str, str]:
    month = MONTHS[int(day // MONTH_DAYS) % 12]
    return month, SEASONS[int(day // MONTH_DAYS) % 12]


def build_pair(rng: random.Random, number: int, npc: str, player: str, used: set):
    """One pair's turns and questions."""
    pair = Pair(npc, player)
    topic = TOPICS[rng.choice(sorted(TOPICS))]
    facts = _fact_kinds(rng, player, npc, used)
    sessions = rng.randint(14, 18)
    days, day = [], rng.uniform(0, 10)
    for _ in range(sessions):
        days.append(day)
        day += rng.uniform(6, 20)
    # Facts go to sessions in order of telling; grouped facts are at least two sessions apart.
    order = list(facts)
    rng.shuffle(order)
    for group in ("work", "animals", "travel", "family"):
        members = [f for f in order if f.group == group]
        if len(members) == 2 and order.index(members[1]) < order.index(members[0]):
            i, j = order.index(members[0]), order.index(members[1])
            order[i], order[j] = order[j], order[i]
    # The last session keeps two facts (the recent questions); the rest spread over the others.
    last = order[-2:]
    spread = order[:-2]
    per_session: dict[int, list[Fact]] = {s: [] for s in range(sessions)}
    for i, fact in enumerate(spread):
        per_session[int(i * (sessions - 1) / len(spread))].append(fact)
    per_session[sessions - 1] = last
    target = rng.randint(300, 370)
    per = target // sessions
    names = {"P": player, "N": npc}

    def say(who: str, template: str, session: int, at: float) -> None:
        A, B = (player, npc) if who == "P" else (npc, player)
        t0, t1, t2 = topic
        text = template.format(A=A, B=B, t0=t0, t1=t1, t2=t2)
        pair.turns.append(Turn(A, text, at, session))

    for s, day in enumerate(days):
        start = EPOCH + day * DAY_SECONDS + rng.uniform(9, 19) * 3600
        at = [start]

        def tick():
            at[0] += rng.uniform(20, 90)
            return at[0]

        who = rng.choice("PN")
        other = "N" if who == "P" else "P"
        say(who, rng.choice(GREETINGS), s, tick())
        say(other, rng.choice(REPLY_GREETINGS), s, tick())
        body = per - 4 + rng.randint(-2, 2)
        fact_slots = sorted(rng.sample(range(2, body - 2), len(per_session[s])))
        speaker = "P"
        k = 0
        for i in range(body):
            if k < len(per_session[s]) and i == fact_slots[k]:
                fact = per_session[s][k]
                k += 1
                fact.session = s
                for line in fact.lines:
                    fact.turns.append(len(pair.turns))
                    pair.turns.append(Turn(names[fact.teller], line, tick(), s))
                reply = "N" if fact.teller == "P" else "P"
                say(reply, rng.choice(SMALL_TALK), s, tick())
                speaker = fact.teller
                continue
            pool = TOPIC_TALK if rng.random() < 0.3 else SMALL_TALK
            say(speaker, rng.choice(pool), s, tick())
            speaker = "N" if speaker == "P" else "P"
        say(who, rng.choice(GOODBYES), s, tick())
        say(other, rng.choice(REPLY_GOODBYES), s, tick())

    now = pair.turns[-1].at + 2 * 3600  # two hours after the last session, same day
    questions = []
    last_day = days[-1]
    for fact in facts:
        q = rng.choice(fact.single)
        questions.append(Question(number, "single", q, fact.turns[:1], player in q or npc in q))
        if fact in last:
            questions.append(
                Question(
                    number,
                    "recent",
                    rng.choice(
                        [
                            f"{npc}, what did I just tell you about {fact.topic}?",
                            f"What did we talk about earlier today, {player}?",
                            f"What did {player} say about {fact.topic} today?",
                        ]
                    ),
                    list(fact.turns),
                    True,
                )
            )
            continue
        month, season = _season(days[fact.session])
        ago = last_day - days[fact.session]
        when = f"last {season}" if ago > 60 else f"in {month}"
        temporal = rng.choice(
            [
                f"What did I tell you {when} about {fact.topic}, {npc}?",
                f"What did {player} say {when} about {fact.topic}?",
                f"When did {'I' if fact.teller == 'P' else 'you'} first mention {fact.topic}?",
            ]
        )
        if rng.random() < 0.6:
            questions.append(Question(number, "temporal", temporal, list(fact.turns), True))
        q = rng.choice(fact.open)
        questions.append(Question(number, "open", q, list(fact.turns), player in q or npc in q))
    for group in ("family", "work", "animals", "travel"):
        members = [f for f in facts if f.group == group]
        if len(members) == 2:
            relevant = [members[0].turns[0], members[1].turns[0]]
            q = members[0].multi
            questions.append(Question(number, "multi", q, relevant, True))
    return pair, questions, now


def build_set(seed: int = 18):
    """Ten pairs (NPC, player), their turns, labelled questions and each pair's 'now'."""
    rng = random.Random(seed)
    used: set = set()
    pairs, questions, nows = [], [], []
    for number, player in enumerate(PLAYERS):
        npc = NPCS[number % len(NPCS)]
        pair, qs, now = build_pair(rng, number, npc, player, used)
        for q in qs:
            opener = rng.choice(OPENERS).format(N=npc)
            named = q.text.startswith((npc, player))
            q.text = opener + (q.text[0].lower() + q.text[1:] if opener and not named else q.text)
            q.text += rng.choice(CLOSERS)
            q.names_speaker = npc in q.text or player in q.text
            # The same day as the last session (recent questions always), or on a later visit.
            later = q.category != "recent" and rng.random() < 0.5
            q.asked_at = now + (rng.uniform(3, 30) * DAY_SECONDS if later else 0.0)
        pairs.append(pair)
        questions += qs
        nows.append(now)
    return pairs, questions, nows


if __name__ == "__main__":
    pairs, questions, nows = build_set()
    from collections import Counter

    print([len(p.turns) for p in pairs])
    print(Counter(q.category for q in questions), sum(q.names_speaker for q in questions))
    for q in questions[:30]:
        print(q.category, q.text, [pairs[q.pair].turns[i].text for i in q.relevant])
