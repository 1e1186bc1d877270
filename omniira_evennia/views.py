"""
The web memory inspector, for staff only: NPCs, their memories, beliefs, diaries and
relationships, and the gossip graph (who heard what from whom).

Add to the game's `web/urls.py`:

    path("omniira/", include("omniira_evennia.urls")),
"""

from __future__ import annotations

import math
from collections import Counter

from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponseForbidden
from django.shortcuts import get_object_or_404, render

from omniira_evennia.memory import store
from omniira_evennia.models import DiaryEntry, Memory, Reflection, Relationship


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


def _memory_npcs():
    return sorted(store.memory_npcs(), key=lambda npc: npc.key)


@staff_only
def npc_list(request):
    npcs = _memory_npcs()
    counts = Counter(Memory.objects.values_list("npc_id", flat=True))
    diaries = Counter(DiaryEntry.objects.values_list("npc_id", flat=True))
    beliefs = Counter(Reflection.objects.values_list("npc_id", flat=True))
    rows = [
        {
            "npc": npc,
            "memories": counts[npc.id],
            "diary": diaries[npc.id],
            "beliefs": beliefs[npc.id],
        }
        for npc in npcs
    ]
    return render(request, "omniira/npc_list.html", {"rows": rows})


@staff_only
def npc_detail(request, npc_id: int):
    from evennia.objects.models import ObjectDB

    npc = get_object_or_404(ObjectDB, id=npc_id)
    memories = (
        Memory.objects.filter(npc=npc)
        .select_related("subject", "provenance")
        .order_by("subject__db_key", "-learned_at")
    )
    context = {
        "npc": npc,
        "memories": memories,
        "beliefs": Reflection.objects.filter(npc=npc)
        .select_related("target")
        .order_by("-created_at"),
        "diary": DiaryEntry.objects.filter(npc=npc).order_by("-game_day"),
        "relationships": Relationship.objects.filter(npc=npc)
        .select_related("subject")
        .order_by("subject__db_key"),
    }
    return render(request, "omniira/npc_detail.html", context)


def gossip_edges():
    """(teller, listener, count) for every hearsay memory, counted per pair."""
    pairs = Counter(
        Memory.objects.filter(provenance__isnull=False).values_list(
            "provenance__db_key", "npc__db_key"
        )
    )
    return [(teller, listener, count) for (teller, listener), count in sorted(pairs.items())]


def circle_layout(names, size=520, margin=70):
    radius = size / 2 - margin
    centre = size / 2
    return {
        name: (
            round(centre + radius * math.cos(2 * math.pi * i / len(names) - math.pi / 2), 1),
            round(centre + radius * math.sin(2 * math.pi * i / len(names) - math.pi / 2), 1),
        )
        for i, name in enumerate(names)
    }


@staff_only
def gossip_graph(request):
    edges = gossip_edges()
    names = sorted({n for edge in edges for n in edge[:2]})
    positions = circle_layout(names) if names else {}
    lines = [
        {
            "teller": t,
            "listener": li,
            "count": c,
            "x1": positions[t][0],
            "y1": positions[t][1],
            "x2": positions[li][0],
            "y2": positions[li][1],
        }
        for t, li, c in edges
    ]
    nodes = [{"name": n, "x": positions[n][0], "y": positions[n][1]} for n in names]
    return render(request, "omniira/gossip.html", {"edges": lines, "nodes": nodes})
