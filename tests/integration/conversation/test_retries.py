"""
No conversation is lost (issue #24, point 5): a review, diary or reflection that fails (a
deadline, invalid JSON, a dead endpoint) is tried again with backoff, survives a restart, stays
visible until done, and can be run again by a builder. Against a scripted OpenAI-compatible
server that fails, then recovers.
"""

import json
from datetime import timedelta

from django.test import override_settings
from django.utils import timezone

from omniira_evennia import lifecycle as omniira_lifecycle
from omniira_evennia.admin_commands import CmdMemory
from omniira_evennia.commands import CmdTalk
from omniira_evennia.conversation import lifecycle
from omniira_evennia.models import Conversation, DailyWork, DiaryEntry, Memory
from omniira_evennia.rollover import service as daily
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.social import SocialTestBase
from tests.support.talk import tiers

FACT = {"key": "trade", "value": "Ada mends clocks in Vellmoor.", "importance": 5}


class Flaky:
    """Answers `feature` with invalid JSON while `broken`, then with `answer`."""

    def __init__(self, feature, answer):
        self.feature, self.answer, self.calls, self.broken = feature, answer, 0, True

    def __call__(self, body):
        feature = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
        if feature != self.feature:
            return "Aye, love."
        self.calls += 1
        return "not json at all" if self.broken else json.dumps(self.answer)


def settings(url, **extra):
    return {**tiers(url), "RETRY_BASE_SECONDS": 60, **extra}


class TestReviewRetries(SocialTestBase):
    def end_a_conversation(self):
        self.call(CmdTalk(), "Maren = I mend clocks in Vellmoor. Goodbye!")

    def test_a_failed_review_waits_then_is_tried_again_and_keeps_what_was_said(self):
        flaky = Flaky("extraction", {"memories": [FACT]})
        with ScriptedLLM(flaky) as llm, override_settings(OMNIIRA=settings(llm.base_url)):
            self.end_a_conversation()
            tried = flaky.calls
            assert tried >= 1
            flaky.broken = False  # the model answers properly from now on
            conv = Conversation.objects.get()
            assert conv.extraction == "pending" and conv.attempts == 1
            assert conv.retry_at > timezone.now() + timedelta(seconds=50)
            shown = self.call(CmdMemory(), "reviews Maren")
            assert "review failed 1 time" in shown and "tried again in" in shown
            lifecycle.process_ended()  # not due yet
            assert flaky.calls == tried
            omniira_lifecycle.at_server_start()  # a restart keeps it waiting
            Conversation.objects.update(retry_at=timezone.now() - timedelta(seconds=1))
            lifecycle.process_ended()
        conv = Conversation.objects.get()
        assert (conv.extraction, conv.extracted_count) == ("done", 1)
        assert Memory.objects.get(source="extracted").value == FACT["value"]

    def test_after_every_try_it_stays_failed_and_visible_until_a_builder_runs_it_again(self):
        flaky = Flaky("extraction", {"memories": [FACT]})
        with ScriptedLLM(flaky) as llm:
            config = settings(llm.base_url, RETRY_ATTEMPTS=3, RETRY_BASE_SECONDS=0)
            with override_settings(OMNIIRA=config):
                self.end_a_conversation()
                lifecycle.process_ended()
                lifecycle.process_ended()
                lifecycle.process_ended()  # tried as often as allowed: nothing more
                conv = Conversation.objects.get()
                assert (conv.extraction, conv.attempts) == ("failed", 3)
                assert "= retry' runs it again" in self.call(CmdMemory(), "reviews Maren")
                flaky.broken = False
                shown = self.call(CmdMemory(), "reviews Maren = retry")
        assert "1 review of Maren's conversations queued again; 1 started now." in shown
        assert Conversation.objects.get().extraction == "done"


class TestRolloverRetries(SocialTestBase):
    def test_a_diary_that_failed_is_tried_again_and_a_builder_can_run_it_again(self):
        self.maren.memory.remember(self.char1, "Ada mends clocks.")
        Memory.objects.update(game_day=1)
        flaky = Flaky("diary", {"entry": "A long day at the taps.", "importance": 4})
        with ScriptedLLM(flaky) as llm:
            config = settings(llm.base_url, RETRY_ATTEMPTS=2, RETRY_BASE_SECONDS=0)
            with override_settings(OMNIIRA=config):
                daily.diary_job(self.maren, 1)
                assert DailyWork.objects.get(kind="diary").status == "retry"
                daily.retry_due()
                work = DailyWork.objects.get(kind="diary")
                assert (work.status, work.attempts) == ("failed", 2)
                assert "already failed" in daily._already("diary", self.maren, 1)
                flaky.broken = False
                shown = self.call(CmdMemory(), "rollover retry 1")
        assert "1 failed diary or reflections queued again; 1 started now" in shown
        assert DiaryEntry.objects.get(npc=self.maren).entry == "A long day at the taps."
        assert DailyWork.objects.get(kind="diary").status == "done"

    def test_the_dialogue_evaluation_runs_the_nights_failed_work_again_as_the_ticker_would(self):
        from bench.dialogue_eval import _night_work_retried

        self.maren.memory.remember(self.char1, "Ada mends clocks.")
        Memory.objects.update(game_day=1)
        flaky = Flaky("diary", {"entry": "A long day at the taps.", "importance": 4})
        with ScriptedLLM(flaky) as llm, override_settings(OMNIIRA=settings(llm.base_url)):
            daily.diary_job(self.maren, 1)  # fails: invalid JSON, waits a minute
            flaky.broken = False
            night = _night_work_retried(daily, log=lambda *a: None)
        assert night == {"after_rollover": {"retry": 1}, "at_end": {"done": 1}}
        assert DiaryEntry.objects.get(npc=self.maren).entry == "A long day at the taps."
