"""
Replies players met in held-out seed 38917 (idle), each now met by a rule or a repair: a good
answer to where to eat taken for a bard not knowing her wares, "as Wren, I" from a second
try, dismay at a cart overturned taken for dismay at nothing, pardon asked for an offence nobody
took, a help desk's "any other things".
"""

import pytest

from omniira_evennia.conversation import guard, voice
from omniira_evennia.conversation.character_breaks import strip_character_breaks
from omniira_evennia.conversation.prompts import Identity, PromptContext
from omniira_evennia.conversation.tags import ParsedReply
from omniira_evennia.knowledge.facts import KnowledgeLine

LYRA_WARES = ["A song costs one copper; for the dancing, the crowd passes a hat."]
MAREN_WARES = ["A mug of cider costs two copper.", "A bowl of mutton stew costs three copper."]


def context(npc, line, knowledge=(), speaker="Dorian"):
    return PromptContext(
        identity=Identity(npc, ""),
        speaker_name=speaker,
        message=line,
        knowledge=[KnowledgeLine(text, "trade") for text in knowledge],
    )


def problem_of(reply, ctx):
    return guard.voice_problem(ParsedReply(text=reply), ctx, None)


def test_where_to_eat_is_not_a_question_of_a_bards_wares():
    line = "What's the best place to eat around here, Lyra?"
    ctx = context("Lyra", line, LYRA_WARES)
    assert problem_of("The Lantern & Lane, for its mutton stew.", ctx) is None
    # Not knowing is still not knowing: the tavern keeper's own wares answer it.
    tavern = context("Maren", line.replace("Lyra", "Maren"), MAREN_WARES)
    assert problem_of("I do not know.", tavern) == guard.OWN_WARES
    menu = context("Maren", "What's on the menu tonight?", MAREN_WARES)
    assert problem_of("I don't know.", menu) == guard.OWN_WARES


@pytest.mark.parametrize(
    "reply, said",
    [
        (
            "I'm sorry, but as Wren, I don't know your cousin's name.",
            "I'm sorry, but I don't know your cousin's name.",
        ),
        ("As Wren, I cannot say.", "I cannot say."),
    ],
)
def test_its_own_name_in_an_assistants_as_is_taken_out(reply, said):
    assert strip_character_breaks(reply, "Wren", "Sable") == (said, True)
    # Its name elsewhere is left alone.
    assert strip_character_breaks("Known as Wren, she said.", "Lyra", "Sable")[1] is False


def test_dismay_at_a_cart_overturned_is_no_shrug():
    line = "Mildreth the priest's housekeeper had her cart overturned on the bridge, they say."
    assert "shrugs_off_a_statement" not in voice.slips(
        "Oh no, that's a terrible thing, Finnegan.", line, "Lyra", "Finnegan", ""
    )


@pytest.mark.parametrize(
    "line, slipped",
    [("My cloak is soaked through.", True), ("You laughed at my hat, Voss.", False)],
)
def test_pardon_for_an_offence_nobody_took_is_a_slip(line, slipped):
    reply = "Oh, sorry, Niall. I didn't mean to insult you."
    found = voice.slips(reply, line, "Voss", "Niall", "blacksmith")
    assert ("shrugs_off_a_statement" in found) is slipped


def test_asking_for_any_other_things_is_a_help_desk():
    ctx = context("Maren", "The road was full of pilgrims today.", speaker="Delphine")
    reply = "That's interesting. Did you hear any other things?"
    assert problem_of(reply, ctx) == "slipped: assistant_voice"
