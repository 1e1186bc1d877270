"""
Times a line names, for retrieval (issue #27): "yesterday", "earlier today", "last week",
"three days ago" as a span of seconds before now. Plain Python; English only; bounded: a few
linear regular expressions over a line already capped by the text policy.
"""

from __future__ import annotations

import re

DAY = 86400.0
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_UNITS = {"day": DAY, "week": 7 * DAY, "month": 30 * DAY}
_FIXED = (
    (re.compile(r"\b(?:earlier\s+)?today\b|\bthis\s+(?:morning|afternoon|evening)\b"), (DAY, 0.0)),
    (re.compile(r"\byesterday\b"), (2 * DAY, DAY)),
    (re.compile(r"\b(?:this|the\s+past)\s+week\b"), (7 * DAY, 0.0)),
    (re.compile(r"\blast\s+week\b"), (14 * DAY, 7 * DAY)),
    (re.compile(r"\blast\s+month\b"), (60 * DAY, 30 * DAY)),
)
_AGO = re.compile(r"\b(\d{1,3}|an?|one|two|three|four|five|six)\s+(day|week|month)s?\s+ago\b")


def named_span(text: str) -> tuple[float, float] | None:
    """(from, to) seconds before now of the first time `text` names, or None."""
    lowered = (text or "").lower()
    found = []
    for pattern, span in _FIXED:
        match = pattern.search(lowered)
        if match:
            found.append((match.start(), span))
    match = _AGO.search(lowered)
    if match:
        count = int(match.group(1)) if match.group(1).isdigit() else _NUMBERS[match.group(1)]
        unit = _UNITS[match.group(2)]
        found.append((match.start(), ((count + 0.5) * unit, max(0.0, (count - 0.5) * unit))))
    return min(found)[1] if found else None
