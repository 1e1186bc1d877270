"""
NPC schedules, time hints and place names: the plain-Python part of daily life.

A schedule is a builder-authored string of entries, separated by commas, semicolons or new
lines. Each entry is a place and a span of game hours (24-hour clock, minutes optional):

    tavern 06-22, market 10-12
    forge 06:30-19:00; tavern 19-23
    watchtower 22-06            (spans past midnight)

The end is exclusive ("market 10-12" is 10:00-11:59) and may be 24. When entries overlap, the
shortest one wins (ties: the later entry), so a day-long entry is a default that shorter ones
punch holes into: with "tavern 06-22, market 10-12" the NPC is at the market 10-12 and in the
tavern the rest of 06-22. Outside every entry the NPC stays where it is.

`parse_schedule` reports every bad entry with its position and a fix; the decision tick uses
the good entries and logs the bad ones, `set_schedule` (the API) refuses a bad schedule.

A place is a room's name or one of its aliases, compared without case and articles
("tavern" is the room aliased "tavern", "market square" the room "Market Square").

`parse_time_hint` turns a commitment's `by` ("noon", "at dusk", "in two hours", "3pm",
"tomorrow morning") into game seconds; `match_place` finds the room a name ("the market")
means. No Django or Evennia import here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

SECONDS_PER_DAY = 24 * 3600
MINUTES_PER_DAY = 24 * 60


class ScheduleError(ValueError):
    """A schedule with bad entries; `errors` lists one message per bad entry."""

    def __init__(self, errors: list[str]):
        self.errors = list(errors)
        super().__init__("; ".join(self.errors))


@dataclass(frozen=True)
class Slot:
    """One schedule entry: be at `place` from `start` to `end` (minutes of the day)."""

    place: str
    start: int  # 0-1439
    end: int  # 1-1440, exclusive; end < start wraps past midnight
    index: int = 0  # position in the schedule, for tie-breaking and messages

    @property
    def span(self) -> int:
        return (self.end - self.start) % MINUTES_PER_DAY or MINUTES_PER_DAY

    def covers(self, minute: int) -> bool:
        minute %= MINUTES_PER_DAY
        if self.start < self.end:
            return self.start <= minute < self.end
        return minute >= self.start or minute < self.end  # wraps past midnight

    def __str__(self) -> str:
        return f"{self.place} {_hhmm(self.start)}-{_hhmm(self.end)}"


def _hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


_ENTRY = re.compile(
    r"^(?P<place>.+?)[\s:@]+(?P<start>\d{1,2}(?::\d{2})?)\s*-\s*(?P<end>\d{1,2}(?::\d{2})?)$"
)
_SEPARATORS = re.compile(r"[,;\n]+")


def _clock_minutes(text: str, *, is_end: bool) -> int:
    hours, _, minutes = text.partition(":")
    hour, minute = int(hours), int(minutes or 0)
    if minute > 59:
        raise ValueError(f"minute {minute} is not 0-59")
    if hour > 24 or (hour == 24 and (minute or not is_end)):
        raise ValueError(f"{text} is not a time of day (00:00-24:00; 24 only as an end)")
    return hour * 60 + minute


def parse_schedule(text, *, strict: bool = True) -> list[Slot]:
    """
    Parse a schedule (a string, or a list of entry strings). Empty means no schedule.

    With `strict` (the default) any bad entry raises `ScheduleError` listing all of them;
    otherwise bad entries are left out and `parse_schedule_lenient` returns them.
    """
    slots, errors = parse_schedule_lenient(text)
    if errors and strict:
        raise ScheduleError(errors)
    return slots


def parse_schedule_lenient(text) -> tuple[list[Slot], list[str]]:
    """Parse what can be parsed: (good slots, one error message per bad entry)."""
    if text is None:
        return [], []
    if isinstance(text, (list, tuple)):
        entries = [str(e) for e in text]
    elif isinstance(text, str):
        entries = _SEPARATORS.split(text)
    else:
        return [], [f"a schedule is text like 'tavern 06-22, market 10-12', not {text!r}"]
    slots, errors = [], []
    for index, raw in enumerate(e.strip() for e in entries):
        if not raw:
            continue
        where = f"entry {index + 1} {raw!r}"
        match = _ENTRY.match(raw)
        if not match:
            errors.append(f"{where}: expected '<place> HH-HH', e.g. 'market 10-12'")
            continue
        place = " ".join(match["place"].strip(" :@").split())
        if not place:
            errors.append(f"{where}: no place before the hours")
            continue
        try:
            start = _clock_minutes(match["start"], is_end=False)
            end = _clock_minutes(match["end"], is_end=True)
        except ValueError as err:
            errors.append(f"{where}: {err}")
            continue
        if start == end:
            errors.append(f"{where}: starts and ends at the same time (all day is 00-24)")
            continue
        slots.append(Slot(place, start, end, index))
    return slots, errors


def slot_at(slots: Iterable[Slot], minute: int) -> Slot | None:
    """The entry in force at `minute` of the day: the shortest covering one, then the latest."""
    covering = [s for s in slots if s.covers(minute)]
    if not covering:
        return None
    return min(covering, key=lambda s: (s.span, -s.index))


def format_schedule(slots: Iterable[Slot]) -> str:
    return ", ".join(str(s) for s in slots)


# ---------------------------------------------------------------- time hints

_WORD_HOURS = {
    "dawn": 6,
    "daybreak": 6,
    "sunrise": 6,
    "first light": 6,
    "morning": 9,
    "noon": 12,
    "midday": 12,
    "lunch": 12,
    "afternoon": 15,
    "dusk": 19,
    "sundown": 19,
    "sunset": 19,
    "nightfall": 19,
    "evening": 19,
    "supper": 19,
    "tonight": 21,
    "night": 21,
    "midnight": 24,
}
_NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "a few": 3,
    "a couple of": 2,
    "half an": 0.5,
}
_RELATIVE = re.compile(
    r"\bin\s+(?P<n>\d+(?:\.\d+)?|"
    + "|".join(sorted((re.escape(w) for w in _NUMBER_WORDS), key=len, reverse=True))
    + r")\s*(?P<unit>hours?|hrs?|h|minutes?|mins?|m)\b"
)
_CLOCK = re.compile(
    r"\b(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ampm>a\.?m\.?|p\.?m\.?|o'?clock|h\b)?",
)
_SOON = re.compile(r"\b(now|soon|at once|right away|immediately|straight away|shortly)\b")


def parse_time_hint(hint: str, now: float) -> float | None:
    """
    The game time (seconds since day 1, 00:00) a commitment's `by` names, after `now`.

    Clock times ("10", "10:30", "3pm"), parts of the day ("noon", "dusk", "tonight"),
    "tomorrow ..." and "in two hours" are understood; a time of day means its next
    occurrence. Returns None for no time limit: empty, "now"/"soon", or anything unknown.
    """
    text = " ".join(str(hint or "").lower().split())
    if not text:
        return None
    relative = _RELATIVE.search(text)
    if relative:
        raw = relative["n"]
        amount = float(_NUMBER_WORDS[raw]) if raw in _NUMBER_WORDS else float(raw)
        unit = 3600 if relative["unit"].startswith("h") else 60
        return now + amount * unit
    minute = _clock_in(text)
    if minute is None:
        for word, hour in sorted(_WORD_HOURS.items(), key=lambda kv: -len(kv[0])):
            if re.search(rf"\b{re.escape(word)}\b", text):
                minute = hour * 60
                break
    tomorrow = bool(re.search(r"\btomorrow\b", text))
    if minute is None:
        if tomorrow:
            minute = 9 * 60  # "tomorrow": in the morning
        else:
            return None  # "now", "soon", or words we do not know: no time limit
    day_start = now - now % SECONDS_PER_DAY
    when = day_start + minute * 60
    if tomorrow:
        when += SECONDS_PER_DAY
    elif when <= now:
        when += SECONDS_PER_DAY  # the next time it is that o'clock
    return when


def _clock_in(text: str) -> int | None:
    for match in _CLOCK.finditer(text):
        hour, minute = int(match["h"]), int(match["m"] or 0)
        ampm = (match["ampm"] or "").replace(".", "")
        if not ampm and match["m"] is None:
            # A bare number is a time only when nothing else could read it ("by 10").
            if not re.search(rf"\b(by|at|before|until|till|around|about)\s+{hour}\b", text):
                continue
        if ampm.startswith("p") and hour < 12:
            hour += 12
        elif ampm.startswith("a") and hour == 12:
            hour = 0
        if hour > 24 or minute > 59:
            continue
        return hour * 60 + minute
    return None


def is_now(hint: str) -> bool:
    """True for hints meaning "right away" (no time limit, set out at once)."""
    return bool(_SOON.search(str(hint or "").lower()))


# ---------------------------------------------------------------- place names

_STOPWORDS = frozenset(
    "the a an of to at in on by near my your our their his her its ye olde".split()
)


def place_words(text: str) -> tuple[str, ...]:
    """Lower-case words of a place name, without articles and possessives."""
    words = re.findall(r"[a-z0-9&]+", str(text).lower().replace("'s", ""))
    return tuple(w for w in words if w not in _STOPWORDS)


@dataclass(frozen=True)
class Place:
    """A room as the decision logic sees it: its id (when known), name and aliases."""

    key: str
    aliases: tuple[str, ...] = ()
    id: int | None = None

    def score(self, name: str) -> int:
        """2: the name is this place (key or alias); 1: one name's words hold the other's."""
        wanted = place_words(name)
        if not wanted:
            return 0
        best = 0
        for candidate in (self.key, *self.aliases):
            words = place_words(candidate)
            if not words:
                continue
            if words == wanted:
                return 2
            if set(wanted) <= set(words) or set(words) <= set(wanted):
                best = 1
        return best

    def answers_to(self, name: str) -> bool:
        return self.score(name) > 0

    def same_as(self, other: "Place | None") -> bool:
        if other is None:
            return False
        if self.id is not None and other.id is not None:
            return self.id == other.id
        return self.answers_to(other.key)


def match_place(name: str, places: Sequence[Place], *, exact: bool = False) -> Place | None:
    """
    The place `name` means: an exact key or alias first, else (unless `exact`) one whose words
    hold the name's or the other way round. Among equals the first wins, so pass places
    nearest first. Schedules use `exact` (a builder names rooms precisely: "lane" must not
    mean "The Lantern & Lane"); commitments from an LLM ("the market square") do not.
    """
    best, best_score = None, 1 if exact else 0
    for place in places:
        score = place.score(name)
        if score > best_score:
            best, best_score = place, score
            if score == 2:
                break
    return best
