"""
Writing again when SQLite says "database is locked" (another process, e.g. `evennia shell`,
holding the write lock), without blocking the reactor: the next attempt is scheduled with
`callLater` (0.1 s, then 0.2 s), and other players are served meanwhile.
"""

from __future__ import annotations

import logging

from django.db import OperationalError
from twisted.internet import defer, reactor, task

from omniira_evennia.runtime import health, runner

log = logging.getLogger("omniira_evennia")


def retry_if_locked(func, *args, attempts: int = 3, **kwargs) -> defer.Deferred:
    """Call `func` now; if the database is locked, again later. A Deferred of its result."""

    def attempt(number: int):
        try:
            return defer.succeed(func(*args, **kwargs))
        except OperationalError as err:
            if "locked" not in str(err).lower() or number == attempts:
                return defer.fail()
            health.incr("db_locked_retries")
            log.warning("database locked, retrying (%d/%d)", number, attempts)
            if runner.inline():  # tests run no reactor: try again at once
                return attempt(number + 1)
            return task.deferLater(reactor, 0.1 * number, attempt, number + 1)

    return attempt(1)
