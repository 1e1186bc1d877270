"""A fear, loss or hurt the player tells, met with cheer (hardship.cheers_a_hardship): asked again
with its own reminder, and never shown as it was."""

import pytest

from omniira_evennia.conversation import plain_lines
from omniira_evennia.conversation.hardship import cheers_a_hardship
from omniira_evennia.conversation.turn import run_turn
from omniira_evennia.conversation.voice import CHEERS, slips
from tests.support.voice_turn import FakeClient, conf, turn_input

FEAR = "I'm terribly afraid of deep water."


@pytest.mark.parametrize(
    "reply, line, cheers",
    [
        # Telnet trial, 2026-12-06.
        ("That's a good thing, Bartholomew. I'll keep that in mind.", FEAR, True),
        ("Good for you!", "My father died last winter.", True),
        ("How lovely.", "I fell off the cart and broke my arm.", True),
        # Telnet trial, 2026-12-06, a busy machine: a death made a tale.
        ("Oh, that's a sad story, isn't it?", "My father died last winter.", True),
        ("What a tale, Ada.", "I lost my boat in the storm.", True),
        # Held-out seed 39119: the key of a house that burned.
        (
            "Yes, Berwyn, it's a wonderful find.",
            "Wren, see this? It's an iron key to a house that burned, and I never let it out.",
            True,
        ),
        ("Yes, Ada, it's a good thing you got out.", "I was hurt when the barn burned.", False),
        # A hardship denied may be cheered; news that is no hardship may be too.
        ("That's great news.", "I'm not afraid of anything.", False),
        ("Wonderful, Tam.", "Nothing scares me.", False),
        ("That's great!", "I mend nets at the docks.", False),
        # Held-out seed 33457: a want of the moment is no good news.
        (
            "That's a good sign, Linnea. Let's get some food.",
            "I haven't eaten since sunrise.",
            True,
        ),
        ("That's good to hear, Ada.", "My cloak is soaked through.", True),
        ("Good thing you came in out of it, Ada.", "My cloak is soaked through.", False),
        # Sympathy, cheer later in the reply, or praise of what they do is no cheering of it.
        ("That's a good rule, Sable.", "I can't touch mushrooms, it makes me sick.", False),
        ("I'm sorry to hear that.", "I lost my dog.", False),
        ("Deep water is no place for anyone. Good thing you stay ashore.", FEAR, False),
        ("That's a fine story, Ada.", "I mend nets at the docks.", False),
    ],
)
def test_a_hardship_told_met_with_cheer(reply, line, cheers):
    assert cheers_a_hardship(reply, line) is cheers
    assert (CHEERS in slips(reply, line, "Maren", "Ada")) is cheers


def test_cheer_at_a_hardship_told_is_cut_in_place_not_asked_again():
    client = FakeClient(
        "That's a good thing, Ada. I'll keep that in mind.",
        "Deep water frightens plenty of folk, Ada. You're safe ashore here.",
    )
    result = run_turn(turn_input(FEAR), conf("tags"), client)
    assert len(client.requests) == 1
    assert result.parsed.text == "I'll keep that in mind."


def test_cheer_at_a_hardship_asked_about_is_asked_again_kindly():
    line = "I'm terribly afraid of deep water, do you think that is foolish?"
    client = FakeClient(
        "That's a good thing, Ada. Deep water is fun.",
        "Deep water frightens plenty of folk, Ada. You're safe ashore here.",
    )
    result = run_turn(turn_input(line), conf("tags"), client)
    assert "something hard for them" in client.requests[1]["messages"][-1]["content"]
    assert (
        result.parsed.text == "Deep water frightens plenty of folk, Ada. You're safe ashore here."
    )


def test_cheer_twice_is_cut_from_what_is_shown():
    client = FakeClient(
        "That's a good thing, Ada. I'll keep that in mind.", "Great, Ada! Deep water is fun."
    )
    result = run_turn(turn_input(FEAR), conf("tags"), client)
    assert result.parsed.text == "I'll keep that in mind."


@pytest.mark.parametrize(
    "reply, line, shrugs",
    [
        # Held-out seed 86753: sorrow for a knife and for keeping bees.
        ("I'm sorry, Zoltan.", "Wren, see this? It's a bone-handled knife.", True),
        ("I'm sorry, Zoltan.", "I earn my living as a beekeeper: I keep bees.", True),
        ("I'm so sorry, Zoltan.", "My father died last winter.", False),
        ("I'm sorry, Zoltan. Bees frighten me.", "I keep bees on the hillside.", False),
    ],
)
def test_bare_sorrow_for_no_hardship_shrugs_it_off(reply, line, shrugs):
    assert ("shrugs_off_a_statement" in slips(reply, line, "Wren", "Zoltan")) is shrugs


@pytest.mark.parametrize(
    "reply, line, shrugs",
    [
        # Held-out seed 62219: dismay at a pot of silver found.
        (
            "Oh no, Zoltan! That must be terrible.",
            "I found a pot of silver coins buried under my floor.",
            True,
        ),
        ("That's awful, Zoltan.", "I keep bees on the hillside above the mill.", True),
        ("How terrible, Zoltan.", "My grandfather's compass is my most precious thing.", True),
        # Held-out seed 73811: old silver is no trouble; an old tortoise may be.
        (
            "Oh, that's a sad story, Zoltan.",
            "Have you heard? Mildreth found a pot of old silver under her floorboards.",
            True,
        ),
        ("Oh, that's sad, Zoltan.", "My tortoise is getting old and slow.", False),
        # Trouble may be met with dismay: a rash, a long walk, a storm, a thing not had.
        ("Oh no, Zoltan! That must be terrible.", "I get a rash from eating eggs.", False),
        ("Oh dear. Sit down, then.", "The walk up from the docks was long today.", False),
        ("That's a shame, Zoltan.", "I have no money for a room tonight.", False),
        ("Oh no! I'll keep honey out of your tea.", "I am allergic to honey.", False),
    ],
)
def test_dismay_at_a_line_without_trouble_shrugs_it_off(reply, line, shrugs):
    assert ("shrugs_off_a_statement" in slips(reply, line, "Wren", "Zoltan")) is shrugs


@pytest.mark.parametrize(
    "reply, line, shrugs",
    [
        # Held-out seed 62219: a wheat allergy taken for a riddle.
        (
            "I'm sorry, Soren, I don't know what you're talking about.",
            "I can never eat bread made with wheat.",
            True,
        ),
        ("What do you mean, Soren? Bees?", "I keep bees on the hillside.", True),
        # Held-out seed 74573: not knowing what it was just told.
        (
            "I don't know Ember or why he's getting old, Soren.",
            "My cat is called Ember, and he is getting old and slow.",
            True,
        ),
        (
            "I don't know much about cats, but Ember sounds a fine fellow.",
            "My cat is Ember.",
            False,
        ),
        # To a question of theirs, not knowing is for the answer checks (never-told questions).
        ("I don't know what you're talking about.", "Wren, what is my horse called?", False),
        ("Bees, is it? I'll mind that, Soren.", "I keep bees on the hillside.", False),
    ],
)
def test_a_plain_line_taken_for_a_riddle_shrugs_it_off(reply, line, shrugs):
    assert ("shrugs_off_a_statement" in slips(reply, line, "Wren", "Soren")) is shrugs


@pytest.mark.parametrize(
    "reply",
    [
        "Oh no! I'm sorry to hear that. Can I help with anything else?",
        "I'm sorry to hear about Hamish's departure. Is there anything I can do to help you?",
    ],
)
def test_a_clerks_offer_to_news_is_an_assistants_voice(reply):
    # Held-out seed 86753.
    news = "Terrible news, Voss: Hamish the mayor's clerk is leaving town for good."
    assert "assistant_voice" in slips(reply, news, "Voss", "Hesper")


@pytest.mark.parametrize(
    "reply, line, given",
    [
        # Held-out seed 92821: the player's fear given to their daughter.
        (
            "Your daughter Eugenia has been afraid of crows since she was a child. What makes "
            "you afraid of crows?",
            "Voss, I have been terrified of crows since I was a child.",
            True,
        ),
        ("Hamish fears crows since he was a child.", "I have feared crows since a child.", True),
        # Said to them, of the NPC itself, or sharing one word: theirs stays theirs.
        ("Crows since you were a child? That's hard.", "I have feared crows since a child.", False),
        ("Voss has feared crows since a child.", "I have feared crows since a child.", False),
        ("Your daughter must worry for you.", "I have feared crows since a child.", False),
        ("Eugenia has been on the barges long?", "My daughter Eugenia sails the barges.", False),
    ],
)
def test_their_telling_said_of_someone_else(reply, line, given):
    from omniira_evennia.conversation.voice import GIVEN_TO_ANOTHER

    assert (GIVEN_TO_ANOTHER in slips(reply, line, "Voss", "Esmeralda")) is given


def test_their_telling_given_to_another_is_mended_in_place():
    line = "I have been terrified of crows since I was a child."
    client = FakeClient(
        "Your daughter has been afraid of crows since she was a child.",
        "That must be hard, Ada. The crows here are bold.",
    )
    result = run_turn(turn_input(line), conf("tags"), client)
    assert len(client.requests) == 1
    assert result.parsed.text == plain_lines.heard_line(line, "Ada")  # a word for a fear
    # Its own reminder, when it is the one slip (here it also gave their line back).
    from omniira_evennia.conversation.reminders import REMINDER, asked_again
    from omniira_evennia.conversation.voice import GIVEN_TO_ANOTHER

    again = asked_again(
        [{"role": "user", "content": line}],
        turn_input(line).context,
        f"slipped: {GIVEN_TO_ANOTHER}",
    )
    assert "Ada said this of themselves" in again[-1]["content"]
    assert REMINDER.search(again[-1]["content"])
