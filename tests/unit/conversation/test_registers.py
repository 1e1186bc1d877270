"""An assistant's words, the prompt's words, and the NPC's own introduction to a telling: each a
slip of its voice (voice.slips), read off the held-out run of seed 71993."""

import pytest

from omniira_evennia.conversation.voice import slips

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
    ],
)
def test_a_person_speaking_of_their_memories_or_introducing_themselves_in_turn(reply, line, npc):
    assert slips(reply, line, npc, "Ulric") == []


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
