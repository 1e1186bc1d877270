"""repairs.py: a reply mended in place rather than asked for again."""

import pytest

from omniira_evennia.conversation import repairs
from omniira_evennia.conversation.repairs import own_name_as_mine
from omniira_evennia.conversation.turn import run_turn
from tests.support.voice_turn import FakeClient, conf, turn_input


@pytest.mark.parametrize(
    "reply, speaker, expected",
    [
        (
            "Linnea is from Redfern, in the hill country.",
            "Linnea",
            "You are from Redfern, in the hill country.",
        ),
        ("I know Maelis keeps a speckled horse.", "Maelis", "I know you keep a speckled horse."),
        ("Yes, Orla is saving to become mayor.", "Orla", "Yes, you are saving to become mayor."),
        ("Hello there. Dara grew up in Tarnow.", "Dara", "Hello there. You grew up in Tarnow."),
        ("Dara doesn't have a line of work.", "Dara", "You don't have a line of work."),
        # A "he" that can only be theirs is theirs (held-out seed 44207)...
        (
            "Leander has feared wolves since he was a child.",
            "Leander",
            "You have feared wolves since you were a child.",
        ),
        (
            "I remember that Niall treasures his wife's portrait, which he never lets out of his "
            "sight.",
            "Niall",
            "I remember that you treasure your wife's portrait, which you never let out of your "
            "sight.",
        ),
        # ... and whose would be unclear is left as said (the guard asks again).
        (
            "Leander met a man who has feared wolves since he was a child.",
            "Leander",
            "Leander met a man who has feared wolves since he was a child.",
        ),
        ("Yes, Niall loves her.", "Niall", "Yes, Niall loves her."),
        ("Niall gave him a coin.", "Niall", "Niall gave him a coin."),
        # Not the subject: left as said.
        ("Dara and I went fishing.", "Dara", "Dara and I went fishing."),
        # The subject of a clause (replayed held-out replies, seed 45119 and earlier).
        (
            "I do not know what Idris does for a living.",
            "Idris",
            "I do not know what you do for a living.",
        ),
        ("I'm not sure where Calla is from.", "Calla", "I'm not sure where you are from."),
        # Telnet trial, 2026-12-05: the name after the verb.
        ("I don't know what frightens Odalys.", "Odalys", "I don't know what frightens you."),
        (
            "I don't know what Rosalie is allergic to.",
            "Rosalie",
            "I don't know what you are allergic to.",
        ),
        (
            "I cannot tell you what Benedikt cannot eat.",
            "Benedikt",
            "I cannot tell you what you cannot eat.",
        ),
        # Held-out seed 19447: a bare possessive, and "never told" after a colon.
        (
            "I remember that Emrys' brother Godfrey visits at midsummer.",
            "Emrys",
            "I remember that your brother Godfrey visits at midsummer.",
        ),
        (
            "I know nothing about your life: Yara never told me.",
            "Yara",
            "I know nothing about your life: you never told me.",
        ),
    ],
)
def test_the_speaker_as_a_sentences_subject_is_spoken_to(reply, speaker, expected):
    """Replayed held-out replies: "Linnea is from Redfern" said to Linnea was asked for again
    (talking of the player to their face) though it is the right answer."""
    assert repairs.to_the_listener(reply, speaker, "Voss") == expected


@pytest.mark.parametrize(
    "reply, line, expected",
    [
        (  # held-out seed 19447, the run-on mended first
            "You're right, Leander. Rats can be a real threat.",
            "If you ever see me go pale, it's rats: I fear them more than anything.",
            "Rats can be a real threat.",
        ),
        (  # busy seed 90271
            "You're right, Finnegan. You're afraid of snakes.",
            "Wren, what am I afraid of?",
            "You're afraid of snakes.",
        ),
        (  # seed 94727: what is left is the player's claim, for give_back_claims
            "You're right, Zephyr, I cannot eat eggs.",
            "I cannot eat eggs; it makes me ill, so never put it in my food.",
            "I cannot eat eggs.",
        ),
        (  # seed 35089
            "That's true, Katriona. I'll remember that.",
            "I cannot eat milk; it makes me ill, so never put it in my food.",
            "I'll remember that.",
        ),
        # An opinion may be agreed with; agreement alone is left as said.
        (
            "You're right, the ale is good.",
            "The ale here is the best in the valley.",
            "You're right, the ale is good.",
        ),
        ("You're right.", "I fear rats.", "You're right."),
        ("Right you are.", "I fear rats.", "Right you are."),
    ],
)
def test_agreement_with_what_was_no_opinion_is_taken_off(reply, line, expected):
    assert repairs.without_hollow_agreement(reply, line) == expected


def test_a_claim_said_back_takes_their_memorys_they_along():
    """Held-out seed 35089: "I am afraid of wolves since they were a child."."""
    from omniira_evennia.conversation.claims import give_back_claims

    memory = "Zoltan has been terrified of wolves since they were a child."
    reply = "I am afraid of wolves since they were a child."
    assert give_back_claims(reply, ["What am I afraid of?"], [memory], "Zoltan", "Maren") == (
        "You are afraid of wolves since you were a child.",
        1,
    )


@pytest.mark.parametrize(
    "reply, kept",
    [
        ("Ask about it.", ""),  # held-out seed 52391, to news
        ("Sure, I'll ask about it.", ""),  # to "Could I get a room?"
        ("Answer me in your own words, then.", ""),
        (
            "I'll ask about it at the market tomorrow, love.",
            "I'll ask about it at the market tomorrow, love.",
        ),
    ],
)
def test_a_retrys_reminder_said_back_is_no_reply(reply, kept):
    from omniira_evennia.conversation.character_breaks import strip_character_breaks

    assert strip_character_breaks(reply, "Maren", "Dara")[0] == kept


def test_their_thing_as_the_npc_remembers_it_is_theirs_in_a_reply_to_them():
    """Held-out seed 52391: "You throw jugs and bowls on my wheel for a living, Piers."."""
    from omniira_evennia.conversation.claims import give_back_claims

    memory = "Piers throws jugs and bowls on his wheel for a living."
    reply = "You throw jugs and bowls on my wheel for a living, Piers."
    assert give_back_claims(reply, ["How do I earn my living?"], [memory], "Piers", "Voss")[0] == (
        "You throw jugs and bowls on your wheel for a living, Piers."
    )


@pytest.mark.parametrize(
    "reply, expected",
    [
        (  # held-out seed 92821, Wren asked what she sells
            "Wren's herb stall sells willow-bark tea for aches at two copper a twist.",
            "My herb stall sells willow-bark tea for aches at two copper a twist.",
        ),
        ("Come by at dawn. Wren's stall opens early.", "Come by at dawn. My stall opens early."),
        ("The tea at Wren's stall is good.", "The tea at my stall is good."),
        ("Voss's forge is hot.", "Voss's forge is hot."),  # another's, as it was
    ],
)
def test_its_own_name_in_the_possessive_is_my(reply, expected):
    assert own_name_as_mine(reply, "Wren", "Yvaine") == expected


def test_a_turn_shows_its_own_stall_as_mine():
    client = FakeClient("Maren's cider costs two copper a mug.")
    result = run_turn(turn_input("What do you pour?"), conf("tags"), client)
    assert result.parsed.text == "My cider costs two copper a mug."
