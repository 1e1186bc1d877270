"""
Replies players met in held-out busy seed 44893, each now met by a rule or a repair: "I am an
assistant" from a second try, a plain "No, there is no temple" taken for a parrot's answer,
"I never told you, Bram." to a never-told mother, its own nature given to the listener, "I don't
mind" to a fear, our own frame copied with "you" for the name, a dream taken for a trade.
"""

import pytest

from omniira_evennia.conversation import guard, handback, remembered, topics, voice
from omniira_evennia.conversation.character_breaks import strip_character_breaks
from omniira_evennia.conversation.prompts import Identity, PromptContext
from omniira_evennia.conversation.tags import ParsedReply

WREN = Identity(
    "Wren", "herbalist", "Kind, anxious and observant. Worries about everyone's health."
)


def problem_of(reply, line, identity=WREN, speaker="Gwendolyn"):
    ctx = PromptContext(identity=identity, speaker_name=speaker, message=line)
    return guard.voice_problem(ParsedReply(text=reply), ctx, None)


def test_an_assistant_saying_so_is_no_line_of_the_character():
    reply = (
        "I am sorry, but I do not know about temples. I am an assistant, not a religious expert."
    )
    assert strip_character_breaks(reply, "Maren", "Finnegan") == (
        "I am sorry, but I do not know about temples.",
        True,
    )
    assert problem_of("I'm an assistant.", "Is there a temple?") == "slipped: assistant_voice"


def test_a_flat_no_is_an_answer_not_the_question_turned_round():
    maren = Identity("Maren", "tavern keeper")
    assert (
        problem_of("No, there is no temple in town.", "Is there a temple in town?", maren) is None
    )
    turned = handback.question_turned_round
    assert not turned("No, there is no temple in town.", "Is there a temple in town?", ["Maren"])
    assert turned("I like the town.", "What do you like most about this town?", ["Maren"])


def test_never_telling_said_as_its_own_is_a_swap():
    found = voice.slips(
        "I never told you, Bram.", "Who is my mother, do you recall?", "Wren", "Bram", ""
    )
    assert "swaps_i_and_you" in found


def test_its_own_nature_given_to_the_listener_is_a_slip():
    line = "Good evening, Wren, nothing frightens me like heights."
    assert "gives_its_own_life" in problem_of("You are a woman who is anxious and observant.", line)
    assert problem_of("You are very kind, Gwendolyn. Heights are no shame.", line) is None


@pytest.mark.parametrize("reply", ["I don't mind, Fiora.", "I do not mind."])
def test_not_minding_a_fear_shrugs_it_off(reply):
    found = voice.slips(reply, "Nothing frightens me like crows.", "Maren", "Fiora", "")
    assert "shrugs_off_a_statement" in found


def test_our_frame_copied_with_you_for_their_name_is_said_as_ours():
    copied = 'You told me so, you: "Nothing frightens me like heights."'
    assert remembered.frame_said_plainly(copied, "Gwendolyn") == (
        'You told me so yourself, Gwendolyn: "Nothing frightens me like heights."'
    )


def test_a_dream_is_no_trade():
    dream = 'Finnegan said: "Before I\'m old I mean to build a windmill on the hill."'
    line = "Do you remember my line of work?"
    assert topics.answer_from(line, [dream], [], "Finnegan") is None
    assert topics.unknown_topic(line, [dream]) == "what you do for a living"
    trade = "Finnegan builds fishing boats at the slipway; he is a shipwright."
    assert topics.answer_from(line, [dream, trade], [], "Finnegan") == trade
