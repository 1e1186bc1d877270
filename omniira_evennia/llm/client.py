"""
The LLM client: OpenAI-compatible chat completions over httpx.

Every provider that speaks this API works: OpenAI, Groq, Ollama (`/v1`), vLLM, a llama.cpp
server, the offline local model this project launches. Three tiers (`voice`, `reasoning`,
`ambient`) each name their own endpoint, model, key, timeout, token limit, temperature and prices
(see `conf.TierSettings`).

Calls are synchronous and must run off the reactor thread. A connection error or a 5xx is
retried once. Every call, successful or not, yields a `Usage` for the usage table; failures raise
`LLMError` carrying theirs.

A call cannot hang or swallow memory. It has a total deadline (the tier's `deadline`, by
default its `timeout`) from the moment it starts: connect, request, headers and the whole body,
the retry included; every network wait, on a new or a reused connection, is cut to the time
left (`_DeadlineBackend`). The reply is read under a size limit (`max_response_bytes`) that
counts decoded bytes as they arrive (identity is asked for; a server compressing anyway has its
reply inflated at most the room left at a time). A server that drips its headers or body a byte
at a time, or answers with megabytes or a gzip bomb, is cut off and the call fails like any
other (the conversation falls back to an in-character line). Every message passes the prompt
filter first (personal data redacted, `set_prompt_filter`). Credentials in a base URL
(`https://user:pass@host`) never reach a usage row or a log line (`safe_url`).
"""

from __future__ import annotations

import functools
import json
import logging
import threading
import time
from typing import Any

import httpx

from omniira_evennia.conf import TierSettings, get_settings
from omniira_evennia.llm.guards import Budget, CircuitBreaker, OverBudget, OverPlayerShare

# What a call yields, how it is bounded and its JSON form live in their own modules; their
# public names stay importable from here, where callers and games found them before.
from omniira_evennia.llm.json_replies import (  # noqa: F401
    JsonResult,
    LLMJsonError,
    chat_json,
    parse_json_reply,
    schema_of,
)
from omniira_evennia.llm.results import (  # noqa: F401
    ChatResult,
    LLMBudgetExceeded,
    LLMCircuitOpen,
    LLMError,
    LLMNotConfigured,
    LLMPlayerShareExceeded,
    LLMRefused,
    Usage,
    cost_of,
    safe_url,
)
from omniira_evennia.llm.transport import (  # noqa: F401
    CallDeadline,
    ResponseTooLarge,
    TotalTimeout,
    UnsupportedEncoding,
    bind_to_deadlines,
    read_body,
)
from omniira_evennia.runtime import health

log = logging.getLogger("omniira.llm")


def _chat_url(base_url: str) -> str:
    return base_url.rstrip("/") + "/chat/completions"


# ---------------------------------------------------------------- the prompt filter

# Every prompt reaches a model through `LLMClient.chat`, so this is the one point where each
# message's text is checked for personal data, whatever assembled it (a turn, the review's
# transcript, gossip, a reflection, a diary, a repair request) and wherever the text came from
# (rows written before a pattern was added, a builder's own writes, NPC lines, world events,
# beliefs, diaries). `apps.ready` registers `memory.safety.redact_pii` here (the llm layer may
# not import memory; docs/architecture.md). A text is filtered a line at a time and each
# line's result is cached: the lines of a prompt that repeat from one call to the next (the
# rules, the NPC's facts, what it remembers) cost nothing after the first (the whole system
# prompt, new each turn, took 1-2 ms of every reply). A prompt's lines are separate items, so
# nothing the patterns look for runs across one.
_prompt_filter = None

# How long an idle connection to an endpoint is kept for the next call. httpx's 5 s closed it
# between most players' lines, so nearly every turn connected again (about 0.5 ms, and a new
# thread in many model servers). A server that closed it meanwhile is noticed before reuse
# (httpcore reads the socket first), and a reply cut by a close is asked once more (_RETRIED).
KEEP_ALIVE = 120.0


def set_prompt_filter(func) -> None:
    """`func(text) -> (text, count)` applied to every message before it is sent (None: off)."""
    global _prompt_filter
    _prompt_filter = func
    _filtered_line.cache_clear()


@functools.lru_cache(maxsize=4096)
def _filtered_line(line: str) -> tuple[str, int]:
    return _prompt_filter(line) if _prompt_filter is not None else (line, 0)


def _filtered_text(text: str) -> tuple[str, int]:
    """`text` through the prompt filter line by line, and how many redactions were made."""
    lines, found = [], 0
    for line in text.split("\n"):
        line, count = _filtered_line(line)
        lines.append(line)
        found += count
    return "\n".join(lines), found


def filter_messages(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """`messages` with each text through the prompt filter (a copy; the caller's are kept)."""
    if _prompt_filter is None:
        return messages
    out, found = [], 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, str) and content:
            content, count = _filtered_text(content)
            found += count
            message = {**message, "content": content}
        out.append(message)
    if found:
        health.incr("pii_redacted_prompt", found)
    return out


class Pace:
    """
    How fast each endpoint has been answering (issue #24, point 5: a fixed deadline gave up
    on a review that a busy machine was still working through): seconds per prompt token and
    per generated token, moving averages, from the server's own timings when it reports them
    (llama.cpp's "timings") and else from the call's time, a generated token counted as
    PROMPT_RATIO prompt tokens. Thread-safe; in process only.
    """

    WEIGHT = 0.3  # of the newest call in each average
    PROMPT_RATIO = 4.0  # a generated token costs this many prompt tokens, when untimed

    def __init__(self):
        self._lock = threading.Lock()
        self._rates: dict[tuple, tuple[float, float]] = {}

    def observe(self, key, tokens_in: int, tokens_out: int, seconds: float, timings=None):
        rates = _timed_rates(timings) or _untimed_rates(tokens_in, tokens_out, seconds)
        if rates is None:
            return
        with self._lock:
            old = self._rates.get(key)
            if old is not None:
                rates = tuple(o + self.WEIGHT * (n - o) for o, n in zip(old, rates))
            self._rates[key] = rates

    def expect(self, key, tokens_in: int, tokens_out: int) -> float | None:
        """Seconds a call of this size is expected to take, or None before any was timed."""
        with self._lock:
            rates = self._rates.get(key)
        if rates is None:
            return None
        return tokens_in * rates[0] + tokens_out * rates[1]


def _timed_rates(timings) -> tuple[float, float] | None:
    try:
        prompt = float(timings["prompt_ms"]) / 1000 / max(1, int(timings["prompt_n"]))
        made = float(timings["predicted_ms"]) / 1000 / max(1, int(timings["predicted_n"]))
    except (KeyError, TypeError, ValueError):
        return None
    return (prompt, made) if prompt >= 0 and made >= 0 else None


def _untimed_rates(tokens_in: int, tokens_out: int, seconds: float):
    weighted = tokens_in + Pace.PROMPT_RATIO * tokens_out
    if weighted <= 0 or seconds <= 0:
        return None
    per = seconds / weighted
    return (per, per * Pace.PROMPT_RATIO)


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
        self.pace = Pace()

    def deadline_for(self, tier: TierSettings, tokens_in: int, max_tokens: int) -> float:
        """
        A call's total deadline: the tier's, or `pace_margin` times what the endpoint's pace
        says a call this size takes when that is longer, never past `pace_cap` times the
        tier's own (a hung endpoint is still cut off in bounded time).
        """
        base = tier.total_deadline
        expected = self.pace.expect((tier.base_url, tier.model), tokens_in, max_tokens)
        if expected is None or tier.pace_margin <= 0:
            return base
        return min(max(base, tier.pace_margin * expected), base * tier.pace_cap)

    def _http_client(self) -> httpx.Client:
        """
        One HTTP client for every call, shared by the worker threads (httpx allows that). A new
        client per call costs about 50 ms of CPU to load the CA bundle, partly holding the GIL
        and so stalling the reactor, and can reuse no connection (a new TLS handshake each time).
        """
        with self._http_lock:
            if self._http is None:
                self._http = httpx.Client(
                    transport=self._transport, limits=httpx.Limits(keepalive_expiry=KEEP_ALIVE)
                )
                if not bind_to_deadlines(self._http) and self._transport is None:
                    log.warning("LLM calls are not bound to their deadline: unknown httpx")
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
        speaker_id: int | None = None,
    ) -> ChatResult:
        """`speaker_id`: the player this call answers, whose share of `npc_id`'s day it uses."""
        tier = self.tiers.get(tier_name)
        usage = Usage(
            tier=tier_name,
            feature=feature,
            model=tier.model if tier else "",
            speaker_id=speaker_id if npc_id is not None else None,
        )
        messages = filter_messages(messages)  # no personal data leaves in a prompt
        if tier is None or not tier.configured:
            usage.ok, usage.error = False, "not configured"
            raise LLMNotConfigured(
                f"LLM tier '{tier_name}' has no base_url: set OMNIIRA_LLM_BASE_URL or "
                f"settings.OMNIIRA['TIERS']['{tier_name}']['base_url']",
                usage,
            )
        body, headers = _request(tier, messages, feature, json_schema, max_tokens, temperature)
        estimate = sum(len(m.get("content") or "") for m in messages) // 4 + body["max_tokens"]
        endpoint = tier.base_url
        reservation = self._admit(endpoint, tier_name, feature, usage, estimate, npc_id, speaker_id)

        started = time.monotonic()
        prompt_tokens = estimate - body["max_tokens"]
        deadline = self.deadline_for(tier, prompt_tokens, body["max_tokens"])
        try:
            data = self._post(tier, body, headers, deadline)
            text = data["choices"][0]["message"]["content"] or ""
            if not isinstance(text, str):
                raise TypeError("message content is not text")
            reported = data.get("usage") or {}
            tokens_in = int(reported.get("prompt_tokens") or 0)
            tokens_out = int(reported.get("completion_tokens") or 0)
            if tokens_in < 0 or tokens_out < 0:  # would lower the spend: the reply is refused
                raise ValueError(f"negative token count reported ({tokens_in}, {tokens_out})")
        except Exception as err:  # any failure counts against the endpoint, or a probe sticks
            # A failed call spent nothing we know of, except a reply reporting negative
            # usage: it did use tokens, so it is charged what was reserved for it.
            charged = estimate if isinstance(err, ValueError) and "negative" in str(err) else 0
            self.budget.settle(reservation, charged)
            usage.latency_ms = int((time.monotonic() - started) * 1000)
            self._count_failure(err, usage, endpoint, tier_name, feature)
            raise LLMError(usage.error, usage) from err

        usage.latency_ms = int((time.monotonic() - started) * 1000)
        usage.tokens_in, usage.tokens_out = tokens_in, tokens_out
        usage.cost_usd = cost_of(tier, usage.tokens_in, usage.tokens_out)
        self.pace.observe(
            (tier.base_url, tier.model),
            tokens_in,
            tokens_out,
            usage.latency_ms / 1000,
            data.get("timings"),
        )
        self.breaker.success(endpoint)
        self.budget.settle(reservation, usage.tokens_in + usage.tokens_out)
        health.incr("llm_calls")
        return ChatResult(text=text, usage=usage)

    def _admit(self, endpoint, tier_name, feature, usage, estimate, npc_id, speaker_id):
        """Reserve before the request (the prompt and the most the reply may take), settle
        after: concurrent calls cannot all take the budget's last tokens (guards.Budget). A
        refusal (budget, the player's share, an open circuit) raises with its usage."""
        try:
            reservation = self.budget.reserve(tier_name, npc_id, estimate, speaker_id)
        except OverPlayerShare as refused:
            usage.ok, usage.error = False, f"over the player's share: {refused}"
            health.incr(f"player_share_refused_{feature}")
            raise LLMPlayerShareExceeded(str(refused), usage) from None
        except OverBudget as refused:
            usage.ok, usage.error = False, f"over budget: {refused}"
            health.incr(f"budget_refused_{feature}")
            raise LLMBudgetExceeded(str(refused), usage) from None
        if not self.breaker.allow(endpoint):
            self.budget.settle(reservation, 0)
            usage.ok, usage.error = False, "circuit open"
            health.incr("circuit_refused")
            raise LLMCircuitOpen(f"endpoint {safe_url(endpoint)} is failing; circuit open", usage)
        return reservation

    def _count_failure(self, err, usage, endpoint, tier_name, feature) -> None:
        """A failed call's usage, counters, breaker and log line."""
        usage.ok, usage.error = False, safe_url(f"{type(err).__name__}: {err}")[:500]
        health.incr("llm_errors")
        if isinstance(err, (TotalTimeout, ResponseTooLarge)):
            health.incr(
                "llm_deadline_exceeded"
                if isinstance(err, TotalTimeout)
                else "llm_response_too_large"
            )
        if self.breaker.failure(endpoint):
            health.incr("circuit_opened")
            log.warning("LLM endpoint %s failing: circuit opened", safe_url(endpoint))
        log.warning("LLM call failed (tier=%s feature=%s): %s", tier_name, feature, usage.error)

    def _post(
        self, tier: TierSettings, body: dict, headers: dict, deadline: float | None = None
    ) -> dict:
        url = _chat_url(tier.base_url)
        client = self._http_client()
        seconds = tier.total_deadline if deadline is None else deadline
        with CallDeadline(time.monotonic() + seconds, seconds) as call:
            for attempt in (1, 2):
                try:
                    status, raw, response = self._fetch(client, url, body, headers, tier, call)
                except httpx.TransportError as err:
                    if call.left() <= 0.05:
                        raise TotalTimeout(
                            f"no complete reply within the {call.seconds:g} s deadline"
                        ) from err
                    if attempt == 2 or not isinstance(err, _RETRIED):
                        raise
                    log.info("LLM connection error on attempt 1: %s", safe_url(str(err)))
                    continue
                if status >= 500 and attempt == 1 and call.left() > 0:
                    continue
                if status >= 400:
                    raise httpx.HTTPStatusError(
                        f"server error {status}" if status >= 500 else f"client error {status}",
                        request=response.request,
                        response=response,
                    )
                return json.loads(raw)

    def _fetch(
        self, client: httpx.Client, url: str, body: dict, headers: dict, tier, call
    ) -> tuple[int, bytes, httpx.Response]:
        """POST and read the reply within the call's deadline (`CallDeadline`) and size limit."""
        left = call.left()
        if left <= 0:
            raise TotalTimeout(f"no time left of the {tier.total_deadline:g} s deadline")
        timeout = httpx.Timeout(min(tier.timeout, left))
        with client.stream("POST", url, json=body, headers=headers, timeout=timeout) as response:
            return response.status_code, read_body(response, tier, call.deadline), response


def _request(tier, messages, feature, json_schema, max_tokens, temperature) -> tuple[dict, dict]:
    """A chat call's body and headers."""
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
    # Identity: a compressed reply is inflated piece by piece within the size limit, but
    # an honest server need not compress at all (`read_body`).
    headers = {"Content-Type": "application/json", "Accept-Encoding": "identity"}
    if tier.api_key:
        headers["Authorization"] = f"Bearer {tier.api_key}"
    return body, headers


# Worth one more try: the connection failed or was dropped before any reply.
_RETRIED = (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError)


_client: LLMClient | None = None
# Where the budget reads today's spend (llm.usage.spend_of_day, set by apps.ready): this module
# stays free of Django and the models.
_spend_loader = None


def use_spend_loader(loader) -> None:
    """Read today's recorded spend with `loader(day)` (see `guards.Budget`)."""
    global _spend_loader
    _spend_loader = loader


def get_client() -> LLMClient:
    """The process client, built from the current settings."""
    global _client
    if _client is None:
        conf = get_settings()
        _client = LLMClient(
            conf.TIERS,
            budget=Budget(
                conf.TIERS, loader=_spend_loader, player_share=conf.PLAYER_SHARE_OF_NPC_BUDGET
            ),
            breaker=CircuitBreaker(conf.CIRCUIT_FAILURES, conf.CIRCUIT_COOLDOWN_SECONDS),
        )
    # Callers take the client on the reactor: the budget counts what today's usage rows hold
    # (this process's earlier life, another process) before it is used; at most once a minute.
    try:
        _client.budget.sync()
    except Exception:  # the database unreachable: keep the local ledger, try again next time
        log.exception("omniira: could not load today's LLM spend")
    return _client


def reset_client() -> None:
    global _client
    if _client is not None:
        _client.close()
    _client = None
