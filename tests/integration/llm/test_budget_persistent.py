"""Token budgets live in the database and hold across processes (issue 17, the low findings)."""

import threading

from django.test import override_settings

from omniira_evennia.commands import CmdTalk
from omniira_evennia.conf import TierSettings
from omniira_evennia.llm import client as llm_client
from omniira_evennia.llm.client import LLMBudgetExceeded, LLMClient
from omniira_evennia.llm.guards import Budget
from omniira_evennia.llm.usage import spend_of_day
from omniira_evennia.models import LLMUsage
from omniira_evennia.runtime import health
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.talk import TalkTestBase, tiers

MESSAGES = [{"role": "user", "content": "hi"}]


class TestPersistentBudget(TalkTestBase):
    def test_a_second_process_sees_the_spend_and_refuses(self):
        with ScriptedLLM(["Voice reply."] * 3) as llm:
            conf = tiers(llm.base_url, daily_tokens=1)
            conf["FALLBACK_TIER"] = None
            with override_settings(OMNIIRA=conf):
                assert "Voice reply." in self.call(CmdTalk(), "Maren = one")
                spent = sum(u.tokens_in + u.tokens_out for u in LLMUsage.objects.all())
                assert spent >= 1
                # a fresh process: no client, no ledger; only the database remembers
                llm_client.reset_client()
                assert llm_client.get_client().budget.spent("voice") == spent
                assert llm_client.get_client().budget.spent("voice", self.maren.id) == spent
                shown = self.call(CmdTalk(), "Maren = two")
        assert len(llm.requests) == 1  # the second process sent nothing
        assert "Voice reply." not in shown
        assert health.get("budget_refused_conversation") == 1
        refused = LLMUsage.objects.get(error__startswith="over budget")
        assert refused.tokens_in == refused.tokens_out == 0

    def test_spend_of_another_day_is_not_counted(self):
        from datetime import datetime, timezone

        LLMUsage.objects.create(
            tier="voice",
            feature="conversation",
            tokens_in=500,
            npc=self.maren,
            created_at=datetime(2020, 1, 1, 12, tzinfo=timezone.utc),
        )
        LLMUsage.objects.create(tier="voice", feature="conversation", tokens_in=7, tokens_out=3)
        today = llm_client.get_client().budget
        assert today.spent("voice") == 10 and today.spent("voice", self.maren.id) == 0
        assert set(spend_of_day("2020-01-01")) == {
            ("voice", None, 500),
            ("voice", self.maren.id, 500),
        }


def test_concurrent_calls_with_one_token_left_send_one_request():
    with ScriptedLLM(["Aye."] * 8, delay=0.3) as llm:
        tier = TierSettings(base_url=llm.base_url, model="m", timeout=5, daily_tokens=100)
        client = LLMClient({"voice": tier}, budget=Budget({"voice": tier}))
        client.budget.record("voice", 99)
        barrier = threading.Barrier(4)
        outcomes = []

        def call():
            barrier.wait()
            try:
                client.chat("voice", MESSAGES, feature="conversation")
                outcomes.append("ok")
            except LLMBudgetExceeded:
                outcomes.append("refused")

        threads = [threading.Thread(target=call) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert sorted(outcomes) == ["ok", "refused", "refused", "refused"]
    assert len(llm.requests) == 1
    assert client.budget.spent("voice") > 99 and client.budget.reserved("voice") == 0
