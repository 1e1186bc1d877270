"""
Benchmark: memory retrieval and per-turn overhead (everything but the LLM's own time).

Builds a throwaway SQLite database (Evennia + omniira migrations) with one NPC holding N
memories about a few subjects (random unit vectors standing in for embeddings), then measures:

- retrieval, cached: `select_memories` over the NPC's in-memory matrix (the hot path);
- retrieval, cold: `store.load_index` from SQLite plus one `select_memories` (first query after
  a write or a restart);
- turn overhead at 10k memories: embed the player's line (real all-MiniLM-L6-v2), retrieve,
  render the prompt, parse a reply with a REMEMBER tag, write the memory and both turns.

Writes bench/results/retrieval.json.

    .venv/bin/python bench/retrieval.py [--sizes 1000 10000 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")


def setup_django(db_path: str) -> None:
    import django
    from django.conf import settings

    settings.DATABASES["default"]["NAME"] = db_path
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    import evennia

    evennia._init()


def percentile(values, pct):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def summary(samples_ms):
    return {
        "median_ms": round(statistics.median(samples_ms), 3),
        "p95_ms": round(percentile(samples_ms, 95), 3),
        "runs": len(samples_ms),
    }


def fill(npc, subjects, count, rng):
    """Insert `count` memories with random unit vectors, in batches."""
    import numpy as np
    from django.utils import timezone

    from omniira_evennia.models import Memory

    now = timezone.now()
    batch = []
    for i in range(count):
        vector = rng.standard_normal(384).astype(np.float32)
        vector /= np.linalg.norm(vector)
        batch.append(
            Memory(
                npc=npc,
                subject=subjects[i % len(subjects)],
                key=f"k{i}",
                value=f"memory number {i} about the river trade and the blue glass",
                importance=int(rng.integers(1, 11)),
                embedding=vector.tobytes(),
                feeling=["", "joy", "anger"][i % 3],
                learned_at=now - timezone.timedelta(seconds=i),
            )
        )
        if len(batch) == 5000:
            Memory.objects.bulk_create(batch)
            batch = []
    Memory.objects.bulk_create(batch)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="omniira-bench-")
    setup_django(os.path.join(tmp, "bench.db3"))

    import numpy as np
    from evennia.utils import create

    from omniira_evennia import store
    from omniira_evennia.conf import build_settings
    from omniira_evennia.conversation import TurnInput, retrieve_context
    from omniira_evennia.embeddings import SentenceTransformerEmbedder
    from omniira_evennia.models import Memory
    from omniira_evennia.prompts import Identity, PromptContext, build_messages
    from omniira_evennia.retrieval import select_memories
    from omniira_evennia.tags import parse_reply

    rng = np.random.default_rng(7)
    room = create.create_object("evennia.objects.objects.DefaultRoom", key="Bench Room")
    subjects = [
        create.create_object("evennia.objects.objects.DefaultCharacter", key=f"P{i}", location=room)
        for i in range(4)
    ]
    results = {"benchmark": "retrieval", "date": time.strftime("%Y-%m-%d"), "sizes": {}}
    conf = build_settings({}, {})
    for size in args.sizes:
        npc = create.create_object(
            "evennia.objects.objects.DefaultCharacter", key=f"NPC{size}", location=room
        )
        started = time.monotonic()
        fill(npc, subjects, size, rng)
        fill_s = time.monotonic() - started
        cold = []
        for _ in range(5 if size >= 100000 else 20):
            store.invalidate(npc.id)
            query = rng.standard_normal(384).astype(np.float32)
            query /= np.linalg.norm(query)
            t0 = time.perf_counter()
            index = store.load_index(npc.id)
            select_memories(index, query, subjects[0].id, now=time.time())
            cold.append((time.perf_counter() - t0) * 1000)
        index = store.load_index(npc.id)
        cached = []
        for _ in range(args.runs):
            query = rng.standard_normal(384).astype(np.float32)
            query /= np.linalg.norm(query)
            t0 = time.perf_counter()
            select_memories(index, query, subjects[0].id, now=time.time())
            cached.append((time.perf_counter() - t0) * 1000)
        results["sizes"][size] = {
            "cached": summary(cached),
            "cold": summary(cold),
            "fill_seconds": round(fill_s, 1),
        }
        print(size, results["sizes"][size], flush=True)

    # Per-turn overhead at 10k memories (the LLM's reply is a fixed string).
    npc = create.create_object(
        "evennia.objects.objects.DefaultCharacter", key="Maren", location=room
    )
    fill(npc, subjects, 10000, rng)
    embedder = SentenceTransformerEmbedder()
    embedder.embed(["warm up"])
    reply = (
        'Blue glass again? [[REMEMBER:{"key":"glass","value":"P0 collects blue glass.",'
        '"importance":6,"feeling":"joy"}]]'
    )
    overhead, parts = [], {"embed": [], "retrieve_render": [], "parse": [], "write": []}
    for i in range(60):
        t0 = time.perf_counter()
        ctx = PromptContext(
            identity=Identity("Maren", "tavern keeper"),
            speaker_name="P0",
            message=f"Do you have blue glass today, number {i}?",
        )
        [query] = embedder.embed([ctx.message])
        t1 = time.perf_counter()
        turn = TurnInput(
            npc_id=npc.id,
            speaker_id=subjects[0].id,
            context=ctx,
            index=store.load_index(npc.id),
            now=time.time(),
        )
        build_messages(retrieve_context(turn, conf, query))
        t2 = time.perf_counter()
        parsed = parse_reply(reply)
        t3 = time.perf_counter()
        store.upsert_memory(
            npc,
            subjects[0],
            parsed.remember[0].key,
            parsed.remember[0].value,
            importance=6,
            feeling="joy",
            embedding=query,
        )
        store.add_turn(npc, subjects[0], "bench", "speaker", ctx.message)
        store.add_turn(npc, subjects[0], "bench", "npc", parsed.text)
        t4 = time.perf_counter()
        if i >= 10:  # skip warm-up turns
            overhead.append((t4 - t0) * 1000)
            for name, (a, b) in {
                "embed": (t0, t1),
                "retrieve_render": (t1, t2),
                "parse": (t2, t3),
                "write": (t3, t4),
            }.items():
                parts[name].append((b - a) * 1000)
    results["turn_overhead_10k"] = {
        "total": summary(overhead),
        **{k: summary(v) for k, v in parts.items()},
    }
    results["memories_in_db"] = Memory.objects.count()
    print(json.dumps(results["turn_overhead_10k"], indent=1))
    out = ROOT / "bench" / "results" / "retrieval.json"
    out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
