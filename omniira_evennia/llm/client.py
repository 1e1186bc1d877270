"""
The LLM client: OpenAI-compatible chat completions over httpx.

Every provider that speaks this API works: OpenAI, Groq, Ollama (`/v1`), vLLM, a llama.cpp
server, the offline local model this project launches. Three tiers (`voice`, `reasoning`,
`ambient`) each name their own endpoint, model, key, timeout, token limit, temperature and prices
(see `conf.TierSettings`).

Calls are synchronous and must run off the reactor thread. A connection error or a 5xx is
retried once. Every call, successful or not, yields a `Usage` for the usage table; failures raise
`LLMError` carrying theirs.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx
from pydantic import BaseModel, ValidationError

from omniira_evennia.conf import TierSettings, get_settings
from omniira_evennia.llm.guards import Budget, CircuitBreaker
from omniira_evennia.runtime import health

log = logging.getLogger("omniira.llm")


@dataclass
class Usage:
    tier: str
    feature: str
    model: str
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: int = 0
    cost_usd: float = 0.0
    ok: bool = True
    error: str = ""


@dataclass
class ChatResult:
    text: str
    usage: Usage


class LLMError(Exception):
    def __init__(self, message: str, usage: Usage):
        super().__init__(message)
        self.usage = usage


class LLMNotConfigured(LLMError):
    pass


class LLMRefused(LLMError):
    """Refused before any request: over budget or rate, or the endpoint's circuit is open."""


class LLMBudgetExceeded(LLMRefused):
    pass


class LLMCircuitOpen(LLMRefused):
    pass


def cost_of(tier: TierSettings, tokens_in: int, tokens_out: int) -> float:
    return (tokens_in * tier.price_in_per_mtok + tokens_out * tier.price_out_per_mtok) / 1e6


def _chat_url(base_url: str) -> str:
    return base_url.rstrip("/") + "/chat/completions"


class LLMClient:
    """Chat completions against configured tiers. `transport` is for tests at the HTTP boundary."""

    def __init__(
        self,
        tiers: dict[str, TierSettings],
        transport: httpx.BaseTransport | None = None,
        budget: Budget | None = None,
        breaker: CircuitBreaker | None = None,
    ):
        self.tiers = tiers
        self._transport = transport
        self.budget = budget or Budget(tiers)
        self.breaker = breaker or CircuitBreaker()
        self._http: httpx.Client | None = None
        self._http_lock = threading.Lock()

    def _http_client(self) -> httpx.Client:
        """
        One HTTP client for every call, shared by the worker threads (httpx allows that). A new
        client per call costs about 50 ms of CPU to load the CA bundle, partly holding the GIL
        and so stalling the reactor, and can reuse no connection (a new TLS handshake each time).
        """
        with self._http_lock:
            if self._http is None:
                self._http = httpx.Client(transport=self._transport)
            return self._http

    def close(self) -> None:
        with self._http_lock:
            if self._http is not None:
                self._http.close()
                self._http = None

    def chat(
        self,
        tier_name: str,
        messages: list[dict[str, str]],
        *,
        feature: str,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        npc_id: int | None = None,
    ) -> ChatResult:
        tier = self.tiers.get(tier_name)
        usage = Usage(tier=tier_name, feature=feature, model=tier.model if tier else "")
        if tier is None or not tier.configured:
            usage.ok, usage.error = False, "not configured"
            raise LLMNotConfigured(
                f"LLM tier '{tier_name}' has no base_url: set OMNIIRA_LLM_BASE_URL or "
                f"settings.OMNIIRA['TIERS']['{tier_name}']['base_url']",
                usage,
            )
        body: dict[str, Any] = {
            "model": tier.model,
            "messages": messages,
            "max_tokens": max_tokens or tier.max_tokens,
            "temperature": tier.temperature if temperature is None else temperature,
            "stream": False,
        }
        if json_schema is not None and tier.structured_output == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": feature, "schema": json_schema, "strict": True},
            }
        elif json_schema is not None and tier.structured_output == "json_object":
            body["response_format"] = {"type": "json_object"}
        headers = {"Content-Type": "application/json"}
        if tier.api_key:
            headers["Authorization"] = f"Bearer {tier.api_key}"

        refusal = self.budget.refusal(tier_name, npc_id)
        if refusal:
            usage.ok, usage.error = False, f"over budget: {refusal}"
            health.incr(f"budget_refused_{feature}")
            raise LLMBudgetExceeded(refusal, usage)
        endpoint = tier.base_url
        if not self.breaker.allow(endpoint):
            usage.ok, usage.error = False, "circuit open"
            health.incr("circuit_refused")
            raise LLMCircuitOpen(f"endpoint {endpoint} is failing; circuit open", usage)

        started = time.monotonic()
        try:
            data = self._post(tier, body, headers)
            text = data["choices"][0]["message"]["content"] or ""
            if not isinstance(text, str):
                raise TypeError("message content is not text")
            reported = data.get("usage") or {}
            tokens_in = int(reported.get("prompt_tokens") or 0)
            tokens_out = int(reported.get("completion_tokens") or 0)
        except Exception as err:  # any failure counts against the endpoint, or a probe sticks
            usage.latency_ms = int((time.monotonic() - started) * 1000)
            usage.ok, usage.error = False, f"{type(err).__name__}: {err}"[:500]
            health.incr("llm_errors")
            if self.breaker.failure(endpoint):
                health.incr("circuit_opened")
                log.warning("LLM endpoint %s failing: circuit opened", endpoint)
            log.warning("LLM call failed (tier=%s feature=%s): %s", tier_name, feature, usage.error)
            raise LLMError(usage.error, usage) from err

        usage.latency_ms = int((time.monotonic() - started) * 1000)
        usage.tokens_in, usage.tokens_out = tokens_in, tokens_out
        usage.cost_usd = cost_of(tier, usage.tokens_in, usage.tokens_out)
        self.breaker.success(endpoint)
        self.budget.record(tier_name, usage.tokens_in + usage.tokens_out, npc_id)
        health.incr("llm_calls")
        return ChatResult(text=text, usage=usage)

    def _post(self, tier: TierSettings, body: dict, headers: dict) -> dict:
        url = _chat_url(tier.base_url)
        last_error: Exception | None = None
        client = self._http_client()
        for attempt in (1, 2):
            try:
                response = client.post(url, json=body, headers=headers, timeout=tier.timeout)
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError) as err:
                last_error = err
                log.info("LLM connection error on attempt %d: %s", attempt, err)
                continue
            if response.status_code >= 500 and attempt == 1:
                last_error = httpx.HTTPStatusError(
                    f"server error {response.status_code}",
                    request=response.request,
                    response=response,
                )
                continue
            response.raise_for_status()
            return response.json()
        assert last_error is not None
        raise last_error


@dataclass
class JsonResult:
    value: Any
    usages: list[Usage]


class LLMJsonError(LLMError):
    def __init__(self, message: str, usages: list[Usage]):
        super().__init__(message, usages[-1])
        self.usages = usages


def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """
    The JSON schema a server constrains a reply to, generated from the pydantic model that
    validates it (so the two cannot disagree): references inlined, titles and defaults dropped,
    every object closed with all its properties required (OpenAI's strict mode and llama.cpp's
    grammar both accept that shape).
    """
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})

    def inline(node):
        if isinstance(node, list):
            return [inline(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return inline(defs[node["$ref"].rsplit("/", 1)[-1]])
        out = {
            k: inline(v) for k, v in node.items() if k not in ("title", "default", "description")
        }
        if out.get("type") == "object" and "properties" in out:
            out["additionalProperties"] = False
            out["required"] = list(out["properties"])
        return out

    return inline(raw)


def chat_json(
    client: "LLMClient",
    tier_name: str,
    messages: list[dict[str, str]],
    *,
    feature: str,
    validator: type[BaseModel],
    schema: dict[str, Any] | None = None,
    max_tokens: int | None = None,
    npc_id: int | None = None,
) -> JsonResult:
    """
    A call that must return JSON matching the pydantic `validator`'s schema (`schema_of`), and
    validated by it.

    The tier's `structured_output` capability decides how the schema is enforced by the server;
    whatever the server does, the reply is validated and, if invalid, the model gets one repair
    request quoting the error. Raises LLMJsonError (with every call's usage) if that fails too.
    """
    schema = schema if schema is not None else schema_of(validator)
    usages: list[Usage] = []
    attempt_messages = list(messages)
    error = ""
    for attempt in (1, 2):
        try:
            result = client.chat(
                tier_name,
                attempt_messages,
                feature=feature,
                json_schema=schema,
                max_tokens=max_tokens,
                temperature=0.2 if attempt == 2 else None,
                npc_id=npc_id,
            )
        except LLMError as err:
            usages.append(err.usage)
            raise LLMJsonError(str(err), usages) from err
        usages.append(result.usage)
        try:
            return JsonResult(validator.model_validate(parse_json_reply(result.text)), usages)
        except (ValueError, ValidationError) as err:
            error = str(err).splitlines()[0][:300]
            health.incr("json_repairs" if attempt == 1 else "json_failures")
            attempt_messages = list(messages) + [
                {"role": "assistant", "content": result.text[:2000]},
                {
                    "role": "user",
                    "content": f"That reply was not valid: {error}. Answer again with only one "
                    f"JSON object matching this schema, nothing else: {json.dumps(schema)}",
                },
            ]
    usages[-1].ok, usages[-1].error = False, f"invalid JSON after repair: {error}"[:500]
    raise LLMJsonError(f"invalid JSON after one repair: {error}", usages)


def parse_json_reply(text: str) -> Any:
    """Parse a JSON reply, tolerating a ```json fence or prose around one object."""
    text = text.strip()
    if text.startswith("```"):
        text = text.strip("`")
        if text.lower().startswith("json"):
            text = text[4:]
    try:
        return json.loads(text)
    except ValueError:
        start, end = text.find("{"), text.rfind("}")
        if start != -1 and end > start:
            return json.loads(text[start : end + 1])
        raise


_client: LLMClient | None = None


def get_client() -> LLMClient:
    """The process client, built from the current settings."""
    global _client
    if _client is None:

        conf = get_settings()
        _client = LLMClient(
            conf.TIERS,
            breaker=CircuitBreaker(conf.CIRCUIT_FAILURES, conf.CIRCUIT_COOLDOWN_SECONDS),
        )
    return _client


def reset_client() -> None:
    global _client
    if _client is not None:
        _client.close()
    _client = None
