"""What the inspector's health, LLM usage and budgets, and audit pages show, as plain data."""

from __future__ import annotations

from django.db.models import Count, Q, Sum
from django.utils import timezone

from omniira_evennia.builder.labels import (
    AUDIT_KIND_LABELS,
    FEATURE_LABELS,
    FLAG_LABELS,
    health_label,
    humanize,
)
from omniira_evennia.conf import get_settings
from omniira_evennia.models import AuditLog, LLMUsage, Memory
from omniira_evennia.runtime import health


def health_rows() -> dict:
    """The counters since start: warnings (a warn counter above zero) first, then activity."""
    rows = sorted(
        (
            {"key": k, "label": health_label(k)[0], "level": health_label(k)[1], "count": v}
            for k, v in health.snapshot().items()
        ),
        key=lambda r: (r["level"] != "warn" or not r["count"], r["label"]),
    )
    return {
        "warnings": [r for r in rows if r["level"] == "warn" and r["count"]],
        "activity": [r for r in rows if not (r["level"] == "warn" and r["count"])],
    }


def usage_rows(rows) -> list[dict]:
    """LLM calls by tier and feature: calls, failures, tokens, cost, mean latency."""
    agg = (
        rows.order_by()
        .values("tier", "feature")
        .annotate(
            calls=Count("id"),
            failed=Count("id", filter=Q(ok=False)),
            tokens_in=Sum("tokens_in"),
            tokens_out=Sum("tokens_out"),
            cost=Sum("cost_usd"),
            latency=Sum("latency_ms"),
        )
        .order_by("tier", "feature")
    )
    return [
        {
            **row,
            "feature_label": FEATURE_LABELS.get(row["feature"], humanize(row["feature"])),
            "tokens_in": row["tokens_in"] or 0,
            "tokens_out": row["tokens_out"] or 0,
            "cost": row["cost"] or 0.0,
            "avg_ms": round((row["latency"] or 0) / row["calls"]) if row["calls"] else 0,
        }
        for row in agg
    ]


def _percent(used: int, limit: int | None) -> int | None:
    return min(100, round(100 * used / limit)) if limit else None


def budgets(todays) -> list[dict]:
    """Each tier's tokens spent today against its daily budget, and the NPC that spent most."""
    spent = {
        row["tier"]: (row["tokens_in"] or 0) + (row["tokens_out"] or 0)
        for row in todays.filter(ok=True)
        .order_by()
        .values("tier")
        .annotate(tokens_in=Sum("tokens_in"), tokens_out=Sum("tokens_out"))
    }
    top_npc = {}
    for row in (
        todays.filter(ok=True, npc__isnull=False)
        .order_by()
        .values("tier", "npc_id", "npc__db_key")
        .annotate(tokens_in=Sum("tokens_in"), tokens_out=Sum("tokens_out"))
    ):
        tokens = (row["tokens_in"] or 0) + (row["tokens_out"] or 0)
        if tokens > top_npc.get(row["tier"], (None, -1))[1]:
            top_npc[row["tier"]] = (row["npc__db_key"], tokens)
    out = []
    for name, tier in sorted(get_settings().TIERS.items()):
        used = spent.get(name, 0)
        npc_name, npc_used = top_npc.get(name, (None, 0))
        out.append(
            {
                "tier": name,
                "model": tier.model,
                "configured": tier.configured,
                "used": used,
                "limit": tier.daily_tokens,
                "percent": _percent(used, tier.daily_tokens),
                "npc_limit": tier.npc_daily_tokens,
                "npc_name": npc_name,
                "npc_used": npc_used,
                "npc_percent": _percent(npc_used, tier.npc_daily_tokens),
                "rpm": tier.requests_per_minute,
            }
        )
    return out


def usage_page() -> dict:
    """Budgets, usage today and in total, the last failed calls, the calls refused."""
    today = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    todays = LLMUsage.objects.filter(created_at__gte=today)
    return {
        "budgets": budgets(todays),
        "today": usage_rows(todays),
        "total": usage_rows(LLMUsage.objects.all()),
        "errors": LLMUsage.objects.filter(ok=False)
        .select_related("npc")
        .order_by("-created_at")[:10],
        "refusals": sorted(
            (health_label(k)[0], v)
            for k, v in health.snapshot().items()
            if k.startswith("budget_refused_") or k == "circuit_refused"
        ),
        "feature_labels": FEATURE_LABELS,
    }


def audit_page(kind: str = "") -> dict:
    """The latest 200 audit entries (of `kind`, when given), the kinds with their counts."""
    rows = AuditLog.objects.select_related("npc", "speaker")
    if kind:
        rows = rows.filter(kind=kind)
    kinds = [
        (k, AUDIT_KIND_LABELS.get(k, humanize(k)), n)
        for k, n in AuditLog.objects.order_by()
        .values_list("kind")
        .annotate(n=Count("id"))
        .order_by("kind")
    ]
    return {
        "entries": [
            {
                "row": row,
                "kind_label": AUDIT_KIND_LABELS.get(row.kind, humanize(row.kind)),
                "flags": [(FLAG_LABELS.get(str(k), str(k)), k) for k in row.labels or []],
            }
            for row in rows[:200]
        ],
        "kind": kind,
        "kinds": kinds,
        "suspect": Memory.objects.filter(suspect=True).count(),
    }
