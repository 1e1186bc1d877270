"""
No personal data leaves in a prompt, whatever text the prompt was assembled from (issue 17,
point 3): rows the write policy never redacted (a builder's or game code's own memory, a memory
written before a pattern existed, a world event) are redacted as the LLM client sends each
message, for every kind of call. The NPC's own spoken line is redacted before it is said and kept.
"""

import json

from django.test import override_settings

import omniira_evennia as omniira
from omniira_evennia.commands import CmdTalk
from omniira_evennia.llm import client as llm_client
from omniira_evennia.memory import store
from omniira_evennia.models import ConversationTurn, Memory
from omniira_evennia.runtime import health
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.daily import DayRouter
from tests.support.social import Router, SocialTestBase
from tests.support.talk import tiers

BUILDER_PHONE = "+15551234567"
OLD_ROW_PHONE = "0171 1234567"
NPC_PHONE = "+44 20 7946 0123"
BUILDER_EMAIL = "ada@home.example"
EVENT_PHONE = "+49 30 1234567"
EVERY = (BUILDER_PHONE, "5551234567", BUILDER_EMAIL, OLD_ROW_PHONE, NPC_PHONE, "7946 0123")
EVERY += (EVENT_PHONE, "30 1234567")


class EveryCall(Router):
    def __init__(self):
        super().__init__(voice=[f"Ring me on {NPC_PHONE}, love.", "Aye.", "Safe roads."])
        self.day = DayRouter()

    def __call__(self, body):
        feature = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
        if feature in ("reflection", "diary"):
            return self.day(body)
        return super().__call__(body)


class TestPromptRedaction(SocialTestBase):
    def test_no_personal_data_reaches_any_request_whatever_its_source(self):
        self.maren.db.npc_headline = True
        # a builder's write keeps its text (the policy trusts builders) ...
        omniira.remember(
            self.maren,
            self.char1,
            f"Ada's number is {BUILDER_PHONE}, her mail {BUILDER_EMAIL}.",
            importance=9,
        )
        # ... as does a row from before a pattern existed
        Memory.objects.create(
            npc=self.maren,
            subject=self.char1,
            key="old_row",
            value=f"Ada rings her sister on {OLD_ROW_PHONE}.",
            importance=9,
        )
        store.invalidate()
        omniira.log_world_event(f"A notice: lost dog, call {EVENT_PHONE}.", npcs=[self.maren])
        router = EveryCall()
        with ScriptedLLM(router) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            for line in ("Hello Maren!", "What do you know about my sister?", "Goodbye!"):
                self.call(CmdTalk(), f"Maren = {line}")
            self.leave_room()
            omniira.gossip_round(self.room1)
            omniira.run_rollover()
            features = {
                ((r.get("response_format") or {}).get("json_schema") or {}).get("name")
                for r in llm.requests
            }
        assert {None, "extraction", "gossip", "diary"} <= features
        # the texts were there to leak: stored as written
        stored = json.dumps(list(Memory.objects.values_list("value", flat=True)))
        assert BUILDER_PHONE in stored and BUILDER_EMAIL in stored and OLD_ROW_PHONE in stored
        # the NPC's spoken line passed the write policy before it was kept (issue 17, point 1)
        npc_lines = ConversationTurn.objects.filter(role="npc").values_list("text", flat=True)
        assert "Ring me on [phone], love." in npc_lines, list(npc_lines)
        everything = json.dumps(llm.requests)
        for secret in EVERY:
            assert secret not in everything, secret
        assert "[phone]" in everything and "[email]" in everything
        assert health.get("pii_redacted_prompt") >= 4


def test_the_filter_redacts_each_message_and_keeps_the_callers():
    messages = [
        {"role": "system", "content": f"You remember {BUILDER_PHONE}."},
        {"role": "user", "content": "Nice weather."},
    ]
    sent = llm_client.filter_messages(messages)
    assert sent[0]["content"] == "You remember [phone]." and sent[1] == messages[1]
    assert messages[0]["content"] == f"You remember {BUILDER_PHONE}."


def test_a_prompt_is_filtered_line_by_line_and_every_line_is_kept():
    # Each line through the filter (a line seen before is not read again): the personal data
    # of any line is redacted, the others are sent as they are, in their order.
    system = "\n".join(
        ["You are Maren, who keeps the Lantern.", f"You remember: {BUILDER_EMAIL} wrote.", ""]
        + [f"- fact {n}" for n in range(3)]
        + [f"Ring {BUILDER_PHONE} for the ferry."]
    )
    before = health.get("pii_redacted_prompt")
    for _ in range(2):  # the second call is answered from the lines' cache, alike
        sent = llm_client.filter_messages([{"role": "system", "content": system}])
        assert sent[0]["content"].split("\n") == [
            "You are Maren, who keeps the Lantern.",
            "You remember: [email] wrote.",
            "",
            "- fact 0",
            "- fact 1",
            "- fact 2",
            "Ring [phone] for the ferry.",
        ]
    assert health.get("pii_redacted_prompt") == before + 4
