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
# Host headers the website answers (Evennia's default is "*"): the loopback names a browser on
# this machine uses. Another name (a DNS rebinding page's) gets Django's 400.
ALLOWED_HOSTS = ["localhost", "127.0.0.1", "[::1]"]

# The demo listens on loopback only, so allow more than Evennia's 2 new accounts per IP and
# 10 minutes (every local player shares 127.0.0.1).
CREATION_THROTTLE_LIMIT = 50

# One account on telnet and in the web client at once (builders work that way): Evennia's
# default (0) disconnects the older session; 1 keeps both, on the same character, both
# seeing its output.
MULTISESSION_MODE = 1

# All ports move together when OMNIIRA_DEMO_PORT_BASE is set (tests run a second copy).
import os as _os  # noqa: E402
import sys as _sys  # noqa: E402

# `tools/demo.py` names the checkout it runs from: import omniira_evennia from there, even if
# the virtualenv's editable install points at another checkout (a git worktree).
_CHECKOUT = _os.environ.get("OMNIIRA_DEMO_CHECKOUT")
if _CHECKOUT and _CHECKOUT not in _sys.path:
    _sys.path.insert(1, _CHECKOUT)

_PORT_BASE = int(_os.environ.get("OMNIIRA_DEMO_PORT_BASE", "4000"))
TELNET_PORTS = [_PORT_BASE]
WEBSERVER_PORTS = [(_PORT_BASE + 1, _PORT_BASE + 5)]
WEBSOCKET_CLIENT_PORT = _PORT_BASE + 2
AMP_PORT = _PORT_BASE + 6

INSTALLED_APPS += ["omniira_evennia"]  # noqa: F405
# A player's line loses its links before Evennia reads it (omniira_evennia/inputfuncs.py).
INPUT_FUNC_MODULES += ["omniira_evennia.inputfuncs"]  # noqa: F405

# NPC memory. LLM endpoints come from the environment (OMNIIRA_LLM_BASE_URL & co, see the
# README) so this file needs no editing to switch providers.
OMNIIRA = {
    "THINKING_DELAY": 2.0,
    "PLAYER_RECALL": True,  # the demo lets players ask `recall Maren`
    "ROLLOVER_CONCURRENCY": 4,
    "GAME_START_HOUR": 7,  # a new demo world wakes at 07:00; Lyra heads to market at 08:00
    # The player still in the room sees when the NPC has reviewed their ended conversation
    # (`recall` shows what it kept from then on).
    "REVIEW_CUE": "{npc} nods slowly, turning over what you talked about.",
    # Timeouts allow for the offline 1.5B model on two CPU cores (first replies 30-60 s).
    "TIERS": {
        "voice": {"max_tokens": 160, "temperature": 0.7, "timeout": 150},
        "reasoning": {"max_tokens": 400, "temperature": 0.2, "timeout": 240},
        "ambient": {"max_tokens": 100, "temperature": 0.8, "timeout": 150},
    },
}

# With the offline 1.5B model (started by `make demo` when no endpoint is set) every call
# takes tens of seconds on a CPU, so NPCs gossip less often and players rarely wait behind them.
if _os.environ.get("OMNIIRA_LOCAL_BASE_URL"):
    OMNIIRA["GOSSIP_INTERVAL_SECONDS"] = 1800
    # A small model speaks best from a lean prompt: its notes are made by the conversation-end
    # review, off the player's path, and its memories held to a budget (omniira_evennia's
    # local_model.SMALL_MODEL_*, kept equal by a test).
    OMNIIRA["TIERS"]["voice"]["turn_format"] = "speech"
    # A reply whose first try took over 15 s is mended in place, not asked for again.
    OMNIIRA["TIERS"]["voice"]["retry_within"] = 15.0
    OMNIIRA["MEMORY_PROMPT_CHARS"] = 1200
    # The model server has two slots (local_model.SLOTS): background work takes one at a time,
    # so a player's turn never waits behind a review.
    OMNIIRA["BACKGROUND_THREADS"] = 1
    # At start the NPCs' fixed prompt blocks go to the model server once, so its prompt cache
    # holds them before the first player speaks.
    OMNIIRA["WARM_PROMPT_NPCS"] = 8

# Game seconds per real second: one game day is two real hours. To watch NPCs walk their
# day quickly, start the demo with e.g. OMNIIRA_DEMO_TIME_FACTOR=720 (a day in two minutes);
# OMNIIRA_DEMO_DECISION_SECONDS sets how often (real seconds) NPCs decide where to go.
TIME_FACTOR = float(_os.environ.get("OMNIIRA_DEMO_TIME_FACTOR") or 12.0)
if _os.environ.get("OMNIIRA_DEMO_DECISION_SECONDS"):
    OMNIIRA["DECISION_TICK_SECONDS"] = float(_os.environ["OMNIIRA_DEMO_DECISION_SECONDS"])

try:
    from server.conf.secret_settings import *  # noqa: F401,F403
except ImportError:
    print("secret_settings.py file not found or failed to import.")
