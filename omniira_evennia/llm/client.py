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
import re
import threading
import time
import zlib
from dataclasses import dataclass
from typing import Any

import httpcore
import httpx
from pydantic import BaseModel, ValidationError

from omniira_evennia.conf import TierSettings, get_settings
from omniira_evennia.llm.guards import Budget, CircuitBreaker, OverBudget, OverPlayerShare
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
    # The player the call answered (with an NPC): its tokens count against their share of the
    # NPC's day, and record_usage adds them to that player's recorded spend (llm/usage.py).
    speaker_id: int | None = None


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


class LLMPlayerShareExceeded(LLMRefused):
    """
    This player has spent their share of the NPC's daily tokens (PLAYER_SHARE_OF_NPC_BUDGET):
    refused for them alone, and not tried on a cheaper tier, while others still get answers.
    """


class LLMCircuitOpen(LLMRefused):
    pass


def cost_of(tier: TierSettings, tokens_in: int, tokens_out: int) -> float:
    return (tokens_in * tier.price_in_per_mtok + tokens_out * tier.price_out_per_mtok) / 1e6


def _chat_url(base_url: str) -> str:
    return base_url.rstrip("/") + "/chat/completions"


_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/@\s]*@")


def safe_url(text: str | None) -> str:
    """`text` with any `user:password@` inside a URL removed (for logs and usage rows)."""
    return _USERINFO.sub(r"\1", text or "")


# ---------------------------------------------------------------- the prompt filter

# Every prompt reaches a model through `LLMClient.chat`, so this is the one point where each
# message's text is checked for personal data, whatever assembled it (a turn, the review's
# transcript, gossip, a reflection, a diary, a repair request) and wherever the text came from
# (rows written before a pattern was added, a builder's own writes, NPC lines, world events,
# beliefs, diaries). `memory.safety` registers `redact_pii` here when it is imported (the llm
# layer may not import memory; docs/architecture.md). Results are cached per text, so the part
# of a conversation's prompt that repeats costs nothing after its first call.
_prompt_filter = None


def set_prompt_filter(func) -> None:
    """`func(text) -> (text, count)` applied to every message before it is sent (None: off)."""
    global _prompt_filter
    _prompt_filter = func
    _filtered_text.cache_clear()


@functools.lru_cache(maxsize=512)
def _filtered_text(text: str) -> tuple[str, int]:
    return _prompt_filter(text) if _prompt_filter is not None else (text, 0)


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


class TotalTimeout(Exception):
    """The call's total deadline passed before the whole reply had arrived."""


class ResponseTooLarge(Exception):
    """The reply is larger than the tier's `max_response_bytes`."""


class UnsupportedEncoding(Exception):
    """The reply is compressed in a way that cannot be inflated a bounded piece at a time."""


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
                self._http = httpx.Client(transport=self._transport)
                if not _bind_to_deadlines(self._http) and self._transport is None:
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
        # an honest server need not compress at all (`_read_body`).
        headers = {"Content-Type": "application/json", "Accept-Encoding": "identity"}
        if tier.api_key:
            headers["Authorization"] = f"Bearer {tier.api_key}"

        # Reserve before the request (the prompt and the most the reply may take), settle
        # after: concurrent calls cannot all take the budget's last tokens (guards.Budget).
        estimate = sum(len(m.get("content") or "") for m in messages) // 4 + body["max_tokens"]
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
        endpoint = tier.base_url
        if not self.breaker.allow(endpoint):
            self.budget.settle(reservation, 0)
            usage.ok, usage.error = False, "circuit open"
            health.incr("circuit_refused")
            raise LLMCircuitOpen(f"endpoint {safe_url(endpoint)} is failing; circuit open", usage)

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

    def _post(
        self, tier: TierSettings, body: dict, headers: dict, deadline: float | None = None
    ) -> dict:
        url = _chat_url(tier.base_url)
        client = self._http_client()
        seconds = tier.total_deadline if deadline is None else deadline
        with _CallDeadline(time.monotonic() + seconds, seconds) as call:
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
        """POST and read the reply within the call's deadline (`_CallDeadline`) and size limit."""
        left = call.left()
        if left <= 0:
            raise TotalTimeout(f"no time left of the {tier.total_deadline:g} s deadline")
        timeout = httpx.Timeout(min(tier.timeout, left))
        with client.stream("POST", url, json=body, headers=headers, timeout=timeout) as response:
            return response.status_code, _read_body(response, tier, call.deadline), response


# Worth one more try: the connection failed or was dropped before any reply.
_RETRIED = (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError)


def _read_body(response: httpx.Response, tier: TierSettings, deadline: float) -> bytes:
    """
    The reply's body, decoded, refused as soon as it passes `max_response_bytes` (a
    Content-Length over it before any is read) or is still arriving at the deadline. It is
    decoded as it is read, never more than the room left at a time: identity is asked for, but
    a server compressing anyway cannot make one piece inflate to a hundred megabytes.
    """
    limit = tier.max_response_bytes
    declared = response.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise ResponseTooLarge(f"reply of {int(declared)} bytes is over the limit of {limit} bytes")
    if response.is_stream_consumed:  # built in memory, read and decoded (tests' mock transports)
        pieces, decoder = [response.content], _Identity()
    else:
        pieces, decoder = response.iter_raw(), _decoder_for(response.headers)
    chunks: list[bytes] = []
    size = 0
    for piece in pieces:
        chunk = decoder.decode(piece, limit - size)
        size += len(chunk)
        if size > limit:
            raise ResponseTooLarge(f"reply over the limit of {limit} bytes")
        chunks.append(chunk)
        if time.monotonic() > deadline:
            raise TotalTimeout(
                f"reply still arriving after the {tier.total_deadline:g} s deadline "
                f"({size} bytes so far)"
            )
    return b"".join(chunks)


class _Identity:
    @staticmethod
    def decode(data: bytes, room: int) -> bytes:
        return data


class _Inflater:
    """A gzip or deflate (zlib) body, inflated to at most one byte past the room left."""

    def __init__(self):
        self._zlib = zlib.decompressobj(32 + zlib.MAX_WBITS)  # gzip or zlib, by its header

    def decode(self, data: bytes, room: int) -> bytes:
        if self._zlib.eof:
            return b""  # what follows the end of the stream is ignored, as httpx does
        return self._zlib.decompress(data, room + 1)


def _decoder_for(headers: httpx.Headers):
    encoding = headers.get("content-encoding", "")
    codings = [c.strip().lower() for c in encoding.split(",")]
    codings = [c for c in codings if c not in ("", "identity")]
    if not codings:
        return _Identity()
    if codings in (["gzip"], ["x-gzip"], ["deflate"]):
        return _Inflater()
    raise UnsupportedEncoding(
        f"reply in Content-Encoding {encoding!r}, which cannot be read within a size limit"
    )


# ---------------------------------------------------------------- the call's deadline

# httpx bounds each network wait by the request's fixed timeout, so a server sending a byte
# just within it holds a call as long as it likes, its headers included. So every connection
# the client makes goes through `_DeadlineBackend`, whose streams cut each wait (connect, TLS
# handshake, every write and every read, on a new or a reused connection) to the time left of
# the call the current thread is making: a wait still going at the deadline ends there.
_current = threading.local()  # .call: the `_CallDeadline` of this thread's call, if any


class _CallDeadline:
    """The deadline of one call (connect, request, headers and body, the retry included)."""

    def __init__(self, deadline: float, seconds: float = 0.0):
        self.deadline = deadline
        self.seconds = seconds  # how long it was given (for messages)
        self._outer = None

    def __enter__(self) -> "_CallDeadline":
        self._outer = getattr(_current, "call", None)
        _current.call = self
        return self

    def __exit__(self, *exc) -> None:
        _current.call = self._outer

    def left(self) -> float:
        return self.deadline - time.monotonic()


def _bounded(timeout: float | None, error: type[Exception]) -> float | None:
    """`timeout` cut to the time left of this thread's call; `error` if none is left."""
    call = getattr(_current, "call", None)
    if call is None:
        return timeout
    left = call.left()
    if left <= 0:
        raise error("the call's deadline has passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream):
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        timeout = _bounded(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self, inner: httpcore.NetworkBackend):
        self._inner = inner

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        timeout = _bounded(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(
            self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
        )

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        timeout = _bounded(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def _bind_to_deadlines(client: httpx.Client) -> bool:
    """
    Put `_DeadlineBackend` under every connection pool of `client` (its own transport and the
    proxies it mounted from the environment). httpx offers no public way to pass a network
    backend, so this reaches into its transports' and httpcore's pools; False if none was
    found (another httpx: calls then keep only the per-wait timeout and the checks between
    chunks, and a test at the boundary fails).
    """
    bound = False
    for transport in [client._transport, *client._mounts.values()]:
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if isinstance(backend, httpcore.NetworkBackend):
            if not isinstance(backend, _DeadlineBackend):
                pool._network_backend = _DeadlineBackend(backend)
            bound = True
    return bound


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
