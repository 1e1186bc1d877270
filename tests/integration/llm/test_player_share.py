"""
One player's share of an NPC's daily tokens (issue #26, point 8): past it the NPC is tired of
that player for the day, said in character to them alone, while another player still gets
answers; and a restart keeps what each player spent.
"""

import evennia
from django.test import override_settings
from evennia.server.serversession import ServerSession

from omniira_evennia.commands import CmdTalk
from omniira_evennia.llm import client as llm_client
from omniira_evennia.models import LLMUsage
from omniira_evennia.runtime import health
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.talk import TalkTestBase, tiers

TIRED = "no more words for you today"


def share_settings(base_url):
    conf = tiers(base_url, npc_daily_tokens=1_000_000)
    # A share of one token: a player's first turn goes (nothing spent yet), the next does not.
    return {**conf, "PLAYER_SHARE_OF_NPC_BUDGET": 1e-6, "FALLBACK_TIER": None}


class TestPlayerShare(TalkTestBase):
    def setUp(self):
        super().setUp()
        self.char2.key = "Bram"
        # A second logged-in player (the base logs in only the first): game-driven speakers,
        # with no account, have no share.
        session = ServerSession()
        session.init_session("telnet", ("localhost", "testmode"), evennia.SESSION_HANDLER)
        session.sessid = 2
        evennia.SESSION_HANDLER.portal_connect(session.get_sync_data())
        self.session2 = evennia.SESSION_HANDLER.session_from_sessid(2)
        evennia.SESSION_HANDLER.login(self.session2, self.account2, testmode=True)
        self.char2.sessions.add(self.session2)  # puppeted (the test's lock would refuse it)
        self.session2.puid, self.session2.puppet = self.char2.id, self.char2

    def tearDown(self):
        del evennia.SESSION_HANDLER[self.session2.sessid]
        super().tearDown()

    def talk(self, player, line):
        return self.call(CmdTalk(), f"Maren = {line}", caller=player)

    def test_one_player_past_their_share_is_refused_and_another_still_answered(self):
        assert self.char1.has_account and self.char2.has_account
        with ScriptedLLM(["Aye, love."]) as llm:
            with override_settings(OMNIIRA=share_settings(llm.base_url)):
                first = self.talk(self.char1, "An ale, please.")
                refused = self.talk(self.char1, "And another?")
                other = self.talk(self.char2, "Evening, Maren.")
                sent = len(llm.requests)
                budget = llm_client.get_client().budget
                spent_a = budget.spent("voice", self.maren.id, self.char1.id)
                spent_b = budget.spent("voice", self.maren.id, self.char2.id)
        print(f"Ada heard {first!r}, then {refused!r}; Bram heard {other!r}")
        assert "Aye, love." in first
        assert TIRED in refused and "Maren" in refused and "Aye, love." not in refused
        assert "Aye, love." in other and TIRED not in other
        assert sent == 2  # the refused turn sent nothing, and stored no usage row
        assert LLMUsage.objects.count() == 2
        assert health.get("player_share_refused") == 1
        # The NPC's spend counts both players; each player's share only their own.
        assert spent_a > 0 and spent_b > 0
        assert budget.spent("voice", self.maren.id) == spent_a + spent_b

    def test_a_restart_keeps_each_players_spend(self):
        with ScriptedLLM(["Aye, love."]) as llm:
            with override_settings(OMNIIRA=share_settings(llm.base_url)):
                self.talk(self.char1, "An ale, please.")
                spent_a = llm_client.get_client().budget.spent(
                    "voice", self.maren.id, self.char1.id
                )
                # A fresh process: no client, no ledger; only the database remembers.
                llm_client.reset_client()
                budget = llm_client.get_client().budget
                assert budget.spent("voice", self.maren.id, self.char1.id) == spent_a > 0
                assert budget.spent("voice", self.maren.id, self.char2.id) == 0
                refused = self.talk(self.char1, "Still there?")
                other = self.talk(self.char2, "Evening, Maren.")
        assert TIRED in refused
        assert "Aye, love." in other
        assert len(llm.requests) == 2
