"""Django settings for the test suite: Evennia's defaults, the game template as game dir."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)
_cwd = os.getcwd()
from evennia.settings_default import *  # noqa: E402,F401,F403

# evennia.settings_default walks up the directory tree looking for a game dir; undo that.
os.chdir(_cwd)

# The game folder: the installed Evennia's template with the demo's files over it (as
# `make demo` makes it), one per Evennia version, refreshed at every run.
import evennia  # noqa: E402

if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)
from tools.game_overlay import suite_game  # noqa: E402

_EVENNIA = evennia.__version__.split()[0] if hasattr(evennia, "__version__") else "x"
GAME_DIR = str(suite_game(os.path.join(_ROOT, ".cache", f"test-game-evennia-{_EVENNIA}")))
if GAME_DIR not in sys.path:
    sys.path.insert(0, GAME_DIR)
LOG_DIR = os.path.join(_ROOT, ".cache", "test-logs")
os.makedirs(LOG_DIR, exist_ok=True)
SERVER_LOG_FILE = os.path.join(LOG_DIR, "server.log")
PORTAL_LOG_FILE = os.path.join(LOG_DIR, "portal.log")
HTTP_LOG_FILE = os.path.join(LOG_DIR, "http_requests.log")
LOCKWARNING_LOG_FILE = os.path.join(LOG_DIR, "lockwarnings.log")
CACHE_DIR = os.path.join(_ROOT, ".cache", "test-cache")

INSTALLED_APPS = INSTALLED_APPS + ["omniira_evennia"]  # noqa: F405

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.path.join(_ROOT, ".cache", "test.db3"),
        "TEST": {"NAME": None},  # in-memory test database
    }
}
# OMNIIRA_TEST_DB=postgres runs the same suite against PostgreSQL 18 + pgvector, on a server
# started for this test run (tests/pg_server.py) and stopped when it ends.
if os.environ.get("OMNIIRA_TEST_DB", "sqlite") == "postgres":
    from tests.pg_server import PgServer

    DATABASES = {"default": PgServer().start().database_settings()}

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
SECRET_KEY = "omniira-tests-not-secret"
TEST_ENVIRONMENT = True

OMNIIRA = {
    # Tests point tiers at a scripted server themselves; nothing is configured by default.
    "THINKING_DELAY": 0,
}
