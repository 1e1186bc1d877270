"""
A goodbye is answered like any line, and the review after it is visible (issue 21): "Goodbye
Maren, ..." said in the room reaches Maren, she answers, the conversation ends and is reviewed;
`@memory reviews` shows it to builders, and REVIEW_CUE (off by default) tells the player.
"""

from django.test import override_settings

from omniira_evennia.admin_commands import CmdMemory
from omniira_evennia.commands import CmdSay
from omniira_evennia.conversation.addressing import addressed_name
from omniira_evennia.models import Conversation, Memory
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.social import Router, SocialTestBase
from tests.support.talk import tiers

KEPT = {"key": "leaves_tomorrow", "value": "Ada leaves for the coast tomorrow.", "importance": 5}
CUE = "{npc} nods to herself, as if filing something away."


def test_farewells_and_thanks_address_the_npc_named_after_them():
    names = ["Maren", "barkeep"]
    for line in (
        "Goodbye Maren, see you tomorrow.",
        "goodbye, maren!",
        "Bye Maren",
        "Farewell, barkeep.",
        "Good night, Maren.",
        "Thanks Maren, that was lovely.",
        "Thank you, Maren",
        "See you, Maren",
    ):
        assert addressed_name(line, names) is not None, line
    assert addressed_name("Goodbye everyone, Maren included.", names) is None


class TestGoodbyeInTheRoom(SocialTestBase):
    def test_goodbye_by_say_is_answered_ended_and_reviewed(self):
        router = Router(voice=["Safe roads, love. Come back soon."], extraction=[KEPT])
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            shown = self.call(CmdSay(), "Goodbye Maren, I leave for the coast tomorrow.")
            reviews = self.call(CmdMemory(), "reviews Maren")
        assert "Safe roads, love. Come back soon." in shown
        assert router.count == {"voice": 1, "gossip": 0, "extraction": 1}
        conv = Conversation.objects.get()
        assert (conv.end_reason, conv.extraction, conv.extracted_count) == ("goodbye", "done", 1)
        assert Memory.objects.get(npc=self.maren, source="extracted").value == KEPT["value"]
        assert "Maren's conversations and their reviews (newest first):" in reviews
        assert "with Ada: ended 0 s ago (goodbye), reviewed: kept 1 new memories" in reviews
        assert "filing something away" not in shown  # no cue unless the builder asks

    def test_review_cue_tells_the_player_still_in_the_room(self):
        router = Router(voice=["Mind the rain, love."], extraction=[KEPT])
        with (
            ScriptedLLM(router) as llm,
            override_settings(OMNIIRA={**tiers(llm.base_url), "REVIEW_CUE": CUE}),
        ):
            shown = self.call(CmdSay(), "Goodbye Maren, I leave for the coast tomorrow.")
        assert "Mind the rain, love." in shown
        assert "Maren nods to herself, as if filing something away." in shown

    def test_reviews_show_open_pending_and_skipped_conversations(self):
        Conversation.objects.create(conversation_id="open", npc=self.maren, speaker=self.char1)
        Conversation.objects.create(
            conversation_id="queued",
            npc=self.maren,
            speaker=self.char2,
            ended_at=Conversation.objects.get().last_turn_at,
            end_reason="left",
        )
        Conversation.objects.create(
            conversation_id="npc",
            npc=self.maren,
            speaker=self.lyra,
            extraction=Conversation.Extraction.NONE,
        )
        out = self.call(CmdMemory(), "reviews Maren")
        assert "with Ada: open, last line 0 s ago; reviewed once it ends (goodbye, leaving, " in out
        assert "or 10 min quiet)" in out
        assert "with Char2: ended 0 s ago (left), review pending (queued for the next tick)" in out
        assert "Lyra" not in out  # NPC-to-NPC talk is reviewed by gossip, not listed here
        assert "Lyra has had no conversations with players yet." in self.call(
            CmdMemory(), "reviews Lyra"
        )
        assert "Usage:\n  @memory reviews <npc>" in self.call(CmdMemory(), "reviews")
