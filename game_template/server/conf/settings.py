r"""
Settings for the omniira-evennia demo game.

Evennia's defaults are in evennia/settings_default.py; only what this game changes is here.
Secret or machine-specific values go in secret_settings.py (written by `make demo`, git-ignored).
"""

from evennia.settings_default import *  # noqa: F401,F403

SERVERNAME = "Omniira Demo: The Lantern & Lane"

# Loopback only: the demo is for the person running it.
TELNET_INTERFACES = ["127.0.0.1"]
WEBSERVER_INTERFACES = ["127.0.0.1"]
WEBSOCKET_CLIENT_INTERFACE = "127.0.0.1"

INSTALLED_APPS += ["omniira_evennia"]  # noqa: F405

# NPC memory. LLM endpoints come from the environment (OMNIIRA_LLM_BASE_URL & co, see the
# README) so this file needs no editing to switch providers.
OMNIIRA = {
    "THINKING_DELAY": 2.0,
    "TIERS": {
        "voice": {"max_tokens": 200, "temperature": 0.7},
        "reasoning": {"max_tokens": 400, "temperature": 0.2},
        "ambient": {"max_tokens": 120, "temperature": 0.8},
    },
}

# Game seconds per real second: one game day is two real hours.
TIME_FACTOR = 12.0

try:
    from server.conf.secret_settings import *  # noqa: F401,F403
except ImportError:
    print("secret_settings.py file not found or failed to import.")
