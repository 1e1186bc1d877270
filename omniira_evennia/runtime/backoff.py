"""How long failed background work (a review, a diary, a belief) waits before its next try."""

from __future__ import annotations


def retry_delay(attempts: int, conf) -> float:
    """Seconds to wait after the `attempts`-th failure: doubling, within RETRY_MAX_SECONDS."""
    return min(conf.RETRY_MAX_SECONDS, conf.RETRY_BASE_SECONDS * 2 ** max(0, attempts - 1))
