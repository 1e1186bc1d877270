"""
numpy's BLAS on as many threads as the game wants (setting BLAS_THREADS, default 1).

The retrieval scorer multiplies one NPC's memory matrix by the query vector: a matrix-vector
product bound by memory bandwidth, which a second BLAS thread does not speed up. OpenBLAS
still starts a thread per core and keeps them spinning after each product; on a small game
server those threads take the cores that the reactor, the embedder and the other workers need
(bench/retrieval_eval.py at 10k memories on two busy cores: fused scorer p95 22 ms with
numpy's default, under 1 ms with one thread). threadpoolctl sets the limit in the BLAS
library numpy loaded, whichever it is, at run time: an environment variable would have to be
set before numpy is first imported, which a contrib cannot promise.
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

_limiter = None  # kept: threadpoolctl's limit holds while its object lives


def limit_blas_threads(threads: int) -> list[dict]:
    """Limit numpy's BLAS to `threads` threads (0: leave the library's default).

    Returns threadpoolctl's description of the BLAS libraries found (empty when none)."""
    global _limiter
    if threads <= 0:
        return []
    import numpy  # noqa: F401  (loads numpy's BLAS so that threadpoolctl can find it)
    from threadpoolctl import threadpool_info, threadpool_limits

    _limiter = threadpool_limits(limits=threads, user_api="blas")
    libraries = [info for info in threadpool_info() if info.get("user_api") == "blas"]
    log.debug("omniira: BLAS limited to %d thread(s): %s", threads, libraries)
    return libraries
