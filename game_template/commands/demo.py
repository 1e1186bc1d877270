"""
Commands of the demo game only.
"""

from django.conf import settings
from evennia.commands.default.muxcommand import MuxCommand

from omniira_evennia.runtime import clock


class CmdClock(MuxCommand):
    """
    the time of day, by the clock the NPCs live by

    Usage:
      clock

    Shows the game day and hour the NPCs' schedules follow (Lyra is at the
    market 08-11 and 14-17 by this clock, not by yours).
    """

    key = "clock"
    locks = "cmd:all()"
    help_category = "General"

    def func(self):
        minutes = 60 / float(getattr(settings, "TIME_FACTOR", 1.0) or 1.0)
        self.caller.msg(
            f"It is {clock.game_time_phrase()} by the game clock; a game hour lasts "
            f"{minutes:g} real minutes."
        )
