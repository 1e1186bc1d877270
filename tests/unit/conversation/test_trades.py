"""Another's trade claimed as the NPC's own (issue #24, point 3; conversation/trades.py)."""

import pytest

from omniira_evennia.conversation import guard, reminders, trades
from omniira_evennia.conversation.prompts import Identity, MemoryLine, PromptContext, Turn
from omniira_evennia.conversation.recitals import RECITES
from omniira_evennia.conversation.trades import ANOTHERS_TRADE, MISGIVEN_ROLE, claimed_trades
from omniira_evennia.knowledge.facts import KnowledgeLine

WREN = "Wren is the herbalist: she sells remedies at a market stall and tends anyone who falls ill."
VOSS = "Voss is the blacksmith: his forge is on the market square, where he mends tools and makes blades."
LYRA_OWN = "You are staying at the tavern this season; mornings and afternoons you play for coins."


def lyra(line="What do you sell?"):
    return PromptContext(
        identity=Identity("Lyra", "travelling bard", "Bright.", "You play for coins and sing."),
        speaker_name="Fenwick",
        message=line,
        knowledge=[
            KnowledgeLine(WREN, "people"),
            KnowledgeLine(VOSS, "people"),
            KnowledgeLine(LYRA_OWN, "people"),
            KnowledgeLine("A tinker's caravan is camped by the east road.", "event"),
        ],
    )


@pytest.mark.parametrize(
    "reply",
    [
        "I sell remedies and herbs.",  # held-out seed 50423, busy: Lyra, the bard
        "Oh, I mend tools and make blades, love.",
        "Well, I'm mostly selling remedies these days.",
    ],
)
def test_another_npcs_trade_claimed_is_a_slip(reply):
    ctx = lyra()
    assert ANOTHERS_TRADE in guard.slips_of(reply, ctx)
    problem = guard.voice_problem(type("P", (), {"text": reply})(), ctx, None)
    assert problem == f"slipped: {ANOTHERS_TRADE}"
    asked = reminders.asked_again([{"role": "user", "content": "What do you sell?"}], ctx, problem)
    assert "Say what you yourself do, Lyra, the travelling bard" in asked[-1]["content"]


@pytest.mark.parametrize(
    "reply",
    [
        "I sell nothing, love; I play for coins at the market.",
        "I sing for my supper. Wren sells remedies, if you're ill.",
        "I keep to the tavern this season.",
        "Nothing for sale here, only songs.",
    ],
)
def test_its_own_trade_or_anothers_named_as_theirs_is_no_slip(reply):
    assert ANOTHERS_TRADE not in guard.slips_of(reply, lyra())


def test_a_reply_that_still_claims_it_loses_that_sentence():
    ctx = lyra()
    mended = guard.repaired(
        "I sell remedies and herbs. I play at the market too.",
        f"slipped: {ANOTHERS_TRADE}",
        ctx,
        None,
    )
    assert "remedies" not in mended and mended


def test_with_no_facts_about_others_nothing_is_claimed():
    assert claimed_trades("I sell remedies.", "bard", []) == []


def voss(line="What would you recommend for my aching back?", **kw):
    return PromptContext(
        identity=Identity("Voss", "blacksmith", "Gruff.", "You mend tools and make blades."),
        speaker_name="Ulric",
        message=line,
        knowledge=[KnowledgeLine(WREN, "people"), KnowledgeLine(VOSS, "people")],
        **kw,
    )


@pytest.mark.parametrize(
    "reply",
    [
        # Held-out seed 40813: Ulric keeps no stall; the herb stall is Wren's.
        "I might recommend your herb stall, which sells willow-bark tea for aches.",
        "Ask at your market stall for a remedy.",
    ],
)
def test_anothers_trade_given_to_the_listener_is_a_slip(reply):
    ctx = voss()
    assert ANOTHERS_TRADE in guard.slips_of(reply, ctx)
    mended = guard.repaired(reply + " Rest it a while.", f"slipped: {ANOTHERS_TRADE}", ctx, None)
    assert "stall" not in mended and "Rest it a while." in mended


@pytest.mark.parametrize(
    "reply, said",
    [
        ("Wren's market stall sells remedies for your back.", ""),  # Wren's, named as hers
        ("I can mend your tools by morning.", ""),  # the NPC's own trade, for the listener
        ("How is your fish stall at the market these days?", "I keep a fish stall at the market."),
        ("Rest your back, and see Wren.", ""),
    ],
)
def test_the_listeners_own_or_the_npcs_own_is_no_slip(reply, said):
    ctx = voss(history=[Turn("user", said)] if said else [])
    assert ANOTHERS_TRADE not in guard.slips_of(reply, ctx)


def test_what_the_npc_remembers_of_the_listener_is_theirs():
    remembered = [MemoryLine("Ulric keeps a herb stall by the well.")]
    ctx = voss(memories=remembered)
    assert ANOTHERS_TRADE not in guard.slips_of("How is your herb stall?", ctx)


HERB_PRICES = (
    "Wren's herb stall sells willow-bark tea for aches at two copper a twist and a sleeping "
    "draught at five copper."
)


def test_anothers_prices_charged_as_its_own_and_its_own_prices_are_its_own():
    """Held-out seed 44207: "I charge two copper for willow-bark tea and five copper for the
    sleeping draught." from Lyra, the bard; Maren's own prices name nobody and stay hers."""
    ctx = lyra("What do you charge, Lyra?")
    ctx.knowledge.append(KnowledgeLine(HERB_PRICES, "trade"))
    reply = "I charge two copper for willow-bark tea and five copper for the sleeping draught."
    assert ANOTHERS_TRADE in guard.slips_of(reply, ctx)
    maren = PromptContext(
        identity=Identity("Maren", "tavern keeper", "Warm.", "You run the tavern."),
        speaker_name="Fenwick",
        message="What do you charge, Maren?",
        knowledge=[
            KnowledgeLine("A mug of cider costs two copper.", "trade"),
            KnowledgeLine(HERB_PRICES, "trade"),
        ],
    )
    assert guard.slips_of("I charge two copper for a mug of cider.", maren) == []


MAREN = "Maren keeps the Lantern & Lane: she pours the drinks, cooks the stew and rents the rooms."


def voss_knowing_the_town(line="Who runs things around here?"):
    ctx = voss(line)
    ctx.knowledge.append(KnowledgeLine(MAREN, "people"))
    return ctx


@pytest.mark.parametrize(
    "reply",
    [
        "Wren runs this town.",  # held-out run, 2026-12-06: Wren keeps the herb stall
        "There are several other blacksmiths in town, including Maren.",
        "Maren is the mayor's sister, you know.",
    ],
)
def test_a_known_person_given_a_role_nothing_known_holds_is_a_slip(reply):
    ctx = voss_knowing_the_town()
    assert MISGIVEN_ROLE in guard.slips_of(reply, ctx)
    problem = guard.voice_problem(type("P", (), {"text": reply})(), ctx, None)
    assert problem == f"slipped: {MISGIVEN_ROLE}"
    asked = reminders.asked_again([{"role": "user", "content": ctx.message}], ctx, problem)
    assert "only what you know of them" in asked[-1]["content"]


@pytest.mark.parametrize(
    "reply",
    [
        "Wren the herbalist can help with that.",
        "Wren, our healer, tends the sick.",
        "I'm the blacksmith here, and Maren pours the drinks.",
        "I don't know who the mayor is. Ask Maren.",
        "The mayor is a fair man.",
    ],
)
def test_a_role_the_facts_hold_or_denied_or_of_nobody_known_is_no_slip(reply):
    assert MISGIVEN_ROLE not in guard.slips_of(reply, voss_knowing_the_town())


def test_a_misgiven_role_past_mending_loses_that_sentence():
    mended = guard.repaired(
        "Wren runs this town. She sells remedies at the market.",
        f"slipped: {MISGIVEN_ROLE}",
        voss_knowing_the_town(),
        None,
    )
    assert mended == "She sells remedies at the market."


def test_the_role_of_someone_it_does_not_know_is_theirs():
    # Held-out replay: the sentence names Lyra, and the miller is Harlan, told of by a player.
    reply = "Lyra plays up in Vellmoor, where Harlan the miller might be around."
    assert MISGIVEN_ROLE not in guard.slips_of(reply, voss_knowing_the_town())


def test_asked_what_it_does_past_mending_the_npc_says_its_own_work():
    # Held-out seed 71993: "Hard to say, Merrick. I'd have to think on it." to "What do you do
    # here?"
    own = "You keep the Lantern & Lane: you pour the drinks, cook the stew and rent the rooms."
    ctx = PromptContext(
        identity=Identity("Maren", "tavern keeper"),
        speaker_name="Merrick",
        message="What do you do here?",
        knowledge=[KnowledgeLine(own, "people")],
    )
    assert guard.last_line(ctx, None, None) == (
        "I keep the Lantern & Lane: I pour the drinks, cook the stew and rent the rooms."
    )
    ctx.knowledge = []
    assert guard.last_line(ctx, None, None) == "I'm the tavern keeper here, Merrick."
    ctx.message = "The road was full of pilgrims today."
    assert "tavern keeper" not in guard.last_line(ctx, None, None)


def test_asked_what_it_sells_another_npcs_trade_is_no_answer():
    # Held-out seed 92821: "What do you sell?" to Lyra, "Wren sells remedies at a market stall
    # and tends anyone who falls ill." (the fact about Wren in front of her).
    wren = "Wren is the herbalist: she sells remedies at a market stall and tends anyone who falls ill."
    own = "You are staying at the tavern this season; mornings and afternoons you play for coins."
    ctx = PromptContext(
        identity=Identity("Lyra", "travelling bard"),
        speaker_name="Idris",
        message="What do you sell?",
        knowledge=[KnowledgeLine(wren, "people"), KnowledgeLine(own, "people")],
    )
    reply = "Wren sells remedies at a market stall and tends anyone who falls ill."
    problem = guard.voice_problem(type("P", (), {"text": reply})(), ctx, None)
    assert problem == f"slipped: {RECITES}"
    assert guard.repaired(reply, problem, ctx, None) == (
        "I am staying at the tavern this season; mornings and afternoons I play for coins."
    )


def test_its_wares_denied_are_asked_again_and_said_in_its_own_voice():
    # Held-out seed 86753: "I don't charge." from Voss, his prices in front of him.
    prices = "At his forge Voss mends a tool for two copper and sells a good knife for one silver."
    ctx = voss("What do you charge, Voss?")
    ctx.knowledge.append(KnowledgeLine(prices, "trade"))
    reply = type("P", (), {"text": "I don't charge."})()
    assert guard.voice_problem(reply, ctx, None) == reminders.OWN_WARES
    assert guard.wares_line(ctx) == (
        "At my forge I mend a tool for two copper and sell a good knife for one silver."
    )


def test_a_question_of_their_own_life_is_no_question_of_its_wares():
    # Held-out seed 92821: "At my forge I mend a tool for two copper ..." to a newcomer's "Voss,
    # what do I dream of doing one day?" (the name and "one" were all they shared).
    prices = "At his forge Voss mends a tool for two copper and sells a good knife for one silver."
    ctx = voss("Voss, what do I dream of doing one day?")
    ctx.knowledge.append(KnowledgeLine(prices, "trade"))
    assert guard.wares_line(ctx) == ""
    ctx.message = "Could I have my tool mended, Voss?"
    assert guard.wares_line(ctx).startswith("At my forge I mend a tool")


def test_hollow_agreement_after_their_name_is_cut():
    # Held-out seed 86753.
    from omniira_evennia.conversation.repairs import without_hollow_agreement

    line = "My sister Ottilie lives alone out past the marsh road."
    reply = "Oh, Zinnia, you're right. Ottilie lives out past the marsh road."
    assert without_hollow_agreement(reply, line) == "Ottilie lives out past the marsh road."


def test_their_me_left_in_the_npcs_mouth_is_claimed():
    # Held-out seed 69127: Lyra to "What can't I eat, do you remember?".
    notes = ['Winslow said: "Never put eggs in anything you serve me: I\'m allergic."']
    reply = "Yes, I remember that you can't put eggs in anything you serve me."
    assert trades.remembered_as_mine(reply, notes, "Winslow") == [reply]
    turned = "You told me never to put eggs in anything I serve you."
    assert trades.remembered_as_mine(turned, notes, "Winslow") == []


def test_their_doing_by_name_said_as_the_npcs_beside_you_is_claimed():
    # Held-out seed 50993: Wren to "What is my goat called?".
    notes = [
        "Pudding was half-starved when Peregrine found him on the road.",
        "Peregrine came here from Larkhaven, on the coast.",
    ]
    reply = "You called your goat Pudding, and he was half-starved when I found him on the road."
    assert trades.remembered_as_mine(reply, notes, "Peregrine") == [reply]
    assert trades.remembered_as_mine("I came here from the coast myself.", notes, "Peregrine") == []
    told = "Your goat Pudding was half-starved when you found him on the road."
    assert trades.remembered_as_mine(told, notes, "Peregrine") == []


def test_its_own_wares_fact_by_its_name_is_said_in_the_first_person():
    # Held-out seed 73811: Wren said "Wren's herb stall sells willow-bark tea ..." of herself.
    from omniira_evennia.conversation.repairs import in_first_person

    stall = "Wren's herb stall sells willow-bark tea for aches at two copper a twist."
    assert in_first_person(stall, "Wren") == (
        "My herb stall sells willow-bark tea for aches at two copper a twist."
    )
    forge = "At his forge Voss mends a tool for two copper and sells a good knife"
    assert in_first_person(forge, "Voss") == (
        "At my forge I mend a tool for two copper and sell a good knife"
    )


def test_their_trade_in_the_npcs_own_words_asked_of_is_claimed():
    # Telnet trial, 2026-12-07 (a busy machine): Lyra to "What do I do for a living, Lyra?".
    notes = ["Perpetua weaves baskets from river willow for a living."]
    asked = "What do I do for a living, Lyra?"
    mine = "I know how to weave baskets from river willow for a living."
    assert trades.remembered_as_mine(mine, notes, "Perpetua", asked) == [mine]
    said_to_them = "You weave baskets from river willow."
    assert trades.remembered_as_mine(said_to_them, notes, "Perpetua", asked) == []
    own = "I sing river ballads for a living."
    assert trades.remembered_as_mine(own, notes, "Perpetua", asked) == []
    # Not asked of their life: the NPC may speak of its own work.
    assert trades.remembered_as_mine(mine, notes, "Perpetua", "What do you sell?") == []
