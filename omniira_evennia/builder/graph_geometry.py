"""The gossip graph's SVG geometry: nodes on a circle, curved edges between them (plain)."""

from __future__ import annotations

import math

NODE_RADIUS = 26
GRAPH_ALL_NPCS = 16  # up to this many NPCs the graph shows them all, gossip or not


def graph_size(nodes: int) -> int:
    """The SVG's side in px: room for every node on the circle, about 75 px of circumference
    each."""
    return max(560, min(2400, round(24 * nodes + 160)))


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
