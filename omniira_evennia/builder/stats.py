"""`@memory stats`: memories by source and feeling, self-tag cadence, LLM usage, health."""

from __future__ import annotations

from django.db.models import Count, Sum
from django.utils import timezone

from omniira_evennia.models import ConversationTurn, LLMUsage, Memory
from omniira_evennia.runtime import health


def stats_text() -> str:
    """Counts by source and feeling, self-tag cadence, usage by tier/feature, health."""
    memories = Memory.objects.all()
    by_source = dict(memories.order_by().values_list("source").annotate(n=Count("id")))
    by_feeling = dict(
        memories.exclude(feeling="").order_by().values_list("feeling").annotate(n=Count("id"))
    )
    npc_turns = ConversationTurn.objects.filter(role=ConversationTurn.Role.NPC).count()
    self_tagged = by_source.get("self", 0)
    cadence = f"{self_tagged}/{npc_turns} = {self_tagged / npc_turns:.0%}" if npc_turns else "n/a"
    lines = [
        f"|wMemories|n: {memories.count()} (suspect {memories.filter(suspect=True).count()}, "
        f"locked {memories.filter(locked=True).count()})",
        "  by source: " + (", ".join(f"{k} {v}" for k, v in sorted(by_source.items())) or "-"),
        "  by feeling: " + (", ".join(f"{k} {v}" for k, v in sorted(by_feeling.items())) or "-"),
        f"  self-tag cadence (self-tagged memories per NPC reply): {cadence}",
    ]
    start = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    for label, rows in (
        ("today (UTC)", LLMUsage.objects.filter(created_at__gte=start)),
        ("total", LLMUsage.objects.all()),
    ):
        agg = list(
            rows.order_by()
            .values("tier", "feature")
            .annotate(
                calls=Count("id"),
                tokens_in=Sum("tokens_in"),
                tokens_out=Sum("tokens_out"),
                cost=Sum("cost_usd"),
            )
            .order_by("tier", "feature")
        )
        lines.append(f"|wLLM usage, {label}|n:" + ("" if agg else " none"))
        for row in agg:
            lines.append(
                f"  {row['tier']}/{row['feature']}: {row['calls']} calls, "
                f"{row['tokens_in'] or 0} in / {row['tokens_out'] or 0} out tokens, "
                f"${row['cost'] or 0:.4f}"
            )
    counters = health.snapshot()
    lines.append(
        "|wHealth counters|n (since start): "
        + (", ".join(f"{k} {v}" for k, v in sorted(counters.items())) or "none")
    )
    return "\n".join(lines)
