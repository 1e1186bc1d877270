"""
Guards in front of every LLM call: budgets, rate limits and a circuit breaker per endpoint.

- `Budget`: daily token budgets per tier (all NPCs together, and per NPC) and requests per
  minute per tier, from the tier settings (`daily_tokens`, `npc_daily_tokens`,
  `requests_per_minute`; None means unlimited), and each player's share of an NPC's daily
  tokens (`player_share`, PLAYER_SHARE_OF_NPC_BUDGET), so one player cannot talk an NPC's day
  away from everyone else. Days are UTC calendar days. Persistent (seeded from today's usage
  rows) and atomic (a call reserves before its request and settles after). A call over budget
  is refused before any HTTP request; callers fall back (conversation: a cheaper tier, then an
  in-character line; past a player's share, a line to that player alone) or skip and count
  (extraction, gossip, reflection, diary). Nothing queues.
- `RateLimiter`: at most N events per key per minute (turns per player, audit rows per
  speaker), process-wide by name (`limiter`).
- `CircuitBreaker`: after `failures` consecutive failures an endpoint is open (calls refused
  at once) for `cooldown` seconds, then half-open: one probe call goes through; success closes
  it, failure opens it again.

Thread-safe, no Django.
"""

from __future__ import annotations

import math
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass
from datetime import datetime, timezone


def utc_day(now: float | None = None) -> str:
    return datetime.fromtimestamp(time.time() if now is None else now, timezone.utc).strftime(
        "%Y-%m-%d"
    )


class OverBudget(Exception):
    """A reservation refused: the reason is the message."""


class OverPlayerShare(OverBudget):
    """Refused for this player only: their share of the NPC's day is spent, others may talk."""


@dataclass
class Reservation:
    """Tokens held for one call between `Budget.reserve` and `Budget.settle`."""

    day: str
    tier: str
    npc_id: int | None
    tokens: int
    speaker_id: int | None = None
    settled: bool = False

    def keys(self) -> list[tuple]:
        return _keys(self.day, self.tier, self.npc_id, self.speaker_id)


def _keys(day: str, tier: str, npc_id=None, speaker_id=None) -> list[tuple]:
    """The ledger's keys a call counts under: the tier, the NPC, the player with that NPC."""
    keys = [(day, tier)]
    if npc_id is not None:
        keys.append((day, tier, npc_id))
        if speaker_id is not None:
            keys.append((day, tier, npc_id, speaker_id))
    return keys


class Budget:
    """
    The daily token ledger of one process, kept persistent and checked atomically.

    Why an in-process ledger and not a row locked in the database: the LLM call runs in a worker
    thread, where the ORM is forbidden (runtime/runner's ORM guard: Evennia's idmapper and
    SQLite are not thread-safe), and the callers that defer it (conversation/turn.py and
    service.py) are not ours to change. So the ledger lives here, under one lock, and is

    - seeded from the database (`loader`: today's usage rows, on the reactor, by `sync`, which
      `get_client` runs whenever it hands the client out: a fresh process, or a second process
      running beside the server, counts what is already spent, at most `resync` seconds late);
    - flushed to the database by the usage rows the callers already write on the reactor
      (`record_usage`, in the same transaction as the call's effects);
    - checked atomically: `reserve` (before the HTTP request) holds the call's estimate (its
      prompt and `max_tokens`) under the lock, and refuses once settled spend plus what calls in
      flight hold has reached the budget, so of N concurrent calls with one token left exactly
      one goes; `settle` (after the call) replaces the estimate with the reported tokens.

    A token count below zero (a server reporting negative usage, a corrupt row) is rejected with
    ValueError: spend can only grow within a day. Merging a seed keeps the larger of the local
    and the recorded count, so seeding again never lowers spend nor counts a call twice.

    A call made for a player (`speaker_id`, with `npc_id`) also counts against that player's
    share of the NPC's `npc_daily_tokens` on the tier: `player_share` of it, rounded up (1.0 or
    more: no share; a tier without `npc_daily_tokens` has none). Past it that player's calls
    with the NPC are refused with OverPlayerShare while other players' still go.
    """

    def __init__(
        self, tiers, clock=time.time, loader=None, resync: float = 60.0, player_share: float = 1.0
    ):
        self.tiers = tiers
        self.clock = clock
        # loader(day) -> [(tier, npc_id or None, tokens)] and [(tier, npc_id, speaker_id,
        # tokens)] for players' shares; on the reactor only.
        self.loader = loader
        self.resync = resync
        self.player_share = player_share
        self._lock = threading.Lock()
        # (day, tier), (day, tier, npc) and (day, tier, npc, speaker): see `_keys`
        self._tokens: dict[tuple, int] = defaultdict(int)
        self._reserved: dict[tuple, int] = defaultdict(int)
        self._requests: dict[str, deque] = defaultdict(deque)
        self._synced: tuple[str, float] | None = None  # (day, clock) of the last load

    @staticmethod
    def _checked(tokens) -> int:
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
            raise ValueError(f"token count must be a whole number >= 0, not {tokens!r}")
        return tokens

    def seed(
        self,
        day: str,
        tier: str,
        tokens: int,
        npc_id: int | None = None,
        speaker_id: int | None = None,
    ) -> None:
        """Add usage already recorded (so a restart does not reset the bill)."""
        tokens = self._checked(tokens)
        with self._lock:
            self._tokens[_keys(day, tier, npc_id, speaker_id)[-1]] += tokens

    def merge(self, day: str, rows) -> None:
        """
        Take the recorded spend `rows` of `day`: (tier, npc_id or None, tokens) per tier (npc_id
        None) and per NPC, (tier, npc_id, speaker_id, tokens) per player with an NPC. Keeps the
        larger of it and the local count per key.
        """
        checked = [(row[:-1], self._checked(int(row[-1]))) for row in rows]
        with self._lock:
            for (tier, *ids), tokens in checked:
                key = _keys(day, tier, *ids)[-1]
                self._tokens[key] = max(self._tokens[key], tokens)
            self._synced = (day, self.clock())

    def sync(self, force: bool = False) -> bool:
        """
        Load today's recorded spend through `loader` if never done today, or `resync` seconds
        ago (or `force`). Call on the reactor only. True if it loaded.
        """
        if self.loader is None:
            return False
        now = self.clock()
        day = utc_day(now)
        synced = self._synced
        if not force and synced and synced[0] == day and now - synced[1] < self.resync:
            return False
        rows = self.loader(day)
        if rows is None:  # the loader may decline (called from a worker thread)
            return False
        self.merge(day, rows)
        return True

    def share_of(self, tier) -> int | None:
        """The tokens one player may spend with one NPC on `tier` in a day (None: no share)."""
        if tier.npc_daily_tokens is None or self.player_share >= 1:
            return None
        return math.ceil(tier.npc_daily_tokens * self.player_share)

    def _held(self, key: tuple) -> int:
        return self._tokens[key] + self._reserved[key]

    def _over(self, tier, tier_name: str, day: str, npc_id, speaker_id=None) -> OverBudget | None:
        if tier.daily_tokens is not None and self._held((day, tier_name)) >= tier.daily_tokens:
            return OverBudget(f"daily token budget of tier {tier_name} spent")
        if tier.npc_daily_tokens is None or npc_id is None:
            return None
        if self._held((day, tier_name, npc_id)) >= tier.npc_daily_tokens:
            return OverBudget(f"daily token budget of tier {tier_name} for this NPC spent")
        share = self.share_of(tier)
        if share is not None and speaker_id is not None:
            if self._held((day, tier_name, npc_id, speaker_id)) >= share:
                return OverPlayerShare(
                    f"this player's share of the NPC's daily tokens on tier {tier_name} spent"
                )
        return None

    def _rate(self, tier, tier_name: str, now: float) -> OverBudget | None:
        if tier.requests_per_minute is not None:
            window = self._requests[tier_name]
            while window and window[0] <= now - 60:
                window.popleft()
            if len(window) >= tier.requests_per_minute:
                return OverBudget(
                    f"tier {tier_name} is over {tier.requests_per_minute} requests/minute"
                )
        return None

    def reserve(
        self,
        tier_name: str,
        npc_id: int | None = None,
        estimate: int = 1,
        speaker_id: int | None = None,
    ) -> Reservation:
        """
        Hold `estimate` tokens (at least 1) for a call about to be made, or raise OverBudget
        (OverPlayerShare: this player's share of the NPC is spent). Check and hold happen
        under one lock: no two callers can both take the last token.
        """
        estimate = max(1, self._checked(estimate))
        now = self.clock()
        day = utc_day(now)
        reservation = Reservation(day, tier_name, npc_id, estimate, speaker_id=speaker_id)
        tier = self.tiers.get(tier_name)
        if tier is None:
            return reservation
        with self._lock:
            refused = self._over(tier, tier_name, day, npc_id, speaker_id) or self._rate(
                tier, tier_name, now
            )
            if refused:
                raise refused
            if tier.requests_per_minute is not None:
                self._requests[tier_name].append(now)
            for key in reservation.keys():
                self._reserved[key] += estimate
        return reservation

    def settle(self, reservation: Reservation, tokens: int) -> None:
        """Release the reservation and count the `tokens` the call really used (>= 0)."""
        tokens = self._checked(tokens)
        with self._lock:
            if reservation.settled:
                raise ValueError("reservation already settled")
            reservation.settled = True
            for key in reservation.keys():
                self._reserved[key] = max(0, self._reserved[key] - reservation.tokens)
                self._tokens[key] += tokens

    def refusal(self, tier_name: str, npc_id: int | None = None) -> str | None:
        """
        Why a call would be over budget now, or None (the request is then counted against the
        rate limit). A check only, holding no tokens: calls go through `reserve`/`settle`.
        """
        tier = self.tiers.get(tier_name)
        if tier is None:
            return None
        now = self.clock()
        day = utc_day(now)
        with self._lock:
            refused = self._over(tier, tier_name, day, npc_id) or self._rate(tier, tier_name, now)
            if refused is None and tier.requests_per_minute is not None:
                self._requests[tier_name].append(now)
            return str(refused) if refused else None

    def share_spent(self, tier_name: str, npc_id: int, speaker_id: int) -> bool:
        """Has this player spent their share of the NPC's day on the tier? A check only."""
        tier = self.tiers.get(tier_name)
        share = self.share_of(tier) if tier is not None else None
        if share is None:
            return False
        with self._lock:
            return self._held((utc_day(self.clock()), tier_name, npc_id, speaker_id)) >= share

    def record(
        self,
        tier_name: str,
        tokens: int,
        npc_id: int | None = None,
        speaker_id: int | None = None,
    ) -> None:
        """Count `tokens` spent outside a reservation (>= 0)."""
        tokens = self._checked(tokens)
        day = utc_day(self.clock())
        with self._lock:
            for key in _keys(day, tier_name, npc_id, speaker_id):
                self._tokens[key] += tokens

    def spent(
        self, tier_name: str, npc_id: int | None = None, speaker_id: int | None = None
    ) -> int:
        day = utc_day(self.clock())
        with self._lock:
            return self._tokens[_keys(day, tier_name, npc_id, speaker_id)[-1]]

    def reserved(
        self, tier_name: str, npc_id: int | None = None, speaker_id: int | None = None
    ) -> int:
        day = utc_day(self.clock())
        with self._lock:
            return self._reserved[_keys(day, tier_name, npc_id, speaker_id)[-1]]


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
