"""
A memory kept in its subject's own words ('Nerys said: "I have a son ..."'), and which notes
should be: written by memory/write.py and conversation/lifecycle.py, read back by
conversation/plain_lines.py and memory/grounding.py.

Plain Python; each function reads at most the first MAX_CHARS of its text.
"""

from __future__ import annotations

import re

MAX_CHARS = 1000
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")


def said_quote(subject: str, words: str) -> str:
    """A memory kept in its subject's own words: 'Nerys said: "I have a son ..."' (memory/write,
    conversation/lifecycle); `quoted_words` reads it back."""
    return f'{subject} said: "{words}"'


def quoted_words(value: str, subject: str) -> str | None:
    """The words of a note that quotes its subject ('Nerys said: "I have a son ..."'), or None."""
    if not subject:
        return None
    found = re.match(rf'^\W*{re.escape(subject)}\s+said:\s*"(.+?)"?\s*$', value, re.I | re.S)
    return found.group(1) if found else None


# Who a note may name instead of its subject: "She keeps goats", "Their brother ...".
_ANYONE = re.compile(r"\b(?:he|she|they|him|her|them|his|hers|their|theirs)\b", re.IGNORECASE)


def names_nobody(value: str, subject: str) -> bool:
    """A note about `subject` that names nobody: "Tarnow, down on the southern plains." (from
    "Home for me is Tarnow, ...", held-out seed 48527) is a place without whose home it is, and
    the NPC told "you never told me" when asked. Kept in their words instead (memory/write)."""
    if not subject or quoted_words(value, subject) is not None:
        return False
    names = {w.lower() for w in _WORD.findall(subject)}
    words = {
        w.lower().removesuffix("'s").removesuffix("’s") for w in _WORD.findall(value[:MAX_CHARS])
    }
    return not (names & words) and not _ANYONE.search(value[:MAX_CHARS])
