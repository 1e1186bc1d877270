"""
Daily life through Evennia (issue #10): schedules, commitments kept or dropped, following,
co-location for gossip. Game time is patched; the decision tick is called directly (scripts
do not tick in tests), and conversations go through the real talk command and a scripted
OpenAI-compatible server.
"""

from unittest import mock

import pytest
from django.test import override_settings
from evennia.utils import create

import omniira_evennia as omniira
from omniira_evennia import scripts
from omniira_evennia.commands import CmdTalk
from omniira_evennia.conversation.tags import CommitmentTag
from omniira_evennia.memory import notes_store
from omniira_evennia.models import Memory, PlaceVisit, Plan
from omniira_evennia.rollover import service as daily
from omniira_evennia.runtime import health
from omniira_evennia.social import service as social
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.daily_life import DailyLifeBase, game_time
from tests.support.social import Router
from tests.support.talk import tiers


class TestSchedules(DailyLifeBase):
    def test_npcs_are_in_the_scheduled_room_at_each_hour_and_players_see_them_walk(self):
        lyra, maren = self.lyra, self.maren
        lyra.move_to(self.tavern, quiet=True)
        omniira.set_schedule(lyra, "tavern 00-24, market 09-13")
        omniira.set_schedule(maren, "market 00-24")  # she keeps her post all the same
        maren.db.npc_autonomous = False
        watcher = create.create_object(
            "evennia.objects.objects.DefaultCharacter", key="Bran", location=self.market
        )
        in_market = self.listen(watcher)
        in_tavern = self.listen(self.char1)

        expected = [(8, self.tavern), (9, self.market), (12, self.market), (13, self.tavern)]
        expected += [(24 + 9, self.market), (24 + 14, self.tavern)]  # and again the next day
        for hours, room in expected:
            self.settle(hours)
            assert lyra.location == room, (hours, lyra.location)
            assert maren.location == self.tavern

        assert "Lyra arrives to Market Square from Cobbled Lane." in in_market
        assert "Lyra is leaving Market Square, heading for Cobbled Lane." in in_market
        assert "Lyra is leaving The Lantern & Lane, heading for Cobbled Lane." in in_tavern
        assert "Lyra arrives to The Lantern & Lane from Cobbled Lane." in in_tavern
        assert not any("Maren" in line for line in in_market + in_tavern)
        # Where Lyra went feeds her diary's "places visited".
        assert omniira.places_visited(lyra, 1) == [
            "Cobbled Lane",
            "Market Square",
            "Cobbled Lane",
            "The Lantern & Lane",
        ]
        with game_time(24 + 15):
            assert daily.day_signals(lyra, 2).places[-1] == "The Lantern & Lane"
            assert omniira.places_visited(lyra) == omniira.places_visited(lyra, 2)
        assert not PlaceVisit.objects.filter(npc=maren).exists()
        assert [str(s) for s in omniira.npc_schedule(lyra)] == [
            "tavern 00:00-24:00",
            "market 09:00-13:00",
        ]

    def test_a_talking_npc_finishes_the_conversation_before_its_schedule(self):
        omniira.set_schedule(self.lyra, "market 09-13")
        with ScriptedLLM(["Mm?"]) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(CmdTalk(), "Lyra = Stay a moment.")
        self.settle(9)
        assert self.lyra.location == self.tavern
        self.char1.move_to(self.room2, quiet=True)  # the player walks off
        self.settle(9)
        assert self.lyra.location == self.market

    def test_bad_schedules_are_logged_once_and_never_stop_the_tick(self):
        omniira.set_schedule(self.lyra, "market 09-13")
        self.maren.db.npc_schedule = "market 10-25, stables, cobbled lane 09-12"  # set in-game
        voss = self.npc("Voss")
        voss.db.npc_schedule = "docks 00-24"  # no such room
        wren = self.npc("Wren")
        wren.db.npc_schedule = 42
        with pytest.raises(omniira.ScheduleError, match="entry 1 'market 10-25'"):
            omniira.set_schedule(wren, "market 10-25")
        with mock.patch("evennia.utils.logger.log_warn") as warn:
            self.settle(9)
            self.settle(10)
        warnings = [c.args[0] for c in warn.call_args_list]
        assert len(warnings) == 4, warnings  # two bad entries, one bad type, one missing room
        assert any("entry 2 'stables'" in w and "Maren" in w for w in warnings)
        assert any("no reachable room called 'docks'" in w for w in warnings)
        assert self.lyra.location == self.market  # everyone else still moves
        assert self.maren.location == self.lane  # the good entry of a bad schedule is kept
        assert voss.location == self.tavern and wren.location == self.tavern
        assert health.get("decision_failures") == 0

    def test_budget_spreads_npcs_over_ticks(self):
        extra = [self.npc(f"Walker{i}") for i in range(3)]
        for npc in (self.maren, self.lyra, *extra):
            omniira.set_schedule(npc, "cobbled lane 00-24")
        with game_time(9):
            first = {npc.key for npc, _ in omniira.run_decision_tick(budget=2)}
            second = {npc.key for npc, _ in omniira.run_decision_tick(budget=2)}
            third = {npc.key for npc, _ in omniira.run_decision_tick(budget=2)}
        assert len(first) == len(second) == 2 and len(third) == 2
        assert first | second | third == {"Maren", "Lyra", "Walker0", "Walker1", "Walker2"}
        assert all(npc.location == self.lane for npc in (self.maren, self.lyra, *extra))

    def test_the_decision_ticker_script_runs_the_tick(self):
        omniira.set_schedule(self.lyra, "market 00-24")
        with override_settings(OMNIIRA={"DECISION_TICK_SECONDS": 7}):
            script = scripts.ensure_decision_ticker()
            assert script.interval == 7 and scripts.ensure_decision_ticker().id == script.id
            with game_time(1):
                script.at_repeat()
        assert self.lyra.location == self.lane
        with override_settings(OMNIIRA={"DECISION_TICK_SECONDS": 3}):  # retuned at a restart
            assert scripts.ensure_decision_ticker().interval == 3
        with override_settings(OMNIIRA={"DECISION_TICK_SECONDS": 0}):
            assert scripts.ensure_decision_ticker() is None
        from evennia.scripts.models import ScriptDB

        assert not ScriptDB.objects.filter(db_key=scripts.DECISION_TICKER_KEY).exists()


class TestGossipColocation(DailyLifeBase):
    def test_overlapping_schedules_bring_two_npcs_together_and_they_gossip(self):
        self.char1.move_to(self.room2, quiet=True)
        self.maren.move_to(self.room2, quiet=True)  # Maren stays out of this
        voss = self.npc("Voss", room=self.lane)
        omniira.set_schedule(self.lyra, "tavern 00-24, market 09-13")
        omniira.set_schedule(voss, "cobbled lane 00-08, market 08-20")
        self.settle(7)
        assert social.candidate_pairs([self.market, self.tavern, self.lane]) == []
        self.settle(9)
        assert self.lyra.location == voss.location == self.market
        assert {frozenset((a.key, b.key)) for a, b in social.candidate_pairs()} == {
            frozenset(("Lyra", "Voss"))
        }
        router = Router(voice=["Heard the news?", "Not a word."])
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            [done] = omniira.gossip_round()
        assert done.result is not None and router.count["gossip"] == 1
        assert {speaker for speaker, _ in done.result.lines} == {self.lyra.id, voss.id}


REPLY_TRAVEL_TO = (
    "The market? I'll be there by noon, love. "
    '[[COMMITMENT:{"to":"Ada","to_kind":"player","action":"travel_to","target":"the market",'
    '"by":"noon","summary":"I promised Ada I would be at the market by noon."}]]'
)
REPLY_TRAVEL_WITH = (
    "Lead on, I'll come with you. "
    '[[COMMITMENT:{"to":"Ada","to_kind":"player","action":"travel_with","target":"",'
    '"by":"","summary":"I promised to walk along with Ada."}]]'
)


class TestCommitments(DailyLifeBase):
    def test_travel_to_promised_in_conversation_is_kept_by_its_time(self):
        watcher = create.create_object(
            "evennia.objects.objects.DefaultCharacter", key="Bran", location=self.market
        )
        in_market = self.listen(watcher)
        with game_time(10):
            with (
                ScriptedLLM([REPLY_TRAVEL_TO]) as llm,
                override_settings(OMNIIRA=tiers(llm.base_url)),
            ):
                shown = self.call(CmdTalk(), "Lyra = Will you meet me at the market?")
        assert "I'll be there by noon, love." in shown and "[[" not in shown
        plan = omniira.current_plan(self.lyra)
        assert (plan.action, plan.target, plan.by, plan.to_id) == (
            "travel_to",
            "the market",
            "noon",
            self.char1.id,
        )
        self.settle(10)  # noon is two hours off: she sets out an hour before
        assert self.lyra.location == self.tavern
        with game_time(10.5):
            intent = omniira.intention(self.lyra)
        assert intent.go_to is None and intent.plan_id is None
        self.settle(11)
        assert self.lyra.location == self.market
        assert "Lyra arrives to Market Square from Cobbled Lane." in in_market
        self.settle(11.5)  # early: she waits for the hour she named
        assert self.lyra.location == self.market
        assert Plan.objects.get(id=plan.id).status == "open"
        self.settle(12)
        assert Plan.objects.get(id=plan.id).status == "done"
        kept = Memory.objects.get(npc=self.lyra, key=f"plan_{plan.id}_done")
        assert kept.subject_id == self.char1.id and kept.kind == "commitment"
        assert kept.value == (
            'I kept my promise (I went to Market Square): "I promised Ada I would be at the '
            'market by noon."'
        )
        assert kept.embedding is not None
        assert omniira.current_plan(self.lyra) is None
        assert omniira.places_visited(self.lyra, 1) == ["Cobbled Lane", "Market Square"]

    def test_travel_with_follows_the_player_through_the_exit_they_take(self):
        out = self.tavern.exits[0]
        east = [e for e in self.lane.exits if e.destination == self.market][0]
        with game_time(10):
            with (
                ScriptedLLM([REPLY_TRAVEL_WITH]) as llm,
                override_settings(OMNIIRA=tiers(llm.base_url)),
            ):
                self.call(CmdTalk(), "Lyra = Come with me?")
            ada_hears = self.listen(self.char1)
            out.at_traverse(self.char1, self.lane)  # Ada walks out
            assert self.lyra.location == self.tavern  # a moment later ...
            assert self.run_follows() == [True]
        assert self.lyra.location == self.lane
        assert "Lyra arrives to Cobbled Lane from The Lantern & Lane." in ada_hears
        # If the moment is missed (say, a restart), the next tick catches up.
        east.at_traverse(self.char1, self.market)
        self.follow_calls.clear()
        self.settle(10.5)
        assert self.lyra.location == self.market
        assert Plan.objects.get(npc=self.lyra).status == "open"
        self.settle(12.1)  # two game hours of company since the promise at 10:00: kept
        assert Plan.objects.get(npc=self.lyra).status == "done"
        assert Memory.objects.filter(npc=self.lyra, subject=self.char1, key__endswith="_done")

    def test_plans_that_cannot_be_kept_are_dropped_with_a_memory_why(self):
        def promise(npc, action, target="", to="", by="", to_obj=None):
            tag = CommitmentTag(
                to=to, to_kind="npc", action=action, target=target, by=by, summary=f"{target}{to}"
            )
            return notes_store.add_plan(npc, tag, to_obj=to_obj, game_day=1)

        with game_time(8):  # promises made at 08:00 on day 1
            docks = promise(self.lyra, "travel_to", target="the docks")
            island = promise(self.lyra, "travel_to", target="Gull Island")
            nobody = promise(self.lyra, "travel_with", to="Bartholomew")
            late = promise(self.lyra, "travel_to", target="market", by="7am")
            kept_post = promise(self.maren, "travel_to", target="market")
        self.maren.db.npc_autonomous = False
        self.settle(8)  # 07:00 has passed: "by 7am" means tomorrow's, still open
        assert Plan.objects.get(id=late.id).status == "open"
        self.settle(24 + 8.5)  # no tick ran while she should have walked (a long shutdown)
        reasons = {
            plan.id: Memory.objects.get(key=f"plan_{plan.id}_dropped").value
            for plan in (docks, island, nobody, late, kept_post)
        }
        assert set(Plan.objects.values_list("status", flat=True)) == {"dropped"}
        assert reasons[docks.id] == (
            'There is no place called "the docks", so I could not keep my promise: "the docks"'
        )
        assert reasons[island.id].startswith("I found no way to get to Gull Island, so")
        assert reasons[nobody.id].startswith('I know nobody called "Bartholomew", so')
        assert reasons[late.id].startswith("It was long past 7am and I never got to Market")
        assert reasons[kept_post.id].startswith("I do not leave my post, so")
        assert health.get("plans_dropped") == 5
        # Broken promises are part of the day the NPC writes about.
        signals = daily.day_signals(self.lyra, 1)
        assert any("no place called" in line for line in signals.memories)

    def test_npc_to_npc_travel_with_resolves_the_name_and_follows(self):
        voss = self.npc("Voss", room=self.tavern)
        tag = CommitmentTag(
            to="Voss", to_kind="npc", action="travel_with", target="market", summary="With Voss."
        )
        plan = notes_store.add_plan(self.lyra, tag, game_day=1)
        with game_time(9):
            voss.move_to(self.lane, move_type="traverse")
            assert self.run_follows() == []  # not resolved yet: the tick does it
            omniira.run_decision_tick()
            assert Plan.objects.get(id=plan.id).to_id == voss.id
            assert self.lyra.location == self.lane
            [e for e in self.lane.exits if e.destination == self.market][0].at_traverse(
                voss, self.market
            )
            assert self.run_follows() == [True]
            omniira.run_decision_tick()
        assert Plan.objects.get(id=plan.id).status == "done"
