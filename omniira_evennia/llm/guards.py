"""
Guards in front of every LLM call: budgets, rate limits and a circuit breaker per endpoint.

- `Budget`: daily token budgets per tier (all NPCs together, and per NPC) and requests per
  minute per tier, from the tier settings (`daily_tokens`, `npc_daily_tokens`,
  `requests_per_minute`; None means unlimited). Days are UTC calendar days. A call over budget
  is refused before any HTTP request; callers fall back (conversation: a cheaper tier, then an
  in-character line) or skip and count (extraction, gossip, reflection, diary). Nothing queues.
- `RateLimiter`: at most N events per key per minute (turns per player, audit rows per
  speaker), process-wide by name (`limiter`).
- `CircuitBreaker`: after `failures` consecutive failures an endpoint is open (calls refused
  at once) for `cooldown` seconds, then half-open: one probe call goes through; success closes
  it, failure opens it again.

Thread-safe, no Django.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from datetime import datetime, timezone


def utc_day(now: float | None = None) -> str:
    return datetime.fromtimestamp(time.time() if now is None else now, timezone.utc).strftime(
        "%Y-%m-%d"
    )


class Budget:
    def __init__(self, tiers, clock=time.time):
        self.tiers = tiers
        self.clock = clock
        self._lock = threading.Lock()
        self._tokens: dict[tuple, int] = defaultdict(int)  # (day, tier) / (day, tier, npc)
        self._requests: dict[str, deque] = defaultdict(deque)

    def seed(self, day: str, tier: str, tokens: int, npc_id: int | None = None) -> None:
        """Start from usage already recorded today (so a restart does not reset the bill)."""
        with self._lock:
            key = (day, tier) if npc_id is None else (day, tier, npc_id)
            self._tokens[key] += tokens

    def refusal(self, tier_name: str, npc_id: int | None = None) -> str | None:
        """Why a call would be over budget now, or None if it may go ahead (and is counted)."""
        tier = self.tiers.get(tier_name)
        if tier is None:
            return None
        now = self.clock()
        day = utc_day(now)
        with self._lock:
            if (
                tier.daily_tokens is not None
                and self._tokens[(day, tier_name)] >= tier.daily_tokens
            ):
                return f"daily token budget of tier {tier_name} spent"
            if (
                tier.npc_daily_tokens is not None
                and npc_id is not None
                and self._tokens[(day, tier_name, npc_id)] >= tier.npc_daily_tokens
            ):
                return f"daily token budget of tier {tier_name} for this NPC spent"
            if tier.requests_per_minute is not None:
                window = self._requests[tier_name]
                while window and window[0] <= now - 60:
                    window.popleft()
                if len(window) >= tier.requests_per_minute:
                    return f"tier {tier_name} is over {tier.requests_per_minute} requests/minute"
                window.append(now)
        return None

    def record(self, tier_name: str, tokens: int, npc_id: int | None = None) -> None:
        day = utc_day(self.clock())
        with self._lock:
            self._tokens[(day, tier_name)] += tokens
            if npc_id is not None:
                self._tokens[(day, tier_name, npc_id)] += tokens

    def spent(self, tier_name: str, npc_id: int | None = None) -> int:
        day = utc_day(self.clock())
        with self._lock:
            key = (day, tier_name) if npc_id is None else (day, tier_name, npc_id)
            return self._tokens[key]


class CircuitBreaker:
    CLOSED, OPEN, HALF_OPEN = "closed", "open", "half_open"

    def __init__(self, failures: int = 5, cooldown: float = 30.0, clock=time.monotonic):
        self.failures = failures
        self.cooldown = cooldown
        self.clock = clock
        self._lock = threading.Lock()
        self._state: dict[str, str] = {}
        self._count: dict[str, int] = defaultdict(int)
        self._opened_at: dict[str, float] = {}

    def state(self, key: str) -> str:
        with self._lock:
            return self._current(key)

    def _current(self, key: str) -> str:
        state = self._state.get(key, self.CLOSED)
        if state == self.OPEN and self.clock() - self._opened_at[key] >= self.cooldown:
            return self.HALF_OPEN
        return state

    def allow(self, key: str) -> bool:
        """May a call go to `key` now? In half-open state only one probe is let through."""
        with self._lock:
            state = self._current(key)
            if state == self.CLOSED:
                return True
            if state == self.HALF_OPEN and self._state.get(key) == self.OPEN:
                self._state[key] = self.HALF_OPEN  # this caller is the probe
                return True
            return False

    def success(self, key: str) -> None:
        with self._lock:
            self._state[key] = self.CLOSED
            self._count[key] = 0

    def failure(self, key: str) -> bool:
        """Count a failure; True if this one opened the circuit."""
        with self._lock:
            self._count[key] += 1
            was = self._state.get(key, self.CLOSED)
            if was == self.HALF_OPEN or self._count[key] >= self.failures:
                self._state[key] = self.OPEN
                self._opened_at[key] = self.clock()
                return was != self.OPEN
            return False


class RateLimiter:
    """
    At most `limit` events per key in any `window` seconds (a sliding window), e.g. the turns
    one player starts, or the audit rows one speaker causes. `allow` counts the event when it
    is allowed; a refused event is not counted. A limit of 0 or None means no limit.
    """

    def __init__(self, window: float = 60.0, clock=time.monotonic):
        self.window = window
        self.clock = clock
        self._lock = threading.Lock()
        self._events: dict = defaultdict(deque)

    def allow(self, key, limit: int | None) -> bool:
        if not limit:
            return True
        now = self.clock()
        with self._lock:
            events = self._events[key]
            while events and events[0] <= now - self.window:
                events.popleft()
            if len(events) >= limit:
                return False
            events.append(now)
            if len(self._events) > 10_000:  # forget keys idle for a whole window
                for stale in [
                    k for k, v in self._events.items() if not v or v[-1] <= now - self.window
                ]:
                    del self._events[stale]
            return True

    def reset(self) -> None:
        with self._lock:
            self._events.clear()


_limiters: dict[str, RateLimiter] = {}
_limiters_lock = threading.Lock()


def limiter(name: str) -> RateLimiter:
    """The process-wide limiter called `name` (one per use: "player_turns", "audit_rows")."""
    with _limiters_lock:
        if name not in _limiters:
            _limiters[name] = RateLimiter()
        return _limiters[name]


def reset_limiters() -> None:
    """Forget every limiter's history (tests; a server restart does the same)."""
    with _limiters_lock:
        for item in _limiters.values():
            item.reset()
