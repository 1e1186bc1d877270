"""The daily rhythm: rollover, reflection, diaries, forgetting (patched game time)."""

from datetime import timedelta
from unittest import mock

from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from evennia.utils import create
from evennia.utils.test_resources import EvenniaTest
from twisted.internet import defer

import omniira_evennia as omniira
from omniira_evennia.commands import CmdTalk
from omniira_evennia.llm import jobs
from omniira_evennia.models import DailyWork, DiaryEntry, Memory, PlaceVisit, Reflection
from omniira_evennia.rollover import service as daily
from omniira_evennia.runtime import health
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.daily import BELIEF, DayRouter, fill
from tests.support.social import SocialTestBase
from tests.support.talk import tiers


class TestRollover(SocialTestBase):
    def setUp(self):
        super().setUp()
        self.voss = self.npc("Voss")
        self.wren = self.npc("Wren")
        for npc in (self.maren, self.lyra):
            npc.db.npc_headline = True
        self.day = 1

    def test_gates_restart_safety_and_the_next_prompt(self):
        fill(self.maren, self.char1, 5, self.day)  # headline, 5 new about Ada: reflects
        fill(self.maren, self.char2, 2, self.day, "other")  # only 2 about Char2: no
        fill(self.lyra, self.char1, 3, self.day)  # headline, 3: no reflection, but a diary
        fill(self.voss, self.char1, 6, self.day)  # not headline: diary only
        # Wren had a quiet day: no memories, places or events.
        router = DayRouter()
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            summary = omniira.run_rollover(self.day).result
            assert summary["reflection_jobs"] == 1 and summary["written"] == 4
            [reflection] = router.features("reflection")
            assert "memories about Ada" in reflection[2] and "Maren" in reflection[1]
            assert "(saw/heard it myself)" in reflection[2] and "[felt sorrow]" in reflection[2]
            diaries = router.features("diary")
            assert sorted(c[1].split(",")[0] for c in diaries) == [
                "You are Lyra",
                "You are Maren",
                "You are Voss",
            ]
            assert health.get("diaries_skipped_quiet") == 1  # Wren: no call, no row
            assert not DiaryEntry.objects.filter(npc=self.wren).exists()

            # A restart mid-day, then the same day's rollover again: nothing new.
            daily.reset_unfinished_claims()
            again = omniira.run_rollover(self.day).result
            assert again["written"] == 0 and len(router.calls) == 4
            assert Reflection.objects.count() == 1 and DiaryEntry.objects.count() == 3

            # Maren's next conversation with Ada carries her newest diary entry and belief.
            self.call(CmdTalk(), "Maren = Evening!")
            prompt = llm.system_prompts()[-1]
        assert "Your own diary, lately" in prompt
        assert "Maren's day was long, and Ada was on my mind." in prompt
        assert f'What you\'ve come to believe about Ada:\n- "{BELIEF}"' in prompt
        belief = omniira.beliefs(self.maren, self.char1).get()
        assert belief.embedding is not None and belief.memories_count == 5
        assert omniira.diary_entries(self.maren).get().game_day == self.day

    def test_places_and_world_events_give_a_quiet_npc_a_diary(self):
        self.wren.move_to(self.room2, quiet=True)
        omniira.log_world_event("A barge sank at the docks.", [self.wren])
        omniira.log_world_event("The mayor sneezed.", [self.voss])
        assert PlaceVisit.objects.filter(npc=self.wren).count() == 1
        router = DayRouter()
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            from omniira_evennia.runtime.clock import current_game_day

            omniira.run_rollover(current_game_day())
        wren_call = [c for c in router.features("diary") if "You are Wren" in c[1]]
        assert len(wren_call) == 1
        assert "A barge sank at the docks." in wren_call[0][2]
        assert "Room2" in wren_call[0][2] and "The mayor sneezed." not in wren_call[0][2]

    def test_rollover_reads_the_days_world_events_once_for_all_npcs(self):
        npcs = [self.npc(f"Townsfolk{i}") for i in range(6)]
        for npc in npcs:
            omniira.log_world_event(f"{npc.key} haggled over salt.", [npc])
        router = DayRouter()
        with (
            ScriptedLLM(router) as llm,
            override_settings(OMNIIRA=tiers(llm.base_url)),
            CaptureQueriesContext(connection) as queries,
        ):
            from omniira_evennia.runtime.clock import current_game_day

            omniira.run_rollover(current_game_day())
        reads = [
            q["sql"]
            for q in queries.captured_queries
            if q["sql"].lstrip().upper().startswith("SELECT") and "worldevent" in q["sql"].lower()
        ]
        assert len(reads) == 1, reads  # not once per NPC (it grew with NPCs x events)
        diaries = router.features("diary")
        for npc in npcs:
            [call] = [c for c in diaries if f"You are {npc.key}," in c[1]]
            assert f"{npc.key} haggled over salt." in call[2]
            assert sum("haggled over salt" in line for line in call[2].splitlines()) == 1

    def test_rollover_runs_with_bounded_concurrency(self):
        npcs = [self.npc(f"Townsfolk{i}") for i in range(12)]
        for npc in npcs:
            omniira.log_world_event("Market day.", [npc])
        in_flight, peak, pending = [0], [0], []

        def held_worker(func, *args, **kwargs):
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
            d = defer.Deferred()
            pending.append((d, func, args, kwargs))
            return d

        router = DayRouter()
        with (
            ScriptedLLM(router) as llm,
            override_settings(OMNIIRA={**tiers(llm.base_url), "ROLLOVER_CONCURRENCY": 3}),
            mock.patch.object(jobs, "defer_background", held_worker),
        ):
            from omniira_evennia.runtime.clock import current_game_day

            done = omniira.run_rollover(current_game_day())
            while pending:
                d, func, args, kwargs = pending.pop(0)
                in_flight[0] -= 1
                d.callback(func(*args, **kwargs))
            summary = done.result
        assert peak[0] == 3
        assert summary["written"] == 12 and len(router.features("diary")) == 12

    def test_check_rollover_follows_game_time_once_per_day(self):
        fill(self.voss, self.char1, 1, 1)
        router = DayRouter()
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            with mock.patch("evennia.utils.gametime.gametime", return_value=3600 * 10):
                assert daily.check_rollover() is None  # first sight: remember the day
                assert daily.check_rollover() is None
            with mock.patch("evennia.utils.gametime.gametime", return_value=86400 + 60):
                summary = daily.check_rollover().result
                assert summary["game_day"] == 1
                assert daily.check_rollover() is None  # the same midnight, once
        assert len(router.features("diary")) == 1


class TestForgetting(SocialTestBase):
    def test_expired_go_locked_stay_and_caps_evict_the_lowest(self):
        old = omniira.remember(self.maren, self.char1, "Old news.", key="old")
        old.expires_at = timezone.now() - timedelta(minutes=1)
        old.save()
        keep = omniira.remember(self.maren, self.char1, "Locked old news.", key="lockedold")
        keep.expires_at = timezone.now() - timedelta(minutes=1)
        keep.locked = True
        keep.save()
        for i, importance in enumerate([1, 9, 2, 8, 3]):
            omniira.remember(
                self.maren, self.char2, f"Fact {i}.", key=f"f{i}", importance=importance
            )
        Memory.objects.filter(key="f0").update(locked=True)  # lowest, but locked
        with override_settings(OMNIIRA={"MEMORY_CAP_PER_SUBJECT": 3}):
            result = daily.forget()
        assert result == {"expired": 1, "evicted": 2}
        assert set(Memory.objects.filter(subject=self.char2).values_list("key", flat=True)) == {
            "f0",
            "f1",
            "f3",
        }
        assert Memory.objects.filter(key="lockedold").exists()
        assert not Memory.objects.filter(key="old").exists()

    def test_claims_make_work_run_once(self):
        assert daily.claim("diary", self.maren, 5)
        assert not daily.claim("diary", self.maren, 5)
        DailyWork.objects.update(status="empty")
        assert daily.claim("diary", self.maren, 5)  # an empty check may be redone


def test_a_world_can_wake_at_a_set_hour():
    from unittest import mock

    from django.test import override_settings

    from omniira_evennia import conf
    from omniira_evennia.runtime import clock

    with (
        override_settings(OMNIIRA={"GAME_START_HOUR": 7}),
        mock.patch("evennia.utils.gametime.gametime", return_value=0.0),
    ):
        conf.reset_settings()
        assert clock.game_seconds() == 7 * 3600 and clock.current_game_day() == 1
        assert "morning" in clock.game_time_phrase()
    with (
        override_settings(OMNIIRA={"GAME_START_HOUR": 7}),
        mock.patch("evennia.utils.gametime.gametime", return_value=17 * 3600.0),
    ):
        conf.reset_settings()
        assert clock.current_game_day() == 2  # midnight came 17 game hours after the start
    conf.reset_settings()


class TestBeliefCap(EvenniaTest):
    """Beliefs about one target stay within BELIEFS_PER_TARGET (issue #29): the least
    important, then the oldest, go at the rollover; another target's are not touched."""

    def test_the_least_important_then_the_oldest_go(self):
        npc = create.create_object("omniira_evennia.typeclasses.MemoryNPC", key="Maren")
        for i, importance in enumerate([5, 2, 5, 9, 2]):
            Reflection.objects.create(
                npc=npc, target=self.char1, belief=f"Belief {i}.", importance=importance
            )
        Reflection.objects.create(npc=npc, target=self.char2, belief="Other.", importance=1)
        assert daily.evict_beliefs(3) == 2
        kept = Reflection.objects.filter(npc=npc, target=self.char1)
        assert sorted(kept.values_list("belief", flat=True)) == [
            "Belief 0.",
            "Belief 2.",
            "Belief 3.",
        ]
        assert Reflection.objects.filter(target=self.char2).count() == 1
