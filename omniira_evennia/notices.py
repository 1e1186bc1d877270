"""
A line to staff when they log in, and one in the server log at start, when the LLM
configuration cannot work: a tier with no endpoint
(omniira.W001), an endpoint that does not answer (omniira.W002), or any other settings problem
the system checks report. The text is the checks' own, so it names the OMNIIRA_* variables the
server process sees: staff who never read the console of `evennia start` still learn why NPCs
only say their fallback lines, and what to set.

Connected from apps.py to Evennia's SIGNAL_ACCOUNT_POST_LOGIN; staff are accounts passing
`perm(Builder)` (Builder, Admin, Developer, superusers). The settings check is pure and runs on
the reactor; the endpoint probe (one HTTP GET per endpoint, 2 s timeout) runs in the background
pool, and its result is kept for PROBE_SECONDS, so logins never wait and a burst of staff
logins makes one probe.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from twisted.internet import defer
from twisted.python.failure import Failure

from omniira_evennia import checks
from omniira_evennia.runtime import runner

log = logging.getLogger(__name__)

STAFF_LOCK = "perm(Builder)"
PROBE_SECONDS = 60.0

_probed: dict[tuple[str, ...], tuple[float, list]] = {}  # endpoints -> (when, problems)
_probing: dict[tuple[str, ...], defer.Deferred] = {}


def connect() -> None:
    """Send staff the notice at login (called once, from the app's ready())."""
    from evennia.server.signals import SIGNAL_ACCOUNT_POST_LOGIN

    SIGNAL_ACCOUNT_POST_LOGIN.connect(on_login, weak=False, dispatch_uid="omniira_staff_notice")


def reset() -> None:
    """Forget probe results (tests, or after changing the endpoints in a running server)."""
    _probed.clear()
    _probing.clear()


def is_staff(account) -> bool:
    try:
        return bool(account.locks.check_lockstring(account, STAFF_LOCK))
    except Exception:  # an account without locks is nobody's staff
        return False


def format_notice(message) -> str:
    text = f"|y[omniira]|n {message.id}: {message.msg}"
    if message.hint:
        text += f"\n  |wFix:|n {message.hint}"
    return text


def on_login(sender, session=None, **kwargs):
    """SIGNAL_ACCOUNT_POST_LOGIN: tell staff what is wrong with the LLM configuration."""
    account = sender
    if not is_staff(account):
        return None
    conf, found = checks.settings_problems(getattr(settings, "OMNIIRA", None))
    for message in found:
        _tell(account, session, message)
    if conf is None:
        return None
    deferred = endpoint_problems_later(conf)
    deferred.addCallback(lambda problems: [_tell(account, session, m) for m in problems or []])
    deferred.addErrback(lambda failure: log.warning("omniira: endpoint probe failed: %s", failure))
    return deferred


def report_at_start() -> defer.Deferred | None:
    """
    Log the same problems at server start (call from `at_server_start`): `evennia start` and
    `evennia reboot` do not run the system checks, only `evennia migrate` does. The endpoint
    probe's result is kept for the first staff logins.
    """
    conf, found = checks.settings_problems(getattr(settings, "OMNIIRA", None))
    for message in found:
        _log(message)
    if conf is None or getattr(settings, "TEST_ENVIRONMENT", False):  # as the checks: no probe
        return None
    deferred = endpoint_problems_later(conf)
    deferred.addCallback(lambda problems: [_log(m) for m in problems or []])
    deferred.addErrback(lambda failure: log.warning("omniira: endpoint probe failed: %s", failure))
    return deferred


def endpoint_problems_later(conf) -> defer.Deferred:
    """checks.endpoint_problems(conf), probed in the background pool and kept a while."""
    key = tuple(sorted({t.base_url.rstrip("/") for t in conf.TIERS.values() if t.configured}))
    if not key:
        return defer.succeed([])
    known = _probed.get(key)
    if known and time.monotonic() - known[0] < PROBE_SECONDS:
        return defer.succeed(known[1])
    shared = _probing.get(key)
    if shared is None:
        shared = runner.defer_background(checks.endpoint_problems, conf)

        def _keep(problems):
            _probed[key] = (time.monotonic(), problems)
            _probing.pop(key, None)
            return problems

        def _forget(failure):
            _probing.pop(key, None)
            return failure

        shared.addCallbacks(_keep, _forget)
        _probing[key] = shared
    mine = defer.Deferred()

    def _hand_on(result):
        if isinstance(result, Failure):
            mine.errback(result)
            return None  # handled here; later waiters see no problems rather than an error
        mine.callback(result)
        return result

    shared.addBoth(_hand_on)
    return mine


def _log(message) -> None:
    hint = f" Fix: {message.hint}" if message.hint else ""
    log.warning(f"omniira: {message.id}: {message.msg}{hint}")


def _tell(account, session, message) -> None:
    if session is not None and session not in account.sessions.all():
        return  # logged out before the probe answered
    account.msg(format_notice(message), session=session)
