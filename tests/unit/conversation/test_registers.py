"""An assistant's words, the prompt's words, today's slang, what the world has not, and the NPC's
own introduction to a telling: each a slip of its voice, read off the held-out run of seed
71993."""

import pytest

from omniira_evennia.conf import DEFAULT_OUT_OF_WORLD_WORDS
from omniira_evennia.conversation import guard, reminders
from omniira_evennia.conversation.prompts import Identity, PromptContext
from omniira_evennia.conversation.registers import OUT_OF_WORLD
from omniira_evennia.conversation.voice import slips
from omniira_evennia.knowledge.facts import KnowledgeLine

RAIN = "It has not stopped raining since this morning."
PENDANT = "Good evening, Wren, my most precious possession is a pendant with a portrait of my wife."


@pytest.mark.parametrize(
    "reply, line, npc, slip",
    [
        (
            "Sorry, Winslow. You don't have enough information about Lyra or her presence.",
            RAIN,
            "Maren",
            "assistant_voice",
        ),
        (
            "Not sure, Winslow. My memories are not about birth.",
            "Were you born around here?",
            "Maren",
            "speaks_of_its_notes",
        ),
        (
            "I am Wren, a herbalist, living in Market Square.",
            PENDANT,
            "Wren",
            "shrugs_off_a_statement",
        ),
        (  # held-out seed 92821: an interviewer's questions
            "You mentioned your daughter sails the barges. How did this experience impact your "
            "life?",
            "My daughter Eugenia sails on the river barges.",
            "Voss",
            "assistant_voice",
        ),
        (
            "It was a long walk. Do you want to know more about the area?",
            "The walk up from the docks was longer than I remembered.",
            "Wren",
            "assistant_voice",
        ),
        (  # held-out seed 92821
            "I'm sorry, but as a blacksmith, I can't say what your ferret eats.",
            "I have a little ferret named Clover.",
            "Voss",
            "assistant_voice",
        ),
        (  # held-out busy seed 62477
            "I understand the situation, Delphine. Let me take care of that for you.",
            "Odo the ferryman fell off a ladder and broke his leg, they say.",
            "Voss",
            "assistant_voice",
        ),
        (
            "It may be a personal object or a piece of art that holds special meaning for you.",
            "Good evening, Lyra, my most precious possession is an iron key to a house that burned.",
            "Lyra",
            "assistant_voice",
        ),
        (  # telnet trial, 2026-12-07
            "That's true, Ilsa. Is there anything else on your mind?",
            "The rain has not let up all day.",
            "Maren",
            "assistant_voice",
        ),
        (  # held-out seed 46271: a counsellor's words to a soaked cloak
            "I understand that, Lavinia. Let's go back to the bar and talk about your thoughts "
            "and feelings.",
            "My cloak is soaked through.",
            "Maren",
            "assistant_voice",
        ),
        (  # held-out seed 61507, to a compass shown
            "I'm sorry, Desmond. I can't understand what you're trying to say.",
            "Wren, see this? It's a silver compass that was my grandfather's.",
            "Wren",
            "assistant_voice",
        ),
        (  # busy seed 52967, to a pendant treasured
            "You know so much about this town.",
            "The thing I treasure most is a pendant with a portrait of my wife.",
            "Maren",
            "assistant_voice",
        ),
        (  # busy seed 52967
            "You should investigate Petra's story, Winslow.",
            "Terrible news: Petra the gravedigger found a pot of old silver under her floorboards.",
            "Maren",
            "assistant_voice",
        ),
        (
            "I only know what I know about the world.",
            "Did you hear? Wren is leaving town for good at the end of the month.",
            "Maren",
            "speaks_of_its_notes",
        ),
        (  # held-out seed 33457: nothing was asked
            "I'm sorry, Fiora. I'm not sure what you are asking me about.",
            "Good evening, Wren, by trade I am a stonemason; I carve gravestones for the chapel.",
            "Wren",
            "assistant_voice",
        ),
        (
            "It's true, Ilsa.",
            "Lyra, I weave baskets from river willow for a living; I am a basket weaver.",
            "Lyra",
            "tells_them_their_own",
        ),
    ],
)
def test_words_no_person_in_the_world_says_slip(reply, line, npc, slip):
    assert slip in slips(reply, line, npc, "Winslow")


@pytest.mark.parametrize(
    "reply, line, npc",
    [
        ("My memories of that winter are cold ones.", "Do you remember the big snow?", "Maren"),
        ("I'm Wren, the herbalist. Welcome, Ulric.", "Good evening, I'm Ulric, a dyer.", "Wren"),
        ("I am Wren, the herbalist.", "Who are you?", "Wren"),
        ("I am Wren. I come from Wickham Cross.", "Where are you from, Wren?", "Wren"),
        ("A pendant with her portrait? Keep it close, Ulric.", PENDANT, "Wren"),
        # A person's words to what they were never told, not a help desk's.
        (
            "I don't know what you're talking about, Ulric.",
            "What did I tell you scares me?",
            "Wren",
        ),
    ],
)
def test_a_person_speaking_of_their_memories_or_introducing_themselves_in_turn(reply, line, npc):
    assert slips(reply, line, npc, "Ulric") == []


@pytest.mark.parametrize(
    "reply, shrugs",
    [
        # Telnet trial, 2026-12-06: their telling handed back as a question.
        ("I see, Odran. How about you?", True),
        ("That's unfortunate news, Odran. How about you?", True),
        ("Deep water? Then keep to the tavern side of the docks. And you?", False),
        ("I keep bees too, out past the mill, and they sting me daily. What about you?", False),
    ],
)
def test_their_telling_answered_with_how_about_you_shrugs_it_off(reply, shrugs):
    found = "shrugs_off_a_statement" in slips(
        reply, "I'm terribly afraid of deep water.", "Maren", "Odran"
    )
    assert found is shrugs


@pytest.mark.parametrize(
    "line",
    [
        "What's the best part of your day, Lyra?",
        "Lyra, I keep an one-eyed horse called Sorrel; he was half-starved when I found him.",
    ],
)
def test_a_bare_nod_to_a_telling_or_a_question_of_itself_shrugs_it_off(line):
    # Held-out seed 71993: "Ah, I see." to both.
    assert "shrugs_off_a_statement" in slips("Ah, I see.", line, "Lyra", "Yestin")
    assert slips("Ah, I see. Half-starved, poor thing!", line, "Lyra", "Yestin") == []


def test_a_bare_nod_with_their_name_shrugs_it_off():
    # Held-out seed 74573: "I see, Corwin." to a home told.
    line = "I came here from Kelmouth, beyond the marshes."
    assert "shrugs_off_a_statement" in slips("I see, Corwin.", line, "Voss", "Corwin")
    assert "shrugs_off_a_statement" not in slips(
        "I see, Corwin. Kelmouth is a long way off.", line, "Voss", "Corwin"
    )


@pytest.mark.parametrize(
    "reply, slang",
    [
        ("Oh, I see! That's very cool, Yestin. A special treasure.", True),  # seed 71993
        ("That's awesome!", True),
        ("No worries, sweetie.", True),
        ("Keep it somewhere cool and dry, Yestin.", False),
        ("The cool evening air will do you good.", False),
    ],
)
def test_todays_slang_is_no_voice_of_the_town(reply, slang):
    line = "See this? It's a silver compass that was my grandfather's."
    assert ("assistant_voice" in slips(reply, line, "Lyra", "Yestin")) is slang


NEWS = "Have you heard the news? Voss fell off a ladder and broke his leg."


def maren(line=NEWS, knowledge=()):
    return PromptContext(
        identity=Identity("Maren", "tavern keeper"),
        speaker_name="Winslow",
        message=line,
        knowledge=list(knowledge),
        out_of_world=list(DEFAULT_OUT_OF_WORLD_WORDS),
    )


def test_what_the_world_has_not_is_asked_again_and_past_mending_cut():
    # Held-out seed 71993: the news of Voss's leg.
    reply = "Oh no, poor Voss! I need to get to the hospital to help him."
    ctx = maren()
    assert OUT_OF_WORLD in guard.slips_of(reply, ctx)
    problem = guard.voice_problem(type("P", (), {"text": reply})(), ctx, None)
    assert problem == f"slipped: {OUT_OF_WORLD}"
    asked = reminders.asked_again([{"role": "user", "content": NEWS}], ctx, problem)
    assert "There is no such thing in your world, Maren" in asked[-1]["content"]
    assert guard.repaired(reply, problem, ctx, None) == "Oh no, poor Voss!"


@pytest.mark.parametrize(
    "line, known",
    [
        ("Is there a hospital in town?", []),  # asked: "No hospital here" is an answer
        (
            "Where can I get well?",
            [KnowledgeLine("The old hospital by the well is shut.", "place")],
        ),
    ],
)
def test_what_the_line_or_the_world_names_may_be_said(line, known):
    reply = "The hospital? Wren tends the sick at her stall."
    assert OUT_OF_WORLD not in guard.slips_of(reply, maren(line, known))


def test_a_game_of_another_age_sets_its_own_words():
    ctx = maren()
    ctx.out_of_world = []
    assert OUT_OF_WORLD not in guard.slips_of("I'll take him to the hospital.", ctx)


def test_an_essays_moral_and_a_weather_report_slip():
    # Held-out seed 71993.
    news = "Terrible news, Maren: Wren came down with the barge fever."
    moral = "I'm sorry to hear about Wren. It's always good to stay informed about our neighbors."
    assert "assistant_voice" in slips(moral, news, "Maren", "Zinnia")
    weather = "I'm not sure, Silas. But you can ask the market for the latest weather reports."
    asked = maren("Is the weather always like this here, Maren?")
    assert OUT_OF_WORLD in guard.slips_of(weather, asked)


@pytest.mark.parametrize(
    "reply, scripted",
    [
        ('You might say: "Well, Ulric, I\'ve been making barrels for the brewers."', True),
        ('Hm. You could tell them: "I make barrels."', True),
        ("You could say I'm a patient woman, Ulric.", False),
        ("You make barrels for the brewers, Ulric.", False),
        ("Say that again, Ulric?", False),
    ],
)
def test_a_line_written_for_the_player_to_say_speaks_as_them(reply, scripted):
    # Held-out seed 71993, to "Wren, how do I earn my living?"
    found = slips(reply, "Wren, how do I earn my living?", "Wren", "Ulric")
    assert ("speaks_as_player" in found) is scripted


@pytest.mark.parametrize(
    "reply, line, slip",
    [
        # Held-out seed 74573, each said by an NPC of the demo.
        (
            "What would you like to know about bees?",
            "I keep bees on the hillside.",
            "assistant_voice",
        ),
        (
            "You're welcome to explore the possibilities with me. Let's start by discussing the "
            "features needed for building a windmill on the hill.",
            "Voss, one day I want to build a windmill on the hill.",
            "assistant_voice",
        ),
        (
            "I'll keep an eye on the market square and the east road for any updates.",
            "The road was full of pilgrims today.",
            "assistant_voice",
        ),
        (
            "Can you tell me more about his habits and any other interesting aspects of his life?",
            "My horse is called Otis, and he hates the rain.",
            "assistant_voice",
        ),
        (
            "No, Araminta. I moved here in 2010.",
            "Have you always lived in this town?",
            "assistant_voice",
        ),
        (
            "Ammie, you said there's a mutton stew on the menu tonight.",
            "What's on the menu tonight?",
            "reports_the_line",
        ),
        (
            "Good point, Hesketh.",
            "Strawberries make me break out in a rash, so keep them off my plate.",
            "shrugs_off_a_statement",
        ),
    ],
)
def test_held_out_slips_of_seed_74573(reply, line, slip):
    assert slip in slips(reply, line, "Maren", "Hesketh")


@pytest.mark.parametrize(
    "reply, line",
    [
        ("I moved here twelve years ago, when the old keeper died.", "Have you always lived here?"),
        ("You said it yourself: the stew is good tonight.", "Do you remember what I said?"),
        ("Bees! What do they make of the cold?", "I keep bees on the hillside."),
        # Their own question about themselves answered with what they said (held-out 62219).
        ("You said you grew up in Pellham, in the hill country.", "Where did I say I come from?"),
    ],
)
def test_what_seed_74573s_slips_do_not_take(reply, line):
    assert slips(reply, line, "Maren", "Hesketh") == []


@pytest.mark.parametrize(
    "reply, line, slip",
    [
        # Held-out busy seed 81239.
        (
            "You have been here since the morning.",
            "I came here from Greywick.",
            "narrates_the_player",
        ),
        (
            "Yes, it is always this busy. Maren, you are always here, always ready.",
            "Is it always this busy, Maren?",
            "addresses_itself",
        ),
        (
            "Sorry, but I don't know what you mean.",
            "I haven't eaten since sunrise.",
            "shrugs_off_a_statement",
        ),
        (
            "I can't hear you.",
            "Gundred got into a brawl and lost a tooth.",
            "shrugs_off_a_statement",
        ),
        ("No crows frighten me at all.", "Nothing frightens me like crows.", "swaps_i_and_you"),
        (
            "Redfern? Mordecai, you've never heard of Redfern.",
            "Home for me is Redfern.",
            "swaps_i_and_you",
        ),
        (
            "The archery contest? You've never won a contest before.",
            "One day I want to win the archery contest at midsummer.",
            "swaps_i_and_you",
        ),
    ],
)
def test_held_out_slips_of_busy_seed_81239(reply, line, slip):
    assert slip in slips(reply, line, "Maren", "Mordecai")


@pytest.mark.parametrize(
    "reply, line",
    [
        ("You've never seen the like, I'll wager.", "I have never seen a bigger fish than this."),
        ("Crows? They frighten me too, love.", "Nothing frightens me like crows."),
        ("You have been here before, then?", "I came here from Greywick."),
    ],
)
def test_what_busy_seed_81239s_slips_do_not_take(reply, line):
    found = slips(reply, line, "Maren", "Mordecai")
    assert "swaps_i_and_you" not in found and "narrates_the_player" not in found


def test_a_recalled_name_or_home_said_as_the_wrong_ones_is_a_swap():
    # Held-out busy seed 81239, day two.
    named = slips("Your name is Pocket.", "Maren, what's the name of my dog?", "Maren", "Oswin")
    assert "swaps_i_and_you" in named
    own = slips("Your name is Oswin, love.", "Do you remember my name?", "Maren", "Oswin")
    assert "swaps_i_and_you" not in own
    home = "You said that I grew up in Briarholt, beyond the marshes."
    assert "swaps_i_and_you" in slips(home, "Where did I say I come from?", "Wren", "Tamsin")
    right = "You said you grew up in Briarholt, beyond the marshes."
    assert "swaps_i_and_you" not in slips(right, "Where did I say I come from?", "Wren", "Tamsin")


@pytest.mark.parametrize(
    "reply, line",
    [
        # Telnet trial, 2026-12-07 (fresh clone, the packaged model).
        (
            "I understand, Rowena. The rash from eating eggs is a common side effect of eating eggs.",
            "I cannot eat eggs, they give me a rash.",
        ),
        (
            "Oh, Thaddeus, that's a tragedy. I will make sure to watch out for fire hazards.",
            "Did you hear? Old Hob the baker burned his hand on the oven.",
        ),
        # Held-out busy seed 81239.
        ("That's a common problem with cloaks.", "My cloak is soaked through."),
    ],
)
def test_an_encyclopedias_or_safety_officers_words_are_an_assistants_voice(reply, line):
    assert "assistant_voice" in slips(reply, line, "Maren", "Rowena")


def test_a_common_thing_in_a_townsfolks_words_is_no_register():
    line = "I cannot eat eggs, they give me a rash."
    assert (
        slips("Eggs give half the town a rash, love. None for you.", line, "Maren", "Rowena") == []
    )
