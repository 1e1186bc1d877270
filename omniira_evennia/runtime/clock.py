"""Game time as NPCs see it: the game-day number and a human phrase for the prompt."""

from __future__ import annotations

from omniira_evennia.conf import get_settings

SECONDS_PER_DAY = 24 * 3600


def game_seconds() -> float:
    """
    Game seconds since day 1, 00:00. The server's first start is day 1 at GAME_START_HOUR
    (0 by default: midnight).
    """
    from evennia.utils import gametime

    return gametime.gametime(absolute=False) + get_settings().GAME_START_HOUR * 3600


def current_game_day() -> int:
    """Day 1 is the day the server first started, counted in game time."""
    return int(game_seconds() // SECONDS_PER_DAY) + 1


def describe_time_of_day(hour: int) -> str:
    if hour < 5:
        return "deep night"
    if hour < 9:
        return "early morning"
    if hour < 12:
        return "late morning"
    if hour < 14:
        return "midday"
    if hour < 18:
        return "afternoon"
    if hour < 21:
        return "evening"
    return "night"


def game_time_phrase() -> str:
    seconds = game_seconds()
    day = int(seconds // SECONDS_PER_DAY) + 1
    hour = int(seconds % SECONDS_PER_DAY // 3600)
    minute = int(seconds % 3600 // 60)
    return f"day {day}, {describe_time_of_day(hour)} ({hour:02d}:{minute:02d})"
