"""
Grounded memory, one check in the write policy for every source (issue #24, point 1): the
NPC's own tag, the conversation-end review, gossip and the nightly reflection each keep only
what rests on what was said, and record what they refuse, visibly to builders.
"""

import json

from django.test import override_settings

import omniira_evennia as omniira
from omniira_evennia.admin_commands import CmdMemory
from omniira_evennia.commands import CmdTalk
from omniira_evennia.conversation import lifecycle
from omniira_evennia.models import AuditLog, Conversation, Memory, Reflection
from omniira_evennia.rollover import service as daily
from omniira_evennia.social import service as social
from omniira_evennia.social.gossip import ExchangeResult, GossipItem
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.social import Router, SocialTestBase
from tests.support.talk import tiers


def tag(value, key="fact"):
    return "[[REMEMBER:" + json.dumps({"key": key, "value": value, "importance": 6}) + "]]"


class TestGroundedMemory(SocialTestBase):
    def test_the_npcs_tag_from_a_question_is_refused_and_audited(self):
        reply = "Family? " + tag("Ada has family here.", "family")
        with ScriptedLLM([reply]) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(CmdTalk(), "Maren = Do you have family here?")
        assert not Memory.objects.filter(subject=self.char1).exists()
        [row] = AuditLog.objects.filter(kind="ungrounded")
        assert row.excerpt == "Ada has family here." and "questions only" in row.labels[0]

    def test_the_npcs_tag_resting_on_the_players_words_is_kept_with_its_grounds(self):
        reply = "Deep water, love? " + tag("Ada is afraid of deep water.", "fear")
        with ScriptedLLM([reply]) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(CmdTalk(), "Maren = I'm afraid of deep water, always have been.")
        memory = Memory.objects.get(subject=self.char1)
        assert memory.grounding["line"] == "I'm afraid of deep water, always have been."
        assert "deep" in memory.grounding["words"] and "water" in memory.grounding["words"]

    def test_the_review_keeps_what_was_said_and_shows_what_it_refused(self):
        router = Router(
            voice=["Aye."],
            extraction=[
                {"key": "fear", "value": "Ada is afraid of deep water.", "importance": 5},
                {"key": "spiders", "value": "Ada is afraid of spiders.", "importance": 5},
                {"key": "sister", "value": "Ada's sister was looking for her.", "importance": 5},
            ],
        )
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(CmdTalk(), "Maren = I'm afraid of deep water.")
            self.call(CmdTalk(), "Maren = I'm looking for my sister.")
            self.call(CmdTalk(), "Maren = Goodbye!")
            lifecycle.process_ended()
            shown = self.call(CmdMemory(), "reviews Maren")
        kept = list(Memory.objects.filter(source="extracted").values_list("value", flat=True))
        # The sister the review turned round is kept as Ada said it.
        assert kept == ["Ada is afraid of deep water.", 'Ada said: "I\'m looking for my sister."']
        conv = Conversation.objects.get(npc=self.maren)
        assert [r["value"] for r in conv.rejected] == [
            "Ada is afraid of spiders.",
            "Ada's sister was looking for her.",
        ]
        assert "refused 'Ada is afraid of spiders.': not in their words: spiders" in shown
        assert "other way round" in shown

    def test_a_reviewed_fact_that_lost_its_thing_is_kept_as_the_players_words(self):
        router = Router(
            voice=["Aye."],
            extraction=[{"key": "fear", "value": "Ada fears them more than anything."}],
        )
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(
                CmdTalk(), "Maren = If I go pale, it's spiders: I fear them more than anything."
            )
            self.call(CmdTalk(), "Maren = Goodbye!")
            lifecycle.process_ended()
        memory = Memory.objects.get(source="extracted")
        assert memory.value == (
            'Ada said: "If I go pale, it\'s spiders: I fear them more than anything."'
        )
        assert memory.grounding["line"].startswith("If I go pale")
        assert memory.embedding is not None  # made from the quote, after the write

    def test_a_reviewed_fact_that_names_nobody_is_kept_as_the_players_words(self):
        # Held-out seed 48527: "Tarnow, down on the southern plains." was kept, and the NPC
        # asked where the player's home was said it had never been told.
        router = Router(
            voice=["Aye."],
            extraction=[{"key": "home_town", "value": "Tarnow, down on the southern plains."}],
        )
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(
                CmdTalk(), "Maren = Maren, home for me is Tarnow, down on the southern plains."
            )
            self.call(CmdTalk(), "Maren = Goodbye!")
            lifecycle.process_ended()
        memory = Memory.objects.get(source="extracted")
        assert memory.value == 'Ada said: "Home for me is Tarnow, down on the southern plains."'

    def test_a_reviewed_fact_under_a_miscopied_name_is_kept_as_the_players_words(self):
        # Held-out seed 71993: "Bryn has a speckled raven named Pocket; ..." kept for Berwyn,
        # and Voss answered Berwyn with Bryn's raven.
        value = "Adda has a speckled raven named Pocket; she sleeps at the foot of Ada's bed."
        router = Router(voice=["Aye."], extraction=[{"key": "pet", "value": value}])
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(
                CmdTalk(), "Maren = I have a speckled raven named Pocket; she sleeps on my bed."
            )
            self.call(CmdTalk(), "Maren = Goodbye!")
            lifecycle.process_ended()
        memory = Memory.objects.get(source="extracted")
        assert (
            memory.value
            == 'Ada said: "I have a speckled raven named Pocket; she sleeps on my bed."'
        )

    def test_a_reviewed_fact_half_turned_round_is_kept_as_the_players_words(self):
        # Held-out seed 77213: "Jessamy shellfish makes her break out in a rash, ..." was kept
        # and read back to her as "I remember: Jessamy shellfish makes her ...".
        router = Router(
            voice=["Aye."],
            extraction=[
                {
                    "key": "rash",
                    "value": "Ada shellfish makes her break out in a rash, so keep it off her plate.",
                }
            ],
        )
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(
                CmdTalk(),
                "Maren = Shellfish makes me break out in a rash, so keep it off my plate.",
            )
            self.call(CmdTalk(), "Maren = Goodbye!")
            lifecycle.process_ended()
        memory = Memory.objects.get(source="extracted")
        assert memory.value == (
            'Ada said: "Shellfish makes me break out in a rash, so keep it off my plate."'
        )

    def test_what_the_review_left_out_is_kept_in_the_players_words(self):
        router = Router(
            voice=["Aye."],
            extraction=[{"key": "trade", "value": "Ada is a shepherd by trade."}],
        )
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(CmdTalk(), "Maren = I'm a shepherd by trade.")
            self.call(CmdTalk(), "Maren = I have a son called Casimir; he went east.")
            self.call(CmdTalk(), "Maren = My cloak is soaked through.")  # no fact of the kinds
            self.call(CmdTalk(), "Maren = Goodbye!")
            lifecycle.process_ended()
            shown = self.call(CmdMemory(), "inspect Maren")
        kept = sorted(Memory.objects.filter(source="extracted").values_list("value", flat=True))
        assert kept == [
            "Ada is a shepherd by trade.",
            'Ada said: "I have a son called Casimir; he went east."',
        ]
        assert "Casimir" in shown

    def test_gossip_of_talk_is_refused_and_news_is_kept(self):
        bob = self.char2
        bob.key = "Corvina"
        lines = [
            (self.maren.id, "Harlan the miller fell off his roof mending the thatch."),
            (self.lyra.id, "Poor Harlan!"),
        ]
        harlan = self.npc("Harlan", room=self.room2)
        result = ExchangeResult(
            lines=lines,
            accepted=[
                GossipItem(
                    self.maren.id,
                    self.lyra.id,
                    harlan.id,
                    "Harlan fell off his roof mending the thatch.",
                    6,
                    None,
                    [self.maren.id],
                ),
                GossipItem(
                    self.maren.id,
                    self.lyra.id,
                    harlan.id,
                    "Harlan owns three boats and a mill.",  # never said
                    6,
                    None,
                    [self.maren.id],
                ),
            ],
        )
        social.apply_exchange(result, self.maren, self.lyra)
        heard = list(Memory.objects.filter(npc=self.lyra).values_list("value", flat=True))
        assert heard == ["Harlan fell off his roof mending the thatch."]

    def test_a_belief_is_drawn_only_from_grounded_memories_and_capped(self):
        for i, value in enumerate(
            ["Ada mends clocks in Vellmoor.", "Ada mends the mill's great clock.", "Ada is kind."]
        ):
            omniira.remember(self.maren, self.char1, value, key=f"f{i}")
        Memory.objects.create(  # a row nothing grounded (made around the write path)
            npc=self.maren, subject=self.char1, key="odd", value="Ada is a secret queen."
        )
        self.maren.db.npc_headline = True
        beliefs = [
            {"belief": "Ada is a clockmaker of real skill in Vellmoor.", "importance": 10},
            {"belief": "Ada is secretly a queen.", "importance": 9},
        ]

        def answer(body):
            feature = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
            if feature == "reflection":
                shown = body["messages"][-1]["content"]
                assert "secret queen" not in shown  # only grounded memories are shown
                return json.dumps({"beliefs": beliefs, "reasoning": "x"})
            return json.dumps({"entry": "A day.", "importance": 3})

        with (
            ScriptedLLM(answer) as llm,
            override_settings(OMNIIRA={**tiers(llm.base_url), "REFLECTION_THRESHOLD": 3}),
        ):
            daily.reflection_job(self.maren, self.char1, 3, 1)
        [kept] = Reflection.objects.filter(npc=self.maren)
        assert kept.belief == "Ada is a clockmaker of real skill in Vellmoor."
        assert kept.importance == 7  # capped like the player's own memories
        assert AuditLog.objects.filter(kind="ungrounded", excerpt__contains="queen").exists()
