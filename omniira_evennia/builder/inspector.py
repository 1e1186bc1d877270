"""What the inspector's overview, NPC, memory and knowledge pages show, as plain data."""

from __future__ import annotations

from collections import Counter

from django.db.models import Count, Q, Sum
from django.utils import timezone

from omniira_evennia.builder.gossip import gossip_edges
from omniira_evennia.builder.labels import FLAG_LABELS, SOURCE_LABELS, health_label, humanize
from omniira_evennia.builder.objects import memory_npcs, names
from omniira_evennia.conf import get_settings
from omniira_evennia.knowledge import service as knowledge
from omniira_evennia.memory.handler import handler_of
from omniira_evennia.models import (
    AuditLog,
    Concern,
    DiaryEntry,
    Knowledge,
    LLMUsage,
    Memory,
    Reflection,
    Relationship,
)
from omniira_evennia.runtime import health

KNOWLEDGE_SHOWN = 300
GUARD_LABELS = dict(Knowledge.Guard.choices)
DIMENSIONS = ("trust", "friendliness", "respect", "loyalty", "fear", "romance")


def subjects_of(npc) -> list[tuple[int, str]]:
    """(id, name) of everyone `npc` remembers something about, by name."""
    ids = Memory.objects.filter(npc=npc).values_list("subject_id", flat=True)
    return sorted(names(ids).items(), key=lambda item: item[1].lower())


def overview() -> tuple[list[dict], dict]:
    """Each NPC's counts (memories, hearsay, suspect, diary, beliefs) and the world's summary."""
    npcs = memory_npcs()
    counts = Counter(Memory.objects.values_list("npc_id", flat=True))
    hearsay = Counter(
        Memory.objects.filter(provenance__isnull=False).values_list("npc_id", flat=True)
    )
    suspect = Counter(Memory.objects.filter(suspect=True).values_list("npc_id", flat=True))
    diaries = Counter(DiaryEntry.objects.values_list("npc_id", flat=True))
    beliefs = Counter(Reflection.objects.values_list("npc_id", flat=True))
    rows = [
        {
            "npc": npc,
            "role": npc.attributes.get("npc_role", default="") or "",
            "memories": counts[npc.id],
            "hearsay": hearsay[npc.id],
            "suspect": suspect[npc.id],
            "diary": diaries[npc.id],
            "beliefs": beliefs[npc.id],
        }
        for npc in npcs
    ]
    today = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    usage_today = LLMUsage.objects.filter(created_at__gte=today).aggregate(
        calls=Count("id"), tokens_in=Sum("tokens_in"), tokens_out=Sum("tokens_out")
    )
    summary = {
        "npcs": len(npcs),
        "memories": Memory.objects.count(),
        "hearsay": Memory.objects.filter(provenance__isnull=False).count(),
        "suspect": Memory.objects.filter(suspect=True).count(),
        "locked": Memory.objects.filter(locked=True).count(),
        "gossip_links": len(gossip_edges()),
        "calls_today": usage_today["calls"] or 0,
        "tokens_today": (usage_today["tokens_in"] or 0) + (usage_today["tokens_out"] or 0),
        "audit": AuditLog.objects.count(),
        "warnings": sum(
            v for k, v in health.snapshot().items() if v and health_label(k)[1] == "warn"
        ),
    }
    return rows, summary


def _flag(value: str) -> bool | None:
    return {"yes": True, "no": False}.get(value)


def filtered_memories(npc, filters: dict, shown: int) -> dict:
    """The NPC's memories matching `filters` (q, about, source, suspect, locked: as typed in
    the page's form), the first `shown` of them, and how many match."""
    all_memories = handler_of(npc).by()
    memories = all_memories.select_related("subject", "provenance")
    if filters["q"]:
        memories = memories.filter(
            Q(value__icontains=filters["q"]) | Q(key__icontains=filters["q"])
        )
    if filters["about"].isdigit():
        memories = memories.filter(subject_id=int(filters["about"]))
    if filters["source"] in SOURCE_LABELS:
        memories = memories.filter(source=filters["source"])
    for flag in ("suspect", "locked"):
        if _flag(filters[flag]) is not None:
            memories = memories.filter(**{flag: _flag(filters[flag])})
    matching = memories.count()
    memories = list(memories.order_by("subject__db_key", "-learned_at")[:shown])
    return {
        "memories": memories,
        "matching": matching,
        "cut": matching > len(memories),
        "total": all_memories.count(),
        "filtered": any(filters.values()),
        "filters": filters,
        "subjects": subjects_of(npc),
        "sources": list(SOURCE_LABELS.items()),
        "source_labels": SOURCE_LABELS,
    }


def npc_page(npc, filters: dict, shown: int) -> dict:
    """Everything the NPC page shows: its memories (filtered), beliefs, diary, relationships,
    open concerns and what it knows."""
    relationships = (
        Relationship.objects.filter(npc=npc).select_related("subject").order_by("subject__db_key")
    )
    return {
        "npc": npc,
        **filtered_memories(npc, filters, shown),
        "beliefs": Reflection.objects.filter(npc=npc)
        .select_related("target")
        .order_by("-created_at"),
        "diary": DiaryEntry.objects.filter(npc=npc).order_by("-game_day"),
        "relationships": [
            {
                "subject": r.subject,
                "values": [(d, getattr(r, d), round(getattr(r, d) * 100)) for d in DIMENSIONS],
            }
            for r in relationships
        ],
        "concerns": Concern.objects.filter(npc=npc, resolved=False).select_related("source"),
        "knowledge": knowledge_rows(knowledge.rows_of(npc=npc)[:KNOWLEDGE_SHOWN]),
        "knowledge_total": knowledge.rows_of(npc=npc).count(),
        "headline": bool(npc.attributes.get("npc_headline", default=False)),
        "reflection_threshold": get_settings().REFLECTION_THRESHOLD,
    }


def memory_page(memory: Memory) -> dict:
    """A memory with its source, the chain it was told along, its audit rows, and the other
    NPCs' memories of the same key about the same subject."""
    chain_ids = list(memory.chain or ([memory.provenance_id] if memory.provenance_id else []))
    known = names(chain_ids)
    return {
        "memory": memory,
        "source_label": SOURCE_LABELS.get(memory.source, humanize(memory.source)),
        "chain": [{"id": i, "name": known.get(i)} for i in chain_ids],
        "audits": [
            (audit, [FLAG_LABELS.get(str(k), str(k)) for k in audit.labels or []])
            for audit in memory.audits.all()
        ],
        "also_known": Memory.objects.filter(subject=memory.subject_id, key=memory.key)
        .exclude(id=memory.id)
        .select_related("npc", "provenance"),
    }


def knowledge_rows(rows) -> list[dict]:
    """Facts as the knowledge tables show them: scope, guard, expiry in words."""
    now = timezone.now()
    return [
        {
            "row": row,
            "scope": knowledge.scope_label(row),
            "guard": GUARD_LABELS.get(row.guard, row.guard) if row.guard else "",
            "expired": row.expires_at is not None and row.expires_at <= now,
        }
        for row in rows
    ]


def knowledge_page(filters: dict, npc=None) -> dict:
    """Every fact NPCs know (or `npc` knows, when the filter names one), narrowed by `filters`
    (q, scope, category, guard) and the first KNOWLEDGE_SHOWN of them."""
    rows = Knowledge.objects.select_related("npc", "room", "teller")
    if filters["npc"].isdigit():
        rows = knowledge.rows_of(npc=npc) if npc is not None else rows.none()
    if filters["q"]:
        rows = rows.filter(Q(text__icontains=filters["q"]) | Q(key__icontains=filters["q"]))
    for name in ("scope", "category"):
        if filters[name]:
            rows = rows.filter(**{name: filters[name]})
    if filters["guard"] in ("secret", "wont_discuss", "open"):
        rows = rows.filter(guard="" if filters["guard"] == "open" else filters["guard"])
    matching = rows.count()
    return {
        "rows": knowledge_rows(rows.order_by("scope", "category", "key")[:KNOWLEDGE_SHOWN]),
        "matching": matching,
        "total": Knowledge.objects.count(),
        "cut": matching > KNOWLEDGE_SHOWN,
        "filters": filters,
        "filtered": any(filters.values()),
        "for_npc": npc,
        "npcs": memory_npcs(),
        "scopes": Knowledge.Scope.choices,
        "categories": Knowledge.Category.choices,
    }
