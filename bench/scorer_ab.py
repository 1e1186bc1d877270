"""
A/B of the fused scorer: the code of an earlier commit against the working tree, interleaved in
one process on the same 10,000-memory matrix (4 subjects, 384 dimensions, 50 full-text ids per
query), each call timed by this thread's CPU time with BLAS on one thread. On a shared machine
this compares the two fairly where an absolute p95 would measure the neighbours (issue #18:
the fused scorer must stay within p95 3 ms at 10k; bench/retrieval_eval.py measures it in
place).

    .venv/bin/python bench/scorer_ab.py [--before 771c492] [--runs 3000]

Writes bench/results/scorer_ab.json.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import json  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DAY = 86400.0


def load_before(rev: str):
    """The scorer modules as they were at `rev`, importable as `before_core`."""
    folder = Path(tempfile.mkdtemp(prefix="omniira-ab-")) / "before_core"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for name in ("retrieval", "fusion"):
        text = subprocess.run(
            ["git", "show", f"{rev}:omniira_evennia/memory/{name}.py"],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        text = text.replace("omniira_evennia.memory.retrieval", "before_core.retrieval")
        (folder / f"{name}.py").write_text(text)
    sys.path.insert(0, str(folder.parent))
    from before_core import fusion, retrieval

    return fusion, retrieval


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", default="771c492")
    parser.add_argument("--runs", type=int, default=3000)
    args = parser.parse_args()
    old_f, old_r = load_before(args.before)
    from omniira_evennia.memory import fusion as new_f
    from omniira_evennia.memory import retrieval as new_r

    rng = np.random.default_rng(1)
    n, dim = 10000, 384
    vecs = rng.standard_normal((n, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    subjects = np.sort(rng.integers(0, 4, n))
    learned = 1.767e9 + rng.uniform(0, 40 * DAY, n)
    importance = rng.integers(1, 10, n)

    def matrix(mod):
        records = [
            mod.MemoryRecord(
                id=i + 1,
                subject_id=int(subjects[i]),
                key=f"m{i}",
                value="x",
                importance=int(importance[i]),
                learned_at=float(learned[i]),
                feeling="joy" if i % 5 == 0 else None,
            )
            for i in range(n)
        ]
        return mod.MemoryMatrix(records, vecs, np.ones(n, bool), subject_sorted=True)

    old_index, new_index = matrix(old_r), matrix(new_r)
    now = 1.767e9 + 41 * DAY
    samples: dict[str, list[float]] = {"before": [], "now (window 6 h)": [], "now (window 0)": []}
    load = [os.getloadavg()[0]]
    for run in range(args.runs):
        s = run % 4
        q = vecs[rng.integers(0, n)] + 0.5 * rng.standard_normal(dim).astype(np.float32)
        q /= np.linalg.norm(q)
        ids = [int(i) + 1 for i in rng.choice(np.flatnonzero(subjects == s), 50, replace=False)]
        cases = [
            ("before", lambda: old_f.select_memories_fused(old_index, q, ids, s, now=now)),
            (
                "now (window 6 h)",
                lambda: new_f.select_memories_fused(
                    new_index, q, ids, s, now=now, recency_window=6 * 3600.0
                ),
            ),
            ("now (window 0)", lambda: new_f.select_memories_fused(new_index, q, ids, s, now=now)),
        ]
        for name, call in cases if run % 2 else reversed(cases):
            start = time.thread_time()
            call()
            samples[name].append((time.thread_time() - start) * 1000)
    load.append(os.getloadavg()[0])
    result = {
        "benchmark": "scorer_ab",
        "date": time.strftime("%Y-%m-%d"),
        "before": args.before,
        "load_average": [round(x, 2) for x in load],
        "cpu_ms": {},
    }
    for name, values in samples.items():
        values = sorted(values[100:])  # the first calls warm caches
        result["cpu_ms"][name] = {
            "median": round(statistics.median(values), 3),
            "p95": round(values[int(0.95 * len(values))], 3),
            "runs": len(values),
        }
        print(f"{name:18} {result['cpu_ms'][name]}")
    out = ROOT / "bench" / "results" / "scorer_ab.json"
    out.write_text(json.dumps(result, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
