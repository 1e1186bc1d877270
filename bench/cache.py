"""
Benchmark: the per-NPC vector cache bounded by VECTOR_CACHE_MB (issue 17).

Builds a throwaway SQLite database with NPCS NPCs holding MEMORIES memories each (random unit
vectors), then serves ACCESSES retrievals to NPCs picked with a skewed (Zipf-like) popularity,
as a busy world's conversations would, once within a small budget and once unbounded, and
reports for each:

- the memory the cache holds: its own estimate (`MatrixCache.total`), what tracemalloc sees
  the cached matrices hold, and the process's resident set size (VmRSS) afterwards;
- the hit rate and evictions;
- the cost of a hit (cached matrix plus one `select_memories`) and of a miss (the matrix read
  from the database, cached, plus one `select_memories`).

Writes bench/results/cache.json.

    .venv/bin/python bench/cache.py [--npcs 40] [--memories 1000] [--budget-mb 24]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

from bench.retrieval import fill, setup_django, summary  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def run(npcs, subjects, budget_mb, accesses, rng):
    import numpy as np
    from django.test import override_settings

    from omniira_evennia.memory import store
    from omniira_evennia.memory.retrieval import select_memories

    store.invalidate()
    store._index_cache = cache = store.MatrixCache()
    gc.collect()
    weights = 1.0 / np.arange(1, len(npcs) + 1)  # Zipf-like: a few NPCs are busy
    picks = rng.choice(len(npcs), size=accesses, p=weights / weights.sum())
    hits, misses, peak = [], [], 0
    with override_settings(OMNIIRA={"VECTOR_CACHE_MB": budget_mb}):
        for pick in picks:
            npc = npcs[pick]
            query = rng.standard_normal(384).astype(np.float32)
            query /= np.linalg.norm(query)
            cached = store.cached_index(npc.id) is not None
            t0 = time.perf_counter()
            index = store.load_index(npc.id)
            select_memories(index, query, subjects[0].id, now=time.time())
            (hits if cached else misses).append((time.perf_counter() - t0) * 1000)
            peak = max(peak, cache.total)
        # What the cache really holds: replay the same accesses under tracemalloc (not timed)
        store.invalidate()
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        for pick in picks:
            store.load_index(npcs[pick].id)
        gc.collect()
        traced_cache_mb = round((tracemalloc.get_traced_memory()[0] - base) / 2**20, 1)
        tracemalloc.stop()
        return {
            "budget_mb": budget_mb,
            "npcs_cached": len(cache),
            "estimate_peak_mb": round(peak / 2**20, 1),
            "traced_cache_mb": traced_cache_mb,
            "rss_after_mb": rss_mb(),
            "hit_rate": round(len(hits) / accesses, 3),
            "evictions": cache.evictions,
            "hit": summary(hits) if hits else None,
            "miss": summary(misses) if misses else None,
        }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--npcs", type=int, default=40)
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--budget-mb", type=float, default=24.0)
    parser.add_argument("--accesses", type=int, default=800)
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="omniira-bench-")
    setup_django("sqlite", tmp, "cache.db3")

    import numpy as np
    from evennia.utils import create

    from omniira_evennia.memory import store
    from omniira_evennia.runtime import runner

    runner.run_inline(True)
    rng = np.random.default_rng(11)
    room = create.create_object("evennia.objects.objects.DefaultRoom", key="Bench", nohome=True)
    subjects = [
        create.create_object(
            "evennia.objects.objects.DefaultCharacter", key=f"P{i}", location=room, home=room
        )
        for i in range(4)
    ]
    npcs = []
    started = time.monotonic()
    for i in range(args.npcs):
        npc = create.create_object(
            "evennia.objects.objects.DefaultCharacter", key=f"NPC{i}", location=room
        )
        fill(npc, subjects, args.memories, rng)
        npcs.append(npc)
    one = store.matrix_bytes(store.read_index(npcs[0].id))
    results = {
        "benchmark": "cache",
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores, {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}",
        "npcs": args.npcs,
        "memories_per_npc": args.memories,
        "fill_seconds": round(time.monotonic() - started, 1),
        "one_matrix_estimate_mb": round(one / 2**20, 2),
        "accesses": args.accesses,
        "rss_before_mb": rss_mb(),
    }
    # bounded first: resident memory only grows, so the unbounded run cannot hide its peak
    results["bounded"] = run(npcs, subjects, args.budget_mb, args.accesses, rng)
    print("bounded", results["bounded"], flush=True)
    results["unbounded"] = run(npcs, subjects, 100_000.0, args.accesses, rng)
    print("unbounded", results["unbounded"], flush=True)
    out = ROOT / "bench" / "results" / "cache.json"
    out.write_text(json.dumps(results, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
