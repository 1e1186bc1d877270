"""
Django settings for a headless testbed run: Evennia's defaults, this contrib, a throwaway
SQLite database (path from OMNIIRA_TESTBED_DB) and Evennia's own typeclasses, so no game
directory is needed. LLM tiers come from the OMNIIRA_* environment variables (see conf.py).
"""

import os
import tempfile

_cwd = os.getcwd()
from evennia.settings_default import *  # noqa: E402,F401,F403

# evennia.settings_default walks up the directory tree looking for a game dir; undo that.
os.chdir(_cwd)

_TMP = os.environ.get("OMNIIRA_TESTBED_DIR") or tempfile.mkdtemp(prefix="omniira-testbed-")
GAME_DIR = _TMP
LOG_DIR = _TMP
SERVER_LOG_FILE = os.path.join(_TMP, "server.log")
PORTAL_LOG_FILE = os.path.join(_TMP, "portal.log")
HTTP_LOG_FILE = os.path.join(_TMP, "http_requests.log")
LOCKWARNING_LOG_FILE = os.path.join(_TMP, "lockwarnings.log")
CACHE_DIR = os.path.join(_TMP, "cache")

INSTALLED_APPS = INSTALLED_APPS + ["omniira_evennia"]  # noqa: F405
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("OMNIIRA_TESTBED_DB") or os.path.join(_TMP, "testbed.db3"),
    }
}

# Evennia's own classes: a game directory's `typeclasses` package does not exist here.
BASE_ACCOUNT_TYPECLASS = "evennia.accounts.accounts.DefaultAccount"
BASE_OBJECT_TYPECLASS = "evennia.objects.objects.DefaultObject"
BASE_CHARACTER_TYPECLASS = "evennia.objects.objects.DefaultCharacter"
BASE_ROOM_TYPECLASS = "evennia.objects.objects.DefaultRoom"
BASE_EXIT_TYPECLASS = "evennia.objects.objects.DefaultExit"
BASE_CHANNEL_TYPECLASS = "evennia.comms.comms.DefaultChannel"
BASE_SCRIPT_TYPECLASS = "evennia.scripts.scripts.DefaultScript"
BASE_GUEST_TYPECLASS = "evennia.accounts.accounts.DefaultGuest"
CMDSET_CHARACTER = "evennia.commands.default.cmdset_character.CharacterCmdSet"
CMDSET_ACCOUNT = "evennia.commands.default.cmdset_account.AccountCmdSet"
CMDSET_SESSION = "evennia.commands.default.cmdset_session.SessionCmdSet"
CMDSET_UNLOGGEDIN = "evennia.commands.default.cmdset_unloggedin.UnloggedinCmdSet"

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
SECRET_KEY = "omniira-testbed-not-secret"
OMNIIRA = {"THINKING_DELAY": 0}
