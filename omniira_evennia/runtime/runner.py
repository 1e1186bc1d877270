"""
Running slow work off the reactor thread, in two pools.

- `interactive` (INTERACTIVE_THREADS): what a player is waiting for: a conversation turn, a
  builder's `@memory` command that embeds text.
- `background` (BACKGROUND_THREADS): everything else: conversation-end reviews, gossip, the
  nightly reflections and diaries, warm-up, matrix pre-reads, re-embedding.

So a 500-NPC rollover or a gossip round never queues in front of a player's turn. Both are
private pools: Twisted's shared pool stays Evennia's. Deferreds fire back on the reactor
thread, where ORM writes are safe.

Worker threads must not touch the ORM (Evennia's idmapper cache and SQLite are not
thread-safe); the one sanctioned read is a memory matrix, wrapped in `orm_allowed()`.
`install_orm_guard` turns every other query from a worker into an error ("raise", the test
suite), a logged warning ("log", the default) or nothing ("off") (setting WORKER_ORM_GUARD).

`run_inline(True)` makes both pools call the function at once on the calling thread (unit and
command tests: Evennia's test case runs no reactor); the call still counts as being in a
worker, so the guard applies there too.
"""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager

from twisted.internet import defer, reactor
from twisted.internet.threads import deferToThreadPool
from twisted.python.threadpool import ThreadPool

from omniira_evennia.conf import get_settings
from omniira_evennia.runtime import health

log = logging.getLogger(__name__)

INTERACTIVE = "interactive"
BACKGROUND = "background"

_pools: dict[str, ThreadPool] = {}
_lock = threading.Lock()
_inline = False
_local = threading.local()


class WorkerOrmAccess(RuntimeError):
    """A worker thread queried the database (only the reactor thread may)."""


def run_inline(enabled: bool = True) -> None:
    global _inline
    _inline = enabled


def inline() -> bool:
    """True when work runs on the calling thread (tests: no reactor)."""
    return _inline


def in_worker() -> bool:
    """True inside a function run by `defer_interactive` / `defer_background`."""
    return getattr(_local, "depth", 0) > 0 and not getattr(_local, "orm_allowed", False)


@contextmanager
def orm_allowed():
    """Mark the one sanctioned ORM read in a worker (a memory matrix, its own connection)."""
    before = getattr(_local, "orm_allowed", False)
    _local.orm_allowed = True
    try:
        yield
    finally:
        _local.orm_allowed = before


def _as_worker(func, *args, **kwargs):
    _local.depth = getattr(_local, "depth", 0) + 1
    try:
        return func(*args, **kwargs)
    finally:
        _local.depth -= 1


def _pool(kind: str) -> ThreadPool:
    with _lock:
        pool = _pools.get(kind)
        if pool is None:

            conf = get_settings()
            threads = conf.interactive_threads if kind == INTERACTIVE else conf.BACKGROUND_THREADS
            pool = ThreadPool(minthreads=1, maxthreads=threads, name=f"omniira-{kind}")
            pool.start()
            reactor.addSystemEventTrigger("during", "shutdown", pool.stop)
            _pools[kind] = pool
        return pool


def _defer(kind: str, func, *args, **kwargs) -> defer.Deferred:
    if _inline:
        return defer.maybeDeferred(_as_worker, func, *args, **kwargs)
    return deferToThreadPool(reactor, _pool(kind), _as_worker, func, *args, **kwargs)


def defer_interactive(func, *args, **kwargs) -> defer.Deferred:
    """Run `func` in the interactive pool (a player waits); the Deferred fires on the reactor."""
    return _defer(INTERACTIVE, func, *args, **kwargs)


def defer_background(func, *args, **kwargs) -> defer.Deferred:
    """Run `func` in the background pool; the Deferred fires on the reactor."""
    return _defer(BACKGROUND, func, *args, **kwargs)


def after_the_next_poll(func, *args, **kwargs) -> defer.Deferred:
    """
    Call `func` on the reactor once it has polled its sockets again, so what was written to a
    transport before (a line said in the room) has left for the players. `callLater(0)` alone
    does not wait for that: scheduled from a worker's result or a timed call, it runs in the
    same pass of `runUntilCurrent`, before the poll. A call scheduled from inside that pass
    waits for the next one.
    """
    done = defer.Deferred()

    def call() -> None:
        defer.maybeDeferred(func, *args, **kwargs).chainDeferred(done)

    reactor.callLater(0, reactor.callLater, 0, call)
    return done


def pool_sizes() -> dict[str, int]:
    """Threads of each started pool (for health and tests)."""
    return {kind: pool.max for kind, pool in _pools.items()}


# ---------------------------------------------------------------- the ORM guard


_guard_mode = "off"


def _guard(execute, sql, params, many, context):
    if _guard_mode != "off" and in_worker():
        message = f"ORM access from an omniira worker thread: {sql[:120]}"
        if _guard_mode == "raise":
            raise WorkerOrmAccess(message)

        health.incr("worker_orm_access")

        log.warning(f"omniira: {message}")
    return execute(sql, params, many, context)


def _attach(connection) -> None:
    if _guard not in connection.execute_wrappers:
        connection.execute_wrappers.append(_guard)


def install_orm_guard(mode: str) -> None:
    """Check every database query for the worker rule (see module doc), in `mode`."""
    global _guard_mode
    _guard_mode = mode
    from django.db import connections
    from django.db.backends.signals import connection_created

    for connection in connections.all(initialized_only=True):
        _attach(connection)
    connection_created.connect(_on_connection, dispatch_uid="omniira_orm_guard")


def _on_connection(sender, connection, **kwargs):
    _attach(connection)
