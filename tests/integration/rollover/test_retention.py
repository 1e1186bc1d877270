"""Retention: the rollover deletes usage, audit rows and conversation lines past their age."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

import omniira_evennia as omniira
from omniira_evennia.conf import build_settings
from omniira_evennia.models import AuditLog, Conversation, ConversationTurn, LLMUsage
from omniira_evennia.rollover import service as daily
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.daily import DayRouter
from tests.support.social import SocialTestBase
from tests.support.talk import tiers

DAY = 200


class TestRetention(SocialTestBase):
    def setUp(self):
        super().setUp()
        now = timezone.now()
        self.old, self.recent = now - timedelta(days=91), now - timedelta(days=89)
        for when in (self.old, self.recent):
            LLMUsage.objects.create(tier="voice", feature="conversation", created_at=when)
            AuditLog.objects.create(kind="player_text", excerpt="x", created_at=when)
        AuditLog.objects.create(kind="erasure", excerpt="erased Bob", created_at=self.old)
        self.line("done-old", DAY - 90, "done", "Old words, reviewed.")
        self.line("done-new", DAY - 89, "done", "Newer words.")
        self.line("pending-old", DAY - 120, "pending", "Old words awaiting review.")
        self.line("open-old", DAY - 120, "pending", "An old open talk.", ended=False)

    def line(self, conv_id, game_day, extraction, text, ended=True):
        Conversation.objects.create(
            conversation_id=conv_id,
            npc=self.maren,
            speaker=self.char1,
            extraction=extraction,
            ended_at=timezone.now() if ended else None,
        )
        ConversationTurn.objects.create(
            npc=self.maren,
            speaker=self.char1,
            conversation_id=conv_id,
            role="speaker",
            text=text,
            game_day=game_day,
        )

    def test_the_rollover_deletes_what_is_older_and_counts_it(self):
        with ScriptedLLM(DayRouter()) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            summary = omniira.run_rollover(DAY).result
        assert summary["retention_deleted"] == 3  # a usage row, an audit row, one line
        assert list(LLMUsage.objects.values_list("created_at", flat=True)) == [self.recent]
        assert sorted(AuditLog.objects.values_list("kind", flat=True)) == [
            "erasure",
            "player_text",
        ]
        assert AuditLog.objects.get(kind="player_text").created_at == self.recent
        assert sorted(ConversationTurn.objects.values_list("text", flat=True)) == [
            "An old open talk.",
            "Newer words.",
            "Old words awaiting review.",
        ]

    def test_zero_keeps_forever_and_shorter_settings_delete_more(self):
        keep = {"KEEP_USAGE_DAYS": 0, "KEEP_AUDIT_DAYS": 0, "KEEP_TURNS_GAME_DAYS": 0}
        with override_settings(OMNIIRA=keep):
            assert daily.apply_retention(DAY) == 0
        assert LLMUsage.objects.count() == 2 and ConversationTurn.objects.count() == 4
        short = {"KEEP_USAGE_DAYS": 1, "KEEP_AUDIT_DAYS": 1, "KEEP_TURNS_GAME_DAYS": 1}
        with override_settings(OMNIIRA=short):
            assert daily.apply_retention(DAY) == 2 + 2 + 2
        assert LLMUsage.objects.count() == 0
        assert list(AuditLog.objects.values_list("kind", flat=True)) == ["erasure"]
        assert ConversationTurn.objects.count() == 2  # the open and the unreviewed talk


@pytest.mark.parametrize("name", ["KEEP_USAGE_DAYS", "KEEP_AUDIT_DAYS", "KEEP_TURNS_GAME_DAYS"])
def test_retention_settings_are_validated(name):
    assert getattr(build_settings({}, environ={}), name) == 90
    with pytest.raises(ValueError, match=name):
        build_settings({name: -1}, environ={})


def test_each_bad_retention_or_cache_value_is_one_e001():
    from omniira_evennia.checks import settings_problems

    raw = {"KEEP_USAGE_DAYS": -1, "KEEP_AUDIT_DAYS": "often", "KEEP_TURNS_GAME_DAYS": 1.5}
    conf, problems = settings_problems({**raw, "VECTOR_CACHE_MB": 0})
    assert conf is None
    assert [p.id for p in problems] == ["omniira.E001"] * 4
    shown = " ".join(p.msg for p in problems)
    for name in (*raw, "VECTOR_CACHE_MB"):
        assert name in shown
