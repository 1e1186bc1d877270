"""
Health counters: how often each degraded path ran (embedding failures, LLM errors, bad tags...).

Counters live in process memory and are cheap to bump from any thread. They are readable from
game code with `omniira_evennia.runtime.health.snapshot()` and shown by builder tooling.
"""

from __future__ import annotations

import threading
from collections import Counter

_lock = threading.Lock()
_counts: Counter[str] = Counter()


def incr(name: str, amount: int = 1) -> None:
    with _lock:
        _counts[name] += amount


def get(name: str) -> int:
    with _lock:
        return _counts[name]


def snapshot() -> dict[str, int]:
    with _lock:
        return dict(_counts)


def reset() -> None:
    with _lock:
        _counts.clear()
