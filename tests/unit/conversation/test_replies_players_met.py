"""
Replies players met in held-out seed 31079 (idle), each a rule or repair that now holds: the
prices to a treasure shown, a stray lead-in or quotation mark left of a repair, a bare yes to
news, an assistant's second try, a place described to whoever named it, a wrong "Yes" left
beside its own home, a call taken for talk about them.
"""

import pytest

from omniira_evennia.conversation import guard, voice
from omniira_evennia.conversation.character_breaks import strip_character_breaks
from omniira_evennia.conversation.embellishments import INVENTS_WHAT_THEY_NAMED
from omniira_evennia.conversation.prompts import Identity, PromptContext
from omniira_evennia.conversation.tags import ParsedReply
from omniira_evennia.conversation.wares import asked_own_wares, wares_line
from omniira_evennia.knowledge.facts import KnowledgeLine

VOSS_WARES = "At his forge Voss mends a tool for two copper and sells a good knife for one silver."
MAREN_WARES = [
    "A mug of cider costs two copper.",
    "A room upstairs costs five copper a night, breakfast included.",
]
LYRA_HOME = "You came to Wickham Cross with the spring thaw; you are from the river towns."


def context(npc, line, knowledge=(), own_life=(), speaker="Corvina"):
    return PromptContext(
        identity=Identity(npc, ""),
        speaker_name=speaker,
        message=line,
        knowledge=[KnowledgeLine(text, "trade") for text in knowledge],
        own_life=list(own_life),
    )


def problem_of(reply, ctx):
    return guard.voice_problem(ParsedReply(text=reply), ctx, None)


def test_a_treasure_shown_with_a_coin_in_its_name_does_not_ask_the_prices():
    line = "Voss, see this? It's a silver compass that was my grandfather's."
    ctx = context("Voss", line, [VOSS_WARES])
    assert asked_own_wares(ctx) == [] and wares_line(ctx) == ""
    asked = context("Voss", "How much for a knife, Voss? I need one.", [VOSS_WARES])
    assert wares_line(asked) == (
        "At my forge I mend a tool for two copper and sell a good knife for one silver."
    )


def test_the_ware_asked_of_comes_first():
    ctx = context("Maren", "I need a room. What does it cost?", MAREN_WARES)
    assert wares_line(ctx).startswith("A room upstairs costs five copper a night")


def test_their_name_said_to_them_before_a_colon_is_no_turn_of_theirs():
    reply = 'You told me so yourself, Elowen: "I grew up in Briarholt."'
    assert strip_character_breaks(reply, "Maren", "Elowen")[0] == reply
    invented = "Aye, love. Elowen: I also keep bees."
    assert strip_character_breaks(invented, "Maren", "Elowen")[0] == "Aye, love."


@pytest.mark.parametrize("left", ['"', "You told me so yourself,", "Aye:", "Well"])
def test_what_is_left_of_a_repair_must_say_something(left):
    assert not guard.says_something(left)
    assert guard.says_something("I hear you, Elowen.")


def test_an_own_fact_quoted_as_theirs_is_not_cut_to_a_stray_mark():
    ctx = context(
        "Maren",
        "Do you remember what I treasure most?",
        own_life=["You have kept the Lantern & Lane for twelve years."],
        speaker="Elowen",
    )
    reply = 'You told me so yourself, Elowen: "I have kept the Lantern & Lane for twelve years."'
    problem = problem_of(reply, ctx)
    assert problem is not None
    mended = guard.repaired(reply, problem, ctx, None)
    assert guard.says_something(mended) and "Lantern" not in mended


@pytest.mark.parametrize(
    "reply, line, slipped",
    [
        ("Yes, Elowen.", "Have you heard the news? Lyra got into a brawl and lost a tooth.", True),
        (
            "I did, Elowen. Poor Lyra!",
            "Did you hear? Lyra got into a brawl and lost a tooth.",
            False,
        ),
        ("Yes, Horatio.", "Is it always this busy, Maren?", False),
    ],
)
def test_a_bare_yes_to_news_takes_nothing_in(reply, line, slipped):
    ctx = context("Maren", line, speaker=reply.split()[-1].strip("."))
    assert ("shrugs_off_a_statement" in guard.slips_of(reply, ctx)) is slipped


@pytest.mark.parametrize(
    "reply",
    [
        "Oh, sorry, I didn't understand what you meant. Could you please rephrase your question?",
        "I don't want to tell you what I know, as I am not supposed to give information about "
        "your possessions.",
        "Yes, Xander, I am aware of the latest news.",
        "I'm sorry, Jericho, but onions can cause nausea.",
        "Yes, Idris. What are some things that interest you?",
    ],
)
def test_second_tries_in_an_assistants_voice_are_slips(reply):
    ctx = context("Voss", "I came here from Thornbury, in the hill country.", speaker="Xander")
    assert "assistant_voice" in guard.slips_of(reply, ctx)


def test_a_place_they_named_described_with_a_tag_question_is_made_up():
    ctx = context("Wren", "I grew up in Tarnow, on the coast.", speaker="Calla")
    reply = "Tarnow, Calla, is a beautiful town, isn't it?"
    assert INVENTS_WHAT_THEY_NAMED in guard.slips_of(reply, ctx)
    assert INVENTS_WHAT_THEY_NAMED not in guard.slips_of("Tarnow? Is it far, Calla?", ctx)


def test_its_home_misstated_is_answered_with_its_own_fact_not_the_yes_left():
    ctx = context("Lyra", "Have you always lived in this town?", own_life=[LYRA_HOME])
    reply = "Yes, Corvina. I've always lived in this town."
    problem = problem_of(reply, ctx)
    assert "misstates_its_own_home" in problem
    mended = guard.repaired(reply, problem, ctx, None)
    assert "river towns" in mended and not mended.startswith("Yes")


def test_a_name_called_with_an_endearment_is_said_to_them():
    reply = "Oh, sweet Idris! What a beautiful scarf you have."
    assert not voice.named_to_their_face(reply, "Idris", "Lyra")
    assert voice.named_to_their_face("I think Idris has a beautiful scarf.", "Idris", "Lyra")


def test_the_model_copying_the_frame_of_an_answer_from_memory():
    from omniira_evennia.conversation.plain_lines import frame_said_plainly
    from omniira_evennia.conversation.prompts import MemoryLine

    # A note read into the frame: said as the NPC says that memory.
    copied = 'You told me so yourself, Yara: "Yara has a little ferret named Quince."'
    assert (
        frame_said_plainly(copied, "Yara") == "I remember: you have a little ferret named Quince."
    )
    # Their own words in it: no slip when the words are theirs, one when they are not.
    theirs = 'You told me so yourself, Isolde: "I always carry a tin whistle."'
    ctx = context("Lyra", "What do I always carry with me?", speaker="Isolde")
    assert guard.voice_problem(ParsedReply(text=theirs), ctx, None) is not None
    ctx.memories = [MemoryLine('Isolde said: "I always carry a tin whistle."')]
    assert guard.voice_problem(ParsedReply(text=theirs), ctx, None) is None
