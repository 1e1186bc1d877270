"""
Grounding (issue #24, point 1): a fact about a person rests on their own statements, never on
their questions, the NPC's replies or someone else's words. The cases are what players met.
"""

import pytest

from omniira_evennia.memory.grounding import (
    MISNAMED,
    evidence,
    ground,
    is_question,
    statements,
)
from omniira_evennia.memory.quoting import garbled, names_nobody
from omniira_evennia.memory.sameness import may_restate, one_at_a_time


def self_ground(value, *lines, subject="Hesketh", npc="Maren"):
    return ground(value, list(lines), subject=subject, npc=npc)


@pytest.mark.parametrize(
    "value, lines",
    [
        ("Hesketh mends clocks for a living.", ["I'm a clockmaker, I mend clocks."]),
        ("Hesketh is afraid of deep water.", ["Honestly, I'm afraid of deep water."]),
        (
            "Hesketh is searching for his sister Odile near the old mill.",
            ["Maren, I'm looking for my sister Odile. She vanished near the old mill."],
        ),
        ("Hesketh cannot eat honey.", ["No honey for me, I cannot eat it."]),
        ("Hesketh comes from Vellmoor.", ["Evening!", "I come from Vellmoor, up the river."]),
        ("Hesketh's sister Odile went missing.", ["My sister Odile went missing last week."]),
        ("Hesketh breeds goats on the high fells.", ["I breed goats on the high fells."]),
        ("Hesketh has a horse called Bramble.", ["My horse is called Bramble."]),
    ],
)
def test_what_they_said_of_themselves_is_grounded(value, lines):
    result = self_ground(value, *lines)
    assert result.ok, result
    assert result.line and result.words


@pytest.mark.parametrize(
    "value, lines, why",
    [
        # He said deep water, never spiders.
        ("Hesketh is afraid of spiders.", ["I'm afraid of deep water."], "spiders"),
        # He was looking for her, not she for him.
        (
            "Hesketh's sister was looking for him.",
            ["I'm looking for my sister."],
            "other way round",
        ),
        # A question is no fact about the one who asks it.
        ("Hesketh has family here.", ["Do you have family here?"], "questions only"),
        # Never told.
        ("The name of Hesketh's horse is Quinny.", ["I ride a grey horse."], "quinny"),
        # The NPC's own trade, filed under the player.
        ("Hesketh sells remedies at a market stall.", ["I came to buy remedies."], "stall"),
        # Something said of the NPC, not of himself.
        ("Hesketh is a blacksmith.", ["You are a blacksmith, aren't you."], "questions only"),
        ("Hesketh asked what Maren pours.", ["What do you pour here?"], "question"),
        # A question turned round into a "memory" by the review (tuning run, seed 7349).
        (
            "Have Hesketh always lived in this town?",
            ["I have always lived in this town, you know. Have you?"],
            "question",
        ),
        # One common word of two is no ground: she asked Lyra about her day (held-out seed
        # 94727, kept by the review and drawn into a belief).
        (
            "Hesketh has had a long day.",
            ["I'm from Stonereach, on the coast; it's a long way from here."],
            "not in their words: day",
        ),
    ],
)
def test_what_they_never_said_of_themselves_is_not(value, lines, why):
    result = self_ground(value, *lines)
    assert not result.ok
    assert why in result.reason.lower(), result.reason


def test_a_fact_of_common_words_is_grounded_when_all_of_them_were_said():
    assert self_ground("Hesketh has had a long day.", "It's been a long day, I tell you.").ok
    assert self_ground("Hesketh has family here.", "I have family here, up the hill.").ok


def test_gossip_rests_on_the_tellers_words_about_the_subject():
    told = ["Have you heard? Harlan the miller fell off his roof and broke his leg."]
    result = ground(
        "Harlan fell off his roof mending the thatch and broke his leg.",
        told,
        subject="Harlan",
        npc="Lyra",
        told=True,
    )
    assert result.ok, result
    talk = ground(
        "Maren doesn't know anything about Corvina.",
        ["Good evening, Lyra. What news?"],
        subject="Corvina",
        npc="Lyra",
        told=True,
    )
    assert not talk.ok


def test_what_the_subject_told_rests_on_any_line_of_theirs():
    # The long-run benchmark: "Ada told me: I have a pony called Juniper." was refused as "not
    # in their words: juniper" right after Ada said it, because one earlier line named her.
    said = ["I'm Ada, from the coast.", "I have a pony called Juniper."]
    result = ground("Ada told me: I have a pony called Juniper.", said, subject="Ada", npc="Maren")
    assert result.ok, result
    assert not ground("Ada told me: I have a goat.", said, subject="Ada", npc="Maren").ok


def test_questions_and_statements():
    assert is_question("Do you have family here?")
    assert is_question("How long have you kept this place, Maren")
    assert not is_question("I keep bees.")
    assert statements(["Do you sell ale? I keep bees. You pour well."]) == ["I keep bees."]


def test_bounded_input():
    result = self_ground("Hesketh keeps bees.", *(["x " * 5000] * 100 + ["I keep bees."]))
    assert result.ok


def test_the_reviews_old_cases_hold():
    said = ["I mend clocks for a living.", "My cat Pebble sleeps in my boots."]

    def ok(value, npc=""):
        return ground(value, said, subject="Tobiah", npc=npc).ok

    assert ok("Tobiah repairs clocks.")
    assert ok("Tobiah's cat is called Pebble.")
    assert not ok("Tobiah is a blacksmith.")
    assert not ok("Tobiah is Tobiah.")
    assert not ok("Maren likes Tobiah.", "Maren")
    assert not ok("Maren mends clocks for a living.", "Maren")
    assert not ok("Tobiah asked what he does for a living.", "Maren")
    assert not ok("Tobiah thanked Maren for the clocks.", "Maren")


def test_a_name_said_in_one_line_does_not_ground_what_was_only_asked_in_another():
    """By telnet on 2026-12-01, the review kept "Tamsin's dog called Elowen." from "My sister
    Elowen lives out past the marsh road." and the question "What's my dog called?"."""
    lines = ["My sister Elowen lives out past the marsh road.", "What's my dog called?"]
    assert not ground("Tamsin's dog called Elowen.", lines, subject="Tamsin", npc="Maren").ok
    kept = "Tamsin's sister Elowen lives out past the marsh road."
    assert ground(kept, lines, subject="Tamsin", npc="Maren").ok


def test_the_sentence_after_a_statement_grounds_only_if_it_goes_on_about_it():
    """Busy held-out run, seed 64409: 'Rosalie lives in Mildreth.' was grounded on 'I have a
    little donkey ... on the road.' joined to 'Mildreth the priest's housekeeper got into a
    brawl, they say.'"""
    lines = [
        "I have a little donkey; I found her on the road. Mildreth the housekeeper got into a "
        "brawl and lost a tooth, they say."
    ]
    assert not ground("Rosalie lives in Mildreth.", lines, subject="Rosalie", npc="Wren").ok
    odile = ["I'm looking for my sister Odile. She vanished near the old mill."]
    assert ground("Rosalie's sister Odile vanished near the old mill.", odile, subject="Rosalie").ok


def test_news_of_someone_else_is_refused_as_news_not_as_unsaid():
    """A telnet trial: the review's 'Hesketh heard Harlan the miller fell off his roof' was
    refused 'not in their words: harlan, miller, fell, off', though he had said every one."""
    lines = ["Harlan the miller fell off his roof mending the thatch yesterday and broke his leg."]
    value = "Harlan the miller fell off his roof and broke his leg."
    refused = ground(value, lines, subject="Hesketh", npc="Maren")
    assert not refused.ok
    assert refused.reason == "news of someone else, not about Hesketh"
    assert refused.line == lines[0]
    # What was never said at all is no news of theirs.
    invented = ground("Harlan the miller owns a horse called Quinny.", lines, subject="Hesketh")
    assert not invented.ok and "news" not in invented.reason


def test_facts_held_one_at_a_time_and_things_given_up():
    from omniira_evennia.memory.sameness import given_up, one_at_a_time

    assert one_at_a_time("Ada told me: I live in Brackwater.") == "home"
    assert one_at_a_time("Ada moved to Ashby.") == "home"
    assert one_at_a_time("Ada works as a carpenter.") == "trade"
    assert one_at_a_time("Ada's sister lives in Brackwater.") is None  # her kin's, not hers
    assert one_at_a_time("Ada keeps bees.") is None
    assert given_up("Ada sold the mule.") == {"mul"}  # a root, as gist keeps it
    assert given_up("Ada has a mule.") == set()


def test_a_thing_given_up_said_the_other_way_round():
    """ "Thistle is sold, the mule is gone" left "Thistle, my old mule, eats a lot" current
    (long run, seed 4): only "sold the mule" was read as giving something up."""
    from omniira_evennia.memory.sameness import given_up

    assert given_up("Brannoc told me: Thistle is sold, the mule is gone.") == {"thist", "mul"}
    assert given_up("My old goat was given away last spring.") == {"goat"}
    assert given_up("She is gone to market.") == set()  # no thing: "she"
    assert given_up("The goat is grazing.") == set()


def test_a_fact_about_them_does_not_rest_on_what_their_kin_did():
    # The dialogue evaluation's held-out run of seed 41257 kept "Gisela is from the old mill."
    said = ["My uncle Ambrose vanished near the old mill last winter."]
    assert not ground("Gisela is from the old mill.", said, subject="Gisela", npc="Voss").ok
    uncle = "Gisela's uncle Ambrose vanished near the old mill."
    assert ground(uncle, said, subject="Gisela", npc="Voss").ok


@pytest.mark.parametrize(
    "value, other",
    [
        # The long run's restatements (bench/long_run.py, seed 1): one fact in other words.
        (
            "Ada told me: I play the fiddle.",
            "Ada mentioned that she plays the fiddle in the evenings.",
        ),
        (
            "Ada mentioned that sorrel, my old pony, eats a lot.",
            "Ada told me: I have a pony called Sorrel.",
        ),
        (
            "Cyra told me: Eudo the carter owes me nine silver coins.",
            "Cyra told me: Eudo still has nine of my silver coins.",
        ),
        (
            "Cyra told me: Years ago I took a ship to Ouston.",
            "Cyra told me: I once sailed to Ouston.",
        ),
        (
            "Brannoc told me: Dorcas still has eleven of my silver coins.",
            "Brannoc told me: I lent Dorcas eleven silver coins and never got them back.",
        ),
        # One feeling in other words (long run, seed 5: kept twice as a swap of one word).
        (
            "Cyra mentioned that i have always feared deep water.",
            "Cyra told me: I am afraid of deep water.",
        ),
        ("Ada told me: Nothing scares me like tall ladders.", "Ada told me: I fear tall ladders."),
        ("Ada told me: I love the cold.", "Ada told me: I like the cold."),
    ],
)
def test_words_allow_a_restatement_in_other_words(value, other):
    subject = value.split()[0]
    assert may_restate(value, other, subject) and may_restate(other, value, subject)


@pytest.mark.parametrize(
    "value, other",
    [
        # As near as any paraphrase to MiniLM (0.93-0.95), and different facts.
        ("Ada told me: My dog is called Rex.", "Ada told me: My cat is called Rex."),
        ("Ada told me: My sister lives in Ashby.", "Ada told me: My brother lives in Ashby."),
        ("Ada told me: I hate the cold.", "Ada told me: I love the cold."),
        ("Ada told me: I'm not afraid of the dark.", "Ada told me: I'm afraid of the dark."),
        ("Ada told me: I am afraid of wolves.", "Ada told me: I am afraid of deep water."),
        (
            "Ada told me: I lost my ring at the market.",
            "Ada told me: I lost my purse at the market.",
        ),
        # Someone else named: two pieces of news.
        ("Cyra told me: Dunstan found a gold coin.", "Cyra told me: Ada found a gold coin."),
    ],
)
def test_one_thing_swapped_or_someone_else_named_is_another_fact(value, other):
    subject = value.split()[0]
    assert not may_restate(value, other, subject)
    assert not may_restate(other, value, subject)


def test_a_home_said_as_a_cottage_or_a_roof_and_a_trade_given_up():
    assert one_at_a_time("Dunstan has a little cottage in Coldharbour.") == "home"
    assert one_at_a_time("These days I sleep under my own roof in Coldharbour.") == "home"
    assert one_at_a_time("My sister has a house in Ashby.") is None
    assert one_at_a_time("I earn my living as a roofer.") == "trade"
    assert one_at_a_time("I gave up my old trade, I am a potter now.") == "trade"


def test_an_old_trade_given_up_is_no_old_donkey_given_up():
    """ "I gave up my old trade" superseded "Juniper, my old donkey, eats a lot" (long run,
    seed 3): the adjective was taken for the thing."""
    from omniira_evennia.memory.sameness import given_up

    assert given_up("I gave up my old trade, I am a tanner now.") == set()
    assert given_up("I sold my old donkey at the fair.") == {"donke"}


@pytest.mark.parametrize(
    "value, line",
    [
        (
            "Xander never let it out of their sight.",
            "Maren, see this? It's an iron key to a house that burned, and I never let it out of "
            "my sight.",
        ),
        (
            "Xander fears them more than anything.",
            "If you ever see me go pale, it's spiders: I fear them more than anything.",
        ),
    ],
)
def test_a_note_whose_thing_is_only_it_or_them_is_refused_as_incomplete(value, line):
    """Held-out seed 84211: the review kept the half of the line without the thing in it."""
    found = ground(value, [line], subject="Xander", npc="Maren")
    assert not found.ok and found.reason == "says 'it' or 'them' without what it is"


@pytest.mark.parametrize(
    "value, line",
    [
        ("Xander cannot eat onions; it makes him ill.", "I cannot eat onions; it makes me ill."),
        (
            "Xander carries an iron key and never lets it out of his sight.",
            "It's an iron key, and I never let it out of my sight; I always carry it.",
        ),
    ],
)
def test_a_note_that_names_its_thing_is_kept_though_it_says_it(value, line):
    assert ground(value, [line], subject="Xander", npc="Maren").ok


def test_a_note_without_its_object_names_the_line_that_has_it():
    """The write policy keeps that line, quoted, instead of the empty note (seed 84211)."""
    line = "Maren, see this? It's an iron key to a house that burned, and I never let it out of my sight."
    found = ground("Xander never let it out of their sight.", [line], subject="Xander", npc="Maren")
    assert not found.ok
    assert (
        found.line == "It's an iron key to a house that burned, and I never let it out of my sight."
    )
    quoted = f'Xander said: "{found.line}"'
    assert ground(quoted, [line], subject="Xander", npc="Maren").ok


def test_the_line_kept_for_a_note_without_its_object_has_no_greeting_in_front():
    """One way to take the address off a speaker's line, for the review and for the quote."""
    line = "Good evening, Maren, if I go pale, it's spiders: I fear them more than anything."
    found = ground("Xander fears them more than anything.", [line], subject="Xander", npc="Maren")
    assert found.line == "If I go pale, it's spiders: I fear them more than anything."


def test_a_note_without_its_object_and_no_line_for_it_names_none():
    found = ground("Xander fears them more than anything.", ["I like bread."], subject="Xander")
    assert not found.ok and found.line == ""


def test_a_goodbye_is_no_fact():
    found = ground("Nell says farewell for now, Lyra.", ["Farewell for now, Lyra."], subject="Nell")
    assert not found.ok and "greeting" in found.reason


def test_a_quote_of_their_words_rests_on_them_word_for_word():
    lines = ["Good evening, Wren: I have a son called Casimir; he went east and never wrote."]
    quote = 'Nerys said: "I have a son called Casimir; he went east and never wrote."'
    found = ground(quote, lines, subject="Nerys", npc="Wren")
    assert found.ok and found.reason == "their own words" and "Casimir" in found.line
    changed = 'Nerys said: "I have a son called Casimir; he went west."'
    assert ground(changed, lines, subject="Nerys", npc="Wren").reason.startswith("not their words")


def test_a_verbs_s_and_two_statements_of_theirs_in_a_row_ground_a_fact():
    """Seed 84211, read again: the review's note was refused, so the jade ring was lost."""
    line = "Voss, I always carry a jade ring; I would run into a burning house for it."
    value = "Niall carries a jade ring; he would run into a burning house for it."
    assert ground(value, [line], subject="Niall", npc="Voss").ok


def test_the_town_everyone_is_in_grounds_nothing():
    # Busy held-out seed 50423: the review kept "Benedikt runs this town." from Voss's answer to
    # "Who runs this town?", resting on the one word "town" of another line.
    said = [
        "Voss, before I'm old I mean to become the mayor of this town.",
        "Who runs this town?",
    ]

    def found(value):
        return ground(value, said, subject="Benedikt", npc="Voss")

    assert not found("Benedikt runs this town.").ok
    assert not found("Benedikt lives in town.").ok
    assert found("Benedikt wants to become the mayor of this town.").ok
    assert ground("Benedikt lives in this town.", ["I live in this town."], subject="Benedikt").ok


def test_a_clause_about_their_kin_grounds_nothing_about_them():
    # Held-out seed 91823: the review kept "Cedric charges for his stall at the spring fair."
    # from his cousin's stall, said after "I have a cousin called Winifred;".
    said = ["Maren, I have a cousin called Winifred; she runs a stall at the spring fair."]

    def found(value):
        return ground(value, said, subject="Cedric", npc="Maren")

    assert not found("Cedric charges for his stall at the spring fair.").ok
    assert found("Cedric's cousin Winifred runs a stall at the spring fair.").ok
    assert found("Cedric has a cousin called Winifred.").ok
    bees = ["I have a brother who keeps bees in Harrowgate."]
    assert not ground("Nell keeps bees in Harrowgate.", bees, subject="Nell").ok
    # What comes before the kin is still theirs.
    baker = ["I bake bread for the inn, and my sister who lives in Vellmoor sends flour."]
    assert ground("Nell bakes bread for the inn.", baker, subject="Nell").ok
    assert not ground("Nell lives in Vellmoor.", baker, subject="Nell").ok


def test_a_wish_grounds_the_wish_not_a_fact():
    # Held-out busy seed 58873: "Ines sells tea." from "One day I want to open a tea shop ...".
    said = ["One day I want to open a tea shop on this very street."]
    assert not ground("Ines sells tea.", said, subject="Ines", npc="Lyra").ok
    assert ground("Ines wants to open a tea shop.", said, subject="Ines", npc="Lyra").ok
    assert ground("Ines dreams of a tea shop of her own.", said, subject="Ines", npc="Lyra").ok


def test_the_keepers_name_said_at_the_end_is_no_part_of_the_fact():
    # Telnet trial, 2026-12-05: "Corwen's daughter Ysolde sings at the temple, Maren." in recall.
    from omniira_evennia.memory.quoting import without_address, without_trailing_address

    kept = "Corwen's daughter Ysolde sings at the temple, Maren."
    assert (
        without_trailing_address(kept, "Maren") == "Corwen's daughter Ysolde sings at the temple."
    )
    assert without_trailing_address("Maren, I sing.", "Maren") == "Maren, I sing."
    assert without_address("My daughter sings at the temple, Maren.", "Maren") == (
        "My daughter sings at the temple."
    )


def test_where_they_are_from_rests_only_on_their_saying_where_home_is():
    # Held-out seed 92821: "Yvaine is from the docks." from "The walk up from the docks was
    # longer than I remembered.", said back to her the next day as where she is from.
    walked = ["The walk up from the docks was longer than I remembered."]
    refused = ground("Yvaine is from the docks.", walked, subject="Yvaine", npc="Wren")
    assert not refused.ok and refused.reason == "where they are from, which they never said"
    assert ground("Yvaine walked up from the docks.", walked, subject="Yvaine", npc="Wren").ok
    for said, fact in [
        ("I'm from Eastwatch, down on the southern plains.", "Ysolde is from Eastwatch."),
        ("Good evening, Maren, home for me is Tarnow.", "Jessamy's home is Tarnow."),
        ("I grew up in Marrowby, on the plains.", "Esmeralda grew up in Marrowby."),
    ]:
        name = fact.split()[0].split("'")[0]
        assert ground(fact, [said], subject=name, npc="Voss").ok, fact


def test_a_trade_rests_only_on_words_of_trading():
    # Busy held-out seed 60013: "Lorcan sells parrots." from "my parrot is called Clover, ...",
    # and the night made it a belief.
    said = ["Good evening, Maren, my parrot is called Clover, and she was half-starved."]
    refused = ground("Lorcan sells parrots.", said, subject="Lorcan", npc="Maren")
    assert not refused.ok and refused.reason == "a trade they never spoke of"
    assert ground("Lorcan has a parrot called Clover.", said, subject="Lorcan", npc="Maren").ok
    sold = ["I sell bread at the market, Maren."]
    assert ground("Ada sells bread at the market.", sold, subject="Ada", npc="Maren").ok


@pytest.mark.parametrize(
    "value, nameless",
    [
        ("Tarnow, down on the southern plains.", True),
        ("Loves honey cakes.", True),
        ("Ada's home is Tarnow.", False),
        ("She keeps goats on the fells.", False),
        ('Ada said: "Home for me is Tarnow."', False),
    ],
)
def test_a_note_that_names_nobody(value, nameless):
    assert names_nobody(value, "Ada") is nameless


@pytest.mark.parametrize(
    "value, half_turned",
    [
        # Held-out seed 77213: the review's notes, read back to the player as they were.
        ("Ada shellfish makes her break out in a rash, so keep it off her plate.", True),
        ("If you ever see Ada go pale, it's ghosts: they fear them more than anything.", True),
        ("Ada haven't eaten since sunrise.", True),
        ("Ada has been terrified of rats since she was a child.", False),
        ("Ada's cat Clover is getting old and slow.", False),
        ("Ada nearly slipped on the cobbles outside.", False),
        ("Ada keeps a clever raven called Crumpet.", False),
        ("Ada cannot eat onions.", False),
        ("Ada grew up in Tarnow.", False),
        ("Ada told me Oskar poisoned the well.", False),
        ("Ada can't eat honey; it makes me ill.", True),  # telnet trial, 2026-12-06
        ("Ada's home for me is Tarnow, far to the north.", True),  # held-out seed 44207
        ("Ada wants me to call her Addie.", False),
        ("Ada fought in the war.", False),
        ('Ada said: "If you see me go pale, it is ghosts."', False),
    ],
)
def test_a_note_that_is_their_line_half_turned_round(value, half_turned):
    line = "Shellfish makes me break out in a rash, so keep it off my plate."
    assert garbled(value, "Ada", line) is half_turned


def test_a_clause_that_goes_on_grounds_with_the_one_it_leans_on():
    """Held-out seed 35089: a note on "it makes me ill, so never put it in my food." alone was
    kept as that clause quoted, and "What am I allergic to?" got the quote without the milk."""
    lines = ["I cannot eat milk; it makes me ill, so never put it in my food."]
    found = ground("Katriona falls ill; never put it in her food.", lines, subject="Katriona")
    assert found.ok and found.line == lines[0]


def test_a_sentence_after_a_full_stop_is_not_leaned_on():
    """Held-out seed 44207: 'Rosalie said: "I dip candles ..., day in, day out. It has not
    stopped raining since this morning."'."""
    lines = [
        "I dip candles from tallow and beeswax, day in, day out.",
        "It has not stopped raining.",
    ]
    found = ground("Rosalie dips candles from tallow and beeswax.", lines, subject="Rosalie")
    assert found.ok and found.line == lines[0]


def test_the_next_line_is_never_joined_to_the_last_sentence_of_one():
    """Held-out busy seed 18443: 'Nicodemus said: "It has never left my side. It has not
    stopped raining since this morning."' was kept, and answered "What is my most precious
    possession?" instead of the scarf."""
    lines = [
        "The thing I treasure most is a red silk scarf; it has never left my side.",
        "It has not stopped raining since this morning.",
    ]
    statements = [text for text, _stems in evidence(lines, subject="Nicodemus").statements]
    assert not any("raining" in s and "scarf" in s for s in statements)
    assert not any("raining" in s and "my side" in s for s in statements)
    one_line = ["I'm looking for my sister Odile. She vanished near the old mill."]
    assert one_line[0] in [t for t, _ in evidence(one_line, subject="Ada").statements]


@pytest.mark.parametrize(
    "value, grounded, reason",
    [
        # Held-out seed 71993: Berwyn's raven kept under "Bryn".
        (
            "Bryn has a speckled raven named Pocket; she sleeps at the foot of Berwyn's bed.",
            False,
            MISNAMED,
        ),
        ("Berwyn has a speckled raven named Pocket.", True, "grounded"),
        ("Pocket sleeps at the foot of Berwyn's bed.", True, "grounded"),
    ],
)
def test_a_note_opening_on_a_name_nobody_spoke_of(value, grounded, reason):
    line = ["I have a speckled raven named Pocket; she sleeps at the foot of my bed."]
    found = ground(value, line, subject="Berwyn", npc="Voss")
    assert (found.ok, found.reason) == (grounded, reason)


def test_common_words_only_asked_ground_nothing_either():
    # Busy seed 52967: "kept" and "place" were asked of Maren, "longer than I remembered" said.
    lines = [
        "How long have you kept this place, Maren?",
        "The walk up from the docks was longer than I remembered.",
    ]
    value = "Piers has kept this place for longer than he remembered."
    verdict = ground(value, lines, subject="Piers", npc="Maren")
    assert (verdict.ok, verdict.reason) == (False, "rests on what they only asked: kept, place")
    said = "The walk up from the docks was longer than Piers remembered."
    assert ground(said, lines, subject="Piers", npc="Maren").ok


def test_a_fact_resting_on_what_they_only_asked_is_refused_with_its_reason():
    """Held-out seed 70919: "Rosalie would find a doctor at the chapel yard." was kept, from
    "Where would I find a doctor?" and "I carve gravestones for the chapel yard."."""
    lines = [
        "Where would I find a doctor?",
        "I'm a stonemason by trade. I carve gravestones for the chapel yard.",
    ]
    verdict = ground("Rosalie would find a doctor at the chapel yard.", lines, subject="Rosalie")
    assert not verdict.ok and verdict.reason == "rests on what they only asked: find, doctor"
    assert ground("Rosalie carves gravestones for the chapel yard.", lines, subject="Rosalie").ok
    # A word both asked and said is said: "Is the doctor in? I am the doctor's sister."
    said = ["Is the doctor in today?", "I am the doctor's sister."]
    assert ground("Rosalie is the doctor's sister.", said, subject="Rosalie").ok


def test_a_food_refused_rests_only_on_their_saying_they_cannot_have_it():
    # Held-out seed 50993: "I haven't eaten since sunrise." became "Araminta cannot eat since
    # sunrise.", said back to her the next day as what she cannot eat.
    hungry = ["I haven't eaten since sunrise."]
    refused = ground("Araminta cannot eat since sunrise.", hungry, subject="Araminta", npc="Wren")
    assert not refused.ok and refused.reason == "a food they never said they cannot have"
    assert ground("Araminta hasn't eaten since sunrise.", hungry, subject="Araminta").ok
    for said, fact in [
        ("Honey makes me break out in a rash, so keep it off my plate.", "Ada cannot eat honey."),
        ("I cannot eat eggs; it makes me ill.", "Ada cannot eat eggs."),
        ("Never put nuts in anything you serve me: I'm allergic.", "Ada is allergic to nuts."),
        ("Maren, one thing: I can't touch nuts, it makes me sick.", "Ada can't touch nuts."),
    ]:
        assert ground(fact, [said], subject="Ada", npc="Maren").ok, fact


def test_half_a_line_whose_thing_is_in_the_other_half_is_refused():
    # Held-out busy seed 44893: kept beside "... always carries a book of old sea charts".
    line = "I always carry a book of old sea charts; I would run into a burning house for it."
    half = self_ground(
        'Gwendolyn said: "I would run into a burning house for it."',
        line,
        subject="Gwendolyn",
        npc="Wren",
    )
    assert not half.ok and "without what it is" in half.reason
    whole = self_ground(f'Gwendolyn said: "{line}"', line, subject="Gwendolyn", npc="Wren")
    assert whole.ok


def test_a_note_opening_on_he_is_kept_in_their_words():
    line = "My parrot is called Pippin, and he was half-starved when I found him on the road."
    assert garbled("He was half-starved when Bram found him on the road.", "Bram", line)
    assert not garbled("Bram's parrot Pippin was half-starved when Bram found him.", "Bram", line)
