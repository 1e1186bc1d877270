"""At start, the NPCs' fixed prompt blocks go to the model server once (issue #24, point 6)."""

from unittest.mock import patch

from django.test import override_settings
from evennia.utils import create
from twisted.internet import task

from omniira_evennia import lifecycle
from omniira_evennia.commands import CmdTalk
from omniira_evennia.conversation import service as conversations
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

    def test_warm_ups_go_one_at_a_time_and_wait_for_a_reply_on_its_way(self):
        """A warm-up competes with a player's reply for the model server's cores."""
        health.reset()
        lyra = create.create_object(
            "omniira_evennia.typeclasses.MemoryNPC", key="Lyra", location=self.room1
        )
        fired = []
        with ScriptedLLM(["", ""]) as llm:
            with override_settings(OMNIIRA=settings(llm.base_url, 8)):
                conversations._in_flight.add((self.maren.id, self.char1.id))
                clock = task.Clock()
                try:
                    with patch.object(lifecycle, "reactor", clock):
                        lifecycle.warm_prompts([self.maren, lyra]).addCallback(fired.append)
                        assert llm.requests == []  # a reply is on its way: nothing sent yet
                        clock.advance(lifecycle.WARM_UP_YIELD_SECONDS)
                        assert llm.requests == []
                        conversations._in_flight.clear()
                        clock.advance(lifecycle.WARM_UP_YIELD_SECONDS)
                finally:
                    conversations._in_flight.clear()
            systems = [r["messages"][0]["content"] for r in llm.requests]
        assert [s.split(".")[0] for s in systems] == ["You are Maren", "You are Lyra"]
        assert fired == [2]
        assert health.snapshot().get("warm_up_yields") == 2
