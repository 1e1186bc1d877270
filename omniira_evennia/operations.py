"""
Builder operations behind `@memory` and the inspector, as plain functions game code can call
too: usage and health statistics, a memory's provenance trace, erasure (from the registry in
`memory/erasure.py`), the rollover on demand.
"""

from __future__ import annotations

from django.db.models import Count, Sum
from django.utils import timezone

from omniira_evennia.models import (
    ConversationTurn,
    LLMUsage,
    Memory,
)
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


def trace_text(memory: Memory) -> str:
    """Where a memory came from (firsthand, or the chain of tellers) and what it used to say."""
    from evennia.objects.models import ObjectDB

    if not memory.provenance_id:
        text = (
            f"Memory #{memory.id} is firsthand: {memory.npc.db_key} learned it directly "
            f"({memory.source}): {memory.value}"
        )
    else:
        chain = memory.chain or [memory.provenance_id]
        names = ObjectDB.objects.in_bulk(chain)
        path = " -> ".join(names[i].db_key if i in names else f"#{i} (gone)" for i in chain)
        text = (
            f"Memory #{memory.id} about {memory.subject.db_key}: {memory.value}\n"
            f"  origin: {names[chain[0]].db_key if chain[0] in names else '#' + str(chain[0])}\n"
            f"  told along: {path} -> {memory.npc.db_key} ({memory.hops} hop"
            f"{'s' if memory.hops != 1 else ''})"
        )
    for old in memory.history or []:
        text += f"\n  used to be (until {old.get('until', '?')[:16]}, {old.get('source')}): "
        text += str(old.get("value"))
    return text
