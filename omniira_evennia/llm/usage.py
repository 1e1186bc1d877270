"""
LLM usage rows: one per call (tokens, latency, cost, error), and the seed that makes a fresh
process's daily budget count what today's calls already spent.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.db.models import F, Sum

from omniira_evennia.llm.guards import utc_day
from omniira_evennia.models import (
    LLMUsage,
)
from omniira_evennia.runtime.runner import in_worker


def record_usage(usage, npc=None) -> LLMUsage:
    return LLMUsage.objects.create(
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


def spend_of_day(day: str):
    """
    The tokens recorded on UTC `day` ("YYYY-MM-DD"), as [(tier, npc_id or None, tokens)]: per
    tier, and per tier and NPC. Every row counts (a reply that failed validation used its tokens
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
    return out


def seed_budget(budget) -> None:
    """Count today's recorded usage (UTC) into `budget`, so restarts keep the bill."""
    day = utc_day()
    rows = spend_of_day(day)
    if rows is not None:
        budget.merge(day, rows)
