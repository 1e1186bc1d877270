"""Asked of its own life past mending, the NPC says what it knows of itself (plain_lines.
own_life_line, guard.last_line): the small model had made it up ("About 25 years.") or taken
the player's home for its own ("Yes, I was born in Marrowby": held-out seed 92821)."""

import pytest

from omniira_evennia.conversation import guard, plain_lines
from omniira_evennia.conversation.prompts import Identity, PromptContext, Turn
from omniira_evennia.knowledge.facts import KnowledgeLine

WORK = "Your forge is on the market square, where you mend tools and make blades."
YEARS = "You are from the coast; you came to Wickham Cross nine years ago and built the forge."
KIN = "You live alone above the forge; your brother builds boats on the coast."
LIKES = "Your favourite part of the day is dawn at the quiet forge, before the market opens."
OWN = [WORK, YEARS, KIN, LIKES]


@pytest.mark.parametrize(
    "line, expected",
    [
        (
            "Were you born around here?",
            "I am from the coast; I came to Wickham Cross nine years " "ago and built the forge.",
        ),
        (
            "How long have you been here, Voss?",
            "I am from the coast; I came to Wickham Cross nine " "years ago and built the forge.",
        ),
        (
            "Have you any kin in town, Voss?",
            "I live alone above the forge; my brother builds " "boats on the coast.",
        ),
        (
            "What's the best part of your day?",
            "My favourite part of the day is dawn at the quiet " "forge, before the market opens.",
        ),
        (
            "Where were you raised?",
            "I am from the coast; I came to Wickham Cross nine years ago " "and built the forge.",
        ),
        # Not asked of it, or asked what no fact says: nothing.
        ("I was born in Marrowby.", ""),
        ("Is the forge always this hot?", ""),
    ],
)
def test_its_own_fact_answers_what_is_asked_of_its_life(line, expected):
    assert plain_lines.own_life_line(line, OWN) == expected


def test_what_was_taught_to_it_is_said_of_me():
    fact = "You are from the hill country, where your grandmother taught you herb-lore."
    assert plain_lines.in_own_voice(fact) == (
        "I am from the hill country, where my grandmother taught me herb-lore."
    )


def test_past_mending_the_npc_says_where_it_is_from_not_the_players_home():
    ctx = PromptContext(
        identity=Identity("Voss", "blacksmith"),
        speaker_name="Esmeralda",
        message="Were you born around here?",
        history=[Turn("user", "Good evening, Voss, I grew up in Marrowby, on the plains.")],
        knowledge=[KnowledgeLine(t, "people") for t in OWN],
    )
    reply = "Yes, I was born in Marrowby, on the plains."
    problem = guard.voice_problem(type("P", (), {"text": reply})(), ctx, None)
    # Not its home (plain_lines.misstated_home); and the turn gives it back first ...
    assert problem == f"slipped: {plain_lines.MISSTATES_ITS_HOME}"
    mended, claimed = guard.given_back(reply, ctx)
    assert claimed == 1 and "you were born in Marrowby" in mended
    # ... and asked again past mending, it is not turned back into the NPC's own.
    line = guard.repaired(mended, "slipped: answered_as_player", ctx, None)
    assert "Marrowby" not in line and line.startswith("I am from the coast")


def test_asked_what_it_does_its_work_not_how_long_it_has_done_it():
    ctx = PromptContext(
        identity=Identity("Voss", "blacksmith"),
        speaker_name="Dara",
        message="What do you do here?",
        knowledge=[KnowledgeLine(t, "people") for t in (YEARS, WORK)],
    )
    assert guard.last_line(ctx, None, None) == (
        "My forge is on the market square, where I mend tools and make blades."
    )


@pytest.mark.parametrize(
    "line, of_its_days",
    [
        ("Have you had a long day, Maren?", True),  # held-out seed 92821: "Hard to say, Thorne."
        ("Is the forge always this hot, Voss?", True),
        ("Do you ever tire of singing, Lyra?", True),
        ("What would you recommend tonight?", False),
        ("Do you remember what I do?", False),  # of theirs, not of its days
    ],
)
def test_a_yes_or_no_of_its_days_has_a_plain_answer(line, of_its_days):
    said = plain_lines.unsure_line(line, "Thorne")
    assert (said in ("Some days more than others, Thorne.", "It depends on the day, Thorne.")) is (
        of_its_days
    )


WREN_HOME = (
    "You are from the hill country, where your grandmother taught you herb-lore; you came to "
    "town five springs ago."
)
WREN_KIN = "You are not married; your grandmother still lives in the hill country."


def test_the_fact_that_holds_the_word_asked_answers_it():
    # Held-out seed 69127: "No, I am not married, Idris." was asked again, the grandmother's
    # herb-lore taken for the answer; the second reply was worse.
    assert plain_lines.own_life_fact("Are you married, Wren?", [WREN_HOME, WREN_KIN]) == WREN_KIN
    line = "Are you married, Wren?"
    assert (
        plain_lines.forgets_own_life("No, I am not married, Idris.", line, [WREN_HOME, WREN_KIN])
        == []
    )
    assert plain_lines.forgets_own_life("Yes, I am, Idris.", line, [WREN_HOME, WREN_KIN]) == [
        "Yes, I am, Idris."
    ]
    # A bare yes of a life alone still forgets it (held-out busy seed 18443).
    assert plain_lines.forgets_own_life("Yes, Idris.", "Is anyone waiting for you at home?", OWN)


def test_what_it_does_asked_as_what_is_it_you_do():
    # Held-out seed 50993: "I couldn't rightly say, Tamsin." from Lyra, who plays at the market.
    plays = "You are staying at the tavern this season; mornings you play for coins at the market."
    line = "Lyra, what is it you do?"
    assert plain_lines.own_life_fact(line, [plays]) == plays
    said = "I couldn't rightly say, Tamsin."
    assert plain_lines.forgets_own_life(said, line, [plays]) == [said]


def test_a_refusal_with_its_fact_at_hand_forgets_its_own_life():
    # Held-out busy seed 25463: Wren, asked if anyone waits for her at home.
    line = "Is anyone waiting for you at home?"
    said = "I'm sorry, Gareth. I can't tell you that. I haven't been home for a while."
    assert plain_lines.forgets_own_life(said, line, OWN) == ["I can't tell you that."]
    # Telling what she will not do is no refusal to answer.
    kept = "No one waits, Gareth. I can't tell you how quiet it is."
    assert plain_lines.forgets_own_life(kept, line, OWN) == []


def test_asked_how_long_an_answer_with_nothing_of_how_long_forgets_it():
    # Held-out seed 46271: Lyra came with the spring thaw.
    thaw = "You came to Wickham Cross with the spring thaw; you are from the river towns."
    line = "How long have you been here, Lyra?"
    vague = "I've been here for a while, Sable. I've been around town for a while."
    assert plain_lines.forgets_own_life(vague, line, [thaw])
    assert plain_lines.forgets_own_life("Since the spring thaw, Sable.", line, [thaw]) == []


def test_anyones_you_in_a_place_of_its_own_life_is_no_life_given():
    # Busy seed 52967: Voss's forge is on the market square, where the bread stall is too.
    forge = "Your forge is on the market square, where you mend tools and make blades."
    line = "Where can I buy bread around here?"
    bread = "The bread stall by the well in Market Square is where you can buy bread."
    assert plain_lines.own_life_given(bread, line, [forge]) == []
    given = "You mend tools at your forge on the market square."
    assert plain_lines.own_life_given(given, line, [forge]) == [given]


def test_kin_its_facts_do_not_hold_is_invented():
    # Held-out busy seed 62477: Maren, whose only kin is her sister Hilde.
    hilde = "Your only kin is your sister Hilde, who keeps a farm over the hills near Vellmoor."
    line = "Have you any kin in town, Maren?"
    invented = "Yes, Aurelie, I have a sister Hilde and a cousin Aldous."
    assert plain_lines.invented_kin(invented, line, [hilde]) == [invented]
    assert plain_lines.invented_kin("I have a brother in town.", line, [hilde])
    assert plain_lines.invented_kin("My sister Hilde keeps a farm.", line, [hilde]) == []
    # Not asked of its kin, not read.
    assert plain_lines.invented_kin(invented, "What do you sell?", [hilde]) == []


def test_a_greeting_alone_is_met_with_a_greeting():
    # Telnet trial, 2026-12-07 (a busy machine): "Is that so, Corwen? I'll remember that." to
    # "Good evening, Voss."
    assert plain_lines.heard_line("Good evening, Voss.", "Corwen") == "Good evening, Corwen."
    told = plain_lines.heard_line("Good evening, Voss, I mend nets for a living.", "Corwen")
    assert not told.startswith("Good evening")
