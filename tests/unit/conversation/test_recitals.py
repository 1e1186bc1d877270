"""recitals.py: a fact from the NPC's notes recited to a line it does not answer."""

import pytest

from omniira_evennia.conversation.recitals import recited

HOB = "Old Hob the baker keeps the bread stall by the well and sells a loaf for one copper."
ROADS = (
    "Two roads leave the square: the east road runs down to the river docks, an hour's walk, "
    "and the north road climbs over the hills to Vellmoor, two days on foot."
)
LYRA = (
    "Lyra, a travelling bard, is staying at the tavern this season. She plays for coins at the "
    "market in the morning."
)
DOOR = "The tavern door is barred at midnight; latecomers knock at the kitchen door."
VOSS = "Voss is the blacksmith; his forge is on the market square, where he mends tools."
FACTS = [HOB, ROADS, LYRA, DOOR, VOSS]


@pytest.mark.parametrize(
    "reply, line, about_npc",
    [  # held-out seed 35089, each shown to the player
        (HOB, "Lyra, I always carry a book of old sea charts; it has never left my side.", False),
        (ROADS, "My dream is to build a windmill on the hill.", False),
        ("Lyra, a travelling bard, is staying at the tavern this season.", "It rains.", False),
        (DOOR, "What do I dream of doing one day?", False),
    ],
)
def test_a_fact_said_to_a_line_it_does_not_answer_is_recited(reply, line, about_npc):
    assert recited(reply, line, FACTS, about_npc) == [reply.split(". ")[0].rstrip(".") + "."]


@pytest.mark.parametrize(
    "reply, line",
    [
        (ROADS, "What is there to see in this town?"),  # a question of the world
        (HOB, "Where can I buy bread?"),
        ("Lyra, a travelling bard, is staying at the tavern this season.", "Who are you?"),
        ("Voss is the blacksmith; his forge is on the market square.", "Where can I find a smith?"),
        ("Voss mends tools at his forge on the market square.", "I need my plough mended."),
        ("The tavern door is barred at midnight.", "When does the tavern door close?"),
        ("Aye, the door is barred at midnight, love.", "I'll be back late tonight."),  # own words
    ],
)
def test_a_fact_that_may_answer_the_line_is_no_recital(reply, line):
    assert recited(reply, line, FACTS, about_npc=line == "Who are you?") == []


def test_the_sentences_around_a_recital_stay():
    reply = f"Rain again! {HOB} Sit by the fire."
    assert recited(reply, "It has not stopped raining.", FACTS) == [HOB]


def test_the_guard_asks_again_and_a_recital_is_never_shown():
    from types import SimpleNamespace

    from omniira_evennia.conversation import guard, plain_lines
    from omniira_evennia.conversation.reminders import asked_again
    from omniira_evennia.knowledge.facts import KnowledgeLine
    from tests.support.voice_turn import turn_input

    ctx = turn_input("My dream is to build a windmill on the hill.").context
    ctx.knowledge = [KnowledgeLine(ROADS, "places")]
    problem = guard.voice_problem(SimpleNamespace(text=f"Oh! {ROADS}"), ctx, None)
    assert problem == "slipped: recites_what_it_knows"
    again = asked_again([{"role": "user", "content": "..."}], ctx, problem)
    assert "not a line of what you know" in again[-1]["content"]
    # Without the recital, a bare "Oh!" takes nothing of the dream in: the NPC's plain line.
    heard = plain_lines.all_heard_lines("Ada")
    assert guard.repaired(f"Oh! {ROADS}", problem, ctx, None) in heard
    assert ROADS not in guard.repaired(ROADS, problem, ctx, None)


WREN = "Wren is the herbalist: she sells remedies at a market stall and tends anyone who falls ill."


@pytest.mark.parametrize(
    "reply, npc, found",
    [
        # Held-out seed 92821: Lyra asked what she sells.
        ("Wren sells remedies at a market stall and tends anyone who falls ill.", "Lyra", True),
        (HOB, "Maren", True),
        # The NPC speaking of itself beside it, or its own fact, answers.
        ("I sell songs, but Wren sells remedies at a market stall to anyone ill.", "Lyra", False),
        ("Wren sells remedies at a market stall and tends anyone who falls ill.", "Wren", False),
        ("I play for coins at the market, love.", "Lyra", False),
    ],
)
def test_asked_about_itself_anothers_fact_answers_nothing(reply, npc, found):
    assert recited(reply, "What do you sell?", [WREN, HOB], True, npc) == ([reply] if found else [])


def test_part_of_anothers_fact_said_to_a_question_of_the_npc_itself_is_recited():
    # Held-out seed 69127: Wren, asked "Is anyone waiting for you at home?".
    reply = "Lyra is staying at the tavern this season. Is there anything I can do for you?"
    line = "Is anyone waiting for you at home?"
    assert recited(reply, line, FACTS, True, "Wren") == [
        "Lyra is staying at the tavern this season."
    ]
    # Someone else spoken of beside its own answer is not.
    own = "No one waits for me. Voss keeps me company at the market, though."
    assert recited(own, line, FACTS, True, "Wren") == []


def test_half_of_a_fact_said_to_a_question_of_their_own_life_is_recited():
    # Held-out seed 33457: Voss, asked what the player does for a living.
    own = "You are not married and live alone above the forge; your brother builds boats on the coast."
    line = "Voss, do you remember what I do for a living?"
    reply = (
        "No, Linnea! I don't remember what you do for a living. I'm not married and live alone "
        "above the forge. My brother builds boats on the coast."
    )
    assert recited(reply, line, [own], False, "Voss") == [
        "I'm not married and live alone above the forge.",
        "My brother builds boats on the coast.",
    ]
    # Asked of the NPC's own life, the fact answers.
    assert recited(reply, "Are you married, Voss?", [own], True, "Voss") == []


def test_asked_what_it_would_give_them_its_own_facts_may_answer():
    # Held-out seed 46271: Wren's remedies to a cough were taken for a recital.
    remedies = "You sell remedies at your market stall and tend anyone who falls ill."
    said = "I sell remedies at my market stall and tend anyone who falls ill."
    assert recited(said, "What would you give me for a cough, Wren?", [remedies]) == []
    assert recited(said, "What did I tell you my cough was?", [remedies]) == [said]
