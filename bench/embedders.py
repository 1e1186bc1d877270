"""
Benchmark: the two embedders side by side (issue #19), ONNX int8 (the default) and
sentence-transformers fp32 on torch (the `[torch]` extra), in one run.

Each measurement runs in a fresh process per embedder, one at a time (the machine has two
cores), with the load average recorded around it:

- `micro`: in a process that has set up Django, Evennia and the contrib (the game server
  without an embedder: the baseline), the cold load (creating the embedder and embedding a
  first line, imports included), resident memory above the baseline after 300 queries and a
  batch, query embedding (one short line at a time, as a turn does) p50 / p95, and batch
  throughput;
- `turns`: the turn overhead at 10k memories of `bench/retrieval.py` (everything a turn does
  but the LLM call: two embeddings, retrieval, prompt, parse, writes) with that embedder, on a
  quiet machine and again with `--burners` processes spinning on the CPU ("under load"); numpy's
  BLAS on one thread, as the contrib sets it (BLAS_THREADS, runtime/blas.py);
- `quality`: the retrieval evaluation of `bench/retrieval_eval.py` (576 labelled questions over
  ~10,000 memories) with that embedder's vectors: recall per mode and category.

Needs both embedders, so it runs in the torch virtualenv (`make bench-embedders`). Writes
bench/results/embedders.json; `bench/report.py` renders it into docs/benchmarks.md.

    .venv-torch/bin/python bench/embedders.py [--parts micro turns quality] [--burners 1]

`--cpu` (issue #27) measures on this CPU alone, in this process, and prints JSON (writes
nothing): each configuration of the ONNX embedder and, with `--candidates`, the dynamic-int8
models considered (they need the `onnx` package): lowest and mean cosine with the packaged
fp32 reference, load with the self-check, query p50 / p95 for one short line, two lines in two
calls and in one, a batch of 8. For an AVX2-only CPU, run it under user-mode emulation
(Debian's qemu-user: timings are the emulator's, only the cosines carry over):

    .venv/bin/python bench/embedders.py --cpu --candidates
    qemu-x86_64 -cpu Haswell .venv/bin/python bench/embedders.py --cpu --candidates --runs 10
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

EMBEDDERS = {
    "onnx": "omniira_evennia.memory.embeddings.OnnxMiniLMEmbedder",
    "torch": "omniira_evennia.memory.embeddings.SentenceTransformerEmbedder",
}
MODES = ("paper", "fused")
CATEGORIES = ("all", "name", "place", "item", "date", "paraphrase", "multi")


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def percentile(values, pct):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def summary(samples_ms):
    return {
        "median_ms": round(statistics.median(samples_ms), 3),
        "p95_ms": round(percentile(samples_ms, 95), 3),
        "runs": len(samples_ms),
    }


def make_embedder(which: str):
    from omniira_evennia.conf import build_settings
    from omniira_evennia.memory.embeddings import create_embedder

    return create_embedder(build_settings({"EMBEDDER": EMBEDDERS[which]}, {}))


# ---------------------------------------------------------------- workers (one process each)


def work_micro(which: str) -> dict:
    from bench.retrieval import setup_django
    from bench.retrieval_eval import build_world

    setup_django("sqlite", tempfile.mkdtemp(prefix="omniira-emb-"))
    import omniira_evennia.api  # noqa: F401  (the contrib as a game loads it)

    _, queries = build_world(11)
    lines = [q.text for q in queries][:300]
    baseline = rss_mb()
    t0 = time.perf_counter()
    embedder = make_embedder(which)
    embedder.embed(["warming up"])
    cold_s = time.perf_counter() - t0
    after_load = rss_mb()
    samples, cpu = [], []
    for line in lines:
        a, c = time.perf_counter(), time.thread_time()
        embedder.embed([line])
        samples.append((time.perf_counter() - a) * 1000)
        cpu.append((time.thread_time() - c) * 1000)
    texts = [f"{q.text} (memory {i})" for i, q in enumerate(queries[:256])]
    t1 = time.perf_counter()
    for start in range(0, len(texts), 64):
        embedder.embed(texts[start : start + 64])
    batch_s = time.perf_counter() - t1
    return {
        "name": getattr(embedder, "name", which),
        "cold_load_s": round(cold_s, 3),
        "rss_baseline_mb": round(baseline, 1),
        "rss_above_baseline_after_load_mb": round(after_load - baseline, 1),
        "rss_above_baseline_mb": round(rss_mb() - baseline, 1),
        "query": {**summary(samples), "cpu_median_ms": round(statistics.median(cpu), 3)},
        "batch_sentences_per_s": round(len(texts) / batch_s, 1),
    }


def work_turns(which: str) -> dict:
    import numpy as np
    from evennia.utils import create

    from bench.retrieval import measure_turns, setup_django
    from omniira_evennia.runtime import runner

    setup_django("sqlite", tempfile.mkdtemp(prefix="omniira-emb-"))
    runner.run_inline(True)
    rng = np.random.default_rng(7)
    room = create.create_object("evennia.objects.objects.DefaultRoom", key="Room", nohome=True)
    subjects = [
        create.create_object(
            "evennia.objects.objects.DefaultCharacter", key=f"P{i}", location=room, home=room
        )
        for i in range(4)
    ]
    results = {}
    measure_turns(rng, room, subjects, results, embedder=make_embedder(which))
    return results["turn_overhead_10k"]


def work_quality(which: str) -> dict:
    from evennia.utils import create

    from bench import retrieval_eval as ev
    from bench.retrieval import setup_django
    from omniira_evennia.conf import build_settings

    histories, queries = ev.build_world(11)
    setup_django("sqlite", tempfile.mkdtemp(prefix="omniira-emb-"), "eval.db3")
    import numpy as np

    conf = build_settings({}, {})
    room = create.create_object("evennia.objects.objects.DefaultRoom", key="Eval Room")
    objects = {
        name: create.create_object(
            "evennia.objects.objects.DefaultCharacter", key=name, location=room
        )
        for name in ev.NPCS + [p for p, _ in ev.PLAYERS]
    }
    texts = sorted({m.text for memories in histories.values() for m in memories})
    started = time.monotonic()
    vectors = ev.embed_all(texts + [q.text for q in queries], embedder=make_embedder(which))
    embed_s = time.monotonic() - started
    qvectors = np.stack([vectors[q.text] for q in queries])
    fact_ids = ev.store_world(histories, vectors, objects)
    now = ev.EPOCH + (ev.DAYS + 1) * ev.DAY_SECONDS
    recall, _, _ = ev.summarise(ev.evaluate(queries, qvectors, fact_ids, objects, conf, now))
    return {
        "texts": len(vectors),
        "embedding_seconds": round(embed_s, 1),
        "recall": {
            category: {
                "queries": entry["queries"],
                **{mode: entry[mode]["recall"] for mode in MODES},
            }
            for category, entry in recall.items()
        },
    }


# ---------------------------------------------------------------- one CPU (issue #27)

SHORT = "How much money does Ada owe?"
SECOND = "Ada owes Maren five silver coins."
EIGHT = [
    "Ada owes Maren five silver coins.",
    "How much money does Ada owe?",
    "The blacksmith's daughter went missing near Harrowmere.",
    "Did I tell you I'm looking for a relative who vanished?",
    "Maren pours a cup of plum wine for the traveller.",
    "A storm is coming over the grey hills tonight.",
    "Maren nods.",
    "Where is the ring?",
]


def cpu_features() -> dict:
    """numpy's own CPU detection (cpuid): what an emulator offers, unlike /proc/cpuinfo."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as found
    except ImportError:  # numpy < 2
        from numpy.core._multiarray_umath import __cpu_features__ as found
    return {flag: bool(found.get(flag)) for flag in ("AVX2", "FMA3", "AVX512F", "AVX512VNNI")}


def int8_candidates(folder: Path) -> dict:
    """
    The dynamic-int8 derivations considered in issue #27, from the packaged weights (needs the
    `onnx` package): the model before it (QInt8 weights, per channel), the same with 7-bit
    weights (reduce_range: no u8s8 product can saturate) and with uint8 weights (u8u8 kernels).
    """
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from omniira_evennia.memory import minilm

    folded = folder / "folded.onnx"  # as build.py folds it, in one file (quantize_dynamic's input)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(folded)
    options.log_severity_level = 3
    ort.InferenceSession(str(minilm.source_path()), sess_options=options)
    variants = {
        "int8 (before #27)": dict(weight_type=QuantType.QInt8),
        "int8, 7-bit weights": dict(weight_type=QuantType.QInt8, reduce_range=True),
        "int8, uint8 weights": dict(weight_type=QuantType.QUInt8),
    }
    paths = {}
    for label, options in variants.items():
        paths[label] = folder / f"{len(paths)}.onnx"
        quantize_dynamic(folded, paths[label], per_channel=True, **options)
    return paths


def timed(fn, runs: int) -> dict:
    fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return {
        "p50_ms": round(statistics.median(samples), 3),
        "p95_ms": round(percentile(samples, 95), 3),
    }


def measure_embedder(embedder, runs: int) -> dict:
    """Agreement with the packaged fp32 reference, then the latencies a turn sees."""
    from omniira_evennia.memory import minilm

    start = time.perf_counter()
    embedder.embed(["warming up"])  # loads and runs the self-check
    load_s = time.perf_counter() - start
    sentences, reference = minilm.reference()
    cosines = (embedder.embed(list(sentences)) * reference).sum(axis=1)
    return {
        "load_s": round(load_s, 3),
        "min_cosine": round(float(cosines.min()), 5),
        "mean_cosine": round(float(cosines.mean()), 5),
        "query": timed(lambda: embedder.embed([SHORT]), runs),
        "two_calls": timed(lambda: (embedder.embed([SHORT]), embedder.embed([SECOND])), runs),
        "two_in_one_call": timed(lambda: embedder.embed([SHORT, SECOND]), runs),
        "batch_of_8": timed(lambda: embedder.embed(EIGHT), max(5, runs // 5)),
    }


def work_cpu(runs: int, candidates: bool) -> dict:
    """Every configuration of the ONNX embedder (and the int8 candidates) on this CPU."""
    import logging

    from omniira_evennia.memory import minilm
    from omniira_evennia.memory.embeddings import (
        CONFIGURATIONS,
        OnnxConfiguration,
        OnnxMiniLMEmbedder,
    )

    logging.getLogger("omniira.embeddings").setLevel(logging.CRITICAL)  # int8 fails its check
    configurations = {c.name: c for c in CONFIGURATIONS}
    for level in ("EXTENDED", "ALL"):
        configurations[level.lower()] = OnnxConfiguration(level.lower(), f"ORT_ENABLE_{level}")
    found = {}
    for name, configuration in configurations.items():
        embedder = OnnxMiniLMEmbedder(configurations=[configuration])
        found[f"float32, {name}"] = measure_embedder(embedder, runs)
    if candidates:
        with tempfile.TemporaryDirectory(prefix="omniira-int8-") as folder:
            for label, path in int8_candidates(Path(folder)).items():
                embedder = OnnxMiniLMEmbedder(
                    model_path=path,
                    sha256=minilm.sha256_of(path.read_bytes()),
                    configurations=[OnnxConfiguration("all", "ORT_ENABLE_ALL")],
                )
                embedder.batch_size = 1  # int8 activations are quantised per run
                found[label] = {"sha256": embedder.expected_sha256[:8]}
                found[label].update(measure_embedder(embedder, runs))
    return {
        "cpu": minilm.cpu_description(),
        "cpu_features_seen_by_numpy": cpu_features(),
        "runs": runs,
        "candidates": found,
    }


WORKERS = {"micro": work_micro, "turns": work_turns, "quality": work_quality}


# ---------------------------------------------------------------- the run


def _burners(count: int, seconds: float = 600):
    """Processes that spin on the CPU (bounded: each stops by itself after `seconds`)."""
    code = f"import time\nend = time.time() + {seconds}\nwhile time.time() < end: pass\n"
    return [subprocess.Popen([sys.executable, "-c", code]) for _ in range(count)]


def run_worker(part: str, which: str, burners: int = 0) -> dict:
    env = dict(os.environ)
    spinning = _burners(burners)
    load_before = os.getloadavg()[0]
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--worker", part, "--embedder", which],
            capture_output=True,
            text=True,
            timeout=1800,
            cwd=ROOT,
            env=env,
        )
    finally:
        for process in spinning:
            process.kill()
            process.wait()
    if done.returncode != 0:
        raise RuntimeError(f"{part}/{which} failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["load_average"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    label = f"{part}{' loaded' if burners else ''}"
    print(f"{label:20} {which:6} {json.dumps(result)[:300]}", flush=True)
    return result


def verdicts(out: dict) -> dict:
    onnx, torch = out["embedders"]["onnx"], out["embedders"]["torch"]
    found = {}
    if "micro" in onnx and "micro" in torch:
        ratio = onnx["micro"]["query"]["p95_ms"] / torch["micro"]["query"]["p95_ms"]
        found["query_p95_ratio"] = round(ratio, 3)
        found["query_p95_at_most_a_fifth"] = ratio <= 0.2
        found["rss_at_most_150_mb"] = onnx["micro"]["rss_above_baseline_mb"] <= 150
        found["cold_load_at_most_1_s"] = onnx["micro"]["cold_load_s"] <= 1.0
    for key in ("turns", "turns_loaded"):
        if key in onnx and key in torch:
            ratio = onnx[key]["total"]["p95_ms"] / torch[key]["total"]["p95_ms"]
            found[f"{key}_p95_ratio"] = round(ratio, 3)
            found[f"{key}_p95_at_most_half"] = ratio <= 0.5
    for key in ("turns_loaded",):
        if key in onnx:
            found[f"{key}_p95_at_most_30_ms"] = onnx[key]["total"]["p95_ms"] <= 30
    if "quality" in onnx and "quality" in torch:
        diffs = {
            f"{category}/{mode}": round(
                onnx["quality"]["recall"][category][mode]
                - torch["quality"]["recall"][category][mode],
                3,
            )
            for category in CATEGORIES
            if category in onnx["quality"]["recall"]
            for mode in MODES
        }
        found["recall_difference"] = diffs
        # One question of a 65-question category moves its recall by 0.015: report every drop.
        found["recall_drops_beyond_0.01"] = {k: v for k, v in diffs.items() if v < -0.01}
        found["recall_no_worse_than_0.01"] = not found["recall_drops_beyond_0.01"]
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--parts", nargs="+", default=["micro", "turns", "quality"])
    parser.add_argument("--embedders", nargs="+", default=list(EMBEDDERS))
    parser.add_argument("--burners", type=int, default=1, help="CPU spinners for 'under load'")
    parser.add_argument("--rescore", action="store_true", help="recompute the verdicts only")
    parser.add_argument("--cpu", action="store_true", help="this CPU's agreement and latency")
    parser.add_argument("--candidates", action="store_true", help="with --cpu: the int8 models")
    parser.add_argument("--runs", type=int, default=300, help="with --cpu: timed runs each")
    parser.add_argument("--worker", choices=list(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("--embedder", choices=list(EMBEDDERS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(WORKERS[args.worker](args.embedder)))
        return
    if args.cpu:
        print(json.dumps(work_cpu(args.runs, args.candidates), indent=1))
        return

    out_path = ROOT / "bench" / "results" / "embedders.json"
    previous = json.loads(out_path.read_text()) if out_path.exists() else {}
    if args.rescore:
        previous["verdicts"] = verdicts(previous)
        out_path.write_text(json.dumps(previous, indent=2))
        print(json.dumps(previous["verdicts"], indent=1))
        return
    out = {
        "benchmark": "embedders",
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores, {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}",
        "load_average_start": [round(x, 2) for x in os.getloadavg()],
        "burners": args.burners,
        "blas_threads": "1 (BLAS_THREADS default, runtime/blas.py)",
        "embedders": {
            which: {k: v for k, v in parts.items() if "blas1" not in k}  # measured before it
            for which, parts in previous.get("embedders", {}).items()
        },
    }
    for part in args.parts:
        for which in args.embedders:
            entry = out["embedders"].setdefault(which, {})
            entry[part] = run_worker(part, which)
            if part != "turns":
                continue
            if args.burners:
                entry["turns_loaded"] = run_worker(part, which, burners=args.burners)
    out["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    if set(EMBEDDERS) <= set(out["embedders"]):
        out["verdicts"] = verdicts(out)
    out_path.write_text(json.dumps(out, indent=2))
    print(f"wrote {out_path}")


if __name__ == "__main__":
    main()
