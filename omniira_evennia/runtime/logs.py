"""
One logging path. Every module logs with the standard library (`logging.getLogger(__name__)`,
all under "omniira_evennia"), plain modules included; `route_to_evennia` (called from
`apps.ready`) hands those records to Evennia's own log, so a stock server's log file shows the
contrib's INFO diagnostics with no LOGGING setting. A game that configures the
"omniira_evennia" logger itself (settings.LOGGING) keeps its own level and handlers.
"""

from __future__ import annotations

import logging

ROOT = "omniira_evennia"


class EvenniaLogHandler(logging.Handler):
    """Forwards log records to `evennia.utils.logger` (the server log and its rotation)."""

    def emit(self, record: logging.LogRecord) -> None:
        from evennia.utils import logger  # lazy: Evennia's logger needs a configured game

        try:
            message = self.format(record)
        except Exception:  # a bad format string must not take the caller down
            self.handleError(record)
            return
        if record.levelno >= logging.ERROR:
            logger.log_err(message)
        elif record.levelno >= logging.WARNING:
            logger.log_warn(message)
        else:
            logger.log_info(message)


def route_to_evennia(level: int = logging.INFO) -> logging.Logger:
    """Attach the handler to the "omniira_evennia" logger once (idempotent)."""
    log = logging.getLogger(ROOT)
    if not any(isinstance(h, EvenniaLogHandler) for h in log.handlers) and not log.handlers:
        handler = EvenniaLogHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
        log.propagate = False  # Evennia's log is where these go; no duplicate on stderr
    if log.level == logging.NOTSET:
        log.setLevel(level)
    return log
