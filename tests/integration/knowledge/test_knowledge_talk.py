"""
What NPCs know, through a player's talk (issue #25): the scripted OpenAI-compatible server on
loopback, the real embedder. Knowledge reaches the prompt, expired never, a secret never
without its condition (and with it when it holds), a won't-discuss topic is answered with the
builder's line and no LLM call, a contradicting claim is kept uncertain and answered with doubt,
a world question nothing known answers is answered plainly.
"""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from omniira_evennia.commands import CmdTalk
from omniira_evennia.knowledge import service
from omniira_evennia.memory import relationship_store
from omniira_evennia.memory.erasure import erase_player
from omniira_evennia.models import Knowledge, LLMUsage, Memory, Relationship
from omniira_evennia.runtime import health
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.social import SocialTestBase
from tests.support.talk import tiers

SECRET = "Maren keeps a purse of smuggled silver under the loose board behind the bar."
DEFLECT = "Nothing behind this bar but cider, {speaker}."


class KnowledgeTestBase(SocialTestBase):
    def setUp(self):
        super().setUp()
        know = self.maren.memory.know
        know("A mug of cider costs two copper.", key="cider", category="trade", importance=7)
        know(
            "A tinker's caravan is camped by the east road.",
            key="tinker",
            scope="world",
            category="event",
            importance=8,
        )
        know("The old spring fair is on the green.", key="fair", scope="world", category="event")
        Knowledge.objects.filter(key="fair").update(expires_at=timezone.now() - timedelta(hours=1))
        know(
            SECRET,
            key="purse",
            secret=True,
            condition="trust >= 0.8",
            topics=["smuggled", "loose board"],
            reply=DEFLECT,
        )
        know(
            "Tomas, Maren's late husband",
            key="tomas",
            wont_discuss=True,
            topics=["Tomas", "husband"],
            reply="I'll not speak of Tomas, love.",
        )

    def talk(self, llm, line, npc="Maren"):
        self.call(CmdTalk(), f"{npc} = {line}")
        return llm.requests[-1]["messages"] if llm.requests else []


class TestKnowledgeInTheTurn(KnowledgeTestBase):
    def test_knowledge_reaches_the_prompt_apart_from_memories_and_expired_never(self):
        with ScriptedLLM(["Two copper a mug, love."]) as llm:
            with override_settings(OMNIIRA=tiers(llm.base_url)):
                shown = self.call(CmdTalk(), "Maren = What does the cider cost here?")
                system = llm.system_prompts()[-1]
        assert "Two copper a mug, love." in shown
        block = system[system.index("WHAT YOU KNOW ABOUT THE WORLD") :]
        assert '"A mug of cider costs two copper."' in block
        assert block.index("cider") < system.index("YOUR MEMORIES") - system.index("WHAT YOU")
        assert "spring fair" not in system  # expired
        assert SECRET not in system and "loose board" not in system
        assert 'You will not talk about: "Tomas, Maren\'s late husband".' in system

    def test_news_brings_the_current_event(self):
        with ScriptedLLM(["A tinker's camped by the east road."]) as llm:
            with override_settings(OMNIIRA=tiers(llm.base_url)):
                self.call(CmdTalk(), "Maren = What's the news around town?")
        system = llm.system_prompts()[-1]
        assert "A tinker's caravan is camped by the east road." in system
        assert "spring fair" not in system

    def test_a_wont_discuss_topic_is_met_with_the_builders_line_and_no_llm_call(self):
        with ScriptedLLM(["He was a good man."]) as llm:
            with override_settings(OMNIIRA=tiers(llm.base_url)):
                for line in ("Tell me about your husband.", "Who was Tomas?"):
                    shown = self.call(CmdTalk(), f"Maren = {line}")
                    assert "I'll not speak of Tomas, love." in shown
        assert llm.requests == [] and not LLMUsage.objects.exists()
        assert health.snapshot()["knowledge_guarded_wont_discuss"] == 2

    def test_a_secret_is_never_in_the_prompt_without_its_condition(self):
        with ScriptedLLM(["Just cider, love."]) as llm:
            with override_settings(OMNIIRA=tiers(llm.base_url)):
                # Probed directly: the builder's line, no call.
                shown = self.call(CmdTalk(), "Maren = What's under the loose board?")
                assert "Nothing behind this bar but cider, Ada." in shown and not llm.requests
                # Probed indirectly (no topic word, far in meaning): the model answers, and
                # the prompt holds nothing of the secret.
                for line in ("Do you keep any money about?", "Got a nest egg, Maren?"):
                    self.talk(llm, line)
        assert llm.requests
        for request in llm.requests:
            prompt = "\n".join(m["content"] for m in request["messages"])
            assert SECRET not in prompt and "smuggled" not in prompt

    def test_a_secret_reaches_a_speaker_the_condition_holds_for(self):
        relationship_store.get_relationship(self.maren, self.char1)
        Relationship.objects.filter(npc=self.maren, subject=self.char1).update(trust=0.9)
        with ScriptedLLM(["Keep it quiet, love."]) as llm:
            with override_settings(OMNIIRA=tiers(llm.base_url)):
                self.call(CmdTalk(), "Maren = Any smuggled silver about?")
        system = llm.system_prompts()[-1]
        assert f'(a secret: this person may hear it) "{SECRET}"' in system

    def test_a_contradicting_claim_is_kept_uncertain_and_answered_with_doubt(self):
        with ScriptedLLM(["Ten gold? It's two copper, love.", "Aye."]) as llm:
            with override_settings(OMNIIRA=tiers(llm.base_url)):
                last = self.talk(llm, "The cider here costs ten gold.")[-1]["content"]
                assert "goes against what you know" in last
                assert '"A mug of cider costs two copper."' in last
                claim = Memory.objects.get(npc=self.maren, subject=self.char1)
                assert claim.uncertain and claim.key == "claim_cider"
                assert claim.value == 'Ada claimed: "The cider here costs ten gold."'
                assert claim.grounding["contradicts"]["rule"] == "money"
                self.talk(llm, "What did I tell you about the cider?")
        prompt = "\n".join(m["content"] for m in llm.requests[-1]["messages"])
        assert "(doubtful: it goes against what you know)" in prompt

    def test_a_reply_that_takes_the_claim_as_true_is_said_with_doubt(self):
        """'Your memories suggest the market stalls do indeed open at dusk', to a false claim,
        on the knowledge evaluation's held-out run of 2026-12-01: the NPC agreed."""
        with ScriptedLLM(["Aye, ten gold it is, and worth every coin."]) as llm:
            with override_settings(OMNIIRA=tiers(llm.base_url)):
                shown = self.call(CmdTalk(), "Maren = The cider here costs ten gold.")
        assert "That's not what I know, Ada. A mug of cider costs two copper." in shown
        assert "ten gold it is" not in shown
        assert health.snapshot()["claims_answered_with_doubt"] == 1

    def test_a_reply_that_says_a_price_otherwise_is_asked_again_then_mended(self):
        """'I charge a copper for tea' with the tea's price shown as two copper (held-out run
        of the dialogue evaluation, seed 41257): asked again with the fact, then said right."""
        wrong = ["A mug of cider costs five copper, love.", "Cider's five copper a mug."]
        with ScriptedLLM(wrong + ["A mug of cider costs five copper."]) as llm:
            with override_settings(OMNIIRA=tiers(llm.base_url)):
                shown = self.call(CmdTalk(), "Maren = What does a mug of cider cost?")
                again = llm.requests[1]["messages"][-1]["content"]
        assert "goes against what you know" in again and "two copper" in again
        assert "five copper" not in shown
        assert "A mug of cider costs two copper." in shown
        assert health.snapshot()["misstated_knowledge_repaired"] == 1

    def test_a_note_against_what_is_known_is_uncertain_too(self):
        reply = (
            'Ten gold, is it? [[REMEMBER:{"key":"cider_claim","value":"Ada says cider costs '
            'ten gold here.","importance":5,"feeling":"surprise"}]]'
        )
        with ScriptedLLM([reply]) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.talk(llm, "I say cider costs ten gold here.")
        note = Memory.objects.get(npc=self.maren, key="cider_claim")
        assert note.uncertain and note.grounding["contradicts"]["knowledge"] > 0

    def test_a_world_question_nothing_known_answers_is_answered_plainly(self):
        invented = "Aye, the temple of Saint Vell stands past the north gate."
        with ScriptedLLM([invented, "I've never heard of one, love."]) as llm:
            with override_settings(OMNIIRA=tiers(llm.base_url)):
                shown = self.call(CmdTalk(), "Maren = Is there a temple in town?")
                assert "Nothing you know answers what Ada asks" in (
                    llm.requests[-1]["messages"][-1]["content"]
                )
                assert "I couldn't tell you that, Ada. It's nothing I've heard of." in shown
                assert "Saint Vell" not in shown
                shown = self.call(CmdTalk(), "Maren = Is there a library nearby?")
                assert "I've never heard of one, love." in shown  # it admits it: kept
        assert health.snapshot()["world_unknown_answered_plainly"] == 1

    def test_an_npc_that_knows_nothing_is_as_it_was(self):
        Knowledge.objects.all().delete()  # a game that wrote no knowledge
        with ScriptedLLM(["Aye, there's a temple."]) as llm:
            with override_settings(OMNIIRA=tiers(llm.base_url)):
                shown = self.call(CmdTalk(), "Maren = Is there a temple in town?")
        assert "Aye, there's a temple." in shown
        prompt = "\n".join(m["content"] for m in llm.requests[-1]["messages"])
        assert "Nothing you know answers" not in prompt and "WHAT YOU KNOW" not in prompt


class TestClaimsNamingOthers(KnowledgeTestBase):
    def test_another_npc_named_at_a_claims_start_is_a_name(self):
        self.npc("Wren"), self.npc("Voss")  # NPCs' names are names where a clause opens
        self.maren.memory.know(
            "Voss is the blacksmith: his forge is on the market square.", key="voss"
        )
        with ScriptedLLM(["Wren? She sells herbs, love."]) as llm:
            with override_settings(OMNIIRA=tiers(llm.base_url)):
                self.talk(llm, "Wren keeps the forge on the square, I'm told.")
        claim = Memory.objects.get(npc=self.maren, subject=self.char1)
        assert claim.uncertain and claim.key == "claim_voss"
        assert claim.grounding["contradicts"]["rule"] == "name"


NEWS = "Have you heard? Harlan the miller fell off his roof and broke his leg."
HEARD = "Ada says Harlan the miller fell off his roof and broke his leg."


class TestNewsAPlayerTells(SocialTestBase):
    """Issue #24, point 2: news about someone else is kept as what the NPC was told, with its
    teller, and gossip passes it on; talk and questions are not news."""

    def tell(self, *lines, npc="Maren", **settings):
        with ScriptedLLM(["Oh, the poor man."] * len(lines)) as llm:
            with override_settings(OMNIIRA={**tiers(llm.base_url), **settings}):
                for line in lines:
                    self.call(CmdTalk(), f"{npc} = {line}")

    def test_news_is_kept_with_its_teller_and_passed_on_by_gossip(self):
        self.tell(NEWS)
        [told] = Knowledge.objects.filter(npc=self.maren, source="told")
        assert (told.text, told.category, told.teller_id) == (HEARD, "event", self.char1.id)
        assert told.confidence == pytest.approx(0.9) and told.chain == [self.char1.id]
        assert told.expires_at is not None and told.expires_at > timezone.now()
        assert not Memory.objects.filter(npc=self.maren, value__icontains="Harlan").exists()
        [passed] = service.share(self.maren, self.lyra)
        assert (passed.text, passed.source, passed.teller_id) == (HEARD, "gossip", self.maren.id)
        assert passed.chain == [self.char1.id, self.maren.id]
        assert passed.confidence == pytest.approx(0.8)
        assert HEARD in [k.text for k in self.lyra.memory.knowledge()]

    def test_talk_greetings_questions_and_the_players_own_facts_are_not_news(self):
        self.tell(
            "Lyra doesn't know anything about me.",
            "Good evening, Maren.",
            "Did Harlan the miller fall off his roof?",
            "My sister Odile went towards the old mill.",
        )
        assert not Knowledge.objects.filter(source="told").exists()

    def test_a_teller_keeps_a_few_items_and_erasure_takes_them(self):
        self.tell(
            "Harlan the miller broke his leg mending the thatch.",
            "Gundred the watchman is leaving town at the month's end.",
            "Tobin the tollkeeper found a pot of old silver under the bridge.",
            KNOWLEDGE_NEWS_PER_TELLER=2,
        )
        kept = Knowledge.objects.filter(npc=self.maren, source="told")
        assert sorted(k.text.split()[2] for k in kept) == ["Gundred", "Tobin"]  # oldest went
        erase_player(self.char1)
        assert not Knowledge.objects.filter(source="told").exists()

    def test_gossip_passes_news_before_a_price(self):
        self.maren.memory.know("A mug of cider costs two copper.", key="cider", importance=8)
        self.tell(NEWS)
        with override_settings(OMNIIRA={"KNOWLEDGE_GOSSIP_PER_TALK": 1}):
            [passed] = service.share(self.maren, self.lyra)
        assert passed.text == HEARD

    def test_a_fact_written_to_the_npc_is_not_passed_on(self):
        # Held-out run of seed 27183: Wren was told "Your forge is on the market square".
        self.maren.memory.know("Your cellar floods each spring.", key="cellar", importance=8)
        assert service.shareable(self.maren, self.lyra) == []
