"""
The background LLM job runner, one shape for the conversation-end review, gossip, reflection
and the diary:

1. gather on the reactor (the caller, having claimed the work, builds plain inputs);
2. `work` runs in the background pool: LLM calls and embeddings, no database;
3. `apply` runs back on the reactor, in one transaction with the calls' usage rows, and
   returns how many rows it wrote (tried again, without blocking, if SQLite is locked);
4. on any failure (in the worker or in `apply`), `on_failure` runs on the reactor, the failure
   is logged and counted as `<kind>_failures`, and the job's Deferred fires with 0: one job
   failing never stops the others.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable

from django.db import transaction

from omniira_evennia.llm.usage import record_usage
from omniira_evennia.runtime import health
from omniira_evennia.runtime.retry import retry_if_locked
from omniira_evennia.runtime.runner import defer_background

log = logging.getLogger(__name__)


def _nothing() -> None:
    return None


@dataclass
class Job:
    """
    One background LLM job.

    Args:
        kind: "extraction", "gossip", "reflection", "diary": names logs and health counters.
        label: who or what it is for, in log lines ("Maren, day 3").
        work: called in the background pool; returns a result with a `usages` list.
        apply: called on the reactor inside a transaction with the result; returns rows written.
        npc: the NPC the calls' usage is booked to.
        on_failure: called on the reactor after any failure (mark the claim failed).
        failed_result: what the job's Deferred fires with after a failure.
    """

    kind: str
    label: str
    work: Callable[[], Any]
    apply: Callable[[Any], int]
    npc: Any = None
    on_failure: Callable[[], None] = _nothing
    failed_result: Any = 0


def run_job(job: Job):
    """Run `job` (see the module doc). Returns a Deferred firing with the rows written."""

    def _apply(result):
        with transaction.atomic():
            for usage in getattr(result, "usages", ()) or ():
                record_usage(usage, npc=job.npc)
            return job.apply(result)

    def _failed(failure):
        log.error(f"omniira: {job.kind} for {job.label} failed: {failure.getErrorMessage()}")
        try:
            job.on_failure()
        except Exception:  # e.g. the database is locked; claims are reset at the next start
            log.exception(f"omniira: could not mark the failed {job.kind}")
        health.incr(f"{job.kind}_failures")
        return job.failed_result

    deferred = defer_background(job.work)
    deferred.addCallback(lambda result: retry_if_locked(_apply, result))
    return deferred.addErrback(_failed)
