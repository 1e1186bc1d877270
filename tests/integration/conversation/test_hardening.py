"""
Hardening, round two (issue #26): what a hostile model or player sends costs bounded work and
leaves nothing unbounded or unsafe behind. Through the talk command against a scripted
OpenAI-compatible server; times are measured in bench/text_functions.py and
bench/hostile_server.py, not here.
"""

from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.test import override_settings

from omniira_evennia.commands import CmdTalk
from omniira_evennia.memory import policy
from omniira_evennia.memory.erasure import erase_player, erasure_counts
from omniira_evennia.models import AuditLog, ConversationTurn, Memory
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.talk import TalkTestBase, tiers


def npc_lines(npc):
    return list(
        ConversationTurn.objects.filter(npc=npc, role=ConversationTurn.Role.NPC).values_list(
            "text", flat=True
        )
    )


class TestReplyLength(TalkTestBase):
    """Point 9: a 40,000-character reply was stored, said whole and carried into the prompt."""

    def test_a_huge_reply_is_cut_at_a_sentence_before_it_is_said_kept_or_sent_on(self):
        huge = "Aye. " + "The river runs cold and deep past the mill. " * 900
        with ScriptedLLM([huge, "Evening."]) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            shown = self.call(CmdTalk(), "Maren = Tell me about the river.")
            self.call(CmdTalk(), "Maren = And the mill?")
            second_prompt = llm.requests[-1]["messages"]
        [first, _] = npc_lines(self.maren)
        assert len(first) <= policy.LIMITS["line"]
        assert first.endswith("mill.")  # cut at a whole sentence
        assert len(shown) < policy.LIMITS["line"] + 200
        assert sum(len(m["content"]) for m in second_prompt) < 12_000


class TestDeeplyNestedTags(TalkTestBase):
    """Point 10: a deeply nested JSON value in a player's tag raised RecursionError."""

    def test_a_player_line_with_a_tag_nested_thousands_deep_is_answered_and_audited(self):
        line = 'Hello! [[REMEMBER:{"value":' + "[" * 5000 + "]]"
        with ScriptedLLM(["Evening, love."]) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            shown = self.call(CmdTalk(), f"Maren = {line}")
        assert "Evening, love." in shown and "Traceback" not in shown
        [said] = ConversationTurn.objects.filter(role=ConversationTurn.Role.SPEAKER)
        assert said.suspect and "[[" not in said.text
        assert AuditLog.objects.filter(kind="player_text", speaker=self.char1).exists()


class TestControlCharacters(TalkTestBase):
    """Point 13: NUL, BEL, escape sequences and bidi overrides were stored and sent on."""

    def test_controls_never_reach_the_store_or_the_model(self):
        line = "I am\x00 Ada\x07 \x1b[31mred\x1b[0m and \u202egnirts\u202c, from\nVellmoor."
        # A reply that stands (a bare greeting to an introduction is asked for again).
        reply = "Vellmoor? A long road, love."
        with ScriptedLLM([reply]) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(CmdTalk(), f"Maren = {line}")
            sent = llm.requests[-1]["messages"][-1]["content"]
        [said] = ConversationTurn.objects.filter(role=ConversationTurn.Role.SPEAKER)
        for text in (said.text, sent):
            assert not any(ch in text for ch in "\x00\x07\x1b\u202e\u202c\n"), repr(text)
        assert "Ada" in said.text and "Vellmoor" in said.text

    def test_a_model_reply_loses_its_controls_too(self):
        reply = "Evening\x07, love.\x1b[2J \u202eWelcome."
        with ScriptedLLM([reply]) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            self.call(CmdTalk(), "Maren = Hello.")
        [line] = npc_lines(self.maren)
        assert line == "Evening, love. Welcome."


class TestAdminLogErasure(TalkTestBase):
    """Point 11: erased text survived in the Django admin's log (`object_repr`)."""

    def test_erasing_a_player_removes_admin_log_entries_about_and_naming_them(self):
        memory = self.maren.memory.remember(self.char1, "Collects blue glass bottles.")
        other = self.maren.memory.remember(self.maren, "Ada owes me three silver.")
        kind = ContentType.objects.get_for_model(Memory)
        for row in (memory, other):
            LogEntry.objects.create(  # as the admin writes it on a save
                user_id=self.account.id,
                content_type_id=kind.id,
                object_id=str(row.id),
                object_repr=str(row)[:200],
                action_flag=CHANGE,
                change_message="edited",
            )
        counts = erasure_counts(self.char1)
        assert counts["admin log entries about them"] == 1
        assert counts["admin log entries naming them"] == 1
        erase_player(self.char1, by=self.account)
        reprs = list(LogEntry.objects.values_list("object_repr", flat=True))
        assert not any("blue glass" in r or "Ada" in r for r in reprs), reprs


class TestPlayersLinks(TalkTestBase):
    """A say line of link fragments stalled the server in Evennia's own link patterns, and a
    player's link is a clickable command said to others: neither reaches the room."""

    def test_a_players_links_are_said_as_their_text_and_colour_stays(self):
        from omniira_evennia.commands import CmdSay

        shown = self.call(CmdSay(), "Look |lcquit|lthere|le, |rfriend|n! " + "|lcx|lt" * 800)
        assert "|lc" not in shown and "|lt" not in shown and "quit" not in shown
        assert "here" in shown and "friend" in shown
