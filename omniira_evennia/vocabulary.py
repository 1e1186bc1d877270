"""
The words memories are made of, shared by every capability: the seven feelings, importance,
keys and value limits, and the normalisers that make LLM output fit them.

Plain Python (no Django, Evennia or Twisted).
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator

# The Evennia tag (key, category) every memory NPC carries: services find NPCs by this one
# indexed lookup instead of scanning every object.
NPC_TAG = ("memory_npc", "omniira")

# An opening memory tag, in every form the tag parser reads (conversation/tags.py) and so every
# form the manipulation detector flags in a player's words (memory/safety.py): `[[NAME:` (the
# documented form) or `[NAME:` (a slip small models make), any case; or a bare upper-case
# `NAME:` directly followed by a JSON payload (a tag that lost its brackets, or one whose
# brackets went with a neighbouring tag).
OPEN_TAG = re.compile(
    r"\[\[?\s*(?i:(REMEMBER|OPINION|CONCERN|COMMITMENT))\s*:"
    r'|\b(REMEMBER|OPINION|CONCERN|COMMITMENT)\s*:(?=\s*[{"])'
)

_BRACKET_RUN = re.compile(r"[\[\]]{2,}")
_TAG_NAME_COLON = re.compile(r"(?i)(REMEMBER|OPINION|CONCERN|COMMITMENT)[\s:]*:")


def defang_tags(text: str) -> str:
    """
    `text` with no tag syntax left in any form `OPEN_TAG` reads: runs of two or more brackets
    removed whole (so no new pair forms where one was cut) and a tag name's colon dropped.
    Linear and idempotent. Not a parser (`conversation.tags.parse_reply` is the one that reads
    tags): the write policy's guarantee that no text it keeps can be read as a tag.
    """
    if "[[" not in text and "]]" not in text and not OPEN_TAG.search(text):
        return text
    return _TAG_NAME_COLON.sub(r"\1", _BRACKET_RUN.sub("", text))


FEELINGS = ("joy", "anger", "fear", "trust", "contempt", "sorrow", "surprise")
VALUE_MAX_CHARS = 500
KEY_MAX_CHARS = 64


def normalize_feeling(value: Any) -> str | None:
    """Map a free feeling word onto the seven feelings; anything else (incl. neutral) is None."""
    if not isinstance(value, str):
        return None
    word = value.strip().lower()
    return word if word in FEELINGS else None


def clamp_int(value: Any, low: int, high: int, default: int) -> int:
    """Coerce numbers and numeric strings into [low, high]; junk becomes `default`."""
    try:
        number = int(round(float(value)))
    except (TypeError, ValueError, OverflowError):
        return default
    return max(low, min(high, number))


# An importance from an LLM: numbers and numeric strings clamped to 1-10, junk becomes 5.
Importance = Annotated[int, BeforeValidator(lambda v: clamp_int(v, 1, 10, 5))]


def slug_key(text: str) -> str:
    """A stable short_snake_case key, so the same fact upserts instead of duplicating."""
    slug = re.sub(r"[^a-z0-9]+", "_", str(text).lower()).strip("_")
    return slug[:KEY_MAX_CHARS].strip("_")


def cut_value(text: Any) -> str:
    """Collapse whitespace and cut to the 500-character column limit."""
    return " ".join(str(text).split())[:VALUE_MAX_CHARS]
