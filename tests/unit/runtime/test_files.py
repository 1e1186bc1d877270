"""The database and logs are made readable by their owner only (issue #26, point 12)."""

import errno
import logging
import os
import stat
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

from omniira_evennia.runtime import files


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def world_readable(path: Path, text: str = "x") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.chmod(path, 0o644)
    return path


def a_game(tmp_path: Path) -> SimpleNamespace:
    """A game folder as `evennia migrate` and a few starts leave it: everything 0644/0755."""
    server = tmp_path / "server"
    logs = server / "logs"
    game = SimpleNamespace(
        database=world_readable(server / "evennia.db3"),
        wal=world_readable(server / "evennia.db3-wal"),
        shm=world_readable(server / "evennia.db3-shm"),
        logs=logs,
        server_log=world_readable(logs / "server.log"),
        rotated=world_readable(logs / "server.log.2026_05_01"),
        portal_log=world_readable(logs / "portal.log"),
        elsewhere=world_readable(tmp_path / "outside.txt"),
    )
    os.chmod(logs, 0o755)
    (logs / "link.log").symlink_to(game.elsewhere)  # a link is not followed
    return game


def test_database_and_logs_become_owner_only(tmp_path, caplog):
    game = a_game(tmp_path)
    with caplog.at_level(logging.INFO, logger="omniira_evennia.runtime.files"):
        outcome = files.make_private(game.database, game.logs, [game.server_log])
    for path in (game.database, game.wal, game.shm, game.server_log, game.rotated):
        assert mode(path) == 0o600, path
    assert mode(game.portal_log) == 0o600
    assert mode(game.logs) == 0o700
    assert mode(game.elsewhere) == 0o644  # reached only through a link in the folder
    assert len(outcome.changed) == 7 and not outcome.skipped
    [record] = caplog.records  # one line for everything
    assert record.levelno == logging.INFO
    assert f"{game.database} (0644 -> 0600)" in record.getMessage()
    assert f"{game.logs} (0755 -> 0700)" in record.getMessage()


def test_a_second_start_changes_and_logs_nothing(tmp_path, caplog):
    game = a_game(tmp_path)
    files.make_private(game.database, game.logs)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="omniira_evennia.runtime.files"):
        outcome = files.make_private(game.database, game.logs)
    assert outcome == files.Outcome() and not caplog.records


def test_missing_files_and_folders_are_fine(tmp_path, caplog):
    with caplog.at_level(logging.INFO, logger="omniira_evennia.runtime.files"):
        outcome = files.make_private(
            tmp_path / "no.db3", tmp_path / "no-logs", [tmp_path / "gone" / "server.log"]
        )
    assert outcome == files.Outcome() and not caplog.records
    assert files.make_private() == files.Outcome()


def test_a_log_file_outside_the_log_folder_is_tightened_not_its_folder(tmp_path):
    shared = tmp_path / "var-log"
    log_file = world_readable(shared / "game.log")
    rotated = world_readable(shared / "game.log.2026_05_01")
    other = world_readable(shared / "syslog")
    os.chmod(shared, 0o755)
    files.make_private(log_dir=tmp_path / "logs", log_files=[log_file])
    assert (mode(log_file), mode(rotated)) == (0o600, 0o600)
    assert (mode(other), mode(shared)) == (0o644, 0o755)  # the folder may be shared


def test_a_file_it_may_not_change_is_logged_and_skipped(tmp_path, caplog):
    game = a_game(tmp_path)
    real_chmod = os.chmod

    def chmod(path, new_mode, *args, **kwargs):
        if Path(path) == game.database:
            raise PermissionError(errno.EPERM, "Operation not permitted")
        if Path(path) == game.server_log:
            raise OSError(errno.EROFS, "Read-only file system")
        return real_chmod(path, new_mode, *args, **kwargs)

    with (
        mock.patch.object(files.os, "chmod", chmod),
        caplog.at_level(logging.INFO, logger="omniira_evennia.runtime.files"),
    ):
        outcome = files.make_private(game.database, game.logs)
    assert outcome.skipped == [
        f"{game.database} (owned by another user)",
        f"{game.server_log} (read-only filesystem)",
    ]
    assert mode(game.wal) == 0o600 and mode(game.logs) == 0o700  # the others were done
    warning = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warning) == 1 and "owned by another user" in warning[0].getMessage()


def test_nothing_unexpected_escapes(tmp_path):
    with mock.patch.object(files, "_targets", side_effect=RuntimeError("odd")):
        outcome = files.make_private(tmp_path / "evennia.db3")
    assert outcome.skipped == ["(stopped early: RuntimeError('odd'))"]


def test_paths_from_settings():
    sqlite = SimpleNamespace(
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": "/g/evennia.db3"}},
        LOG_DIR="/g/logs",
        SERVER_LOG_FILE="/g/logs/server.log",
        PORTAL_LOG_FILE="/g/logs/portal.log",
    )
    assert files.settings_paths(sqlite) == {
        "database": "/g/evennia.db3",
        "log_dir": "/g/logs",
        "log_files": ["/g/logs/server.log", "/g/logs/portal.log"],
    }
    postgres = {"ENGINE": "django.db.backends.postgresql", "NAME": "game"}
    assert (
        files.settings_paths(SimpleNamespace(DATABASES={"default": postgres}))["database"] is None
    )
    for name in (":memory:", "file:memorydb_default?mode=memory&cache=shared", ""):
        memory = {"ENGINE": "django.db.backends.sqlite3", "NAME": name}
        assert (
            files.settings_paths(SimpleNamespace(DATABASES={"default": memory}))["database"] is None
        )
    assert files.settings_paths(object()) == {"database": None, "log_dir": None, "log_files": []}
