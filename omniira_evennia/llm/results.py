"""What an LLM call yields: usage, result, the errors carrying their usage, cost, safe URLs."""

from __future__ import annotations

import re
from dataclasses import dataclass

from omniira_evennia.conf import TierSettings


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


_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/@\s]*@")


def safe_url(text: str | None) -> str:
    """`text` with any `user:password@` inside a URL removed (for logs and usage rows)."""
    return _USERINFO.sub(r"\1", text or "")
