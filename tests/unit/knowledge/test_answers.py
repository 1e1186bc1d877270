"""What a turn does with knowledge (knowledge/answers.py) and how the prompt shows it."""

import numpy as np
import pytest

from omniira_evennia.conf import build_settings
from omniira_evennia.conversation.prompts import (
    Identity,
    PinnedPrompt,
    PromptContext,
    build_messages,
    render_system_prompt,
)
from omniira_evennia.knowledge import answers, naming
from omniira_evennia.knowledge.contradiction import Contradiction
from omniira_evennia.knowledge.facts import Guard, KnowledgeLine, KnowledgeRecord
from omniira_evennia.knowledge.selection import KnowledgeIndex, KnowledgeView

CIDER = KnowledgeRecord(1, "cider", "A mug of cider costs two copper.", category="trade")
ROAD = KnowledgeRecord(2, "road", "The east road runs to the river docks.", category="place")
SECRET = KnowledgeRecord(3, "purse", "Maren keeps silver under the board.", guard="secret")
TOMAS = Guard(4, "wont_discuss", "tomas", ("tomas",), "No.", topic="Tomas, her late husband")


def view(**fields):
    records = [CIDER, ROAD, SECRET]
    group = KnowledgeIndex("n1", records, np.eye(3, 8, dtype=np.float32), [True] * 3)
    return KnowledgeView(groups=[group], guards=[TOMAS], **fields)


CONF = build_settings({}, {})


def test_claims_against_what_the_speaker_may_be_shown():
    [doubt] = answers.doubts(view(), "The cider here costs ten gold.", None, ("Maren",))
    assert doubt.knowledge_id == 1
    note = answers.doubt_note([doubt], "Ada")
    assert "goes against what you know" in note and '"A mug of cider costs two copper."' in note
    assert answers.doubts(view(), "Maren keeps gold under the board.", None) == []  # secret
    assert answers.doubts(None, "The cider costs ten gold.", None) == []


def test_a_world_question_nothing_known_answers():
    def unknown(line, vector=None):
        return answers.unanswered(line, view(), ["tavern keeper"], vector, CONF, names={"Maren"})

    assert unknown("Is there a temple in town?") == "templ"
    assert unknown("Where does the east road go?") is None  # its words are known
    assert unknown("What's the news?") is None  # asks nothing in particular
    assert unknown("Do you like it here?") is None  # about the NPC
    assert unknown("What is my horse called?") is None  # the speaker's own life: voice.py's
    assert unknown("What frightens me most?") is None  # theirs too (telnet trial, 2026-12-08)
    assert unknown("What worries me, do you think?") is None
    assert unknown("Where is the temple, tell me?") == "templ"  # "tell me": the world's
    assert unknown("Is there a temple?", np.eye(1, 8, 0, dtype=np.float32)[0]) is None  # meaning
    assert unknown("The temple is grand.") is None  # not a question
    # Small talk, not a world fact to know (held-out run of seed 52817 answered it "I couldn't
    # tell you that, Niall. It's nothing I've heard of.").
    assert unknown("Is the weather always like this here, Maren?") is None
    assert answers.unanswered("Is there a temple?", None, [], None, CONF) is None  # knows nothing
    # Held-out runs: the words that ask for wares, of one who knows its prices (six of six told
    # "It's nothing I've heard of."); a thing it was never told of is still unknown.
    assert unknown("What's on the menu tonight?") is None
    assert unknown("What does a horse cost here?") == "hors"


def test_a_name_nothing_known_gives_is_unanswered_though_its_thing_is_known():
    # Held-out run of seed 61961: "Lyra, what's the name of this town?" met "The town is The
    # Lantern & Lane." ("town" is a word every question uses; a fact about the town names none).
    def unknown(line, context=("tavern keeper",)):
        return answers.unanswered(line, view(), list(context), None, CONF, names={"Lyra", "Ada"})

    assert unknown("Lyra, what's the name of this town?") == "town"
    assert unknown("What is the river called?") == "river"  # ROAD speaks of the river docks
    assert unknown("What do folk call the hills to the north?") == "hill north"
    assert unknown("What is this town called?", ["Ashby is a market town."]) is None
    assert unknown("What's the name of the river?", ["The river Wend runs east."]) is None
    assert unknown("What's the blacksmith's name?", ["Voss is the blacksmith."]) is None
    assert unknown("Who sells bread? What's the baker's name?", ["Old Hob the baker."]) is None
    assert unknown("What's your name?") is None  # about the NPC


def test_what_names_a_thing():
    assert naming.names_thing("This is the town of Ashby.", {"town"})
    assert naming.names_thing("The river called Wend runs east.", {"river"})
    assert naming.names_thing("The healer is Wren.", {"healer"})
    assert not naming.names_thing("The Lantern & Lane is the town's tavern.", {"town"})
    assert not naming.names_thing("Maren keeps the town tavern.", {"town"})
    assert not naming.names_thing("The east road runs down to the river docks.", {"river"})


def test_the_prompt_shows_knowledge_apart_from_memories_and_never_a_withheld_secret():
    recalled = answers.prompt_lines([CIDER], view())
    ctx = PromptContext(
        identity=Identity("Maren", role="tavern keeper"),
        speaker_name="Ada",
        message="What does cider cost?",
        knowledge=recalled.lines,
        wont_discuss=recalled.wont_discuss,
    )
    for turn_format in ("tags", "json", "speech"):
        system = render_system_prompt(ctx, turn_format)
        assert "WHAT YOU KNOW ABOUT THE WORLD" in system
        assert '- "A mug of cider costs two copper."' in system
        assert 'You will not talk about: "Tomas, her late husband".' in system
        assert SECRET.text not in system
        assert system.index("WHAT YOU KNOW") < system.index("YOUR MEMORIES")


def test_its_own_life_is_shown_in_its_own_voice():
    # Held-out busy seed 57287: written to it, Voss's own brother became the player's ("Lucan is
    # your brother, builder of boats on the coast").
    own = KnowledgeRecord(
        4, "voss_kin", "You live alone; your brother builds boats on the coast.", scope="npc"
    )
    anyone = KnowledgeRecord(5, "bread", "You can buy bread at Old Hob's stall.")
    lines = answers.prompt_lines([own, anyone], None).lines
    assert [line.own for line in lines] == [True, False]
    ctx = PromptContext(identity=Identity("Voss"), speaker_name="Ada", message="Kin?")
    ctx.knowledge = lines
    system = render_system_prompt(ctx, "speech")
    assert '- (about yourself) "I live alone; my brother builds boats on the coast."' in system
    assert '- "You can buy bread at Old Hob\'s stall."' in system


def test_knowledge_a_later_line_brings_comes_with_that_line():
    ctx = PromptContext(identity=Identity("Maren"), speaker_name="Ada", message="And the road?")
    pinned = PinnedPrompt(system=render_system_prompt(ctx, "speech"))
    ctx.knowledge = answers.prompt_lines([ROAD], None).lines
    last = build_messages(ctx, "speech", pinned)[-1]["content"]
    assert "(What you know of the world that bears on this line:)" in last
    assert '"The east road runs to the river docks."' in last


DOUBT = Contradiction(
    1, "The market stalls open at dawn. They close at dusk.", "The stalls open at noon", "time", ""
)


@pytest.mark.parametrize(
    "reply, doubted",
    [
        ("No, they open at dawn, love.", True),  # says what is known
        ("That's not what I heard.", True),  # says it doubts it
        ("Aye, the stalls do open at noon.", False),  # the claim again, as true
        ("Well now, I'll keep that in mind.", False),  # neither
        # Held-out run of seed 80537: the truth in passing, the claim taken as right.
        ("Ada was correct about the stalls. They open not at dawn but at noon.", False),
        ("You're right, they open at noon and not at dawn.", False),
        # Held-out run of seed 70423: the prompt's note read back, nothing known said.
        ("What Emrys just said goes against what I know, Emrys.", False),
    ],
)
def test_a_reply_to_a_claim_doubts_it_or_says_what_is_known(reply, doubted):
    assert answers.disputes(reply, DOUBT) is doubted


def test_the_doubting_line_says_the_sentence_the_claim_is_about():
    assert answers.doubting_line(DOUBT, "Ada") == (
        "That's not what I know, Ada. The market stalls open at dawn."
    )
    own = Contradiction(
        2, "You keep the Lantern & Lane.", "Wren keeps the Lantern & Lane", "name", ""
    )
    assert answers.doubting_line(own, "Ada") == "That's not what I know, Ada."
    # Held-out seed 33071: Voss said of himself "At his forge Voss mends a tool ...".
    forge = Contradiction(
        3,
        "At his forge Voss mends a tool for two copper and sells a good knife for one silver.",
        "Voss, a good knife is nine silver.",
        "price",
        "",
    )
    assert (
        answers.doubting_line(forge, "Ilsa", "Voss") == "That's not what I know, Ilsa: one silver."
    )
    assert answers.doubting_line(forge, "Ilsa", "Maren").startswith(
        "That's not what I know, Ilsa. At his forge Voss"
    )


def test_asked_for_news_a_reply_that_tells_none_tells_the_first():
    # Telnet trial of `make demo`: "Any news around town?" "No, Haldor." with the news shown.
    told = KnowledgeLine("Briony says Harlan the miller broke his leg.", category="event")
    heard = KnowledgeLine("The bridge is out.", category="event", heard_from="Voss")
    price = KnowledgeLine("A mug of cider costs two copper.", category="trade")
    own = KnowledgeLine("Your cellar floods in spring.", category="event")
    assert answers.untold_news("Any news around town?", [price, told], "No, Haldor.") == (
        "Have you heard? Briony says Harlan the miller broke his leg."
    )
    assert answers.untold_news("What's new?", [heard], "Nothing.") == (
        "Have you heard? Voss told me: The bridge is out."
    )
    assert answers.untold_news("Any news?", [told], "Harlan broke his leg, poor man.") is None
    assert answers.untold_news("Any news?", [price, own], "No.") is None  # no news to tell
    assert answers.untold_news("What's on tonight?", [told], "Stew.") is None  # not the news


def test_news_told_after_asking_whether_it_was_heard_is_not_answered_with_the_npcs_own():
    """Held-out seed 73019: "Have you heard the news? Petra the gravedigger is leaving town for
    good." was answered "Have you heard? A tinker's caravan is camped by the east road", three
    players' news each; the player was telling, not asking."""
    caravan = KnowledgeLine("A tinker's caravan is camped by the east road.", category="event")
    for line in (
        "Have you heard the news? Petra the gravedigger is leaving town for good.",
        "Did you hear? Wren lost her purse at the ferry crossing.",
    ):
        assert answers.untold_news(line, [caravan], "Oh, poor Petra.") is None
    # Still asked: a short "Did you hear?" alone, or news asked for after a greeting.
    assert answers.untold_news("Evening. Did you hear any news?", [caravan], "No.") is not None
