"""embellishments.py: what the player named, described by an NPC that knows nothing of it."""

import pytest

from omniira_evennia.conversation import embellishments, guard, plain_lines
from omniira_evennia.conversation.embellishments import invented_about, unknown_names
from omniira_evennia.conversation.prompts import Identity, MemoryLine, PromptContext
from omniira_evennia.conversation.turn import run_turn
from tests.support.voice_turn import FakeClient, conf, turn_input

MINE = "Good evening, Maren, before I'm old I mean to find the lost mine of Carrow."
HOME = "Lyra, I grew up in Brackenridge, down on the southern plains."


def invented(reply, line, known=""):
    return invented_about(reply, line, known, line, ("Maren", "Lyra"))


def test_the_names_of_their_line_the_npc_does_not_know():
    assert unknown_names(MINE, "", ("Maren",)) == ["carrow"]
    assert unknown_names(HOME, "Brackenridge lies south.", ("Lyra",)) == []
    assert unknown_names("I'm Ada. Rats scare me.", "", ("Ada",)) == []  # theirs, a first word


@pytest.mark.parametrize(
    "reply, line, expected",
    [
        (  # held-out busy seed 90271: the place, and what goes on about it
            "The lost mine of Carrow is near the well, where Old Hob keeps the bread stall. It is "
            "a secret mine found by the villagers. Good luck!",
            MINE,
            [
                "The lost mine of Carrow is near the well, where Old Hob keeps the bread stall.",
                "It is a secret mine found by the villagers.",
            ],
        ),
        (  # busy seed 90271: having been there
            "Yes, I've heard that. I've been there several times. It's a beautiful place.",
            HOME,
            ["I've been there several times.", "It's a beautiful place."],
        ),
        (  # seed 48527
            "Sedgewick was a beautiful place, with its beaches and rolling hills.",
            "I grew up in Sedgewick, on the coast.",
            ["Sedgewick was a beautiful place, with its beaches and rolling hills."],
        ),
        (  # held-out seed 44207: described beside "you"
            "Briarholt is a beautiful village in the hill country, and you grew up there. It's "
            "a quiet place where you can enjoy the fresh air.",
            "I grew up in Briarholt, in the hill country.",
            [
                "Briarholt is a beautiful village in the hill country, and you grew up there.",
                "It's a quiet place where you can enjoy the fresh air.",
            ],
        ),
        # Asked about, said to them, their own words, or not known: all stay.
        ("Brackenridge? Is it far? You must miss it.", HOME, []),
        ("Brackenridge is on the southern plains, then.", HOME, []),
        ("I've never heard of Brackenridge. Welcome all the same.", HOME, []),
        # Not having seen whom they look for is no visit (bench/turn_share.py's reply).
        (
            "I have not seen Odile today, love. I haven't seen Odile since spring.",
            "Have you seen my sister Odile? She went towards the old mill.",
            [],
        ),
    ],
)
def test_a_reply_describing_what_it_never_heard_of(reply, line, expected):
    assert invented(reply, line) == expected


def test_what_the_npc_knows_of_the_place_it_may_say():
    known = "Carrow is an old mine near the well."
    assert invented("Carrow is an old mine near the well.", MINE, known) == []


def test_a_telling_met_with_a_description_is_mended_in_place_and_never_shows_it():
    client = FakeClient(
        "Carrow is near the well, where the baker keeps his stall.",
        "Carrow lies under the well. Good luck with it.",
    )
    result = run_turn(turn_input(MINE), conf("tags"), client)
    assert len(client.requests) == 1  # told something: mended, not asked again
    assert result.parsed.text == plain_lines.heard_line(MINE, "Ada") == "I hope you get there, Ada."


def test_a_question_met_with_a_description_is_asked_again_not_to_describe_it():
    line = "Maren, have you heard of the lost mine of Carrow I mean to find?"
    client = FakeClient(
        "Carrow is near the well, where the baker keeps his stall.",
        "Carrow? Never heard of it, Ada. Good luck with it.",
    )
    result = run_turn(turn_input(line), conf("tags"), client)
    assert "do not describe it" in client.requests[1]["messages"][-1]["content"]
    assert result.parsed.text == "Carrow? Never heard of it, Ada. Good luck with it."


def test_sorrow_for_what_they_told_is_no_description():
    """Replayed held-out news: "I'm sorry to hear about Essa's purse." stays."""
    line = "Terrible news, Lyra: Essa the goose girl lost her purse at the ferry crossing."
    assert invented("I'm sorry to hear about Essa's purse.", line) == []


@pytest.mark.parametrize(
    "reply, line, remembered, expected",
    [
        (  # held-out seed 35089
            "Oh, yes, I remember. Tiberius was a wise man, Verity.",
            "You should know about my father, Tiberius: he lives alone out past the marsh road.",
            "",
            ["Oh, yes, I remember."],
        ),
        (  # held-out busy seed 90271
            "Yes, I've heard that. It's a long road.",
            HOME,
            "",
            ["Yes, I've heard that."],
        ),
        (  # telnet trial, 2026-12-08
            "So I hear, Oriel.",
            "I mend fishing nets down at the docks.",
            "",
            ["So I hear, Oriel."],
        ),
        ("Is that so, Oriel? I'll remember that.", "I mend fishing nets.", "", []),
        # Told again what it holds, asked, or its own feeling: no claim.
        (
            "Yes, I remember that.",
            "My grandmother Odile comes at midsummer.",
            "Ada's grandmother Odile visits at midsummer.",
            [],
        ),
        ("I remember: your horse is Sprocket.", "Do you remember my horse?", "", []),
        (  # held-out seed 52391: a past together nobody told it of
            "That tin whistle is dear to you. It reminds me of the days we spent singing.",
            "Wren, my most precious possession is a tin whistle.",
            "",
            ["It reminds me of the days we spent singing."],
        ),
        ("I know that feeling well.", "I haven't slept in days.", "", []),
        (  # held-out seed 86753
            "I was just telling you that.",
            "My cloak is soaked through.",
            "",
            ["I was just telling you that."],
        ),
    ],
)
def test_a_telling_met_as_old_news(reply, line, remembered, expected):
    from omniira_evennia.conversation.embellishments import knew_it_already

    assert knew_it_already(reply, line, remembered) == expected


def test_a_bare_i_know_is_sympathy_not_old_news():
    from omniira_evennia.conversation.embellishments import knew_it_already

    slipped = "I nearly slipped on the cobbles outside."
    assert knew_it_already("I know, Dara. It's a bit slippery outside.", slipped, "") == []
    told = "Never put strawberries in anything you serve me: I'm allergic."
    assert knew_it_already("I know that, Corwin. I'll be careful.", told, "") == [
        "I know that, Corwin."
    ]


@pytest.mark.parametrize(
    "reply, known, untold",
    [
        # Held-out seed 33457: no grandmother had been told of yet.
        (
            "Oh, Fiora! That's very interesting. What do you think about your grandmother?",
            ["I came here from Dunmore, in the hill country."],
            True,
        ),
        # Wren's own grandmother given to them (held-out seed 52391).
        (
            "Did your grandmother teach you herb-lore?",
            ["Were you born around here?"],
            True,
        ),
        (
            "Your grandmother Cordelia never wrote back.",
            ["My grandmother Cordelia went east."],
            False,
        ),
        # A grandmother told is no mother told, and the other way round.
        ("Your mother is kind.", ["My grandmother Ada lives by the mill."], True),
        ("Who is your sister, then?", ["Who is my sister, do you recall?"], False),
        ("Your family must miss you.", ["I came from Dunmore."], False),
    ],
)
def test_their_kin_brought_up_that_nobody_told_of(reply, known, untold):
    assert bool(embellishments.their_kin_untold(reply, known)) is untold


def test_a_reply_naming_their_untold_kin_slips():
    ctx = PromptContext(
        identity=Identity("Wren", "herbalist"),
        speaker_name="Fiora",
        message="I came here from Dunmore, in the hill country.",
        memories=[MemoryLine("Fiora builds wheels for a living.")],
    )
    said = "Oh, Fiora! What do you think about your grandmother?"
    assert embellishments.THEIR_KIN_UNTOLD in guard.slips_of(said, ctx)
    ctx.memories.append(MemoryLine("Fiora's grandmother Cordelia went east with the soldiers."))
    assert embellishments.THEIR_KIN_UNTOLD not in guard.slips_of(said, ctx)
