"""
Input functions: what a player types, made safe before Evennia reads it (issue #26).

Evennia strips MXP links from every line a player sends (`inputfuncs.text`, with
MXP_OUTGOING_ONLY) with a pattern that rescans the line from every "|lc": a 6,000-character line
of link fragments held the server for seconds, every player with it, whatever the command.
This `text` takes the links out first, in linear time (`memory.safety.unwrap_links`), then hands
the line to Evennia's own. Enable it in the game's settings:

    INPUT_FUNC_MODULES += ["omniira_evennia.inputfuncs"]

(later modules win: Evennia's `text` is replaced by this one, which calls it).
"""

from evennia.server import inputfuncs as evennia_inputfuncs

from omniira_evennia.memory import safety


def text(session, *args, **kwargs):
    """Evennia's text input, after the player's links are reduced to their text (linearly)."""
    if args and isinstance(args[0], str):
        args = (safety.unwrap_links(args[0]), *args[1:])
    return evennia_inputfuncs.text(session, *args, **kwargs)
