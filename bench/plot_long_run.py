"""
The store over time in the long runs (issue #29): memories per NPC by game day, from
bench/results/long_run.json (deterministic LLM) and long_run_local.json (the packaged offline
model), drawn side by side as docs/long_run_store.svg for docs/benchmarks.md.

    .venv/bin/python bench/plot_long_run.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
OUT = ROOT / "docs" / "long_run_store.svg"
RUNS = (("long_run.json", "deterministic LLM"), ("long_run_local.json", "offline model"))


def series(report: dict) -> dict[str, list[int]]:
    """Memories stored per NPC at the end of each game day."""
    days = report["store_by_day"]
    return {npc: [day.get(npc, 0) for day in days] for npc in days[0]} if days else {}


def main() -> int:
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "omniira"  # the same drawing from the same data
    from matplotlib import pyplot

    runs = [(json.loads((RESULTS / n).read_text()), t) for n, t in RUNS if (RESULTS / n).exists()]
    if not runs:
        print("no long-run results in bench/results", file=sys.stderr)
        return 1
    figure, axes = pyplot.subplots(1, len(runs), figsize=(5.5 * len(runs), 3.6), squeeze=False)
    for axis, (report, title) in zip(axes[0], runs):
        cfg = report["config"]
        for npc, counts in series(report).items():
            axis.plot(range(1, len(counts) + 1), counts, label=npc, linewidth=1.4)
        cap = report["caps"].get("memory_cap_per_subject")
        axis.set_title(
            f"{title}: {cfg['npcs']} NPCs, {cfg['players']} players, seed {cfg['seed']}",
            fontsize=10,
        )
        axis.set_xlabel("game day")
        axis.set_ylabel(f"memories held (cap {cap} a subject)")
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7, ncol=2)
    figure.tight_layout()
    figure.savefig(OUT, format="svg", metadata={"Date": None})
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
