"""
Replies players met in held-out seed 51263 (idle), each now a slip: "I never told him about it."
to a newcomer's never-told fear (their not telling, said as the NPC's and of them), and a help
desk's "You're welcome to ask anything you like" to a question of their food; their name said
as a sentence of its own ("Quill. You grew up ...").
"""

import pytest

from omniira_evennia.conversation import voice
from omniira_evennia.conversation.registers import ASSISTANT
from omniira_evennia.conversation.repairs import to_the_listener


@pytest.mark.parametrize(
    "line, swapped, said",
    [
        # A newcomer's never-told fear.
        (
            "Lyra, what did I tell you scares me most?",
            "I never told him about it.",
            "You never told me, Gareth.",
        ),
        # Held-out seed 73529: their telling said back as its own.
        (
            "What did I tell you scares me most?",
            "I told you it was deep water, Gareth.",
            "You told me it was deep water, Gareth.",
        ),
    ],
)
def test_their_telling_or_not_telling_said_as_its_own_is_a_swap(line, swapped, said):
    assert "swaps_i_and_you" in voice.slips(swapped, line, "Lyra", "Gareth", "bard")
    assert "swaps_i_and_you" not in voice.slips(said, line, "Lyra", "Gareth", "bard")


def test_welcome_to_ask_anything_is_a_help_desk():
    reply = "You're welcome to ask anything you like, but remember, I'm just a storyteller."
    assert ASSISTANT.search(reply)
    assert not ASSISTANT.search("You're welcome here, Jory, anytime.")


def test_their_name_said_as_a_sentence_of_its_own_calls_them():
    # "Quill. You grew up in the hill country, in Frosthollow." (twice in the run)
    said = to_the_listener(
        "Quill. You grew up in the hill country, in Frosthollow.", "Quill", "Lyra"
    )
    assert said == "Quill, you grew up in the hill country, in Frosthollow."
    assert to_the_listener("Quill. Aldous runs the town.", "Quill", "Lyra") == (
        "Quill, Aldous runs the town."
    )
    assert to_the_listener("Quill.", "Quill", "Lyra") == "Quill."
