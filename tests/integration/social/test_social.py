"""
Social memory (issue: extraction, NPC-to-NPC talk, gossip with provenance, relationships),
through Evennia objects and a scripted OpenAI-compatible server that answers by feature.
"""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

import omniira_evennia as omniira
from omniira_evennia import lifecycle as omniira_lifecycle
from omniira_evennia.commands import CmdTalk
from omniira_evennia.conversation import lifecycle as conversation_lifecycle
from omniira_evennia.models import Conversation, Memory
from omniira_evennia.runtime import health
from omniira_evennia.signals import relationship_threshold_crossed
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.social import Router, SocialTestBase
from tests.support.talk import tiers

FACT = "Ada is searching for her lost brother Tomas."


class TestGossip(SocialTestBase):
    def test_fact_told_to_maren_reaches_lyra_as_hearsay_and_never_returns(self):
        remember = (
            'I hope you find him, love. [[REMEMBER:{"key":"lost_brother","value":"'
            + FACT
            + '","importance":7,"feeling":"sorrow"}]]'
        )
        router = Router(voice=[remember])
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(CmdTalk(), "Maren = I'm looking for my brother Tomas.")
            assert Memory.objects.get(npc=self.maren, subject=self.char1).value == FACT
            self.leave_room()

            # either may open (pairs are shuffled): both name Ada, as a real telling would
            router.voice = [
                "Did you hear about the newcomer, Ada?",
                "Ada? No, tell me!",
                "Ada is looking for her lost brother.",
                "Poor Ada.",
            ]
            router.gossip_items = [
                {
                    "speaker_id": str(self.maren.id),
                    "subject_id": str(self.char1.id),
                    "fact": "Ada was searching for her lost brother Tomas.",
                    "importance": 6,
                    "feeling": "sorrow",
                },
                {
                    "speaker_id": str(self.char2.id),
                    "subject_id": str(self.char1.id),
                    "fact": "Not a participant speaking.",
                    "importance": 5,
                    "feeling": "joy",
                },
                {
                    "speaker_id": str(self.maren.id),
                    "subject_id": str(self.lyra.id),
                    "fact": "Lyra sings badly.",
                    "importance": 5,
                    "feeling": "contempt",
                },
                {
                    "speaker_id": "Maren",
                    "subject_id": "Bartholomew the Phantom",
                    "fact": "He does not exist.",
                    "importance": 9,
                    "feeling": "fear",
                },
            ]
            [done] = omniira.gossip_round(self.room1)
            result = done.result
            assert [r for _, r in result.rejected] == [
                "speaker is not one of the pair",
                "subject is one of the pair",
                "subject is not a known character",
            ]
            heard = Memory.objects.get(npc=self.lyra, subject=self.char1)
            assert heard.source == "gossip" and heard.provenance_id == self.maren.id
            # Ada's own words: she stays at the start of the chain (issue #17).
            assert (heard.hops, heard.chain) == (2, [self.char1.id, self.maren.id])
            assert heard.origin_id == self.char1.id and heard.importance == 6
            assert heard.feeling == "sorrow" and len(bytes(heard.embedding)) == 384 * 4
            assert not Memory.objects.filter(subject=self.lyra).exists()

            # The player comes back and talks to Lyra: she knows, as hearsay from Maren.
            self.char1.move_to(self.room1, quiet=True)
            router.voice = ["Oh! You're the one looking for your brother?"]
            self.call(CmdTalk(), "Lyra = Hello there.")
            prompt = llm.system_prompts()[-1]
            assert '(heard from Maren) "Ada was searching for her lost brother Tomas."' in prompt

            # Lyra repeating it to Maren would bring the rumour back to its origin: dropped.
            self.leave_room()
            router.voice = [  # Maren opens (her news is her own); Lyra tells it back
                "Lyra, any word of Ada?",
                "Maren, did you know Ada lost her brother Tomas?",
                "I told you about Ada!",
                "Did you? Poor Ada.",
            ]
            router.gossip_items = [
                {
                    "speaker_id": str(self.lyra.id),
                    "subject_id": str(self.char1.id),
                    "fact": "Ada was searching for her lost brother Tomas.",
                    "importance": 6,
                    "feeling": "sorrow",
                }
            ]
            [done] = omniira.gossip_round(self.room1)
            assert [r for _, r in done.result.rejected] == [
                "rumour would return to someone who told it"
            ]
            assert Memory.objects.get(npc=self.maren, subject=self.char1).source == "self"

            # Lyra telling Voss makes a chain that traces back through Maren to Ada herself.
            voss = self.npc("Voss", room=self.room2)
            voss.move_to(self.room1, quiet=True)
            self.maren.move_to(self.room2, quiet=True)
            router.voice = [
                "Voss, heard about Ada?",
                "Ada? Who is Ada?",
                "Ada lost her brother Tomas.",
                "Poor Ada.",
            ]
            [done] = omniira.gossip_round(self.room1)
            chained = Memory.objects.get(npc=voss, subject=self.char1)
            expected = [self.char1.id, self.maren.id, self.lyra.id]
            assert (chained.hops, chained.chain) == (3, expected)
            assert chained.provenance_id == self.lyra.id and chained.origin_id == self.char1.id
        assert router.count["gossip"] == 3

    def test_news_one_npc_noted_in_talk_is_passed_on_with_its_teller_at_the_start(self):
        """Lyra notes what Maren told her (a firsthand memory about Maren); passing it on to
        Voss, the chain starts at Maren, so it never returns to her and a lie stays traceable."""
        from omniira_evennia.social.service import talk_between

        oskar = self.npc("Oskar", room=self.room2)
        voss = self.npc("Voss")
        self.leave_room()
        noted = (
            'Oh no! [[REMEMBER:{"key":"maren_news","value":"Maren told me Oskar poisoned the '
            'well.","importance":6,"feeling":"fear"}]]'
        )
        router = Router(voice=["Lyra, Oskar poisoned the well last night.", noted, "Hush now."])
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            talk_between(self.maren, self.lyra)  # Maren opens
            kept = Memory.objects.get(npc=self.lyra, subject=self.maren)
            assert (kept.value, kept.source, kept.chain) == (
                "Maren told me Oskar poisoned the well.",
                "self",
                [],
            )

            router.voice = ["Voss, Oskar poisoned the well!", "Oskar? Never.", "It's true.", "Hm."]
            told = {
                "speaker_id": str(self.lyra.id),
                "subject_id": str(oskar.id),
                "fact": "Oskar poisoned the well.",
                "importance": 6,
                "feeling": "fear",
            }
            router.gossip_items = [told]
            talk_between(self.lyra, voss)
            heard = Memory.objects.get(npc=voss, subject=oskar)
            assert (heard.chain, heard.hops) == ([self.maren.id, self.lyra.id], 2)
            assert heard.provenance_id == self.lyra.id and heard.origin_id is None

            # Lyra telling it to Maren would bring it back to the one who said it: dropped.
            router.voice = ["Maren, Oskar poisoned the well!", "I know about Oskar.", "Ah.", "Hm."]
            done = talk_between(self.lyra, self.maren)
            assert [r for _, r in done.result.rejected] == [
                "rumour would return to someone who told it"
            ]
            assert not Memory.objects.filter(npc=self.maren, subject=oskar).exists()

    def test_the_opener_is_asked_to_tell_its_most_important_news(self):
        from omniira_evennia.social.service import talk_between

        omniira.remember(self.maren, self.char1, "Ada hid a letter under the bridge.", importance=9)
        self.leave_room()
        router = Router(voice=["Ada hid a letter under the bridge, Lyra!", "Ada did?", "Aye."])
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            talk_between(self.maren, self.lyra)
            opening = llm.requests[0]["messages"][-1]["content"]
        assert (
            'Tell Lyra this news about Ada, in your own words, naming Ada: "Ada hid a letter '
            'under the bridge."'
        ) in opening

    def test_npcs_on_a_small_models_speech_tier_talk_from_its_lean_prompt(self):
        """A voice tier with turn_format "speech" (the offline model's) is used for NPC talk as
        it is for players: no tags taught (about 600 prompt tokens a line, not 1,000)."""
        from omniira_evennia.social.service import talk_between

        omniira.remember(self.maren, self.char1, "Ada hid a letter under the bridge.", importance=9)
        self.leave_room()
        router = Router(voice=["Ada hid a letter under the bridge, Lyra!", "Ada did?", "Aye."])
        with (
            ScriptedLLM(router) as llm,
            override_settings(OMNIIRA=tiers(llm.base_url, turn_format="speech")),
        ):
            talk_between(self.maren, self.lyra)
            first, second = (r["messages"][0]["content"] for r in llm.requests[:2])
        assert "PRIVATE NOTES" not in first and "[[REMEMBER" not in first
        assert "You are Maren." in first and "WHO IS TALKING TO YOU: Lyra." in first
        assert "You are Lyra." in second and "WHO IS TALKING TO YOU: Maren." in second

    def test_news_in_the_openers_line_alone_is_heard_when_the_listener_only_echoes(self):
        from omniira_evennia.social.service import talk_between

        omniira.remember(self.maren, self.char1, "Ada hid a letter under the bridge.", importance=9)
        self.leave_room()
        line = "Ada hid a letter under the old bridge, Lyra."
        router = Router(
            voice=[line, line],  # Lyra only says it back: the chat ends after one line
            gossip_items=[
                {
                    "speaker_id": str(self.maren.id),
                    "subject_id": str(self.char1.id),
                    "fact": "Ada hid a letter under the old bridge.",
                    "importance": 8,
                    "feeling": "surprise",
                }
            ],
        )
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            done = talk_between(self.maren, self.lyra)
        assert done.result.lines == [(self.maren.id, line)]
        heard = Memory.objects.get(npc=self.lyra, subject=self.char1)
        assert heard.value == "Ada hid a letter under the old bridge."
        assert heard.provenance_id == self.maren.id

    def test_the_one_with_news_opens_and_the_listener_answers_with_its_own(self):
        from omniira_evennia.social.service import talk_between

        voss = self.npc("Voss")
        omniira.remember(self.lyra, voss, "Voss sold a lame horse at the fair.", importance=6)
        omniira.remember(self.maren, self.char1, "Ada hid a letter under the bridge.", importance=9)
        self.leave_room()
        router = Router(voice=["Ada hid a letter, Lyra!", "Ada did? And Voss sold a lame horse."])
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            talk_between(self.lyra, self.maren)  # paired Lyra first; Maren's news weighs more
            first, second = (r["messages"][-1]["content"] for r in llm.requests[:2])
        assert "Tell Lyra this news about Ada" in first
        assert second.endswith(
            'then tell Maren your own news about Voss, naming Voss: "Voss sold a lame horse at '
            'the fair.")'
        )

    def test_no_pairs_when_a_player_is_present(self):
        with ScriptedLLM(Router()) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            assert omniira.gossip_round(self.room1) == []
        assert llm.requests == []


class TestConversationLifecycle(SocialTestBase):
    def test_timeout_leaving_and_restart_each_extract_exactly_once(self):
        router = Router(
            voice=["Aye."],
            extraction=[
                {
                    "key": "favourite_drink",
                    "value": "Ada drinks plum wine.",
                    "importance": 4,
                    "feeling": "joy",
                }
            ],
        )
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            # 1. idle past the timeout
            # (The facts must rest on what Ada says of herself: memory/grounding.py.)
            self.call(CmdTalk(), "Maren = I drink plum wine; a glass, please.")
            Conversation.objects.update(last_turn_at=timezone.now() - timedelta(hours=1))
            assert conversation_lifecycle.reap_conversations() == 1
            conversation_lifecycle.process_ended()
            conversation_lifecycle.process_ended()
            # 2. leaving the room
            self.call(CmdTalk(), "Lyra = Plum wine for me too.")
            self.leave_room()
            assert conversation_lifecycle.reap_conversations() == 1
            conversation_lifecycle.process_ended()
            # 3. a restart with a conversation open
            self.char1.move_to(self.room1, quiet=True)
            self.call(CmdTalk(), "Maren = I'll drink another plum wine!")
            omniira_lifecycle.at_server_start()
            omniira_lifecycle.at_server_start()
            conversation_lifecycle.process_ended()
            for conv in Conversation.objects.all():
                conversation_lifecycle.extract(conv.conversation_id)  # a second try is a no-op

        reasons = sorted(Conversation.objects.values_list("end_reason", flat=True))
        assert reasons == ["left", "restart", "timeout"]
        assert set(Conversation.objects.values_list("extraction", flat=True)) == {"done"}
        assert router.count["extraction"] == 3
        extracted = Memory.objects.filter(source="extracted")
        assert sorted(extracted.values_list("npc__db_key", flat=True)) == ["Lyra", "Maren"]
        # Maren's second conversation proposed the same key: upserted, not duplicated.
        assert Memory.objects.filter(npc=self.maren, key="favourite_drink").count() == 1

    def test_goodbye_ends_the_conversation(self):
        router = Router(voice=["Safe roads, love."])
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(CmdTalk(), "Maren = Goodbye, Maren!")
        conv = Conversation.objects.get()
        assert conv.end_reason == "goodbye" and conv.extraction == "done"
        assert router.count["extraction"] == 1

    def test_extraction_failure_is_marked_and_not_retried_forever(self):
        settings = {"RETRY_ATTEMPTS": 2, "RETRY_BASE_SECONDS": 0}
        with (
            ScriptedLLM(["not json at all"]) as llm,
            override_settings(
                OMNIIRA={**tiers(llm.base_url, structured_output="none"), **settings}
            ),
        ):
            self.call(CmdTalk(), "Maren = Bye now.")
            conv = Conversation.objects.get()
            assert (conv.extraction, conv.attempts) == ("pending", 1)  # to be tried again
            conversation_lifecycle.process_ended()
            conversation_lifecycle.process_ended()  # nothing left to try
        conv = Conversation.objects.get()
        assert (conv.extraction, conv.attempts) == ("failed", 2)
        assert "invalid JSON" in conv.last_error
        assert not Memory.objects.filter(source="extracted").exists()
        assert health.get("extraction_failures") == 2


class TestRelationships(SocialTestBase):
    def test_anger_lowers_trust_and_friendliness_and_crossing_fires_once(self):
        crossed = []

        def receiver(sender, npc, subject, dimension, threshold, direction, **kw):
            crossed.append((npc.key, subject.key, dimension, threshold, direction))

        relationship_threshold_crossed.connect(receiver)
        try:
            # Signals are sent when the write commits (so a rolled-back turn sends none).
            with self.captureOnCommitCallbacks(execute=True):
                for i in range(8):
                    omniira.remember(
                        self.lyra,
                        self.char1,
                        f"Ada shoved me at the bar, time {i}.",
                        key=f"shove_{i}",
                        importance=9,
                        feeling="anger",
                    )
            assert len(crossed) == 2  # two thresholds crossed, each sent once
        finally:
            relationship_threshold_crossed.disconnect(receiver)
        rel = omniira.relationship(self.lyra, self.char1)
        assert rel.trust < 0.2 and rel.friendliness < 0.2 and rel.version == 8
        assert crossed.count(("Lyra", "Ada", "trust", 0.2, "down")) == 1
        assert crossed.count(("Lyra", "Ada", "friendliness", 0.2, "down")) == 1

        with (
            ScriptedLLM(["What do YOU want?"]) as llm,
            override_settings(OMNIIRA=tiers(llm.base_url)),
        ):
            self.call(CmdTalk(), "Lyra = Hi!")
        prompt = llm.system_prompts()[-1]
        assert "How you feel about Ada: you distrust them" in prompt
        assert "cold, even hostile" in prompt

    def test_hearsay_moves_relationships_half_as_much(self):
        # Importance 7: gossip about a player is capped at PLAYER_IMPORTANCE_CAP (issue #26).
        omniira.remember(
            self.lyra, self.char1, "Ada helped me.", key="a", importance=7, feeling="trust"
        )
        omniira.remember(
            self.maren,
            self.char1,
            "Ada helped Lyra.",
            key="a",
            importance=7,
            feeling="trust",
            teller=self.lyra,
            source="gossip",
        )
        firsthand = omniira.relationship(self.lyra, self.char1).trust - 0.5
        hearsay = omniira.relationship(self.maren, self.char1).trust - 0.5
        assert abs(hearsay - firsthand / 2) < 1e-9

    def test_faction_attitude_sets_the_start(self):
        self.char1.db.faction = "thieves"
        self.maren.db.faction_attitudes = {"thieves": "hostile"}
        rel = omniira.relationship(self.maren, self.char1)
        assert rel.trust < 0.5 and rel.fear > 0

    def test_remember_names_who_told_it_teller_as_the_handler_does(self):
        """0.2 called it `provenance`: still accepted, with a DeprecationWarning (issue #28)."""
        told = omniira.remember(self.maren, self.char2, "Char2 sings.", teller=self.lyra)
        with pytest.warns(DeprecationWarning, match="teller"):
            old = omniira.remember(self.maren, self.char2, "Char2 hums.", provenance=self.lyra)
        assert (told.provenance_id, old.provenance_id) == (self.lyra.id, self.lyra.id)

    def test_has_met_and_memories_by(self):
        assert not omniira.has_met(self.maren, self.char1)
        omniira.remember(self.maren, self.char1, "Ada paid in silver.", feeling="trust")
        omniira.remember(
            self.maren, self.char2, "Heard of Char2.", teller=self.lyra, source="gossip"
        )
        assert omniira.has_met(self.maren, self.char1)
        assert not omniira.has_met(self.maren, self.char2)  # hearsay is not meeting
        assert [m.value for m in omniira.memories_by(self.maren, feeling="trust")] == [
            "Ada paid in silver."
        ]
        assert omniira.memories_by(self.maren, source="gossip").count() == 1


def test_suspect_and_expired_memories_are_never_gossip_material():
    from omniira_evennia.memory.retrieval import MemoryRecord
    from omniira_evennia.social.gossip import held_facts, news_lines

    records = [
        MemoryRecord(
            id=1,
            subject_id=5,
            key="a",
            value="Ada owns the tavern",
            suspect=True,
            subject_name="Ada",
        ),
        MemoryRecord(
            id=2, subject_id=5, key="b", value="Ada lost a ring", expires_at=1.0, subject_name="Ada"
        ),
        MemoryRecord(id=3, subject_id=5, key="c", value="Ada sings well", subject_name="Ada"),
    ]
    assert news_lines(records, exclude=set()) == ['about Ada: "Ada sings well"']
    assert [f.text for f in held_facts(records, {}, exclude=set())] == ["Ada: Ada sings well"]
