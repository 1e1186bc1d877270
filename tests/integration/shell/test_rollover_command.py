"""`@memory rollover`: what it started, then what it wrote per NPC (issue 21)."""

from django.test import override_settings

from omniira_evennia.admin_commands import CmdMemory
from omniira_evennia.models import DiaryEntry, Reflection
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.daily import BELIEF, DayRouter, fill
from tests.support.social import SocialTestBase
from tests.support.talk import tiers


class TestRolloverCommand(SocialTestBase):
    def setUp(self):
        super().setUp()
        self.voss = self.npc("Voss")
        self.wren = self.npc("Wren")
        for npc in (self.maren, self.lyra):
            npc.db.npc_headline = True

    def test_reports_what_it_started_and_what_each_npc_wrote(self):
        fill(self.maren, self.char1, 5, 1)  # headline with 5 new about Ada: a belief
        fill(self.lyra, self.char1, 2, 1)  # headline, too few new memories: no belief
        fill(self.voss, self.char1, 3, 1)  # not headline: a diary only
        # Wren had a quiet day.
        router = DayRouter()
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            out = self.call(CmdMemory(), "rollover 1")
        assert "Rollover of game day 1 started for 4 NPCs" in out
        assert "beliefs of headline NPCs, diaries." in out
        assert "Rollover of game day 1 done" in out
        assert "Maren: diary yes; beliefs 1" in out
        assert (
            "Lyra: diary yes; beliefs 0 (no one with 4+ new memories since the last belief "
            "about them (REFLECTION_THRESHOLD))" in out
        )
        assert "Voss: diary yes; beliefs 0 (only headline NPCs reflect)" in out
        assert "Wren: diary no (a quiet day: no memories, places or events to write about)" in out
        assert Reflection.objects.get(npc=self.maren).belief == BELIEF
        assert DiaryEntry.objects.filter(game_day=1).count() == 3

        # The same day again: nothing is redone, and the report says why.
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            again = self.call(CmdMemory(), "rollover 1")
        assert (
            "Maren: diary no (already done for day 1); beliefs 0 (no one with 4+ new memories"
            in again
        )
        assert DiaryEntry.objects.filter(game_day=1).count() == 3

    def test_a_failed_diary_says_so_and_bad_input_shows_the_usage(self):
        fill(self.voss, self.char1, 3, 2)
        with (
            ScriptedLLM(["not json"]) as llm,
            override_settings(OMNIIRA=tiers(llm.base_url, structured_output="none")),
        ):
            out = self.call(CmdMemory(), "rollover 2")
        assert "Voss: diary no (failed" in out
        assert "Usage:\n  @memory rollover [<game day> | retry [<game day>]]" in self.call(
            CmdMemory(), "rollover x"
        )

    def test_settings_that_turn_work_off_are_named(self):
        fill(self.maren, self.char1, 5, 3)
        settings = {"REFLECTIONS": False, "DIARIES": False}
        with (
            ScriptedLLM(DayRouter()) as llm,
            override_settings(OMNIIRA={**tiers(llm.base_url), **settings}),
        ):
            out = self.call(CmdMemory(), "rollover 3")
        assert "no beliefs (REFLECTIONS off), no diaries (DIARIES off)." in out
        assert (
            "Maren: diary no (diaries are off (DIARIES)); beliefs 0 (reflections are off "
            "(REFLECTIONS))" in out
        )
