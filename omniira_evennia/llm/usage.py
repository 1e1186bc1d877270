"""
LLM usage rows: one per call (tokens, latency, cost, error), and the seed that makes a fresh
process's daily budget count what today's calls already spent.
"""

from __future__ import annotations

from django.utils import timezone

from omniira_evennia.llm.guards import utc_day
from omniira_evennia.models import (
    LLMUsage,
)


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


def seed_budget(budget) -> None:
    """Count today's recorded usage (UTC) into a fresh budget, so restarts keep the bill."""
    from django.db.models import Sum

    start = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    rows = (
        LLMUsage.objects.filter(created_at__gte=start, ok=True)
        .values("tier", "npc_id")
        .annotate(tokens=Sum("tokens_in") + Sum("tokens_out"))
    )
    day = utc_day()
    for row in rows:
        budget.seed(day, row["tier"], row["tokens"] or 0)
        if row["npc_id"] is not None:
            budget.seed(day, row["tier"], row["tokens"] or 0, npc_id=row["npc_id"])
