"""Another's trade claimed as the NPC's own (issue #24, point 3; conversation/trades.py)."""

import pytest

from omniira_evennia.conversation import guard, reminders
from omniira_evennia.conversation.prompts import Identity, PromptContext
from omniira_evennia.conversation.trades import ANOTHERS_TRADE, claimed_trades
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
