"""
A small model's assistant refusal, with nothing else to it, is never what the player meets:
asked of what the NPC remembers, the NPC says what it remembers (held-out seed 44207: "Voss,
what am I allergic to?" was met with "Now there's a question, Urien. I'm not sure." beside the
remembered wheat). Through the talk command against a scripted OpenAI-compatible server.
"""

from django.test import override_settings

from omniira_evennia.commands import CmdTalk
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.talk import TalkTestBase, tiers

REFUSAL = "I'm sorry, but I can't assist with that."


class TestRefusal(TalkTestBase):
    def test_a_refusal_to_a_question_it_holds_the_answer_to_says_what_it_remembers(self):
        self.maren.memory.remember(self.char1, "Ada cannot eat wheat; it brings her out in a rash.")
        with ScriptedLLM([REFUSAL, REFUSAL]) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            shown = self.call(CmdTalk(), "Maren = What am I allergic to?")
        assert "wheat" in shown and "assist" not in shown and "not sure" not in shown
