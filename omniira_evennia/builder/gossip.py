"""The gossip graph: who told whom how much, laid out for the inspector's SVG, and each chain."""

from __future__ import annotations

from collections import Counter

from omniira_evennia.builder.graph_geometry import (
    GRAPH_ALL_NPCS,
    NODE_RADIUS,
    circle_layout,
    edge_geometry,
    graph_size,
)
from omniira_evennia.builder.objects import memory_npcs, names
from omniira_evennia.conf import get_settings
from omniira_evennia.models import Memory


def gossip_pairs() -> list[dict]:
    """Each (teller, listener) pair with their names and how many hearsay memories it made."""
    pairs = Counter(
        Memory.objects.filter(provenance__isnull=False).values_list("provenance_id", "npc_id")
    )
    known = names([i for pair in pairs for i in pair])
    return sorted(
        (
            {
                "teller_id": teller,
                "listener_id": listener,
                "teller": known.get(teller, f"#{teller}"),
                "listener": known.get(listener, f"#{listener}"),
                "count": count,
            }
            for (teller, listener), count in pairs.items()
        ),
        key=lambda e: (e["teller"], e["listener"]),
    )


def gossip_edges():
    """(teller, listener, count) names for every hearsay memory, counted per pair."""
    return [(e["teller"], e["listener"], e["count"]) for e in gossip_pairs()]


def graph() -> dict:
    """The graph's nodes (every memory NPC in a small world; else those who told or heard
    something) on a circle, its edges curved between them, and the gossip settings."""
    pairs = gossip_pairs()
    npcs = {npc.id: npc.key for npc in memory_npcs()}
    if len(npcs) > GRAPH_ALL_NPCS:  # a big world: only those who told or heard something
        npcs = {}
    for e in pairs:
        npcs.setdefault(e["teller_id"], e["teller"])
        npcs.setdefault(e["listener_id"], e["listener"])
    order = sorted(npcs, key=lambda i: npcs[i].lower())
    size = graph_size(len(order))
    positions = circle_layout(order, size=size) if order else {}
    told, heard, edges = Counter(), Counter(), []
    for e in pairs:
        path, lx, ly = edge_geometry(positions[e["teller_id"]], positions[e["listener_id"]])
        told[e["teller_id"]] += e["count"]
        heard[e["listener_id"]] += e["count"]
        edges.append(
            {**e, "path": path, "label_x": lx, "label_y": ly, "width": min(2 + e["count"], 9)}
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
        }
        for i in order
    ]
    conf = get_settings()
    return {
        "edges": edges,
        "nodes": nodes,
        "interval_minutes": round(conf.GOSSIP_INTERVAL_SECONDS / 60, 1),
        "gossip_on": conf.GOSSIP_INTERVAL_SECONDS > 0 and conf.GOSSIP_PAIRS_PER_ROUND > 0,
        "pairs_per_round": conf.GOSSIP_PAIRS_PER_ROUND,
        "max_hops": conf.GOSSIP_MAX_HOPS,
        "size": size,
    }


def chain(teller_id: int, listener_id: int) -> dict | None:
    """What `teller_id` told `listener_id`, newest first, each with the path it came along;
    None if either is not an object."""
    memories = list(
        Memory.objects.filter(provenance_id=teller_id, npc_id=listener_id)
        .select_related("subject", "npc", "provenance")
        .order_by("-learned_at")
    )
    known = names([teller_id, listener_id] + [i for m in memories for i in (m.chain or [])])
    if teller_id not in known or listener_id not in known:
        return None
    rows = [
        {
            "memory": m,
            "path": [
                {"id": i, "name": known.get(i, f"#{i} (gone)")}
                for i in (m.chain or [m.provenance_id])
            ],
        }
        for m in memories
    ]
    return {
        "teller": {"id": teller_id, "name": known[teller_id]},
        "listener": {"id": listener_id, "name": known[listener_id]},
        "rows": rows,
    }
