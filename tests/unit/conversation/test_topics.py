"""What a question asks about the speaker's own life, in the ways players ask it."""

import pytest

from omniira_evennia.conversation import topics

TOLD = {
    "food": "I cannot eat eggs, they make me ill.",
    "home": "I live in Vellmoor, by the river.",
    "fear": "I'm afraid of deep water.",
    "search": "I am looking for my brother Tam.",
    "trade": "By trade I am a shipwright; I build fishing boats at the slipway.",
    "plan": "I am saving for a boat of my own.",
    "treasure": "I treasure a tin whistle, all I have left of home.",
}


@pytest.mark.parametrize(
    "asked, kind",
    [
        ("What can't I eat?", "food"),
        ("What can I not eat?", "food"),
        ("What food can I not eat, Maren?", "food"),
        ("Do you remember what I cannot eat?", "food"),
        ("What is it I cannot eat?", "food"),
        ("Do you remember where I live?", "home"),
        ("Maren, do you know where I'm from?", "home"),
        ("Do you recall what I'm afraid of?", "fear"),
        ("Do you remember who I am looking for?", "search"),
        # Held-out seed 15511, busy: a newcomer told a made-up story of a necklace.
        ("Maren, do you remember what I treasure most?", "treasure"),
        ("Do you know what I always carry with me?", "treasure"),
        ("Do you remember what I'm saving for?", "plan"),
        # Held-out seed 26893: "your line" was never told, so "I do not know." three times.
        ("Do you remember my line of work?", "trade"),
        ("What is my profession, Maren?", "trade"),
    ],
)
def test_a_question_about_what_they_said_earlier_is_answered_from_their_words(asked, kind):
    """Telnet trial, 2026-12-03: "I cannot eat eggs" said three lines earlier in the same
    conversation, then "Do you remember what I cannot eat?" was answered "I don't know what
    Zephyra cannot eat.": the question was not recognised, so the earlier line was not put next
    to it."""
    told = TOLD[kind]
    assert topics.unknown_topic(asked, []) is not None  # never told: the NPC says so
    assert topics.unknown_topic(asked, [told]) is None
    assert topics.answer_from(asked, [], [told], "Zephyra") == told


@pytest.mark.parametrize(
    "line",
    [
        "I cannot eat eggs.",  # a statement, not a question
        "What can you not eat, Maren?",  # about the NPC
        "Do you remember what you told me?",
    ],
)
def test_lines_that_ask_nothing_about_the_speaker_have_no_topic(line):
    assert topics.asked_topic(line) is None


def test_a_trade_from_a_place_says_where_they_are_from():
    """Telnet trial, 2026-12-04: "Maren, where am I from?" was answered "I don't know where you
    are from." with "Brigid is a rope-maker from Harrowgate." in memory."""
    memory = "Brigid is a rope-maker from Harrowgate."
    assert topics.unknown_topic("Maren, where am I from?", [memory]) is None
    found = topics.answer_from("Maren, where am I from?", [memory], [], "Brigid")
    assert found == memory
    # Where a thing came from is no home.
    assert topics.unknown_topic("Where am I from?", ["Brigid heard it from the carter."])


def test_the_speakers_own_questions_do_not_make_their_trade_known():
    """Held-out seed 45119: Edda had asked Wren "What do you sell?" the day before, so "What is
    my trade, do you recall?" was taken as told ("sell") and Wren answered with her own trade,
    "I sell remedies at my market stall." What the speaker stated still counts."""
    from omniira_evennia.conversation.prompts import Identity, PromptContext, Turn
    from omniira_evennia.conversation.turn import known_to_npc

    def ctx(*lines):
        return PromptContext(
            identity=Identity("Wren", "herbalist", "Kind.", "You sell remedies."),
            speaker_name="Edda",
            message="What is my trade, do you recall?",
            history=[Turn("user", line) for line in lines],
        )

    asked = "What is my trade, do you recall?"
    assert topics.unknown_topic(asked, known_to_npc(ctx("What do you sell?"))) is not None
    told = ctx("What do you sell? I sell lamp oil myself.")
    assert topics.unknown_topic(asked, known_to_npc(told)) is None


def test_what_the_npc_holds_about_another_player_answers_nothing_about_this_one():
    """Held-out seed 91823: Lyra held "Jericho means to win the archery contest at midsummer";
    a newcomer's "what do I dream of doing one day?" was taken as told ("mean") and she answered
    with the town's roads. Only memories and beliefs about the speaker count as told."""
    from omniira_evennia.conversation.prompts import Identity, MemoryLine, PromptContext
    from omniira_evennia.conversation.turn import answer_in_view, known_to_npc

    asked = "Lyra, what do I dream of doing one day?"
    jericho = "Jericho means to win the archery contest at midsummer."

    def ctx(memories, beliefs=()):
        return PromptContext(
            identity=Identity("Lyra", "guard", "Watchful.", "You keep the gate."),
            speaker_name="Gwendolyn",
            message=asked,
            memories=memories,
            beliefs=list(beliefs),
        )

    others = ctx([MemoryLine(jericho, about_speaker=False)], ["Jericho dreams of glory."])
    assert topics.unknown_topic(asked, known_to_npc(others)) == "what you are hoping for"
    assert answer_in_view(others) is None
    own = ctx([MemoryLine("Gwendolyn means to sail to the isles one day.")])
    assert topics.unknown_topic(asked, known_to_npc(own)) is None
    believed = ctx([], ["Gwendolyn dreams of a farm of her own."])
    assert topics.unknown_topic(asked, known_to_npc(believed)) is None


def test_a_keepsake_of_home_says_nothing_of_where_home_is():
    # Held-out seed 36457: "Where am I from?" was answered with Merrick's iron key.
    from omniira_evennia.conversation.topics import answer_from

    key = "Merrick's iron key to a house that burned; it is all Merrick has left of home."
    assert answer_from("Where am I from, do you recall?", [key], [], "Merrick") is None
    home = "Home for Merrick is Cairnby, two weeks' ride to the west."
    assert answer_from("Where am I from, do you recall?", [key, home], [], "Merrick") == home


def test_what_makes_someone_ill_is_no_trade_and_their_not_telling_is_no_npcs():
    # Held-out busy seed 58873: "How do I earn my living?" was answered with a food that makes
    # Quill break out, and newcomers' questions with "I never told you what you do".
    from omniira_evennia.conversation import voice
    from omniira_evennia.conversation.topics import answer_from

    rash = "Shellfish makes Quill break out in a rash."
    assert answer_from("How do I earn my living, Voss?", [rash], [], "Quill") is None
    line = "Lyra, do you remember what I do for a living?"
    swapped = "I never told you what you do for a living."
    assert "swaps_i_and_you" in voice.slips(swapped, line, "Lyra", "Dorian")
    own = "I never told you what my brother does, did I?"
    assert voice.slips(own, "I wonder what your brother does.", "Lyra", "Dorian") == []


def test_a_treasure_that_names_kin_answers_what_they_treasure():
    # Held-out seed 73811: "I couldn't rightly say, Urien." with the flute remembered.
    from omniira_evennia.conversation.topics import answer_from

    flute = (
        'Urien said: "It\'s a wooden flute my mother carved, and I never let it out of my sight."'
    )
    assert answer_from("Do you remember what I treasure most?", [flute], [], "Urien") == flute
    # A kin's home is still not where they are from (seed 71359).
    kin = "Maelis's grandmother Eugenia lives alone out past the marsh road."
    assert answer_from("Where am I from?", [kin], [], "Maelis") is None


def test_a_no_to_a_question_asked_with_never_gives_the_answer():
    # Held-out seed 73811: "I will not put mushrooms in your food." was put aside for the
    # memory said plainly.
    from omniira_evennia.conversation.topics import gives_answer

    rash = "Kestrel has a rash from mushrooms, so she keeps it off her plate."
    line = "Maren, what must you never put in my food?"
    assert gives_answer("I will not put mushrooms in your food.", rash, line, "Kestrel")
    ghosts = "Nothing frightens Perrin like ghosts."
    assert not gives_answer(
        "You are not afraid of ghosts.", ghosts, "What am I afraid of?", "Perrin"
    )


def test_asked_for_a_name_a_reply_without_the_name_remembered_does_not_answer():
    from omniira_evennia.conversation.topics import answer_from, gives_answer

    # Held-out seed 33457: her name, Cordelia, was remembered and not said.
    cordelia = "Fiora's grandmother Cordelia went east with the soldiers and never wrote back."
    line = "Wren, who is my grandmother, do you recall?"
    assert answer_from(line, [cordelia], [], "Fiora") == cordelia
    went = "Grandma, your grandmother. You said she went east with the soldiers."
    assert not gives_answer(went, cordelia, line, "Fiora")
    assert gives_answer("Cordelia, who went east with the soldiers.", cordelia, line, "Fiora")
    # Held-out seed 29881.
    ysolde = "Emrys's grandmother is called Ysolde."
    line = "Do you remember what my grandmother is called?"
    assert not gives_answer("Yes, Emrys, I remember your grandmother.", ysolde, line, "Emrys")
    # Not asked for a name, the memory's other words answer.
    line = "Where did my grandmother go?"
    assert gives_answer("She went east with the soldiers.", cordelia, line, "Fiora")


def test_a_fear_said_without_what_is_feared_does_not_answer():
    from omniira_evennia.conversation.topics import gives_answer

    # Held-out seed 46271: "them" was rats.
    rats = 'Lavinia said: "If you ever see me go pale, it\'s rats: I fear them more than anything."'
    line = "What am I afraid of?"
    assert not gives_answer("You fear them more than anything, Lavinia.", rats, line, "Lavinia")
    assert gives_answer("Rats, Lavinia. You fear them more than anything.", rats, line, "Lavinia")


def test_a_town_alone_is_no_home():
    from omniira_evennia.conversation.topics import answer_from

    # Held-out seed 61507: "Where did I say I come from?", never told, was answered with where
    # she sweeps chimneys.
    sweep = "Viveka earns her living as a chimney sweep: she sweeps the chimneys of the old town."
    assert answer_from("Where did I say I come from?", [sweep], [], "Viveka") is None
    grew = "Viveka grew up in the town of Larkhaven."
    assert answer_from("Where did I say I come from?", [sweep, grew], [], "Viveka") == grew
