"""
The game's private files (issue #26, point 12): the SQLite database (sessions, password hashes,
NPC memories) and the server logs (what players said, account names) readable by their owner
only. `evennia migrate` creates the database with the shell's umask (usually 0644) and SQLite
gives its -wal/-shm/-journal files the database's mode, so `at_server_start` tightens them:

    make_private(**settings_paths(settings))

Plain: it takes paths (`settings_paths` reads them from any object with Django's and Evennia's
setting names) and imports no Django, Evennia or Twisted. It never raises: a file it may not
change (a read-only filesystem, someone else's file) is logged and skipped.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

log = logging.getLogger(__name__)

FILE_MODE = 0o600
DIR_MODE = 0o700
SQLITE_SIBLINGS = ("-wal", "-shm", "-journal")
LOG_FILE_SETTINGS = ("SERVER_LOG_FILE", "PORTAL_LOG_FILE", "HTTP_LOG_FILE", "LOCKWARNING_LOG_FILE")
SHOWN = 12  # paths named in the log line; the rest are counted


@dataclass
class Outcome:
    changed: list[str] = field(default_factory=list)  # "path (0644 -> 0600)"
    skipped: list[str] = field(default_factory=list)  # "path (reason)"


def settings_paths(settings) -> dict:
    """
    make_private's arguments from `settings` (Django's, or any object with its names): the
    SQLite database file (None for another engine or an in-memory database), LOG_DIR and the
    Evennia log files. Missing or odd settings give None or nothing, never an error.
    """
    try:
        database = settings.DATABASES["default"]
        name = str(database.get("NAME") or "")
        sqlite = "sqlite" in str(database.get("ENGINE", ""))
    except (AttributeError, KeyError, TypeError):
        name, sqlite = "", False
    in_memory = name in ("", ":memory:") or name.startswith("file:")  # URIs: the test database
    log_files = [getattr(settings, key, None) for key in LOG_FILE_SETTINGS]
    return {
        "database": name if sqlite and not in_memory else None,
        "log_dir": getattr(settings, "LOG_DIR", None),
        "log_files": [path for path in log_files if path],
    }


def make_private(
    database: str | Path | None = None,
    log_dir: str | Path | None = None,
    log_files: Iterable[str | Path] = (),
) -> Outcome:
    """
    Make the SQLite `database` and its -wal/-shm/-journal files 0600, `log_dir` 0700 and its
    files 0600, and each of `log_files` (and its rotations, `server.log.2026_05_01`) 0600
    where it lies outside `log_dir` (its folder may be shared: left as it is). Missing paths
    are fine. Logs once what it changed and once what it could not; never raises.
    """
    outcome = Outcome()
    try:
        targets = _targets(database, log_dir, log_files)
        for path, mode in targets.items():
            _tighten(path, mode, outcome)
    except Exception as err:  # start-up must go on whatever the filesystem does
        outcome.skipped.append(f"(stopped early: {err!r})")
    _report(outcome)
    return outcome


def _targets(database, log_dir, log_files) -> dict[Path, int]:
    """Each path to tighten and its mode, in a stable order, each once."""
    targets: dict[Path, int] = {}
    if database:
        base = Path(database)
        for suffix in ("", *SQLITE_SIBLINGS):
            targets[base.with_name(base.name + suffix)] = FILE_MODE
    folder = Path(log_dir).resolve() if log_dir else None
    if folder:
        targets[folder] = DIR_MODE
        targets.update((entry, FILE_MODE) for entry in _plain_files(folder))
    for name in log_files:
        path = Path(name)
        if folder and path.resolve().parent == folder:
            continue  # already covered, with its rotations, by the folder
        targets.update((entry, FILE_MODE) for entry in _log_family(path))
    return targets


def _plain_files(folder: Path) -> list[Path]:
    """The regular files in `folder`, not following links (a link may point anywhere)."""
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []  # missing or unreadable: _tighten reports the folder itself
    return [entry for entry in entries if _is_plain_file(entry)]


def _log_family(path: Path) -> list[Path]:
    """A log file and its rotations (same folder, its name followed by a dot)."""
    try:
        siblings = sorted(path.parent.iterdir())
    except OSError:
        return [path]
    rotated = [entry for entry in siblings if entry.name.startswith(path.name + ".")]
    return [path] + [entry for entry in rotated if _is_plain_file(entry)]


def _is_plain_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _tighten(path: Path, mode: int, outcome: Outcome) -> None:
    """chmod `path` to `mode` if it exists and differs; failures go to outcome.skipped."""
    try:
        current = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return
    except OSError as err:
        outcome.skipped.append(f"{path} ({_reason(err)})")
        return
    if current == mode:
        return
    try:
        os.chmod(path, mode)
    except FileNotFoundError:
        return  # removed meanwhile (a -journal file after its transaction)
    except OSError as err:
        outcome.skipped.append(f"{path} ({_reason(err)})")
        return
    outcome.changed.append(f"{path} ({current:04o} -> {mode:04o})")


def _reason(err: OSError) -> str:
    if err.errno == errno.EROFS:
        return "read-only filesystem"
    if err.errno == errno.EPERM:
        return "owned by another user"
    return err.strerror or type(err).__name__


def _report(outcome: Outcome) -> None:
    if outcome.changed:
        log.info(
            "omniira: made game files readable by their owner only (the database and logs "
            f"hold sessions, password hashes and memories): {_listed(outcome.changed)}"
        )
    if outcome.skipped:
        log.warning(
            "omniira: could not make these game files readable by their owner only (other "
            f"users of this machine may read them): {_listed(outcome.skipped)}"
        )


def _listed(items: list[str]) -> str:
    more = len(items) - SHOWN
    return ", ".join(items[:SHOWN]) + (f" and {more} more" if more > 0 else "")
