"""
The web memory inspector, for staff only: an overview, each NPC's memories (searchable and
filtered), beliefs, diary and relationships, the gossip graph and the chain behind each of its
edges, a memory's provenance, the health counters, LLM usage and budgets, and the audit log.

Add to the game's `web/urls.py`:

    path("omniira/", include("omniira_evennia.urls")),

The pages extend the website's `website/base.html` (the site header and menu) and add one
local stylesheet (`static/omniira/inspector.css`); nothing is fetched from another host.
"""

from __future__ import annotations

import math
from collections import Counter

from django.contrib.auth.views import redirect_to_login
from django.db.models import Count, Q, Sum
from django.http import Http404, HttpResponseForbidden
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone

from omniira_evennia import operations
from omniira_evennia.conf import get_settings
from omniira_evennia.knowledge import service as knowledge
from omniira_evennia.memory import store
from omniira_evennia.models import (
    AuditLog,
    Concern,
    DiaryEntry,
    Knowledge,
    LLMUsage,
    Memory,
    Reflection,
    Relationship,
    Source,
)
from omniira_evennia.runtime import health

# ---------------------------------------------------------------- labels

SOURCE_LABELS = dict(Source.choices)

# Health counters (runtime/health.py): a readable name and whether a non-zero count is worth a
# builder's attention ("warn") or is normal activity ("ok").
HEALTH_LABELS = {
    "conversation_turns": ("Conversation turns answered", "ok"),
    "llm_calls": ("LLM calls made", "ok"),
    "llm_errors": ("LLM calls that failed", "warn"),
    "voice_retries": ("Replies asked for again (first try unusable)", "ok"),
    "voice_retries_failed": ("Replies still unusable after asking again", "warn"),
    "conversation_fallbacks": ("In-character fallback lines (no LLM reply)", "warn"),
    "character_breaks": ("Replies that broke character (cut)", "warn"),
    "turn_crashes": ("Conversation turns that crashed", "warn"),
    "circuit_opened": ("Circuit breaker opened on an endpoint", "warn"),
    "circuit_refused": ("Calls refused by an open circuit breaker", "warn"),
    "json_repairs": ("JSON replies repaired on a second try", "ok"),
    "json_failures": ("JSON replies that could not be repaired", "warn"),
    "embedding_failures": ("Texts that could not be embedded", "warn"),
    "corrupt_embeddings": ("Stored embeddings that could not be read", "warn"),
    "fulltext_failures": ("Full-text searches that failed", "warn"),
    "reembedded": ("Vectors re-embedded", "ok"),
    "tags_remember": ("Memories self-tagged in replies", "ok"),
    "tags_opinion": ("Opinions self-tagged in replies", "ok"),
    "tags_concern": ("Concerns self-tagged in replies", "ok"),
    "tags_commitment": ("Commitments self-tagged in replies", "ok"),
    "tags_invalid": ("Malformed tags in replies", "warn"),
    "tags_ignored": ("Tags ignored (extension off or not allowed)", "ok"),
    "notes_ungrounded": ("Notes dropped as not grounded in the conversation", "ok"),
    "extractions": ("Conversations reviewed after they ended", "ok"),
    "extraction_failures": ("Conversation reviews that failed", "warn"),
    "extractions_abandoned": ("Conversation reviews given up", "warn"),
    "npc_conversations": ("NPC-to-NPC conversations", "ok"),
    "gossip_items_written": ("Gossip items stored as hearsay", "ok"),
    "gossip_items_rejected": ("Gossip items rejected by the provenance rules", "ok"),
    "reflections": ("Daily reflections (beliefs) written", "ok"),
    "reflection_failures": ("Daily reflections that failed", "warn"),
    "diaries": ("Diary entries written", "ok"),
    "diary_failures": ("Diary entries that failed", "warn"),
    "diaries_skipped_quiet": ("Diaries skipped on a quiet day", "ok"),
    "memories_expired": ("Memories expired", "ok"),
    "memories_evicted": ("Memories evicted (over the per-NPC limit)", "ok"),
    "locked_write_refused": ("Writes refused on a locked memory", "ok"),
    "relationship_conflicts": ("Relationship updates retried after a conflict", "ok"),
    "pii_redacted": ("Personal data redactions", "ok"),
    "manipulation_flagged": ("Manipulation attempts flagged", "warn"),
    "audit_suppressed": ("Audit rows suppressed (rate limit)", "warn"),
    "audit_player_text": ("Audit entries: player lines", "warn"),
    "audit_memory": ("Audit entries: memories", "warn"),
    "audit_erasure": ("Audit entries: erasures", "ok"),
    "player_rate_refused": ("Player lines refused (too many per minute)", "warn"),
    "npc_queue_refused": ("Lines refused (NPC busy, queue full)", "warn"),
    "worker_orm_access": ("Database queries from worker threads", "warn"),
    "db_locked_retries": ("Database-locked retries", "warn"),
    "npc_moves": ("NPC moves (schedules and plans)", "ok"),
    "npc_moves_refused": ("NPC moves refused", "ok"),
    "npc_follows": ("NPCs following a player", "ok"),
    "plans_kept": ("Plans kept", "ok"),
    "plans_dropped": ("Plans dropped", "ok"),
    "claims_given_back": ("Rollover claims given back", "ok"),
    "decision_ticks": ("Daily-life decisions made", "ok"),
    "decision_failures": ("Daily-life decisions that failed", "warn"),
    "daily_life_warnings": ("Daily-life warnings", "warn"),
    "forget_failures": ("Forgetting passes that failed", "warn"),
    "conversations_ended_restart": ("Conversations ended by a server restart", "ok"),
}

FEATURE_LABELS = {
    "conversation": "NPC replies to players",
    "npc_conversation": "NPC-to-NPC talk",
    "gossip": "Gossip review (what was told)",
    "extraction": "Conversation review (what to remember)",
    "reflection": "Daily reflections (beliefs)",
    "diary": "Diaries",
}

AUDIT_KIND_LABELS = {
    "player_text": "Player line flagged",
    "memory": "Memory flagged",
    "concern": "Concern flagged",
    "erasure": "Personal data erased",
}

# Why a line was flagged (memory/safety.py MANIPULATION_PATTERNS); other labels are shown as
# they were written.
FLAG_LABELS = {
    "ignore_instructions": "asks to ignore instructions",
    "role_override": "tries to change who the NPC is",
    "forget_everything": "asks to forget everything",
    "system_prompt": "talks about the system prompt",
    "tag_syntax": "contains memory-tag syntax",
    "remember_command": "orders the NPC to remember a rank",
}


def humanize(key: str) -> str:
    """`npc_moves_refused` -> `Npc moves refused`: a fallback label for an unknown key."""
    text = str(key).replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def health_label(name: str) -> tuple[str, str]:
    if name in HEALTH_LABELS:
        return HEALTH_LABELS[name]
    if name.startswith("budget_refused_"):
        feature = name.removeprefix("budget_refused_")
        return (
            f"Calls refused over budget: {FEATURE_LABELS.get(feature, humanize(feature))}",
            "warn",
        )
    if name.startswith("conversations_ended_"):
        return f"Conversations ended: {humanize(name.removeprefix('conversations_ended_'))}", "ok"
    if name.endswith("_failures"):
        return f"{humanize(name.removesuffix('_failures'))} failures", "warn"
    return humanize(name), "ok"


# ---------------------------------------------------------------- access


def staff_only(view):
    """Anonymous visitors are sent to log in; logged-in non-staff get 403 and no data."""

    def wrapped(request, *args, **kwargs):
        user = request.user
        if not user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not user.is_staff:
            return HttpResponseForbidden("<h1>403</h1><p>The memory inspector is for staff.</p>")
        return view(request, *args, **kwargs)

    wrapped.__name__ = view.__name__
    wrapped.__doc__ = view.__doc__
    return wrapped


def page(request, template, section, crumbs, **context):
    """Render an inspector page: `section` marks the tab, `crumbs` [(label, url|None)] the path
    back (Home and Inspector come first)."""
    trail = [("Home", "/"), ("Memory inspector", reverse("omniira:npcs"))]
    context.update(section=section, crumbs=trail + list(crumbs), page_title=_title(crumbs))
    return render(request, template, context)


def _title(crumbs) -> str:
    return f"{crumbs[-1][0]} · Memory inspector" if crumbs else "Memory inspector"


def _memory_npcs():
    return sorted(store.memory_npcs(located=False), key=lambda npc: npc.key.lower())


def _names(ids) -> dict[int, str]:
    from evennia.objects.models import ObjectDB

    return dict(ObjectDB.objects.filter(id__in=set(ids)).values_list("id", "db_key"))


# ---------------------------------------------------------------- overview and NPCs


@staff_only
def npc_list(request):
    npcs = _memory_npcs()
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
    return page(request, "omniira/npc_list.html", "npcs", [], rows=rows, summary=summary)


MEMORIES_SHOWN = 300  # on one NPC page; the filters narrow the rest down


def _flag(value: str) -> bool | None:
    return {"yes": True, "no": False}.get(value)


@staff_only
def npc_detail(request, npc_id: int):
    from evennia.objects.models import ObjectDB

    npc = get_object_or_404(ObjectDB, id=npc_id)
    all_memories = Memory.objects.filter(npc=npc)
    filters = {
        "q": request.GET.get("q", "").strip(),
        "about": request.GET.get("about", ""),
        "source": request.GET.get("source", ""),
        "suspect": request.GET.get("suspect", ""),
        "locked": request.GET.get("locked", ""),
    }
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
    memories = list(memories.order_by("subject__db_key", "-learned_at")[:MEMORIES_SHOWN])
    subjects = sorted(
        _names(all_memories.values_list("subject_id", flat=True)).items(),
        key=lambda item: item[1].lower(),
    )
    relationships = list(
        Relationship.objects.filter(npc=npc).select_related("subject").order_by("subject__db_key")
    )
    dimensions = ("trust", "friendliness", "respect", "loyalty", "fear", "romance")
    context = {
        "npc": npc,
        "memories": memories,
        "matching": matching,
        "cut": matching > len(memories),
        "total": all_memories.count(),
        "filtered": any(filters.values()),
        "filters": filters,
        "subjects": subjects,
        "sources": list(SOURCE_LABELS.items()),
        "source_labels": SOURCE_LABELS,
        "beliefs": Reflection.objects.filter(npc=npc)
        .select_related("target")
        .order_by("-created_at"),
        "diary": DiaryEntry.objects.filter(npc=npc).order_by("-game_day"),
        "relationships": [
            {
                "subject": r.subject,
                "values": [(d, getattr(r, d), round(getattr(r, d) * 100)) for d in dimensions],
            }
            for r in relationships
        ],
        "concerns": Concern.objects.filter(npc=npc, resolved=False).select_related("source"),
        "knowledge": knowledge_rows(knowledge.rows_of(npc=npc)[:KNOWLEDGE_SHOWN]),
        "knowledge_total": knowledge.rows_of(npc=npc).count(),
        "headline": bool(npc.attributes.get("npc_headline", default=False)),
        "reflection_threshold": get_settings().REFLECTION_THRESHOLD,
    }
    return page(request, "omniira/npc_detail.html", "npcs", [(npc.db_key, None)], **context)


@staff_only
def memory_detail(request, memory_id: int):
    memory = get_object_or_404(
        Memory.objects.select_related("npc", "subject", "provenance", "origin"), id=memory_id
    )
    chain_ids = list(memory.chain or ([memory.provenance_id] if memory.provenance_id else []))
    names = _names(chain_ids)
    chain = [{"id": i, "name": names.get(i)} for i in chain_ids]
    context = {
        "memory": memory,
        "source_label": SOURCE_LABELS.get(memory.source, humanize(memory.source)),
        "chain": chain,
        "audits": [
            (audit, [FLAG_LABELS.get(str(k), str(k)) for k in audit.labels or []])
            for audit in memory.audits.all()
        ],
        "also_known": Memory.objects.filter(subject=memory.subject_id, key=memory.key)
        .exclude(id=memory.id)
        .select_related("npc", "provenance"),
    }
    crumbs = [
        (memory.npc.db_key, reverse("omniira:npc", args=[memory.npc_id])),
        (f"Memory #{memory.id}", None),
    ]
    return page(request, "omniira/memory_detail.html", "npcs", crumbs, **context)


# ---------------------------------------------------------------- why was this recalled?

LANE_LABELS = {
    "recency": "newest",
    "fused": "full text + meaning",
}


def why_rows(memories, explain) -> list[dict]:
    """Each memory with its lane ranks, fused score and multipliers, as the why page shows."""
    rows = []
    for memory in memories:
        why = explain.get(memory.id, {})
        lanes = [
            name
            for name, key in (("meaning", "dense_rank"), ("full text", "lexical_rank"))
            if key in why
        ]
        if "similarity_rank" in why:
            lanes.append("meaning (paper)")
        rows.append(
            {
                "memory": memory,
                "lane": (
                    "newest (recency lane)"
                    if why.get("lane") == "recency"
                    else " + ".join(lanes) or "no lane"
                ),
                "recency": why.get("recency_rank"),
                "dense": why.get("dense_rank", why.get("similarity_rank")),
                "lexical": why.get("lexical_rank"),
                "cosine": why.get("cosine"),
                "fused": why.get("fused"),
                "importance": why.get("importance_x"),
                "hearsay": why.get("hearsay_x"),
                "feeling": why.get("feeling_x"),
                "score": why.get("score"),
                "reason": operations.why_reason(why),
            }
        )
    return rows


@staff_only
def why_page(request, npc_id: int):
    """`@memory why` as a page: what a line from a player would bring to NPC `npc_id`'s mind."""
    from evennia.objects.models import ObjectDB

    npc = get_object_or_404(ObjectDB, id=npc_id)
    subjects = sorted(
        _names(Memory.objects.filter(npc=npc).values_list("subject_id", flat=True)).items(),
        key=lambda item: item[1].lower(),
    )
    question = request.GET.get("q", "").strip()[: get_settings().MAX_MESSAGE_CHARS]
    about = request.GET.get("about", "")
    missed = request.GET.get("not", "").strip()[:200]
    context = {
        "npc": npc,
        "subjects": subjects,
        "question": question,
        "about": about,
        "missed_query": missed,
    }
    if question and about.isdigit():
        speaker = ObjectDB.objects.filter(id=int(about)).first()
        if speaker is None:
            raise Http404("No such character")
        recall = operations.why(npc, question, speaker, missed or None)
        context.update(
            speaker=speaker,
            recall=recall,
            chosen=why_rows(recall.memories, recall.explain),
            considered=why_rows(recall.considered, recall.explain),
            known=[
                (row, operations.knowledge_reason(recall.knowledge_explain.get(row.id, {})))
                for row in recall.knowledge
            ],
        )
        if recall.why_not is not None:
            context.update(
                why_not_stage=recall.why_not["stage"].replace("_", " "),
                why_not_reason=operations.why_not_reason(recall.why_not),
            )
    crumbs = [
        (npc.db_key, reverse("omniira:npc", args=[npc.id])),
        ("Why was this recalled?", None),
    ]
    return page(request, "omniira/why.html", "npcs", crumbs, **context)


# ---------------------------------------------------------------- what NPCs know

KNOWLEDGE_SHOWN = 300
GUARD_LABELS = dict(Knowledge.Guard.choices)


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


@staff_only
def knowledge_page(request):
    """Every fact NPCs know (issue #25), searchable and filtered by scope, category and guard."""
    filters = {
        key: request.GET.get(key, "").strip() for key in ("q", "scope", "category", "guard", "npc")
    }
    rows = Knowledge.objects.select_related("npc", "room", "teller")
    npc = None
    if filters["npc"].isdigit():
        from evennia.objects.models import ObjectDB

        npc = ObjectDB.objects.filter(id=int(filters["npc"])).first()
        rows = knowledge.rows_of(npc=npc) if npc is not None else rows.none()
    if filters["q"]:
        rows = rows.filter(Q(text__icontains=filters["q"]) | Q(key__icontains=filters["q"]))
    for name in ("scope", "category"):
        if filters[name]:
            rows = rows.filter(**{name: filters[name]})
    if filters["guard"] in ("secret", "wont_discuss", "open"):
        rows = rows.filter(guard="" if filters["guard"] == "open" else filters["guard"])
    matching = rows.count()
    context = {
        "rows": knowledge_rows(rows.order_by("scope", "category", "key")[:KNOWLEDGE_SHOWN]),
        "matching": matching,
        "total": Knowledge.objects.count(),
        "cut": matching > KNOWLEDGE_SHOWN,
        "filters": filters,
        "filtered": any(filters.values()),
        "for_npc": npc,
        "npcs": _memory_npcs(),
        "scopes": Knowledge.Scope.choices,
        "categories": Knowledge.Category.choices,
    }
    return page(request, "omniira/knowledge.html", "knowledge", [("Knowledge", None)], **context)


# ---------------------------------------------------------------- gossip


def gossip_edges():
    """(teller, listener, count) names for every hearsay memory, counted per pair."""
    return [(e["teller"], e["listener"], e["count"]) for e in _gossip_pairs()]


def _gossip_pairs():
    pairs = Counter(
        Memory.objects.filter(provenance__isnull=False).values_list("provenance_id", "npc_id")
    )
    names = _names([i for pair in pairs for i in pair])
    return sorted(
        (
            {
                "teller_id": teller,
                "listener_id": listener,
                "teller": names.get(teller, f"#{teller}"),
                "listener": names.get(listener, f"#{listener}"),
                "count": count,
            }
            for (teller, listener), count in pairs.items()
        ),
        key=lambda e: (e["teller"], e["listener"]),
    )


def circle_layout(names, size=560, margin=80):
    """Positions on a circle, the first name at the top."""
    radius = size / 2 - margin
    centre = size / 2
    return {
        name: (
            round(centre + radius * math.cos(2 * math.pi * i / len(names) - math.pi / 2), 1),
            round(centre + radius * math.sin(2 * math.pi * i / len(names) - math.pi / 2), 1),
        )
        for i, name in enumerate(names)
    }


NODE_RADIUS = 26
GRAPH_ALL_NPCS = 16  # up to this many NPCs the graph shows them all, gossip or not


def edge_geometry(start, end, bend=28.0, gap=NODE_RADIUS + 4):
    """A gently curved edge from node to node (A->B and B->A bend to opposite sides), cut
    short at both nodes; returns the SVG path and where its count label goes."""
    (x1, y1), (x2, y2) = start, end
    dx, dy = x2 - x1, y2 - y1
    length = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / length, dx / length  # the normal, to the left of the direction
    cx, cy = (x1 + x2) / 2 + nx * bend, (y1 + y2) / 2 + ny * bend

    def towards(px, py, qx, qy, d):
        span = math.hypot(qx - px, qy - py) or 1.0
        return px + (qx - px) * d / span, py + (qy - py) * d / span

    sx, sy = towards(x1, y1, cx, cy, gap)
    ex, ey = towards(x2, y2, cx, cy, gap + 6)  # room for the arrowhead
    # The label sits on the curve a little before its middle (a quadratic Bezier's point at
    # t = 0.42), so the labels of two edges crossing at the centre do not cover each other.
    t = 0.42
    lx = (1 - t) ** 2 * sx + 2 * (1 - t) * t * cx + t**2 * ex
    ly = (1 - t) ** 2 * sy + 2 * (1 - t) * t * cy + t**2 * ey
    path = f"M {sx:.1f} {sy:.1f} Q {cx:.1f} {cy:.1f} {ex:.1f} {ey:.1f}"
    return path, round(lx, 1), round(ly, 1)


@staff_only
def gossip_graph(request):
    pairs = _gossip_pairs()
    npcs = {npc.id: npc.key for npc in _memory_npcs()}
    if len(npcs) > GRAPH_ALL_NPCS:  # a big world: only those who told or heard something
        npcs = {}
    for e in pairs:
        npcs.setdefault(e["teller_id"], e["teller"])
        npcs.setdefault(e["listener_id"], e["listener"])
    order = sorted(npcs, key=lambda i: npcs[i].lower())
    # Room for every node on the circle: about 75 px of circumference each.
    size = max(560, min(2400, round(24 * len(order) + 160)))
    positions = circle_layout(order, size=size) if order else {}
    told = Counter()
    heard = Counter()
    edges = []
    for e in pairs:
        path, lx, ly = edge_geometry(positions[e["teller_id"]], positions[e["listener_id"]])
        told[e["teller_id"]] += e["count"]
        heard[e["listener_id"]] += e["count"]
        edges.append(
            {
                **e,
                "path": path,
                "label_x": lx,
                "label_y": ly,
                "width": min(2 + e["count"], 9),
                "url": reverse("omniira:gossip_chain", args=[e["teller_id"], e["listener_id"]]),
            }
        )
    nodes = [
        {
            "id": i,
            "name": npcs[i],
            "x": positions[i][0],
            "y": positions[i][1],
            "label_y": round(positions[i][1] + NODE_RADIUS + 18, 1),
            "told": told[i],
            "heard": heard[i],
            "url": reverse("omniira:npc", args=[i]),
        }
        for i in order
    ]
    conf = get_settings()
    context = {
        "edges": edges,
        "nodes": nodes,
        "interval_minutes": round(conf.GOSSIP_INTERVAL_SECONDS / 60, 1),
        "gossip_on": conf.GOSSIP_INTERVAL_SECONDS > 0 and conf.GOSSIP_PAIRS_PER_ROUND > 0,
        "pairs_per_round": conf.GOSSIP_PAIRS_PER_ROUND,
        "max_hops": conf.GOSSIP_MAX_HOPS,
        "size": size,
    }
    return page(request, "omniira/gossip.html", "gossip", [("Gossip graph", None)], **context)


@staff_only
def gossip_chain(request, teller_id: int, listener_id: int):
    memories = list(
        Memory.objects.filter(provenance_id=teller_id, npc_id=listener_id)
        .select_related("subject", "npc", "provenance")
        .order_by("-learned_at")
    )
    names = _names([teller_id, listener_id] + [i for m in memories for i in (m.chain or [])])
    if teller_id not in names or listener_id not in names:
        raise Http404("No such NPC.")
    rows = [
        {
            "memory": m,
            "path": [
                {"id": i, "name": names.get(i, f"#{i} (gone)")}
                for i in (m.chain or [m.provenance_id])
            ],
        }
        for m in memories
    ]
    crumbs = [
        ("Gossip graph", reverse("omniira:gossip")),
        (f"{names[teller_id]} → {names[listener_id]}", None),
    ]
    context = {
        "teller": {"id": teller_id, "name": names[teller_id]},
        "listener": {"id": listener_id, "name": names[listener_id]},
        "rows": rows,
    }
    return page(request, "omniira/gossip_chain.html", "gossip", crumbs, **context)


# ---------------------------------------------------------------- health, usage, audit


@staff_only
def health_page(request):
    counters = health.snapshot()
    rows = sorted(
        (
            {"key": k, "label": health_label(k)[0], "level": health_label(k)[1], "count": v}
            for k, v in counters.items()
        ),
        key=lambda r: (r["level"] != "warn" or not r["count"], r["label"]),
    )
    context = {
        "warnings": [r for r in rows if r["level"] == "warn" and r["count"]],
        "activity": [r for r in rows if not (r["level"] == "warn" and r["count"])],
    }
    return page(request, "omniira/health.html", "health", [("Health", None)], **context)


def _usage_rows(rows):
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


@staff_only
def usage_page(request):
    today = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    todays = LLMUsage.objects.filter(created_at__gte=today)
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
    budgets = []
    for name, tier in sorted(get_settings().TIERS.items()):
        used = spent.get(name, 0)
        limit = tier.daily_tokens
        npc_name, npc_used = top_npc.get(name, (None, 0))
        budgets.append(
            {
                "tier": name,
                "model": tier.model,
                "configured": tier.configured,
                "used": used,
                "limit": limit,
                "percent": min(100, round(100 * used / limit)) if limit else None,
                "npc_limit": tier.npc_daily_tokens,
                "npc_name": npc_name,
                "npc_used": npc_used,
                "npc_percent": (
                    min(100, round(100 * npc_used / tier.npc_daily_tokens))
                    if tier.npc_daily_tokens
                    else None
                ),
                "rpm": tier.requests_per_minute,
            }
        )
    context = {
        "budgets": budgets,
        "today": _usage_rows(todays),
        "total": _usage_rows(LLMUsage.objects.all()),
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
    return page(
        request, "omniira/usage.html", "usage", [("LLM usage and budgets", None)], **context
    )


@staff_only
def audit_page(request):
    kind = request.GET.get("kind", "")
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
    context = {
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
    return page(request, "omniira/audit.html", "audit", [("Audit log", None)], **context)
