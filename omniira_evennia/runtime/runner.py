"""
Running slow work off the reactor thread.

LLM calls and embeddings go to a dedicated thread pool (setting WORKER_THREADS) so they neither
block the reactor nor starve Twisted's shared pool, which Evennia uses for its own work. The
returned Deferred fires back on the reactor thread, where ORM writes are safe.

`run_inline(True)` makes `defer_to_worker` call the function at once on the calling thread.
Unit and command tests use it because Evennia's test case runs no reactor; the same code runs,
only the thread hop is skipped. The end-to-end tests run the real pool in a real server.
"""

from __future__ import annotations

import threading

from twisted.internet import defer, reactor
from twisted.internet.threads import deferToThreadPool
from twisted.python.threadpool import ThreadPool

_pool: ThreadPool | None = None
_lock = threading.Lock()
_inline = False


def run_inline(enabled: bool = True) -> None:
    global _inline
    _inline = enabled


def _get_pool() -> ThreadPool:
    global _pool
    with _lock:
        if _pool is None:
            from omniira_evennia.conf import get_settings

            threads = get_settings().WORKER_THREADS
            _pool = ThreadPool(minthreads=1, maxthreads=threads, name="omniira")
            _pool.start()
            reactor.addSystemEventTrigger("during", "shutdown", _pool.stop)
        return _pool


def defer_to_worker(func, *args, **kwargs) -> defer.Deferred:
    """Run `func(*args, **kwargs)` in the worker pool; the Deferred fires on the reactor."""
    if _inline:
        return defer.maybeDeferred(func, *args, **kwargs)
    return deferToThreadPool(reactor, _get_pool(), func, *args, **kwargs)
