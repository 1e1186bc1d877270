"""
Conversation focus (issue #24, point 4): once a player talks with an NPC, their `say` lines go
to it without its name, until they address someone else, leave or the conversation ends; a
line naming the NPC as people do (at the end, set off by commas) is for it; others' lines are
unaffected. Through the real `say` command and a scripted OpenAI-compatible server.
"""

from datetime import timedelta

from django.test import override_settings
from django.utils import timezone

from omniira_evennia.commands import CmdSay, CmdTalk
from omniira_evennia.conversation.addressing import addressed_name
from omniira_evennia.models import Conversation
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.social import SocialTestBase
from tests.support.talk import tiers


class TestFocus(SocialTestBase):
    def setUp(self):
        super().setUp()
        self.char2.key = "Bob"
        self.char2.move_to(self.room1, quiet=True)

    def said_to(self, llm):
        """The lines the model was asked to answer, in order."""
        return [r["messages"][-1]["content"] for r in llm.requests]

    def test_lines_without_the_name_go_to_the_npc_being_talked_with(self):
        # Three replies: the same short one a third time would be asked again (repeats.py).
        replies = ["Evening, love.", "Aye, it's a steep climb.", "Twenty years, near enough."]
        with ScriptedLLM(replies) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(CmdSay(), "Maren, a cider please.")
            self.call(CmdSay(), "The walk up from the docks was longer than I remembered.")
            self.call(CmdSay(), "How long have you kept this place?")
        asked = self.said_to(llm)
        assert len(asked) == 3
        assert "docks was longer" in asked[1] and "kept this place" in asked[2]

    def test_a_name_at_the_end_or_set_off_by_commas_addresses_the_npc(self):
        with ScriptedLLM(["Aye."]) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(CmdSay(), "How long have you kept this place, Maren?")
            self.call(CmdSay(), "Tell me, Lyra, what songs do you know?")
        assert [r["messages"][0]["content"].split("\n")[0] for r in llm.requests] == [
            "You are Maren.",
            "You are Lyra.",
        ]

    def test_addressing_someone_else_ends_the_focus(self):
        with ScriptedLLM(["Aye."]) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(CmdSay(), "Maren, a cider please.")
            self.call(CmdSay(), "Bob, did you hear that?")
            self.call(CmdSay(), "Anyway, it was a long walk.")
        assert len(llm.requests) == 1

    def test_the_focus_ends_with_the_conversation_and_when_the_player_leaves(self):
        with ScriptedLLM(["Aye."]) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(CmdTalk(), "Maren = A cider please.")
            Conversation.objects.update(last_turn_at=timezone.now() - timedelta(hours=2))
            self.call(CmdSay(), "It was a long walk.")  # the talk went quiet long ago
            self.call(CmdSay(), "Maren, another?")
            self.char1.move_to(self.room2, quiet=True)
            self.char1.move_to(self.room1, quiet=True)
            Conversation.objects.update(ended_at=timezone.now())  # leaving ended it
            self.call(CmdSay(), "Back again.")
        assert len(llm.requests) == 2

    def test_other_players_lines_are_unaffected(self):
        with ScriptedLLM(["Aye."]) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(CmdSay(), "Maren, a cider please.")
            self.call(CmdSay(), "What a night.", caller=self.char2)
        assert len(llm.requests) == 1


def test_addressed_names():
    names = ["Maren", "Old Tom", "Tom"]
    assert addressed_name("Maren, what's on?", names) == "Maren"
    assert addressed_name("How long have you kept this place, Maren?", names) == "Maren"
    assert addressed_name("Tell me, Maren, what is on tonight?", names) == "Maren"
    assert addressed_name("Good night, Old Tom.", names) == "Old Tom"
    assert addressed_name("I saw Maren at the market.", names) is None
    assert addressed_name("Maren's stew was good.", names) is None


class TestHowToTalkHint(SocialTestBase):
    def test_a_line_for_nobody_tells_the_player_once_how_to_talk_with_an_npc(self):
        with ScriptedLLM(["Aye."]) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            first = self.call(CmdSay(), "Do you remember my brother's name?")
            again = self.call(CmdSay(), "Hello?")
            unanswered = len(llm.requests)
            self.call(CmdSay(), "Maren, do you remember my brother's name?")
        assert "You are not talking with anyone" in first
        assert "say Maren, ..." in first or "say Lyra, ..." in first
        assert "not talking with anyone" not in again
        assert unanswered == 0 and llm.requests  # the named line is answered
