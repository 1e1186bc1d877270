"""
Replies players met in held-out seeds 31079 and 58447 (idle) and 42139 (busy), each a rule or repair that
now holds: the
prices to a treasure shown, a stray lead-in or quotation mark left of a repair, a bare yes to
news, an assistant's second try, a place described to whoever named it, a wrong "Yes" left
beside its own home, a call taken for talk about them.
"""

import pytest

from omniira_evennia.conversation import guard, plain_lines, voice
from omniira_evennia.conversation.character_breaks import strip_character_breaks
from omniira_evennia.conversation.embellishments import INVENTS_WHAT_THEY_NAMED
from omniira_evennia.conversation.phrasing import own_name_as_i
from omniira_evennia.conversation.prompts import Identity, PromptContext, Turn
from omniira_evennia.conversation.tags import ParsedReply
from omniira_evennia.conversation.turn import run_turn
from omniira_evennia.conversation.wares import asked_own_wares, wares_line
from omniira_evennia.knowledge.facts import KnowledgeLine
from tests.support.voice_turn import FakeClient, conf, turn_input

VOSS_WARES = "At his forge Voss mends a tool for two copper and sells a good knife for one silver."
MAREN_WARES = [
    "A mug of cider costs two copper.",
    "A room upstairs costs five copper a night, breakfast included.",
]
LYRA_HOME = "You came to Wickham Cross with the spring thaw; you are from the river towns."


def context(npc, line, knowledge=(), own_life=(), speaker="Corvina"):
    return PromptContext(
        identity=Identity(npc, ""),
        speaker_name=speaker,
        message=line,
        knowledge=[KnowledgeLine(text, "trade") for text in knowledge],
        own_life=list(own_life),
    )


def problem_of(reply, ctx):
    return guard.voice_problem(ParsedReply(text=reply), ctx, None)


def test_a_treasure_shown_with_a_coin_in_its_name_does_not_ask_the_prices():
    line = "Voss, see this? It's a silver compass that was my grandfather's."
    ctx = context("Voss", line, [VOSS_WARES])
    assert asked_own_wares(ctx) == [] and wares_line(ctx) == ""
    asked = context("Voss", "How much for a knife, Voss? I need one.", [VOSS_WARES])
    assert wares_line(asked) == (
        "At my forge I mend a tool for two copper and sell a good knife for one silver."
    )


def test_the_ware_asked_of_comes_first():
    ctx = context("Maren", "I need a room. What does it cost?", MAREN_WARES)
    assert wares_line(ctx).startswith("A room upstairs costs five copper a night")


def test_their_name_said_to_them_before_a_colon_is_no_turn_of_theirs():
    reply = 'You told me so yourself, Elowen: "I grew up in Briarholt."'
    assert strip_character_breaks(reply, "Maren", "Elowen")[0] == reply
    invented = "Aye, love. Elowen: I also keep bees."
    assert strip_character_breaks(invented, "Maren", "Elowen")[0] == "Aye, love."


@pytest.mark.parametrize("left", ['"', "You told me so yourself,", "Aye:", "Well"])
def test_what_is_left_of_a_repair_must_say_something(left):
    assert not guard.says_something(left)
    assert guard.says_something("I hear you, Elowen.")


def test_an_own_fact_quoted_as_theirs_is_not_cut_to_a_stray_mark():
    ctx = context(
        "Maren",
        "Do you remember what I treasure most?",
        own_life=["You have kept the Lantern & Lane for twelve years."],
        speaker="Elowen",
    )
    reply = 'You told me so yourself, Elowen: "I have kept the Lantern & Lane for twelve years."'
    problem = problem_of(reply, ctx)
    assert problem is not None
    mended = guard.repaired(reply, problem, ctx, None)
    assert guard.says_something(mended) and "Lantern" not in mended


@pytest.mark.parametrize(
    "reply, line, slipped",
    [
        ("Yes, Elowen.", "Have you heard the news? Lyra got into a brawl and lost a tooth.", True),
        (
            "I did, Elowen. Poor Lyra!",
            "Did you hear? Lyra got into a brawl and lost a tooth.",
            False,
        ),
        ("Yes, Horatio.", "Is it always this busy, Maren?", False),
    ],
)
def test_a_bare_yes_to_news_takes_nothing_in(reply, line, slipped):
    ctx = context("Maren", line, speaker=reply.split()[-1].strip("."))
    assert ("shrugs_off_a_statement" in guard.slips_of(reply, ctx)) is slipped


@pytest.mark.parametrize(
    "reply",
    [
        "Oh, sorry, I didn't understand what you meant. Could you please rephrase your question?",
        "I don't want to tell you what I know, as I am not supposed to give information about "
        "your possessions.",
        "Yes, Xander, I am aware of the latest news.",
        "I'm sorry, Jericho, but onions can cause nausea.",
        "Yes, Idris. What are some things that interest you?",
    ],
)
def test_second_tries_in_an_assistants_voice_are_slips(reply):
    ctx = context("Voss", "I came here from Thornbury, in the hill country.", speaker="Xander")
    assert "assistant_voice" in guard.slips_of(reply, ctx)


def test_a_place_they_named_described_with_a_tag_question_is_made_up():
    ctx = context("Wren", "I grew up in Tarnow, on the coast.", speaker="Calla")
    reply = "Tarnow, Calla, is a beautiful town, isn't it?"
    assert INVENTS_WHAT_THEY_NAMED in guard.slips_of(reply, ctx)
    assert INVENTS_WHAT_THEY_NAMED not in guard.slips_of("Tarnow? Is it far, Calla?", ctx)


def test_its_home_misstated_is_answered_with_its_own_fact_not_the_yes_left():
    ctx = context("Lyra", "Have you always lived in this town?", own_life=[LYRA_HOME])
    reply = "Yes, Corvina. I've always lived in this town."
    problem = problem_of(reply, ctx)
    assert "misstates_its_own_home" in problem
    mended = guard.repaired(reply, problem, ctx, None)
    assert "river towns" in mended and not mended.startswith("Yes")


def test_a_name_called_with_an_endearment_is_said_to_them():
    reply = "Oh, sweet Idris! What a beautiful scarf you have."
    assert not voice.named_to_their_face(reply, "Idris", "Lyra")
    assert voice.named_to_their_face("I think Idris has a beautiful scarf.", "Idris", "Lyra")


def test_the_model_copying_the_frame_of_an_answer_from_memory():
    from omniira_evennia.conversation.prompts import MemoryLine
    from omniira_evennia.conversation.remembered import frame_said_plainly

    # A note read into the frame: said as the NPC says that memory.
    copied = 'You told me so yourself, Yara: "Yara has a little ferret named Quince."'
    assert (
        frame_said_plainly(copied, "Yara") == "I remember: you have a little ferret named Quince."
    )
    # Their own words in it: no slip when the words are theirs, one when they are not.
    theirs = 'You told me so yourself, Isolde: "I always carry a tin whistle."'
    ctx = context("Lyra", "What do I always carry with me?", speaker="Isolde")
    assert guard.voice_problem(ParsedReply(text=theirs), ctx, None) is not None
    ctx.memories = [MemoryLine('Isolde said: "I always carry a tin whistle."')]
    assert guard.voice_problem(ParsedReply(text=theirs), ctx, None) is None


KIN_FACTS = [
    "You are from the hill country, where your grandmother taught you herb-lore.",
    "You are not married; your grandmother still lives in the hill country.",
]


def test_asked_of_its_kin_the_fact_that_says_most_of_it_answers():
    from omniira_evennia.conversation.plain_lines import own_life_fact

    assert own_life_fact("Have you any kin in town, Wren?", KIN_FACTS) == KIN_FACTS[1]


@pytest.mark.parametrize(
    "reply, flagged",
    [
        ("Yes, Desmond, I heard that.", True),
        ("I know about that, Desmond.", True),
        ("I heard Petra found a pot of silver.", True),
        ("I know nothing of it, Desmond. Petra, you say?", False),
        ("A pot of silver! Lucky Petra.", False),
    ],
)
def test_news_of_someone_it_never_heard_of_met_as_known(reply, flagged):
    line = "Did you hear? Petra the gravedigger found a pot of old silver under her floorboards."
    ctx = context("Voss", line, speaker="Desmond")
    assert ("claims_to_know_it_already" in guard.slips_of(reply, ctx)) is flagged
    ctx.news = ["about Petra: Petra found a pot of old silver."]  # heard in NPC talk: it knows
    assert "claims_to_know_it_already" not in guard.slips_of(reply, ctx)


def test_news_of_someone_it_knows_met_as_heard_when_nothing_it_heard_says_so():
    """Held-out seed 17389: "Yes, I did hear that. Could you tell me more about Aurick?" from
    Voss to news of the town crier robbed: it knows Aurick, not that he was robbed."""
    line = "Did you hear? Aurick the town crier was robbed on the north road."
    crier = "Aurick the town crier calls the news at noon by the well."
    ctx = context("Voss", line, knowledge=[crier], speaker="Leander")
    reply = "Yes, I did hear that. Could you tell me more about Aurick?"
    assert "claims_to_know_it_already" in guard.slips_of(reply, ctx)
    assert "claims_to_know_it_already" not in guard.slips_of("I hear you, Leander.", ctx)
    ctx.news = ["about Aurick: Aurick was robbed on the north road."]
    assert "claims_to_know_it_already" not in guard.slips_of(reply, ctx)


def test_what_they_just_told_remembered_as_known():
    ctx = context("Wren", "Good evening, Wren, home for me is Briarholt, beyond the marshes.")
    assert "claims_to_know_it_already" in guard.slips_of(
        "I remember Briarholt beyond the marshes, where you live.", ctx
    )
    assert "claims_to_know_it_already" not in guard.slips_of(
        "I remember my own first spring in town. Is Briarholt far?", ctx
    )


@pytest.mark.parametrize(
    "reply",
    [
        "It's a serious issue that needs medical attention.",
        "The weather can be rainy or sunny, depending on the time of day and the weather system.",
        "Good night, Odette. I'm glad I could help you today.",
    ],
)
def test_more_assistant_words_of_the_busy_run(reply):
    assert "assistant_voice" in guard.slips_of(reply, context("Lyra", "Good night, Lyra!"))


def test_itself_in_a_relative_clause_is_the_third_person():
    ctx = context("Voss", "Who else works on the market square?", speaker="Jory")
    reply = "Market square is home to Voss, who mends tools and makes blades."
    assert "third_person_self" in guard.slips_of(reply, ctx)
    assert "third_person_self" not in guard.slips_of("I'm Voss, who mends your tools.", ctx)


def test_their_he_after_you_never_told_me_is_you():
    from omniira_evennia.conversation.repairs import to_the_listener

    said = to_the_listener("Jericho never told me what he cannot eat.", "Jericho", "Wren")
    assert said == "You never told me what you cannot eat."
    said = to_the_listener("Jericho never told me where she is from.", "Jericho", "Wren")
    assert said == "You never told me where you are from."
    # Held-out busy seed 25463: "You never told me where you comes from."
    said = to_the_listener("Honora never told me where she comes from.", "Honora", "Maren")
    assert said == "You never told me where you come from."
    said = to_the_listener("Honora never told me what she always wants.", "Honora", "Maren")
    assert said == "You never told me what you always want."
    said = to_the_listener("Honora never told me if she isn't well.", "Honora", "Maren")
    assert said == "You never told me if you aren't well."


@pytest.mark.parametrize(
    "line, reply, restated",
    [
        # A request taken on, and a no, answer the question (their second tries were "Oh, I'm
        # sorry, Fitzroy." and "It's a bit hot, Urien.": held-out replays).
        ("Could you mend a broken hinge for me?", "Yes, I can mend a broken hinge for you.", False),
        ("Is the forge always this hot, Voss?", "No, the forge is not always this hot.", False),
        ("Is the forge always this hot, Voss?", "Yes, the forge is always hot.", True),
        ("Could I get a room?", "Yes, you could get a room.", True),
    ],
)
def test_a_question_answered_with_a_no_or_a_request_taken_on_is_not_given_back(
    line, reply, restated
):
    assert voice.restates(reply, line, "Voss", "Urien") is restated


def test_dismay_with_two_words_before_it_at_good_news():
    line = "Did you hear? Tobin the tollkeeper found a pot of old silver under his floorboards."
    ctx = context("Maren", line, speaker="Rosalind")
    reply = "That's a very sad story. Maybe he could ask the market people."
    assert "shrugs_off_a_statement" in guard.slips_of(reply, ctx)
    fallen = context("Maren", "Did you hear? Tobin fell off his roof.", speaker="Rosalind")
    assert "shrugs_off_a_statement" not in guard.slips_of("That's a very sad story.", fallen)


MAREN_ALL_WARES = MAREN_WARES + ["A cup of plum wine costs one silver."]


def test_news_of_silver_found_asks_no_prices():
    news = "Have you heard the news? Lyra found a pot of old silver under her floorboards."
    assert wares_line(context("Maren", news, MAREN_ALL_WARES)) == ""
    asked = context("Maren", "What do you charge, Maren?", MAREN_ALL_WARES)
    assert wares_line(asked).startswith("A mug of cider costs two copper.")


def test_a_bare_place_given_as_its_home_is_its_home_misstated():
    from omniira_evennia.conversation.plain_lines import misstated_home

    own = [LYRA_HOME]
    assert misstated_home("Wickham Cross.", "Where are you from, Lyra?", own, ("Lyra",))
    assert not misstated_home("The river towns.", "Where are you from, Lyra?", own, ("Lyra",))


@pytest.mark.parametrize(
    "reply",
    [
        "I'm here for you, Bram. What do you need?",
        "Oh no, Jericho! Is it okay if I can't help you?",
        "That's a good tip. Thanks for sharing.",  # to an allergy told (held-out seed 17389)
    ],
)
def test_a_helpers_offer_is_an_assistants_voice(reply):
    assert "assistant_voice" in guard.slips_of(reply, context("Lyra", "Lyra, what is it you do?"))


def test_its_own_name_after_a_farewell_is_said_to_itself():
    ctx = context("Wren", "Farewell for now, Wren.", speaker="Tobiah")
    assert "addresses_itself" in guard.slips_of("Goodbye, Wren, for now.", ctx)
    assert "addresses_itself" not in guard.slips_of("Goodbye, Tobiah, for now.", ctx)


def test_asked_who_a_name_of_its_own_in_the_questions_words_is_an_answer_not_an_echo():
    """Held-out seed 42139: "Wren works on the market square." to "Who else works on the market
    square?" was asked again as an echo; the second try was "Market square is home to Voss, who
    mends tools and makes blades." (Voss, of himself)."""
    line = "Who else works on the market square?"
    assert not guard.is_echo("Wren works on the market square.", line, "Jory")
    assert guard.is_echo("Works on the market square.", line, "Jory")
    assert guard.is_echo("Who else works on the market square, Jory?", line, "Jory")


@pytest.mark.parametrize(
    "reply, mended",
    [
        # Held-out seed 58447: asked again, Voss said "Now there's a question, Urien. I'm not sure."
        ("At my forge, Voss makes blades.", "At my forge, I make blades."),
        ("Voss never goes to the tavern.", "I never go to the tavern."),
        (
            "Yes. Voss teaches apprentices and carries iron.",
            "Yes. I teach apprentices and carry iron.",
        ),
        ("Voss was born on the coast.", "I was born on the coast."),
        # Whose forge would "his" be? Left for the guard, which asks again.
        ("Voss mends tools at his forge.", "Voss mends tools at his forge."),
        ("I think Maren makes the best stew.", "I think Maren makes the best stew."),
    ],
)
def test_its_own_name_as_the_subject_is_said_as_i(reply, mended):
    assert own_name_as_i(reply, "Voss", "Urien") == mended
    assert own_name_as_i(reply, "Voss", "Voss") == reply  # the speaker may be meant


def test_a_reply_of_itself_by_name_is_mended_before_the_guard_reads_it():
    client = FakeClient("At my forge, Voss makes blades.", "never asked for")
    inp = turn_input("What do you make at your forge?")
    inp.context.identity = Identity("Voss", "blacksmith")
    result = run_turn(inp, conf("speech"), client)
    assert len(client.requests) == 1
    assert result.parsed.text == "At my forge, I make blades."


def test_their_trade_told_earlier_in_the_conversation_is_not_its_own():
    """Held-out seed 17389: Maren, asked if she had a long day, "I've been busy making pottery."
    to the potter who had told her so that evening (no memory of it written yet)."""
    ctx = context("Maren", "Have you had a long day, Maren?", speaker="Ulric")
    ctx.history = [
        Turn("user", "Good evening, Maren, I'm a potter by trade. I throw jugs and bowls."),
        Turn("assistant", "Well now, Ulric, I'll keep that in mind."),
    ]
    reply = "No, Ulric, I haven't. I've been busy making pottery."
    assert "claims_what_it_remembers" in guard.slips_of(reply, ctx)
    assert guard.slips_of("No, Ulric, I haven't. I've been busy with the stew.", ctx) == []


def test_their_words_quoted_in_a_recall_stay_in_their_first_person():
    """Held-out seed 17389: "I remember that Ulric said 'I am deathly afraid of crows; ...'" was
    said as "you said 'you are deathly afraid of crows; please never laugh at you for it.'"."""
    from omniira_evennia.conversation.claims import give_back_claims

    told = "I am deathly afraid of crows; please never laugh at me for it."
    reply = f"I remember that you said '{told}'"
    memories = ["Ulric is deathly afraid of crows."]
    assert give_back_claims(reply, [told], memories, "Ulric") == (reply, 0)
    claimed = "I remember that I am deathly afraid of crows."
    assert give_back_claims(claimed, [told], memories, "Ulric")[0] == (
        "I remember that you are deathly afraid of crows."
    )


def test_asked_where_they_are_from_the_memory_that_says_so_answers_not_a_word_in_passing():
    """Held-out seed 17389: "Where did I say I come from?" answered "I remember: you earn your
    living as a butcher: you cut meat for half the town." ("town" a word of the home topic)."""
    from omniira_evennia.conversation.topics import answer_from

    home = "Viveka is from Kelmouth, down on the southern plains; it's a long way from here."
    work = "Viveka earns her living as a butcher: they cut meat for half the town."
    for line in ("Where did I say I come from?", "Where am I from, do you recall?"):
        assert answer_from(line, [home, work], [], "Viveka") == home
    assert answer_from("Do you remember my line of work?", [home, work], [], "Viveka") == work


def test_asked_what_it_pours_a_reply_naming_none_of_its_wares_did_not_know_them():
    """Held-out seed 17389: "I pour the drinks here, Edda." to "What do you pour here?"."""
    ale = "A mug of ale costs three copper."
    ctx = context("Maren", "What do you pour here?", knowledge=[ale], speaker="Edda")
    assert problem_of("I pour the drinks here, Edda.", ctx) == guard.OWN_WARES
    assert problem_of("Ale, three copper a mug, Edda.", ctx) is None


@pytest.mark.parametrize(
    "line, kind",
    [
        ("Never put onions in anything you serve me: I'm allergic.", 0),
        ("I am deathly afraid of crows; please never laugh at me for it.", 1),
        ("My mother Imogen went east with the soldiers and never wrote back.", 2),
        ("I earn my living as a butcher: I cut meat for half the town.", 3),
        ("One day I want to climb the Greyfang mountain.", 4),
        ("My most precious possession is a wooden flute my mother carved.", 5),
        ("My goat is called Barnaby, and he is getting old and slow.", 6),
        ("Maren, I'm from Kelmouth, down on the southern plains.", 7),
    ],
)
def test_a_telling_of_their_own_life_is_met_with_a_word_for_that_kind_of_thing(line, kind):
    """Held-out seed 17389: a third of the tellings met one of six clerk's courtesies ("Thank you
    for telling me, Viveka."). The words for a kind of telling never repeat theirs."""
    heard = plain_lines.heard_line(line, "Edda")
    lines = [t.format(speaker="Edda") for t in plain_lines._TOLD_KINDS[kind][1]]
    assert heard in lines
    # Both said already in the conversation: the plain line that it heard.
    plain = [t.format(speaker="Edda") for t in plain_lines._HEARD]
    assert plain_lines.heard_line(line, "Edda", lines) in plain
    # News of someone else is not their life: the plain line.
    assert plain_lines.heard_line("Brisa the schoolmistress is afraid of crows.", "Edda") in plain


@pytest.mark.parametrize(
    "npc, line, reply, slip",
    [
        # Held-out busy seed 25463.
        (
            "Wren",
            "The walk up from the docks was longer than I remembered.",
            "Oh, Gareth! You're right. The walk up from the docks was indeed longer than you "
            "remembered. It was a bit longer than you expected.",
            "restated",
        ),
        (
            "Maren",
            "Is the weather always like this here, Maren?",
            "I'm sorry, Gareth. I don't have the information about the weather here.",
            "assistant_voice",
        ),
    ],
)
def test_more_of_the_busy_run_25463(npc, line, reply, slip):
    assert slip in guard.slips_of(reply, context(npc, line, speaker="Gareth"))


def test_a_plan_told_is_no_walk_of_the_moment():
    """Held-out busy seed 25463: "I'm putting money aside to climb the Greyfang mountain." was
    met with "Well, you're here now, Yestin." (the plain line for a long walk)."""
    line = "Maren, I'm putting money aside to climb the Greyfang mountain."
    assert plain_lines.heard_line(line, "Yestin") in [
        t.format(speaker="Yestin") for t in plain_lines._TOLD_KINDS[4][1]
    ]
    walk = "The walk up from the docks was longer than I remembered."
    assert plain_lines.heard_line(walk, "Yestin") == "Well, you're here now, Yestin."


def test_a_trade_remembered_by_what_they_make_answers_what_they_do_for_a_living():
    """Held-out busy seed 25463: "The slipway where Peregrine builds fishing boats." was held,
    and "Wren, do you remember what I do for a living?" met "I don't know what you do for a
    living" (the prompt had been told it was never told)."""
    from omniira_evennia.conversation.topics import answer_from, unknown_topic

    held = ["The slipway where Peregrine builds fishing boats.", "Peregrine keeps an old goat."]
    line = "Wren, do you remember what I do for a living?"
    assert answer_from(line, held, [], "Peregrine") == held[0]
    assert unknown_topic(line, held) is None
    assert unknown_topic(line, held[1:]) == "what you do for a living"
