"""A reply that says again what the NPC said before in the conversation (issue #24)."""

from omniira_evennia.conversation.guard import without_repeats
from omniira_evennia.conversation.prompts import Identity, PromptContext, Turn
from omniira_evennia.conversation.repeats import repeats_earlier, without_repeated

SCARY = "Oh no, Jory, I'm sorry to hear that. It must have been scary for you."


def test_a_whole_reply_or_a_long_sentence_said_before_is_a_repeat():
    assert repeats_earlier(SCARY, ["Goodbye.", SCARY])
    # Held-out seed 15511, busy: the same last sentence after a different opening.
    earlier = ["Oh no, Isolde. That's a sad thing. I can't let anyone see it."]
    assert repeats_earlier("Oh no, Isolde. That's so sad. I can't let anyone see it.", earlier) == (
        "i can't let anyone see it"
    )


def test_a_run_of_words_said_before_counts_across_sentences():
    """Maren opened three replies running with it (held-out seed 38261), each sentence short."""
    earlier = [
        "Oh, Fitzroy. That's quite a journey. You're just a tavern keeper, not a clothe maker."
    ]
    again = "Oh, Fitzroy. That's quite a journey. I'd try the stew tonight."
    assert repeats_earlier(again, earlier) == "oh fitzroy that's quite a journey"
    assert without_repeated(again, earlier) == "I'd try the stew tonight."
    assert repeats_earlier("Oh, Fitzroy. The stew is good tonight.", earlier) is None


def test_short_habits_and_new_lines_are_not_repeats():
    assert repeats_earlier("I'm sorry to hear that.", ["I'm sorry to hear that.", "Aye."]) is None
    # ... but said just before, word for word, it is a repeat (held-out seed 92821).
    assert repeats_earlier("Sure, I'll be right there.", ["Sure, I'll be right there."])
    assert repeats_earlier("Aye, love.", ["Aye, love."]) is None
    # ... but not a third time (held-out seed 40813: eight in a row).
    assert repeats_earlier("I'm sorry, Yara.", ["I'm sorry, Yara.", "I'm sorry, Yara."])
    assert repeats_earlier("Aye.", ["Aye.", "Aye.", "Aye."]) is None
    assert repeats_earlier("It rains most days here, Jory.", [SCARY]) is None
    assert repeats_earlier("x" * 50_000, ["x" * 50_000]) is None  # one long word, capped


def context(message, said_before):
    history = [Turn("user", "I have been terrified of crows."), Turn("assistant", said_before)]
    return PromptContext(
        identity=Identity("Voss", "blacksmith", "Gruff.", "You keep the forge."),
        speaker_name="Jory",
        message=message,
        history=history,
    )


def test_what_was_said_before_is_not_said_again_to_the_next_line():
    """Voss gave SCARY to a son on the barges, the weather and the town (held-out seed 15511)."""
    statement = context("I have a son called Rupert; he sails on the river barges.", SCARY)
    instead = without_repeats(SCARY, statement, None, None)
    assert instead != SCARY and "Jory" in instead  # the plain "heard" line
    question = context("Is the weather always like this here, Voss?", SCARY)
    assert without_repeats(SCARY, question, None, None) in {
        "Some days more than others, Jory.",  # a yes or no of its days (plain_lines)
        "It depends on the day, Jory.",
    }
    # Only the repeated sentence goes when something of its own is left.
    mixed = "It rains half the year here, Jory. It must have been scary for you."
    assert without_repeats(mixed, question, None, None) == "It rains half the year here, Jory."


def test_an_earlier_line_of_theirs_handed_back_is_restated_unless_asked_about():
    from omniira_evennia.conversation.repeats import handed_back

    def ctx(message):
        history = [
            Turn("user", "Maren, good evening. I'm a tanner by trade."),
            Turn("assistant", "Evening."),
        ]
        return PromptContext(
            identity=Identity("Maren", "tavern keeper", "Warm.", "You run the tavern."),
            speaker_name="Ferris",
            message=message,
            history=history,
        )

    back = "Good evening, Ferris. You're a tanner by trade."
    assert handed_back(back, ctx("What do you pour here?")) == ["restated"]
    assert handed_back("Cider and ale, love.", ctx("What do you pour here?")) == []
    # Asked about it, the answer may say it again.
    assert handed_back("You're a tanner by trade.", ctx("What is my trade?")) == []


def test_a_reply_to_the_line_before_and_not_to_this_one_is_asked_again():
    from omniira_evennia.conversation.repeats import ANSWERS_EARLIER, handed_back

    # Held-out busy seed 62477: Wren, told of a treasure after the onions.
    ctx = PromptContext(
        identity=Identity("Wren", "herbalist"),
        speaker_name="Horatio",
        message="The thing I treasure most is a book of old sea charts; it is all I have left.",
        history=[
            Turn("user", "Never put onions in anything you serve me: I'm allergic."),
            Turn("assistant", "I'll make sure not to serve onions to you."),
        ],
    )
    reply = "I'm sorry to hear that you're allergic to onions. I'll be careful with my recipes."
    assert handed_back(reply, ctx) == [ANSWERS_EARLIER]
    both = "Sea charts! And no onions with them, I promise, Horatio; you're allergic."
    assert handed_back(both, ctx) == []
    assert handed_back("Charts of the old coast? May I see them?", ctx) == []


def test_a_short_sentence_added_a_third_time_is_a_repeat_and_goes():
    # Held-out seed 83417: Voss ended three replies running with it.
    earlier = [
        "Yes, I do have family here. I'm Voss, a blacksmith.",
        "Yes, the forge is always hot. I'm Voss, a blacksmith.",
    ]
    reply = "You're welcome, Jessamy. I'm Voss, a blacksmith."
    assert repeats_earlier(reply, earlier) == "i'm voss a blacksmith"
    assert without_repeated(reply, earlier) == "You're welcome, Jessamy."
    assert repeats_earlier(reply, earlier[:1]) is None  # the second time is still a voice
