"""A question answered only with its own words turned round is asked again, never cut
(issue #24, point 3; handback.question_turned_round, guard.voice_problem)."""

import pytest

from omniira_evennia.conversation import guard, plain_lines, reminders
from omniira_evennia.conversation.handback import question_turned_round
from omniira_evennia.conversation.prompts import Identity, PromptContext
from omniira_evennia.conversation.reminders import TURNED_ROUND
from omniira_evennia.conversation.tags import ParsedReply
from omniira_evennia.knowledge.facts import KnowledgeLine


def lyra(line):
    return PromptContext(
        identity=Identity("Lyra", "travelling bard", "Bright.", "You play for coins."),
        speaker_name="Xander",
        message=line,
    )


# Held-out seed 77213, each counted as restated by the evaluation.
PARROTED = [
    ("What do you like most about this town?", "I like the town."),
    ("Do you ever tire of singing, Lyra?", "I don't tire of singing."),
    ("Have you had a long day, Lyra?", "Yes, Xander. I had a long day."),
]


@pytest.mark.parametrize("line, reply", PARROTED)
def test_a_question_said_back_as_its_answer_is_asked_again(line, reply):
    ctx = lyra(line)
    assert question_turned_round(reply, line, ["Lyra", "Xander"])
    assert guard.voice_problem(ParsedReply(text=reply), ctx, None) == TURNED_ROUND
    asked = reminders.asked_again([{"role": "user", "content": line}], ctx, TURNED_ROUND)
    assert "add something of your own" in asked[-1]["content"]
    assert reminders.REMINDER.search(asked[-1]["content"])  # never kept as a note


@pytest.mark.parametrize("line, reply", PARROTED)
def test_still_said_back_after_asking_again_it_stands(line, reply):
    # A parrot's answer is better than none: nothing is cut, no plain line replaces it.
    assert guard.repaired(reply, TURNED_ROUND, lyra(line), None) == reply


@pytest.mark.parametrize(
    "line, reply",
    [
        ("Do you ever tire of singing, Lyra?", "Never! A song keeps me warm on the road."),
        ("Have you always lived in this town?", "Yes, I have always lived in Wickham Cross."),
        ("Is there a temple in town?", "I don't know if there's a temple in town."),  # admits
        ("What do you sell?", "I sell nothing, love; I play."),
        ("I like the town.", "I like the town too."),  # told, not asked: handback.restates
    ],
)
def test_an_answer_with_its_own_words_or_an_admission_is_kept(line, reply):
    assert guard.voice_problem(ParsedReply(text=reply), lyra(line), None) != TURNED_ROUND


def test_never_told_it_may_say_the_question_back_as_not_knowing():
    line, reply = "Do you remember my goat's name?", "I remember your goat's name."
    assert guard.voice_problem(ParsedReply(text=reply), lyra(line), "goat") != TURNED_ROUND


def maren(line):
    return PromptContext(
        identity=Identity("Maren", "tavern keeper", "Warm.", "You run the tavern."),
        speaker_name="Tamsyn",
        message=line,
    )


def test_the_speakers_question_about_themselves_taken_as_the_npcs_is_a_swap():
    # Held-out seed 77213: "Could I get a room?" -> "Yes, I could get a room upstairs. ..."
    reply = "Yes, I could get a room upstairs. It costs five copper a night, breakfast included."
    ctx = maren("Could I get a room?")
    problem = guard.voice_problem(ParsedReply(text=reply), ctx, None)
    assert problem == "slipped: swaps_i_and_you"
    assert guard.repaired(reply, problem, ctx, None) == (
        "It costs five copper a night, breakfast included."
    )


@pytest.mark.parametrize(
    "reply", ["I can get you a room upstairs.", "Aye, a room is five copper a night."]
)
def test_the_npcs_own_offer_is_no_swap(reply):
    assert guard.voice_problem(ParsedReply(text=reply), maren("Could I get a room?"), None) is None


LOOP = ", ".join(["Perrin"] * 40) + ","  # held-out seed 83417, shown to the player as it was


def test_a_reply_caught_in_a_loop_is_asked_again_and_never_kept():
    ctx = maren("Maren, one thing: I can't touch honey, it makes me sick.")
    assert guard.voice_problem(ParsedReply(text=LOOP), ctx, None) == guard.LOOPED
    # Of two tries, a loop is the worse whatever the other's faults.
    assert guard.badness(LOOP, ctx) > guard.badness("You're Maren, a tavern keeper.", ctx)
    mended = guard.repaired(LOOP, guard.LOOPED, ctx, None)
    assert "Perrin, Perrin" not in mended and mended


def test_a_loop_to_a_question_becomes_the_npcs_unsure_line():
    ctx = maren("What do you charge, Maren?")
    mended = guard.repaired(LOOP, guard.LOOPED, ctx, None)
    assert "Perrin, Perrin" not in mended and mended


def test_asked_its_prices_a_reply_past_mending_becomes_its_wares():
    # Held-out seed 83417: "I couldn't rightly say, Perrin." to "What do you charge, Maren?"
    ctx = maren("What do you charge, Maren?")
    ctx.knowledge = [KnowledgeLine("A mug of cider costs two copper.", "trade")]
    assert guard.repaired(LOOP, guard.LOOPED, ctx, None) == "A mug of cider costs two copper."


def test_told_something_a_reply_past_mending_says_it_heard():
    ctx = maren("The road was full of pilgrims today.")
    mended = guard.repaired("You're sorry, but you don't know.", "narration only", ctx, None)
    assert mended == plain_lines.heard_line(ctx.message, "Tamsyn")
    assert mended != plain_lines.unsure_line(ctx.message, "Tamsyn")


@pytest.mark.parametrize(
    "reply, taken",
    [
        ("The stew smells good. I'll order it.", True),  # telnet trial, 2026-12-06
        ("I'll have one myself, then.", True),
        ("Aye, four copper a bowl. I'll bring it over.", False),
        ("I'll get one for you.", False),
    ],
)
def test_asked_for_a_bowl_the_npc_ordering_it_itself_is_a_swap(reply, taken):
    problem = guard.voice_problem(
        ParsedReply(text=reply), maren("Could I get a bowl of stew?"), None
    )
    assert (problem == "slipped: swaps_i_and_you") is taken
