"""At start, the NPCs' fixed prompt blocks go to the model server once (issue #24, point 6)."""

from django.test import override_settings

from omniira_evennia import lifecycle
from omniira_evennia.commands import CmdTalk
from omniira_evennia.models import LLMUsage
from omniira_evennia.runtime import health
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.talk import TalkTestBase, tiers


def settings(base_url, warm):
    conf = tiers(base_url)
    conf["TIERS"]["voice"]["turn_format"] = "speech"
    return {**conf, "WARM_PROMPT_NPCS": warm}


class TestWarmPrompts(TalkTestBase):
    def test_the_first_turn_starts_with_the_warmed_prefix(self):
        with ScriptedLLM(["", "Evening, Ada. Cider?"]) as llm:
            with override_settings(OMNIIRA=settings(llm.base_url, 8)):
                lifecycle.warm_prompts([self.maren])
                warm = llm.requests[0]
                assert warm["max_tokens"] == 1
                assert [m["role"] for m in warm["messages"]] == ["system"]
                prefix = warm["messages"][0]["content"]
                assert prefix.startswith("You are Maren.") and "tavern keeper" in prefix

                shown = self.call(CmdTalk(), "Maren = Good evening.")
                assert "Evening, Ada. Cider?" in shown
                turn = llm.requests[1]["messages"][0]["content"]
                # Same characters first, so the server's cache holds them for this turn.
                assert turn.startswith(prefix) and len(turn) > len(prefix)
        assert LLMUsage.objects.filter(feature="warm_up", npc=self.maren).count() == 1

    def test_off_by_default_and_a_dead_endpoint_costs_nothing_else(self):
        with ScriptedLLM(["x"]) as llm:
            with override_settings(OMNIIRA=settings(llm.base_url, 0)):
                lifecycle.warm_prompts([self.maren])
            assert llm.requests == []
        health.reset()
        with ScriptedLLM(["x"], status=500) as llm:
            with override_settings(OMNIIRA=settings(llm.base_url, 8)):
                lifecycle.warm_prompts([self.maren])
        assert health.snapshot().get("warm_up_failures") == 1
