"""Who a line of speech is addressed to: "Maren, what's on tap?" is for Maren."""

from __future__ import annotations

import re
from typing import Sequence

# Words a line may open with before the name: greetings, and farewells and thanks, so
# "Goodbye Maren, see you tomorrow" is said to Maren (and answered) like "Maren, goodbye".
_GREETING = (
    r"(?:(?:hey|hi|hello|oh|ok|okay|so|well|excuse me|greetings|good ?bye|bye|farewell|"
    r"good ?night|good (?:morning|afternoon|evening|day)|thanks|thank you|cheers|see you|"
    r"so long|take care)[\s,!.]+)?"
)


def addressed_name(message: str, names: Sequence[str]) -> str | None:
    """
    The name in `names` that `message` opens by addressing, or None.

    Matches "Maren, ...", "Maren: ...", "Maren! ...", "hey Maren, ...", "Goodbye Maren, ...",
    "Thanks, Maren!", "Maren?" (case-insensitive, longest name first so "Old Tom" beats "Tom").
    """
    text = message.strip()
    for name in sorted((n for n in names if n), key=len, reverse=True):
        pattern = rf"^{_GREETING}{re.escape(name)}\s*(?:[,:!?.]|$)"
        if re.match(pattern, text, re.IGNORECASE):
            return name
    return None


GOODBYE = re.compile(
    r"\b(good ?bye|farewell|bye|see you|so long|good ?night|take care)\b", re.IGNORECASE
)


def is_goodbye(message: str) -> bool:
    return bool(GOODBYE.search(message))
