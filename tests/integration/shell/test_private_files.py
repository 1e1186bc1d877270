"""
`at_server_start` makes the game's database and logs private (issue #26, point 12) with paths
read from the game's settings: the suite's settings here, and a stock game's (Evennia's
defaults). The chmod itself is tests/unit/runtime/test_files.py's.
"""

import os
from pathlib import Path
from unittest import mock

import evennia.settings_default as stock
import pytest
from django.conf import settings

from omniira_evennia import lifecycle
from omniira_evennia.runtime import files

ROOT = Path(__file__).resolve().parents[3]


class Stopped(Exception):
    """Raised by the mocked make_private: the rest of at_server_start is other tests' work."""


def sqlite_file(database: dict) -> str | None:
    name = str(database["NAME"])
    on_disk = "sqlite" in database["ENGINE"] and not name.startswith(("file:", ":memory:"))
    return name if on_disk else None


def test_at_server_start_makes_the_suite_games_database_and_logs_private():
    with (
        mock.patch.object(files, "make_private", side_effect=Stopped) as make_private,
        pytest.raises(Stopped),
    ):
        lifecycle.at_server_start()
    kwargs = make_private.call_args.kwargs
    assert Path(kwargs["log_dir"]) == ROOT / ".cache" / "test-logs"
    assert [Path(path).name for path in kwargs["log_files"]] == [
        "server.log",
        "portal.log",
        "http_requests.log",
        "lockwarnings.log",
    ]
    # tests/settings.py's .cache/test.db3, or None once pytest-django has swapped in its
    # in-memory test database (or on PostgreSQL): nothing on disk to protect then.
    database = sqlite_file(settings.DATABASES["default"])
    assert kwargs["database"] == database
    if database:
        assert Path(database) == ROOT / ".cache" / "test.db3"


def test_a_stock_games_paths_are_its_server_folders():
    paths = files.settings_paths(stock)
    server = Path(stock.GAME_DIR) / "server"
    if not os.environ.get("TEST_DB_PATH"):
        assert Path(paths["database"]) == server / "evennia.db3"
    assert Path(paths["log_dir"]) == server / "logs"
    assert {Path(path).parent for path in paths["log_files"]} == {server / "logs"}
    assert len(paths["log_files"]) == 4
