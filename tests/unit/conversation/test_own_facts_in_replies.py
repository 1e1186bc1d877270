"""Replies of held-out seed 97301 (a report run, 2026-12-07): the NPC's own facts said in its
prompt's words, the player's home and trade taken as the NPC's, "You tell you"."""

import numpy as np
import pytest

from omniira_evennia.conversation import guard, plain_lines, trades
from omniira_evennia.conversation.prompts import Identity
from omniira_evennia.conversation.turn import run_turn
from omniira_evennia.conversation.voice import slips
from omniira_evennia.knowledge.facts import KnowledgeRecord
from omniira_evennia.knowledge.selection import KnowledgeIndex, KnowledgeView
from tests.support.voice_turn import FakeClient, conf, turn_input

LYRA_SONGS = (
    "You sing the old river ballads, 'The Miller's Daughter' and 'Grey Gull Over the Weir', and "
    "play reels for dancing in the evenings."
)
WREN_HOME = (
    "You are from the hill country, where your grandmother taught you herb-lore; you came to "
    "town five springs ago."
)


LYRA_WHO = (
    "You are staying at the tavern this season; mornings and afternoons you play for coins at "
    "the market."
)


def lyra_asked(line):
    """A turn of Lyra's, her own facts in her knowledge (no memory, any embedding)."""
    records = [
        KnowledgeRecord(1, "who_lyra", LYRA_WHO, "people", scope="npc", scope_token="n1"),
        KnowledgeRecord(2, "lyra_songs", LYRA_SONGS, "trade", scope="npc", scope_token="n1"),
    ]
    matrix = np.full((2, 384), 0.05, dtype=np.float32)
    inp = turn_input(line)
    inp.context.identity = Identity("Lyra", "bard")
    inp.knowledge = KnowledgeView(groups=[KnowledgeIndex("n1", records, matrix, [True, True])])
    return inp


def test_asked_her_trade_her_own_fact_in_its_own_words_is_said_not_taken_for_a_recital():
    """Lyra's own fact, word for word as her knowledge has it, was taken for her prompt read
    out; the second try said "Now there's a question, Quill. I'm not sure." of her trade."""
    reply = (
        "I am staying at the tavern this season; mornings and afternoons I play for coins at the "
        "market."
    )
    client = FakeClient(reply, "Now there's a question, Ada. I'm not sure.")
    said = run_turn(lyra_asked("What's your line of work?"), conf("speech"), client).parsed.text
    assert plain_lines.in_own_voice(LYRA_WHO) in client.requests[0]["messages"][0]["content"]
    assert len(client.requests) == 1
    assert said == reply


def test_not_sure_of_her_own_trade_she_says_it():
    unsure = "Now there's a question, Ada. I'm not sure."
    client = FakeClient(unsure, unsure)
    said = run_turn(lyra_asked("What keeps you busy all day, Lyra?"), conf("speech"), client)
    assert len(client.requests) == 2
    assert said.parsed.text == plain_lines.in_own_voice(LYRA_WHO)
    assert "I play for coins at the market" in said.parsed.text


def test_the_instructions_read_out_are_still_a_recital_beside_its_facts():
    messages = [
        {
            "role": "system",
            "content": "Answer what the person talking to you just said in one to three short "
            "sentences, as yourself. " + LYRA_SONGS,
        }
    ]
    read_out = (
        "I answer what the person talking to you just said in one to three short sentences, "
        "as yourself."
    )
    assert guard.recites_the_prompt(read_out, messages, [LYRA_SONGS])
    own = "I sing the old river ballads, 'The Miller's Daughter' and 'Grey Gull Over the Weir'."
    assert guard.recites_the_prompt(own, messages)  # with nothing sayable, as before
    assert not guard.recites_the_prompt(own, messages, [LYRA_SONGS])


def test_their_home_given_as_its_own_without_an_i_is_a_misstated_home():
    line = "Where are you from, Wren?"
    names = ["Wren", "Talia"]
    gave = "From Brackenridge, two weeks' ride to the west."
    assert plain_lines.misstated_home(gave, line, [WREN_HOME], names) == [gave]
    own = "From the hill country, where my grandmother taught me herb-lore."
    assert plain_lines.misstated_home(own, line, [WREN_HOME], names) == []


def test_the_trade_they_gave_themselves_said_as_the_npcs_is_a_slip():
    line = "By trade I am a cobbler; I make and mend shoes, day in, day out."
    claimed = "Cobbler's trade is a fulfilling part of my life, Talia."
    assert trades.their_trade_as_mine(claimed, line) == [claimed]
    assert "claims_their_words" in slips(claimed, line, "Wren", "Talia")
    back = "A cobbler! You must know every boot in town, Talia."
    assert trades.their_trade_as_mine(back, line) == []
    assert trades.their_trade_as_mine("I need a new pair of boots.", line) == []
    assert trades.their_trade_as_mine("I'm a stranger too.", "I'm a stranger in town.") == []


def test_you_tell_you_is_a_swap():
    line = "Good evening, Lyra, my cat is called Pebble, and she hates the rain."
    reply = "You tell you that Pebble is a cat in your tavern who hates the rain."
    assert "swaps_i_and_you" in slips(reply, line, "Lyra", "Quill")
    fine = "You said you'd keep her in when it rains, Quill."
    assert "swaps_i_and_you" not in slips(fine, line, "Lyra", "Quill")


def test_their_plea_said_to_themselves_is_a_swap():
    # Held-out seed 74573: "please never laugh at me for it" given back as theirs.
    line = "Do you remember what frightens me, Maren?"
    reply = "Yes, you are deathly afraid of ghosts. Please don't laugh at you for it."
    assert "swaps_i_and_you" in slips(reply, line, "Maren", "Calla")
    fine = "Yes, you are deathly afraid of ghosts. Nobody here will laugh at you for it."
    assert "swaps_i_and_you" not in slips(fine, line, "Maren", "Calla")
    # A newcomer's question (the same run): the note of what it was never told, garbled.
    shown = "Lyra, see this? It's a tin whistle, and I never let it out of my sight."
    assert "swaps_i_and_you" in slips("You show you a tin whistle.", shown, "Lyra", "Jessamy")
    newcomer = "Maren, what did I tell you scares me most?"
    assert "swaps_i_and_you" in slips(
        "I never told me what scares her.", newcomer, "Maren", "Nerys"
    )


@pytest.mark.parametrize(
    "reply, line, ignored",
    [
        (
            "It's a busy day, isn't it?",
            "Eggs makes me break out in a rash, so keep it off my plate.",
            True,
        ),
        (
            "I'm just a blacksmith.",
            "I have a clever parrot named Whisker; she sleeps by my bed.",
            True,
        ),
        (
            "Aldous the reeve is the town's keeper, and he keeps the market rules and peace.",
            "Nuts makes me break out in a rash, so keep it off my plate.",
            True,
        ),
        (
            "Lyra is in trouble, Talia.",
            "I came here from Brackenridge, two weeks' ride west.",
            True,
        ),
        ("Is that so, Brielle? I'll remember that.", "My aunt Agatha sails on the barges.", False),
        (
            "It sounds a pretty place, with its green hills.",
            "I grew up in the hill country.",
            False,
        ),
        (
            "Mine too, Bryn. Sit by the fire a while.",
            "My knees ache whenever the rain comes.",
            False,
        ),
        ("Oh dear, poor thing.", "My tortoise was half-starved when I found her.", False),
        ("The barges are slow this time of year.", "My aunt Agatha sails on the barges.", False),
        ("Welcome to the Lantern & Lane.", "Good evening, Maren.", False),
        ("It leads to Vellmoor.", "Where does the road out of town lead?", False),
        ("I see the old stone bridge.", "The walk up from the docks was long for me.", True),
        ("I see. A long walk, then.", "The walk up from the docks was long for me.", False),
        (
            "Aye, it's a steep climb.",
            "The walk up from the docks was longer than I remembered.",
            False,
        ),
    ],
)
def test_a_telling_met_with_something_else_altogether_is_shrugged_off(reply, line, ignored):
    found = slips(reply, line, "Maren", "Talia")
    assert ("shrugs_off_a_statement" in found) is ignored


@pytest.mark.parametrize(
    "reply, line, swapped",
    [
        ("You have no idea what your most precious possession is.", "What do I treasure?", True),
        (
            "I don't know what you treasure most, you don't even know if you have anything.",
            "Do you remember what I treasure most?",
            True,
        ),
        ("You never told me what you treasure most, Talia.", "What do I treasure most?", False),
        ("I follow you, Talia.", "My horse is called Noodle, and he follows me everywhere.", True),
        ("A horse that follows you is a friend.", "My horse Noodle follows me everywhere.", False),
        ("It's a bit sad, but I still have her.", "I keep a cat called Inkpot; she is old.", True),
        ("I agree, Talia. I'll rest a little bit.", "I think I'll sit and rest my legs.", True),
        ("Rest as long as you like, Talia.", "I think I'll sit and rest my legs.", False),
        ("I'll bring you a stool.", "I think I'll sit and rest my legs.", False),
    ],
)
def test_their_not_knowing_and_their_animal_said_as_the_npcs_are_swaps(reply, line, swapped):
    assert ("swaps_i_and_you" in slips(reply, line, "Wren", "Talia")) is swapped


def test_the_notes_their_after_their_name_is_said_to_them_as_your():
    note = "Eggs makes Finnegan break out in a rash, so keep it off their plate."
    said = plain_lines.remembered_line(note, "Finnegan")
    assert said == "I remember: Eggs makes you break out in a rash, so keep it off your plate."
    assert plain_lines.remembered_line("The twins lost their dog.", "Finnegan").endswith(
        "their dog."
    )


def test_what_it_remembers_of_them_said_as_its_own_is_a_slip_their_quoted_words_are_not():
    from omniira_evennia.conversation.prompts import MemoryLine, PromptContext

    note = 'Talia said: "By trade I am a cobbler; I make and mend shoes, day in, day out."'
    ctx = PromptContext(
        identity=Identity("Wren", "herbalist"),
        speaker_name="Talia",
        message="Wren, what is my trade, do you recall?",
        memories=[MemoryLine(note)],
    )
    claimed = "It's a cobbler, isn't it? I make and mend shoes every day, just like you."
    assert dict(guard.knowing_slips(claimed, ctx))[trades.THEIRS_AS_MINE] == [
        "I make and mend shoes every day, just like you."
    ]
    quoted = f'You told me so yourself, Talia: "{note.split(": ", 1)[1].strip(chr(34))}"'
    assert dict(guard.knowing_slips(quoted, ctx))[trades.THEIRS_AS_MINE] == []
    third = "I am a cobbler too, Talia."
    ctx.memories = [MemoryLine("Talia is a cobbler.")]
    assert dict(guard.knowing_slips(third, ctx))[trades.THEIRS_AS_MINE] == [third]


# Held-out busy seed 18443, read while it ran (2026-12-07).
LYRA_YEARS = (
    "You came to Wickham Cross with the spring thaw; you are from the river towns to the south."
)
MAREN_YEARS = (
    "You have kept the Lantern & Lane for twelve years; you are from Wickham Cross, born and "
    "raised."
)


@pytest.mark.parametrize(
    "reply, line, own, wrong",
    [
        (
            "I have been in town for over a year now.",
            "How long have you been in town?",
            LYRA_YEARS,
            True,
        ),
        ("A couple of weeks now.", "How long have you been here, Lyra?", LYRA_YEARS, True),
        ("Since the spring thaw.", "How long have you been here, Lyra?", LYRA_YEARS, False),
        ("Twelve years this spring.", "How long have you kept this place?", MAREN_YEARS, False),
    ],
)
def test_a_year_or_a_couple_of_weeks_is_a_count_of_its_own_time(reply, line, own, wrong):
    assert bool(plain_lines.misstated_years(reply, line, [own])) is wrong


def test_all_its_life_here_from_one_who_came_here_misstates_its_home():
    said = "Yes, I have lived in this town all my life."
    line = "Have you always lived in this town?"
    assert plain_lines.misstated_home(said, line, [LYRA_YEARS], ["Lyra", "Niall"]) == [said]
    assert plain_lines.misstated_home(said, line, [MAREN_YEARS], ["Maren", "Niall"]) == []


@pytest.mark.parametrize(
    "reply, line, swapped",
    [
        (
            "I know about the red silk scarf that I love and cherish.",
            "The thing I treasure most is a red silk scarf; it has never left my side.",
            True,
        ),
        (
            "I see it as a reminder of my family, though I don't know what it means.",
            "I always carry a red silk scarf; it is all I have left of home.",
            True,
        ),
        (
            "A scarf like that is worth keeping close.",
            "I always carry a red silk scarf; it is all I have left of home.",
            False,
        ),
        (
            "I didn't think I would fall, but I did.",
            "I nearly slipped on the cobbles outside.",
            True,
        ),
        (
            "Mind the cobbles, they're slick tonight.",
            "I nearly slipped on the cobbles outside.",
            False,
        ),
    ],
)
def test_their_treasure_or_their_fall_said_as_the_npcs_is_a_swap(reply, line, swapped):
    assert ("swaps_i_and_you" in slips(reply, line, "Voss", "Ilsa")) is swapped


def test_a_bare_yes_to_a_question_of_its_own_life_is_mended_to_its_fact():
    kin = (
        "You are not married and live alone above the forge; your brother builds boats on the "
        "coast."
    )
    line = "Is anyone waiting for you at home?"
    assert plain_lines.forgets_own_life("Yes, Idris.", line, [kin]) == ["Yes, Idris."]
    told = "No, Idris. My brother builds boats on the coast."
    assert plain_lines.forgets_own_life(told, line, [kin]) == []
    assert plain_lines.forgets_own_life("Yes, Idris.", "Have you had a long day?", [kin]) == []


def test_the_notes_she_is_them_when_nobody_else_is_named():
    note = "Nell writes letters for folk who cannot for a living; she is a scribe."
    assert plain_lines.remembered_line(note, "Nell") == (
        "I remember: you write letters for folk who cannot for a living; you are a scribe."
    )
    pet = "Nell keeps a cat called Pebble; she is old."
    assert plain_lines.remembered_line(pet, "Nell").endswith("she is old.")


def test_all_they_have_left_is_all_you_have_left_said_to_them():
    note = "Ilsa always carries a red silk scarf; it is all they have left of home."
    assert plain_lines.remembered_line(note, "Ilsa") == (
        "I remember: you always carry a red silk scarf; it is all you have left of home."
    )
    twins = plain_lines.remembered_line("Ilsa says the twins are back; they are tired.", "Ilsa")
    assert twins.endswith("they are tired.")


def test_the_questions_own_words_back_about_its_own_life_are_mended_to_its_fact():
    """Held-out seed 39119: "Yes, Berwyn, I have family here." from Wren, whose grandmother is
    in the hill country."""
    kin = "You are not married; your grandmother still lives in the hill country."
    said = "Yes, Berwyn, I have family here."
    assert plain_lines.forgets_own_life(said, "Do you have family here?", [kin]) == [said]
    told = "My grandmother lives in the hill country, Berwyn."
    assert plain_lines.forgets_own_life(told, "Do you have family here?", [kin]) == []


# Held-out seed 39119 (a report run, 2026-12-07; fixed after it).


def test_asked_its_prices_its_own_wares_are_in_the_prompt_chosen_or_not():
    from omniira_evennia.conversation.turn_context import retrieve_knowledge
    from omniira_evennia.conversation.wares import asks_of_its_wares

    forge = "At his forge Voss mends a tool for two copper and sells a good knife for one silver."
    records = [KnowledgeRecord(1, "forge", forge, "trade", scope="npc", scope_token="n1")]
    view = KnowledgeView(
        groups=[KnowledgeIndex("n1", records, np.eye(1, 8, dtype=np.float32), [True])]
    )
    settings = conf("speech")
    settings.KNOWLEDGE_SLOTS = 0  # nothing chosen by retrieval
    for line, shown in [("What do you charge, Voss?", True), ("The wind is bitter.", False)]:
        inp = turn_input(line)
        inp.knowledge = view
        retrieve_knowledge(inp, settings, type("V", (), {"query": None})())
        assert ([k.text for k in inp.context.knowledge] == [forge]) is shown
        assert asks_of_its_wares(line) is shown


def test_born_in_the_town_it_only_came_to_misstates_its_home():
    lyra = (
        "You came to Wickham Cross with the spring thaw; you are from the river towns to the south."
    )
    said = "Yes, Araminta, I was born in Wickham Cross."
    line = "Were you born around here?"
    assert plain_lines.misstated_home(said, line, [lyra], ["Lyra", "Araminta"]) == [said]
    assert plain_lines.misstated_home(said, line, [MAREN_YEARS], ["Maren", "Araminta"]) == []
    own = "I was born in the river towns to the south."
    assert plain_lines.misstated_home(own, line, [lyra], ["Lyra", "Araminta"]) == []


@pytest.mark.parametrize(
    "reply, line, swapped",
    [
        ("I grew up in a fishing village on the coast.", "Which town did I grow up in?", True),
        ("You grew up in Saltmere, Urien.", "Which town did I grow up in?", False),
        (
            "I love Otis, Araminta. He's been my best friend forever.",
            "My tortoise is called Otis, and he is getting old and slow.",
            True,
        ),
        (
            "You are afraid of milk, as you remember.",
            "One thing: I can't touch milk, it makes me sick.",
            True,
        ),
    ],
)
def test_their_question_their_pet_and_the_npcs_remembering_turned_round_are_swaps(
    reply, line, swapped
):
    assert ("swaps_i_and_you" in slips(reply, line, "Voss", "Urien")) is swapped


def test_asked_what_it_likes_best_a_reply_with_nothing_of_it_is_mended_to_its_fact():
    likes = "Your favourite part of the day is a market morning, when the crowd stops to listen."
    line = "What do you like most about this town?"
    other = "The Lantern & Lane is a charming town with a great atmosphere and interesting history."
    assert plain_lines.forgets_own_life(other, line, [likes]) == [other]
    assert plain_lines.forgets_own_life("The crowds on a market morning.", line, [likes]) == []
    assert plain_lines.own_life_line(line, [likes]) == plain_lines.in_own_voice(likes)


def test_its_own_prices_said_of_itself_by_name_is_the_third_person():
    """Telnet trial, 2026-12-07, on a busy machine: Voss read his knowledge out of himself."""
    said = "At his forge, Voss charges two copper for a tool and one silver for a knife."
    assert "third_person_self" in slips(said, "Voss, what do you charge?", "Voss", "Ilsabet")
    assert "third_person_self" not in slips(
        "I charge two copper, Ilsabet.", "Voss, what do you charge?", "Voss", "Ilsabet"
    )


def test_over_a_decade_is_a_count_of_its_years_too():
    """Held-out seed 62219: "I've been here for over a decade, Osric." from Voss, nine years."""
    voss = "You came to Wickham Cross nine years ago and built the forge yourself."
    line = "Voss, how many years have you been doing this?"
    said = "I've been here for over a decade, Osric."
    assert plain_lines.misstated_years(said, line, [voss]) == [said]
    assert plain_lines.misstated_years("Nine years, Osric.", line, [voss]) == []


def test_cannot_provide_you_with_a_memory_is_an_assistants_voice():
    said = (
        "You haven't mentioned what you cannot eat, so I cannot provide you with a memory or an "
        "answer to your question."
    )
    assert "assistant_voice" in slips(
        said, "Maren, what can't I eat, do you remember?", "Maren", "Ada"
    )


def test_every_slip_reminder_is_known_as_a_reminder_and_never_kept_as_a_note():
    """The reminder of a claimed memory (trades.THEIRS_AS_MINE) was missing from REMINDER, so a
    note quoting it would have been kept."""
    from omniira_evennia.conversation import reminders

    for slip, template in reminders._SLIP_REMINDERS.items():
        said = template.format(name="Maren", speaker="Ada")
        assert reminders.REMINDER.search(said), slip


def test_a_home_told_truly_beside_another_place_of_its_life_is_no_misstatement():
    """Maren, asked if she always lived here: "I was born and raised in Wickham Cross, and I have
    kept the Lantern & Lane for twelve years." was asked again (held-out seed 58447), the inn
    taken for the home it claimed; the second try was "It's like a big playground for me"."""
    line = "Have you always lived in this town?"
    said = (
        "Yes, I have always lived in this town. I was born and raised in Wickham Cross, and I "
        "have kept the Lantern & Lane for twelve years."
    )
    assert plain_lines.misstated_home(said, line, [MAREN_YEARS], ["Maren", "Jericho"]) == []
    wrong = "I was born in Vellmoor, and I have kept the Lantern & Lane for twelve years."
    assert plain_lines.misstated_home(wrong, line, [MAREN_YEARS], ["Maren", "Jericho"]) == [wrong]
