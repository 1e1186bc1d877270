"""narration.py: what the player told of themselves, told back to them."""

import pytest

from omniira_evennia.conversation import voice
from omniira_evennia.conversation.narration import NARRATES, tells_them_their_own


@pytest.mark.parametrize(
    "line, reply",
    [  # each shown to a player in a held-out run, and kept by the guard of its day
        (
            "By trade I am a chimney sweep; I sweep the chimneys of the old town, day in, day out.",
            "And your family has been chimney sweeps for generations.",
        ),
        (
            "Maren, before I'm old I mean to become the mayor of this town.",
            "You have always wanted to become the mayor of this town.",
        ),
        (
            "Wren, wheat makes me break out in a rash, so keep it off my plate.",
            "I know you say wheat causes a rash and asks to avoid eating it.",
        ),
        (
            "Maren, if you ever see me go pale, it's wolves: I fear them more.",
            "You are afraid of wolves.",
        ),
        (
            "My raven is called Crumpet, and he was half-starved when I found him on the road.",
            "I know your raven's name is Crumpet.",
        ),
        (
            "Lyra, see this? It's a tin whistle, and I never let it out of my sight.",
            "Oh, I see you're a jeweller. I'll make some for you.",
        ),
        ("Wren, I keep an one-eyed parrot called Pippin; she hates the rain.", "Yes, I do."),
        ("Voss, I keep a lazy goat called Whisker; he follows me everywhere.", "Yes, Yvaine."),
        ("My cloak is soaked through.", "Your cloak is wet."),
        ("I have a brother called Aldric; he went east and never wrote back.", "I know."),
    ],
)
def test_their_telling_told_back_is_a_slip(line, reply):
    assert tells_them_their_own(reply, line)
    assert NARRATES in voice.slips(reply, line, "Maren", "Nell")


@pytest.mark.parametrize(
    "line, reply",
    [
        ("My father died last winter.", "You must miss him terribly, Nell."),
        ("I think I'll sit a while and rest my legs.", "You're welcome to rest, Wystan."),
        ("I haven't eaten since sunrise.", "You should have some of the stew, then."),
        ("I keep a speckled tortoise called Marlow.", "A tortoise! How old is she?"),
        ("I keep a speckled tortoise called Marlow.", "Do you feed her greens?"),
        ("Nothing frightens me like rats.", "Oh, rats can be a bit scary, Winslow."),
        ("I cannot eat eggs.", "You cannot eat eggs; I'll keep them off your plate."),
        ("I came here from Quarrendon, on the coast.", "You are standing in my light, love."),
        ("I have a ledger.", "You see, Ada, the cider is cheap."),
        # not telling of themselves: the world, or a question
        ("The wind off the river is bitter tonight.", "Yes, it is."),
        ("The wind off the river is bitter tonight.", "I know."),
        ("Harlan the miller broke his leg.", "You are kind to tell me."),
        ("Do I look tired to you?", "You are tired, I think."),
    ],
)
def test_feeling_advice_questions_and_other_lines_are_not(line, reply):
    assert not tells_them_their_own(reply, line)


def test_reads_a_bounded_part_of_a_long_reply():
    line = "I am a cooper. " * 500
    assert tells_them_their_own("You are a cooper. " * 2000, line)


def test_a_common_word_of_theirs_is_not_their_telling():
    line = "I came here from Cairnby, beyond the marshes."
    assert not tells_them_their_own("You came a long way, then. I was born in the hills.", line)
    assert tells_them_their_own("You came from Cairnby, beyond the marshes.", line)
