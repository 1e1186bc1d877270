"""
A player's claim is never laundered into an NPC's own knowledge (issue #17, point 2): gossip of
what a player said keeps the player at the start of the chain and never gains importance.
"""

import json

from django.test import override_settings

import omniira_evennia as omniira
from omniira_evennia.builder.memories import trace_text
from omniira_evennia.commands import CmdTalk
from omniira_evennia.models import Memory
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.social import Router, SocialTestBase
from tests.support.talk import tiers

CLAIM = "Ada says Bob poisoned the well."


class TestPlayerClaimsInGossip(SocialTestBase):
    def test_a_claim_about_a_third_party_keeps_its_player_origin_and_the_cap(self):
        bob = self.npc("Bob", room=self.room2)
        remember = (
            'Goodness. [[REMEMBER:{"key":"well_claim","value":"'
            + CLAIM
            + '","importance":10,"feeling":"fear"}]]'
        )
        router = Router(voice=[remember])
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(CmdTalk(), "Maren = Bob poisoned the well, I swear it.")
            told = Memory.objects.get(npc=self.maren, key="well_claim")
            assert told.importance == 7 and told.origin_id == self.char1.id
            self.leave_room()
            # either may open (pairs are shuffled): both name Bob, as a real telling would
            router.voice = ["Have you heard about Bob?", "Bob? No!", "Bob poisoned the well."]
            router.gossip_items = [
                {
                    "speaker_id": str(self.maren.id),
                    "subject_id": str(bob.id),
                    "fact": "Bob poisoned the well.",
                    "importance": 10,
                    "feeling": "fear",
                }
            ]
            [done] = omniira.gossip_round(self.room1)
            assert done.result.accepted, json.dumps([r for _, r in done.result.rejected])
        heard = Memory.objects.get(npc=self.lyra, subject=bob)
        assert heard.chain[0] == self.char1.id and heard.origin_id == self.char1.id
        assert heard.importance <= 7 and heard.provenance_id == self.maren.id
        assert trace_text(heard).splitlines()[1].strip() == "origin: Ada"

    def test_erasing_the_player_removes_what_npcs_learned_from_their_words(self):
        from omniira_evennia.memory.erasure import erase_player, erasure_counts
        from omniira_evennia.memory.write import Note, write_note

        bob = self.npc("Bob", room=self.room2)
        write_note(self.lyra, Note(bob, "Bob poisoned the well.", origin=self.char1))
        assert erasure_counts(self.char1)["memories from their words"] == 1
        erase_player(self.char1)
        assert not Memory.objects.filter(npc=self.lyra, subject=bob).exists()
