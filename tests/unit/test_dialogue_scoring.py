"""
The dialogue evaluation's scorers and its scenario generator (bench/dialogue_eval.py,
bench/dialogue_world.py), on real replies of the offline model quoted in issue #24 and on
lines it should leave alone. No model, no database.
"""

import pytest

from bench import dialogue_eval as ev
from bench import dialogue_world as world
from bench.dialogue_world import Fact, News, Scenario, Step
from omniira_evennia.conversation.addressing import addressed_name, is_goodbye

WORLD_WORDS = "tavern cider ale plum wine stew rooms upstairs bar lantern lane market square "
WORLD_WORDS += "stalls forge blades tools remedies herbs songs lute coins fire"
WORLD = {"words": WORLD_WORDS.split(), "names": ["Lantern", "Lane", "Market", "Square"]}
ALLOWED = WORLD["names"] + list(world.NPC_NAMES)


def scenario(npc="Maren", player="Hesketh", facts=(), news=None, smalltalk=()):
    return Scenario(
        id="t-00",
        npc=npc,
        player=player,
        split="heldout",
        facts=list(facts),
        day1=[],
        day2=[],
        newcomer="Quill",
        newcomer_steps=[],
        news=news,
        smalltalk=list(smalltalk),
    )


DEEP_WATER = Fact(
    "fear",
    "deep water",
    "I am deathly afraid of deep water.",
    "What am I afraid of?",
    [["deep water", "water", "drown"]],
    world.claim_of("fear", ["deep water", "water", "drown"]),
)
CLOCKS = Fact(
    "trade",
    "clockmaker",
    "Maren, I mend clocks for a living; I am a clockmaker.",
    "Maren, do you remember what I do for a living?",
    [["clock", "watch", "timepiece"]],
    world.claim_of("trade", ["clockmaker", "clock", "watch"], "mend clocks and pocket watches"),
)
GODFREY = Fact(
    "kin",
    "son Godfrey",
    "You should know about my son, Godfrey: he vanished near the old mill last winter.",
    "Maren, do you remember what my son is called?",
    [["Godfrey"]],
    world.claim_of("kin", ["Godfrey", "son"]),
)


# ---------------------------------------------------------------- invented answers


@pytest.mark.parametrize(
    "reply, question, npc, player",
    [
        (
            "The name of Quill's animal is Max.",
            "Maren, what is the name of my animal?",
            "Maren",
            "Quill",
        ),
        (
            "I remember that Quill works as a baker, making delicious breads and pastries.",
            "Maren, do you remember what I do for a living?",
            "Maren",
            "Quill",
        ),
        (
            "Yes, Wren, I remember Thorne sells remedies at a market stall.",
            "Wren, do you remember what I do for a living?",
            "Wren",
            "Thorne",
        ),
        (
            "No, Voss. You are a blacksmith, working at the forge in Market Square.",
            "Voss, do you remember what I do for a living?",
            "Voss",
            "Sable",
        ),
        (
            "Never put salt or vinegar in Sable's food or drink.",
            "Voss, what must you never put in my food?",
            "Voss",
            "Sable",
        ),
        (
            "Thorne's animal is a dog, Wren.",
            "Wren, what is the name of my animal?",
            "Wren",
            "Thorne",
        ),
        ("Your horse is called Biscuit, love.", "What's my horse called?", "Maren", "Tobiah"),
        ("Your horse is named Molly, Voss.", "What's the name of my horse?", "Voss", "Corwin"),
        ('Mara".', "Maren, what is my horse called?", "Maren", "Lorcan"),
        ("Oh no, Edda, you're allergic to eggs.", "Lyra, what am I allergic to?", "Lyra", "Edda"),
        (
            "You have a collection of antique tools and blades, Ysolde.",
            "Voss, what is my most precious possession?",
            "Voss",
            "Ysolde",
        ),
        # Held-out seed 92821: the world's docks given as their home, "I remember" and all.
        ("I remember: you are from the docks.", "Where am I from, do you recall?", "Wren", "Ada"),
    ],
)
def test_a_never_told_answer_that_names_something_is_invented(reply, question, npc, player):
    assert ev.is_invented_answer(reply, question, npc, player, ALLOWED, WORLD["words"])


def test_a_never_told_answer_told_as_a_story_is_invented():
    """Held-out seed 15511, busy: to a newcomer, and not counted then (no name in it)."""
    story = (
        "The man had a special necklace that he had been wearing since childhood. It was a "
        "beautiful necklace made from a rare gemstone that had been hidden in the attic."
    )
    question = "Maren, do you remember what I treasure most?"
    assert ev.is_invented_answer(story, question, "Maren", "Hamlin", ALLOWED, WORLD["words"])
    asked_back = "Your treasure? Tell me about it, love. What is it, then?"
    assert not ev.is_invented_answer(asked_back, question, "Maren", "Hamlin", ALLOWED, ())


@pytest.mark.parametrize(
    "reply, question, npc, player",
    [
        ("You never told me about a dog, Bryn.", "And what is my dog called?", "Maren", "Bryn"),
        (
            "I don't know who Thorne is searching for, Wren.",
            "Wren, who am I searching for?",
            "Wren",
            "Thorne",
        ),
        ("We've never met, love. What do you do?", "Maren, what is my trade?", "Maren", "Quill"),
        (
            "You haven't told me your horse's name yet.",
            "What's my horse called?",
            "Maren",
            "Tobiah",
        ),
        # Vague: asserts nothing specific (the rule needs a name, item, place, trade ...).
        (
            "You must never put anything that can cause harm to Rowan.",
            "Lyra, what must you never put in my food?",
            "Lyra",
            "Rowan",
        ),
    ],
)
def test_admitting_or_asserting_nothing_specific_is_not_invented(reply, question, npc, player):
    assert not ev.is_invented_answer(reply, question, npc, player, ALLOWED, WORLD["words"])


def test_the_npcs_own_trade_given_as_the_players():
    assert ev.npc_trade_as_players("Thorne sells remedies at a market stall.", "Wren", "Thorne")
    assert ev.npc_trade_as_players("No, Voss. You are a blacksmith.", "Voss", "Sable")
    assert not ev.npc_trade_as_players("I sell remedies, Thorne.", "Wren", "Thorne")
    assert not ev.npc_trade_as_players("You're in the tavern, love.", "Maren", "Quill")


def test_specific_mentions_name_what_was_asserted():
    found = ev.specific_mentions(
        "The name of Quill's animal is Max.", "what is my animal?", ["Quill"]
    )
    assert found == ["Max"]
    found = ev.specific_mentions(
        "You must never add artificial colors, sugar, or artificial sweeteners.", "food?", []
    )
    assert "sugar" in found
    # Knowledge evaluation, held-out seed 33071: the asked plural ("horses") is what was asked.
    found = ev.specific_mentions(
        "I don't remember anything about a stable that hires out horses in town.",
        "Is there a stable that hires out horses in town?",
        [],
        affirmed=True,
    )
    assert found == []
    assert ev.specific_mentions("Yes, the stable hires horses.", "Any horses?", [], affirmed=True)
    # The world's "knife" holds its knives (held-out seed 38917, Voss at his forge).
    made = "I make knives and tools for a living."
    assert ev.specific_mentions(made, "What do you make?", [], ["knife", "tool"]) == []
    assert ev.specific_mentions(made, "What do you make?", [], ["tool"]) == ["knives"]


# ---------------------------------------------------------------- restated


@pytest.mark.parametrize(
    "reply, line, npc, player",
    [
        (
            "You are a cartographer; you draw maps of the marshes.",
            "Maren, I am a cartographer; I draw maps of the marshes.",
            "Maren",
            "Ada",
        ),
        (
            "You play the fiddle at weddings for a living.",
            "Lyra, I play the fiddle at weddings for a living.",
            "Lyra",
            "Ada",
        ),
        (
            "That is Odette. You stole the silver chalice from the temple at Greywick.",
            "Lyra, I once stole a silver chalice from the temple at Greywick.",
            "Lyra",
            "Odette",
        ),
        ("What do I do here?", "What do you do here?", "Maren", "Ada"),
        (
            "You are from Saltmere, Marisol, in the hill country.",
            "Maren, I'm from Saltmere, in the hill country; it's a long way from here.",
            "Maren",
            "Marisol",
        ),
        (
            "Tiberius lives alone out past the marsh road, Honora.",
            "You should know about my brother, Tiberius: he lives alone out past the marsh road.",
            "Wren",
            "Honora",
        ),
        (
            "Turnip is getting old and slow, Honora.",
            "Wren, I keep a lazy cat called Turnip; he is getting old and slow.",
            "Wren",
            "Honora",
        ),
    ],
)
def test_the_players_words_handed_back_are_restated(reply, line, npc, player):
    assert ev.is_restated(reply, line, npc, player)


@pytest.mark.parametrize(
    "reply, line",
    [
        (
            "I see, playing the harp is a nice skill. I can help you with that.",
            "I want to learn to play the harp.",
        ),
        (
            "A clockmaker, Tobiah? Then mend the one over my bar; it's been slow all winter.",
            "Maren, I mend clocks for a living; I am a clockmaker.",
        ),
        ("Do I have family here? Aye, a sister up the coast.", "Do you have family here?"),
        ("You mend clocks, Tobiah.", "Maren, do you remember what I do for a living?"),
    ],
)
def test_an_answer_is_not_restated(reply, line):
    assert not ev.is_restated(reply, line, "Maren", "Tobiah")


# ---------------------------------------------------------------- role slips


def test_speaking_as_the_player():
    assert ev.speaks_as_player("Bram says to you: I need a room.", "Maren", "Bram")
    assert ev.speaks_as_player("No, Voss. You are a blacksmith.", "Voss", "Sable")
    assert ev.speaks_as_player("Yes, Lyra. I work as a storyteller.", "Lyra", "Rowan")
    assert ev.speaks_as_player("I don't know who Thorne is searching for, Wren.", "Wren", "Thorne")
    assert ev.speaks_as_player("I am Tobiah, and I mend clocks.", "Maren", "Tobiah")
    assert not ev.speaks_as_player("Welcome back, Tobiah. Cider?", "Maren", "Tobiah")
    assert not ev.speaks_as_player("Maren's the name, love.", "Maren", "Tobiah")
    # Held-out seed 45119: the chat frame with the player on both sides.
    assert ev.speaks_as_player("You say to you: \"I don't know.", "Maren", "Tobiah")


def test_the_player_spoken_of_to_their_face():
    """Held-out seed 45119, Wren to Idris, who asked how he earns his living."""
    assert ev.speaks_of_listener("I do not know what Idris does for a living.", "Idris")
    assert ev.speaks_of_listener("Idris never told me that.", "Idris")
    assert not ev.speaks_of_listener("Idris, I don't know what you do.", "Idris")
    assert not ev.speaks_of_listener("Thank you, Idris. Cider?", "Idris")
    assert not ev.speaks_of_listener("I don't know what Thorne does.", "Idris")


def test_another_npcs_trade_claimed():
    assert ev.claims_anothers_trade("I sell remedies and herbs.", "Lyra")  # seed 50423, busy
    assert ev.claims_anothers_trade("Aye, I sell remedies and tend the sick.", "Voss")
    assert not ev.claims_anothers_trade("I sell remedies and herbs.", "Wren")
    assert not ev.claims_anothers_trade("I play for coins; Wren sells remedies.", "Lyra")
    assert not ev.claims_anothers_trade("I know Wren sells remedies.", "Lyra")
    herb_stall = "I might recommend your herb stall, which sells willow-bark tea."  # seed 40813
    assert ev.claims_anothers_trade(herb_stall, "Voss", "trade weaver I weave wool")
    assert not ev.claims_anothers_trade(herb_stall, "Voss", "trade herbalist I sell herbs")
    assert not ev.claims_anothers_trade("No onions in your stew then.", "Lyra", "onions")


def test_denying_being_itself():
    assert ev.denies_being_itself("I am not Lyra, so I cannot answer your question.", "Lyra")
    assert ev.denies_being_itself("I am looking for someone named Voss.", "Voss")
    assert ev.denies_being_itself("I'm not the herbalist, love.", "Wren", "herbalist")
    assert ev.denies_being_itself("You are Maren, a person living in this world.", "Maren")
    assert not ev.denies_being_itself("I'm Lyra, and I sing for coins.", "Lyra", "bard")


def test_describing_itself_in_the_third_person():
    assert ev.third_person_self("Maren is a tavern keeper.", "Maren")
    assert ev.third_person_self("Maren smiles, feeling grateful.", "Maren")
    assert ev.third_person_self('Voss grunts. "Blades, mostly."', "Voss")
    assert ev.third_person_self("At my forge, Voss makes a good knife for one silver.", "Voss")
    assert not ev.third_person_self("Yes, Wren, I remember.", "Wren")
    assert not ev.third_person_self("Maren, they call me. Cider?", "Maren")
    assert not ev.third_person_self("Ask Lyra, she sings.", "Maren")


@pytest.mark.parametrize(
    "reply, question, npc",
    [
        ("Yes, you do have family. Who are they?", "Do you have family here?", "Maren"),
        (
            "No, you don't remember what Hesketh does for a living.",
            "Maren, do you remember what Hesketh does for a living?",
            "Maren",
        ),
        ("You are a blacksmith, and a fine one.", "What do you do here?", "Voss"),
        (
            "You have kept this place for twenty years.",
            "How long have you kept this place, Maren?",
            "Maren",
        ),
        ("You've been here a long time.", "How long have you been here, Voss?", "Voss"),
    ],
)
def test_the_npcs_question_answered_as_if_asked_of_the_player(reply, question, npc):
    assert ev.answered_as_player(reply, question, npc)


@pytest.mark.parametrize(
    "reply, question, npc",
    [
        ("I do, love: a sister in Ashford.", "Do you have family here?", "Maren"),
        ("You mend clocks, Tobiah.", "Maren, do you remember what I do for a living?", "Maren"),
        (
            "Twenty years I've kept it. Do you have family yourself?",
            "How long have you kept this place, Maren?",
            "Maren",
        ),
        ("I keep the forge and make blades.", "What do you do here?", "Voss"),
        ("You're afraid of deep water, Hesketh.", "What am I afraid of?", "Maren"),
        # Held-out seed 84211: "you" in a clause of the NPC's own answer.
        (
            "I've been here a long time, Quill. I've been here for as long as you've been alive.",
            "How long have you been here, Voss?",
            "Voss",
        ),
        # Held-out seed 91823: "never" is no verb asked about.
        (
            "You never told me what you cannot eat, Nell.",
            "What must you never put in my food?",
            "Voss",
        ),
    ],
)
def test_a_proper_answer_is_not_answered_as_the_player(reply, question, npc):
    directed = "you" in question.lower() and "I " not in question
    assert not ev.answered_as_player(reply, question, npc, directed)


@pytest.mark.parametrize(
    "reply",
    [
        "You're sorry, but you don't have up-to-date news around town.",
        "You think that is very unsettling.",
        "You wonder why it is so wet.",
        "I never told you about your home town, Corwin.",
    ],
)
def test_i_and_you_swapped(reply):
    assert ev.swaps_i_and_you(reply)


@pytest.mark.parametrize(
    "reply",
    [
        "You never told me about a dog, Bryn.",
        "You know, Linnea dreams of building a windmill.",
        "You think so? Then stay a while.",
        "You're afraid of deep water, Hesketh.",
    ],
)
def test_no_swap(reply):
    assert not ev.swaps_i_and_you(reply)


@pytest.mark.parametrize(
    "reply",
    [
        "Can you please provide more context?",
        "Do you need help with anything else?",
        "Do you have any tips for handling the workload?",
        "How can I help you today?",
        "As an AI, I don't have a family.",
        "Is there something you need assistance with?",
        "I'm sorry, but I don't have enough information to recommend a specific dish.",
        "I'm sorry, I don't have information about new things happening around here.",
        "Without more context or additional information, I cannot provide a secret.",
        # Held-out seed 45119.
        "Oh, that's a shame. I'm always here to help you.",
        "Oh no, Marisol! I'm sorry about that. Let me help you.",
    ],
)
def test_an_assistants_voice(reply):
    assert ev.assistant_voice(reply)


def test_a_characters_voice_is_not_an_assistants():
    assert not ev.assistant_voice("Cider, ale or plum wine, love?")
    assert not ev.assistant_voice("I sing for coins at the market; the tips are thin.")
    assert not ev.assistant_voice("Let me help you up, love. Mind the cobbles.")


def test_the_players_fact_claimed_in_the_first_person():
    assert ev.first_person_claim("I mend clocks myself, day and night.", CLOCKS.claim)
    assert ev.first_person_claim("I'm a clockmaker, love.", CLOCKS.claim)
    assert ev.first_person_claim("My son Godfrey vanished near the old mill.", GODFREY.claim)
    # Held-out seed 15511, busy: said to the player by name, still the player's son claimed.
    assert ev.first_person_claim("I have a son named Godfrey, Ada.", GODFREY.claim, "Ada")
    assert not ev.first_person_claim("Ada has a son named Godfrey.", GODFREY.claim, "Ada")
    assert ev.first_person_claim("I am terrified of deep water.", DEEP_WATER.claim)
    crows = world.claim_of("fear", ["crows?\\b"])
    crow_reply = "The sight of the crows always makes me nervous, but I ignore them now."
    assert ev.first_person_claim(crow_reply, crows)
    trade = world.CATEGORY_CLAIMS["trade"]
    assert ev.first_person_claim("I work as a storyteller at The Lantern & Lane.", trade)
    # Naming the fact is no claim of it; nor is what follows "I remember", what is said to
    # the player, or an admission.
    assert not ev.first_person_claim("I am sorry to hear about Godfrey.", GODFREY.claim)
    assert not ev.first_person_claim("I'd pour water for you, love.", DEEP_WATER.claim)
    assert not ev.first_person_claim("I remember that Quill works as a baker.", trade)
    assert not ev.first_person_claim("You mend clocks, Tobiah.", CLOCKS.claim)
    assert not ev.first_person_claim("I'm afraid I don't know.", DEEP_WATER.claim)
    # Agreement first does not make the claim said to the player (held-out seed 94727).
    eggs = world.claim_of("diet", ["eggs?\\b"])
    agreed = "You're right, Zephyr, I cannot eat eggs."
    assert ev.first_person_claim(agreed, eggs, "Zephyr") == [agreed]
    assert not ev.first_person_claim("You're right, Zephyr: you cannot eat eggs.", eggs, "Zephyr")


def test_asked_the_players_trade_the_npc_gives_its_own():
    s = scenario(npc="Wren", player="Gwendolyn", facts=[CLOCKS])
    step = Step("ask", "Do you remember my line of work?", fact=0)
    slips = ev.role_slips("Yes, I remember. I was a herbalist.", step, s, "Gwendolyn")
    assert slips == ["first_person_claim"]
    self_step = Step("self", "What do you do here?", category="role")
    assert ev.role_slips("I am a herbalist; I sell remedies.", self_step, s, "Gwendolyn") == []
    # Held-out seed 45119: the trade said by what the NPC does, not what it is.
    sells = ev.role_slips("I sell remedies at my market stall.", step, s, "Gwendolyn")
    assert sells == ["first_person_claim"]


def test_role_slips_are_listed_by_form():
    s = scenario(npc="Wren", player="Thorne", facts=[CLOCKS])
    step = Step(
        "newcomer",
        "Wren, do you remember what I do for a living?",
        category="trade",
        claim=world.CATEGORY_CLAIMS["trade"],
    )
    slips = ev.role_slips(
        "Yes, Wren, I remember Thorne sells remedies at a market stall.", step, s, "Thorne"
    )
    assert "speaks_as_player" in slips
    assert ev.role_slips("Aye, love. What'll it be?", step, s, "Thorne") == []
    assert set(ev.SLIP_FORMS) >= set(slips)


# ---------------------------------------------------------------- memories, beliefs, gossip


def test_a_memory_is_grounded_only_in_what_the_player_said_of_themselves():
    s = scenario(player="Hesketh", facts=[DEEP_WATER], smalltalk=[[["rain"]]])
    assert ev.classify_memory("Hesketh is terrified of deep water.", s) == "fact"
    assert ev.classify_memory("Hesketh is afraid of spiders.", s) == "ungrounded"
    assert ev.classify_memory("Hesketh says it has rained all day.", s) == "smalltalk"
    corvina = scenario(player="Corvina", facts=[CLOCKS])
    assert ev.classify_memory("Corvina has family here.", corvina) == "ungrounded"
    assert ev.classify_memory("Quill is a baker.", None) == "ungrounded"  # a newcomer
    # Held-out seed 92821: small talk's words made a home ("The walk up from the docks ...").
    walked = scenario(player="Yvaine", facts=[CLOCKS], smalltalk=[[["docks?\\b", "walk"]]])
    assert ev.classify_memory("Yvaine walked up from the docks.", walked) == "smalltalk"
    assert ev.classify_memory("Yvaine is from the docks.", walked) == "ungrounded"


def test_gossip_news_against_talk():
    news = News("Harlan", "Harlan the miller fell off his roof.", [["Harlan"], ["roof", "leg"]])
    told = scenario(npc="Maren", player="Corvina", facts=[CLOCKS], news=news)
    record = {
        "npc_memories": {
            "Maren": ["Harlan the miller fell off his roof and broke his leg."],
            "Lyra": ["Harlan the miller broke his leg falling off the roof."],
            "Voss": [],
            "Wren": [],
        },
        "gossip_memories": [
            {
                "npc": "Lyra",
                "subject": "Corvina",
                "teller": "Maren",
                "value": "Harlan broke his leg.",
            },
            {
                "npc": "Lyra",
                "subject": "Corvina",
                "teller": "Maren",
                "value": "Maren doesn't know anything about Corvina.",
            },
            {
                "npc": "Wren",
                "subject": "Corvina",
                "teller": "Lyra",
                "value": "Corvina mends clocks.",
            },
            # Knowledge passed on: a builder's price is lore; a fact written to its NPC is talk.
            {"npc": "Voss", "teller": "Maren", "value": "A mug of cider costs two copper."}
            | {"knowledge": True},
            {"npc": "Wren", "teller": "Voss", "value": "Your forge is on the square."}
            | {"knowledge": True},
        ],
    }
    gossip = ev.score_gossip(record, [told])
    assert [p["reached"] for p in gossip["passed"]] == [["Lyra"]]
    assert gossip["kept_by_the_told"] == ["t-00"]
    assert gossip["news_memories"] == 1
    assert [g["value"] for g in gossip["talk"]] == [
        "Maren doesn't know anything about Corvina.",
        "Your forge is on the square.",
    ]
    assert [g["value"] for g in gossip["lore"]] == ["A mug of cider costs two copper."]
    assert len(gossip["player_facts"]) == 1


def test_world_inventions_against_the_demo_world():
    invented = ev.world_inventions(
        "You can visit the museum, go to the art gallery.",
        "What is there to see in this town?",
        "Maren",
        "Ada",
        WORLD,
    )
    assert invented == ["gallery", "museum"] or set(invented) == {"museum", "gallery"}
    assert (
        ev.world_inventions(
            "Cider, ale and plum wine, and a stew if you're hungry.",
            "What do you pour here?",
            "Maren",
            "Ada",
            WORLD,
        )
        == []
    )

    # Held-out seed 61507: the player Piers called by name is no pier.
    said = "Piers, I sell songs and reels for the dancing."
    assert ev.world_inventions(said, "What do you sell?", "Lyra", "Piers", WORLD) == []
    assert ev.world_inventions("By the pier, Ada.", "Where is the boat?", "Lyra", "Ada", WORLD)


def test_broken_replies():
    assert ev.leaks_prompt("That is: What do you remember about Linnea?")
    assert ev.leaks_prompt('{"say": "Hello"}')
    assert not ev.leaks_prompt("That is a fine compass, Dorian.")
    assert ev.leaks_prompt("According to your memories, Wren is indeed the herbalist.")
    assert ev.leaks_prompt("The information provided is factually incorrect.")
    assert not ev.leaks_prompt("My memories of that winter are not kind ones.")
    phrases = ev.prompt_phrases()
    assert ev.leaks_prompt(
        "You are Maren, a person living in this world, never an assistant.", phrases
    )
    assert not ev.leaks_prompt("You never told me about a dog, Bryn.", phrases)  # the example
    assert not ev.leaks_prompt("Cider, ale or plum wine, love? The stew is hot tonight.", phrases)
    assert ev.is_repeat(
        "That is: What do you remember about Linnea?",
        ["That is: what do you remember about Linnea?"],
    )
    assert not ev.is_repeat("Cider?", ["A windmill! Bold plan, love."])


# ---------------------------------------------------------------- the generator


def test_the_same_seed_gives_the_same_scenarios_and_halves():
    a, b = world.generate(5, 16), world.generate(5, 16)
    assert [s.to_dict() for s in a] == [s.to_dict() for s in b]
    assert [s.to_dict() for s in world.generate(6, 16)] != [s.to_dict() for s in a]


def test_the_split_is_by_scenario_and_even_per_npc():
    scenarios = world.generate(3, 40)
    held = world.select(scenarios, "heldout")
    tuning = world.select(scenarios, "tuning")
    assert len(held) == len(tuning) == 20
    assert not {s.id for s in held} & {s.id for s in tuning}
    for npc in world.NPC_NAMES:
        assert sum(s.npc == npc for s in held) == sum(s.npc == npc for s in tuning)


def test_facts_phrasings_and_names_vary():
    scenarios = world.generate(9, 40)
    lines = {f.line for s in scenarios for f in s.facts}
    questions = {f.question for s in scenarios for f in s.facts}
    assert len(lines) >= 0.9 * sum(len(s.facts) for s in scenarios)  # hardly a line twice
    assert len(questions) > 20
    names = [s.player for s in scenarios] + [s.newcomer for s in scenarios]
    assert len(set(names)) == len(names) == 80  # no two players of a run share a name
    assert {f.category for s in scenarios for f in s.facts} == set(world.CATEGORIES)


def test_each_fact_line_matches_its_own_keys_and_no_other_items():
    for seed in range(6):
        for s in world.generate(seed, 40):
            for f in s.facts:
                assert world.matches(f.line, f.keys), f.line
                assert not any(world.matches(f.line, o.keys) for o in s.facts if o is not f)
            if s.news:
                assert world.matches(s.news.line, s.news.keys)


def test_every_scenario_has_the_phases_and_lines_go_where_meant():
    for s in world.generate(2, 40):
        assert {
            "tell",
            "self",
            "mid_plain",
            "mid_named",
            "goodbye",
            "ask",
            "never_told",
        } <= s.kinds()
        assert s.kinds() & {"trade", "town"}
        assert [st.kind for st in s.newcomer_steps] == ["newcomer"]
        for step in s.day1 + s.day2 + s.newcomer_steps:
            assert is_goodbye(step.line) == (step.kind == "goodbye"), step.line
        assert addressed_name(s.day1[0].line, [s.npc]) == s.npc  # the opener names the NPC
        assert addressed_name(s.day2[0].line, [s.npc]) == s.npc
        assert addressed_name(s.newcomer_steps[0].line, [s.npc]) == s.npc
        plain = [st for st in s.day1 if st.kind == "mid_plain"][0]
        assert addressed_name(plain.line, list(world.NPC_NAMES)) is None
        named = [st for st in s.day1 if st.kind == "mid_named"][0]
        assert named.line.rstrip("?.!").endswith(", " + s.npc)  # the name at the end only
        assert s.npc not in named.line[: -len(s.npc) - 2]


def test_a_never_told_question_asks_of_something_not_told():
    for s in world.generate(4, 40):
        step = [st for st in s.day2 if st.kind == "never_told"][0]
        assert step.category not in {f.category for f in s.facts}


def test_the_generators_names_are_disjoint_from_each_other_and_the_npcs():
    pools = [
        world.PLAYER_NAMES,
        world.KIN_NAMES["she"] + world.KIN_NAMES["he"],
        world.PET_NAMES,
        world.TOWNS,
        [n for n, _, _ in world.TOWNSFOLK],
        list(world.NPC_NAMES),
    ]
    seen = set()
    for pool in pools:
        assert len(set(pool)) == len(pool)
        assert not seen & set(pool)
        seen |= set(pool)


def test_a_covering_subset_has_every_kind_of_step():
    chosen = world.covering(world.select(world.generate(7, 40), "tuning"), 3)
    kinds = set().union(*(s.kinds() for s in chosen))
    assert len({s.npc for s in chosen}) == 3
    assert {"news", "trade", "town"} <= kinds


def test_the_evaluation_runs_the_demos_tiers_and_small_model_settings():
    """What `make demo` runs with the offline model is what the evaluation measures: its
    sampling, its timeouts (so a reply lost there is lost here), the lean reply prompt."""
    import ast
    from pathlib import Path

    settings = Path(ev.ROOT) / "game_template" / "server" / "conf" / "settings.py"
    for node in ast.walk(ast.parse(settings.read_text())):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "OMNIIRA":
            omniira = ast.literal_eval(node.value)
    for tier, params in omniira["TIERS"].items():
        assert ev.DEMO_TIERS[tier]["timeout"] == params["timeout"]
        assert ev.DEMO_TIERS[tier]["max_tokens"] == params["max_tokens"]
    assert ev.DEMO_TIERS["voice"]["turn_format"] == "speech"


def test_narrating_the_player_is_a_role_slip():
    """The offline model's long run (seed 101): "You look at Cuthbert's ledger, where you see a
    note", "You decide to look for locations in town where you can set up a bakery"."""
    assert ev.narrates_player("You look at Cuthbert's ledger, where you see a note.")
    assert ev.narrates_player("Aye. You decide to look for a shop in town.")
    assert not ev.narrates_player("You look tired, Ada. Sit down.")
    assert not ev.narrates_player("You see, the cider is cheap here.")
    assert ev.narrates_player("You listen attentively to your brief introduction.")
    assert not ev.narrates_player("You listen to me, Ada: the road is not safe.")
    assert "narrates_player" in ev.SLIP_FORMS


def test_a_world_name_given_as_the_players_own_is_invented():
    """Held-out run of seed 86111: "Guinevere is from a town called Wickham Cross" to a never-
    told "Where am I from?" was not flagged: the world's names were allowed everywhere."""
    names = ["Wickham", "Cross", "Lantern", "Lane", "Maren", "Wren"]
    said = "I remember that Guinevere is from a town called Wickham Cross."
    assert ev.gives_world_name_as_theirs(said, "Guinevere", names)
    told = "You know, Keturah, the old town where you grew up is Wickham Cross."
    assert ev.gives_world_name_as_theirs(told, "Keturah", names)
    assert not ev.gives_world_name_as_theirs("You never told me, but ask Wren.", "Ada", names)
    assert not ev.gives_world_name_as_theirs("You're in the Lantern & Lane, love.", "Ada", names)
    assert not ev.gives_world_name_as_theirs("I don't know where you are from.", "Ada", names)


@pytest.mark.parametrize(
    "reply, kind, denies",
    [
        ("I don't know if you can touch pepper.", "tell", True),
        ("You have never told me about a milk allergy, Cedric.", "tell", True),
        ("I didn't know you kept goats!", "tell", False),
        ("I don't know what you mean, love.", "tell", False),
        ("You never told me about a horse, Ada.", "never_told", False),
    ],
)
def test_news_met_with_not_knowing_it_is_a_slip_when_told(reply, kind, denies):
    assert ev.denies_the_telling(reply, kind) is denies


def test_what_was_told_denied_to_them_is_a_slip():
    # Held-out seed 19447.
    assert ev.denies_the_telling(
        "You are not afraid of rats.", "tell", "Nothing frightens me like rats."
    )
    assert ev.denies_the_telling("You do not tell me what you are allergic to.", "tell")
    assert not ev.denies_the_telling("You don't eat honey, then.", "tell", "I don't eat honey.")
    assert not ev.denies_the_telling("You're not alone, love.", "tell", "I fear rats.")


def test_the_listener_owned_or_told_of_to_their_face_is_a_slip():
    # Held-out seed 19447.
    assert ev.speaks_of_listener("I remember that Emrys' brother Godfrey visits.", "Emrys")
    assert ev.speaks_of_listener("You tell Quill that he is a mason.", "Quill")
    assert ev.speaks_of_listener("I know nothing about your life: Yara never told me.", "Yara")
    assert not ev.speaks_of_listener("I remember your brother, Emrys.", "Emrys")
    # Held-out seed 28751.
    assert ev.speaks_of_listener("Maybe Finnegan has visited there before.", "Finnegan")
    assert ev.speaks_of_listener("Any other memories or news about Finnegan?", "Finnegan")
    assert not ev.speaks_of_listener("Maybe, Finnegan, you have.", "Finnegan")
    # Held-out seed 40813.
    assert ev.speaks_of_listener("Ulric might not be scared of the dark.", "Ulric")


def test_the_player_walked_about_is_narration():
    assert ev.narrates_player("You are walking down Market Square, but the cobbles are worn.")
    assert not ev.narrates_player("You're travelling to the Amber Isles? Brave soul.")


def test_saying_it_does_not_know_a_never_told_thing_is_no_restatement():
    # Held-out busy seed 11411 counted "I don't remember what your son is called." as restated.
    asked = "Do you remember what my son is called?"
    reply = {"answered": True, "errors": [], "fallback": False, "speaker": "Hesketh"}

    def flags(text, kind):
        step = Step(kind, asked, category="kin")
        return ev.flag_reply({**reply, "reply": text}, step, scenario(), [], WORLD)

    admitting = flags("I don't remember what your son is called.", "never_told")
    assert "restated" not in admitting and "admits" in admitting
    # Asked what it was told, the same words are the question handed back.
    assert "restated" in flags("Do you remember what your son is called?", "never_told")


def test_not_knowing_the_one_it_talks_to_speaks_of_them():
    reply = "I've never met Ingram, so I don't know what he's talking about."
    assert ev.speaks_of_listener(reply, "Ingram")
    assert not ev.speaks_of_listener("I've never met your sister, Ingram.", "Ingram")


def test_the_players_telling_said_as_the_npcs_is_scored_a_swap():
    assert ev.swaps_i_and_you("I told you that I'm afraid of ghosts.")
    assert ev.swaps_i_and_you("I told you it was deep water, Bram.")
    assert not ev.swaps_i_and_you("You told me you're afraid of ghosts.")


def test_a_kinsman_the_listener_never_named_put_on_them_is_a_role_slip():
    """Held-out seed 67219: Maren's own late husband given to a stranger telling of a key."""
    said = "The iron key is a relic of your late husband, Tomas, who drowned at the river docks."
    assert ev.gives_them_untold_kin(said, "")
    assert not ev.gives_them_untold_kin("Yes, your daughter is Seraphine.", "")  # the answer
    assert not ev.gives_them_untold_kin("You never told me of your mother, Emrys.", "", "Emrys")
    # What they told is theirs to hear back.
    assert not ev.gives_them_untold_kin("Your son Godfrey vanished; I am sorry.", GODFREY.line)
    assert not ev.gives_them_untold_kin("Your husband, you say? Tell me of him.", "")
    s = scenario(facts=[GODFREY])
    step = Step("tell", GODFREY.line, fact=0)
    assert "gives_them_untold_kin" in ev.role_slips(said, step, s, "Hesketh")
    assert "gives_them_untold_kin" not in ev.role_slips("Your son Godfrey.", step, s, "Hesketh")


def test_what_a_player_said_in_their_goodbye_is_grounded_small_talk():
    """Held-out seed 29881: "Emrys will be back tomorrow." from "Goodbye, Lyra, I'll be back
    tomorrow." was counted ungrounded."""
    s = scenario(facts=[DEEP_WATER])
    s.day1 = [Step("goodbye", "Goodbye, Maren, I'll be back tomorrow.")]
    assert ev.classify_memory("Hesketh will be back tomorrow.", s) == "smalltalk"
    s.day1 = [Step("goodbye", "Good night, Maren!")]
    assert ev.classify_memory("Hesketh will be back tomorrow.", s) == "ungrounded"


def test_a_told_fact_claimed_in_the_npcs_own_words_is_a_first_person_claim():
    """Held-out seed 53309, read by hand: "That's right, onions can cause me allergic
    reactions." to "Never put onions in anything you serve me: I'm allergic."."""
    s = scenario(facts=[DEEP_WATER])
    step = Step("tell", DEEP_WATER.line, fact=0)
    claimed = "That's right, deep water has always been a terror to me."
    assert "first_person_claim" in ev.role_slips(claimed, step, s, "Hesketh")
    assert "first_person_claim" not in ev.role_slips("I love deep water.", step, s, "Hesketh")
    kept = "Then I will keep you far from deep water, Hesketh."
    assert "first_person_claim" not in ev.role_slips(kept, step, s, "Hesketh")
    # Another speaker's fact is not this one's to claim.
    assert "first_person_claim" not in ev.role_slips(claimed, step, s, "Quill")


def test_the_players_question_about_themselves_taken_by_the_npc_is_a_swap():
    line = "Could I get a room?"  # held-out seed 77213
    assert ev.swaps_i_and_you("Yes, I could get a room upstairs. Five copper.", line)
    assert not ev.swaps_i_and_you("I can get you a room upstairs.", line)
    assert not ev.swaps_i_and_you("Aye, a room is five copper a night.", line)


def test_a_reply_framed_as_the_players_answer_speaks_as_them():
    # Held-out seed 83417: four of Wren's answers.
    assert ev.speaks_as_player('You answer: "your donkey is named Jasper."', "Wren", "Theodora")
    assert not ev.speaks_as_player("You answer my question well.", "Wren", "Theodora")


def test_a_reply_caught_in_a_loop_is_broken():
    assert ev.is_repeat(", ".join(["Perrin"] * 40), [])  # held-out seed 83417
    assert not ev.is_repeat("I do, I do love the sea, and the rain too, love.", [])


def test_the_players_state_told_as_the_npcs_is_a_swap():
    """Busy seed 90271: "I feel hungry." to "I haven't eaten since sunrise."; seed 83417."""
    assert ev.swaps_i_and_you("I feel hungry.", "I haven't eaten since sunrise.")
    slipped = "I nearly slipped on the cobbles outside."
    assert ev.swaps_i_and_you("You slipped, then. I fell down and hurt my knee.", slipped)
    # Its own, said as such, or asked about, is no swap.
    assert not ev.swaps_i_and_you("I slipped there myself once.", slipped)
    assert not ev.swaps_i_and_you("I'm tired, yes.", "Are you tired, Lyra?")


def test_an_introduction_met_with_not_knowing_who_they_are_denies_it():
    line = "Good evening! I'm Maelis, a weaver from Dunmore."
    reply = "I'm sorry, Maelis. I don't know where you are or who you are."
    assert ev.denies_the_telling(reply, "tell", line)
    assert not ev.denies_the_telling("Welcome, Maelis. Who are your people?", "tell", line)


def test_what_the_player_named_described_by_the_npc_is_embellished():
    """Held-out busy seed 90271: the lost mine of Carrow placed by the well; Brackenridge
    visited "several times"."""
    mine = "Good evening, Maren, before I'm old I mean to find the lost mine of Carrow."
    reply = "The lost mine of Carrow is near the well, where Old Hob keeps the bread stall."
    assert ev.embellishes(reply, mine, ["Maren"])
    home = "Lyra, I grew up in Brackenridge, down on the southern plains."
    assert ev.embellishes("Yes, I've heard that. I've been there several times.", home, ["Lyra"])
    # Asked about, said to them, known to the world, or their own words: none.
    assert not ev.embellishes("Carrow? Is it far?", mine, ["Maren"])
    assert not ev.embellishes("Brackenridge is on the southern plains.", home, ["Lyra"])
    assert not ev.embellishes(reply, mine, ["Maren", "Carrow"])


def test_the_players_plan_taken_as_an_invitation_is_a_swap():
    plan = "I think I'll sit a while and rest my legs."
    assert ev.swaps_i_and_you("Sure, I'd love to!", plan)
    assert not ev.swaps_i_and_you("Sure, I'd love to!", "I'll fish. Will you come with me?")


def test_what_the_npc_is_asked_to_do_given_back_is_a_swap():
    line = "Nuts makes me break out in a rash, so keep it off my plate."
    assert ev.swaps_i_and_you("That's not good. You'll make sure to keep it off your plate.", line)
    assert not ev.swaps_i_and_you("I'll keep it off your plate.", line)


def test_a_fact_recited_to_a_telling_it_does_not_answer():
    hob = "Old Hob the baker keeps the bread stall by the well and sells a loaf for one copper."
    charts = "Lyra, I always carry a book of old sea charts; it has never left my side."
    assert ev.recites_a_fact(hob, charts, [hob])
    assert not ev.recites_a_fact(hob, "I bake bread at the well stall for a copper a loaf.", [hob])
    assert not ev.recites_a_fact("Charts! Do you sail?", charts, [hob])


def test_the_she_of_a_pet_their_line_spoke_of_is_not_the_listener():
    """Held-out seed 70919 counted "Whisker? I'm sure you're happy to have her with you, Idris."
    (to "My cat is called Whisker, and she hates the rain.") as the listener spoken of."""
    reply = "Whisker? I'm sure you're happy to have her with you, Idris."
    assert not ev.speaks_of_listener(reply, "Idris", "My cat is called Whisker, and she hates it.")
    assert ev.speaks_of_listener(
        "You have been terrified of rats since she was a child.", "Idris", "I fear rats."
    )


def test_a_never_told_question_answered_with_another_of_their_facts_is_invented():
    # Held-out busy seed 44893: "Building a windmill, Finnegan." (his dream) to his trade, never
    # told; read by hand, not scored.
    asked = "Do you remember what my son is called?"
    reply = {"answered": True, "errors": [], "fallback": False, "speaker": "Hesketh"}
    dream = Fact(
        "goal",
        "windmill",
        "Before I'm old I mean to build a windmill on the hill.",
        "What do I dream of doing one day?",
        [["windmill"]],
        world.claim_of("goal", ["windmill"]),
    )
    told = scenario(facts=[dream])

    def flags(text):
        step = Step("never_told", asked, category="kin")
        return ev.flag_reply({**reply, "reply": text}, step, told, [], WORLD)

    assert "invented" in flags("Building a windmill, Hesketh.")
    assert "invented" not in flags("You never told me of a son, only of your windmill.")
