"""
LLM usage rows: one per call (tokens, latency, cost, error), and the seed that makes a fresh
process's daily budget count what today's calls already spent.

A usage row names its NPC but not the player a call answered, so what each player spent of an
NPC's day (their share, guards.Budget) is kept beside the rows: one ServerConfig value holding
today's (UTC) counts, added to in the same transaction as the row.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.db.models import F, Sum
from evennia.server.models import ServerConfig

from omniira_evennia.llm.guards import utc_day
from omniira_evennia.models import (
    LLMUsage,
)
from omniira_evennia.runtime.runner import in_worker

PLAYER_SPEND_KEY = "omniira_player_spend"


def record_usage(usage, npc=None) -> LLMUsage:
    row = LLMUsage.objects.create(
        tier=usage.tier,
        feature=usage.feature,
        model=usage.model[:200],
        npc=npc,
        tokens_in=usage.tokens_in,
        tokens_out=usage.tokens_out,
        latency_ms=usage.latency_ms,
        cost_usd=usage.cost_usd,
        ok=usage.ok,
        error=usage.error[:500],
    )
    speaker_id = getattr(usage, "speaker_id", None)
    tokens = usage.tokens_in + usage.tokens_out
    if npc is not None and speaker_id is not None and tokens > 0:
        _add_player_spend(utc_day(), (usage.tier, npc.id, speaker_id), tokens)
    return row


def player_spend_of_day(day: str) -> dict[tuple, int]:
    """What each player spent with each NPC on UTC `day`: {(tier, npc_id, speaker_id): tokens}."""
    try:
        stored = json.loads(ServerConfig.objects.conf(PLAYER_SPEND_KEY, default=None) or "{}")
    except ValueError:  # a corrupt value only loses today's shares, never the NPCs' budgets
        return {}
    if stored.get("day") != day:
        return {}  # another day's counts: today starts from nothing
    return {
        (tier, npc_id, speaker_id): max(0, int(tokens))
        for tier, npc_id, speaker_id, tokens in stored.get("tokens", [])
    }


def _add_player_spend(day: str, key: tuple, tokens: int) -> None:
    spend = player_spend_of_day(day)
    spend[key] = spend.get(key, 0) + tokens
    rows = [[*ids, count] for ids, count in spend.items()]
    ServerConfig.objects.conf(PLAYER_SPEND_KEY, json.dumps({"day": day, "tokens": rows}))


def spend_of_day(day: str):
    """
    The tokens recorded on UTC `day` ("YYYY-MM-DD"), as [(tier, npc_id or None, tokens)]: per
    tier, and per tier and NPC; then [(tier, npc_id, speaker_id, tokens)] per player with an NPC
    (`player_spend_of_day`). Every row counts (a reply that failed validation used its tokens
    too). None from a worker thread, where the ORM is forbidden: the budget is synced on the
    reactor only (`guards.Budget`).
    """
    if in_worker():
        return None
    start = datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=dt_timezone.utc)
    rows = (
        LLMUsage.objects.filter(created_at__gte=start, created_at__lt=start + timedelta(days=1))
        .order_by()
        .values("tier", "npc_id")
        .annotate(tokens=Sum(F("tokens_in") + F("tokens_out")))
    )
    per_tier: dict[str, int] = {}
    out = []
    for row in rows:
        tokens = max(0, row["tokens"] or 0)  # a corrupt negative row never lowers spend
        per_tier[row["tier"]] = per_tier.get(row["tier"], 0) + tokens
        if row["npc_id"] is not None:
            out.append((row["tier"], row["npc_id"], tokens))
    out.extend((tier, None, tokens) for tier, tokens in per_tier.items())
    out.extend((*ids, tokens) for ids, tokens in player_spend_of_day(day).items())
    return out


def seed_budget(budget) -> None:
    """Count today's recorded usage (UTC) into `budget`, so restarts keep the bill."""
    day = utc_day()
    rows = spend_of_day(day)
    if rows is not None:
        budget.merge(day, rows)
