"""
Calls that cannot hang (issue #17, point 6): a total deadline per call and a maximum reply size,
against a scripted server on loopback that drips its reply or sends megabytes; and credentials
in a base URL never reach a usage row or a log line.
"""

import logging
import time

import httpx
import pytest
from django.test import override_settings

from omniira_evennia.commands import CmdTalk
from omniira_evennia.conf import TierSettings, build_settings
from omniira_evennia.llm.client import LLMClient, LLMError, safe_url
from omniira_evennia.models import ConversationTurn, LLMUsage
from omniira_evennia.runtime import health
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.talk import TalkTestBase, tiers

MESSAGES = [{"role": "user", "content": "hi"}]


def client_for(url, **tier):
    return LLMClient({"voice": TierSettings(base_url=url, model="m", **tier)})


def test_tier_settings_default_the_deadline_to_the_timeout_and_cap_replies_at_256_kib():
    tier = build_settings({"TIERS": {"voice": {"timeout": 7}}}, environ={}).TIERS["voice"]
    assert tier.total_deadline == 7 and tier.max_response_bytes == 256 * 1024
    tier = build_settings(
        {"TIERS": {"voice": {"timeout": 7, "deadline": 3, "max_response_bytes": 1000}}}, environ={}
    ).TIERS["voice"]
    assert tier.total_deadline == 3 and tier.max_response_bytes == 1000


def test_a_dripping_server_is_cut_off_at_the_deadline():
    # One byte a second: every read arrives well within the per-read timeout, so before the
    # deadline the call lasted as long as the body (about 250 s here).
    with ScriptedLLM(["Evening."], drip=1.0) as llm:
        started = time.monotonic()
        with pytest.raises(LLMError) as caught:
            client_for(llm.base_url, timeout=5, deadline=2).chat(
                "voice", MESSAGES, feature="conversation"
            )
        elapsed = time.monotonic() - started
    print(f"dripping server: failed after {elapsed:.2f} s: {caught.value.usage.error}")
    assert elapsed < 30  # the deadline, not the body's 250 s (room for a busy machine)
    assert caught.value.usage.error.startswith("TotalTimeout")
    assert len(llm.requests) == 1  # a deadline is not retried
    assert health.get("llm_deadline_exceeded") == 1


def test_a_server_that_never_answers_is_cut_off_at_the_deadline_not_the_timeout():
    with ScriptedLLM(["Too late."], delay=10) as llm:
        started = time.monotonic()
        with pytest.raises(LLMError) as caught:
            client_for(llm.base_url, timeout=30, deadline=1).chat("voice", MESSAGES, feature="t")
        elapsed = time.monotonic() - started
    # The 1 s deadline, not the 10 s delay nor the 30 s timeout (room for a busy machine).
    assert elapsed < 8 and "TotalTimeout" in caught.value.usage.error


def test_an_oversized_reply_is_refused_without_reading_it():
    # A few MB with a Content-Length: refused from the header, before the body is read.
    with ScriptedLLM(["Evening."], oversize=5_000_000) as llm:
        started = time.monotonic()
        with pytest.raises(LLMError) as caught:
            client_for(llm.base_url, timeout=10, max_response_bytes=64 * 1024).chat(
                "voice", MESSAGES, feature="t"
            )
        elapsed = time.monotonic() - started
    print(f"oversized reply: refused after {elapsed:.2f} s: {caught.value.usage.error}")
    assert caught.value.usage.error.startswith("ResponseTooLarge")
    assert health.get("llm_response_too_large") == 1


def test_an_oversized_reply_without_a_length_stops_at_the_limit():
    read = []

    def body():
        for _ in range(400):  # 4 MB in 10 kB chunks, no Content-Length
            read.append(1)
            yield b" " * 10_000

    client = LLMClient(
        {"voice": TierSettings(base_url="http://llm.invalid/v1", max_response_bytes=100_000)},
        transport=httpx.MockTransport(lambda request: httpx.Response(200, content=body())),
    )
    with pytest.raises(LLMError) as caught:
        client.chat("voice", MESSAGES, feature="t")
    assert "ResponseTooLarge" in caught.value.usage.error
    assert len(read) <= 11  # stopped just past the limit, not after 4 MB


def test_a_reply_within_the_limits_still_arrives():
    with ScriptedLLM(["Evening."], oversize=10_000) as llm:
        result = client_for(llm.base_url, timeout=5, max_response_bytes=64 * 1024).chat(
            "voice", MESSAGES, feature="t"
        )
    assert result.text.strip() == "Evening."


def test_credentials_in_the_base_url_reach_no_usage_row_or_log(caplog):
    assert safe_url("https://bob:s3cret@llm.example/v1") == "https://llm.example/v1"
    assert safe_url("see http://tok@h:1/x and https://h/y") == "see http://h:1/x and https://h/y"
    with ScriptedLLM(status=500) as llm:
        url = llm.base_url.replace("http://", "http://bob:s3cret@")
        client = LLMClient({"voice": TierSettings(base_url=url, timeout=3)})
        with caplog.at_level(logging.INFO, logger="omniira"):
            for _ in range(6):  # enough to open the circuit and be refused by it
                with pytest.raises(LLMError) as caught:
                    client.chat("voice", MESSAGES, feature="t")
                assert "s3cret" not in caught.value.usage.error and "s3cret" not in str(
                    caught.value
                )
    assert health.get("circuit_opened") == 1
    assert "s3cret" not in caplog.text and "bob" not in caplog.text


class TestConversationDeadline(TalkTestBase):
    def test_a_dripping_endpoint_gives_a_fallback_line_within_the_deadline(self):
        with ScriptedLLM(["Evening, love."], drip=1.0) as llm:
            # A read timeout far past the deadline: only the deadline can end the call in time.
            conf = tiers(llm.base_url, timeout=60, deadline=1.5)
            with override_settings(OMNIIRA=conf):
                started = time.monotonic()
                shown = self.call(CmdTalk(), "Maren = hello?")
                elapsed = time.monotonic() - started
        print(f"talk to a dripping endpoint: {elapsed:.2f} s, the room saw: {shown!r}")
        # The deadline (1.5 s), not the 60 s read timeout nor the minutes-long body; the margin
        # is for a machine busy with other work (2.8 s measured beside a test run).
        assert elapsed < 20
        assert "Evening, love." not in shown and "Maren" in shown
        assert "TotalTimeout" in LLMUsage.objects.get().error
        assert not ConversationTurn.objects.filter(role="npc").exists()
        assert health.get("conversation_fallbacks") == 1


def test_credentials_in_the_embeddings_url_are_not_stored_in_the_embedder_name():
    from omniira_evennia.memory.embeddings import OpenAIEmbeddingsEmbedder

    embedder = OpenAIEmbeddingsEmbedder(
        base_url="https://bob:s3cret@127.0.0.1:9/v1", model="m", api_key=None, timeout=0.5
    )
    assert embedder.name == "openai:m@127.0.0.1:9"  # stored on every row it embeds
    problems = embedder.problems()
    assert problems and "s3cret" not in problems[0] and "bob" not in problems[0]
