"""The OpenAI-compatible client against a scripted server on loopback."""

import time

import httpx
import pytest
from pydantic import BaseModel

from omniira_evennia.conf import TierSettings, build_settings
from omniira_evennia.llm.client import (
    LLMClient,
    LLMError,
    LLMJsonError,
    LLMNotConfigured,
    chat_json,
)
from omniira_evennia.runtime import health
from omniira_evennia.testing.fakes import ScriptedLLM

MESSAGES = [{"role": "user", "content": "hi"}]


def client_for(url, **tier):
    return LLMClient({"voice": TierSettings(base_url=url, model="m", timeout=3, **tier)})


def test_chat_sends_the_openai_body_and_reports_usage_and_cost():
    with ScriptedLLM(["Evening."]) as llm:
        client = client_for(
            llm.base_url,
            api_key="sk-test",
            price_in_per_mtok=1.0,
            price_out_per_mtok=2.0,
            max_tokens=50,
            temperature=0.3,
        )
        result = client.chat("voice", MESSAGES, feature="conversation")
    body = llm.requests[0]
    assert body["model"] == "m" and body["max_tokens"] == 50 and body["temperature"] == 0.3
    assert body["messages"] == MESSAGES
    assert result.text == "Evening."
    usage = result.usage
    assert usage.ok and usage.tokens_in == 0 and usage.tokens_out == 2  # scripted: chars/4
    assert usage.cost_usd == pytest.approx(2 * 2.0 / 1e6)


def test_one_retry_on_5xx_then_error_with_usage():
    with ScriptedLLM(status=503) as llm:
        with pytest.raises(LLMError) as caught:
            client_for(llm.base_url).chat("voice", MESSAGES, feature="conversation")
    assert len(llm.requests) == 2  # the first try and exactly one retry
    assert caught.value.usage.ok is False and "503" in caught.value.usage.error
    assert health.get("llm_errors") == 1


def test_4xx_is_not_retried():
    with ScriptedLLM(status=401) as llm:
        with pytest.raises(LLMError):
            client_for(llm.base_url).chat("voice", MESSAGES, feature="conversation")
    assert len(llm.requests) == 1


def test_connection_error_is_retried_once_through_the_transport():
    calls = []

    def handler(request):
        calls.append(request)
        if len(calls) == 1:
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(200, json={"choices": [{"message": {"content": "ok"}}]})

    client = LLMClient(
        {"voice": TierSettings(base_url="http://llm.invalid/v1")},
        transport=httpx.MockTransport(handler),
    )
    assert client.chat("voice", MESSAGES, feature="t").text == "ok"
    assert len(calls) == 2 and str(calls[0].url) == "http://llm.invalid/v1/chat/completions"


def test_calls_share_one_http_client_and_its_connections(monkeypatch):
    # A client per call reloads the CA bundle (~50 ms of CPU, partly under the GIL).
    made = []
    real = httpx.Client

    def counting(*args, **kwargs):
        made.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(httpx, "Client", counting)
    with ScriptedLLM(["One.", "Two.", "Three."]) as llm:
        client = client_for(llm.base_url)
        texts = [client.chat("voice", MESSAGES, feature="t").text for _ in range(3)]
        client.close()
    assert texts == ["One.", "Two.", "Three."]
    assert len(made) == 1


def test_worker_threads_call_concurrently_through_the_shared_client():
    import threading

    with ScriptedLLM(["Aye."], delay=0.5) as llm:
        client = client_for(llm.base_url)
        results = []
        threads = [
            threading.Thread(
                target=lambda: results.append(client.chat("voice", MESSAGES, feature="t").text)
            )
            for _ in range(4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        client.close()
    assert results == ["Aye."] * 4
    assert llm.peak_in_flight == 4  # sharing the client serialises nothing


def test_garbage_reply_is_an_error():
    client = LLMClient(
        {"voice": TierSettings(base_url="http://x/v1")},
        transport=httpx.MockTransport(lambda r: httpx.Response(200, text="<html>nope</html>")),
    )
    with pytest.raises(LLMError):
        client.chat("voice", MESSAGES, feature="t")


def test_unconfigured_tier_says_what_to_set():
    with pytest.raises(LLMNotConfigured, match="OMNIIRA_LLM_BASE_URL"):
        LLMClient({"voice": TierSettings()}).chat("voice", MESSAGES, feature="t")


class Belief(BaseModel):
    belief: str
    importance: int


SCHEMA = {
    "type": "object",
    "properties": {"belief": {"type": "string"}, "importance": {"type": "integer"}},
    "required": ["belief", "importance"],
    "additionalProperties": False,
}


def test_json_call_uses_json_schema_response_format():
    with ScriptedLLM(['{"belief": "Ada is kind", "importance": 6}']) as llm:
        result = chat_json(
            client_for(llm.base_url),
            "voice",
            MESSAGES,
            feature="reflection",
            schema=SCHEMA,
            validator=Belief,
        )
    assert result.value == Belief(belief="Ada is kind", importance=6)
    assert llm.requests[0]["response_format"]["type"] == "json_schema"
    assert llm.requests[0]["response_format"]["json_schema"]["schema"] == SCHEMA


def test_json_call_without_server_support_repairs_once():
    replies = [
        "Sure! Here you go: {belief: Ada}",
        '```json\n{"belief": "Ada", "importance": 3}\n```',
    ]
    with ScriptedLLM(replies) as llm:
        result = chat_json(
            client_for(llm.base_url, structured_output="none"),
            "voice",
            MESSAGES,
            feature="reflection",
            schema=SCHEMA,
            validator=Belief,
        )
    assert result.value.belief == "Ada" and len(result.usages) == 2
    assert "response_format" not in llm.requests[0]
    assert "not valid" in llm.requests[1]["messages"][-1]["content"]
    assert health.get("json_repairs") == 1


def test_json_call_gives_up_after_one_repair():
    with ScriptedLLM(["no json here"]) as llm:
        with pytest.raises(LLMJsonError) as caught:
            chat_json(
                client_for(llm.base_url, structured_output="none"),
                "voice",
                MESSAGES,
                feature="reflection",
                schema=SCHEMA,
                validator=Belief,
            )
    assert len(llm.requests) == 2 and len(caught.value.usages) == 2
    assert caught.value.usages[-1].ok is False


def test_settings_environment_precedence():
    raw = {
        "TIERS": {
            "voice": {"base_url": "http://settings/v1", "model": "from-settings"},
            "reasoning": {"base_url": "http://reasoning-settings/v1"},
        }
    }
    env = {
        "OMNIIRA_LLM_BASE_URL": "http://all/v1",
        "OMNIIRA_LLM_API_KEY": "k-all",
        "OMNIIRA_VOICE_BASE_URL": "http://voice/v1",
        "OMNIIRA_AMBIENT_MODEL": "tiny",
    }
    conf = build_settings(raw, env)
    assert conf.TIERS["voice"].base_url == "http://voice/v1"
    assert conf.TIERS["voice"].model == "from-settings"
    assert conf.TIERS["reasoning"].base_url == "http://all/v1"
    assert conf.TIERS["ambient"].model == "tiny"
    assert all(t.api_key == "k-all" for t in conf.TIERS.values())


def test_local_endpoint_fills_only_unconfigured_tiers():
    env = {
        "OMNIIRA_VOICE_BASE_URL": "http://groq/v1",
        "OMNIIRA_LOCAL_BASE_URL": "http://l/v1",
        "OMNIIRA_LOCAL_MODEL_NAME": "qwen",
    }
    conf = build_settings({}, env)
    assert conf.TIERS["voice"].base_url == "http://groq/v1"
    assert conf.TIERS["reasoning"].base_url == "http://l/v1"
    assert conf.TIERS["reasoning"].model == "qwen"


def test_a_connection_is_kept_between_calls_seconds_apart_as_players_talk():
    # httpx's own 5 s closed it between most players' lines: every turn connected again.
    with ScriptedLLM(["Aye."], keep_alive=True) as llm:
        client = client_for(llm.base_url)
        client.chat("voice", MESSAGES, feature="t")
        time.sleep(5.5)
        client.chat("voice", MESSAGES, feature="t")
        client.close()
    assert len(llm.requests) == 2 and len(llm.peers) == 1
