"""
Writing a simulation report: `report.json` (every figure) and PNG plots (matplotlib, from the
`testbed` extra; without it only the JSON is written).

Plots: diffusion.png (fraction of NPCs holding each probe per day), chain_lengths.png (hops of
all hearsay rows, and of the probes' copies), self_tags.png (self-tags per player reply per
day), llm_per_npc_day.png (calls and tokens per NPC-day by tier), memory_per_npc.png (memory
rows per NPC by source).
"""

from __future__ import annotations

import json
import os
from collections import Counter


def write_report(report: dict, out_dir: str) -> list[str]:
    """Write report.json and the plots into `out_dir`; returns the paths written."""
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "report.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=2, sort_keys=False)
    written = [path]
    try:
        import matplotlib

        matplotlib.use("Agg")  # headless
        import matplotlib.pyplot as plt
    except ImportError:
        return written
    for name, draw in PLOTS.items():
        fig, ax = plt.subplots(figsize=(6, 3.6), dpi=100)
        draw(ax, report)
        fig.tight_layout()
        png = os.path.join(out_dir, f"{name}.png")
        fig.savefig(png)
        plt.close(fig)
        written.append(png)
    return written


def _title(report: dict) -> str:
    cfg = report["config"]
    off = ",".join(cfg["off"]) or "none"
    return f"{cfg['days']} days, {cfg['npcs']} NPCs, off: {off}"


def _diffusion(ax, report):
    days = [d["day"] for d in report["per_day"]]
    for name, probe in report["diffusion"].items():
        label = f"{name} (from {probe['origin']})" + (" [lie]" if probe.get("lie") else "")
        ax.plot(days, probe["fraction_by_day"], marker="o", label=label)
    ax.set_ylim(0, 1.05)
    ax.set_xticks(days)
    ax.set_xlabel("game day (end of day)")
    ax.set_ylabel("fraction of NPCs holding it")
    ax.set_title("Diffusion - " + _title(report), fontsize=9)
    if report["diffusion"]:
        ax.legend(fontsize=8)


def _chains(ax, report):
    series = {"all hearsay": report["gossip"]["chain_lengths"]}
    for name, probe in report["diffusion"].items():
        series[name] = probe["chain_lengths"]
    hops = sorted({int(h) for s in series.values() for h in s} or {1})
    width = 0.8 / len(series)
    for i, (label, counts) in enumerate(series.items()):
        counts = {int(k): v for k, v in counts.items()}
        ax.bar([h + i * width for h in hops], [counts.get(h, 0) for h in hops], width, label=label)
    ax.set_xticks([h + width * (len(series) - 1) / 2 for h in hops], [str(h) for h in hops])
    ax.set_xlabel("chain length (hops from the origin)")
    ax.set_ylabel("memory rows")
    ax.set_title("Gossip chain lengths - " + _title(report), fontsize=9)
    ax.legend(fontsize=8)


def _self_tags(ax, report):
    days = [d["day"] for d in report["per_day"]]
    ax.bar(days, [d["self_tag_rate"] for d in report["per_day"]])
    ax.set_xticks(days)
    ax.set_xlabel("game day")
    ax.set_ylabel("REMEMBER tags per player reply")
    ax.set_title("Self-tag cadence - " + _title(report), fontsize=9)


def _llm(ax, report):
    per = report["llm"]["per_npc_day"]
    tiers = sorted(per)
    ax.bar(tiers, [per[t]["tokens"] for t in tiers])
    for i, t in enumerate(tiers):
        ax.annotate(
            f"{per[t]['calls']} calls\n${per[t]['cost_usd']:.5f}",
            (i, per[t]["tokens"]),
            ha="center",
            va="bottom",
            fontsize=8,
        )
    ax.set_ylabel("tokens per NPC-day")
    ax.set_title("LLM use per NPC-day by tier - " + _title(report), fontsize=9)
    ax.margins(y=0.25)


def _memory(ax, report):
    per = report["memory"]["per_npc"]
    names = list(per)
    ax.bar(names, [per[n] for n in names])
    ax.set_ylabel("memory rows")
    ax.set_title("Memory rows per NPC - " + _title(report), fontsize=9)
    ax.tick_params(axis="x", labelrotation=45, labelsize=8)
    sources = Counter(report["memory"]["by_source"])
    ax.text(
        0.01,
        0.97,
        ", ".join(f"{k}: {v}" for k, v in sources.most_common()),
        transform=ax.transAxes,
        va="top",
        fontsize=8,
    )


PLOTS = {
    "diffusion": _diffusion,
    "chain_lengths": _chains,
    "self_tags": _self_tags,
    "llm_per_npc_day": _llm,
    "memory_per_npc": _memory,
}
