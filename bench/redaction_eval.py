"""
Evaluation of memory/safety.py (issue #26, points 1, 13 and 15): how much personal data
`redact_pii` removes, how much game talk it leaves alone, and how long every function takes on
adversarial input.

- Recall and false positives on the labelled set bench/data/pii_labelled.json: positives are
  texts with the substrings that must disappear (e-mails plain and obfuscated, phones in US,
  UK, DE, FR and international forms, cards, IBANs, SSNs, NI numbers, dates of birth, street
  addresses, PO boxes, postcodes); negatives are MUD game talk that must come back unchanged
  (prices, scores, dice, years, rooms, times, coordinates, levels, item codes, dates of events,
  distances, quantities). Recall is the share of positive substrings removed, per kind and in
  all; a false positive is a negative changed.
- Worst-case time of `redact_pii`, `neutralize_markup` (both modes), `detect_manipulation` and
  `strip_controls` on adversarial texts of 4,000 characters (the largest any of them is given:
  replies are capped to 4,000 characters, player lines to 1,000, stored values to 500): each
  family repeats one fragment (markup fragments, bracket runs, digit groups, letter runs, `a@`,
  dots, cues) to the length, and `mixed` families join random fragments. Each function runs
  `--repeats` times per family: the family's time is the median CPU time of the thread (other
  engineers' processes share this 2-core machine, and a call preempted for a time slice would
  count the slice), the best wall-clock time is reported too; the worst family is the
  function's. The budget is 5 ms per call.

Writes bench/results/redaction_eval.json.

    .venv/bin/python bench/redaction_eval.py [--chars 4000] [--repeats 7]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from omniira_evennia.memory.safety import (  # noqa: E402
    detect_manipulation,
    neutralize_markup,
    redact_pii,
    strip_controls,
)

# The adversarial fragments the linearity tests check results on (one family each).
from tests.unit.memory.test_safety_linear import FRAGMENTS, adversarial  # noqa: E402

LABELLED = ROOT / "bench" / "data" / "pii_labelled.json"
RESULTS = ROOT / "bench" / "results" / "redaction_eval.json"
BUDGET_MS = 5.0

MIXED_FAMILIES = 6
FUNCTIONS = {
    "redact_pii": redact_pii,
    "neutralize_markup(strip)": lambda text: neutralize_markup(text, "strip"),
    "neutralize_markup(colour)": lambda text: neutralize_markup(text, "colour"),
    "detect_manipulation": detect_manipulation,
    "strip_controls": strip_controls,
}


def families(chars: int, seed: int = 26) -> dict[str, str]:
    """Every adversarial family at `chars` characters, by name."""
    texts = {}
    for group, fragments in FRAGMENTS.items():
        for fragment in fragments:
            texts[f"{group}:{fragment!r}"] = adversarial(fragment, chars)
    every = [fragment for fragments in FRAGMENTS.values() for fragment in fragments]
    rng = random.Random(seed)
    for index in range(MIXED_FAMILIES):
        pieces, length = [], 0
        while length < chars:
            pieces.append(rng.choice(every) * rng.randint(1, 40))
            length += len(pieces[-1])
        texts[f"mixed:{index}"] = "".join(pieces)[:chars]
    return texts


def timed(function, text: str, repeats: int) -> tuple[float, float]:
    """
    Milliseconds of one call: the median CPU time of the thread (what the call costs, whatever
    else the machine runs) and the best wall-clock time of `repeats` calls.
    """
    cpu, wall = [], []
    for _ in range(repeats):
        start_cpu, start_wall = time.thread_time(), time.perf_counter()
        function(text)
        cpu.append((time.thread_time() - start_cpu) * 1000)
        wall.append((time.perf_counter() - start_wall) * 1000)
    return statistics.median(cpu), min(wall)


def timings(chars: int, repeats: int) -> dict:
    texts = families(chars)
    report = {}
    for name, function in FUNCTIONS.items():
        cpu, wall = {}, {}
        for family, text in texts.items():
            cpu[family], wall[family] = timed(function, text, repeats)
        worst = max(cpu, key=cpu.get)
        report[name] = {
            "worst_cpu_ms": round(cpu[worst], 3),
            "worst_family": worst,
            "worst_wall_ms": round(max(wall.values()), 3),
            "median_cpu_ms": round(statistics.median(cpu.values()), 3),
            "families_cpu_ms": {family: round(ms, 3) for family, ms in cpu.items()},
        }
    return report


def labelled_eval() -> dict:
    data = json.loads(LABELLED.read_text())
    kinds: dict[str, list[int]] = {}
    missed = []
    for case in data["positives"]:
        redacted, _ = redact_pii(case["text"])
        found = kinds.setdefault(case["kind"], [0, 0])
        for secret in case["secrets"]:
            found[1] += 1
            if secret in redacted:
                missed.append({"text": case["text"], "secret": secret, "redacted": redacted})
            else:
                found[0] += 1
    changed = []
    for text in data["negatives"]:
        redacted, _ = redact_pii(text)
        if redacted != text:
            changed.append({"text": text, "redacted": redacted})
    removed = sum(found for found, _ in kinds.values())
    total = sum(total for _, total in kinds.values())
    return {
        "positives": len(data["positives"]),
        "secrets": total,
        "recall": round(removed / total, 4),
        "recall_by_kind": {kind: round(f / t, 4) for kind, (f, t) in sorted(kinds.items())},
        "missed": missed,
        "negatives": len(data["negatives"]),
        "false_positives": len(changed),
        "false_positive_rate": round(len(changed) / len(data["negatives"]), 4),
        "changed": changed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chars", type=int, default=4000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    quality = labelled_eval()
    speed = timings(args.chars, args.repeats)
    print(
        f"labelled set: {quality['positives']} positives ({quality['secrets']} secrets), "
        f"recall {quality['recall']:.1%}; {quality['negatives']} negatives, "
        f"{quality['false_positives']} changed ({quality['false_positive_rate']:.1%})"
    )
    for kind, recall in quality["recall_by_kind"].items():
        print(f"  {kind:10} recall {recall:.1%}")
    for miss in quality["missed"] + quality["changed"]:
        print(f"  ! {miss}")
    print(f"\nworst case at {args.chars} characters, {len(families(args.chars))} families:")
    print(f"{'function':27} {'worst CPU ms':>12} {'worst wall ms':>13} {'median CPU':>10}  family")
    for name, row in speed.items():
        flag = "" if row["worst_cpu_ms"] <= BUDGET_MS else "  OVER BUDGET"
        print(
            f"{name:27} {row['worst_cpu_ms']:12.3f} {row['worst_wall_ms']:13.3f} "
            f"{row['median_cpu_ms']:10.3f}  {row['worst_family']}{flag}"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "machine": {"python": platform.python_version(), "platform": platform.platform()},
                "chars": args.chars,
                "repeats": args.repeats,
                "budget_ms": BUDGET_MS,
                "labelled": quality,
                "timings": speed,
            },
            indent=1,
            ensure_ascii=False,
        )
        + "\n"
    )
    print(f"\nwrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
